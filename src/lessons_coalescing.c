/* cuspec lessons coalescing: a[i + s] += 1 for offsets s = 0 .. 32 and
 * a[i * s] += 1 for strides s = 1 .. 32 over n floats
 * (templates/lessons_access.cuh), each timed on an array larger than the L2
 * and checked on a smaller one against the same update on the host. */
#include "lessons.h"
#include "workload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { BLOCK = 256, MAX_S = 32, CHECK_N = 1 << 18 };
/* the offsets, the strides, cuspec's copy and memcpy */
#define N_ROWS ((MAX_S + 1) + MAX_S + 2)
_Static_assert(N_ROWS <= CUSPEC_LESSON_MAX_ROWS, "the coalescing table has room");

struct call {
    struct cuspec__lesson_run *r;
    int id, s;
    struct cuspec__kernel k;
    CUdeviceptr a;
    unsigned n;
};

static int call(void *p)
{
    struct call *c = p;
    void *args[] = {&c->a, &c->s};
    return cuspec__lesson_launch(c->r, c->id, &c->k, c->n / BLOCK, 1, BLOCK, 1, 0, args);
}

/* The floats of a that one call with parameter s touches: [0, span). */
static size_t span(int id, size_t n, int s)
{
    return id == CUSPEC__LK_OFFSET ? n + (size_t)s : (n - 1) * (size_t)s + 1;
}

/* Runs c (on the check array, n = CHECK_N) and the same update on `mirror`,
 * the host's copy of the array, then compares what the call may touch. */
static int check(struct call *c, float *mirror, float *back)
{
    size_t len = span(c->id, c->n, c->s);
    for (size_t i = 0; i < c->n; i++) {
        size_t at = c->id == CUSPEC__LK_OFFSET ? i + (size_t)c->s : i * (size_t)c->s;
        mirror[at] = mirror[at] + 1;
    }
    int rc = call(c);
    if (rc == CUSPEC_OK)
        rc = cuspec__lesson_download(c->r, back, c->a, len * sizeof(float), "the array");
    if (rc != CUSPEC_OK || memcmp(back, mirror, len * sizeof(float)) == 0)
        return rc;
    size_t at = 0;
    while (memcmp(&back[at], &mirror[at], sizeof *back) == 0) /* bits: -0 is not 0 here */
        at++;
    return cuspec__lesson_wrong(c->id, "s = %d on %u floats: a[%zu] is %g, not %g", c->s, c->n, at,
                                back[at], mirror[at]);
}

/* Fills the device array of `count` floats with copies of `chunk` (n
 * random floats). */
static int fill(struct cuspec__lesson_run *r, CUdeviceptr a, const float *chunk, size_t n,
                size_t count)
{
    int rc = CUSPEC_OK;
    for (size_t at = 0; rc == CUSPEC_OK && at < count; at += n)
        rc = cuspec__lesson_upload(r, a + at * sizeof(float), chunk,
                                   (count - at < n ? count - at : n) * sizeof(float), "the array");
    return rc;
}

int cuspec__lesson_coalescing(struct cuspec__lesson_run *r, size_t n)
{
    cuspec_lesson_table *t = r->table;
    size_t check_n = n < CHECK_N ? n : CHECK_N;
    size_t count = (size_t)MAX_S * n + MAX_S, check_count = (size_t)MAX_S * check_n + MAX_S;
    snprintf(t->problem, sizeof t->problem, "%zu f32 (%.0f MiB), checked on %zu", n,
             (double)n * sizeof(float) / (1 << 20), check_n);
    snprintf(t->counts, sizeof t->counts, "bytes read + written (2 x 4 x n)");
    snprintf(t->x_name, sizeof t->x_name, "s (offset or stride, in floats)");
    t->columns = CUSPEC_LESSON_COL_X | CUSPEC_LESSON_COL_COPY;
    t->plot = CUSPEC_LESSON_PLOT_LINES;
    r->total = N_ROWS;

    struct call c = {.r = r}, checked = {.r = r, .n = (unsigned)check_n};
    float *chunk = malloc(n * sizeof(float)), *mirror = malloc(check_count * sizeof(float)),
          *back = malloc(check_count * sizeof(float));
    int rc = chunk && mirror && back
                 ? CUSPEC_OK
                 : cuspec__fail(CUSPEC_ERR_NOMEM, "no host memory for %zu floats", n);
    if (rc == CUSPEC_OK) {
        cuspec__random_fill(chunk, n, CUSPEC_F32);
        cuspec__random_fill(mirror, check_count, CUSPEC_F32);
        rc = cuspec__lesson_alloc(r, &c.a, count * sizeof(float), "the strided array");
    }
    if (rc == CUSPEC_OK)
        rc = cuspec__lesson_alloc(r, &checked.a, check_count * sizeof(float), "the check array");
    if (rc == CUSPEC_OK)
        rc = fill(r, c.a, chunk, n, count);
    if (rc == CUSPEC_OK)
        rc = cuspec__lesson_upload(r, checked.a, mirror, check_count * sizeof(float),
                                   "the check array");
    c.n = (unsigned)n;
    for (int row_i = 0; rc == CUSPEC_OK && row_i < (MAX_S + 1) + MAX_S; row_i++) {
        int offset = row_i <= MAX_S;
        c.id = checked.id = offset ? CUSPEC__LK_OFFSET : CUSPEC__LK_STRIDE;
        c.s = checked.s = offset ? row_i : row_i - MAX_S;
        char label[16];
        snprintf(label, sizeof label, "%d", c.s);
        cuspec_lesson_row *row =
            cuspec__lesson_row(r, CUSPEC_LESSON_STEP, offset ? "offset" : "stride", label,
                               offset ? "a[i + s] += 1" : "a[i * s] += 1");
        row->x = c.s;
        double ms = 0;
        rc = cuspec__lesson_kernel(r, c.id, &c.k);
        checked.k = c.k;
        if (rc == CUSPEC_OK)
            rc = check(&checked, mirror, back);
        if (rc == CUSPEC_OK)
            rc = cuspec__lesson_time(r, call, &c, &ms);
        cuspec__lesson_set_time(row, ms, 2.0 * (double)n * sizeof(float));
        row->verified = rc == CUSPEC_OK;
        snprintf(row->kernel, sizeof row->kernel, "%s", cuspec__lesson_kernel_name(c.id));
    }
    cuspec__lesson_free(r, &c.a);
    cuspec__lesson_free(r, &checked.a);
    free(chunk);
    free(mirror);
    free(back);
    if (rc == CUSPEC_OK)
        rc = cuspec__lesson_copy_rows(r, "copy", n * sizeof(float), 1);
    if (rc == CUSPEC_OK) {
        const cuspec_lesson_row *off = &t->rows[0], *str = &t->rows[MAX_S + 1];
        snprintf(t->summary, sizeof t->summary,
                 "Offset: %.0f GB/s aligned, %.0f at s = 1 (%.0f%%), %.0f again at s = 32. "
                 "Stride: %.0f GB/s at s = 1, %.0f at 2, %.0f at 4, down to %.0f at 32 (%.1f%%).",
                 off[0].gbs, off[1].gbs, 100 * off[1].gbs / off[0].gbs, off[MAX_S].gbs, str[0].gbs,
                 str[1].gbs, str[3].gbs, str[MAX_S - 1].gbs, 100 * str[MAX_S - 1].gbs / str[0].gbs);
    }
    return rc;
}
