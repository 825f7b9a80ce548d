/* Helpers for GPU tests: skip without a device, check driver calls, random
 * host data. Tests reach the driver through the library's own loader. */
#ifndef CUSPEC_TEST_GPU_H
#define CUSPEC_TEST_GPU_H

#include "catalogue.h"
#include "context.h"
#include "tap.h"
#include "driver.h"

#include <stdint.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const struct cuspec__driver *drv;

/* Skips the whole test program unless a driver and a device are here. */
static inline void gpu_require(void)
{
    int count = 0;
    int rc = cuspec_device_count(&count);
    if (rc != CUSPEC_OK) {
        char reason[512];
        snprintf(reason, sizeof reason, "no CUDA driver: %.400s", cuspec_last_error());
        tap_skip(reason);
    }
    if (count == 0)
        tap_skip("the CUDA driver reports no device");
    cuspec__driver(&drv);
}

/* The same, decided in a child, for tests that fork: a parent that opened
 * the driver would leave its children a CUDA they cannot use. */
static inline void gpu_require_in_child(void)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        gpu_require(); /* prints the skip plan and exits 77 */
        _exit(0);
    }
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
        tap_skip("could not probe for a GPU in a child process");
    if (WEXITSTATUS(st) == 77)
        exit(77); /* the child printed the skip plan */
}

#define CU_OK(call)                                                                                \
    do {                                                                                           \
        CUresult cu_r = (call);                                                                    \
        if (cu_r != CUDA_SUCCESS)                                                                  \
            TAP_FAIL("%s: CUresult %d", #call, (int)cu_r);                                         \
    } while (0)

#define CUSPEC_OK_(call)                                                                           \
    do {                                                                                           \
        int cs_r = (call);                                                                         \
        if (cs_r != CUSPEC_OK)                                                                     \
            TAP_FAIL("%s: %s: %s", #call, cuspec_strerror(cs_r), cuspec_last_error());             \
    } while (0)

/* Whether kernels compiled for ctx's device launch programmatically: they
 * wait for the grid before them from sm_90 on, and the driver keeps such
 * launches in graphs from 12.3 on. */
static inline int gpu_wants_pdl(const cuspec_ctx *ctx)
{
    return ctx->arch >= 90 && drv->version >= 12030;
}

/* Fails the test point unless the default kernel of (family, dtype, op),
 * made for ctx's device, launches programmatically exactly where
 * gpu_wants_pdl says; prints which. */
static inline void gpu_check_pdl(cuspec_ctx *ctx, int family, int dtype, int op)
{
    const char *name = cuspec__family(family)->name;
    const int want = gpu_wants_pdl(ctx);
    printf("# sm_%d %s: programmatic dependent launch %s\n", ctx->arch, name, want ? "on" : "off");
    struct cuspec__variant v;
    cuspec__variant_default(family, dtype, op, ctx->arch, &v);
    struct cuspec__kernel kern = {0};
    int rc = cuspec__function(ctx, NULL, &v, &kern);
    if (rc != CUSPEC_OK)
        TAP_FAIL("%s's default kernel: %s: %s", name, cuspec_strerror(rc), cuspec_last_error());
    else if (kern.pdl != want)
        TAP_FAIL("%s: programmatic launch %d, want %d", name, kern.pdl, want);
}

/* A chain of calls, each reading what the one before wrote (programmatic
 * launches on sm_90 and later: a kernel placed early must wait), run on a
 * stream of its own, then captured in a graph and the graph replayed
 * twice. Before each run poison(stream) overwrites what the chain writes,
 * asynchronously on the stream; after it check(how) compares, told "on a
 * stream" or "in a graph". */
struct gpu_chain {
    void (*poison)(CUstream s, void *user);
    void (*run)(CUstream s, void *user);
    void (*check)(const char *how, void *user);
    void *user;
};

static inline void gpu_chain_run(const struct gpu_chain *c)
{
    CUstream s = NULL;
    CUgraph graph = NULL;
    CUgraphExec exec = NULL;
    CU_OK(drv->cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    if (s == NULL)
        return;
    c->poison(s, c->user);
    c->run(s, c->user);
    CU_OK(drv->cuStreamSynchronize(s));
    c->check("on a stream", c->user);

    CU_OK(drv->cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_RELAXED));
    c->run(s, c->user);
    CU_OK(drv->cuStreamEndCapture(s, &graph));
    if (graph != NULL)
        CU_OK(drv->cuGraphInstantiateWithFlags(&exec, graph, 0));
    for (int run = 0; exec != NULL && run < 2; run++) {
        c->poison(s, c->user);
        CU_OK(drv->cuGraphLaunch(exec, s));
        CU_OK(drv->cuStreamSynchronize(s));
        c->check("in a graph", c->user);
    }
    if (exec == NULL)
        TAP_FAIL("the chain could not be captured in a graph");
    else
        CU_OK(drv->cuGraphExecDestroy(exec));
    if (graph != NULL)
        CU_OK(drv->cuGraphDestroy(graph));
    CU_OK(drv->cuStreamDestroy(s));
}

/* xorshift64*: fresh bytes for every run (seeded from the clock). */
static uint64_t rng_state;
static inline uint64_t rng_next(void)
{
    uint64_t x = rng_state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    rng_state = x;
    return x * 0x2545F4914F6CDD1DULL;
}
static inline void rng_seed(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    rng_state = (uint64_t)ts.tv_nsec * 0x9E3779B97F4A7C15ULL ^ (uint64_t)ts.tv_sec ^ 1;
    printf("# seed %llu\n", (unsigned long long)rng_state);
}
static inline void rng_fill(void *buf, size_t bytes)
{
    unsigned char *p = buf;
    for (size_t i = 0; i < bytes; i++)
        p[i] = (unsigned char)(rng_next() >> 56);
}

#endif
