/* What the lessons' experiments share: their kernels loaded and launched,
 * CUDA-event timing, device buffers, and the rows of their tables. */
#include "lessons.h"
#include "workload.h"
#include "text.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

int cuspec__lesson_kernel(struct cuspec__lesson_run *r, int id, struct cuspec__kernel *k)
{
    struct cuspec__variant v;
    cuspec__variant_default(CUSPEC__FAM_LESSONS, 0, id, r->ctx->arch, &v);
    return cuspec__function(r->ctx, NULL, &v, k); /* launched on the NULL stream */
}

int cuspec__lesson_launch(struct cuspec__lesson_run *r, int id, const struct cuspec__kernel *k,
                          unsigned gx, unsigned gy, unsigned bx, unsigned by, unsigned smem,
                          void **args)
{
    CUresult cu = r->drv->cuLaunchKernel(k->function, gx, gy, 1, bx, by, 1, smem, NULL, args, NULL);
    if (cu == CUDA_SUCCESS)
        return CUSPEC_OK;
    return cuspec__fail_context(cuspec__cu_check(cu, "cuLaunchKernel"),
                                "%s with grid %ux%u, block %ux%u", cuspec__lesson_kernel_name(id),
                                gx, gy, bx, by);
}

int cuspec__lesson_time(struct cuspec__lesson_run *r, int (*fn)(void *), void *arg, double *ms)
{
    double us = 0;
    int rc = cuspec__event_median(r->ctx, fn, arg, r->reps, &us);
    *ms = us / 1e3;
    return rc;
}

double cuspec__lesson_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int cuspec__lesson_alloc(struct cuspec__lesson_run *r, CUdeviceptr *p, size_t bytes,
                         const char *what)
{
    size_t free_bytes = 0, total = 0;
    *p = 0;
    int rc = cuspec__cu_check(r->drv->cuMemGetInfo(&free_bytes, &total), "cuMemGetInfo");
    if (rc != CUSPEC_OK)
        return rc;
    /* Leave some room: the benchmarks of cuspec's rows allocate too. */
    CUSPEC__RETURN_IF(bytes > free_bytes / 10 * 9, CUSPEC_ERR_UNSUPPORTED,
                      "%s needs %.2f GiB of device memory and %.2f GiB is free: choose a smaller "
                      "--size",
                      what, (double)bytes / (1 << 30), (double)free_bytes / (1 << 30));
    rc = cuspec__cu_check(r->drv->cuMemAlloc(p, bytes), "cuMemAlloc");
    return rc == CUSPEC_OK ? rc : cuspec__fail_context(rc, "%s (%zu bytes)", what, bytes);
}

void cuspec__lesson_free(struct cuspec__lesson_run *r, CUdeviceptr *p)
{
    if (*p != 0)
        r->drv->cuMemFree(*p);
    *p = 0;
}

int cuspec__lesson_upload(struct cuspec__lesson_run *r, CUdeviceptr dst, const void *src,
                          size_t bytes, const char *what)
{
    int rc = cuspec__cu_check(r->drv->cuMemcpyHtoD(dst, src, bytes), "cuMemcpyHtoD");
    return rc == CUSPEC_OK ? rc : cuspec__fail_context(rc, "%s", what);
}

int cuspec__lesson_download(struct cuspec__lesson_run *r, void *dst, CUdeviceptr src, size_t bytes,
                            const char *what)
{
    int rc = cuspec__cu_check(r->drv->cuMemcpyDtoH(dst, src, bytes), "cuMemcpyDtoH");
    return rc == CUSPEC_OK ? rc : cuspec__fail_context(rc, "%s", what);
}

cuspec_lesson_row *cuspec__lesson_row(struct cuspec__lesson_run *r, int kind, const char *series,
                                      const char *label, const char *note)
{
    cuspec_lesson_table *t = r->table;
    cuspec_lesson_row *row = &t->rows[t->n_rows++];
    memset(row, 0, sizeof *row);
    row->kind = kind;
    cuspec__strlcpy(row->series, series ? series : "", sizeof row->series);
    cuspec__strlcpy(row->label, label ? label : "", sizeof row->label);
    cuspec__strlcpy(row->note, note ? note : "", sizeof row->note);
    r->done++;
    if (r->progress != NULL)
        r->progress(r->done, r->total > r->done ? r->total : r->done, row->label, r->user);
    return row;
}

void cuspec__lesson_set_time(cuspec_lesson_row *row, double ms, double bytes)
{
    row->ms = ms;
    row->gbs = ms > 0 ? bytes / ms / 1e6 : 0;
}

int cuspec__lesson_copy_rows(struct cuspec__lesson_run *r, const char *series, size_t bytes,
                             int kernel)
{
    double memcpy_gbs = 0, kernel_gbs = 0, moved = 2.0 * (double)bytes;
    int rc = cuspec_bench_copy(r->ctx, bytes, r->reps, &memcpy_gbs, kernel ? &kernel_gbs : NULL);
    if (rc != CUSPEC_OK)
        return rc;
    if (kernel) {
        cuspec_lesson_row *row = cuspec__lesson_row(r, CUSPEC_LESSON_CUSPEC, series, "cuspec copy",
                                                    "cuspec_copy of the same bytes");
        cuspec__lesson_set_time(row, kernel_gbs > 0 ? moved / kernel_gbs / 1e6 : 0, moved);
        row->verified = 1; /* cuspec_bench_copy compared its output */
        cuspec_launch_info info;
        if (cuspec_last_launch(&info) == CUSPEC_OK)
            cuspec__strlcpy(row->kernel, info.kernel, sizeof row->kernel);
    }
    cuspec_lesson_row *row =
        cuspec__lesson_row(r, CUSPEC_LESSON_COPY, series, "memcpy",
                           "cuMemcpyDtoDAsync of the same bytes: the ceiling (read + written)");
    cuspec__lesson_set_time(row, memcpy_gbs > 0 ? moved / memcpy_gbs / 1e6 : 0, moved);
    return CUSPEC_OK;
}

int cuspec__lesson_cuspec_row(struct cuspec__lesson_run *r, const char *series, const char *label,
                              const char *note, const cuspec_bench_result *b)
{
    cuspec_lesson_row *row = cuspec__lesson_row(r, CUSPEC_LESSON_CUSPEC, series, label, note);
    CUSPEC__RETURN_IF(!b->correct, CUSPEC_ERR_CUDA, "%s gave a wrong result (error %.3g)",
                      b->kernel, b->error);
    row->ms = b->median_us / 1e3;
    row->gbs = b->gbs;
    row->verified = 1;
    cuspec__strlcpy(row->kernel, b->kernel, sizeof row->kernel);
    return CUSPEC_OK;
}

int cuspec__lesson_wrong(int id, const char *fmt, ...)
{
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return cuspec__fail(CUSPEC_ERR_CUDA, "%s gave a wrong result: %s",
                        cuspec__lesson_kernel_name(id), what);
}
