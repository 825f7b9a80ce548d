/* cuspec lessons reverse: an array of ints reversed through global memory
 * only and staged through shared memory (templates/lessons_access.cuh), at
 * three sizes, against cuspec's copy and a memcpy of the largest. */
#include "lessons.h"
#include "workload.h"

#include <stdio.h>
#include <stdlib.h>

enum { BLOCK = 256, N_SIZES = 3 };
/* two kernels per size, cuspec's copy and memcpy */
#define N_ROWS (2 * N_SIZES + 2)
_Static_assert(N_ROWS <= CUSPEC_LESSON_MAX_ROWS, "the reverse table has room");
#define G80_SPEEDUP 5.3

static const struct {
    int id;
    const char *label, *note;
} kernels[] = {
    {CUSPEC__LK_REVERSE_GLOBAL, "global only",
     "each block writes its piece in reverse order to the mirror block"},
    {CUSPEC__LK_REVERSE_SHARED, "shared staged",
     "reversed in shared memory first: reads and writes both in order"},
};

struct call {
    struct cuspec__lesson_run *r;
    int id;
    struct cuspec__kernel k;
    CUdeviceptr in, out;
    size_t n;
};

static int call(void *p)
{
    struct call *c = p;
    void *args[] = {&c->in, &c->out};
    unsigned smem = c->id == CUSPEC__LK_REVERSE_SHARED ? BLOCK * sizeof(int) : 0;
    return cuspec__lesson_launch(c->r, c->id, &c->k, (unsigned)(c->n / BLOCK), 1, BLOCK, 1, smem,
                                 args);
}

static int check(struct call *c, const int *in, int *back)
{
    int rc =
        cuspec__cu_check(c->r->drv->cuMemsetD8(c->out, 0xA5, c->n * sizeof(int)), "cuMemsetD8");
    if (rc == CUSPEC_OK)
        rc = call(c);
    if (rc == CUSPEC_OK)
        rc = cuspec__lesson_download(c->r, back, c->out, c->n * sizeof(int), "the reversed array");
    for (size_t i = 0; rc == CUSPEC_OK && i < c->n; i++)
        if (back[i] != in[c->n - 1 - i])
            rc = cuspec__lesson_wrong(c->id, "reversing %zu ints: out[%zu] is %d, not in[%zu] = %d",
                                      c->n, i, back[i], c->n - 1 - i, in[c->n - 1 - i]);
    return rc;
}

/* "256K", "64M" for powers of two, else the count. */
static void size_text(size_t n, char *buf, size_t size)
{
    static const char units[] = " KMG";
    int u = 0;
    while (u < 3 && n % 1024 == 0 && n >= 1024) {
        n /= 1024;
        u++;
    }
    snprintf(buf, size, u ? "%zu%c" : "%zu", n, units[u]);
}

/* What the speedups say about this card, against the G80's 5.3x. */
static void explain(cuspec_lesson_table *t, const double *speedup, const size_t *sizes, int n)
{
    double lo = speedup[0], hi = speedup[0];
    for (int i = 1; i < n; i++) {
        lo = speedup[i] < lo ? speedup[i] : lo;
        hi = speedup[i] > hi ? speedup[i] : hi;
    }
    char small[16], large[16];
    size_text(sizes[0], small, sizeof small);
    size_text(sizes[n - 1], large, sizeof large);
    if (hi < 1.5)
        snprintf(t->summary, sizeof t->summary,
                 "Staged in shared memory, the reverse runs %.2fx as fast as through global "
                 "memory only at %s elements and %.2fx at %s (on the G80: %.1fx). A warp's "
                 "accesses now coalesce into the 32-byte sectors they touch, whatever the order "
                 "of its threads, and the L2 merges the reversed writes into whole sectors: "
                 "the global-only kernel moves no more bytes, and staging adds a barrier.",
                 speedup[0], small, speedup[n - 1], large, G80_SPEEDUP);
    else
        snprintf(t->summary, sizeof t->summary,
                 "Staged in shared memory, the reverse runs %.2fx to %.2fx as fast (on the G80: "
                 "%.1fx): on this card the reversed writes still cost extra transactions.",
                 lo, hi, G80_SPEEDUP);
}

int cuspec__lesson_reverse(struct cuspec__lesson_run *r, size_t n_max)
{
    cuspec_lesson_table *t = r->table;
    size_t sizes[N_SIZES];
    int n_sizes = 0;
    /* n_max / 256, n_max / 16 and n_max, in whole blocks */
    for (int shift = 8; shift >= 0; shift -= 4) {
        size_t n = (n_max >> shift) / BLOCK * BLOCK;
        if (n >= BLOCK && (n_sizes == 0 || n > sizes[n_sizes - 1]))
            sizes[n_sizes++] = n;
    }
    char text[16];
    size_text(n_max, text, sizeof text);
    snprintf(t->problem, sizeof t->problem, "i32 arrays of up to %s elements (%.0f MiB)", text,
             (double)n_max * sizeof(int) / (1 << 20));
    snprintf(t->counts, sizeof t->counts, "bytes read + written");
    snprintf(t->x_name, sizeof t->x_name, "elements");
    snprintf(t->published_on, sizeof t->published_on, "GeForce 8800 (G80)");
    snprintf(t->published_unit, sizeof t->published_unit, "x");
    t->columns = CUSPEC_LESSON_COL_X | CUSPEC_LESSON_COL_STEP | CUSPEC_LESSON_COL_COPY |
                 CUSPEC_LESSON_COL_PUBLISHED;
    r->total = 2 * (unsigned)n_sizes + 2;

    struct call c = {.r = r};
    size_t bytes = n_max * sizeof(int);
    int *in = malloc(bytes), *back = malloc(bytes);
    int rc = in && back ? CUSPEC_OK
                        : cuspec__fail(CUSPEC_ERR_NOMEM, "no host memory for %zu ints", n_max);
    if (rc == CUSPEC_OK)
        rc = cuspec__lesson_alloc(r, &c.in, bytes, "the input");
    if (rc == CUSPEC_OK)
        rc = cuspec__lesson_alloc(r, &c.out, bytes, "the output");
    double speedup[N_SIZES];
    for (int s = 0; rc == CUSPEC_OK && s < n_sizes; s++) {
        c.n = sizes[s];
        cuspec__random_fill(in, c.n, CUSPEC_I32);
        rc = cuspec__lesson_upload(r, c.in, in, c.n * sizeof(int), "the input");
        size_text(c.n, text, sizeof text);
        double ms[2] = {0, 0};
        for (int k = 0; rc == CUSPEC_OK && k < 2; k++) {
            cuspec_lesson_row *row =
                cuspec__lesson_row(r, CUSPEC_LESSON_STEP, text, kernels[k].label, kernels[k].note);
            row->x = (double)c.n;
            c.id = kernels[k].id;
            rc = cuspec__lesson_kernel(r, c.id, &c.k);
            if (rc == CUSPEC_OK)
                rc = check(&c, in, back);
            if (rc == CUSPEC_OK)
                rc = cuspec__lesson_time(r, call, &c, &ms[k]);
            cuspec__lesson_set_time(row, ms[k], 2.0 * (double)c.n * sizeof(int));
            row->verified = rc == CUSPEC_OK;
            row->published = k == 1 ? G80_SPEEDUP : 0;
            snprintf(row->kernel, sizeof row->kernel, "%s", cuspec__lesson_kernel_name(c.id));
        }
        speedup[s] = ms[1] > 0 ? ms[0] / ms[1] : 0;
    }
    cuspec__lesson_free(r, &c.in);
    cuspec__lesson_free(r, &c.out);
    free(in);
    free(back);
    if (rc == CUSPEC_OK)
        rc = cuspec__lesson_copy_rows(r, "copy", bytes, 1);
    if (rc == CUSPEC_OK)
        explain(t, speedup, sizes, n_sizes);
    return rc;
}
