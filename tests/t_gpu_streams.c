/* GPU: reductions' scratch under many streams, threads and graphs (the
 * rule for streams and graphs in cuspec.h). Every result is an exact sum:
 * f32 inputs are small integers (every partial sum is exact), i32 sums are
 * exact in 64 bits; every call reduces its own window of the inputs, so
 * two calls sharing scratch would mix their partials or tickets.
 *
 * - a context made while the thread's per-thread default stream captures
 *   (its warm-up launch must stay out of the graph);
 * - direct calls on a fresh stream per call beside a global-mode capture in
 *   another thread: the pool grows while the capture is open, which stays
 *   valid;
 * - 8 threads, each creating, using and destroying 100 streams;
 * - 8 threads on CU_STREAM_PER_THREAD (each thread's stream its own);
 * - graphs captured on one stream (in global, thread-local and relaxed
 *   modes; single-pass and two-pass kernels) launched on three others at
 *   once while direct calls run on the capture stream; one executable graph
 *   launched on three streams in turn; a second instantiation of a graph
 *   while the first exists, which CUDA refuses for graphs that allocate;
 * - 2000 streams, every fourth kept alive: more than the 256 streams the
 *   old fixed table served.
 *
 * One process, one context. The kernels are compiled by NVRTC into a
 * private store (a fresh $CUSPEC_CACHE_DIR). */
#include "gpu.h"
#include "gpu_cases.h"
#include "reduce.h"
#include "error.h"
#include "driver.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

enum {
    N_ELEMS = 1 << 22, /* elements of each input */
    MAX_N = 1 << 21,   /* the longest window: 7 * 2^21 < 2^24, so f32 sums are exact */
    MIN_N = 5000,      /* more than one block of the default kernels */
    N_OUTS = 8192,     /* 8-byte results */
    POISON = 0xA5,     /* the results' bytes before the calls */
    THREADS = 8,       /* threads of the threaded tests */
    STREAMS_PER_THREAD = 100,
    CALLS = 4, /* calls per stream: f32 and i32 sums, single-pass and two-pass */
};

static CUdeviceptr d_f, d_i, d_out;
static float *h_f;
static int32_t *h_i;
static int64_t *pre_f;                     /* prefix sums of h_f (integers) */
static uint64_t *pre_i;                    /* prefix sums of h_i, modulo 2^64 */
static struct cuspec__variant two_pass[2]; /* [0] f32, [1] i32: defaults with single=0 */

/* ## Calls and their exact results */
struct call {
    int dtype; /* CUSPEC_F32 or CUSPEC_I32 */
    int two;   /* through the two-pass variant, else the public call */
    size_t off, n;
    unsigned out; /* index of its 8-byte result in d_out */
};

static uint64_t next(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1DULL;
}

/* Call kind k % CALLS on a random window, its result at `out`. */
static struct call random_call(uint64_t *s, int k, unsigned out)
{
    struct call c = {k % 2 ? CUSPEC_I32 : CUSPEC_F32, k % CALLS >= 2, 0, 0, out};
    c.n = MIN_N + next(s) % (MAX_N - MIN_N + 1);
    c.off = next(s) % (N_ELEMS - c.n + 1);
    return c;
}

/* Enqueues c on stream s (the context current). */
static int launch(const struct call *c, CUstream s)
{
    int i32 = c->dtype == CUSPEC_I32;
    CUdeviceptr in = (i32 ? d_i : d_f) + (CUdeviceptr)c->off * 4;
    CUdeviceptr out = d_out + (CUdeviceptr)c->out * 8;
    if (c->two)
        return cuspec__reduce_variant(ctx, &two_pass[i32], in, 0, c->n, out, s);
    return cuspec_reduce(ctx, CUSPEC_SUM, c->dtype, in, c->n, out, s);
}

/* 0 when got (the 8 bytes at c->out) is c's exact sum; else 1 with why. */
static int wrong(const struct call *c, const unsigned char *got, char *why, size_t size)
{
    const char *how = c->two ? "two-pass" : "public";
    if (c->dtype == CUSPEC_F32) {
        float want = (float)(pre_f[c->off + c->n] - pre_f[c->off]), g;
        memcpy(&g, got, 4);
        if (g == want)
            return 0;
        snprintf(why, size, "f32 sum (%s) of [%zu, +%zu) at out %u: got %.9g, want %.9g", how,
                 c->off, c->n, c->out, g, want);
    } else {
        int64_t want = (int64_t)(pre_i[c->off + c->n] - pre_i[c->off]), g;
        memcpy(&g, got, 8);
        if (g == want)
            return 0;
        snprintf(why, size, "i32 sum (%s) of [%zu, +%zu) at out %u: got %lld, want %lld", how,
                 c->off, c->n, c->out, (long long)g, (long long)want);
    }
    return 1;
}

/* Reads the results of calls c[0..n) back (the work done) and fails the
 * case for each wrong one; returns how many were wrong. */
static int check_calls(const struct call *c, size_t n, const char *where)
{
    unsigned char *got = malloc((size_t)N_OUTS * 8);
    int bad = 0;
    if (got == NULL || drv->cuMemcpyDtoH(got, d_out, (size_t)N_OUTS * 8) != CUDA_SUCCESS) {
        CASE_FAIL("%s: cannot read the results back", where);
        free(got);
        return (int)n;
    }
    for (size_t i = 0; i < n; i++) {
        char why[256];
        if (wrong(&c[i], got + (size_t)c[i].out * 8, why, sizeof why)) {
            CASE_FAIL("%s: %s", where, why);
            bad++;
        }
    }
    free(got);
    return bad;
}

static void poison_outs(void)
{
    CU_OK(drv->cuMemsetD8(d_out, POISON, (size_t)N_OUTS * 8));
    CU_OK(drv->cuCtxSynchronize());
}

static size_t pool_slots(void)
{
    pthread_mutex_lock(&ctx->ws_lock);
    size_t n = ctx->ws_n;
    pthread_mutex_unlock(&ctx->ws_lock);
    return n;
}

/* ## Worker threads: failures kept for the main thread to report */
struct worker {
    int id;
    uint64_t rng;
    CUstream *streams; /* grow_beside_capture: the streams to use */
    struct call *calls;
    unsigned long long stream_id; /* per_thread: cuStreamGetId(CU_STREAM_PER_THREAD) */
    int failed;
    char why[512];
};

static void worker_fail(struct worker *w, const char *fmt, ...) CUSPEC__PRINTF(2, 3);
static void worker_fail(struct worker *w, const char *fmt, ...)
{
    if (w->failed++ == 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(w->why, sizeof w->why, fmt, ap);
        va_end(ap);
    }
}

/* Makes the context current on the worker's thread; 0 (the worker failed)
 * when it cannot. */
static int worker_enter(struct worker *w, int *pushed)
{
    if (cuspec__ctx_enter(ctx, pushed) == CUSPEC_OK)
        return 1;
    worker_fail(w, "cuspec__ctx_enter: %s", cuspec_last_error());
    return 0;
}

static void run_workers(void *(*fn)(void *), struct worker *w, int n)
{
    pthread_t t[THREADS];
    int made = 0;
    for (; made < n; made++)
        if (pthread_create(&t[made], NULL, fn, &w[made]) != 0) {
            CASE_FAIL("pthread_create failed");
            break;
        }
    for (int i = 0; i < made; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < made; i++)
        if (w[i].failed)
            CASE_FAIL("thread %d: %d failures, the first: %s", w[i].id, w[i].failed, w[i].why);
}

static int ready(void)
{
    if (ctx == NULL || d_out == 0) {
        TAP_FAIL("no context or buffers (see the diagnostics above)");
        return 0;
    }
    return 1;
}

/* ## Set-up: the two-pass variants, every kind of call once */
TEST(warm_up)
{
    if (!ready())
        return;
    group_begin();
    int p_single = param_index(&cuspec__family_reduce, "single");
    CHECK(p_single >= 0);
    for (int i = 0; i < 2 && p_single >= 0; i++) {
        struct cuspec__variant *v = &two_pass[i];
        memset(v, 0, sizeof *v);
        v->family = CUSPEC__FAM_REDUCE;
        v->dtype = i ? CUSPEC_I32 : CUSPEC_F32;
        v->op = CUSPEC_SUM;
        cuspec__family_reduce.defaults(ctx->arch, v);
        CHECK_INT_EQ(v->p[p_single], 1); /* the public calls are single-pass */
        v->p[p_single] = 0;
    }
    /* Every kind of call once (compiles what the others load), on a stream
     * of its own. */
    poison_outs();
    uint64_t s = rng_next() | 1;
    struct call c[CALLS];
    CUstream st = NULL;
    CU_OK(drv->cuStreamCreate(&st, CU_STREAM_NON_BLOCKING));
    for (int k = 0; k < CALLS && st != NULL; k++) {
        c[k] = random_call(&s, k, (unsigned)k);
        CUSPEC_OK_(launch(&c[k], st));
    }
    if (st != NULL) {
        CU_OK(drv->cuStreamSynchronize(st));
        check_calls(c, CALLS, "warm-up");
        CU_OK(drv->cuStreamDestroy(st));
    }
    printf("# scratch slots: %zu\n", pool_slots());
    group_end();
}

/* ## A context made while the thread's per-thread default stream captures
 * A context's creation launches the copy kernel once on that stream when a
 * store holds it (context.c: warm_up); while the stream captures, it must
 * not, or the launch would join the caller's graph and its wait invalidate
 * the capture. The copy kernel is put in the store first. */
TEST(a_context_made_while_capturing)
{
    if (!ready())
        return;
    CUSPEC_OK_(cuspec_copy(ctx, d_out + 8, d_out, 8, NULL));
    CU_OK(drv->cuCtxSynchronize());
    CUgraph g = NULL;
    cuspec_ctx *other = NULL;
    CU_OK(drv->cuStreamBeginCapture(CU_STREAM_PER_THREAD, CU_STREAM_CAPTURE_MODE_RELAXED));
    int rc = cuspec_ctx_create(&other, 0);
    CUresult end = drv->cuStreamEndCapture(CU_STREAM_PER_THREAD, &g);
    if (rc != CUSPEC_OK)
        CASE_FAIL("cuspec_ctx_create while capturing: %s: %s", cuspec_strerror(rc),
                  cuspec_last_error());
    if (end != CUDA_SUCCESS || g == NULL)
        CASE_FAIL("the capture did not survive the context's creation: CUresult %d", (int)end);
    if (g != NULL)
        drv->cuGraphDestroy(g);
    if (other != NULL)
        cuspec_ctx_destroy(other);
}

/* ## Direct calls beside a capture in global mode in another thread
 * Each of 48 fresh streams is kept busy by a large memset before its sum,
 * so that the slots stay busy and the pool must grow (cuMemAlloc, which
 * global-mode capture forbids unless the thread relaxes its mode). */
enum { GROW_STREAMS = 48 };
static CUdeviceptr busy_buf;
#define BUSY_BYTES ((size_t)256 << 20)

static void *grow_beside_capture(void *arg)
{
    struct worker *w = arg;
    int pushed;
    if (!worker_enter(w, &pushed))
        return NULL;
    for (int i = 0; i < GROW_STREAMS; i++) {
        CUresult r = drv->cuMemsetD8Async(busy_buf, (unsigned char)i, BUSY_BYTES, w->streams[i]);
        if (r != CUDA_SUCCESS)
            worker_fail(w, "cuMemsetD8Async on stream %d: CUresult %d", i, (int)r);
        int rc = launch(&w->calls[i], w->streams[i]);
        if (rc != CUSPEC_OK)
            worker_fail(w, "call on stream %d: %s: %s", i, cuspec_strerror(rc),
                        cuspec_last_error());
    }
    cuspec__ctx_leave(ctx, pushed);
    return NULL;
}

TEST(direct_calls_beside_global_capture)
{
    if (!ready())
        return;
    group_begin();
    CUstream st[GROW_STREAMS] = {NULL}, cs = NULL;
    struct call c[GROW_STREAMS + 1];
    uint64_t s = rng_next() | 1;
    CUgraph g = NULL;
    CUgraphExec e = NULL;
    CU_OK(drv->cuMemAlloc(&busy_buf, BUSY_BYTES));
    CU_OK(drv->cuStreamCreate(&cs, CU_STREAM_NON_BLOCKING));
    for (int i = 0; i < GROW_STREAMS; i++)
        CU_OK(drv->cuStreamCreate(&st[i], CU_STREAM_NON_BLOCKING));
    for (int i = 0; i <= GROW_STREAMS; i++)
        c[i] = random_call(&s, i, (unsigned)i);
    if (busy_buf == 0 || cs == NULL || st[GROW_STREAMS - 1] == NULL)
        goto done;
    poison_outs();
    size_t before = pool_slots();

    CU_OK(drv->cuStreamBeginCapture(cs, CU_STREAM_CAPTURE_MODE_GLOBAL));
    int rc = launch(&c[GROW_STREAMS], cs);
    struct worker w = {.id = 1, .streams = st, .calls = c};
    run_workers(grow_beside_capture, &w, 1);
    CUresult end = drv->cuStreamEndCapture(cs, &g);
    if (rc != CUSPEC_OK)
        CASE_FAIL("the captured call: %s: %s", cuspec_strerror(rc), cuspec_last_error());
    if (end != CUDA_SUCCESS || g == NULL)
        CASE_FAIL("the capture did not survive the other thread's calls: CUresult %d", (int)end);
    size_t after = pool_slots();
    printf("# scratch slots: %zu before, %zu after %d busy streams\n", before, after, GROW_STREAMS);
    CHECK_UINT_LT(before, after); /* the pool grew while the capture was open */

    /* The captured call has not run. */
    CHECK(device_untouched(d_out + (CUdeviceptr)GROW_STREAMS * 8, 8, POISON));
    if (g != NULL)
        CU_OK(drv->cuGraphInstantiateWithFlags(&e, g, 0));
    if (e != NULL) {
        CU_OK(drv->cuGraphLaunch(e, cs));
        CU_OK(drv->cuCtxSynchronize());
        check_calls(c, GROW_STREAMS + 1, "beside a global capture");
    }
done:
    if (e != NULL)
        CU_OK(drv->cuGraphExecDestroy(e));
    if (g != NULL)
        CU_OK(drv->cuGraphDestroy(g));
    for (int i = 0; i < GROW_STREAMS; i++)
        if (st[i] != NULL)
            CU_OK(drv->cuStreamDestroy(st[i]));
    if (cs != NULL)
        CU_OK(drv->cuStreamDestroy(cs));
    if (busy_buf != 0)
        CU_OK(drv->cuMemFree(busy_buf));
    busy_buf = 0;
    group_end();
}

/* n random calls on stream s (kinds k + salt), results from out slot
 * `first` on, then a wait and the check of every result against the CPU;
 * failures are the worker's, named `what` j. */
static void calls_on(struct worker *w, CUstream s, const char *what, int j, int n, int salt,
                     unsigned first)
{
    struct call c[16];
    unsigned char got[16 * 8];
    for (int k = 0; k < n; k++) {
        c[k] = random_call(&w->rng, k + salt, first + (unsigned)k);
        int rc = launch(&c[k], s);
        if (rc != CUSPEC_OK)
            worker_fail(w, "%s %d call %d: %s: %s", what, j, k, cuspec_strerror(rc),
                        cuspec_last_error());
    }
    CUresult r = drv->cuStreamSynchronize(s);
    if (r == CUDA_SUCCESS)
        r = drv->cuMemcpyDtoH(got, d_out + (CUdeviceptr)first * 8, (size_t)n * 8);
    if (r != CUDA_SUCCESS)
        worker_fail(w, "%s %d: reading back: CUresult %d", what, j, (int)r);
    for (int k = 0; k < n && r == CUDA_SUCCESS; k++) {
        char why[256];
        if (wrong(&c[k], got + (size_t)k * 8, why, sizeof why))
            worker_fail(w, "%s %d: %s", what, j, why);
    }
}

/* ## Threads creating, using and destroying streams */
static void *churn(void *arg)
{
    struct worker *w = arg;
    int pushed;
    if (!worker_enter(w, &pushed))
        return NULL;
    unsigned base = (unsigned)w->id * STREAMS_PER_THREAD * CALLS;
    for (int j = 0; j < STREAMS_PER_THREAD; j++) {
        CUstream s = NULL;
        CUresult r = drv->cuStreamCreate(&s, CU_STREAM_NON_BLOCKING);
        if (r != CUDA_SUCCESS) {
            worker_fail(w, "cuStreamCreate: CUresult %d", (int)r);
            break;
        }
        calls_on(w, s, "stream", j, CALLS, j, base + (unsigned)j * CALLS);
        drv->cuStreamDestroy(s);
    }
    cuspec__ctx_leave(ctx, pushed);
    return NULL;
}

TEST(threads_create_use_destroy_streams)
{
    if (!ready())
        return;
    group_begin();
    CHECK(THREADS * STREAMS_PER_THREAD * CALLS <= N_OUTS);
    poison_outs();
    struct worker w[THREADS];
    memset(w, 0, sizeof w);
    for (int i = 0; i < THREADS; i++) {
        w[i].id = i;
        w[i].rng = rng_next() | 1;
    }
    size_t before = pool_slots();
    run_workers(churn, w, THREADS);
    size_t after = pool_slots();
    printf("# %d streams on %d threads: %zu scratch slots before, %zu after\n",
           THREADS * STREAMS_PER_THREAD, THREADS, before, after);
    /* Each thread waits for its stream before making the next: at most
     * THREADS streams are busy at once, and the slots of finished ones are
     * taken again, so the pool grows only up to THREADS. */
    size_t bound = before > THREADS ? before : THREADS;
    CHECK_UINT_LE(after, bound);
    group_end();
}

/* ## CU_STREAM_PER_THREAD: one stream per thread behind one handle */
static void *per_thread(void *arg)
{
    struct worker *w = arg;
    int pushed;
    if (!worker_enter(w, &pushed))
        return NULL;
    CUresult r = drv->cuStreamGetId(CU_STREAM_PER_THREAD, &w->stream_id);
    if (r != CUDA_SUCCESS)
        worker_fail(w, "cuStreamGetId(CU_STREAM_PER_THREAD): CUresult %d", (int)r);
    enum { ROUNDS = 50, BATCH = 8 }; /* BATCH calls in flight before each wait */
    unsigned base = (unsigned)w->id * ROUNDS * BATCH;
    for (int j = 0; j < ROUNDS; j++)
        calls_on(w, CU_STREAM_PER_THREAD, "round", j, BATCH, 0, base + (unsigned)j * BATCH);
    cuspec__ctx_leave(ctx, pushed);
    return NULL;
}

TEST(per_thread_default_streams)
{
    if (!ready())
        return;
    group_begin();
    CHECK(THREADS * 50 * 8 <= N_OUTS);
    poison_outs();
    struct worker w[THREADS];
    memset(w, 0, sizeof w);
    for (int i = 0; i < THREADS; i++) {
        w[i].id = i;
        w[i].rng = rng_next() | 1;
    }
    run_workers(per_thread, w, THREADS);
    /* Scratch is keyed by stream id: each thread's stream must have its own. */
    for (int i = 0; i < THREADS; i++)
        for (int j = 0; j < i; j++)
            if (w[i].stream_id == w[j].stream_id)
                CASE_FAIL("threads %d and %d: one id (%llu) for CU_STREAM_PER_THREAD", j, i,
                          w[i].stream_id);
    group_end();
}

/* ## Graphs replayed on other streams */
static const char *cu_name(CUresult r)
{
    const char *name = "?";
    drv->cuGetErrorName(r, &name);
    return name;
}

enum { G_STREAMS = 4, G_ROUNDS = 200 };

/* Poisons the results of c[k][*] on st[k], for each k in [k0, k1). */
static void poison_on(CUstream *st, struct call (*c)[CALLS], int k0, int k1)
{
    for (int k = k0; k < k1; k++)
        CU_OK(drv->cuMemsetD8Async(d_out + (CUdeviceptr)c[k][0].out * 8, POISON, CALLS * 8, st[k]));
}

static int direct_calls(CUstream s, const struct call *c)
{
    int rc = CUSPEC_OK;
    for (int x = 0; x < CALLS && rc == CUSPEC_OK; x++)
        rc = launch(&c[x], s);
    if (rc != CUSPEC_OK)
        CASE_FAIL("direct calls on the capture stream: %s: %s", cuspec_strerror(rc),
                  cuspec_last_error());
    return rc;
}

static void sync_all(CUstream *st)
{
    for (int k = 0; k < G_STREAMS; k++)
        CU_OK(drv->cuStreamSynchronize(st[k]));
}

TEST(graphs_on_other_streams_beside_direct_calls)
{
    if (!ready())
        return;
    group_begin();
    static const CUstreamCaptureMode modes[G_STREAMS] = {0, CU_STREAM_CAPTURE_MODE_GLOBAL,
                                                         CU_STREAM_CAPTURE_MODE_THREAD_LOCAL,
                                                         CU_STREAM_CAPTURE_MODE_RELAXED};
    CUstream st[G_STREAMS] = {NULL};
    CUgraph g[G_STREAMS] = {NULL};
    CUgraphExec e[G_STREAMS] = {NULL};
    struct call c[G_STREAMS][CALLS];
    uint64_t s = rng_next() | 1;
    for (int k = 0; k < G_STREAMS; k++) {
        CU_OK(drv->cuStreamCreate(&st[k], CU_STREAM_NON_BLOCKING));
        for (int x = 0; x < CALLS; x++) /* f32, i32 single-pass; f32, i32 two-pass */
            c[k][x] = random_call(&s, x, (unsigned)(k * CALLS + x));
    }
    if (st[G_STREAMS - 1] == NULL)
        goto done;
    poison_outs();

    /* Graph k (1..3): graph k's calls, captured on stream 0. */
    for (int k = 1; k < G_STREAMS; k++) {
        CU_OK(drv->cuStreamBeginCapture(st[0], modes[k]));
        int rc = CUSPEC_OK;
        for (int x = 0; x < CALLS && rc == CUSPEC_OK; x++)
            rc = launch(&c[k][x], st[0]);
        CUresult end = drv->cuStreamEndCapture(st[0], &g[k]);
        if (rc != CUSPEC_OK || end != CUDA_SUCCESS || g[k] == NULL) {
            CASE_FAIL("capture %d: %s (%s); cuStreamEndCapture: %s", k, cuspec_strerror(rc),
                      cuspec_last_error(), cu_name(end));
            goto done;
        }
        CU_OK(drv->cuGraphInstantiateWithFlags(&e[k], g[k], 0));
        if (e[k] == NULL)
            goto done;
    }
    CHECK(device_untouched(d_out, (size_t)G_STREAMS * CALLS * 8, POISON)); /* nothing ran */

    /* Graph k on stream k, all at once, and the same calls as graph 0
     * directly on the capture stream. */
    int bad = 0;
    for (int round = 0; round < G_ROUNDS && bad < MAX_PRINT; round++) {
        poison_on(st, c, 0, G_STREAMS);
        for (int k = 1; k < G_STREAMS; k++)
            CU_OK(drv->cuGraphLaunch(e[k], st[k]));
        if (direct_calls(st[0], c[0]) != CUSPEC_OK)
            break;
        sync_all(st);
        char where[64];
        snprintf(where, sizeof where, "round %d", round);
        bad += check_calls(&c[0][0], (size_t)G_STREAMS * CALLS, where);
    }

    /* One executable graph launched on three streams in turn (CUDA orders
     * the launches of one executable graph), beside direct calls. */
    for (int round = 0; round < 20 && bad < MAX_PRINT; round++) {
        poison_on(st, c, 0, 2);
        for (int k = 1; k < G_STREAMS; k++)
            CU_OK(drv->cuGraphLaunch(e[1], st[k]));
        if (direct_calls(st[0], c[0]) != CUSPEC_OK)
            break;
        sync_all(st);
        char where[64];
        snprintf(where, sizeof where, "one graph on three streams, round %d", round);
        bad += check_calls(&c[0][0], 2 * CALLS, where);
    }

    /* A second executable graph of graph 1 would share graph 1's scratch
     * with the first: CUDA refuses to make one for a graph that allocates. */
    CUgraphExec twice = NULL;
    CUresult r = drv->cuGraphInstantiateWithFlags(&twice, g[1], 0);
    printf("# a second instantiation of a graph that allocates: %s\n", cu_name(r));
    if (r == CUDA_SUCCESS) {
        CASE_FAIL("a second executable graph of graph 1 was made beside the first");
        CU_OK(drv->cuGraphExecDestroy(twice));
    }
    /* Once the first is gone, a new one runs. */
    CU_OK(drv->cuGraphExecDestroy(e[1]));
    e[1] = NULL;
    CU_OK(drv->cuGraphInstantiateWithFlags(&e[1], g[1], 0));
    if (e[1] != NULL) {
        poison_on(st, c, 1, 2);
        CU_OK(drv->cuGraphLaunch(e[1], st[1]));
        sync_all(st);
        check_calls(&c[1][0], CALLS, "graph 1 instantiated again");
    }
done:
    for (int k = 0; k < G_STREAMS; k++) {
        if (e[k] != NULL)
            CU_OK(drv->cuGraphExecDestroy(e[k]));
        if (g[k] != NULL)
            CU_OK(drv->cuGraphDestroy(g[k]));
        if (st[k] != NULL)
            CU_OK(drv->cuStreamDestroy(st[k]));
    }
    group_end();
}

/* ## More streams alive at once than the old table's 256 */
TEST(thousands_of_streams)
{
    enum { MADE = 2000, KEEP_EVERY = 4, ALIVE = MADE / KEEP_EVERY };
    if (!ready())
        return;
    group_begin();
    CHECK(MADE + ALIVE <= N_OUTS);
    static struct call c[MADE + ALIVE];
    CUstream alive[ALIVE] = {NULL};
    uint64_t s = rng_next() | 1;
    int n_alive = 0, n_calls = 0;
    poison_outs();
    for (int i = 0; i < MADE; i++) {
        CUstream st = NULL;
        CUresult r = drv->cuStreamCreate(&st, CU_STREAM_NON_BLOCKING);
        if (r != CUDA_SUCCESS) {
            CASE_FAIL("stream %d: cuStreamCreate: %s", i, cu_name(r));
            break;
        }
        c[n_calls] = random_call(&s, i, (unsigned)n_calls);
        int rc = launch(&c[n_calls++], st);
        if (rc != CUSPEC_OK)
            CASE_FAIL("stream %d (%d alive): %s: %s", i, n_alive, cuspec_strerror(rc),
                      cuspec_last_error());
        if (i % KEEP_EVERY == 0)
            alive[n_alive++] = st;
        else
            CU_OK(drv->cuStreamDestroy(st)); /* its call still runs */
    }
    /* A second call on each live stream, whose scratch may have moved on. */
    for (int i = 0; i < n_alive; i++) {
        c[n_calls] = random_call(&s, i + 1, (unsigned)n_calls);
        int rc = launch(&c[n_calls++], alive[i]);
        if (rc != CUSPEC_OK)
            CASE_FAIL("live stream %d: %s: %s", i, cuspec_strerror(rc), cuspec_last_error());
    }
    CU_OK(drv->cuCtxSynchronize());
    printf("# %d streams made, %d alive: %zu scratch slots\n", MADE, n_alive, pool_slots());
    check_calls(c, (size_t)n_calls, "thousands of streams");
    for (int i = 0; i < n_alive; i++)
        CU_OK(drv->cuStreamDestroy(alive[i]));
    group_end();
}

int main(void)
{
    if (gpu_cases_setup()) {
        h_f = malloc((size_t)N_ELEMS * sizeof *h_f);
        h_i = malloc((size_t)N_ELEMS * sizeof *h_i);
        pre_f = malloc(((size_t)N_ELEMS + 1) * sizeof *pre_f);
        pre_i = malloc(((size_t)N_ELEMS + 1) * sizeof *pre_i);
        if (h_f == NULL || h_i == NULL || pre_f == NULL || pre_i == NULL) {
            printf("# out of host memory\n");
        } else {
            pre_f[0] = 0;
            pre_i[0] = 0;
            for (size_t i = 0; i < N_ELEMS; i++) {
                uint64_t x = rng_next();
                h_f[i] = (float)((int)(x % 15) - 7); /* -7 .. 7 */
                h_i[i] = (int32_t)(uint32_t)(x >> 32);
                pre_f[i + 1] = pre_f[i] + (int64_t)h_f[i];
                pre_i[i + 1] = pre_i[i] + (uint64_t)(int64_t)h_i[i];
            }
            CUresult r = drv->cuMemAlloc(&d_f, (size_t)N_ELEMS * 4);
            if (r == CUDA_SUCCESS)
                r = drv->cuMemAlloc(&d_i, (size_t)N_ELEMS * 4);
            if (r == CUDA_SUCCESS)
                r = drv->cuMemcpyHtoD(d_f, h_f, (size_t)N_ELEMS * 4);
            if (r == CUDA_SUCCESS)
                r = drv->cuMemcpyHtoD(d_i, h_i, (size_t)N_ELEMS * 4);
            if (r == CUDA_SUCCESS)
                r = drv->cuMemAlloc(&d_out, (size_t)N_OUTS * 8);
            if (r != CUDA_SUCCESS) {
                printf("# buffers: CUresult %d\n", (int)r);
                d_out = 0;
            }
        }
    }

    static const struct tap_test tests[] = {
        TAP_ENTRY(warm_up),
        TAP_ENTRY(a_context_made_while_capturing),
        TAP_ENTRY(direct_calls_beside_global_capture),
        TAP_ENTRY(threads_create_use_destroy_streams),
        TAP_ENTRY(per_thread_default_streams),
        TAP_ENTRY(graphs_on_other_streams_beside_direct_calls),
        TAP_ENTRY(thousands_of_streams),
    };
    int rc = tap_run(tests, sizeof tests / sizeof *tests);

    if (d_f)
        drv->cuMemFree(d_f);
    if (d_i)
        drv->cuMemFree(d_i);
    if (d_out)
        drv->cuMemFree(d_out);
    free(h_f);
    free(h_i);
    free(pre_f);
    free(pre_i);
    if (ctx != NULL) {
        cuspec__ctx_leave(ctx, ctx_pushed);
        cuspec_ctx_destroy(ctx);
    }
    remove_store();
    return rc;
}
