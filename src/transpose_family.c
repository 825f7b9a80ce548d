/* The transpose family (templates/transpose_*.cuh): its parameters and the
 * rules that keep them legal, each kernel's name expression, template and
 * block. Which kernel serves which shape: transpose_select.c; the calls:
 * transpose.c. */
#include "transpose.h"

#include <stdio.h>

/* The kernel's element word for a dtype: only the size matters. */
static const char *word(int dtype)
{
    switch (cuspec_dtype_size(dtype)) {
    case 1:
        return "unsigned char";
    case 2:
        return "unsigned short";
    case 4:
        return "unsigned int";
    case 8:
        return "unsigned long long";
    }
    return NULL;
}

/* Rows packed per 32-bit shared unit for sub-word elements (transpose_tile.cuh's K). */
static int packing(const struct cuspec__variant *v)
{
    int size = (int)cuspec_dtype_size(v->dtype), k = 4 / size;
    if (size >= 4)
        return 1;
    return shifted_subword(v) || v->p[P_VEC] >= k ? k : v->p[P_VEC];
}

/* Input rows read before the tile so that output rows start on a sector
 * (the templates' XR). */
static int extra_rows(const struct cuspec__variant *v)
{
    int se = CUSPEC__SECTOR / (int)cuspec_dtype_size(v->dtype);
    return v->p[P_SHIFT] ? (shifted_subword(v) ? se : se - 1) : 0;
}

/* The register kernel's warps (transpose_regs.cuh's RCfg::WX and WY, 16-byte
 * vectors): REGS_WX lanes of VEC elements along the input rows by REGS_WY
 * lanes of VEC rows. */
enum { REGS_WX = 4, REGS_WY = 8 };

/* Columns per tile (the templates' TC): wide tiles are twice as wide as
 * they are high. */
static int tile_cols(const struct cuspec__variant *v)
{
    if (v->p[P_KERNEL] == K_NARROW)
        return NARROW_SMEM; /* a multiple of any chunk, for the pieces */
    return v->p[P_TILE] << v->p[P_WIDE];
}

static int threads(const struct cuspec__variant *v)
{
    if (v->p[P_KERNEL] == K_NARROW)
        return 32 * v->p[P_ROWS];
    if (v->p[P_KERNEL] == K_REGS)
        return v->p[P_TILE] / (REGS_WX * v->p[P_VEC]) * v->p[P_ROWS] * 32;
    return shifted_subword(v) ? tile_cols(v) * v->p[P_ROWS]
                              : v->p[P_TILE] / v->p[P_VEC] * v->p[P_ROWS];
}

/* Input rows per tile. */
static int tile_rows(const struct cuspec__variant *v)
{
    if (v->p[P_KERNEL] == K_NARROW)
        return NARROW_SMEM;
    return v->p[P_KERNEL] == K_REGS ? v->p[P_ROWS] * REGS_WY * v->p[P_VEC] : v->p[P_TILE];
}

/* The register kernel: 1- and 2-byte elements in 16-byte vectors, no
 * padding or shift (it has no shared tile). */
static int legal_regs(const struct cuspec__variant *v)
{
    int size = (int)cuspec_dtype_size(v->dtype), tile = v->p[P_TILE];
    if (size > 2 || v->p[P_VEC] * size != 16 || v->p[P_PAD] || v->p[P_SHIFT])
        return 0;
    return tile % (REGS_WX * v->p[P_VEC]) == 0 && threads(v) <= 1024;
}

int cuspec__transpose_legal(const struct cuspec__variant *v)
{
    int size = (int)cuspec_dtype_size(v->dtype), tile = v->p[P_TILE], rows = v->p[P_ROWS];
    int vec = v->p[P_VEC];
    if (word(v->dtype) == NULL || v->op != 0)
        return 0;
    /* the narrow kernel: 32 * rows threads, vec; the other parameters at
     * their first values */
    if (v->p[P_KERNEL] == K_NARROW)
        return tile == 16 && !v->p[P_PAD] && !v->p[P_SHIFT] && !v->p[P_WIDE] && vec * size <= 16;
    /* wide tiles: only the shifted 1- and 2-byte kernels have them */
    if (v->p[P_WIDE] != 0 && (v->p[P_WIDE] != 1 || !shifted_subword(v)))
        return 0;
    if (v->p[P_KERNEL] == K_REGS)
        return legal_regs(v);
    if (tile > 128 || vec * size > 16 || tile % vec != 0)
        return 0;
    int k = packing(v), n = threads(v);
    if (v->p[P_SHIFT] && tile * size % CUSPEC__SECTOR != 0)
        return 0;
    if (shifted_subword(v) && (vec % k != 0 || tile % (rows * vec) != 0))
        return 0;
    int unit = k * size, padu = v->p[P_PAD] ? (unit >= 4 ? 1 : 4 / unit) : 0;
    int smem = (tile + extra_rows(v)) / k * (tile_cols(v) + padu) * unit;
    return (tile / k) % rows == 0 && n % 32 == 0 && n <= 1024 && smem <= 48 * 1024;
}

static void expr(const struct cuspec__variant *v, char *buf, size_t size)
{
    if (v->p[P_KERNEL] == K_NARROW) {
        snprintf(buf, size, "cuspec_transpose_narrow<%s, %d, %d>", word(v->dtype), threads(v),
                 v->p[P_VEC]);
        return;
    }
    if (v->p[P_KERNEL] == K_REGS) {
        snprintf(buf, size, "cuspec_transpose_regs<%s, %d, %d, %d>", word(v->dtype), v->p[P_TILE],
                 v->p[P_ROWS], v->p[P_VEC]);
        return;
    }
    if (shifted_subword(v)) {
        snprintf(buf, size, "cuspec_transpose_shifted_subword<%s, %d, %d, %d, %d, %d>",
                 word(v->dtype), v->p[P_TILE], v->p[P_ROWS], v->p[P_PAD], v->p[P_VEC],
                 v->p[P_WIDE]);
        return;
    }
    snprintf(buf, size, "cuspec_transpose<%s, %d, %d, %d, %d, %d>", word(v->dtype), v->p[P_TILE],
             v->p[P_ROWS], v->p[P_PAD], v->p[P_VEC], v->p[P_SHIFT]);
}

/* One template per kernel, so that a change to one kernel keeps the store
 * keys of the others. */
static const char *template_of(const struct cuspec__variant *v)
{
    static const char *const files[] = {
        [K_TILE] = "transpose_tile.cuh",
        [K_REGS] = "transpose_regs.cuh",
        [K_NARROW] = "transpose_narrow.cuh",
    };
    return shifted_subword(v) ? "transpose_shifted_subword.cuh" : files[v->p[P_KERNEL]];
}

void cuspec__transpose_block_get(const struct cuspec__variant *v, struct cuspec__transpose_block *b)
{
    b->threads = threads(v);
    b->tile_rows = tile_rows(v);
    b->tile_cols = tile_cols(v);
    b->extra_rows = extra_rows(v);
}

const struct cuspec__family cuspec__family_transpose = {
    .name = "transpose",
    .template_of = template_of,
    .waits_for_prior_grid = 1,
    .n_params = 7,
    .params =
        {
            [P_TILE] = {"tile", 5, {16, 32, 64, 128, 256}},
            [P_ROWS] = {"rows", 6, {1, 2, 4, 8, 16, 32}},
            [P_PAD] = {"pad", 2, {0, 1}},
            [P_VEC] = {"vec", 5, {1, 2, 4, 8, 16}},
            [P_SHIFT] = {"shift", 2, {0, 1}},
            [P_KERNEL] = {"kernel", 3, {K_TILE, K_REGS, K_NARROW}},
            [P_WIDE] = {"wide", 2, {0, 1}},
        },
    .n_dtypes = 4,
    .dtypes = {CUSPEC_U8, CUSPEC_U16, CUSPEC_U32, CUSPEC_U64},
    .n_ops = 1,
    .legal = cuspec__transpose_legal,
    .expr = expr,
    .threads = threads,
    .defaults = cuspec__transpose_defaults,
    .fits = cuspec__transpose_fits,
    .fit = cuspec__transpose_fit_default,
    .classes = cuspec__transpose_classes,
    .ops = &cuspec__transpose_ops,
};
