/* The axis reduction families, reduce_rows and reduce_cols
 * (templates/reduce_axis.cuh): their parameters and rules, each kernel's
 * name expression, the element types and what each op writes, and which
 * parameters serve which shape without a tuning record. The calls:
 * reduce_axis_call.c; the operation hooks: reduce_axis_ops.c. */
#include "reduce_axis.h"
#include "dtype_values.h"
#include "catalogue.h"

#include <stdio.h>

/* The template's element type for a dtype, NULL for none: every dtype, the
 * 16-bit floats as reduce_types.cuh's cuspec_f16 and cuspec_bf16. */
static const char *type_name(int dtype)
{
    static const char *const names[] = {
        [CUSPEC_F32] = "float",
        [CUSPEC_F64] = "double",
        [CUSPEC_I32] = "int",
        [CUSPEC_I64] = "long long",
        [CUSPEC_U32] = "unsigned int",
        [CUSPEC_U64] = "unsigned long long",
        [CUSPEC_I8] = "signed char",
        [CUSPEC_U8] = "unsigned char",
        [CUSPEC_I16] = "short",
        [CUSPEC_U16] = "unsigned short",
        [CUSPEC_F16] = "cuspec_f16",
        [CUSPEC_BF16] = "cuspec_bf16",
    };
    return dtype > 0 && dtype < (int)(sizeof names / sizeof *names) ? names[dtype] : NULL;
}
#define DTYPES                                                                                     \
    {                                                                                              \
        CUSPEC_F32, CUSPEC_F64, CUSPEC_I32, CUSPEC_I64, CUSPEC_U32, CUSPEC_U64, CUSPEC_I8,         \
            CUSPEC_U8, CUSPEC_I16, CUSPEC_U16, CUSPEC_F16, CUSPEC_BF16                             \
    }
#define N_DTYPES 12

int cuspec__axis_op(int op)
{
    return op == -1 ? CUSPEC__AXIS_DOT : op >= 0 && op < CUSPEC__AXIS_DOT ? op : -1;
}

int cuspec__axis_out_dtype(int kop, int dtype)
{
    if (kop < 0 || kop >= CUSPEC__AXIS_N_OPS || type_name(dtype) == NULL)
        return 0;
    if (kop != CUSPEC__AXIS_SUM && kop != CUSPEC__AXIS_DOT)
        return dtype;
    return cuspec__sum_dtype(dtype);
}

int cuspec_reduce_axis_out_dtype(int op, int dtype)
{
    return cuspec__axis_out_dtype(cuspec__axis_op(op), dtype);
}

size_t cuspec__axis_partial_bytes(int kop)
{
    /* a value and its index, or a value of at most 8 bytes */
    return cuspec__axis_is_arg(kop) ? 16 : 8;
}

int cuspec__axis_is_flat(const struct cuspec__variant *v)
{
    return v->p[P_ROWBLOCK] == (v->family == CUSPEC__FAM_REDUCE_ROWS ? 3 : 1);
}

/* The flat kernels: 4-byte elements in 16-byte vectors; cols_flat
 * argmin/argmax; rows_flat one input (no dot) in groups of 4 vectors
 * (ITEMS a multiple of 4), blocks of at most 512 (its 69-80 registers a
 * thread leave too few for 1024). */
static int flat_legal(const struct cuspec__variant *v, size_t size)
{
    const int rows = v->family == CUSPEC__FAM_REDUCE_ROWS;
    return size == 4 && v->p[P_VEC] * size == 16 &&
           (rows ? v->op != CUSPEC__AXIS_DOT && v->p[P_ITEMS] % CUSPEC__AXIS_ROWS_FLAT_GROUP == 0 &&
                       v->p[P_BLOCK] <= 512
                 : cuspec__axis_is_arg(v->op));
}

static int legal(const struct cuspec__variant *v)
{
    size_t size = cuspec_dtype_size(v->dtype);
    const int cols = v->family == CUSPEC__FAM_REDUCE_COLS;
    return type_name(v->dtype) != NULL && v->op >= 0 && v->op < CUSPEC__AXIS_N_OPS &&
           v->p[P_VEC] * size <= 16 && (!cols || v->p[P_LANES] <= v->p[P_BLOCK]) &&
           (cols || !v->p[P_ROWBLOCK] || (v->p[P_LANES] == 0 && v->p[P_GRID] == 0)) &&
           (!cuspec__axis_is_flat(v) || flat_legal(v, size));
}

static void expr(const struct cuspec__variant *v, char *buf, size_t size)
{
    const char *t = type_name(v->dtype);
    const char *kernel = v->family == CUSPEC__FAM_REDUCE_COLS
                             ? (v->p[P_ROWBLOCK] ? "cols_flat" : "cols")
                         : v->p[P_ROWBLOCK] == 3 ? "rows_flat"
                         : v->p[P_ROWBLOCK] == 2 ? "rows_split"
                         : v->p[P_ROWBLOCK]      ? "rows_block"
                                                 : "rows";
    snprintf(buf, size, "cuspec_reduce_%s<%s, %d, %d, %d, %d>", kernel, t ? t : "?", v->op,
             v->p[P_BLOCK], v->p[P_VEC], v->p[P_ITEMS]);
}

static int threads(const struct cuspec__variant *v)
{
    return v->p[P_BLOCK];
}

static int is_half(int dtype)
{
    return dtype == CUSPEC_F16 || dtype == CUSPEC_BF16;
}

/* Columns' argmin/argmax of halves and bfloat16s: 8-byte vectors, 8 in flight, strips of 16
 * elements (docs/experiments/reduce_axis.md: "Build time: 8-byte vectors"). */
static int half_columns_arg(const struct cuspec__variant *v, int op)
{
    return v->family == CUSPEC__FAM_REDUCE_COLS && cuspec__axis_is_arg(op) && is_half(v->dtype);
}

/* 16-byte vectors, 4 of them in flight per thread: 64 KB of loads in flight
 * per multiprocessor at 4 blocks of 256 (docs/experiments/reduce.md: "Loads
 * in flight"). A warp per row; 128-byte column strips. */
static void defaults(int arch, struct cuspec__variant *v)
{
    size_t size = cuspec_dtype_size(v->dtype);
    const int halves = half_columns_arg(v, v->op);
    (void)arch;
    v->p[P_BLOCK] = 256;
    v->p[P_VEC] = size && size <= 16 ? (halves ? 8 : 16) / (int)size : 1;
    v->p[P_ITEMS] = halves ? 8 : 4;
    v->p[P_LANES] = v->family == CUSPEC__FAM_REDUCE_ROWS ? 32 : 8;
    v->p[P_GRID] = 0;
    v->p[P_ROWBLOCK] = 0;
}

static int pow2_at_least(unsigned long long x, int cap)
{
    int p = 1;
    while (p < cap && (unsigned long long)p < x)
        p *= 2;
    return p;
}

int cuspec__axis_class(int family, int kop, int rows_log2, int cols_log2, size_t elem_size)
{
    if (family != CUSPEC__FAM_REDUCE_ROWS)
        return 0;
    if (cols_log2 <= CUSPEC__AXIS_SHORT_LOG2)
        return 1;
    /* elem_size a power of two: every row of the bucket on one side */
    const int bytes_log2 = cols_log2 + cuspec__log2_floor(elem_size);
    if (rows_log2 >= CUSPEC__AXIS_MANY_ROWS_LOG2)
        return bytes_log2 + (kop == CUSPEC__AXIS_DOT) >= CUSPEC__AXIS_ROWBLOCK_LOG2 ? 4 : 2;
    if (rows_log2 >= CUSPEC__AXIS_FEW_ROWBLOCK_ROWS_LOG2 &&
        bytes_log2 <= CUSPEC__AXIS_FEW_ROWBLOCK_LOG2)
        return 4;
    return 3;
}

/* Pieces of `width` columns across a row of s, the last one perhaps partial. */
static unsigned long long across(const struct cuspec__spec *s, unsigned long long width)
{
    return (s->cols + width - 1) / width;
}

/* Columns with TX threads across a strip: the rounds of ITEMS loads each
 * thread takes down its columns, and the strips of TX * VEC columns. */
static unsigned long long rounds(const struct cuspec__variant *v, int tx,
                                 const struct cuspec__spec *s)
{
    return s->rows / ((unsigned long long)(v->p[P_BLOCK] / tx) * (unsigned)v->p[P_ITEMS]);
}

static unsigned long long strips(const struct cuspec__variant *v, int tx,
                                 const struct cuspec__spec *s)
{
    return across(s, (unsigned long long)tx * (unsigned)v->p[P_VEC]);
}

/* Short rows of `need` vectors: the fewest lanes that cover a row, each
 * lane one vector of ITEMS rows in flight; rows of ITEMS to 31 vectors
 * (dots more than 2 x ITEMS): lanes of ITEMS vectors each
 * (docs/experiments/reduce_axis.md: "Short rows' argmin/argmax: fewer
 * lanes", "Short rows: fewer lanes for every op"). */
static unsigned long long grouped_from(int op, unsigned long long items)
{
    return op == CUSPEC__AXIS_DOT ? 2 * items + 1 : items;
}

static int short_lanes(const struct cuspec__variant *v, int op, unsigned long long need)
{
    unsigned long long items = (unsigned)v->p[P_ITEMS];
    if (need >= grouped_from(op, items) && need < 32)
        need = (need + items - 1) / items;
    return pow2_at_least(need, 32);
}

/* Short rows whose lanes (short_lanes) load 2 vectors at a time, not ITEMS:
 * halves and bfloat16s; dots of 4 and 8 bytes in rows short_lanes leaves a
 * vector a lane (at most 2 x ITEMS vectors); argmin/argmax of f32 and f64
 * in rows of more than ITEMS (docs/experiments/reduce_axis.md: "Short rows
 * in 2 items"). */
static int short_pairs(const struct cuspec__variant *v, int op, unsigned long long need)
{
    const unsigned long long items = (unsigned)v->p[P_ITEMS];
    if (is_half(v->dtype))
        return 1;
    if (op == CUSPEC__AXIS_DOT)
        return cuspec_dtype_size(v->dtype) >= 4 && need < grouped_from(op, items);
    return cuspec__axis_is_arg(op) && cuspec__dtype_is_float(v->dtype) && need > items;
}

/* Dots in long rows (classes 2 and 3) load 2 vectors of each input at a
 * time, not ITEMS: in the rows kernel 58-69 registers, 3 or 4 blocks of 256
 * an SM, where 4 items took 97-104 registers (f64 76) and 2 or 3 blocks
 * (docs/experiments/reduce_axis.md: "Dots in long rows: 2 items"). */
static int rows_dot_pairs(int op, int cls)
{
    return op == CUSPEC__AXIS_DOT && (cls == 2 || cls == 3);
}

/* Fewer than 2^CUSPEC__AXIS_FEW_ROWBLOCK_ROWS_LOG2 long rows (class 3):
 * cuspec_reduce_rows_split, a block a chunk of a row with an accumulator a
 * load, 24-32 registers (the u16 dot 34), so 8 blocks of 256 an SM where
 * the rows kernel takes 64 registers and 4 (argmin/argmax: a whole array a
 * row, below). From
 * 1024 rows (more than a wave of blocks a row) the rows kernel's
 * grid-stride loses less to the last wave (docs/experiments/reduce_axis.md:
 * "Few long rows in a kernel of their own"). */
static int few_long_rows(const struct cuspec__spec *s, int cls)
{
    return cls == 3 && cuspec__log2_floor(s->rows) < CUSPEC__AXIS_FEW_ROWBLOCK_ROWS_LOG2;
}

/* rows_split's argmin/argmax, a whole-array argreduce a row over the blocks
 * a wave shares among the rows (reduce_axis.cuh): 256 x 4 x 16 bytes as the
 * whole-array default, blocks of 128 from SPLIT_ARGS_NARROW_FROM to
 * SPLIT_ARGS_NARROW_TO rows, where a wave of blocks of 256 gives each row
 * one or two (docs/experiments/reduce_axis.md: "Few long rows'
 * argmin/argmax as whole arrays"). */
#define SPLIT_ARGS_NARROW_FROM 160
#define SPLIT_ARGS_NARROW_TO 511

/* Many long rows' argmin/argmax, at least ARG_LANES_ROWS of at most
 * ARG_LANES_VECTORS vectors: 8 lanes a row (4 where a row is at most 64
 * vectors), not a warp (docs/experiments/reduce_axis.md: "Rows'
 * argmin/argmax: 8 lanes a row"). The bounds are exact sizes; a record,
 * per power-of-two bucket, overrides them for its whole bucket. */
#define ARG_LANES_ROWS 16384
#define ARG_LANES_VECTORS 256

static int long_lanes(const struct cuspec__spec *s, unsigned long long need)
{
    if (!cuspec__axis_is_arg(s->op) || s->rows < ARG_LANES_ROWS || need > ARG_LANES_VECTORS)
        return 32;
    return need <= 64 ? 4 : 8;
}

/* A strip's threads in tall matrices: 128 bytes, and for argmin/argmax at
 * most 32 elements, 16 for halves and bfloat16s (half_columns_arg; docs/
 * experiments/reduce_axis.md: "Columns' argmax: strips of 32 elements"). */
static int strip_threads(const struct cuspec__variant *v, int op)
{
    int vec = v->p[P_VEC], bytes = 128 / (vec * (int)cuspec_dtype_size(v->dtype));
    int elements = (half_columns_arg(v, op) ? 16 : 32) / vec; /* at least 2 */
    return cuspec__axis_is_arg(op) && elements < bytes ? elements : bytes;
}

/* Strips wider, up to the block and tx's largest value, while each thread
 * would take fewer than WIDE_ROUNDS rounds and the strips still fill a
 * large GPU (WIDE_STRIPS blocks: 4 of 256 threads on each of 132 SMs):
 * combining rows of threads across warps cost more than a thread's longer
 * walk down its columns (docs/experiments/reduce_axis.md: "Strips as wide
 * as the block"). */
#define WIDE_ROUNDS 16
#define WIDE_STRIPS 512

/* Tall matrices of 4-byte elements in a few strips of 16-byte vectors
 * (argmin/argmax half as many) of at least 2 threads, not widened, with a
 * round of rows for them: blocks of 512 of 8 items; argmin/argmax of f32,
 * and of i32 and u32 in matrices of at most FEW_VEC2_ELEMENTS, in 8-byte
 * vectors (never wider than the call's: f32 off the vector keeps a column
 * a thread), twice the strips of the same tx (docs/experiments/
 * reduce_axis.md: "Columns: 512 threads of 8 items where strips are few",
 * "Columns' argmin/argmax in a few strips", "i32 and u32 too"). */
#define FEW_STRIPS 4
#define FEW_BLOCK 512
#define FEW_ITEMS 8
#define FEW_VEC2_ELEMENTS (1ULL << 25)

/* Whether the matrix of s has at most `limit` elements. */
static int elements_at_most(const struct cuspec__spec *s, unsigned long long limit)
{
    return s->cols == 0 || s->rows <= limit / s->cols;
}

static void few_strips(struct cuspec__variant *v, int narrow, const struct cuspec__spec *s)
{
    const int arg = cuspec__axis_is_arg(s->op), tx = v->p[P_LANES];
    struct cuspec__variant w = *v;
    w.p[P_BLOCK] = FEW_BLOCK;
    w.p[P_ITEMS] = FEW_ITEMS;
    if (cuspec_dtype_size(v->dtype) != 4 || tx == 1 || tx != narrow ||
        strips(v, tx, s) > (arg ? FEW_STRIPS / 2 : FEW_STRIPS) || rounds(&w, tx, s) < 1)
        return;
    if (arg && v->p[P_VEC] > 2 &&
        (v->dtype == CUSPEC_F32 || elements_at_most(s, FEW_VEC2_ELEMENTS)))
        w.p[P_VEC] = 2;
    *v = w;
}

/* Columns' argmin/argmax of 4-byte elements in matrices of SQUARE_SIDE
 * rows or more, SQUARE_SIDE to SQUARE_COLS columns and at most
 * SQUARE_ELEMENTS: strips of SQUARE_STRIP_BYTES in few_strips' blocks
 * (512 of 8 items); f32 in 4-byte vectors (8-byte ones in more than
 * HALF_WAVE to twice that strips), i32 and u32 in 8-byte ones and only
 * where rows are at most the columns; 8-byte vectors only where rows_take
 * them (docs/experiments/reduce_axis.md: "Columns' argmin/argmax of square
 * matrices", "f32 columns by their count of strips", "square_args' i32 and
 * u32 off the vector"). */
#define SQUARE_SIDE 1024
#define SQUARE_COLS 5120
#define SQUARE_ELEMENTS (1ULL << 24)
#define SQUARE_STRIP_BYTES 64

/* An H200's SMs (docs/experiments/reduce_axis.md: "f32 columns by their count of strips"). */
#define HALF_WAVE 132

unsigned long long cuspec__axis_row_start(const struct cuspec__spec *s)
{
    const unsigned long long size = cuspec_dtype_size(s->dtype);
    const unsigned long long bits =
        (size ? 16 / size : 1) | (s->ld_in ? s->ld_in : s->cols) | (unsigned)s->align;
    return bits & (~bits + 1);
}

/* Whether every row of s starts on a vector of vec elements: the columns
 * kernel then reads whole vectors, the edge strip's too. */
static int rows_take(const struct cuspec__spec *s, unsigned vec)
{
    return cuspec__axis_row_start(s) % vec == 0;
}

static void set_shape(struct cuspec__variant *v, int block, int vec, int tx)
{
    v->p[P_BLOCK] = block;
    v->p[P_VEC] = vec;
    v->p[P_ITEMS] = FEW_ITEMS;
    v->p[P_LANES] = tx;
}

static void square_args(struct cuspec__variant *v, const struct cuspec__spec *s)
{
    const int f32 = v->dtype == CUSPEC_F32, size = (int)cuspec_dtype_size(v->dtype);
    if (!cuspec__axis_is_arg(s->op) || size != 4 || s->rows < SQUARE_SIDE ||
        s->cols < SQUARE_SIDE || s->cols > SQUARE_COLS ||
        !elements_at_most(s, SQUARE_ELEMENTS) || (!f32 && s->rows > s->cols))
        return;
    const unsigned long long n = across(s, SQUARE_STRIP_BYTES / size);
    const int vec = rows_take(s, 2) && (!f32 || (n > HALF_WAVE && n <= 2 * HALF_WAVE)) ? 2 : 1;
    set_shape(v, FEW_BLOCK, vec, SQUARE_STRIP_BYTES / (vec * size));
}

/* f32 columns in 128-byte strips, by their count, in matrices of
 * SPLIT_ROWS rows or more and at most SPLIT_ELEMENTS: sums, argmin and
 * argmax of SPLIT_LEAST to HALF_WAVE strips in blocks of 1024 of 8 items in
 * 8-byte vectors (one wave, square_args' columns too); sums of up to twice
 * that in blocks of 512 of 8 items in 16-byte ones, where rows_take those
 * vectors; argmin/argmax of SPLIT_ARG_LEAST to twice HALF_WAVE in blocks of
 * 1024 of 8 items in 4-byte vectors, in matrices of twice SPLIT_ROWS rows or
 * more and at most the columns (docs/experiments/reduce_axis.md: "f32
 * columns by their count of strips", "Columns' f32 argmin/argmax in one
 * wave"). */
#define SPLIT_LEAST 100
#define SPLIT_ARG_LEAST 192
#define SPLIT_ROWS 1024
#define SPLIT_ELEMENTS (1ULL << 26)

static void split_strips(struct cuspec__variant *v, const struct cuspec__spec *s)
{
    const int arg = cuspec__axis_is_arg(s->op);
    if (v->dtype != CUSPEC_F32 || (s->op != CUSPEC__AXIS_SUM && !arg) || s->rows < SPLIT_ROWS ||
        !elements_at_most(s, SPLIT_ELEMENTS))
        return;
    const unsigned long long n = across(s, 128 / sizeof(float));
    if (n > 2 * HALF_WAVE || n < SPLIT_LEAST)
        return;
    if (n <= HALF_WAVE && rows_take(s, 2))
        set_shape(v, 1024, 2, 16);
    else if (arg && n >= SPLIT_ARG_LEAST && s->rows >= 2 * SPLIT_ROWS && s->rows <= s->cols)
        set_shape(v, 1024, 1, 32);
    else if (!arg && n > HALF_WAVE && rows_take(s, 4))
        set_shape(v, FEW_BLOCK, 4, 8);
}

/* Many rows that read 2^CUSPEC__AXIS_ROWBLOCK_LOG2 bytes or more (a dot's
 * both inputs: docs/experiments/reduce_axis.md, "Dots of many rows by the
 * bytes they read"), and 1024 to 2047 long rows of under 64 KB (class 4;
 * "1024 to 2047 rows in rows_block"): a block each, through L1, of 128
 * threads with 2 loads of 16 bytes in flight; sums, dots, min and max of
 * 4-byte elements in rows of ROWBLOCK_WIDE_BYTES or more 256 with 4
 * (docs/experiments/reduce_axis.md: "A block a row through L1"). */
#define ROWBLOCK_WIDE_BYTES 16384

/* Columns: v's strips of its vectors, in its block but where few_strips,
 * square_args or split_strips set one, the last that does
 * (docs/experiments/reduce_axis.md: "Build time"). */
static void fit_cols(struct cuspec__variant *v, const struct cuspec__spec *s)
{
    const int vec = v->p[P_VEC];
    const int narrow = pow2_at_least(across(s, (unsigned)vec), strip_threads(v, s->op));
    int tx = narrow;
    const struct cuspec__param *txs = &cuspec__family_reduce_cols.params[P_LANES];
    const int widest = v->p[P_BLOCK] < txs->values[txs->n - 1] ? v->p[P_BLOCK]
                                                               : txs->values[txs->n - 1];
    for (; tx < widest && (unsigned long long)tx * (unsigned)vec < s->cols; tx *= 2) {
        unsigned long long r = rounds(v, tx, s);
        if (r >= 1 && (r >= WIDE_ROUNDS || strips(v, 2 * tx, s) < WIDE_STRIPS))
            break;
    }
    v->p[P_LANES] = tx;
    few_strips(v, narrow, s);
    square_args(v, s);
    split_strips(v, s);
}

/* Columns of OFF_ROWS rows or more off their chosen vector: a column a
 * thread in few_strips' blocks, fitted anew, for f32, i32 and u32 (but
 * dots), f64 sums, argmin/argmax of 1- and 2-byte types in rows of
 * OFF_COLS elements or more, and of 8-byte types in matrices of at most
 * OFF_ARG8_ELEMENTS (docs/experiments/reduce_axis.md: "Columns off the
 * vector: other types", "Columns off the vector: 8-byte argmin/argmax"). */
#define OFF_ROWS 1000
#define OFF_COLS 128
#define OFF_ARG8_ELEMENTS (1ULL << 26)

static int column_a_thread(const struct cuspec__variant *v, const struct cuspec__spec *s)
{
    if (s->op == CUSPEC__AXIS_DOT || s->rows < OFF_ROWS || rows_take(s, (unsigned)v->p[P_VEC]))
        return 0;
    if (v->dtype == CUSPEC_F32 || v->dtype == CUSPEC_I32 || v->dtype == CUSPEC_U32)
        return 1;
    const size_t size = cuspec_dtype_size(v->dtype);
    if (size == 8 && cuspec__axis_is_arg(s->op))
        return elements_at_most(s, OFF_ARG8_ELEMENTS);
    if (v->dtype == CUSPEC_F64)
        return s->op == CUSPEC__AXIS_SUM;
    return size <= 2 && cuspec__axis_is_arg(s->op) && s->cols >= OFF_COLS;
}

/* Columns' argmin/argmax read flat (cuspec_reduce_cols_flat) from
 * COLS_FLAT_BYTES: blocks of 512 (one an SM, by its registers) with 8 loads
 * of 16 bytes in flight (docs/experiments/reduce_axis.md: "Columns'
 * argmin/argmax of a few contiguous columns as a flat array", "cols_flat in
 * blocks of 512"); rows' argmin and argmax at every size, sums, min and
 * max from ROWS_FLAT_BYTES (cuspec_reduce_rows_flat) in blocks of 256 (3
 * an SM, by their registers) of 8 loads, 2 groups of 4 vectors of a row
 * ("Rows' argmax of short contiguous rows as a flat array", "Rows' flat
 * sums, min and max", "argmin/argmax read flat from 1 MB, and under 1
 * MB"). */
#define ROWS_FLAT_BYTES (16ULL << 20)
#define COLS_FLAT_BYTES (128ULL << 10)
#define FLAT_BLOCK 512
#define FLAT_ITEMS 8
#define ROWS_FLAT_BLOCK 256

int cuspec__axis_flat_spec(const struct cuspec__spec *s)
{
    const int rows = s->family == CUSPEC__FAM_REDUCE_ROWS;
    if (!rows && s->family != CUSPEC__FAM_REDUCE_COLS)
        return 0;
    /* the ops, and one matrix of 4-byte elements in 16-byte vectors */
    if (!(rows ? s->op != CUSPEC__AXIS_DOT : cuspec__axis_is_arg(s->op)) ||
        cuspec_dtype_size(s->dtype) != 4 || s->batch > 1 || s->rows < 1 ||
        (!rows && s->rows >= CUSPEC__AXIS_FLAT_ROWS))
        return 0;
    /* contiguous rows of a power of two of whole vectors, aligned */
    const unsigned long long g = s->cols / 4, ld = s->ld_in ? s->ld_in : s->cols;
    return s->cols % 4 == 0 && g >= (rows ? CUSPEC__AXIS_ROWS_FLAT_GROUP : 1) && g <= 32 &&
           (g & (g - 1)) == 0 && ld == s->cols && (s->align == 0 || s->align * 4 >= 16);
}

/* The columns kernel's fit (fit_cols), a column a thread where that is better. */
static void fit_columns(struct cuspec__variant *v, const struct cuspec__spec *s)
{
    struct cuspec__variant w = *v;
    fit_cols(v, s);
    if (column_a_thread(v, s)) {
        w.p[P_VEC] = 1;
        w.p[P_BLOCK] = FEW_BLOCK;
        w.p[P_ITEMS] = FEW_ITEMS;
        fit_cols(&w, s);
        *v = w;
    }
}

int cuspec__axis_fits(const struct cuspec__variant *v, const struct cuspec__spec *s)
{
    if (!cuspec__axis_is_flat(v))
        return 1;
    return cuspec__axis_flat_spec(s) &&
           (v->family == CUSPEC__FAM_REDUCE_ROWS ||
            (v->p[P_GRID] == 0 &&
             (unsigned long long)v->p[P_LANES] * (unsigned)v->p[P_VEC] == s->cols));
}

/* Whether a call without a record reads s flat: rows' argmin/argmax
 * always, their other ops from ROWS_FLAT_BYTES, columns' (argmin/argmax
 * alone) from COLS_FLAT_BYTES. */
static int read_flat(const struct cuspec__spec *s)
{
    if (!cuspec__axis_flat_spec(s))
        return 0;
    const unsigned long long bytes = s->rows * s->cols * cuspec_dtype_size(s->dtype);
    if (s->family == CUSPEC__FAM_REDUCE_COLS)
        return bytes >= COLS_FLAT_BYTES;
    return cuspec__axis_is_arg(s->op) || bytes >= ROWS_FLAT_BYTES;
}

/* The flat kernel's shape for s, which it takes (cuspec__axis_flat_spec). */
static void flat_shape(struct cuspec__variant *v, const struct cuspec__spec *s)
{
    const int rows = v->family == CUSPEC__FAM_REDUCE_ROWS;
    v->p[P_ROWBLOCK] = rows ? 3 : 1;
    v->p[P_BLOCK] = rows ? ROWS_FLAT_BLOCK : FLAT_BLOCK;
    v->p[P_ITEMS] = FLAT_ITEMS;
    v->p[P_VEC] = 16 / (int)cuspec_dtype_size(v->dtype);
    v->p[P_LANES] = rows ? 0 : (int)(s->cols / (unsigned long long)v->p[P_VEC]);
    v->p[P_GRID] = 0;
}

/* The fit but for the flat kernels (cuspec__axis_fit's rules). */
static void fit_kernels(struct cuspec__variant *v, const struct cuspec__spec *s)
{
    if (v->family == CUSPEC__FAM_REDUCE_ROWS) {
        const unsigned long long need = across(s, (unsigned)v->p[P_VEC]);
        const size_t size = cuspec_dtype_size(v->dtype);
        int cls = cuspec__axis_class(v->family, s->op, cuspec__log2_floor(s->rows),
                                     cuspec__log2_floor(s->cols), size);
        v->p[P_ROWBLOCK] = cls == 4 ? 1 : few_long_rows(s, cls) ? 2 : 0;
        if (cls == 4) {
            const int wide = !cuspec__axis_is_arg(s->op) && size == 4 &&
                             s->cols * size >= ROWBLOCK_WIDE_BYTES;
            v->p[P_BLOCK] = wide ? 256 : 128;
            v->p[P_ITEMS] = wide ? 4 : 2;
        }
        v->p[P_LANES] = cls == 1   ? short_lanes(v, s->op, need)
                        : cls == 2 ? long_lanes(s, need)
                                   : 0;
        if ((cls == 1 && short_pairs(v, s->op, need)) || rows_dot_pairs(s->op, cls))
            v->p[P_ITEMS] = 2;
        if (v->p[P_ROWBLOCK] == 2 && cuspec__axis_is_arg(s->op) &&
            s->rows >= SPLIT_ARGS_NARROW_FROM && s->rows <= SPLIT_ARGS_NARROW_TO)
            v->p[P_BLOCK] = 128;
        return;
    }
    fit_columns(v, s);
}

/* v fitted to s read flat (flat_shape) or not (fit_kernels). */
static void fit_reading(struct cuspec__variant *v, const struct cuspec__spec *s, int flat)
{
    if (flat)
        flat_shape(v, s);
    else
        fit_kernels(v, s);
}

/* Rows: short rows take the fewest lanes whose vectors cover a row, so that
 * a warp reads whole rows side by side, or from ITEMS to 31 vectors a row
 * (dots more than 2 x ITEMS) fewer lanes of ITEMS vectors each
 * (short_lanes), some 2 vectors at a time (short_pairs).
 * Many long rows a warp each (argmin/argmax of up to ARG_LANES_VECTORS
 * vectors fewer lanes: long_lanes), or from 8 KB read a block each
 * (cuspec_reduce_rows_block), and 1024 to 2047 of under 64 KB; where
 * there are fewer the whole block (split across blocks at launch).
 * Columns: strips of 128 bytes (a warp reads 4 rows of them; argmin/argmax
 * of narrow types fewer: strip_threads), narrower where the matrix is,
 * wider where it has too few rows to give each of a block's rows of
 * threads ITEMS of its own, and wider still where rows
 * are few and columns many (WIDE_ROUNDS); tall ones of a few strips
 * of 4-byte elements in blocks of 512 of 8 items (few_strips), and so
 * argmin/argmax of 4-byte elements in square matrices (square_args); f32
 * in blocks of 1024 or 512 of 8 items by the count of strips (split_strips);
 * a column a thread where rows are off the vector (column_a_thread);
 * one matrix that a flat kernel takes read flat (read_flat): its columns'
 * argmin/argmax by cuspec_reduce_cols_flat, its rows' every op (but dot,
 * which it does not take) by cuspec_reduce_rows_flat. */
void cuspec__axis_fit(struct cuspec__variant *v, const struct cuspec__spec *s, int from_record)
{
    if (!from_record)
        fit_reading(v, s, read_flat(s));
}

static void fit_default(struct cuspec__variant *v, const struct cuspec__spec *s)
{
    cuspec__axis_fit(v, s, 0);
}

/* Where a flat kernel takes s, the kernel the fit does not choose: the
 * flat one where read_flat says no, the other where it says yes.
 * rows_flat's 256 x 4 x 8 is rowblock, items and lanes away from the rows
 * kernel's short rows, more than the tuner's one-parameter steps reach
 * from either. */
static int flat_alternative(struct cuspec__variant *v, const struct cuspec__spec *s)
{
    if (!cuspec__axis_flat_spec(s))
        return 0;
    fit_reading(v, s, !read_flat(s));
    return 1;
}

/* One shape of each class and of each width of short rows and narrow
 * strips (from 5 columns, for 4-byte columns also few_strips' kernels); with
 * few rows, where strips widen; rows of 8 KB and 32 KB of 4-byte elements
 * (the two rows_block shapes); 256 long rows (rows_split's argmin/argmax
 * in blocks of 128); square ones for square_args' and
 * split_strips' kernels; an odd ld for columns off the vector. Columns
 * both as one matrix and as a batch of two: the argmin/argmax that
 * cols_flat takes of one matrix take the columns kernel in a batch. */
static int classes(int family, int dtype, int op,
                   int (*fn)(const struct cuspec__spec *s, void *user), void *user)
{
    static const unsigned long long shapes[][2] = {
        {1 << 20, 1},  {1 << 20, 2},    {1 << 20, 4},   {1 << 20, 8},  {1 << 20, 16},
        {1 << 20, 32}, {1 << 20, 64},   {1 << 20, 127}, {8192, 8192},  {32, 1 << 20},
        {1, 1000},     {1 << 16, 1024}, {4, 1 << 16},   {16, 1 << 16}, {256, 1 << 16}, {2048, 2048},
        {4096, 4096},  {4096, 4097},
    };
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++)
        for (unsigned long long batch = 1; batch <= (family == CUSPEC__FAM_REDUCE_COLS ? 2 : 1);
             batch++) {
            struct cuspec__spec s = {.family = family,
                                     .op = op,
                                     .dtype = dtype,
                                     .rows = shapes[i][0],
                                     .cols = shapes[i][1],
                                     .batch = batch};
            int rc = fn(&s, user);
            if (rc != 0)
                return rc;
        }
    return 0;
}

static int classes_rows(int dtype, int op, int (*fn)(const struct cuspec__spec *s, void *user),
                        void *user)
{
    return classes(CUSPEC__FAM_REDUCE_ROWS, dtype, op, fn, user);
}

static int classes_cols(int dtype, int op, int (*fn)(const struct cuspec__spec *s, void *user),
                        void *user)
{
    return classes(CUSPEC__FAM_REDUCE_COLS, dtype, op, fn, user);
}

const struct cuspec__family cuspec__family_reduce_rows = {
    .name = "reduce_rows",
    .template_file = "reduce_axis.cuh",
    .waits_for_prior_grid = 1,
    .n_params = 6,
    .params =
        {
            [P_BLOCK] = {"block", 4, {128, 256, 512, 1024}},
            [P_VEC] = {"vec", 5, {1, 2, 4, 8, 16}},
            [P_ITEMS] = {"items", 4, {1, 2, 4, 8}},
            [P_LANES] = {"lanes", 7, {0, 1, 2, 4, 8, 16, 32}, 1},
            [P_GRID] = {"grid", 4, {0, 1, 2, 4}, 1},
            [P_ROWBLOCK] = {"rowblock", 4, {0, 1, 2, 3}},
        },
    .n_dtypes = N_DTYPES,
    .dtypes = DTYPES,
    .n_ops = CUSPEC__AXIS_N_OPS,
    .legal = legal,
    .expr = expr,
    .threads = threads,
    .defaults = defaults,
    .fits = cuspec__axis_fits,
    .fit = fit_default,
    .alternative = flat_alternative,
    .classes = classes_rows,
    .ops = &cuspec__axis_rows_ops,
};

/* cols_flat: at most 3 blocks a multiprocessor, held to that, so that a
 * grid launched programmatically after it, placed while it drains, lands
 * evenly (docs/experiments/reduce_axis.md: "Columns' argmin/argmax of a few
 * contiguous columns as a flat array"); blocks of 512 hold an SM to one by
 * their registers. */
static int held_per_sm(const struct cuspec__variant *v)
{
    return v->p[P_ROWBLOCK] == 1 ? 3 : 0;
}

const struct cuspec__family cuspec__family_reduce_cols = {
    .name = "reduce_cols",
    .template_file = "reduce_axis.cuh",
    .waits_for_prior_grid = 1,
    .n_params = 6,
    .params =
        {
            [P_BLOCK] = {"block", 4, {128, 256, 512, 1024}},
            [P_VEC] = {"vec", 5, {1, 2, 4, 8, 16}},
            [P_ITEMS] = {"items", 4, {1, 2, 4, 8}},
            [P_LANES] = {"tx", 9, {1, 2, 4, 8, 16, 32, 64, 128, 256}, 1},
            [P_GRID] = {"grid", 4, {0, 1, 2, 4}, 1},
            [P_ROWBLOCK] = {"flat", 2, {0, 1}},
        },
    .n_dtypes = N_DTYPES,
    .dtypes = DTYPES,
    .n_ops = CUSPEC__AXIS_N_OPS,
    .legal = legal,
    .expr = expr,
    .threads = threads,
    .defaults = defaults,
    .fits = cuspec__axis_fits,
    .fit = fit_default,
    .alternative = flat_alternative,
    .classes = classes_cols,
    .ops = &cuspec__axis_cols_ops,
    .held_per_sm = held_per_sm,
};
