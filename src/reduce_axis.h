/* The axis reductions' names that their files and the tests share: the two
 * families, reduce_rows and reduce_cols (reduce_axis.c: parameters, rules,
 * names, and which parameters serve which shape), the calls
 * (reduce_axis_call.c: validation and launch) and the operation hooks
 * (reduce_axis_ops.c). Both families compile templates/reduce_axis.cuh.
 * Internal. */
#ifndef CUSPEC_REDUCE_AXIS_H
#define CUSPEC_REDUCE_AXIS_H

#include "ops.h"
#include "workspace.h"

/* The kernels' ops (the template's OP): the public cuspec_op values, then
 * dot, a map-reduce of two inputs. */
enum {
    CUSPEC__AXIS_SUM,
    CUSPEC__AXIS_MIN,
    CUSPEC__AXIS_MAX,
    CUSPEC__AXIS_ARGMIN,
    CUSPEC__AXIS_ARGMAX,
    CUSPEC__AXIS_DOT,
    CUSPEC__AXIS_N_OPS
};

/* The parameters (cuspec__variant.p) of both families. LANES is the rows
 * kernel's threads per row (0: the whole block), the columns kernel's
 * threads along the columns (its TX); GRID is blocks per multiprocessor (0:
 * as many as fit). Both are launch parameters. ROWBLOCK (rows) 1: the
 * kernel that gives each row a block of its own, reading through L1
 * (cuspec_reduce_rows_block); 2: the one that gives each chunk of a row a
 * block (cuspec_reduce_rows_split); 3: a matrix read as one array of
 * groups of 4 16-byte vectors of a row
 * (cuspec_reduce_rows_flat); LANES and GRID 0 for all three. ROWBLOCK
 * (columns, "flat") 1: argmin/argmax of a matrix read as one array of
 * 16-byte vectors (cuspec_reduce_cols_flat). */
enum { P_BLOCK, P_VEC, P_ITEMS, P_LANES, P_GRID, P_ROWBLOCK };

/* Whether the flat kernel of s's family takes the operation s describes:
 * argmin/argmax (rows_flat: any op but dot) of one matrix (batch 0 or 1) of
 * 4-byte elements, rows of 1 to 32 whole vectors of 16 bytes (a power of
 * two; rows_flat 4 to 32),
 * ld == cols (ld_in 0: cols), 16-byte aligned (align 0: unknown, taken as
 * aligned); cuspec_reduce_cols_flat fewer than CUSPEC__AXIS_FLAT_ROWS rows
 * (its packed keys' 31-bit row). */
#define CUSPEC__AXIS_FLAT_ROWS 0x7fffffffULL
/* rows_flat's group: the 16-byte vectors of a row a thread folds together
 * (P in templates/reduce_axis.cuh), so its rows are 1 to 8 groups and its
 * ITEMS a multiple of it. */
#define CUSPEC__AXIS_ROWS_FLAT_GROUP 4
/* Whether v is its family's flat kernel (ROWBLOCK 3 of rows, 1 of columns). */
int cuspec__axis_is_flat(const struct cuspec__variant *v);
int cuspec__axis_flat_spec(const struct cuspec__spec *s);
/* The families' fits: 1 unless v is a flat kernel's (cols_flat, rows_flat)
 * and the operation s is not one it takes (cuspec__axis_flat_spec), or v is
 * cols_flat's but its tx is not the vectors a row or its GRID not 0
 * (cols_flat sets both itself: the tuner times no copies of one launch). */
int cuspec__axis_fits(const struct cuspec__variant *v, const struct cuspec__spec *s);

/* The kernel op of public op `op` (-1 is dot, as cuspec_tune_spec has it),
 * or -1 when it names none. */
int cuspec__axis_op(int op);
/* The dtype of the values a kernel op writes for `dtype` (sums of integers:
 * 64 bits; argmin/argmax: the value, beside its i64 index), 0 when the
 * families do not take the pair. */
int cuspec__axis_out_dtype(int kop, int dtype);
/* Bytes of one partial result of kernel op `kop` in scratch, at most. */
size_t cuspec__axis_partial_bytes(int kop);

/* An axis reduction's arguments, checked: `batch` matrices of rows x cols,
 * rows ld elements apart, matrices `stride` apart; `rows_axis`: one result
 * per row (else per column). */
struct cuspec__axis_call {
    int rows_axis, kop, dtype;
    cuspec_devptr a, b, value, index;
    unsigned long long rows, cols, ld, stride, batch;
};

/* What can be checked of c without the device (CUSPEC_ERR_INVALID saying
 * what is wrong); *results gets how many results the call writes. */
int cuspec__axis_check(const struct cuspec__axis_call *c, unsigned long long *results);
/* Runs variant v on checked arguments (the context current): `spec` not
 * NULL for a public call (its kernel may fall back), `held` the scratch
 * the caller holds (NULL: the call takes its own where it splits). */
int cuspec__axis_run(cuspec_ctx *ctx, struct cuspec__variant *v, const struct cuspec__spec *spec,
                     const struct cuspec__axis_call *c, CUstream stream,
                     const struct cuspec__scratch *held);
/* What a checked call c chooses its kernel by: the family, op, dtype and
 * shape (rows: the batch's rows together, its batch kept only where the
 * matrices are apart; columns: the batch), ld, and in align the elements
 * every row starts on (its pointers, ld and, batched, the stride; a power
 * of two, at most 16 bytes' worth). */
struct cuspec__spec cuspec__axis_spec(const struct cuspec__axis_call *c);
/* The public call behind cuspec_reduce_rows/_cols and cuspec_dot_rows/_cols
 * (`what` names it in errors): checks, chooses, runs. */
int cuspec__axis_call(cuspec_ctx *ctx, const char *what, struct cuspec__axis_call *c,
                      const cuspec_matrix *shape, void *stream);

/* The shape classes the record-free choice tells apart, which tuning
 * records never cross: rows, short rows (log2 cols <= SHORT_LOG2) and long
 * ones, with at least MANY_ROWS_LOG2 rows (a warp per row, or where a row
 * reads 2^ROWBLOCK_LOG2 bytes or more, a dot's row both inputs' elements of
 * elem_size bytes, a block per row: rows_block) or fewer (a block per row,
 * split across blocks where it is long; from 2^FEW_ROWBLOCK_ROWS_LOG2 rows
 * of less than 2^(FEW_ROWBLOCK_LOG2 + 1) bytes an input, rows_block as for
 * many rows); columns, one class. kop: the kernel op. */
enum {
    CUSPEC__AXIS_SHORT_LOG2 = 6,
    CUSPEC__AXIS_MANY_ROWS_LOG2 = 11,
    CUSPEC__AXIS_ROWBLOCK_LOG2 = 13,
    CUSPEC__AXIS_FEW_ROWBLOCK_ROWS_LOG2 = 10,
    CUSPEC__AXIS_FEW_ROWBLOCK_LOG2 = 15
};
int cuspec__axis_class(int family, int kop, int rows_log2, int cols_log2, size_t elem_size);

/* The elements every row of s starts on (ld, and align where set), a power
 * of two up to the 16-byte vector's. */
unsigned long long cuspec__axis_row_start(const struct cuspec__spec *s);

static inline int cuspec__axis_is_arg(int kop)
{
    return kop == CUSPEC__AXIS_ARGMIN || kop == CUSPEC__AXIS_ARGMAX;
}

/* The columns kernel's splits (blocks per column strip) for argmin/argmax
 * of `rows` rows with `thread_rows` rows of threads a block: `splits`,
 * raised where a thread would otherwise take more than 2^31 rows (up to
 * 65535, the grid's limit). */
unsigned cuspec__axis_arg_splits(unsigned long long rows, unsigned thread_rows, unsigned splits);

/* Fits v (the defaults) to the shape s describes: the record-free choice of
 * threads per row or along the columns. A record's v (from_record) is left
 * as tuned: records serve only their own class of shapes. */
void cuspec__axis_fit(struct cuspec__variant *v, const struct cuspec__spec *s, int from_record);

/* The families' operation hooks (reduce_axis_ops.c). */
extern const struct cuspec__family_ops cuspec__axis_rows_ops, cuspec__axis_cols_ops;

#endif /* CUSPEC_REDUCE_AXIS_H */
