/* cuspec_reduce_rows/_cols and cuspec_dot_rows/_cols: the arguments
 * checked, the parameters chosen, the launch geometry (how many blocks,
 * and where the results are too few to fill the device, how many blocks
 * share each result), the scratch of split reductions. */
#include "reduce_axis.h"
#include "catalogue.h"
#include "context.h"
#include "error.h"
#include "params.h"
#include "workspace.h"

#include <stdint.h>

static unsigned long long ceil_div(unsigned long long a, unsigned long long b)
{
    return a / b + (a % b != 0);
}

static unsigned long long min_ull(unsigned long long a, unsigned long long b)
{
    return a < b ? a : b;
}

static int log2_of(unsigned x)
{
    int l = 0;
    while ((1u << l) < x)
        l++;
    return l;
}

/* Blocks of k that fill the device once: v's GRID per multiprocessor, or
 * as many as fit. */
static unsigned long long wave(cuspec_ctx *ctx, const struct cuspec__variant *v,
                               const struct cuspec__kernel *k)
{
    int bps = v->p[P_GRID] && v->p[P_GRID] < k->blocks_per_sm ? v->p[P_GRID] : k->blocks_per_sm;
    return (unsigned long long)bps * (unsigned)ctx->info.sm_count;
}

/* The launch of one call: grid, splits (blocks per result), and the
 * template's lanes_log2 / tx_log2. */
struct geometry {
    unsigned grid[3];
    unsigned splits;
    int lanes_log2;
    unsigned long long pieces; /* columns: launches over the batch */
    size_t scratch_bytes;
};

/* Rows: short rows (at most a group's vectors) ITEMS at a time, long ones a
 * group each; where the rows leave groups idle, each row is split over as
 * many blocks as fill the device, each at least one tile of vectors, as the
 * scratch allows. rows_block: a block a row, never split. rows_split: a
 * block a row's chunk, split the same way; chunks of SPLIT_TILES tiles or
 * more in whole tiles, but dots' (docs/experiments/reduce_axis.md: "Few
 * long rows in a kernel of their own"); its argmin/argmax a row a whole
 * array, the same splits along x ("Few long rows' argmin/argmax as whole
 * arrays"). */
#define SPLIT_TILES 8
/* Results split over blocks at most: as many as the scratch's tickets hold
 * at CUSPEC__WS_WHOLE_TICKETS a result (rows_split's argmin/argmax take that
 * many, a ticket and a word; other splits one). */
#define SPLIT_RESULTS (CUSPEC__WS_TICKETS / CUSPEC__WS_WHOLE_TICKETS)

static void rows_geometry(cuspec_ctx *ctx, const struct cuspec__variant *v,
                          const struct cuspec__kernel *k, const struct cuspec__axis_call *c,
                          struct geometry *g)
{
    const unsigned block = (unsigned)v->p[P_BLOCK];
    const unsigned lanes = v->p[P_LANES] ? (unsigned)v->p[P_LANES] : block;
    const unsigned long long per_block = block / lanes, total = c->rows * c->batch;
    const unsigned long long vec = (unsigned)v->p[P_VEC], items = (unsigned)v->p[P_ITEMS];
    const unsigned long long blocks = wave(ctx, v, k);
    g->lanes_log2 = v->p[P_LANES] ? log2_of(lanes) : -1;
    g->splits = 1;
    g->pieces = 1;
    g->scratch_bytes = 0;
    g->grid[1] = g->grid[2] = 1;
    if (v->p[P_ROWBLOCK] == 1) { /* a block a row, grid-stride past the grid's limit */
        g->grid[0] = (unsigned)min_ull(total ? total : 1, 0x7fffffff);
        return;
    }
    const int split_kernel = v->p[P_ROWBLOCK] == 2;
    int is_short = !split_kernel && c->cols <= lanes * vec;
    if (!is_short && total < blocks * per_block && total <= SPLIT_RESULTS) {
        unsigned long long s = blocks * per_block / total;
        s = min_ull(s, ceil_div(c->cols, lanes * vec * items));
        s = min_ull(s, CUSPEC__WS_BYTES / (cuspec__axis_partial_bytes(c->kop) * total));
        s = min_ull(s, 65535);
        g->splits = s > 1 ? (unsigned)s : 1;
    }
    if (split_kernel && cuspec__axis_is_arg(c->kop)) {
        /* argmin/argmax: each row a whole-array argreduce (templates/
         * reduce.cuh) over its splits along x, the rows along y (and z past
         * 65535), loads streamed */
        g->grid[0] = g->splits;
        g->grid[1] = (unsigned)min_ull(total, 65535);
        g->grid[2] = (unsigned)ceil_div(total, 65535);
        g->lanes_log2 = 0;
        g->scratch_bytes = total * g->splits * cuspec__axis_partial_bytes(c->kop);
        return;
    }
    if (split_kernel) { /* its lanes_log2 is the chunk's grain */
        const unsigned long long tile = lanes * vec * items, tiles = ceil_div(c->cols, tile);
        const unsigned long long per = ceil_div(tiles, g->splits);
        int whole = g->splits > 1 && c->kop != CUSPEC__AXIS_DOT && per >= SPLIT_TILES;
        g->lanes_log2 = log2_of((unsigned)(whole ? tile : vec));
        if (whole)
            g->splits = (unsigned)ceil_div(tiles, per);
    }
    if (g->splits > 1 || split_kernel) {
        g->grid[0] = (unsigned)ceil_div(total, per_block);
        g->scratch_bytes = total * g->splits * cuspec__axis_partial_bytes(c->kop);
    } else {
        unsigned long long need = ceil_div(total, per_block * (is_short ? items : 1));
        g->grid[0] = (unsigned)min_ull(need ? need : 1, blocks);
    }
    g->grid[1] = g->splits;
}

/* argmin/argmax count a thread's rows in 32 bits (reduce_axis.cuh,
 * column_strip): at most 2^31 rows a thread, so the count stays under 2^31.
 * Only a matrix of 2^36 or more elements could take more (2^31 rows per row
 * of threads); its few columns make the extra splits' partials a few bytes. */
unsigned cuspec__axis_arg_splits(unsigned long long rows, unsigned thread_rows, unsigned splits)
{
    unsigned long long least = rows / ((unsigned long long)thread_rows << 31) + 1;
    return least > splits ? (unsigned)min_ull(least, 65535) : splits;
}

/* Columns: a block per strip of TX * VEC columns (and matrix: up to 65535
 * per launch); where the strips leave the device idle, each strip's rows
 * are split over as many blocks as fill it, as the scratch allows. */
static void cols_geometry(cuspec_ctx *ctx, const struct cuspec__variant *v,
                          const struct cuspec__kernel *k, const struct cuspec__axis_call *c,
                          struct geometry *g)
{
    const unsigned block = (unsigned)v->p[P_BLOCK], tx = (unsigned)v->p[P_LANES];
    const unsigned long long vec = (unsigned)v->p[P_VEC], items = (unsigned)v->p[P_ITEMS];
    const unsigned long long tiles = ceil_div(c->cols, tx * vec), batch = min_ull(c->batch, 65535);
    const unsigned long long blocks = wave(ctx, v, k);
    g->lanes_log2 = log2_of(tx);
    g->splits = 1;
    g->pieces = ceil_div(c->batch, 65535);
    g->scratch_bytes = 0;
    if (tiles * batch < blocks && tiles * batch <= SPLIT_RESULTS) {
        unsigned long long s = blocks / (tiles * batch);
        s = min_ull(s, c->rows / (block / tx * items));
        s = min_ull(s, CUSPEC__WS_BYTES / (cuspec__axis_partial_bytes(c->kop) * batch * c->cols));
        s = min_ull(s, 65535);
        g->splits = s > 1 ? (unsigned)s : 1;
    }
    if (cuspec__axis_is_arg(c->kop))
        g->splits = cuspec__axis_arg_splits(c->rows, block / tx, g->splits);
    if (g->splits > 1)
        g->scratch_bytes = batch * g->splits * c->cols * cuspec__axis_partial_bytes(c->kop);
    g->grid[0] = (unsigned)tiles;
    g->grid[1] = g->splits;
    g->grid[2] = (unsigned)batch;
}

/* The flat kernels: a wave of the blocks a multiprocessor that the kernel
 * is held to (cols_flat: its family's held_per_sm, by the dynamic shared
 * memory its launch gives it); cols_flat's tx_log2 the vectors a row (a
 * ticket and a word a column), rows_flat's lanes_log2 its lanes a row (a
 * group of 4 vectors each). The rows of a batch are end to end. */
static void flat_geometry(cuspec_ctx *ctx, const struct cuspec__variant *v,
                          const struct cuspec__kernel *k, const struct cuspec__axis_call *c,
                          struct geometry *g)
{
    const unsigned block = (unsigned)v->p[P_BLOCK];
    const unsigned long long vectors = c->cols / (unsigned)v->p[P_VEC];
    /* no more blocks than tiles (any grid is right: this only spares idle ones) */
    const unsigned long long tile = block * (unsigned long long)v->p[P_ITEMS];
    const unsigned long long tiles = ceil_div(c->rows * c->batch * vectors, tile);
    g->grid[0] = (unsigned)min_ull(wave(ctx, v, k), tiles);
    g->grid[1] = g->grid[2] = 1;
    g->lanes_log2 =
        log2_of((unsigned)(c->rows_axis ? vectors / CUSPEC__AXIS_ROWS_FLAT_GROUP : vectors));
    g->splits = 1;
    g->pieces = 1;
    g->scratch_bytes = 0;
}

int cuspec__axis_run(cuspec_ctx *ctx, struct cuspec__variant *v, const struct cuspec__spec *spec,
                     const struct cuspec__axis_call *c, CUstream stream,
                     const struct cuspec__scratch *held)
{
    /* A variant handed in (the tuner's, a benchmark's, a test's) is checked:
     * tx wider than the block would leave the kernel no rows of threads, and
     * rows_block takes no lanes or grid. A call's own (spec) come from
     * records, which are checked when read, and from cuspec__axis_fit. */
    if (spec == NULL && !cuspec__variant_legal(v)) {
        char name[256], params[256];
        cuspec__variant_name(v, name, sizeof name);
        cuspec__params_text(v, params, sizeof params);
        return cuspec__fail(CUSPEC_ERR_INVALID, "%s with %s: not a legal variant", name, params);
    }
    /* ... and of the call's axis, dtype and op: another's would read the
     * input as its own */
    if (spec == NULL &&
        (v->family != (c->rows_axis ? CUSPEC__FAM_REDUCE_ROWS : CUSPEC__FAM_REDUCE_COLS) ||
         v->dtype != c->dtype || v->op != c->kop)) {
        char name[256];
        cuspec__variant_name(v, name, sizeof name);
        const char *dname = cuspec_dtype_name(c->dtype);
        return cuspec__fail(CUSPEC_ERR_INVALID,
                            "%s for a call along %s of dtype %s, op %d: not its kernel", name,
                            c->rows_axis ? "rows" : "columns", dname ? dname : "?", c->kop);
    }
    /* rows_split: a block (a column of blocks; argmin/argmax a row of them) a
     * row, no grid-stride over rows */
    if (c->rows_axis && v->p[P_ROWBLOCK] == 2 && c->rows * c->batch > 0x7fffffff)
        return cuspec__fail(CUSPEC_ERR_INVALID,
                            "rows_split takes at most 2^31 - 1 rows, not %llu (rows x batch)",
                            c->rows * c->batch);
    /* A call's own give the flat kernels only to calls they take (the fit,
     * records that fit, fallbacks that fit); a variant handed in may not. */
    if (spec == NULL && cuspec__axis_is_flat(v)) {
        const struct cuspec__spec called = cuspec__axis_spec(c);
        if (!cuspec__axis_flat_spec(&called))
            return cuspec__fail(
                CUSPEC_ERR_INVALID, "%s",
                c->rows_axis
                    ? "rows_flat takes any op but dot of one matrix (or a batch of them end to "
                      "end) of 4-byte elements whose rows are contiguous (ld == cols), 4 to 32 "
                      "vectors of 16 bytes (a power of two), 16-byte aligned"
                    : "cols_flat takes argmin/argmax of one matrix (batch 1) of 4-byte elements "
                      "whose rows are contiguous (ld == cols), 1 to 32 vectors of 16 bytes (a "
                      "power of two), 16-byte aligned, fewer than 2^31 - 1 rows");
    }
    struct cuspec__kernel k;
    int rc = spec != NULL ? cuspec__function_for(ctx, stream, spec, v, &k)
                          : cuspec__function(ctx, stream, v, &k);
    if (rc != CUSPEC_OK)
        return rc;
    /* after the kernel: a call's may have fallen back to another that fits it
     * (a flat kernel for another, or the other way) */
    const int flat = cuspec__axis_is_flat(v);
    struct geometry g = {.grid = {0}};
    if (flat)
        flat_geometry(ctx, v, &k, c, &g);
    else if (c->rows_axis)
        rows_geometry(ctx, v, &k, c, &g);
    else
        cols_geometry(ctx, v, &k, c, &g);

    struct cuspec__scratch s = {0};
    /* cols_flat: its words and ticket */
    int own = held == NULL && (g.splits > 1 || (flat && !c->rows_axis));
    if (own)
        rc = cuspec__scratch_take(ctx, stream, (unsigned)((g.scratch_bytes + 7) / 8),
                                  CUSPEC__WS_TICKETS, &s);
    else if (held != NULL)
        s = *held;
    if (rc != CUSPEC_OK)
        return rc;

    const size_t size = cuspec_dtype_size(c->dtype);
    const size_t out_size = cuspec_dtype_size(cuspec__axis_out_dtype(c->kop, c->dtype));
    const unsigned long long total = c->rows * c->batch;
    /* A contiguous batch is one matrix of all the rows: no division. */
    unsigned long long rows = c->batch == 1 || c->stride == c->rows * c->ld ? total : c->rows;
    unsigned block = (unsigned)v->p[P_BLOCK];
    CUdeviceptr a = c->a, b = c->b ? c->b : c->a, value = c->value, index = c->index;
    CUdeviceptr partials = s.partials, tickets = s.ticket;
    unsigned long long cols = c->cols, ld = c->ld, stride = c->stride, all = total;
    if (c->rows_axis) {
        void *args[] = {&a,        &b,     &rows,  &cols,     &ld,     &stride, &all, &g.lanes_log2,
                        &g.splits, &value, &index, &partials, &tickets};
        rc = cuspec__launch(ctx, &k, v, g.grid, block, 1, stream, args);
    } else {
        unsigned long long rows_each = c->rows;
        for (unsigned long long p = 0; rc == CUSPEC_OK && p < g.pieces; p++) {
            unsigned long long first = p * 65535, n = min_ull(c->batch - first, 65535);
            CUdeviceptr pa = a + first * stride * size, pb = b + first * stride * size;
            CUdeviceptr pv = value ? value + first * cols * out_size : 0;
            CUdeviceptr pi = index ? index + first * cols * 8 : 0;
            unsigned grid[3] = {g.grid[0], g.grid[1], (unsigned)n};
            void *args[] = {&pa,           &pb,       &rows_each, &cols, &ld,       &stride,
                            &g.lanes_log2, &g.splits, &pv,        &pi,   &partials, &tickets};
            rc = cuspec__launch(ctx, &k, v, grid, block, 1, stream, args);
        }
    }
    if (own) {
        int given = cuspec__scratch_give(ctx, stream, &s);
        rc = rc != CUSPEC_OK ? rc : given;
    }
    return rc;
}

/* ## Arguments */

/* Bytes from the first element of the batch to past its last, or 0 when
 * they overflow 64 bits. */
static unsigned long long extent(const struct cuspec__axis_call *c, size_t size)
{
    unsigned long long a, b, e;
    if (__builtin_mul_overflow(c->batch - 1, c->stride, &a) ||
        __builtin_mul_overflow(c->rows - 1, c->ld, &b) || __builtin_add_overflow(a, b, &e) ||
        __builtin_add_overflow(e, c->cols, &e) || __builtin_mul_overflow(e, size, &e))
        return 0;
    return e;
}

static int overlap(cuspec_devptr p, unsigned long long p_bytes, cuspec_devptr q,
                   unsigned long long q_bytes)
{
    return p != 0 && q != 0 && p < q + q_bytes && q < p + p_bytes;
}

int cuspec__axis_check(const struct cuspec__axis_call *c, unsigned long long *results)
{
    const char *dname = cuspec_dtype_name(c->dtype);
    CUSPEC__RETURN_IF(c->kop < 0, CUSPEC_ERR_INVALID,
                      "unknown op (CUSPEC_SUM, CUSPEC_MIN, CUSPEC_MAX, CUSPEC_ARGMIN or "
                      "CUSPEC_ARGMAX)");
    CUSPEC__RETURN_IF(cuspec__axis_out_dtype(c->kop, c->dtype) == 0, CUSPEC_ERR_INVALID,
                      "dtype %d (%s) is not supported (f32, f64, f16, bf16, i8, u8, i16, u16, "
                      "i32, u32, i64, u64)",
                      c->dtype,
                      dname ? dname : "unknown");
    CUSPEC__RETURN_IF(c->batch == 0, CUSPEC_ERR_INVALID, "batch is 0 (one matrix is batch 1)");
    CUSPEC__RETURN_IF(c->ld < c->cols, CUSPEC_ERR_INVALID, "ld (%llu) is less than cols (%llu)",
                      c->ld, c->cols);
    unsigned long long length = c->rows_axis ? c->cols : c->rows;
    CUSPEC__RETURN_IF(__builtin_mul_overflow(c->batch, c->rows_axis ? c->rows : c->cols, results),
                      CUSPEC_ERR_INVALID, "batch * %s overflows 64 bits",
                      c->rows_axis ? "rows" : "cols");
    if (cuspec__axis_is_arg(c->kop)) {
        /* No results is no work, with NULL pointers too (cuspec.h). */
        CUSPEC__RETURN_IF(c->value == 0 && c->index == 0 && *results != 0, CUSPEC_ERR_INVALID,
                          "value and index are both NULL: nothing to write");
        CUSPEC__RETURN_IF(length == 0 && *results > 0, CUSPEC_ERR_INVALID,
                          "argmin/argmax of empty %s (%s is 0)", c->rows_axis ? "rows" : "columns",
                          c->rows_axis ? "cols" : "rows");
    } else {
        CUSPEC__RETURN_IF(c->index != 0, CUSPEC_ERR_INVALID,
                          "index is only written by CUSPEC_ARGMIN and CUSPEC_ARGMAX");
        CUSPEC__RETURN_IF(c->value == 0 && *results > 0, CUSPEC_ERR_INVALID, "%s is NULL",
                          c->kop == CUSPEC__AXIS_DOT ? "out" : "value");
    }
    if (*results == 0 || length == 0)
        return CUSPEC_OK;
    size_t size = cuspec_dtype_size(c->dtype);
    unsigned long long in_bytes = extent(c, size);
    CUSPEC__RETURN_IF(in_bytes == 0 || c->a + in_bytes < c->a ||
                          (c->kop == CUSPEC__AXIS_DOT && c->b + in_bytes < c->b),
                      CUSPEC_ERR_INVALID, "the matrices' extent overflows 64 bits");
    unsigned long long value_bytes, index_bytes = 8 * *results;
    if (__builtin_mul_overflow(
            *results, cuspec_dtype_size(cuspec__axis_out_dtype(c->kop, c->dtype)), &value_bytes) ||
        __builtin_mul_overflow(*results, 8, &index_bytes))
        return cuspec__fail(CUSPEC_ERR_INVALID, "the results' extent overflows 64 bits");
    const cuspec_devptr in[2] = {c->a, c->kop == CUSPEC__AXIS_DOT ? c->b : 0};
    for (int i = 0; i < 2; i++) {
        CUSPEC__RETURN_IF(overlap(c->value, value_bytes, in[i], in_bytes), CUSPEC_ERR_INVALID,
                          "value overlaps the input %s", i ? "b" : "a");
        CUSPEC__RETURN_IF(overlap(c->index, index_bytes, in[i], in_bytes), CUSPEC_ERR_INVALID,
                          "index overlaps the input %s", i ? "b" : "a");
    }
    CUSPEC__RETURN_IF(overlap(c->value, value_bytes, c->index, index_bytes), CUSPEC_ERR_INVALID,
                      "value and index overlap");
    return CUSPEC_OK;
}

/* The pointers, against the context's device: in (and b) when read, the
 * outputs when written. */
static int check_pointers(cuspec_ctx *ctx, const struct cuspec__axis_call *c, int reads)
{
    size_t size = cuspec_dtype_size(c->dtype);
    int dot = c->kop == CUSPEC__AXIS_DOT, rc = CUSPEC_OK;
    if (reads)
        rc = cuspec__check_pointer(ctx, c->a, size, dot ? "a" : "in");
    if (rc == CUSPEC_OK && reads && dot)
        rc = cuspec__check_pointer(ctx, c->b, size, "b");
    if (rc == CUSPEC_OK && c->value != 0)
        rc = cuspec__check_pointer(ctx, c->value,
                                   cuspec_dtype_size(cuspec__axis_out_dtype(c->kop, c->dtype)),
                                   dot ? "out" : "value");
    if (rc == CUSPEC_OK && c->index != 0)
        rc = cuspec__check_pointer(ctx, c->index, 8, "index");
    return rc;
}

/* The elements every row of c starts on (a power of two, at most 16 bytes'
 * worth): its input(s), ld and, batched, the stride. */
static int row_align(const struct cuspec__axis_call *c)
{
    const unsigned long long size = cuspec_dtype_size(c->dtype);
    unsigned long long bits = 16 | c->a | c->ld * size;
    if (c->kop == CUSPEC__AXIS_DOT)
        bits |= c->b;
    if (c->batch > 1)
        bits |= c->stride * size;
    return (int)((bits & (~bits + 1)) / size);
}

struct cuspec__spec cuspec__axis_spec(const struct cuspec__axis_call *c)
{
    /* Rows: the batch's rows together, its batch kept only where the
     * matrices are apart (rows_flat takes only those end to end). */
    const int apart = c->batch > 1 && c->stride != c->rows * c->ld;
    return (struct cuspec__spec){.family = c->rows_axis ? CUSPEC__FAM_REDUCE_ROWS
                                                        : CUSPEC__FAM_REDUCE_COLS,
                                 .op = c->kop,
                                 .dtype = c->dtype,
                                 .rows = c->rows * (c->rows_axis ? c->batch : 1),
                                 .cols = c->cols,
                                 .ld_in = c->ld,
                                 .align = row_align(c),
                                 .batch = c->rows_axis && !apart ? 0 : c->batch};
}

int cuspec__axis_call(cuspec_ctx *ctx, const char *what, struct cuspec__axis_call *c,
                      const cuspec_matrix *shape, void *stream)
{
    CUSPEC__RETURN_IF(ctx == NULL || shape == NULL, CUSPEC_ERR_INVALID, "%s: %s is NULL", what,
                      ctx == NULL ? "ctx" : "shape");
    c->rows = shape->rows;
    c->cols = shape->cols;
    c->ld = shape->ld;
    c->batch = shape->batch;
    c->stride = shape->batch > 1 ? shape->batch_stride : 0;
    unsigned long long results = 0;
    int rc = cuspec__axis_check(c, &results);
    if (rc != CUSPEC_OK)
        return cuspec__fail_context(rc, "%s", what);
    if (results == 0)
        return CUSPEC_OK; /* no work */
    int pushed;
    rc = cuspec__ctx_enter(ctx, &pushed);
    if (rc != CUSPEC_OK)
        return rc;
    rc = check_pointers(ctx, c, (c->rows_axis ? c->cols : c->rows) > 0);
    if (rc == CUSPEC_OK) {
        struct cuspec__variant v;
        struct cuspec__spec spec = cuspec__axis_spec(c);
        cuspec__ops(spec.family)->choose(ctx, &spec, &v);
        rc = cuspec__axis_run(ctx, &v, &spec, c, (CUstream)stream, NULL);
    } else {
        rc = cuspec__fail_context(rc, "%s", what);
    }
    cuspec__ctx_leave(ctx, pushed);
    return rc;
}

int cuspec_reduce_rows(cuspec_ctx *ctx, int op, int dtype, cuspec_devptr in,
                       const cuspec_matrix *shape, cuspec_devptr value, cuspec_devptr index,
                       void *stream)
{
    /* Dot is an op of the kernel, not of this call (it takes two inputs). */
    struct cuspec__axis_call c = {.rows_axis = 1,
                                  .kop = op == -1 ? -1 : cuspec__axis_op(op),
                                  .dtype = dtype,
                                  .a = in,
                                  .value = value,
                                  .index = index};
    return cuspec__axis_call(ctx, "cuspec_reduce_rows", &c, shape, stream);
}

int cuspec_reduce_cols(cuspec_ctx *ctx, int op, int dtype, cuspec_devptr in,
                       const cuspec_matrix *shape, cuspec_devptr value, cuspec_devptr index,
                       void *stream)
{
    struct cuspec__axis_call c = {.rows_axis = 0,
                                  .kop = op == -1 ? -1 : cuspec__axis_op(op),
                                  .dtype = dtype,
                                  .a = in,
                                  .value = value,
                                  .index = index};
    return cuspec__axis_call(ctx, "cuspec_reduce_cols", &c, shape, stream);
}

int cuspec_dot_rows(cuspec_ctx *ctx, int dtype, cuspec_devptr a, cuspec_devptr b,
                    const cuspec_matrix *shape, cuspec_devptr out, void *stream)
{
    struct cuspec__axis_call c = {
        .rows_axis = 1, .kop = CUSPEC__AXIS_DOT, .dtype = dtype, .a = a, .b = b, .value = out};
    return cuspec__axis_call(ctx, "cuspec_dot_rows", &c, shape, stream);
}

int cuspec_dot_cols(cuspec_ctx *ctx, int dtype, cuspec_devptr a, cuspec_devptr b,
                    const cuspec_matrix *shape, cuspec_devptr out, void *stream)
{
    struct cuspec__axis_call c = {
        .rows_axis = 0, .kop = CUSPEC__AXIS_DOT, .dtype = dtype, .a = a, .b = b, .value = out};
    return cuspec__axis_call(ctx, "cuspec_dot_cols", &c, shape, stream);
}
