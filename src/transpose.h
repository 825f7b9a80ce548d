/* The transpose family's names that its files and the tests share: the
 * family (transpose_family.c: parameters, rules, names, templates, tiles),
 * which kernel and parameters serve a shape (transpose_select.c), the calls
 * (transpose.c: validation and launch) and the operation hooks
 * (transpose_ops.c). Internal. */
#ifndef CUSPEC_TRANSPOSE_H
#define CUSPEC_TRANSPOSE_H

#include "ops.h"

/* Bytes in a sector, the unit of memory traffic: transposes shift rows
 * onto sectors, and alignment classes go up to one (32 one-byte elements). */
#define CUSPEC__SECTOR 32

/* The transpose family's operation hooks (transpose_ops.c). */
extern const struct cuspec__family_ops cuspec__transpose_ops;

/* A transpose's arguments, in elements. */
struct cuspec__shape {
    cuspec_devptr in, out;
    unsigned long long rows, cols, ld_in, ld_out, stride_in, stride_out, batch;
};
/* The kernel dtype standing for `dtype` (the unsigned type of its size), and
 * the shape's alignment class: the largest power of two of elements, up to
 * one 32-byte sector, that its pointers, leading dimensions and strides are
 * multiples of. Vectors up to that width fit; below a sector, output rows
 * may be shifted. Tuning records are keyed by it. */
int cuspec__transpose_dtype(int dtype);
int cuspec__transpose_align(const struct cuspec__shape *s, int kdtype);
/* A benchmark's or tuner's layout: leading dimensions of 0 become the row
 * lengths; CUSPEC_ERR_INVALID (with the detail) where one is less than its
 * row or the padded matrices would not fit in memory. */
int cuspec__transpose_layout(unsigned long long rows, unsigned long long cols,
                             unsigned long long *ld_in, unsigned long long *ld_out, size_t size);
/* 1 when a rows x cols matrix takes the narrow kernel (at most 31 rows or
 * columns): neither the tiled defaults nor tuning records apply, and its
 * alignment class is the narrow kernel's (its planar side, up to 16 bytes). */
int cuspec__transpose_narrow(unsigned long long rows, unsigned long long cols);
/* Fits v to the shape s describes (its alignment class, rows and cols):
 * narrows its vectors to s->align elements, and unless v came from a tuning
 * record (made for this class), replaces defaults whose vectors do not fit
 * with the misaligned defaults (by size) and shifts output rows to sectors
 * where they do not start on one. */
void cuspec__transpose_fit(struct cuspec__variant *v, const struct cuspec__spec *s,
                           int from_record);
/* The parameters a call on the shape s describes uses: the tuning record
 * for its bucket (or a near one), else the defaults, fitted to s; narrow
 * shapes look for no record. Returns 1 when they came from a record. */
int cuspec__transpose_params(cuspec_ctx *ctx, const struct cuspec__spec *s,
                             struct cuspec__variant *v);
/* Runs transpose variant v on checked arguments; CUSPEC_ERR_INVALID when v's
 * vector width does not fit them. The context must be current. */
int cuspec__transpose_variant(cuspec_ctx *ctx, const struct cuspec__variant *v,
                              const struct cuspec__shape *s, CUstream stream);

/* The parameters (cuspec__variant.p) and the kernels P_KERNEL names. The
 * shifted sub-word kernel is K_TILE with P_SHIFT for 1- and 2-byte
 * elements, as tuning records have it. */
enum { P_TILE, P_ROWS, P_PAD, P_VEC, P_SHIFT, P_KERNEL, P_WIDE };
enum { K_TILE, K_REGS, K_NARROW };

/* The narrow kernel (transpose_narrow.cuh's NCfg): at most NARROW_MAX rows
 * (then it reads the input's rows as planes) or columns, chunks of planes
 * within NARROW_SMEM bytes; calls take it up to NARROW_TAKE, where it beats
 * the tiled kernels (docs/experiments/transpose.md: "Narrow kernel"). */
enum { NARROW_MAX = 32, NARROW_TAKE = 31, NARROW_SMEM = 32768 };

/* Whether the narrow kernel takes the input's rows as its planes (at most
 * NARROW_MAX of them), else the output's: the template's `wide`. */
static inline int narrow_wide(unsigned long long rows)
{
    return rows <= NARROW_MAX;
}

/* Shifted sub-word kernels (cuspec_transpose_shifted_subword) read
 * realigned words and write aligned vectors whatever the alignment: their
 * vectors need none. */
static inline int shifted_subword(const struct cuspec__variant *v)
{
    return v->p[P_SHIFT] && cuspec_dtype_size(v->dtype) < 4;
}

/* What one block of v's kernel does: its threads, and the tile it takes
 * (input rows by columns) with the input rows read before it so that
 * output rows start on a sector (the templates' NT, TR, TC and XR). */
struct cuspec__transpose_block {
    int threads, tile_rows, tile_cols, extra_rows;
};
void cuspec__transpose_block_get(const struct cuspec__variant *v,
                                 struct cuspec__transpose_block *b);

/* 1 when v obeys the family's rules (its `legal`). */
int cuspec__transpose_legal(const struct cuspec__variant *v);

/* The family's hooks that choose parameters (transpose_select.c): see
 * struct cuspec__family. */
void cuspec__transpose_defaults(int arch, struct cuspec__variant *v);
int cuspec__transpose_fits(const struct cuspec__variant *v, const struct cuspec__spec *s);
void cuspec__transpose_fit_default(struct cuspec__variant *v, const struct cuspec__spec *s);
int cuspec__transpose_classes(int dtype, int op, int (*fn)(const struct cuspec__spec *s, void *user),
                              void *user);

#endif /* CUSPEC_TRANSPOSE_H */
