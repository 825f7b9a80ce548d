/* The public benchmarks: the copy ceiling, reductions and transposes on
 * workloads (fresh random inputs, one check, CUDA-event timing), and the
 * dispatch latency of a call. */
#include "workload.h"
#include "params.h"
#include "copy.h"
#include "context.h"
#include "error.h"
#include "driver.h"
#include "text.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int cuspec__event_median(cuspec_ctx *ctx, int (*fn)(void *), void *arg, int reps, double *us)
{
    const struct cuspec__driver *drv = ctx->drv;
    CUevent start, stop;
    double t[200];
    reps = reps < 3 ? 3 : reps > 200 ? 200 : reps;
    int rc = cuspec__cu_check(drv->cuEventCreate(&start, CU_EVENT_DEFAULT), "cuEventCreate");
    if (rc != CUSPEC_OK)
        return rc;
    rc = cuspec__cu_check(drv->cuEventCreate(&stop, CU_EVENT_DEFAULT), "cuEventCreate");
    if (rc != CUSPEC_OK) {
        drv->cuEventDestroy(start);
        return rc;
    }
    for (int i = 0; rc == CUSPEC_OK && i < 2; i++)
        rc = fn(arg);
    for (int i = 0; rc == CUSPEC_OK && i < reps; i++) {
        float ms = 0;
        drv->cuEventRecord(start, NULL);
        rc = fn(arg);
        drv->cuEventRecord(stop, NULL);
        if (rc == CUSPEC_OK)
            rc = cuspec__cu_check(drv->cuEventSynchronize(stop), "kernel execution");
        if (rc == CUSPEC_OK)
            rc = cuspec__cu_check(drv->cuEventElapsedTime(&ms, start, stop), "cuEventElapsedTime");
        t[i] = ms * 1e3;
    }
    drv->cuEventDestroy(start);
    drv->cuEventDestroy(stop);
    if (rc == CUSPEC_OK) {
        qsort(t, (size_t)reps, sizeof *t, cmp_double);
        *us = t[reps / 2];
    }
    return rc;
}

/* Records which kernel served the checked call, and from which tier. */
static void note_kernel(cuspec_bench_result *r)
{
    cuspec_launch_info info;
    if (cuspec_last_launch(&info) == CUSPEC_OK) {
        cuspec__strlcpy(r->kernel, info.kernel, sizeof r->kernel);
        r->tier = info.tier;
        r->fallback = info.fallback;
        cuspec__strlcpy(r->wanted, info.wanted, sizeof r->wanted);
    }
}

/* ## Copy */

struct copy_arg {
    cuspec_ctx *ctx;
    CUdeviceptr src, dst;
    size_t bytes;
    int driver; /* cuMemcpyDtoDAsync instead of cuspec_copy */
};

static int copy_call(void *arg)
{
    struct copy_arg *a = arg;
    if (a->driver)
        return cuspec__cu_check(a->ctx->drv->cuMemcpyDtoDAsync(a->dst, a->src, a->bytes, NULL),
                                "cuMemcpyDtoDAsync");
    return cuspec_copy(a->ctx, a->dst, a->src, a->bytes, NULL);
}

int cuspec_bench_copy(cuspec_ctx *ctx, size_t bytes, int reps, double *memcpy_gbs,
                      double *kernel_gbs)
{
    CUSPEC__RETURN_IF(ctx == NULL || bytes == 0, CUSPEC_ERR_INVALID, "cuspec_bench_copy: %s",
                      ctx ? "bytes is 0" : "ctx is NULL");
    const struct cuspec__driver *drv = ctx->drv;
    struct copy_arg a = {ctx, 0, 0, bytes, 0};
    double us;
    unsigned char *host = malloc(bytes), *back = malloc(bytes);
    int pushed, rc = cuspec__ctx_enter(ctx, &pushed);
    if (rc != CUSPEC_OK)
        goto out_free;
    if (host == NULL || back == NULL) {
        rc = cuspec__fail(CUSPEC_ERR_NOMEM, "no host memory for a %zu-byte copy benchmark", bytes);
        goto out;
    }
    cuspec__random_bytes(host, bytes);
    rc = cuspec__cu_check(drv->cuMemAlloc(&a.src, bytes), "cuMemAlloc (copy source)");
    if (rc == CUSPEC_OK)
        rc = cuspec__cu_check(drv->cuMemAlloc(&a.dst, bytes), "cuMemAlloc (copy destination)");
    if (rc == CUSPEC_OK)
        rc = cuspec__cu_check(drv->cuMemcpyHtoD(a.src, host, bytes), "cuMemcpyHtoD");
    if (rc == CUSPEC_OK)
        rc = copy_call(&a);
    if (rc == CUSPEC_OK)
        rc = cuspec__cu_check(drv->cuMemcpyDtoH(back, a.dst, bytes), "cuMemcpyDtoH");
    if (rc == CUSPEC_OK && memcmp(host, back, bytes) != 0)
        rc = cuspec__fail(CUSPEC_ERR_CUDA, "cuspec_copy produced wrong bytes: the copy kernel is "
                                           "broken on this device");
    if (rc == CUSPEC_OK && kernel_gbs != NULL) {
        rc = cuspec__event_median(ctx, copy_call, &a, reps, &us);
        *kernel_gbs = 2.0 * (double)bytes / us / 1e3;
    }
    if (rc == CUSPEC_OK && memcpy_gbs != NULL) {
        a.driver = 1;
        rc = cuspec__event_median(ctx, copy_call, &a, reps, &us);
        *memcpy_gbs = 2.0 * (double)bytes / us / 1e3;
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

/* ## Reductions and transposes: through the public call */

/* Benchmarks the public call of `pub`, checked by the caller (`what` names
 * it in errors). */
static int bench(cuspec_ctx *ctx, const cuspec_tune_spec *pub, int reps, cuspec_bench_result *res,
                 const char *what)
{
    struct cuspec__spec spec;
    struct cuspec__workload *w;
    memset(res, 0, sizeof *res);
    int rc = cuspec__spec_from_public(pub, &spec);
    if (rc != CUSPEC_OK)
        return cuspec__fail_context(rc, "%s", what);
    rc = cuspec__workload_create(ctx, &spec, &w);
    if (rc != CUSPEC_OK)
        return rc;
    rc = cuspec__workload_check(w, NULL, &res->correct, &res->error);
    if (rc == CUSPEC_OK) {
        note_kernel(res);
        rc = cuspec__workload_time(w, NULL, reps, 1, res);
    }
    if (rc == CUSPEC_OK)
        rc = cuspec__workload_copy_time(w, reps, &res->copy_us);
    cuspec__workload_destroy(w);
    return rc;
}

int cuspec_bench_reduce(cuspec_ctx *ctx, int op, int dtype, size_t n, int reps,
                        cuspec_bench_result *res)
{
    CUSPEC__RETURN_IF(ctx == NULL || res == NULL || n == 0, CUSPEC_ERR_INVALID,
                      "cuspec_bench_reduce: %s", n == 0 ? "n is 0" : "NULL argument");
    CUSPEC__RETURN_IF(cuspec_reduce_out_dtype(op, dtype) == 0, CUSPEC_ERR_INVALID,
                      "cuspec_bench_reduce: op %d on dtype %d is not supported", op, dtype);
    cuspec_tune_spec pub = {.family = "reduce", .op = op, .dtype = dtype, .n = n};
    return bench(ctx, &pub, reps, res, "cuspec_bench_reduce");
}

int cuspec_bench_reduce_axis(cuspec_ctx *ctx, int axis, int op, int dtype, size_t rows, size_t cols,
                             size_t ld, int reps, cuspec_bench_result *res)
{
    CUSPEC__RETURN_IF(ctx == NULL || res == NULL || (axis != 0 && axis != 1), CUSPEC_ERR_INVALID,
                      "cuspec_bench_reduce_axis: %s",
                      ctx && res ? "axis is neither 0 (rows) nor 1 (columns)" : "NULL argument");
    cuspec_tune_spec pub = {.family = axis == 0 ? "reduce_rows" : "reduce_cols",
                            .op = op,
                            .dtype = dtype,
                            .rows = rows,
                            .cols = cols,
                            .ld_in = ld};
    return bench(ctx, &pub, reps, res, "cuspec_bench_reduce_axis");
}

int cuspec_bench_transpose(cuspec_ctx *ctx, int dtype, size_t rows, size_t cols, int reps,
                           cuspec_bench_result *res)
{
    return cuspec_bench_transpose_ld(ctx, dtype, rows, cols, 0, 0, reps, res);
}

int cuspec_bench_transpose_ld(cuspec_ctx *ctx, int dtype, size_t rows, size_t cols, size_t ld_in,
                              size_t ld_out, int reps, cuspec_bench_result *res)
{
    CUSPEC__RETURN_IF(
        ctx == NULL || res == NULL || rows == 0 || cols == 0 || cuspec_dtype_size(dtype) == 0,
        CUSPEC_ERR_INVALID, "cuspec_bench_transpose: %s",
        cuspec_dtype_size(dtype) == 0 ? "unknown dtype" : "NULL argument or zero dimension");
    cuspec_tune_spec pub = {.family = "transpose",
                            .dtype = dtype,
                            .rows = rows,
                            .cols = cols,
                            .ld_in = ld_in,
                            .ld_out = ld_out};
    return bench(ctx, &pub, reps, res, "cuspec_bench_transpose");
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

static int raw_call(void *arg)
{
    struct latency_arg *l = arg;
    return cuspec__cu_check(
        l->ctx->drv->cuLaunchKernel(l->k.function, 1, 1, 1, 256, 1, 1, 0, NULL, l->args, NULL),
        "cuLaunchKernel");
}

static int reduce_small(void *arg)
{
    struct latency_arg *l = arg;
    return cuspec_reduce(l->ctx, CUSPEC_SUM, CUSPEC_F32, l->in, 256, l->out, NULL);
}

static int copy_small(void *arg)
{
    struct latency_arg *l = arg;
    return cuspec_copy(l->ctx, l->out, l->in, 16, NULL);
}

/* Host microseconds per enqueue: batches short enough that the launch queue
 * never fills (which would time the GPU instead), synchronized between
 * batches, median over batches. */
static int enqueue_us(cuspec_ctx *ctx, int (*call)(void *), void *arg, double *us)
{
    enum { BATCH = 200, BATCHES = 25 };
    double t[BATCHES];
    int rc = CUSPEC_OK;
    for (int b = 0; rc == CUSPEC_OK && b < BATCHES; b++) {
        double t0 = now_us();
        for (unsigned i = 0; rc == CUSPEC_OK && i < BATCH; i++)
            rc = call(arg);
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
    cuspec__random_fill(host, 256, CUSPEC_F32);
    rc = cuspec__cu_check(drv->cuMemAlloc(&l.in, sizeof host), "cuMemAlloc");
    if (rc == CUSPEC_OK)
        rc = cuspec__cu_check(drv->cuMemAlloc(&l.out, sizeof host), "cuMemAlloc");
    if (rc == CUSPEC_OK)
        rc = cuspec__cu_check(drv->cuMemcpyHtoD(l.in, host, sizeof host), "cuMemcpyHtoD");

    if (rc == CUSPEC_OK) {
        double t0 = now_us();
        rc = reduce_small(&l);
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
    struct cuspec__variant v;
    cuspec__copy_default(ctx->arch, &v);
    unsigned long long n = 16;
    void *args[] = {&l.in, &l.out, &n};
    l.args = args;
    if (rc == CUSPEC_OK)
        rc = copy_small(&l); /* loads the copy kernel */
    if (rc == CUSPEC_OK)
        rc = cuspec__function(ctx, NULL, &v, &l.k); /* raw_call launches on NULL */
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
