/* The transpose family's insides, shared by its three files: the family
 * (transpose_family.c: parameters, rules, names, templates, tiles), which
 * kernel and parameters serve a shape (transpose_select.c), and the calls
 * (transpose.c: validation and launch). Internal. */
#ifndef CUSPEC_TRANSPOSE_H
#define CUSPEC_TRANSPOSE_H

#include "tuning.h"

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
int cuspec__transpose_alternate(struct cuspec__variant *v, int k);

#endif
