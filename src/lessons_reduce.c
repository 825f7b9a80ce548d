/* cuspec lessons reduce: the sum of n ints by a host loop, then by the six
 * stages of templates/lessons_reduce.cuh (each launched again on its own
 * partial sums until one is left), then by cuspec_reduce, against a
 * device-to-device memcpy of the same bytes. */
#include "lessons.h"
#include "workload.h"

#include <stdio.h>
#include <stdlib.h>

enum { BLOCK = 256 };

static const struct {
    int id;
    const char *label, *note;
    unsigned per_block; /* elements one block sums */
    double published;   /* GB/s on a GTX 770 */
} stages[] = {
    {CUSPEC__LK_REDUCE0, "stage 0",
     "interleaved addressing: tid % (2*s) == 0 leaves warps diverged and mostly idle", BLOCK,
     16.98},
    {CUSPEC__LK_REDUCE1, "stage 1",
     "strided index: no divergence, but index = 2*s*tid makes bank conflicts", BLOCK, 21.45},
    {CUSPEC__LK_REDUCE2, "stage 2",
     "sequential addressing: a warp reads consecutive words, no conflicts", BLOCK, 28.54},
    {CUSPEC__LK_REDUCE3, "stage 3", "first add during load: 2 elements per thread, half the blocks",
     2 * BLOCK, 47.22},
    {CUSPEC__LK_REDUCE4, "stage 4",
     "32 elements per thread and the last warp unrolled: no __syncthreads there", 32 * BLOCK,
     147.89},
    {CUSPEC__LK_REDUCE5, "stage 5",
     "completely unrolled on a template block size: every loop resolved at compile time",
     32 * BLOCK, 154.18},
};
#define N_STAGES (sizeof stages / sizeof *stages)
/* the CPU, the stages, cuspec and memcpy */
#define N_ROWS (1 + N_STAGES + 2)
_Static_assert(N_ROWS <= CUSPEC_LESSON_MAX_ROWS, "the reduce table has room");

struct call {
    struct cuspec__lesson_run *r;
    size_t stage;
    struct cuspec__kernel k;
    CUdeviceptr in, partials[2];
    unsigned n;
    CUdeviceptr result; /* where the last pass left the sum */
};

/* One reduction: passes of the stage's kernel, each on the partial sums of
 * the one before, until one is left. */
static int call(void *p)
{
    struct call *c = p;
    int id = stages[c->stage].id;
    unsigned per = stages[c->stage].per_block, m = c->n;
    unsigned smem = id == CUSPEC__LK_REDUCE5 ? 0 : BLOCK * sizeof(int);
    CUdeviceptr src = c->in;
    int rc = CUSPEC_OK;
    for (int pass = 0; rc == CUSPEC_OK && (pass == 0 || m > 1); pass++) {
        unsigned blocks = (m + per - 1) / per;
        CUdeviceptr dst = c->partials[pass % 2];
        void *args[] = {&src, &dst, &m};
        rc = cuspec__lesson_launch(c->r, id, &c->k, blocks, 1, BLOCK, 1, smem, args);
        src = dst;
        m = blocks;
    }
    c->result = src;
    return rc;
}

/* The sum modulo 2^32, as the kernels' int additions wrap. */
static unsigned cpu_sum(const int *in, size_t n)
{
    unsigned sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += (unsigned)in[i];
    return sum;
}

static int check(struct call *c, unsigned ref)
{
    int got = 0;
    int rc = call(c);
    if (rc == CUSPEC_OK)
        rc = cuspec__lesson_download(c->r, &got, c->result, sizeof got, "the sum");
    if (rc == CUSPEC_OK && (unsigned)got != ref)
        rc = cuspec__lesson_wrong(stages[c->stage].id, "the sum of %u ints is %d, not %d", c->n,
                                  got, (int)ref);
    return rc;
}

int cuspec__lesson_reduce(struct cuspec__lesson_run *r, size_t n)
{
    cuspec_lesson_table *t = r->table;
    size_t bytes = n * sizeof(int);
    snprintf(t->problem, sizeof t->problem, "%zu i32 (%.0f MiB)", n, (double)bytes / (1 << 20));
    snprintf(t->counts, sizeof t->counts, "bytes read");
    snprintf(t->published_on, sizeof t->published_on, "GTX 770; the CPU a Core i7 4770K");
    snprintf(t->published_unit, sizeof t->published_unit, "GB/s");
    t->columns = CUSPEC_LESSON_COL_STEP | CUSPEC_LESSON_COL_CPU | CUSPEC_LESSON_COL_COPY |
                 CUSPEC_LESSON_COL_PUBLISHED;
    t->plot = CUSPEC_LESSON_PLOT_BARS;
    r->total = N_ROWS;

    struct call c = {.r = r, .n = (unsigned)n};
    int *in = malloc(bytes);
    int rc = in ? CUSPEC_OK : cuspec__fail(CUSPEC_ERR_NOMEM, "no host memory for %zu ints", n);
    unsigned ref = 0;
    if (rc == CUSPEC_OK) {
        cuspec__random_fill(in, n, CUSPEC_I32);
        cuspec_lesson_row *row =
            cuspec__lesson_row(r, CUSPEC_LESSON_CPU, "", "CPU", "a plain host loop, one core");
        double best = 0;
        for (int k = 0; k < 3; k++) {
            double t0 = cuspec__lesson_now_ms();
            ref = cpu_sum(in, n);
            double ms = cuspec__lesson_now_ms() - t0;
            best = k == 0 || ms < best ? ms : best;
        }
        cuspec__lesson_set_time(row, best, (double)bytes);
        row->published = 15.25;
        rc = cuspec__lesson_alloc(r, &c.in, bytes, "the input");
    }
    size_t first = (n + BLOCK - 1) / BLOCK * sizeof(int); /* the most partials a pass leaves */
    for (int k = 0; k < 2 && rc == CUSPEC_OK; k++)
        rc = cuspec__lesson_alloc(r, &c.partials[k], first, "the partial sums");
    if (rc == CUSPEC_OK)
        rc = cuspec__lesson_upload(r, c.in, in, bytes, "the input");
    for (c.stage = 0; rc == CUSPEC_OK && c.stage < N_STAGES; c.stage++) {
        cuspec_lesson_row *row = cuspec__lesson_row(r, CUSPEC_LESSON_STEP, "",
                                                    stages[c.stage].label, stages[c.stage].note);
        double ms = 0;
        rc = cuspec__lesson_kernel(r, stages[c.stage].id, &c.k);
        if (rc == CUSPEC_OK)
            rc = check(&c, ref);
        if (rc == CUSPEC_OK)
            rc = cuspec__lesson_time(r, call, &c, &ms);
        cuspec__lesson_set_time(row, ms, (double)bytes);
        row->published = stages[c.stage].published;
        row->verified = rc == CUSPEC_OK;
        snprintf(row->kernel, sizeof row->kernel, "%s",
                 cuspec__lesson_kernel_name(stages[c.stage].id));
    }
    cuspec__lesson_free(r, &c.in);
    cuspec__lesson_free(r, &c.partials[0]);
    cuspec__lesson_free(r, &c.partials[1]);
    free(in);

    cuspec_bench_result b;
    if (rc == CUSPEC_OK)
        rc = cuspec_bench_reduce(r->ctx, CUSPEC_SUM, CUSPEC_I32, n, r->reps, &b);
    if (rc == CUSPEC_OK)
        rc = cuspec__lesson_cuspec_row(r, "", "cuspec",
                                       "cuspec_reduce (64-bit sum): its tuning record's kernel, "
                                       "or the default",
                                       &b);
    if (rc == CUSPEC_OK)
        rc = cuspec__lesson_copy_rows(r, "", bytes, 0);
    if (rc == CUSPEC_OK) {
        const cuspec_lesson_row *s0 = &t->rows[1], *s5 = &t->rows[N_STAGES],
                                *tuned = &t->rows[N_STAGES + 1], *copy = &t->rows[N_STAGES + 2];
        snprintf(t->summary, sizeof t->summary,
                 "From stage 0 to stage 5 the sum runs %.1fx faster (%.1fx on the GTX 770); "
                 "stage 5 reads at %.0f%% of the memcpy ceiling, cuspec's kernel at %.0f%%.",
                 s0->ms / s5->ms, 154.18 / 16.98, 100 * s5->gbs / copy->gbs,
                 100 * tuned->gbs / copy->gbs);
    }
    return rc;
}
