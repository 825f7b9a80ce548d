/* Benchmarks: fresh random inputs, one correctness check against a CPU
 * reference, then CUDA-event timing (warm-up, median of many calls, inputs
 * rotated through a pool several times the L2 size). */
#include "context.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_REPS 1000
#define SLICE_ALIGN 256

typedef int (*call_fn)(void *arg, unsigned i);

struct pool {
    CUdeviceptr base;
    size_t slice;   /* bytes between slices (aligned) */
    unsigned count; /* slices rotated through */
};

static uint64_t rng = 0x853c49e6748fea9bULL;

static uint64_t next(void)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return rng * 0x2545F4914F6CDD1DULL;
}

static void seed(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    rng ^= (uint64_t)ts.tv_nsec * 0x9E3779B97F4A7C15ULL + (uint64_t)ts.tv_sec;
    if (rng == 0)
        rng = 1;
}

/* Random values valid for the dtype: floats uniform in [-1, 1), integers
 * over their whole range. */
static void fill(void *buf, size_t n, int dtype)
{
    size_t size = cuspec_dtype_size(dtype);
    for (size_t i = 0; i < n; i++) {
        uint64_t x = next();
        if (dtype == CUSPEC_F32) {
            ((float *)buf)[i] = (float)((double)(x >> 40) / (double)(1 << 23) - 1.0);
        } else if (dtype == CUSPEC_F64) {
            ((double *)buf)[i] = (double)(x >> 11) / 4503599627370496.0 - 1.0;
        } else {
            memcpy((char *)buf + i * size, &x, size);
        }
    }
}

static void fill_bytes(void *buf, size_t bytes)
{
    fill(buf, bytes / 8, CUSPEC_U64);
    fill((char *)buf + bytes / 8 * 8, bytes % 8, CUSPEC_U8);
}

/* A pool of `count` slices of `bytes` each, enough that rotating through
 * them keeps every call's input out of the L2 (at least 4x its size). */
static int pool_alloc(cuspec_ctx *ctx, size_t bytes, struct pool *p)
{
    size_t l2 = (size_t)ctx->info.l2_bytes, want = 4 * l2;
    p->slice = (bytes + SLICE_ALIGN - 1) / SLICE_ALIGN * SLICE_ALIGN;
    p->count = p->slice >= want ? 1 : (unsigned)((want + p->slice - 1) / p->slice);
    if (p->count > 4096)
        p->count = 4096;
    return cuspec__cu_check(ctx->drv->cuMemAlloc(&p->base, p->slice * p->count),
                            "cuMemAlloc (benchmark input)");
}

/* Fills every slice with the same random host data (uploaded once per slice). */
static int pool_upload(cuspec_ctx *ctx, const struct pool *p, const void *host, size_t bytes)
{
    int rc = CUSPEC_OK;
    for (unsigned i = 0; rc == CUSPEC_OK && i < p->count; i++)
        rc = cuspec__cu_check(ctx->drv->cuMemcpyHtoD(p->base + i * p->slice, host, bytes),
                              "cuMemcpyHtoD (benchmark input)");
    return rc;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Warm-up, then `reps` calls each between two events, then a back-to-back
 * batch; times in microseconds. */
static int time_calls(cuspec_ctx *ctx, call_fn call, void *arg, int reps, cuspec_bench_result *r)
{
    const struct cuspec__driver *drv = ctx->drv;
    CUevent ev[2 * MAX_REPS + 2];
    double t[MAX_REPS];
    int made = 0, rc = CUSPEC_OK;
    if (reps < 3)
        reps = 3;
    if (reps > MAX_REPS)
        reps = MAX_REPS;
    for (; made < 2 * reps + 2 && rc == CUSPEC_OK; made++)
        rc = cuspec__cu_check(drv->cuEventCreate(&ev[made], CU_EVENT_DEFAULT), "cuEventCreate");
    for (unsigned i = 0; rc == CUSPEC_OK && i < 3; i++)
        rc = call(arg, i);
    for (int i = 0; rc == CUSPEC_OK && i < reps; i++) {
        drv->cuEventRecord(ev[2 * i], NULL);
        rc = call(arg, (unsigned)i);
        drv->cuEventRecord(ev[2 * i + 1], NULL);
    }
    if (rc == CUSPEC_OK)
        rc = cuspec__cu_check(drv->cuCtxSynchronize(), "kernel execution");
    for (int i = 0; rc == CUSPEC_OK && i < reps; i++) {
        float ms = 0;
        rc = cuspec__cu_check(drv->cuEventElapsedTime(&ms, ev[2 * i], ev[2 * i + 1]),
                              "cuEventElapsedTime");
        t[i] = ms * 1e3;
    }
    if (rc == CUSPEC_OK) {
        qsort(t, (size_t)reps, sizeof *t, cmp_double);
        r->median_us = t[reps / 2];
        r->p10_us = t[reps / 10];
        r->p90_us = t[reps - 1 - reps / 10];
        /* Back-to-back: enough calls for ~20 ms, between 10 and 200. */
        int batch = r->median_us > 0 ? (int)(20000 / r->median_us) : 200;
        batch = batch < 10 ? 10 : batch > 200 ? 200 : batch;
        drv->cuEventRecord(ev[2 * reps], NULL);
        for (int i = 0; rc == CUSPEC_OK && i < batch; i++)
            rc = call(arg, (unsigned)i);
        drv->cuEventRecord(ev[2 * reps + 1], NULL);
        float ms = 0;
        if (rc == CUSPEC_OK)
            rc = cuspec__cu_check(drv->cuEventSynchronize(ev[2 * reps + 1]), "kernel execution");
        if (rc == CUSPEC_OK)
            rc = cuspec__cu_check(drv->cuEventElapsedTime(&ms, ev[2 * reps], ev[2 * reps + 1]),
                                  "cuEventElapsedTime");
        r->batch_us = ms * 1e3 / batch;
        r->gbs = r->bytes / (r->median_us * 1e-6) / 1e9;
    }
    for (int i = 0; i < made; i++)
        drv->cuEventDestroy(ev[i]);
    return rc;
}

/* Records which kernel served the checked call, and from which tier. */
static void note_kernel(cuspec_bench_result *r)
{
    cuspec_launch_info info;
    if (cuspec_last_launch(&info) == CUSPEC_OK) {
        cuspec__strlcpy(r->kernel, info.kernel, sizeof r->kernel);
        r->tier = info.tier;
    }
}

/* ## Copy */

struct copy_arg {
    cuspec_ctx *ctx;
    CUdeviceptr src, dst;
    size_t bytes;
    int driver; /* cuMemcpyDtoDAsync instead of cuspec_copy */
};

static int copy_call(void *arg, unsigned i)
{
    struct copy_arg *a = arg;
    (void)i;
    if (a->driver)
        return cuspec__cu_check(a->ctx->drv->cuMemcpyDtoDAsync(a->dst, a->src, a->bytes, NULL),
                                "cuMemcpyDtoDAsync");
    return cuspec_copy(a->ctx, a->dst, a->src, a->bytes, NULL);
}

int cuspec_bench_copy(cuspec_ctx *ctx, size_t bytes, int reps, double *memcpy_gbs,
                      double *kernel_gbs)
{
    CUSPEC__RETURN_IF(ctx == NULL || bytes == 0, CUSPEC_ERR_INVALID,
                      "cuspec_bench_copy: %s", ctx ? "bytes is 0" : "ctx is NULL");
    const struct cuspec__driver *drv = ctx->drv;
    struct copy_arg a = {ctx, 0, 0, bytes, 0};
    cuspec_bench_result r = {.bytes = 2.0 * (double)bytes};
    unsigned char *host = malloc(bytes), *back = malloc(bytes);
    int pushed, rc = cuspec__ctx_enter(ctx, &pushed);
    if (rc != CUSPEC_OK)
        goto out_free;
    if (host == NULL || back == NULL) {
        rc = cuspec__fail(CUSPEC_ERR_NOMEM, "no host memory for a %zu-byte copy benchmark", bytes);
        goto out;
    }
    seed();
    fill_bytes(host, bytes);
    rc = cuspec__cu_check(drv->cuMemAlloc(&a.src, bytes), "cuMemAlloc (copy source)");
    if (rc == CUSPEC_OK)
        rc = cuspec__cu_check(drv->cuMemAlloc(&a.dst, bytes), "cuMemAlloc (copy destination)");
    if (rc == CUSPEC_OK)
        rc = cuspec__cu_check(drv->cuMemcpyHtoD(a.src, host, bytes), "cuMemcpyHtoD");
    if (rc == CUSPEC_OK)
        rc = copy_call(&a, 0);
    if (rc == CUSPEC_OK)
        rc = cuspec__cu_check(drv->cuMemcpyDtoH(back, a.dst, bytes), "cuMemcpyDtoH");
    if (rc == CUSPEC_OK && memcmp(host, back, bytes) != 0)
        rc = cuspec__fail(CUSPEC_ERR_CUDA, "cuspec_copy produced wrong bytes: the copy kernel is "
                                           "broken on this device");
    if (rc == CUSPEC_OK && kernel_gbs != NULL) {
        rc = time_calls(ctx, copy_call, &a, reps, &r);
        *kernel_gbs = r.gbs;
    }
    if (rc == CUSPEC_OK && memcpy_gbs != NULL) {
        a.driver = 1;
        rc = time_calls(ctx, copy_call, &a, reps, &r);
        *memcpy_gbs = r.gbs;
    }
out:
    if (a.src)
        drv->cuMemFree(a.src);
    if (a.dst)
        drv->cuMemFree(a.dst);
    cuspec__ctx_leave(ctx, pushed);
out_free:
    free(host);
    free(back);
    return rc;
}

/* ## Reductions */

struct reduce_arg {
    cuspec_ctx *ctx;
    int op, dtype;
    size_t n;
    struct pool a, b;
    CUdeviceptr out;
};

static int reduce_call(void *arg, unsigned i)
{
    struct reduce_arg *r = arg;
    unsigned s = i % r->a.count;
    CUdeviceptr a = r->a.base + s * r->a.slice;
    if (r->op < 0)
        return cuspec_dot(r->ctx, r->dtype, a, r->b.base + s * r->b.slice, r->n, r->out, NULL);
    return cuspec_reduce(r->ctx, r->op, r->dtype, a, r->n, r->out, NULL);
}

/* Element i of x as a double (floats) or a wrapped 64-bit integer. */
static double get_f(const void *x, int dtype, size_t i)
{
    return dtype == CUSPEC_F32 ? ((const float *)x)[i] : ((const double *)x)[i];
}

static uint64_t get_i(const void *x, int dtype, size_t i)
{
    switch (dtype) {
    case CUSPEC_I32: return (uint64_t)(int64_t)((const int32_t *)x)[i];
    case CUSPEC_U32: return ((const uint32_t *)x)[i];
    default: return ((const uint64_t *)x)[i];
    }
}

static int less(const void *x, int dtype, size_t i, size_t j)
{
    switch (dtype) {
    case CUSPEC_F32:
    case CUSPEC_F64: return get_f(x, dtype, i) < get_f(x, dtype, j);
    case CUSPEC_U32: return get_i(x, dtype, i) < get_i(x, dtype, j);
    default: return (int64_t)get_i(x, dtype, i) < (int64_t)get_i(x, dtype, j);
    }
}

/* Compares the device result `got` (the out dtype's bytes) with a CPU
 * reference over a (and b for dot). */
static void reduce_check(const struct reduce_arg *r, const void *a, const void *b,
                         const void *got, cuspec_bench_result *res)
{
    int isfloat = r->dtype == CUSPEC_F32 || r->dtype == CUSPEC_F64;
    size_t n = r->n;
    if (r->op == CUSPEC_MIN || r->op == CUSPEC_MAX) {
        size_t best = 0;
        for (size_t i = 1; i < n; i++)
            if (r->op == CUSPEC_MIN ? less(a, r->dtype, i, best) : less(a, r->dtype, best, i))
                best = i;
        res->correct = n > 0 && memcmp(got, (const char *)a + best * cuspec_dtype_size(r->dtype),
                                       cuspec_dtype_size(r->dtype)) == 0;
        return;
    }
    if (isfloat) {
        double sum = 0, mag = 0;
        for (size_t i = 0; i < n; i++) {
            double x = get_f(a, r->dtype, i) * (r->op < 0 ? get_f(b, r->dtype, i) : 1.0);
            sum += x;
            mag += fabs(x);
        }
        double g = r->dtype == CUSPEC_F32 ? *(const float *)got : *(const double *)got;
        double eps = r->dtype == CUSPEC_F32 ? 0x1p-24 : 0x1p-53;
        res->error = mag > 0 ? fabs(g - sum) / mag : fabs(g - sum);
        res->correct = res->error <= 200 * eps;
        return;
    }
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += get_i(a, r->dtype, i) * (r->op < 0 ? get_i(b, r->dtype, i) : 1);
    res->correct = memcmp(got, &sum, 8) == 0;
}

int cuspec_bench_reduce(cuspec_ctx *ctx, int op, int dtype, size_t n, int reps,
                        cuspec_bench_result *res)
{
    CUSPEC__RETURN_IF(ctx == NULL || res == NULL || n == 0, CUSPEC_ERR_INVALID,
                      "cuspec_bench_reduce: %s", n == 0 ? "n is 0" : "NULL argument");
    int out_dtype = cuspec_reduce_out_dtype(op, dtype);
    CUSPEC__RETURN_IF(out_dtype == 0, CUSPEC_ERR_INVALID,
                      "cuspec_bench_reduce: op %d on dtype %d is not supported", op, dtype);
    const struct cuspec__driver *drv = ctx->drv;
    size_t size = cuspec_dtype_size(dtype), bytes = n * size;
    struct reduce_arg r = {ctx, op, dtype, n, {0}, {0}, 0};
    memset(res, 0, sizeof *res);
    res->bytes = (double)bytes * (op < 0 ? 2 : 1);
    void *ha = malloc(bytes), *hb = op < 0 ? malloc(bytes) : NULL;
    unsigned char got[8] = {0};
    int pushed, rc = cuspec__ctx_enter(ctx, &pushed);
    if (rc != CUSPEC_OK)
        goto out_free;
    if (ha == NULL || (op < 0 && hb == NULL)) {
        rc = cuspec__fail(CUSPEC_ERR_NOMEM, "no host memory for %zu elements", n);
        goto out;
    }
    seed();
    fill(ha, n, dtype);
    if (hb)
        fill(hb, n, dtype);
    rc = pool_alloc(ctx, bytes, &r.a);
    if (rc == CUSPEC_OK)
        rc = pool_upload(ctx, &r.a, ha, bytes);
    if (rc == CUSPEC_OK && op < 0) {
        rc = pool_alloc(ctx, bytes, &r.b);
        if (rc == CUSPEC_OK)
            rc = pool_upload(ctx, &r.b, hb, bytes);
    }
    if (rc == CUSPEC_OK)
        rc = cuspec__cu_check(drv->cuMemAlloc(&r.out, 8), "cuMemAlloc (result)");
    if (rc == CUSPEC_OK)
        rc = cuspec__cu_check(drv->cuMemsetD8(r.out, 0xA5, 8), "cuMemsetD8 (poison)");
    if (rc == CUSPEC_OK)
        rc = reduce_call(&r, 0);
    if (rc == CUSPEC_OK) {
        note_kernel(res);
        rc = cuspec__cu_check(drv->cuMemcpyDtoH(got, r.out, cuspec_dtype_size(out_dtype)),
                              "cuMemcpyDtoH (result)");
    }
    if (rc == CUSPEC_OK) {
        reduce_check(&r, ha, hb, got, res);
        rc = time_calls(ctx, reduce_call, &r, reps, res);
    }
out:
    if (r.a.base)
        drv->cuMemFree(r.a.base);
    if (r.b.base)
        drv->cuMemFree(r.b.base);
    if (r.out)
        drv->cuMemFree(r.out);
    cuspec__ctx_leave(ctx, pushed);
out_free:
    free(ha);
    free(hb);
    return rc;
}

/* ## Transposes */

struct transpose_arg {
    cuspec_ctx *ctx;
    int dtype;
    size_t rows, cols;
    struct pool in, out;
};

static int transpose_call(void *arg, unsigned i)
{
    struct transpose_arg *t = arg;
    unsigned s = i % t->in.count;
    return cuspec_transpose(t->ctx, t->dtype, t->in.base + s * t->in.slice, t->rows, t->cols,
                            t->cols, t->out.base + s * t->out.slice, t->rows, NULL);
}

int cuspec_bench_transpose(cuspec_ctx *ctx, int dtype, size_t rows, size_t cols, int reps,
                           cuspec_bench_result *res)
{
    size_t size = cuspec_dtype_size(dtype);
    CUSPEC__RETURN_IF(ctx == NULL || res == NULL || rows == 0 || cols == 0 || size == 0,
                      CUSPEC_ERR_INVALID, "cuspec_bench_transpose: %s",
                      size == 0 ? "unknown dtype" : "NULL argument or zero dimension");
    const struct cuspec__driver *drv = ctx->drv;
    size_t bytes = rows * cols * size;
    struct transpose_arg t = {ctx, dtype, rows, cols, {0}, {0}};
    memset(res, 0, sizeof *res);
    res->bytes = 2.0 * (double)bytes;
    unsigned char *in = malloc(bytes), *back = malloc(bytes);
    int pushed, rc = cuspec__ctx_enter(ctx, &pushed);
    if (rc != CUSPEC_OK)
        goto out_free;
    if (in == NULL || back == NULL) {
        rc = cuspec__fail(CUSPEC_ERR_NOMEM, "no host memory for a %zux%zu matrix", rows, cols);
        goto out;
    }
    seed();
    fill_bytes(in, bytes); /* a transpose moves bytes: any bits will do */
    rc = pool_alloc(ctx, bytes, &t.in);
    if (rc == CUSPEC_OK)
        rc = pool_upload(ctx, &t.in, in, bytes);
    if (rc == CUSPEC_OK)
        rc = pool_alloc(ctx, bytes, &t.out);
    if (rc == CUSPEC_OK)
        rc = cuspec__cu_check(drv->cuMemsetD8(t.out.base, 0xA5, bytes), "cuMemsetD8 (poison)");
    if (rc == CUSPEC_OK)
        rc = transpose_call(&t, 0);
    if (rc == CUSPEC_OK) {
        note_kernel(res);
        rc = cuspec__cu_check(drv->cuMemcpyDtoH(back, t.out.base, bytes), "cuMemcpyDtoH");
    }
    if (rc == CUSPEC_OK) {
        res->correct = 1;
        for (size_t i = 0; i < rows && res->correct; i++)
            for (size_t j = 0; j < cols; j++)
                if (memcmp(back + (j * rows + i) * size, in + (i * cols + j) * size, size) != 0) {
                    res->correct = 0;
                    break;
                }
        rc = time_calls(ctx, transpose_call, &t, reps, res);
    }
out:
    if (t.in.base)
        drv->cuMemFree(t.in.base);
    if (t.out.base)
        drv->cuMemFree(t.out.base);
    cuspec__ctx_leave(ctx, pushed);
out_free:
    free(in);
    free(back);
    return rc;
}

/* ## Dispatch latency */

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

struct latency_arg {
    cuspec_ctx *ctx;
    CUdeviceptr in, out;
    struct cuspec__kernel k;
    void **args;
};

static int raw_call(void *arg, unsigned i)
{
    struct latency_arg *l = arg;
    (void)i;
    return cuspec__cu_check(
        l->ctx->drv->cuLaunchKernel(l->k.function, 1, 1, 1, 256, 1, 1, 0, NULL, l->args, NULL),
        "cuLaunchKernel");
}

static int reduce_small(void *arg, unsigned i)
{
    struct latency_arg *l = arg;
    (void)i;
    return cuspec_reduce(l->ctx, CUSPEC_SUM, CUSPEC_F32, l->in, 256, l->out, NULL);
}

static int copy_small(void *arg, unsigned i)
{
    struct latency_arg *l = arg;
    (void)i;
    return cuspec_copy(l->ctx, l->out, l->in, 16, NULL);
}

/* Host microseconds per enqueue: batches short enough that the launch queue
 * never fills (which would time the GPU instead), synchronized between
 * batches, median over batches. */
static int enqueue_us(cuspec_ctx *ctx, call_fn call, void *arg, double *us)
{
    enum { BATCH = 200, BATCHES = 25 };
    double t[BATCHES];
    int rc = CUSPEC_OK;
    for (int b = 0; rc == CUSPEC_OK && b < BATCHES; b++) {
        double t0 = now_us();
        for (unsigned i = 0; rc == CUSPEC_OK && i < BATCH; i++)
            rc = call(arg, i);
        t[b] = (now_us() - t0) / BATCH;
        if (rc == CUSPEC_OK)
            rc = cuspec__cu_check(ctx->drv->cuCtxSynchronize(), "kernel execution");
    }
    qsort(t, BATCHES, sizeof *t, cmp_double);
    *us = t[BATCHES / 2];
    return rc;
}

int cuspec_bench_latency(cuspec_ctx *ctx, cuspec_latency *lat)
{
    CUSPEC__RETURN_IF(ctx == NULL || lat == NULL, CUSPEC_ERR_INVALID,
                      "cuspec_bench_latency: NULL argument");
    memset(lat, 0, sizeof *lat);
    const struct cuspec__driver *drv = ctx->drv;
    struct latency_arg l = {ctx, 0, 0, {0}, NULL};
    float host[256];
    int pushed, rc = cuspec__ctx_enter(ctx, &pushed);
    if (rc != CUSPEC_OK)
        return rc;
    seed();
    fill(host, 256, CUSPEC_F32);
    rc = cuspec__cu_check(drv->cuMemAlloc(&l.in, sizeof host), "cuMemAlloc");
    if (rc == CUSPEC_OK)
        rc = cuspec__cu_check(drv->cuMemAlloc(&l.out, sizeof host), "cuMemAlloc");
    if (rc == CUSPEC_OK)
        rc = cuspec__cu_check(drv->cuMemcpyHtoD(l.in, host, sizeof host), "cuMemcpyHtoD");

    if (rc == CUSPEC_OK) {
        double t0 = now_us();
        rc = reduce_small(&l, 0);
        if (rc == CUSPEC_OK)
            rc = cuspec__cu_check(drv->cuCtxSynchronize(), "kernel execution");
        lat->first_call_ms = (now_us() - t0) / 1e3;
        cuspec_launch_info info;
        if (rc == CUSPEC_OK && cuspec_last_launch(&info) == CUSPEC_OK) {
            lat->first_tier = info.tier;
            cuspec__strlcpy(lat->kernel, info.kernel, sizeof lat->kernel);
        }
    }
    /* The raw launch runs the copy kernel cuspec_copy itself would use. */
    struct cuspec__variant v = {0};
    v.family = CUSPEC__FAM_COPY;
    cuspec__family_copy.defaults(ctx->arch, &v);
    unsigned long long n = 16;
    void *args[] = {&l.in, &l.out, &n};
    l.args = args;
    if (rc == CUSPEC_OK)
        rc = copy_small(&l, 0); /* loads the copy kernel */
    if (rc == CUSPEC_OK)
        rc = cuspec__function(ctx, &v, &l.k);
    if (rc == CUSPEC_OK)
        rc = enqueue_us(ctx, raw_call, &l, &lat->raw_launch_us);
    if (rc == CUSPEC_OK)
        rc = enqueue_us(ctx, copy_small, &l, &lat->copy_call_us);
    if (rc == CUSPEC_OK)
        rc = enqueue_us(ctx, reduce_small, &l, &lat->reduce_call_us);
    if (l.in)
        drv->cuMemFree(l.in);
    if (l.out)
        drv->cuMemFree(l.out);
    cuspec__ctx_leave(ctx, pushed);
    return rc;
}
