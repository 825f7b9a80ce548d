/* cuspec lessons dot: the dot product of two float vectors by a host loop,
 * by the shared-memory kernel with one partial per block and by the
 * pairwise sum (templates/lessons_dot.cuh), then by cuspec_dot and, for
 * half the bytes, cuspec_reduce's sum. */
#include "lessons.h"
#include "workload.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

enum { BLOCK = 256, TAUGHT_BLOCKS = 32 };
/* the CPU, two lessons, cuspec_dot, cuspec_reduce, memcpy */
#define N_ROWS 6
_Static_assert(N_ROWS <= CUSPEC_LESSON_MAX_ROWS, "the dot table has room");

struct call {
    struct cuspec__lesson_run *r;
    struct cuspec__kernel dot, products, pairwise;
    CUdeviceptr a, b, partials;
    float *host_partials;
    unsigned n, blocks;
    int pairwise_sum; /* the pairwise sum, else the shared-memory kernel */
    float result;
};

/* As taught: the kernel's partials come back and the host adds them. */
static int shared_dot(struct call *c)
{
    int n = (int)c->n;
    void *args[] = {&c->a, &c->b, &c->partials, &n};
    int rc = cuspec__lesson_launch(c->r, CUSPEC__LK_DOT, &c->dot, c->blocks, 1, BLOCK, 1, 0, args);
    if (rc == CUSPEC_OK)
        rc = cuspec__lesson_download(c->r, c->host_partials, c->partials, c->blocks * sizeof(float),
                                     "the partials");
    c->result = 0;
    for (unsigned i = 0; rc == CUSPEC_OK && i < c->blocks; i++)
        c->result += c->host_partials[i];
    return rc;
}

/* The products into the scratch at c->partials, then halving passes. */
static int pairwise_dot(struct call *c)
{
    unsigned m = c->n;
    void *first[] = {&c->a, &c->b, &c->partials, &m};
    int rc = cuspec__lesson_launch(c->r, CUSPEC__LK_PRODUCTS, &c->products, (m + BLOCK - 1) / BLOCK,
                                   1, BLOCK, 1, 0, first);
    while (rc == CUSPEC_OK && m > 1) {
        unsigned h = (m + 1) / 2;
        void *args[] = {&c->partials, &m, &h};
        rc = cuspec__lesson_launch(c->r, CUSPEC__LK_PAIRWISE, &c->pairwise,
                                   (m - h + BLOCK - 1) / BLOCK, 1, BLOCK, 1, 0, args);
        m = h;
    }
    if (rc == CUSPEC_OK)
        rc = cuspec__lesson_download(c->r, &c->result, c->partials, sizeof(float), "the sum");
    return rc;
}

static int call(void *p)
{
    struct call *c = p;
    return c->pairwise_sum ? pairwise_dot(c) : shared_dot(c);
}

/* The result against the CPU's: off by at most `depth` roundings of the sum
 * of |a[i] b[i]| (the bound of any summation whose longest chain of
 * additions, the product's rounding included, is `depth`). */
static int check(struct call *c, double ref, double abs_sum, double depth)
{
    int rc = call(c);
    double bound = depth * ldexp(1, -24) * abs_sum;
    int id = c->pairwise_sum ? CUSPEC__LK_PAIRWISE : CUSPEC__LK_DOT;
    if (rc == CUSPEC_OK && !(fabs(c->result - ref) <= bound))
        rc = cuspec__lesson_wrong(id,
                                  "the dot of %u floats is %.9g, not %.9g (off by more "
                                  "than %.3g)",
                                  c->n, c->result, ref, bound);
    return rc;
}

int cuspec__lesson_dot(struct cuspec__lesson_run *r, size_t n)
{
    cuspec_lesson_table *t = r->table;
    size_t bytes = n * sizeof(float);
    snprintf(t->problem, sizeof t->problem, "two vectors of %zu f32 (%.0f MiB each)", n,
             (double)bytes / (1 << 20));
    snprintf(t->counts, sizeof t->counts, "bytes read (both vectors; cuspec_reduce: one)");
    t->columns = CUSPEC_LESSON_COL_STEP | CUSPEC_LESSON_COL_CPU | CUSPEC_LESSON_COL_COPY;
    r->total = N_ROWS;

    struct call c = {.r = r, .n = (unsigned)n};
    c.blocks =
        (c.n + BLOCK - 1) / BLOCK < TAUGHT_BLOCKS ? (c.n + BLOCK - 1) / BLOCK : TAUGHT_BLOCKS;
    float *a = malloc(bytes), *b = malloc(bytes);
    c.host_partials = malloc(TAUGHT_BLOCKS * sizeof(float));
    int rc = a && b && c.host_partials
                 ? CUSPEC_OK
                 : cuspec__fail(CUSPEC_ERR_NOMEM, "no host memory for 2 x %zu floats", n);
    double ref = 0, abs_sum = 0;
    if (rc == CUSPEC_OK) {
        cuspec__random_fill(a, n, CUSPEC_F32);
        cuspec__random_fill(b, n, CUSPEC_F32);
        cuspec_lesson_row *row = cuspec__lesson_row(
            r, CUSPEC_LESSON_CPU, "", "CPU", "a plain host loop, one core, in double precision");
        double best = 0;
        for (int k = 0; k < 3; k++) {
            double t0 = cuspec__lesson_now_ms(), sum = 0;
            for (size_t i = 0; i < n; i++)
                sum += (double)a[i] * b[i];
            double ms = cuspec__lesson_now_ms() - t0;
            best = k == 0 || ms < best ? ms : best;
            ref = sum;
        }
        for (size_t i = 0; i < n; i++)
            abs_sum += fabs((double)a[i] * b[i]);
        cuspec__lesson_set_time(row, best, 2.0 * (double)bytes);
        rc = cuspec__lesson_alloc(r, &c.a, bytes, "the vector a");
    }
    if (rc == CUSPEC_OK)
        rc = cuspec__lesson_alloc(r, &c.b, bytes, "the vector b");
    if (rc == CUSPEC_OK) /* the partials, and the pairwise sum's products */
        rc = cuspec__lesson_alloc(r, &c.partials, bytes, "the products");
    if (rc == CUSPEC_OK)
        rc = cuspec__lesson_upload(r, c.a, a, bytes, "the vector a");
    if (rc == CUSPEC_OK)
        rc = cuspec__lesson_upload(r, c.b, b, bytes, "the vector b");
    for (int k = 0; rc == CUSPEC_OK && k < 2; k++) {
        c.pairwise_sum = k;
        cuspec_lesson_row *row =
            k == 0 ? cuspec__lesson_row(r, CUSPEC_LESSON_STEP, "", "shared memory",
                                        "as CUDA by Example: 32 blocks of 256, one partial each, "
                                        "added on the host (timed with them)")
                   : cuspec__lesson_row(r, CUSPEC_LESSON_STEP, "", "pairwise sum",
                                        "the products, then log2(n) passes x[i] += x[i + h]");
        /* the longest chain of roundings, the product's included */
        double per_thread = ceil((double)n / ((double)c.blocks * BLOCK));
        double depth = k == 0 ? 1 + per_thread + log2(BLOCK) + c.blocks : 2 + ceil(log2((double)n));
        double ms = 0;
        rc = cuspec__lesson_kernel(r, k == 0 ? CUSPEC__LK_DOT : CUSPEC__LK_PRODUCTS,
                                   k == 0 ? &c.dot : &c.products);
        if (rc == CUSPEC_OK && k == 1)
            rc = cuspec__lesson_kernel(r, CUSPEC__LK_PAIRWISE, &c.pairwise);
        if (rc == CUSPEC_OK)
            rc = check(&c, ref, abs_sum, depth);
        if (rc == CUSPEC_OK)
            rc = cuspec__lesson_time(r, call, &c, &ms);
        cuspec__lesson_set_time(row, ms, 2.0 * (double)bytes);
        row->verified = rc == CUSPEC_OK;
        snprintf(row->kernel, sizeof row->kernel, "%s",
                 k == 0 ? cuspec__lesson_kernel_name(CUSPEC__LK_DOT)
                        : "lessons_products, lessons_pairwise");
    }
    cuspec__lesson_free(r, &c.a);
    cuspec__lesson_free(r, &c.b);
    cuspec__lesson_free(r, &c.partials);
    free(a);
    free(b);
    free(c.host_partials);

    cuspec_bench_result res;
    if (rc == CUSPEC_OK)
        rc = cuspec_bench_reduce(r->ctx, -1, CUSPEC_F32, n, r->reps, &res);
    if (rc == CUSPEC_OK)
        rc =
            cuspec__lesson_cuspec_row(r, "", "cuspec_dot", "one launch, fused multiply-adds", &res);
    if (rc == CUSPEC_OK)
        rc = cuspec_bench_reduce(r->ctx, CUSPEC_SUM, CUSPEC_F32, n, r->reps, &res);
    if (rc == CUSPEC_OK)
        rc = cuspec__lesson_cuspec_row(r, "", "cuspec_reduce",
                                       "the sum of one vector: half the bytes of the dot", &res);
    if (rc == CUSPEC_OK)
        rc = cuspec__lesson_copy_rows(r, "", 2 * bytes, 0);
    if (rc == CUSPEC_OK) {
        const cuspec_lesson_row *row = t->rows, *copy = &t->rows[N_ROWS - 1];
        snprintf(t->summary, sizeof t->summary,
                 "The taught kernel's 32 blocks reach %.0f%% of the memcpy ceiling on %d "
                 "multiprocessors; the pairwise sum %.0f%% (it moves each product several "
                 "times); cuspec_dot %.0f%%.",
                 100 * row[1].gbs / copy->gbs, r->ctx->info.sm_count, 100 * row[2].gbs / copy->gbs,
                 100 * row[3].gbs / copy->gbs);
    }
    return rc;
}
