/* The transpose family's names that its files and the tests share
 * (transpose.c: the kernels and the public calls; transpose_ops.c: its
 * operation hooks). Internal. */
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

#endif /* CUSPEC_TRANSPOSE_H */
