/* cuspec lessons transpose: an n x n f32 matrix transposed by a host loop,
 * then by the four kernels of templates/lessons_transpose.cuh, then by
 * cuspec_transpose, against a device-to-device memcpy of the same bytes. */
#include "lessons.h"
#include "workload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    int id;
    const char *label, *note;
    double published; /* GB/s on a Tesla K20 */
} steps[] = {
    {CUSPEC__LK_TRANSPOSE_NAIVE, "naive",
     "one element per thread: a warp writes down a column, a sector per element", 54.64},
    {CUSPEC__LK_TRANSPOSE_COALESCED, "coalesced",
     "a 32 x 32 tile in shared memory: reads and writes both go along rows", 78.37},
    {CUSPEC__LK_TRANSPOSE_PADDED, "no bank conflicts",
     "the tile padded to 33 columns: a tile column spans all 32 banks", 105.38},
    {CUSPEC__LK_TRANSPOSE_UNROLLED, "loop unrolled",
     "32 x 8 threads of 4 rows each: the index math shared, more loads in flight", 154.21},
};
#define N_STEPS (sizeof steps / sizeof *steps)
/* the CPU, the steps, cuspec and memcpy */
#define N_ROWS (1 + N_STEPS + 2)
_Static_assert(N_ROWS <= CUSPEC_LESSON_MAX_ROWS, "the transpose table has room");

struct call {
    struct cuspec__lesson_run *r;
    int id;
    struct cuspec__kernel k;
    CUdeviceptr in, out;
    int n;
};

static int call(void *p)
{
    struct call *c = p;
    unsigned tiles = (unsigned)c->n / 32, side = c->id == CUSPEC__LK_TRANSPOSE_UNROLLED ? 8 : 32;
    void *args[] = {&c->in, &c->out, &c->n, &c->n};
    return cuspec__lesson_launch(c->r, c->id, &c->k, tiles, tiles, 32, side, 0, args);
}

static void cpu_transpose(const float *in, float *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            out[j * n + i] = in[i * n + j];
}

/* Runs step c->id once on poisoned output and compares it with ref. */
static int check(struct call *c, const float *ref, float *back, size_t bytes)
{
    int rc = cuspec__cu_check(c->r->drv->cuMemsetD8(c->out, 0xA5, bytes), "cuMemsetD8");
    if (rc == CUSPEC_OK)
        rc = call(c);
    if (rc == CUSPEC_OK)
        rc = cuspec__lesson_download(c->r, back, c->out, bytes, "the transposed matrix");
    if (rc != CUSPEC_OK || memcmp(back, ref, bytes) == 0)
        return rc;
    size_t at = 0, n = (size_t)c->n;
    while (memcmp(&back[at], &ref[at], sizeof *back) == 0) /* bits: -0 is not 0 here */
        at++;
    return cuspec__lesson_wrong(c->id, "%zu x %zu: out[%zu][%zu] is %g, not %g", n, n, at / n,
                                at % n, back[at], ref[at]);
}

int cuspec__lesson_transpose(struct cuspec__lesson_run *r, size_t n)
{
    cuspec_lesson_table *t = r->table;
    size_t elems = n * n, bytes = elems * sizeof(float);
    snprintf(t->problem, sizeof t->problem, "%zu x %zu f32 (%.0f MiB)", n, n,
             (double)bytes / (1 << 20));
    snprintf(t->counts, sizeof t->counts, "bytes read + written");
    snprintf(t->published_on, sizeof t->published_on, "Tesla K20");
    snprintf(t->published_unit, sizeof t->published_unit, "GB/s");
    t->columns = CUSPEC_LESSON_COL_STEP | CUSPEC_LESSON_COL_CPU | CUSPEC_LESSON_COL_COPY |
                 CUSPEC_LESSON_COL_PUBLISHED;
    t->plot = CUSPEC_LESSON_PLOT_BARS;
    r->total = N_ROWS;

    struct call c = {.r = r, .n = (int)n};
    float *in = malloc(bytes), *ref = malloc(bytes), *back = malloc(bytes);
    int rc = in && ref && back
                 ? CUSPEC_OK
                 : cuspec__fail(CUSPEC_ERR_NOMEM, "no host memory for %zu x %zu", n, n);
    cuspec_lesson_row *row = NULL;
    if (rc == CUSPEC_OK) {
        cuspec__random_fill(in, elems, CUSPEC_F32);
        row = cuspec__lesson_row(r, CUSPEC_LESSON_CPU, "", "CPU", "a plain host loop, one core");
        /* the first run also faults the output's pages in */
        double best = 0;
        for (int k = 0; k < 2; k++) {
            double t0 = cuspec__lesson_now_ms();
            cpu_transpose(in, ref, n);
            double ms = cuspec__lesson_now_ms() - t0;
            best = k == 0 || ms < best ? ms : best;
        }
        cuspec__lesson_set_time(row, best, 2.0 * (double)bytes);
        row->published = 0.807;
        rc = cuspec__lesson_alloc(r, &c.in, bytes, "the input matrix");
    }
    if (rc == CUSPEC_OK)
        rc = cuspec__lesson_alloc(r, &c.out, bytes, "the output matrix");
    if (rc == CUSPEC_OK)
        rc = cuspec__lesson_upload(r, c.in, in, bytes, "the input matrix");
    for (size_t s = 0; rc == CUSPEC_OK && s < N_STEPS; s++) {
        row = cuspec__lesson_row(r, CUSPEC_LESSON_STEP, "", steps[s].label, steps[s].note);
        c.id = steps[s].id;
        double ms = 0;
        rc = cuspec__lesson_kernel(r, c.id, &c.k);
        if (rc == CUSPEC_OK)
            rc = check(&c, ref, back, bytes);
        if (rc == CUSPEC_OK)
            rc = cuspec__lesson_time(r, call, &c, &ms);
        cuspec__lesson_set_time(row, ms, 2.0 * (double)bytes);
        row->published = steps[s].published;
        row->verified = rc == CUSPEC_OK;
        snprintf(row->kernel, sizeof row->kernel, "%s", cuspec__lesson_kernel_name(c.id));
    }
    cuspec__lesson_free(r, &c.in);
    cuspec__lesson_free(r, &c.out);
    free(in);
    free(ref);
    free(back);

    cuspec_bench_result b;
    if (rc == CUSPEC_OK)
        rc = cuspec_bench_transpose(r->ctx, CUSPEC_F32, n, n, r->reps, &b);
    if (rc == CUSPEC_OK)
        rc = cuspec__lesson_cuspec_row(r, "", "cuspec",
                                       "cuspec_transpose: its tuning record's kernel, or the "
                                       "default",
                                       &b);
    if (rc == CUSPEC_OK)
        rc = cuspec__lesson_copy_rows(r, "", bytes, 0);
    if (rc == CUSPEC_OK)
        t->rows[t->n_rows - 1].published = 167.10;
    if (rc == CUSPEC_OK) {
        const cuspec_lesson_row *last = &t->rows[N_STEPS], *tuned = &t->rows[N_STEPS + 1],
                                *copy = &t->rows[N_STEPS + 2];
        snprintf(t->summary, sizeof t->summary,
                 "The last lesson step reaches %.0f%% of the memcpy ceiling (%.0f%% on the K20); "
                 "cuspec's tuned kernel %.0f%%.",
                 100 * last->gbs / copy->gbs, 100 * 154.21 / 167.10, 100 * tuned->gbs / copy->gbs);
    }
    return rc;
}
