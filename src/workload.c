/* Workloads for the benchmarks and the tuner: fresh random inputs, one
 * correctness check against a CPU reference, CUDA-event timing with inputs
 * rotated through a pool several times the L2 size. */
#include "workload.h"
#include "context.h"
#include "workspace.h"
#include "error.h"
#include "driver.h"

#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_REPS 1000
#define SLICE_ALIGN 256

struct pool {
    CUdeviceptr base;
    size_t slice;   /* bytes between slices (aligned) */
    unsigned count; /* slices rotated through */
};

/* What run() does: the operation, or the bytes of its ceiling copied. */
enum copy_mode { RUN_OP, RUN_MEMCPY, RUN_COPY_KERNEL };

struct cuspec__workload {
    cuspec_ctx *ctx;
    struct cuspec__spec spec;
    const struct cuspec__family_ops *ops;
    struct cuspec__io io;
    struct pool in[2], out;
    void *host[2]; /* host copies of the inputs, for the reference */
    void *back;    /* room for the output read back */
    void *ref;     /* the CPU's answer, made on the first check */
    cuspec__after_run_fn hook;
    void *hook_user;
    enum copy_mode copy;
    /* While a variant is captured for timing: the scratch its calls share
     * (held = 1), as direct calls on one stream would. */
    struct cuspec__scratch scratch;
    int held;
    /* Set before each timed graph launch (2 x the L2, made on the first
     * where there is room), so that no launch finds in the L2 what the one
     * before it read. */
    CUdeviceptr flush;
};

/* A slice of a random fill, with its own generator (xorshift64*). */
struct fill_part {
    unsigned char *buf;
    size_t first, n;
    int dtype;
    uint64_t state;
};

/* The half k / 1024 (|k| <= 1024: exact in an IEEE half), as its bits. */
static uint16_t half_of(int k)
{
    unsigned m = (unsigned)(k < 0 ? -k : k), e = 0;
    if (m == 0)
        return 0;
    while (m >> (e + 1))
        e++;
    return (uint16_t)((k < 0 ? 0x8000u : 0) | (e + 5) << 10 | ((m << (10 - e)) & 0x3ffu));
}

/* Random values valid for the dtype: floats uniform in [-1, 1) (f16 in
 * steps of 2^-10, bf16 an f32's value cut to its top 16 bits), integers and
 * opaque words over their whole range. */
static void *fill_part(void *arg)
{
    struct fill_part *p = arg;
    size_t size = cuspec_dtype_size(p->dtype);
    uint64_t s = p->state;
    for (size_t i = p->first; i < p->first + p->n; i++) {
        s ^= s >> 12;
        s ^= s << 25;
        s ^= s >> 27;
        uint64_t x = s * 0x2545F4914F6CDD1DULL;
        if (p->dtype == CUSPEC_F32 || p->dtype == CUSPEC_BF16) {
            float f = (float)((double)(x >> 40) / (double)(1 << 23) - 1.0);
            uint32_t bits;
            memcpy(&bits, &f, 4);
            if (p->dtype == CUSPEC_F32)
                ((float *)p->buf)[i] = f;
            else
                ((uint16_t *)p->buf)[i] = (uint16_t)(bits >> 16);
        } else if (p->dtype == CUSPEC_F16)
            ((uint16_t *)p->buf)[i] = half_of((int)(x >> 53) - 1024);
        else if (p->dtype == CUSPEC_F64)
            ((double *)p->buf)[i] = (double)(x >> 11) / 4503599627370496.0 - 1.0;
        else
            memcpy(p->buf + i * size, &x, size);
    }
    return NULL;
}

void cuspec__random_fill(void *buf, size_t n, int dtype)
{
    enum { MAX_PARTS = 16 };
    static _Atomic uint64_t calls;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t seed = (uint64_t)ts.tv_nsec * 0x9E3779B97F4A7C15ULL + (uint64_t)ts.tv_sec +
                    atomic_fetch_add(&calls, 1) * 0xBF58476D1CE4E5B9ULL;
    /* Gigabytes of inputs take seconds on one core: split large fills. */
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    size_t parts = n < (1u << 22) || cores < 2 ? 1 : cores < MAX_PARTS ? (size_t)cores : MAX_PARTS;
    struct fill_part part[MAX_PARTS];
    pthread_t thread[MAX_PARTS];
    int started[MAX_PARTS] = {0};
    for (size_t k = 0; k < parts; k++) {
        size_t first = n / parts * k;
        part[k] = (struct fill_part){buf, first, k + 1 == parts ? n - first : n / parts, dtype,
                                     (seed ^ (0x94D049BB133111EBULL * (k + 1))) | 1};
        if (k > 0)
            started[k] = pthread_create(&thread[k], NULL, fill_part, &part[k]) == 0;
    }
    fill_part(&part[0]);
    for (size_t k = 1; k < parts; k++) {
        if (started[k])
            pthread_join(thread[k], NULL);
        else
            fill_part(&part[k]); /* no thread to be had: fill it here */
    }
}

void cuspec__random_bytes(void *buf, size_t bytes)
{
    cuspec__random_fill(buf, bytes / 8, CUSPEC_U64);
    cuspec__random_fill((unsigned char *)buf + bytes / 8 * 8, bytes % 8, CUSPEC_U8);
}

/* A pool of slices of `bytes` each, enough that rotating through them keeps
 * every call's input out of the L2 (4x its size), uploaded from host; or
 * without `rotate`, one buffer every call uses. */
static int pool_make(cuspec_ctx *ctx, size_t bytes, const void *host, int rotate, struct pool *p)
{
    size_t want = 4 * (size_t)ctx->info.l2_bytes;
    p->slice = rotate ? (bytes + SLICE_ALIGN - 1) / SLICE_ALIGN * SLICE_ALIGN : bytes;
    p->count = !rotate || p->slice >= want ? 1 : (unsigned)((want + p->slice - 1) / p->slice);
    if (p->count > 4096)
        p->count = 4096;
    int rc = cuspec__cu_check(ctx->drv->cuMemAlloc(&p->base, p->slice * p->count),
                              rotate ? "cuMemAlloc (benchmark buffer)" : "cuMemAlloc (result)");
    for (unsigned i = 0; rc == CUSPEC_OK && host != NULL && i < p->count; i++)
        rc = cuspec__cu_check(ctx->drv->cuMemcpyHtoD(p->base + i * p->slice, host, bytes),
                              "cuMemcpyHtoD (benchmark input)");
    return rc;
}

int cuspec__workload_create(cuspec_ctx *ctx, const struct cuspec__spec *spec,
                            struct cuspec__workload **out)
{
    struct cuspec__workload *w = calloc(1, sizeof *w);
    CUSPEC__RETURN_IF(w == NULL, CUSPEC_ERR_NOMEM, "out of memory");
    *out = NULL;
    w->ctx = ctx;
    w->spec = *spec;
    w->ops = cuspec__ops(spec->family);
    w->ops->io(spec, &w->io);
    const struct cuspec__io *io = &w->io;
    int pushed, rc = cuspec__ctx_enter(ctx, &pushed);
    if (rc != CUSPEC_OK) {
        free(w);
        return rc;
    }
    int nomem = (w->back = malloc(io->out_bytes)) == NULL;
    for (unsigned k = 0; k < io->inputs; k++)
        nomem |= (w->host[k] = malloc(io->in_bytes ? io->in_bytes : 1)) == NULL;
    if (nomem) {
        rc = cuspec__fail(CUSPEC_ERR_NOMEM, "no host memory for %zu bytes of input", io->in_bytes);
        goto out;
    }
    for (unsigned k = 0; k < io->inputs; k++) {
        if (io->values)
            cuspec__random_fill(w->host[k], io->in_bytes / cuspec_dtype_size(spec->dtype),
                                spec->dtype);
        else
            cuspec__random_bytes(w->host[k], io->in_bytes);
    }
    for (unsigned k = 0; rc == CUSPEC_OK && k < io->inputs; k++)
        rc = pool_make(ctx, io->in_bytes, w->host[k], 1, &w->in[k]);
    if (rc == CUSPEC_OK)
        rc = pool_make(ctx, io->out_bytes, NULL, io->out_rotates, &w->out);
out:
    cuspec__ctx_leave(ctx, pushed);
    if (rc != CUSPEC_OK) {
        cuspec__workload_destroy(w);
        return rc;
    }
    *out = w;
    return CUSPEC_OK;
}

void cuspec__workload_destroy(struct cuspec__workload *w)
{
    if (w == NULL)
        return;
    int pushed;
    if (cuspec__ctx_enter(w->ctx, &pushed) == CUSPEC_OK) {
        const struct cuspec__driver *drv = w->ctx->drv;
        struct pool *pools[] = {&w->in[0], &w->in[1], &w->out};
        for (size_t i = 0; i < sizeof pools / sizeof *pools; i++)
            if (pools[i]->base)
                drv->cuMemFree(pools[i]->base);
        if (w->flush)
            drv->cuMemFree(w->flush);
        cuspec__ctx_leave(w->ctx, pushed);
    }
    free(w->host[0]);
    free(w->host[1]);
    free(w->back);
    free(w->ref);
    free(w);
}

void cuspec__workload_set_hook(struct cuspec__workload *w, cuspec__after_run_fn fn, void *user)
{
    w->hook = fn;
    w->hook_user = user;
}

double cuspec__workload_bytes(const struct cuspec__workload *w)
{
    return w->io.moved;
}

unsigned cuspec__workload_slices(const struct cuspec__workload *w)
{
    return w->in[0].count;
}

/* Slice i of p, round the pool (0 where p was not made).  Pools of
 * different sizes (a padded input and output) differ in their counts. */
static CUdeviceptr slice_at(const struct pool *p, unsigned i)
{
    return p->count ? p->base + i % p->count * p->slice : 0;
}

/* One call on slice i of the pools, through v or the public API, on stream. */
static int run(struct cuspec__workload *w, const struct cuspec__variant *v, unsigned i,
               CUstream stream)
{
    CUdeviceptr in[2] = {slice_at(&w->in[0], i), slice_at(&w->in[1], i)};
    CUdeviceptr out = slice_at(&w->out, i);
    if (w->copy == RUN_MEMCPY)
        return cuspec__cu_check(
            w->ctx->drv->cuMemcpyDtoDAsync(out, in[0], w->io.copy_bytes, stream),
            "cuMemcpyDtoDAsync");
    if (w->copy == RUN_COPY_KERNEL)
        return cuspec_copy(w->ctx, out, in[0], w->io.copy_bytes, stream);
    return w->ops->run(w->ctx, &w->spec, v, in, out, stream, w->held ? &w->scratch : NULL);
}

int cuspec__workload_check(struct cuspec__workload *w, const struct cuspec__variant *v,
                           int *correct, double *error)
{
    const struct cuspec__driver *drv = w->ctx->drv;
    CUdeviceptr out = w->out.base;
    size_t out_bytes = w->io.out_bytes;
    const void *const host[2] = {w->host[0], w->host[1]};
    *correct = 0;
    *error = 0;
    int pushed, rc = cuspec__ctx_enter(w->ctx, &pushed);
    if (rc != CUSPEC_OK)
        return rc;
    rc = cuspec__cu_check(drv->cuMemsetD8(out, CUSPEC__POISON, out_bytes), "cuMemsetD8 (poison)");
    if (rc == CUSPEC_OK)
        rc = run(w, v, 0, NULL);
    if (rc == CUSPEC_OK && w->hook != NULL)
        w->hook(w->hook_user, v, out, out_bytes);
    if (rc == CUSPEC_OK)
        rc =
            cuspec__cu_check(drv->cuMemcpyDtoH(w->back, out, out_bytes), "reading the result back");
    if (rc == CUSPEC_OK && w->ref == NULL)
        w->ref = w->ops->reference(&w->spec, host);
    if (rc == CUSPEC_OK && w->ref != NULL)
        w->ops->compare(&w->spec, w->ref, host, w->back, correct, error);
    cuspec__ctx_leave(w->ctx, pushed);
    return rc;
}

/* ## Timing */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Timed repetitions: 3 to MAX_REPS. */
static int clamp_reps(int reps)
{
    return reps < 3 ? 3 : reps > MAX_REPS ? MAX_REPS : reps;
}

/* Sorts the n times t; their median and 10th and 90th percentiles. */
static void order_stats(double *t, int n, double *median, double *p10, double *p90)
{
    qsort(t, (size_t)n, sizeof *t, cmp_double);
    *median = t[n / 2];
    *p10 = t[n / 10];
    *p90 = t[n - 1 - n / 10];
}

/* Microseconds per call over `batch` calls back to back on stream, between
 * two events: enqueued one by one (the host's cost included where it is the
 * larger; t[0]), or (graph) captured into a CUDA graph and launched
 * `launches` times, the L2 flushed before each, so that the device's own
 * time per call is what shows (t[k] for launch k). A variant (the tuner's)
 * that takes scratch, captured here, runs on scratch held for the graph's
 * life, not on the graph's own allocations: candidates are ranked by their
 * kernels, as direct calls run them; the public calls (the benchmarks) pay
 * what captured calls pay. */
static int batch_time(struct cuspec__workload *w, const struct cuspec__variant *v, int batch,
                      int graph, int launches, CUstream stream, CUevent *ev, double *t)
{
    const struct cuspec__driver *drv = w->ctx->drv;
    size_t flush_bytes = 2 * (size_t)w->ctx->info.l2_bytes;
    CUgraph g = NULL;
    CUgraphExec exec = NULL;
    int rc = CUSPEC_OK;
    /* Without room for a flush, the launches go unflushed rather than not
     * at all (a device that nearly fills with the inputs). */
    if (graph && !w->flush && flush_bytes > 0 &&
        drv->cuMemAlloc(&w->flush, flush_bytes) != CUDA_SUCCESS)
        w->flush = 0;
    if (graph && v != NULL && w->ops->scratch) {
        rc = cuspec__scratch_take(w->ctx, stream, CUSPEC__WS_BYTES / 8, CUSPEC__WS_TICKETS,
                                  &w->scratch);
        w->held = rc == CUSPEC_OK;
    }
    if (graph && rc == CUSPEC_OK)
        rc = cuspec__cu_check(drv->cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_RELAXED),
                              "cuStreamBeginCapture");
    if (graph && rc != CUSPEC_OK) {
        if (w->held)
            cuspec__scratch_give(w->ctx, stream, &w->scratch);
        w->held = 0;
        return rc;
    }
    for (int i = 0; rc == CUSPEC_OK && graph && i < batch; i++)
        rc = run(w, v, (unsigned)i, stream);
    if (graph) {
        CUresult end = drv->cuStreamEndCapture(stream, &g); /* ends it whatever happened */
        if (rc == CUSPEC_OK)
            rc = cuspec__cu_check(end, "cuStreamEndCapture");
        if (rc == CUSPEC_OK)
            rc = cuspec__cu_check(drv->cuGraphInstantiateWithFlags(&exec, g, 0),
                                  "cuGraphInstantiateWithFlags");
        if (rc == CUSPEC_OK) /* the first launch uploads the graph */
            rc = cuspec__cu_check(drv->cuGraphLaunch(exec, stream), "cuGraphLaunch");
    }
    for (int k = 0; rc == CUSPEC_OK && k < (graph ? launches : 1); k++) {
        if (graph && w->flush)
            rc = cuspec__cu_check(
                drv->cuMemsetD8Async(w->flush, (unsigned char)k, flush_bytes, stream),
                "cuMemsetD8Async (flushing the L2)");
        if (rc == CUSPEC_OK)
            rc = cuspec__cu_check(drv->cuEventRecord(ev[0], stream), "cuEventRecord");
        if (rc == CUSPEC_OK && graph)
            rc = cuspec__cu_check(drv->cuGraphLaunch(exec, stream), "cuGraphLaunch");
        for (int i = 0; rc == CUSPEC_OK && !graph && i < batch; i++)
            rc = run(w, v, (unsigned)i, stream);
        float ms = 0;
        if (rc == CUSPEC_OK)
            rc = cuspec__cu_check(drv->cuEventRecord(ev[1], stream), "cuEventRecord");
        if (rc == CUSPEC_OK)
            rc = cuspec__cu_check(drv->cuEventSynchronize(ev[1]), "kernel execution");
        if (rc == CUSPEC_OK)
            rc = cuspec__cu_check(drv->cuEventElapsedTime(&ms, ev[0], ev[1]), "cuEventElapsedTime");
        t[k] = ms * 1e3 / batch;
    }
    if (exec != NULL)
        drv->cuGraphExecDestroy(exec);
    if (g != NULL)
        drv->cuGraphDestroy(g);
    if (w->held) { /* after the launches: the slot is busy until they are over */
        int given = cuspec__scratch_give(w->ctx, stream, &w->scratch);
        rc = rc != CUSPEC_OK ? rc : given;
        w->held = 0;
    }
    return rc;
}

int cuspec__workload_time(struct cuspec__workload *w, const struct cuspec__variant *v, int reps,
                          int batch, cuspec_bench_result *r)
{
    const struct cuspec__driver *drv = w->ctx->drv;
    CUevent ev[2 * MAX_REPS];
    CUstream stream = NULL;
    double t[MAX_REPS];
    int made = 0;
    reps = clamp_reps(reps);
    r->bytes = cuspec__workload_bytes(w);
    int pushed, rc = cuspec__ctx_enter(w->ctx, &pushed);
    if (rc != CUSPEC_OK)
        return rc;
    rc = cuspec__ctx_timing_stream(w->ctx, &stream);
    for (; made < 2 * reps && rc == CUSPEC_OK; made++)
        rc = cuspec__cu_check(drv->cuEventCreate(&ev[made], CU_EVENT_DEFAULT), "cuEventCreate");
    for (unsigned i = 0; rc == CUSPEC_OK && i < 3; i++) /* warm-up */
        rc = run(w, v, i, stream);
    for (int i = 0; rc == CUSPEC_OK && i < reps; i++) {
        drv->cuEventRecord(ev[2 * i], stream);
        rc = run(w, v, (unsigned)i + 1, stream);
        drv->cuEventRecord(ev[2 * i + 1], stream);
    }
    if (rc == CUSPEC_OK)
        rc = cuspec__cu_check(drv->cuStreamSynchronize(stream), "kernel execution");
    for (int i = 0; rc == CUSPEC_OK && i < reps; i++) {
        float ms = 0;
        rc = cuspec__cu_check(drv->cuEventElapsedTime(&ms, ev[2 * i], ev[2 * i + 1]),
                              "cuEventElapsedTime");
        t[i] = ms * 1e3;
    }
    if (rc == CUSPEC_OK) {
        order_stats(t, reps, &r->median_us, &r->p10_us, &r->p90_us);
        r->gbs = r->bytes / (r->median_us * 1e-6) / 1e9;
    }
    if (rc == CUSPEC_OK && batch) {
        /* Enough calls for ~20 ms, between 10 and 200. */
        batch = r->median_us > 0 ? (int)(20000 / r->median_us) : 200;
        batch = batch < 10 ? 10 : batch > 200 ? 200 : batch;
        rc = batch_time(w, v, batch, 0, 1, stream, ev, &r->batch_us);
        if (rc == CUSPEC_OK)
            rc = batch_time(w, v, batch, 1, 1, stream, ev, &r->graph_us);
    }
    for (int i = 0; i < made; i++)
        drv->cuEventDestroy(ev[i]);
    if (stream != NULL)
        drv->cuStreamSynchronize(stream);
    cuspec__ctx_leave(w->ctx, pushed);
    return rc;
}

int cuspec__workload_copy_time(struct cuspec__workload *w, int reps, double *us)
{
    cuspec_bench_result r;
    int rc = CUSPEC_OK;
    *us = 0;
    if (w->io.copy_bytes == 0)
        return CUSPEC_OK; /* the operation has no copy ceiling */
    for (enum copy_mode m = RUN_MEMCPY; rc == CUSPEC_OK && m <= RUN_COPY_KERNEL; m++) {
        w->copy = m;
        rc = cuspec__workload_time(w, NULL, reps, 0, &r);
        if (rc == CUSPEC_OK && (*us == 0 || r.median_us < *us))
            *us = r.median_us;
    }
    w->copy = RUN_OP;
    return rc;
}

int cuspec__workload_graph_time(struct cuspec__workload *w, const struct cuspec__variant *v,
                                int calls, int launches, double *us, double *spread)
{
    const struct cuspec__driver *drv = w->ctx->drv;
    CUevent ev[2] = {NULL, NULL};
    CUstream stream = NULL;
    double t[MAX_REPS];
    launches = clamp_reps(launches);
    int pushed, rc = cuspec__ctx_enter(w->ctx, &pushed);
    if (rc != CUSPEC_OK)
        return rc;
    rc = cuspec__ctx_timing_stream(w->ctx, &stream);
    for (int i = 0; rc == CUSPEC_OK && i < 2; i++)
        rc = cuspec__cu_check(drv->cuEventCreate(&ev[i], CU_EVENT_DEFAULT), "cuEventCreate");
    if (rc == CUSPEC_OK)
        rc = batch_time(w, v, calls, 1, launches, stream, ev, t);
    if (rc == CUSPEC_OK) {
        double p10, p90;
        order_stats(t, launches, us, &p10, &p90);
        *spread = *us > 0 ? (p90 - p10) / *us : 0;
    }
    for (int i = 0; i < 2; i++)
        if (ev[i] != NULL)
            drv->cuEventDestroy(ev[i]);
    cuspec__ctx_leave(w->ctx, pushed);
    return rc;
}
