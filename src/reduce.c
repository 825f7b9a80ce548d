/* The reduce family (templates/reduce.cuh): sum, min, max, dot, argmin and
 * argmax, and the cuspec_reduce / cuspec_dot / cuspec_argreduce operations. */
#include "reduce.h"
#include "dtype_values.h"
#include "params.h"
#include "context.h"
#include "workspace.h"
#include "catalogue.h"
#include "error.h"
#include "driver.h"

#include <stdio.h>
#include <string.h>

enum { P_BLOCK, P_ITEMS, P_VEC, P_SINGLE, P_GRID, P_STAGE, P_CACHE };

/* From this many bytes read, a call without a record loads its input
 * through L1, the kernels' l1 (docs/experiments/reduce.md: "Load policy"). */
#define L1_FROM_BYTES (32ULL << 20)

/* The kernel's element type and what it accumulates in, per dtype: sums
 * and dots in `wide` (64 bits for integers, f32 for the 16-bit floats), the
 * others in `value`, the type the template computes the elements in. */
static const struct {
    const char *t, *wide, *value;
} kernel_types[] = {
    [CUSPEC_F32] = {"float", "float", "float"},
    [CUSPEC_F64] = {"double", "double", "double"},
    [CUSPEC_I32] = {"int", "long long", "int"},
    [CUSPEC_I64] = {"long long", "long long", "long long"},
    [CUSPEC_U32] = {"unsigned int", "unsigned long long", "unsigned int"},
    [CUSPEC_U64] = {"unsigned long long", "unsigned long long", "unsigned long long"},
    [CUSPEC_I8] = {"signed char", "long long", "int"},
    [CUSPEC_U8] = {"unsigned char", "unsigned long long", "unsigned int"},
    [CUSPEC_I16] = {"short", "long long", "int"},
    [CUSPEC_U16] = {"unsigned short", "unsigned long long", "unsigned int"},
    [CUSPEC_F16] = {"cuspec_f16", "float", "float"},
    [CUSPEC_BF16] = {"cuspec_bf16", "float", "float"},
};
#define N_KERNEL_TYPES (int)(sizeof kernel_types / sizeof *kernel_types)

/* Input and accumulator C types of the kernel for (dtype, op), and the
 * element size; 0 for a dtype the family does not take. */
static int types(int dtype, int op, const char **t, const char **acc)
{
    if (dtype <= 0 || dtype >= N_KERNEL_TYPES || kernel_types[dtype].t == NULL)
        return 0;
    int wide = op == CUSPEC__REDUCE_SUM || op == CUSPEC__REDUCE_DOT;
    *t = kernel_types[dtype].t;
    *acc = wide ? kernel_types[dtype].wide : kernel_types[dtype].value;
    return (int)cuspec_dtype_size(dtype);
}

int cuspec__reduce_op(int op)
{
    switch (op) {
    case -1:
        return CUSPEC__REDUCE_DOT;
    case CUSPEC_SUM:
    case CUSPEC_MIN:
    case CUSPEC_MAX:
        return op;
    case CUSPEC_ARGMIN:
        return CUSPEC__REDUCE_ARGMIN;
    case CUSPEC_ARGMAX:
        return CUSPEC__REDUCE_ARGMAX;
    }
    return -1;
}

int cuspec__reduce_public_op(int op)
{
    return op == CUSPEC__REDUCE_DOT      ? -1
           : op == CUSPEC__REDUCE_ARGMIN ? CUSPEC_ARGMIN
           : op == CUSPEC__REDUCE_ARGMAX ? CUSPEC_ARGMAX
                                         : op;
}

/* The result's dtype for kernel op `op` on dtype (argmin/argmax: the
 * value's), or 0: sums and dots of integers are 64-bit of their signedness,
 * of 16-bit floats f32. */
static int out_dtype(int op, int dtype)
{
    const char *t, *acc;
    if (op < 0 || types(dtype, op, &t, &acc) == 0)
        return 0;
    if (op != CUSPEC__REDUCE_SUM && op != CUSPEC__REDUCE_DOT)
        return dtype;
    return cuspec__sum_dtype(dtype);
}

int cuspec_reduce_out_dtype(int op, int dtype)
{
    return out_dtype(cuspec__reduce_op(op), dtype);
}

const char *cuspec_op_name(int op)
{
    static const char *const names[] = {"sum", "min", "max", "argmin", "argmax"};
    return op >= 0 && op < (int)(sizeof names / sizeof *names) ? names[op] : NULL;
}

/* Stage 1 is the second pass of two-launch variants: one canonical form per
 * (dtype, op, block), so it is compiled once. GRID (blocks per SM, 0 = as
 * many as fit) and CACHE (1: the input's loads through L1, 0: streamed
 * past it) are launch parameters that do not change the code.
 * argmin and argmax are one launch only. */
static int legal(const struct cuspec__variant *v)
{
    const char *t, *acc;
    int size = types(v->dtype, v->op, &t, &acc);
    if (size == 0 || v->op < 0 || v->op >= CUSPEC__REDUCE_N_OPS)
        return 0;
    if (cuspec__reduce_is_arg(v->op) && (v->p[P_SINGLE] != 1 || v->p[P_STAGE] != 0))
        return 0;
    if (v->p[P_STAGE] == 1)
        return v->p[P_ITEMS] == 1 && v->p[P_VEC] == 1 && v->p[P_SINGLE] == 0 && v->p[P_GRID] == 0 &&
               v->p[P_CACHE] == 0;
    return v->p[P_VEC] * size <= 16;
}

static void expr(const struct cuspec__variant *v, char *buf, size_t size)
{
    const char *t = "?", *acc = "?";
    types(v->dtype, v->op, &t, &acc);
    if (cuspec__reduce_is_arg(v->op))
        snprintf(buf, size, "cuspec_argreduce<%s, %d, %d, %d, %d>", t, v->op, v->p[P_BLOCK],
                 v->p[P_ITEMS], v->p[P_VEC]);
    else if (v->p[P_STAGE] == 1)
        snprintf(buf, size, "cuspec_reduce_final<%s, %s, %d, %d>", t, acc, v->op, v->p[P_BLOCK]);
    else
        snprintf(buf, size, "cuspec_reduce<%s, %s, %d, %d, %d, %d, %d>", t, acc, v->op,
                 v->p[P_BLOCK], v->p[P_ITEMS], v->p[P_VEC], v->p[P_SINGLE]);
}

static int threads(const struct cuspec__variant *v)
{
    return v->p[P_BLOCK];
}

static void defaults(int arch, struct cuspec__variant *v)
{
    const char *t, *acc;
    int size = types(v->dtype, v->op, &t, &acc);
    (void)arch;
    v->p[P_BLOCK] = 256;
    v->p[P_ITEMS] = 4;
    v->p[P_VEC] = size ? 16 / size : 1;
    v->p[P_SINGLE] = 1;
    /* 4 blocks of 256 per SM keep ~64 KB of loads in flight: the roofline
     * (docs/experiments/reduce.md: "Loads in flight") */
    v->p[P_GRID] = 4;
    v->p[P_STAGE] = 0;
    v->p[P_CACHE] = 0;
}

/* What a row of the shapes below applies to: the kind of op (a bit each)
 * and the element sizes (bit `size`). */
enum {
    FSUM = 1 << 0, /* sums of floats */
    FDOT = 1 << 1, /* dots of floats */
    ISUM = 1 << 2, /* sums of integers */
    IDOT = 1 << 3, /* dots of integers */
    EXT = 1 << 4,  /* min and max */
    ARG = 1 << 5,  /* argmin and argmax */
    ALL = (1 << 6) - 1
};
#define B1 (1u << 1)
#define B2 (1u << 2)
#define B4 (1u << 4)
#define B8 (1u << 8)
#define ANY (B1 | B2 | B4 | B8)

/* The shapes of calls without a record, by the bytes of one input (from,
 * to], the op and the element size: the first row that holds a call gives
 * its shape; a call no row holds takes the defaults (256 x 4 x 16 bytes, 4
 * blocks an SM). Blocks as many as fit are grid 0; `two`: a second launch
 * combines the blocks' partials (sums and dots only); `l1`: the loads go
 * through L1 (fit() also sends them there from L1_FROM_BYTES read, half of
 * it for dots). An empty call (n = 0) takes the first row of its kind. Each
 * row's `to` is a power of two (or all sizes from `from`: ~0), or
 * an element short of one where a row from that one size follows (the
 * record's bucket, src/reduce_ops.c, and classes() below rely on it; fit()'s
 * switch to loads through L1 splits a row there too, so a row that ends at
 * L1_FROM_BYTES, half of it for dots, must also hold half that size), and
 * vec_bytes a multiple of every size it is for.
 * Measured: docs/experiments/reduce.md, "Defaults by size" and after. */
#define KB(x) ((unsigned long long)(x) << 10)
#define MB(x) ((unsigned long long)(x) << 20)
static const struct shape {
    unsigned long long from, to;
    unsigned kinds, sizes;
    short block, items, vec_bytes, grid, two, l1;
} shapes[] = {
    /* up to 1024 elements of 4 and 8 bytes: one block, an element a thread */
    {0, KB(4), ALL, B4, 1024, 1, 4, 4, 0},
    {0, KB(8), ALL, B8, 1024, 1, 8, 4, 0},
    /* dots of exactly 16 KB of 2- and 4-byte integers (docs/experiments/
     * reduce.md: "A row for dots of exactly 16 KB") */
    {KB(16) - 1, KB(16), IDOT, B2 | B4, 512, 4, 16, 2, 0},
    /* the defaults (this row also holds the empty calls of 1 and 2 bytes) */
    {0, KB(16), ALL, ANY, 256, 4, 16, 4, 0},
    /* f64 sums: one block of 1024 x 8 x 8 B */
    {KB(16), KB(32), FSUM, B8, 1024, 8, 8, 2, 0},
    /* one block of 512 x 4 x 16 B */
    {KB(16), KB(32), ALL, ANY, 512, 4, 16, 2, 0},
    /* one block of 1024 x 4 x 16 B: sums of f32, f64, 8-bit integers */
    {KB(32), KB(64), FSUM, B4 | B8, 1024, 4, 16, 4, 0},
    {KB(32), KB(64), ISUM, B1, 1024, 4, 16, 4, 0},
    /* small float sums and dots in two launches (docs/experiments/
     * reduce.md: "Small sums and dots refit") */
    {KB(32), KB(64), FDOT, B4, 128, 1, 4, 2, 1},
    {KB(64), KB(256) - 1, FSUM, B8, 128, 1, 16, 1, 1},
    {KB(64), KB(256) - 1, FDOT, B8, 128, 1, 8, 0, 1},
    {KB(128), KB(256), FSUM, B4, 128, 2, 8, 1, 1},
    {KB(128), KB(256), FDOT, B4, 128, 1, 4, 0, 1},
    {KB(256), KB(512), FDOT, B8, 512, 1, 8, 0, 1},
    /* f32 dots (512 KB, 1 MB]: 256 x 2 x 4 B in two launches, 4 blocks an
     * SM, through L1 (docs/experiments/reduce.md: "Loads through L1 from 1
     * MB, by row") */
    {KB(512), MB(1), FDOT, B4, 256, 2, 4, 4, 1, 1},
    /* float sums and dots: two launches of small blocks, as many as fit,
     * from 256 KB itself for elements of other than 4 bytes (f64 dots: 256
     * KB itself, then from 512 KB) */
    {KB(256), MB(1), FSUM | FDOT, B4, 128, 4, 16, 0, 1},
    {KB(256) - 1, MB(1), FSUM | FDOT, B8, 128, 4, 8, 0, 1},
    {KB(256) - 1, MB(1), FSUM | FDOT, B2, 128, 4, 8, 0, 1},
    {MB(1), MB(4), FSUM | FDOT, B2, 256, 1, 16, 0, 1},
    /* min, max, argmin and argmax: small blocks, spread over the SMs */
    {KB(32), KB(64), ARG, B4, 256, 1, 4, 1, 0},
    {KB(32), KB(64), EXT, B4, 128, 2, 4, 0, 0},
    {KB(64), KB(128), EXT, B8, 128, 1, 8, 4, 0},
    /* a small read spread over the SMs: one load a thread */
    {KB(32), KB(256), ALL, B4, 512, 1, 4, 0, 0},
    {KB(32), KB(256), ALL, B1 | B2 | B8, 512, 1, 8, 0, 0},
    /* min, max and integer sums of 4 bytes: 512 x 1 x 16 B, 2 blocks an SM
     * (docs/experiments/reduce.md: "Min, max and integer sums of 4 bytes
     * refit") */
    {KB(256), MB(1), EXT | ISUM, B4, 512, 1, 16, 2, 0},
    /* one block an SM: integer dots of 4 bytes 512 x 2 x 4 B */
    {KB(256), MB(1), IDOT, B4, 512, 2, 4, 1, 0},
    {KB(256), MB(1), ALL, ANY, 512, 1, 8, 1, 0},
    /* min and max of 8 bytes: 512 x 2 x 8 B, one block an SM */
    {MB(1), MB(2), EXT, B8, 512, 2, 8, 1, 0},
    /* sums and dots of f32 and f64 from 1 MB (f32 sums and dots to 4 MB,
     * f64 sums to 4 MB, f64 dots to 16 MB): two launches, of small blocks
     * but f64 dots' from 2 MB (1024, then 512 threads) (docs/experiments/
     * reduce.md: "Defaults after the first tile asked of the L2"); through
     * L1 for f32 dots to 2 MB, sums from 2 to 4 MB, f64 dots from 1 MB
     * ("Loads through L1 from 1 MB, by row") */
    {MB(1), MB(2), FSUM, B4, 128, 4, 8, 4, 1},
    {MB(1), MB(2), FDOT, B4, 256, 2, 8, 0, 1, 1},
    {MB(1), MB(2), FSUM, B8, 256, 4, 8, 2, 1},
    {MB(1), MB(2), FDOT, B8, 256, 2, 8, 4, 1, 1},
    {MB(2), MB(4), FSUM, B4, 128, 4, 16, 4, 1, 1},
    {MB(2), MB(4), FDOT, B4, 128, 2, 16, 4, 1},
    {MB(2), MB(4), FSUM, B8, 128, 4, 16, 4, 1, 1},
    {MB(4), MB(16), FDOT, B8, 512, 2, 8, 2, 1, 1},
    /* sums of f32 and f64 from 4 MB in one launch: f64 to 8 MB 256 x 8 x
     * 16 B, as many as fit, then the wide shape */
    {MB(4), MB(8), FSUM, B8, 256, 8, 16, 0, 0},
    {MB(4), MB(32), FSUM, B4 | B8, 512, 4, 16, 2, 0},
    /* from 2 MB, the other float sums and dots in two launches by element
     * size; min, max and integer sums of 4 bytes to 4 MB 1024 x 2 x 16
     * B, and integer sums from there 512 x 2 x 16 B, 2 blocks an SM each */
    {MB(4), MB(32), FSUM | FDOT, B2, 512, 1, 16, 0, 1},
    {MB(2), MB(4), FDOT, B8, 1024, 1, 8, 0, 1, 1},
    {MB(16), MB(32), FDOT, B8, 1024, 2, 8, 0, 1},
    {MB(2), MB(4), EXT | ISUM, B4, 1024, 2, 16, 2, 0},
    {MB(4), MB(32), ISUM, B4, 512, 2, 16, 2, 0},
    /* the wide shape; f32 dots in two launches */
    {MB(4), MB(32), FDOT, B4, 512, 4, 16, 2, 1},
    {MB(2), MB(32), ALL, ANY, 512, 4, 16, 2, 0},
    /* argmin and argmax of one byte from 32 MB: the same ("i8/u8 argmin
     * and argmax in two scans") */
    {MB(32), ~0ULL, ARG, B1, 512, 4, 16, 2, 0},
};

/* The defaults fitted to a call on s: the shape of its row (above), and its
 * loads through L1 where the row says or when it reads at least
 * L1_FROM_BYTES (half of it for dots). */
static void fit(struct cuspec__variant *v, const struct cuspec__spec *s)
{
    const unsigned size = (unsigned)cuspec_dtype_size(s->dtype);
    const unsigned long long in = s->n > ~0ULL / size ? ~0ULL : s->n * size;
    const int dot = s->op == CUSPEC__REDUCE_DOT;
    const unsigned kind = cuspec__reduce_is_arg(s->op)                       ? ARG
                          : s->op != CUSPEC__REDUCE_SUM && !dot              ? EXT
                          : cuspec__dtype_is_float(s->dtype) ? (dot ? FDOT : FSUM)
                          : dot                                              ? IDOT
                                                                             : ISUM;
    int l1 = 0;
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
        const struct shape *r = &shapes[i];
        if ((r->kinds & kind) && (r->sizes & 1u << size) && (in > r->from || in == 0) &&
            in <= r->to) {
            v->p[P_BLOCK] = r->block;
            v->p[P_ITEMS] = r->items;
            v->p[P_VEC] = r->vec_bytes / (int)size;
            v->p[P_GRID] = r->grid;
            v->p[P_SINGLE] = !r->two;
            l1 = r->l1;
            break;
        }
    }
    v->p[P_CACHE] = l1 || in >= L1_FROM_BYTES / (dot ? 2 : 1);
}

/* A call at every power of two of bytes from 16 KB to twice L1_FROM_BYTES
 * and one an element short of each, then one of 1024 elements, the
 * smallest last (a fallback takes the classes in this order): every row of
 * shapes above 1024 elements ends at a power of two, or an element short
 * of one where a row from that one size follows, so a call lands in each,
 * and a row added needs no size of its own. */
static int classes(int dtype, int op, int (*fn)(const struct cuspec__spec *s, void *user),
                   void *user)
{
    struct cuspec__spec s = {.family = CUSPEC__FAM_REDUCE, .op = op, .dtype = dtype};
    int rc = 0;
    for (unsigned long long bytes = KB(16); rc == 0 && bytes <= 2 * L1_FROM_BYTES; bytes *= 2) {
        s.n = bytes / cuspec_dtype_size(dtype) - 1;
        rc = fn(&s, user);
        s.n++;
        if (rc == 0)
            rc = fn(&s, user);
    }
    s.n = 1024;
    return rc != 0 ? rc : fn(&s, user);
}

/* The final pass of two launches: one block, the first pass's block size. */
static int helper(const struct cuspec__variant *v, struct cuspec__variant *h)
{
    if (v->p[P_SINGLE])
        return 0;
    *h = *v;
    h->p[P_ITEMS] = h->p[P_VEC] = 1;
    h->p[P_SINGLE] = h->p[P_GRID] = h->p[P_CACHE] = 0;
    h->p[P_STAGE] = 1;
    return 1;
}

const struct cuspec__family cuspec__family_reduce = {
    .name = "reduce",
    .template_file = "reduce.cuh",
    .waits_for_prior_grid = 1,
    .n_params = 7,
    .params =
        {
            [P_BLOCK] = {"block", 4, {128, 256, 512, 1024}},
            [P_ITEMS] = {"items", 4, {1, 2, 4, 8}},
            [P_VEC] = {"vec", 5, {1, 2, 4, 8, 16}},
            [P_SINGLE] = {"single", 2, {0, 1}},
            [P_GRID] = {"grid", 4, {0, 1, 2, 4}, 1},
            [P_STAGE] = {"stage", 2, {0, 1}, 0, 1},
            [P_CACHE] = {"cache", 2, {0, 1}, 1},
        },
    .n_dtypes = 12,
    .dtypes = {CUSPEC_F32, CUSPEC_F64, CUSPEC_I32, CUSPEC_I64, CUSPEC_U32, CUSPEC_U64, CUSPEC_I8,
               CUSPEC_U8, CUSPEC_I16, CUSPEC_U16, CUSPEC_F16, CUSPEC_BF16},
    .n_ops = CUSPEC__REDUCE_N_OPS,
    .legal = legal,
    .expr = expr,
    .threads = threads,
    .defaults = defaults,
    .fit = fit,
    .classes = classes,
    .helper = helper,
    .ops = &cuspec__reduce_ops,
};

int cuspec__reduce_same_choice(const struct cuspec__spec *s, unsigned long long n)
{
    struct cuspec__spec t = *s;
    struct cuspec__variant a, b;
    t.n = n;
    cuspec__variant_choose(s, 0, &a); /* the reductions' defaults take no arch */
    cuspec__variant_choose(&t, 0, &b);
    return memcmp(&a, &b, sizeof a) == 0;
}

int cuspec__reduce_params(cuspec_ctx *ctx, const struct cuspec__spec *s, struct cuspec__variant *v)
{
    int from_record = cuspec__tuned_params(ctx, s, v);
    if (!from_record)
        fit(v, s);
    return from_record;
}

/* The kernels of *v and of its second pass. For a call on s (not NULL),
 * where either is unavailable, *v falls back once, to a kernel whose second
 * pass (if any) is available too (cuspec__fallback_next). */
static int kernels(cuspec_ctx *ctx, CUstream stream, const struct cuspec__spec *s,
                   struct cuspec__variant *v, struct cuspec__variant *fin, struct cuspec__kernel *k,
                   struct cuspec__kernel *fk)
{
    int rc = s != NULL ? cuspec__function_for(ctx, stream, s, v, k)
                       : cuspec__function(ctx, stream, v, k);
    if (rc != CUSPEC_OK || !helper(v, fin))
        return rc;
    rc = cuspec__helper_function(ctx, stream, fin, fk);
    if (rc == CUSPEC_OK || s == NULL || !cuspec__unavailable(rc))
        return rc;
    struct cuspec__variant wanted = *v;
    rc = cuspec__fall_back(ctx, stream, s, &wanted, rc, v, k);
    if (rc == CUSPEC_OK && helper(v, fin))
        rc = cuspec__helper_function(ctx, stream, fin, fk);
    return rc;
}

/* Runs *v, or for a call on s what it falls back to. argmin and argmax
 * write their value at out (when not 0) and their index at `index` (when
 * not 0). */
static int launch(cuspec_ctx *ctx, struct cuspec__variant *v, const struct cuspec__spec *spec,
                  cuspec_devptr a, cuspec_devptr b, size_t n, cuspec_devptr out,
                  cuspec_devptr index, CUstream stream, const struct cuspec__scratch *held)
{
    struct cuspec__kernel k, fk;
    struct cuspec__variant fin;
    CUSPEC__RETURN_IF(v->p[P_STAGE] != 0, CUSPEC_ERR_INVALID,
                      "a reduction's final pass runs only after its first (stage=0)");
    int rc = kernels(ctx, stream, spec, v, &fin, &k, &fk);
    if (rc != CUSPEC_OK)
        return rc;

    /* argmin/argmax partials are a value and an index: two 8-byte slots. */
    int arg = cuspec__reduce_is_arg(v->op);
    unsigned long long per_block = (unsigned long long)v->p[P_BLOCK] * v->p[P_ITEMS] * v->p[P_VEC];
    unsigned long long need = n / per_block + (n % per_block != 0);
    int bps = v->p[P_GRID] && v->p[P_GRID] < k.blocks_per_sm ? v->p[P_GRID] : k.blocks_per_sm;
    unsigned long long grid = (unsigned long long)bps * ctx->info.sm_count;
    if (grid > need)
        grid = need;
    if (grid > CUSPEC__WS_PARTIALS / (arg ? 2 : 1))
        grid = CUSPEC__WS_PARTIALS / (arg ? 2 : 1);
    if (grid == 0)
        grid = 1;

    /* One block of a single-pass kernel writes the result itself: no scratch. */
    struct cuspec__scratch s = {0};
    int own = held == NULL && !(v->p[P_SINGLE] && grid == 1);
    if (own)
        rc = cuspec__scratch_take(ctx, stream, (unsigned)grid * (arg ? 2 : 1),
                                  v->p[P_SINGLE] ? CUSPEC__WS_WHOLE_TICKETS : 0, &s);
    else if (held != NULL)
        s = *held;
    if (rc != CUSPEC_OK)
        return rc;

    unsigned long long count = n;
    CUdeviceptr partials = s.partials, ticket = s.ticket;
    unsigned int l1 = (unsigned int)v->p[P_CACHE];
    void *args[] = {&a, &b, &count, &out, &partials, &ticket, &l1};
    void *arg_args[] = {&a, &count, &out, &index, &partials, &ticket, &l1};
    const unsigned dims[3] = {(unsigned)grid, 1, 1}, one[3] = {1, 1, 1};
    rc =
        cuspec__launch(ctx, &k, v, dims, (unsigned)v->p[P_BLOCK], 1, stream, arg ? arg_args : args);
    if (rc == CUSPEC_OK && !v->p[P_SINGLE]) {
        unsigned int parts = (unsigned int)grid;
        void *fargs[] = {&partials, &parts, &out};
        rc = cuspec__launch(ctx, &fk, &fin, one, (unsigned)fin.p[P_BLOCK], 1, stream, fargs);
    }
    if (own) {
        int given = cuspec__scratch_give(ctx, stream, &s);
        rc = rc != CUSPEC_OK ? rc : given;
    }
    return rc;
}

int cuspec__reduce_variant_on(cuspec_ctx *ctx, const struct cuspec__variant *v, cuspec_devptr a,
                              cuspec_devptr b, size_t n, cuspec_devptr out, CUstream stream,
                              const struct cuspec__scratch *held)
{
    struct cuspec__variant use = *v;
    cuspec_devptr index = cuspec__reduce_is_arg(v->op) ? out + 8 : 0;
    return launch(ctx, &use, NULL, a, b, n, out, index, stream, held);
}

int cuspec__reduce_variant(cuspec_ctx *ctx, const struct cuspec__variant *v, cuspec_devptr a,
                           cuspec_devptr b, size_t n, cuspec_devptr out, CUstream stream)
{
    return cuspec__reduce_variant_on(ctx, v, a, b, n, out, stream, NULL);
}

/* The public calls, their arguments checked: kernel op `op` on dtype;
 * argmin/argmax write `out` (the value) and `index` where not 0. */
static int run(cuspec_ctx *ctx, const char *what, int op, int dtype, cuspec_devptr a,
               cuspec_devptr b, size_t n, cuspec_devptr out, cuspec_devptr index, void *stream)
{
    int result = out_dtype(op, dtype);
    CUSPEC__RETURN_IF(result == 0, CUSPEC_ERR_INVALID, "%s: dtype %d (%s) is not supported", what,
                      dtype, cuspec_dtype_name(dtype) ? cuspec_dtype_name(dtype) : "unknown");
    CUSPEC__RETURN_IF(ctx == NULL, CUSPEC_ERR_INVALID, "%s: ctx is NULL", what);
    int pushed, rc = cuspec__ctx_enter(ctx, &pushed);
    if (rc != CUSPEC_OK)
        return rc;
    size_t size = cuspec_dtype_size(dtype);
    int arg = cuspec__reduce_is_arg(op);
    if (!arg || out != 0)
        rc = cuspec__check_pointer(ctx, out, cuspec_dtype_size(result), arg ? "value" : "out");
    if (rc == CUSPEC_OK && arg && index != 0)
        rc = cuspec__check_pointer(ctx, index, 8, "index");
    if (rc == CUSPEC_OK && n > 0)
        rc = cuspec__check_pointer(ctx, a, size, op == CUSPEC__REDUCE_DOT ? "a" : "in");
    if (rc == CUSPEC_OK && n > 0 && op == CUSPEC__REDUCE_DOT)
        rc = cuspec__check_pointer(ctx, b, size, "b");
    if (rc == CUSPEC_OK) {
        struct cuspec__variant v = {0};
        struct cuspec__spec spec = {.family = CUSPEC__FAM_REDUCE, .op = op, .dtype = dtype, .n = n};
        cuspec__reduce_params(ctx, &spec, &v);
        rc = launch(ctx, &v, &spec, a, op == CUSPEC__REDUCE_DOT ? b : 0, n, out, index,
                    (CUstream)stream, NULL);
    } else {
        rc = cuspec__fail_context(rc, "%s", what);
    }
    cuspec__ctx_leave(ctx, pushed);
    return rc;
}

int cuspec_reduce(cuspec_ctx *ctx, int op, int dtype, cuspec_devptr in, size_t n, cuspec_devptr out,
                  void *stream)
{
    /* Dot is an op of the kernel, not of this call (it takes two inputs);
     * argmin and argmax write two results. */
    CUSPEC__RETURN_IF(op == CUSPEC_ARGMIN || op == CUSPEC_ARGMAX, CUSPEC_ERR_INVALID,
                      "cuspec_reduce: op %d (%s) gives a value and an index: call "
                      "cuspec_argreduce",
                      op, cuspec_op_name(op));
    CUSPEC__RETURN_IF(cuspec_op_name(op) == NULL, CUSPEC_ERR_INVALID,
                      "cuspec_reduce: unknown op %d (CUSPEC_SUM, CUSPEC_MIN or CUSPEC_MAX)", op);
    return run(ctx, "cuspec_reduce", op, dtype, in, 0, n, out, 0, stream);
}

int cuspec_dot(cuspec_ctx *ctx, int dtype, cuspec_devptr a, cuspec_devptr b, size_t n,
               cuspec_devptr out, void *stream)
{
    return run(ctx, "cuspec_dot", CUSPEC__REDUCE_DOT, dtype, a, b, n, out, 0, stream);
}

int cuspec_argreduce(cuspec_ctx *ctx, int op, int dtype, cuspec_devptr in, size_t n,
                     cuspec_devptr value, cuspec_devptr index, void *stream)
{
    CUSPEC__RETURN_IF(op != CUSPEC_ARGMIN && op != CUSPEC_ARGMAX, CUSPEC_ERR_INVALID,
                      "cuspec_argreduce: op %d is neither CUSPEC_ARGMIN (3) nor CUSPEC_ARGMAX (4)",
                      op);
    CUSPEC__RETURN_IF(value == 0 && index == 0, CUSPEC_ERR_INVALID,
                      "cuspec_argreduce: value and index are both 0: nothing to write");
    CUSPEC__RETURN_IF(n == 0, CUSPEC_ERR_INVALID,
                      "cuspec_argreduce: n is 0: an empty array has no %s (no index to give)",
                      cuspec_op_name(op));
    return run(ctx, "cuspec_argreduce", cuspec__reduce_op(op), dtype, in, 0, n, value, index,
               stream);
}
