/* The lessons: their registry, their sizes, and cuspec_lesson_run, which
 * runs one and fills in what its table derives from the rows (speedups,
 * fractions of the memcpy ceiling). */
#include "lessons.h"
#include "text.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

struct lesson {
    cuspec_lesson_info info;
    /* The size for ctx's device when info.default_size is 0. */
    size_t (*default_size)(const cuspec_device_info *d);
    int (*run)(struct cuspec__lesson_run *r, size_t size);
};

/* The smallest power of two of at least `floats` floats, within [lo, hi]. */
static size_t pow2_within(double floats, size_t lo, size_t hi)
{
    size_t n = lo;
    while (n < hi && (double)n < floats)
        n *= 2;
    return n;
}

/* Offsets and strides must miss the L2 to show what memory does. */
static size_t coalescing_default(const cuspec_device_info *d)
{
    return pow2_within(2.0 * d->l2_bytes / 4, (size_t)1 << 22, (size_t)1 << 25);
}

static size_t memory_default(const cuspec_device_info *d)
{
    return pow2_within(4.0 * d->l2_bytes / 4, (size_t)1 << 24, (size_t)1 << 28);
}

static const struct lesson lessons[] = {
    {{"transpose", "the matrix transpose, step by step", "matrix side (f32)", 32, 16384, 32, 4096,
      "4096", {0}},
     NULL,
     cuspec__lesson_transpose},
    {{"reduce", "the parallel sum, stage by stage", "elements (i32)", 1024, (size_t)1 << 30, 1,
      (size_t)1 << 25, "2^25 (32M)", {0}},
     NULL,
     cuspec__lesson_reduce},
    {{"coalescing", "offset and strided access", "elements (f32)", 4096, (size_t)1 << 25, 256, 0,
      "twice the L2 in floats, a power of two (2^22 to 2^25)", {0}},
     coalescing_default,
     cuspec__lesson_coalescing},
    {{"reverse", "reversing an array, staged or not", "elements (i32) of the largest array", 4096,
      (size_t)1 << 28, 256, (size_t)1 << 26, "2^26 (64M)", {0}},
     NULL,
     cuspec__lesson_reverse},
    {{"memory", "the bandwidth of each memory space", "elements (f32) of the global buffer",
      (size_t)1 << 20, (size_t)1 << 28, 1024, 0,
      "4 x the L2 in floats, a power of two (2^24 to 2^28)", {0}},
     memory_default,
     cuspec__lesson_memory},
    {{"dot", "the dot product with shared memory", "elements (f32) of each vector", 1024,
      (size_t)1 << 29, 1, (size_t)1 << 25, "2^25 (32M)", {0}},
     NULL,
     cuspec__lesson_dot},
};
#define N_LESSONS (int)(sizeof lessons / sizeof *lessons)

int cuspec_lesson_get_info(int index, cuspec_lesson_info *info)
{
    CUSPEC__RETURN_IF(info == NULL, CUSPEC_ERR_INVALID, "cuspec_lesson_get_info: info is NULL");
    CUSPEC__RETURN_IF(index < 0 || index >= N_LESSONS, CUSPEC_ERR_NOT_FOUND,
                      "there is no lesson %d (%d lessons)", index, N_LESSONS);
    *info = lessons[index].info;
    return CUSPEC_OK;
}

int cuspec_lesson_find(const char *name)
{
    for (int i = 0; name != NULL && i < N_LESSONS; i++)
        if (strcmp(lessons[i].info.name, name) == 0)
            return i;
    return -1;
}

/* The lesson named `name`, or NULL with the error naming them all. */
static const struct lesson *find(const char *name)
{
    int i = cuspec_lesson_find(name);
    if (i >= 0)
        return &lessons[i];
    char names[256] = "";
    size_t len = 0;
    for (int k = 0; k < N_LESSONS; k++)
        len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", k ? ", " : "",
                                lessons[k].info.name);
    cuspec__fail(CUSPEC_ERR_INVALID, "no lesson is named '%s' (%s)", name ? name : "(null)", names);
    return NULL;
}

int cuspec_lesson_check_size(const char *name, size_t size)
{
    const struct lesson *l = find(name);
    if (l == NULL)
        return CUSPEC_ERR_INVALID;
    const cuspec_lesson_info *i = &l->info;
    if (size == 0 || (size >= i->min_size && size <= i->max_size && size % i->size_multiple == 0))
        return CUSPEC_OK;
    char multiple[64] = "";
    if (i->size_multiple > 1)
        snprintf(multiple, sizeof multiple, ", a multiple of %zu", i->size_multiple);
    return cuspec__fail(CUSPEC_ERR_INVALID, "%s takes a size (%s) from %zu to %zu%s, not %zu",
                        i->name, i->size_unit, i->min_size, i->max_size, multiple, size);
}

const char *cuspec_lesson_kind_name(int kind)
{
    static const char *const names[] = {
        [CUSPEC_LESSON_CPU] = "cpu",
        [CUSPEC_LESSON_STEP] = "step",
        [CUSPEC_LESSON_CUSPEC] = "cuspec",
        [CUSPEC_LESSON_COPY] = "copy",
    };
    return kind >= CUSPEC_LESSON_CPU && kind <= CUSPEC_LESSON_COPY ? names[kind] : "?";
}

/* Fills the columns the rows imply: step speedups within each series, the
 * speedup over the CPU row and the fraction of the memcpy row. */
static void derive(cuspec_lesson_table *t)
{
    double cpu_ms = 0, copy_gbs = 0;
    for (int i = 0; i < t->n_rows; i++) {
        if (t->rows[i].kind == CUSPEC_LESSON_CPU && cpu_ms == 0)
            cpu_ms = t->rows[i].ms;
        if (t->rows[i].kind == CUSPEC_LESSON_COPY && copy_gbs == 0)
            copy_gbs = t->rows[i].gbs;
    }
    for (int i = 0; i < t->n_rows; i++) {
        cuspec_lesson_row *row = &t->rows[i];
        if (row->ms <= 0)
            continue;
        if ((t->columns & CUSPEC_LESSON_COL_CPU) && cpu_ms > 0 && row->kind != CUSPEC_LESSON_CPU)
            row->vs_cpu = cpu_ms / row->ms;
        if ((t->columns & CUSPEC_LESSON_COL_COPY) && copy_gbs > 0)
            row->of_copy = row->gbs / copy_gbs;
        if (!(t->columns & CUSPEC_LESSON_COL_STEP) || row->kind == CUSPEC_LESSON_COPY)
            continue;
        for (int j = i - 1; j >= 0; j--) {
            const cuspec_lesson_row *prev = &t->rows[j];
            if (prev->kind != CUSPEC_LESSON_COPY && strcmp(prev->series, row->series) == 0) {
                row->step = prev->ms / row->ms;
                break;
            }
        }
    }
}

int cuspec_lesson_run(cuspec_ctx *ctx, const char *name, size_t size, cuspec_progress_fn progress,
                      void *user, cuspec_lesson_table *table)
{
    CUSPEC__RETURN_IF(ctx == NULL || table == NULL, CUSPEC_ERR_INVALID,
                      "cuspec_lesson_run: %s is NULL", ctx == NULL ? "ctx" : "table");
    int rc = cuspec_lesson_check_size(name, size);
    if (rc != CUSPEC_OK)
        return rc;
    const struct lesson *l = find(name);
    if (size == 0)
        size = l->info.default_size ? l->info.default_size : l->default_size(&ctx->info);

    memset(table, 0, sizeof *table);
    cuspec__strlcpy(table->lesson, l->info.name, sizeof table->lesson);
    cuspec__strlcpy(table->title, l->info.title, sizeof table->title);
    cuspec__strlcpy(table->device, ctx->info.name, sizeof table->device);
    table->sm = ctx->arch;
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(table->date, sizeof table->date, "%Y-%m-%d", &tm);

    struct cuspec__lesson_run r = {.ctx = ctx,
                                   .drv = ctx->drv,
                                   .table = table,
                                   .progress = progress,
                                   .user = user,
                                   .reps = 20};
    int pushed;
    rc = cuspec__ctx_enter(ctx, &pushed);
    if (rc != CUSPEC_OK)
        return rc;
    rc = l->run(&r, size);
    /* Nothing of a failed lesson may run on into the next. */
    int synced = cuspec__cu_check(ctx->drv->cuCtxSynchronize(), "kernel execution");
    cuspec__ctx_leave(ctx, pushed);
    if (rc == CUSPEC_OK)
        rc = synced;
    if (rc == CUSPEC_OK)
        derive(table);
    else
        cuspec__fail_context(rc, "lesson %s at size %zu", l->info.name, size);
    return rc;
}
