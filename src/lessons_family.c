/* The lessons family (templates/lessons_*.cuh): the teaching kernels, each
 * one op of the family with no parameters, so that each is a default the
 * build prebuilds, `cuspec compile --check` checks and ptx/ ships. Not
 * tunable: the lessons run them as they were taught. */
#include "lessons.h"

#include <stdio.h>

static const struct {
    const char *expr, *file;
    int threads;
} kernels[CUSPEC__LK_COUNT] = {
#define CUSPEC__LESSON_KERNEL_ENTRY(id, expr, file, threads)                                       \
    [CUSPEC__LK_##id] = {expr, file, threads},
    CUSPEC__LESSON_KERNELS(CUSPEC__LESSON_KERNEL_ENTRY)
#undef CUSPEC__LESSON_KERNEL_ENTRY
};

const char *cuspec__lesson_kernel_name(int id)
{
    return id >= 0 && id < CUSPEC__LK_COUNT ? kernels[id].expr : "?";
}

static int legal(const struct cuspec__variant *v)
{
    return v->dtype == 0 && v->op >= 0 && v->op < CUSPEC__LK_COUNT;
}

static void expr(const struct cuspec__variant *v, char *buf, size_t size)
{
    snprintf(buf, size, "%s", cuspec__lesson_kernel_name(v->op));
}

static const char *template_of(const struct cuspec__variant *v)
{
    return legal(v) ? kernels[v->op].file : "lessons_transpose.cuh";
}

static int threads(const struct cuspec__variant *v)
{
    return legal(v) ? kernels[v->op].threads : 32;
}

static void defaults(int arch, struct cuspec__variant *v)
{
    (void)arch; /* no parameters: the op names the kernel */
    (void)v;
}

const struct cuspec__family cuspec__family_lessons = {
    .name = "lessons",
    .template_of = template_of,
    .n_params = 0,
    .n_dtypes = 1,
    .dtypes = {0},
    .n_ops = CUSPEC__LK_COUNT,
    .legal = legal,
    .expr = expr,
    .threads = threads,
    .defaults = defaults,
};
