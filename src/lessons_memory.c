/* cuspec lessons memory: the bandwidth of each memory space on this card
 * (templates/lessons_memory.cuh): registers, shared memory, the L2, device
 * memory, mapped host memory read one way, and constant memory read
 * uniformly and divergently. Each kernel leaves one float per thread, which
 * the host computes the same way: every check is exact. */
#include "lessons.h"
#include "workload.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { BLOCK = 256, SHARED_FLOAT4 = 1024 };
enum { REGISTERS, SHARED, L2, GLOBAL, MAPPED, CONSTANT_UNIFORM, CONSTANT_DIVERGENT, N_SPACES };
/* the spaces, cuspec's copy and memcpy */
#define N_ROWS (N_SPACES + 2)
_Static_assert(N_ROWS <= CUSPEC_LESSON_MAX_ROWS, "the memory table has room");

static const struct {
    int id;
    const char *label, *note;
    double published; /* GB/s in the Fermi era */
} spaces[N_SPACES] = {
    [REGISTERS] = {CUSPEC__LK_REGISTERS, "registers",
                   "8 FMA chains per thread; each FMA reads 3 registers of 4 bytes", 8000},
    [SHARED] = {CUSPEC__LK_SHARED, "shared memory",
                "float4 reads of a 16 KB shared array, no bank conflicts", 1600},
    [L2] = {CUSPEC__LK_READ, "L2 cache",
            "float4 reads of a quarter of the L2, read over and over (ld.cg)", 0},
    [GLOBAL] = {CUSPEC__LK_READ, "global memory", "float4 reads of an array larger than the L2",
                177},
    [MAPPED] = {CUSPEC__LK_READ, "mapped host memory",
                "float4 reads of pinned host memory mapped into the device: over the bus", 8},
    [CONSTANT_UNIFORM] = {CUSPEC__LK_CONSTANT_UNIFORM, "constant, uniform",
                          "every thread of a warp reads the same word: one broadcast", 0},
    [CONSTANT_DIVERGENT] = {CUSPEC__LK_CONSTANT_DIVERGENT, "constant, divergent",
                            "each thread of a warp reads another word: 32 in turn", 0},
};

/* One space's kernel: in (n floats; the read kernels' array), out (one
 * float per thread), and its loop count (iterations, or rounds of reads). */
struct call {
    struct cuspec__lesson_run *r;
    int space;
    struct cuspec__kernel k;
    CUdeviceptr in, out;
    unsigned long long n4; /* float4s the read kernel reads per round */
    unsigned blocks;
    int loops;
};

static int call(void *p)
{
    struct call *c = p;
    int id = spaces[c->space].id;
    void *reads[] = {&c->in, &c->n4, &c->loops, &c->out};
    void *iterated[] = {&c->in, &c->out, &c->loops};
    void *constant[] = {&c->out, &c->loops};
    void **args = id == CUSPEC__LK_READ                                   ? reads
                  : id == CUSPEC__LK_REGISTERS || id == CUSPEC__LK_SHARED ? iterated
                                                                          : constant;
    return cuspec__lesson_launch(c->r, id, &c->k, c->blocks, 1, BLOCK, 1, 0, args);
}

/* What thread g leaves in out[g], on the host: in the kernel's order of
 * operations, so the results are equal. */
static float expect(const struct call *c, const float *in, const float *constant, size_t g)
{
    unsigned tid = (unsigned)(g % BLOCK);
    switch (c->space) {
    case REGISTERS: {
        float a = 0.5f * in[g], b = in[g], x[8] = {0, 1, 2, 3, 4, 5, 6, 7};
        for (int k = 0; k < c->loops; k++)
            for (int j = 0; j < 8; j++)
                x[j] = fmaf(x[j], a, b);
        return x[0] + x[1] + x[2] + x[3] + x[4] + x[5] + x[6] + x[7];
    }
    case SHARED:
    case L2:
    case GLOBAL:
    case MAPPED: {
        float s[4] = {0, 0, 0, 0};
        size_t threads = (size_t)c->blocks * BLOCK;
        for (int k = 0; k < c->loops; k++) {
            if (c->space == SHARED) {
                const float *v = &in[4 * ((tid + (unsigned)k * 32) & (SHARED_FLOAT4 - 1))];
                for (int j = 0; j < 4; j++)
                    s[j] += v[j];
                continue;
            }
            for (size_t i = g; i < c->n4; i += threads)
                for (int j = 0; j < 4; j++)
                    s[j] += in[4 * i + (size_t)j];
        }
        return (s[0] + s[1]) + (s[2] + s[3]);
    }
    default: {
        float sum = 0;
        for (int k = 0; k < c->loops; k++)
            sum += constant[(c->space == CONSTANT_UNIFORM ? (unsigned)k : (unsigned)k + tid) &
                            (CUSPEC__LESSON_CONSTANT_FLOATS - 1)];
        return sum;
    }
    }
}

/* Runs c with `loops` loops (fewer than timed: the host repeats them all)
 * and compares every thread's float. */
static int check(const struct call *c, int loops, const float *in, const float *constant,
                 float *back)
{
    struct call small = *c;
    small.loops = loops;
    size_t threads = (size_t)c->blocks * BLOCK;
    int rc = call(&small);
    if (rc == CUSPEC_OK)
        rc = cuspec__lesson_download(c->r, back, c->out, threads * sizeof(float), "the results");
    for (size_t g = 0; rc == CUSPEC_OK && g < threads; g++) {
        float want = expect(&small, in, constant, g);
        if (memcmp(&back[g], &want, sizeof want) != 0)
            rc = cuspec__lesson_wrong(spaces[c->space].id, "%s: thread %zu left %.9g, not %.9g",
                                      spaces[c->space].label, g, back[g], want);
    }
    return rc;
}

/* Fills the constant table of the module c->k came from. */
static int set_constant(struct call *c, const float *values)
{
    const struct cuspec__driver *drv = c->r->drv;
    CUSPEC__RETURN_IF(drv->cuFuncGetModule == NULL || drv->cuModuleGetGlobal == NULL,
                      CUSPEC_ERR_UNSUPPORTED,
                      "this driver lacks cuFuncGetModule or cuModuleGetGlobal: no constant memory "
                      "lesson");
    CUmodule mod;
    CUdeviceptr table;
    size_t bytes;
    int rc = cuspec__cu_check(drv->cuFuncGetModule(&mod, c->k.function), "cuFuncGetModule");
    if (rc == CUSPEC_OK)
        rc = cuspec__cu_check(drv->cuModuleGetGlobal(&table, &bytes, mod, CUSPEC__LESSON_CONSTANT),
                              "cuModuleGetGlobal (" CUSPEC__LESSON_CONSTANT ")");
    if (rc == CUSPEC_OK && bytes != CUSPEC__LESSON_CONSTANT_FLOATS * sizeof(float))
        rc = cuspec__fail(CUSPEC_ERR_CUDA, CUSPEC__LESSON_CONSTANT " has %zu bytes", bytes);
    if (rc == CUSPEC_OK)
        rc = cuspec__lesson_upload(c->r, table, values, bytes, CUSPEC__LESSON_CONSTANT);
    return rc;
}

/* Bytes one call with c->loops loops counts. */
static double counted(const struct call *c)
{
    double threads = (double)c->blocks * BLOCK, loops = c->loops;
    switch (c->space) {
    case REGISTERS:
        return threads * loops * 8 * 3 * sizeof(float);
    case SHARED:
        return threads * loops * 4 * sizeof(float);
    case L2:
    case GLOBAL:
    case MAPPED:
        return (double)c->n4 * 4 * sizeof(float) * loops;
    default:
        return threads * loops * sizeof(float);
    }
}

/* Runs one space: its data in place (in, n floats on the host; device at
 * c->in), checked with `check_loops` loops, timed with c->loops. */
static int measure(struct call *c, int check_loops, const float *in, const float *constant,
                   float *back)
{
    cuspec_lesson_row *row = cuspec__lesson_row(c->r, CUSPEC_LESSON_STEP, "",
                                                spaces[c->space].label, spaces[c->space].note);
    int id = spaces[c->space].id;
    double ms = 0;
    int rc = cuspec__lesson_kernel(c->r, id, &c->k);
    /* enough blocks to fill every multiprocessor */
    c->blocks = rc == CUSPEC_OK ? (unsigned)(c->k.blocks_per_sm * c->r->ctx->info.sm_count) : 0;
    if (rc == CUSPEC_OK && constant != NULL)
        rc = set_constant(c, constant);
    if (rc == CUSPEC_OK)
        rc = check(c, check_loops, in, constant, back);
    if (rc == CUSPEC_OK)
        rc = cuspec__lesson_time(c->r, call, c, &ms);
    cuspec__lesson_set_time(row, ms, counted(c));
    row->published = spaces[c->space].published;
    row->verified = rc == CUSPEC_OK;
    snprintf(row->kernel, sizeof row->kernel, "%s", cuspec__lesson_kernel_name(id));
    return rc;
}

/* The read kernel over n floats at c->in (host copy `in`): enough rounds
 * to read about 4 GB, checked over two. */
static int measure_read(struct call *c, size_t n, int rounds, const float *in, float *back)
{
    c->n4 = n / 4;
    c->loops = rounds;
    return measure(c, rounds > 1 ? 2 : 1, in, NULL, back);
}

int cuspec__lesson_memory(struct cuspec__lesson_run *r, size_t n)
{
    cuspec_lesson_table *t = r->table;
    const cuspec_device_info *d = &r->ctx->info;
    size_t l2_n = (size_t)d->l2_bytes / 4 / sizeof(float) / 1024 * 1024;
    size_t mapped_n = n < ((size_t)1 << 24) ? n : (size_t)1 << 24;
    size_t threads = (size_t)d->sm_count * 2048; /* at most: the blocks that fit at once */
    snprintf(t->problem, sizeof t->problem,
             "global %.0f MiB, L2 %.1f MiB (of %.0f), mapped %.0f MiB; f32",
             (double)n * 4 / (1 << 20), (double)l2_n * 4 / (1 << 20),
             (double)d->l2_bytes / (1 << 20), (double)mapped_n * 4 / (1 << 20));
    snprintf(t->counts, sizeof t->counts,
             "bytes read by the threads (registers: 3 operands per FMA)");
    snprintf(t->published_on, sizeof t->published_on, "the Fermi era");
    snprintf(t->published_unit, sizeof t->published_unit, "GB/s");
    t->columns = CUSPEC_LESSON_COL_COPY | CUSPEC_LESSON_COL_PUBLISHED;
    r->total = N_ROWS;

    struct call c = {.r = r};
    size_t biggest = n > threads ? n : threads;
    biggest = biggest > l2_n ? biggest : l2_n;
    float *in = malloc(biggest * sizeof(float)), *back = malloc(threads * sizeof(float));
    float constant[CUSPEC__LESSON_CONSTANT_FLOATS];
    void *host = NULL;
    int rc = in && back ? CUSPEC_OK
                        : cuspec__fail(CUSPEC_ERR_NOMEM, "no host memory for %zu floats", biggest);
    if (rc == CUSPEC_OK)
        rc = cuspec__lesson_alloc(r, &c.in, biggest * sizeof(float), "the input");
    if (rc == CUSPEC_OK)
        rc = cuspec__lesson_alloc(r, &c.out, threads * sizeof(float), "the results");
    if (rc == CUSPEC_OK) { /* registers and shared memory: threads floats of input */
        cuspec__random_fill(in, threads, CUSPEC_F32);
        rc = cuspec__lesson_upload(r, c.in, in, threads * sizeof(float), "the input");
    }
    if (rc == CUSPEC_OK) {
        c.space = REGISTERS;
        c.loops = 4096;
        rc = measure(&c, 16, in, NULL, back);
    }
    if (rc == CUSPEC_OK) {
        c.space = SHARED;
        c.loops = 4096;
        rc = measure(&c, 8, in, NULL, back);
    }
    if (rc == CUSPEC_OK) {
        c.space = L2;
        cuspec__random_fill(in, l2_n, CUSPEC_F32);
        rc = cuspec__lesson_upload(r, c.in, in, l2_n * sizeof(float), "the L2's array");
        double rounds = 4e9 / ((double)l2_n * sizeof(float));
        if (rc == CUSPEC_OK)
            rc = measure_read(&c, l2_n,
                              rounds < 2      ? 2
                              : rounds > 4096 ? 4096
                                              : (int)rounds,
                              in, back);
    }
    if (rc == CUSPEC_OK) {
        c.space = GLOBAL;
        cuspec__random_fill(in, n, CUSPEC_F32);
        rc = cuspec__lesson_upload(r, c.in, in, n * sizeof(float), "the global array");
        if (rc == CUSPEC_OK)
            rc = measure_read(&c, n, 1, in, back);
    }
    if (rc == CUSPEC_OK) {
        rc = cuspec__cu_check(
            r->drv->cuMemHostAlloc(&host, mapped_n * sizeof(float), CU_MEMHOSTALLOC_DEVICEMAP),
            "cuMemHostAlloc (mapped)");
        CUdeviceptr global = c.in;
        if (rc == CUSPEC_OK) {
            cuspec__random_fill(host, mapped_n, CUSPEC_F32);
            rc = cuspec__cu_check(r->drv->cuMemHostGetDevicePointer(&c.in, host, 0),
                                  "cuMemHostGetDevicePointer");
        }
        c.space = MAPPED;
        if (rc == CUSPEC_OK)
            rc = measure_read(&c, mapped_n, 1, host, back);
        c.in = global;
    }
    cuspec__random_fill(constant, CUSPEC__LESSON_CONSTANT_FLOATS, CUSPEC_F32);
    for (int s = CONSTANT_UNIFORM; rc == CUSPEC_OK && s <= CONSTANT_DIVERGENT; s++) {
        c.space = s;
        c.loops = 4096;
        rc = measure(&c, 64, NULL, constant, back);
    }
    if (host != NULL)
        r->drv->cuMemFreeHost(host);
    cuspec__lesson_free(r, &c.in);
    cuspec__lesson_free(r, &c.out);
    free(in);
    free(back);
    if (rc == CUSPEC_OK)
        rc = cuspec__lesson_copy_rows(r, "", n * sizeof(float), 1);
    if (rc == CUSPEC_OK) {
        const cuspec_lesson_row *row = t->rows;
        snprintf(t->summary, sizeof t->summary,
                 "Registers deliver %.0fx the bandwidth of device memory here, shared memory "
                 "%.0fx and the L2 %.1fx; mapped host memory %.0fx less. Divergent constant "
                 "reads run %.0fx slower than uniform ones.",
                 row[REGISTERS].gbs / row[GLOBAL].gbs, row[SHARED].gbs / row[GLOBAL].gbs,
                 row[L2].gbs / row[GLOBAL].gbs, row[GLOBAL].gbs / row[MAPPED].gbs,
                 row[CONSTANT_UNIFORM].gbs / row[CONSTANT_DIVERGENT].gbs);
    }
    return rc;
}
