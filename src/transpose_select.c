/* Which transpose kernel serves which shape, with which parameters: one
 * table of parameters by kernel and element size, and the rules that read
 * it top to bottom (narrow, register, shifted sub-word, shifted tile,
 * plain tile), for calls without a tuning record and for records fitted to
 * the shape at hand. */
#include "transpose.h"
#include "params.h"

#include <string.h>

enum { NARROW, REGS, SHIFTED_SUBWORD, SHIFTED_TILE, PLAIN_TILE };

/* Each kernel's parameters by element size: tile, rows, pad, vec, wide
 * (none where the kernel does not take the size); why, in
 * docs/experiments/transpose.md. */
static const struct params {
    int tile, rows, pad, vec, wide;
} table[][5] = {
    /* clang-format off */
    /*                     1 byte            2 bytes             4 bytes          8 bytes */
    [NARROW]          = {{16, 8, 0, 16},   {16, 8, 0, 8},      {16, 8, 0, 4},   {16, 8, 0, 2}},
    [REGS]            = {{256, 1, 0, 16}},
    [SHIFTED_SUBWORD] = {{128, 2, 1, 16},  {64, 2, 1, 8, 1}},
    [SHIFTED_TILE]    = {{0},              {0},                {64, 8, 1, 1},   {64, 8, 1, 1}},
    [PLAIN_TILE]      = {{128, 32, 1, 8},  {128, 32, 1, 8},    {64, 32, 1, 4},  {64, 8, 1, 1}},
    /* clang-format on */
};

/* Bytes in matrices of up to this many elements take shifted sub-word
 * tiles of 64 rows, not 128 (docs/experiments/transpose.md: "Misaligned
 * bytes: tiles of 64 in small matrices"). */
#define SUBWORD_SMALL (1ULL << 22)

/* Gives v the table's parameters for kernel `row` and v's element size. */
static void take(struct cuspec__variant *v, int row)
{
    static const int kernel[] = {[NARROW] = K_NARROW,
                                 [REGS] = K_REGS,
                                 [SHIFTED_SUBWORD] = K_TILE,
                                 [SHIFTED_TILE] = K_TILE,
                                 [PLAIN_TILE] = K_TILE};
    size_t size = cuspec_dtype_size(v->dtype);
    int column = size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : size == 8 ? 3 : 4;
    const struct params *p = &table[row][column];
    v->p[P_TILE] = p->tile;
    v->p[P_ROWS] = p->rows;
    v->p[P_PAD] = p->pad;
    v->p[P_VEC] = p->vec;
    v->p[P_SHIFT] = row == SHIFTED_SUBWORD || row == SHIFTED_TILE;
    v->p[P_KERNEL] = kernel[row];
    v->p[P_WIDE] = p->wide;
}

/* Halves v's vectors (and its rows, where the threads per block would
 * then not fit) until they fit the alignment class. */
static void fit_vectors(struct cuspec__variant *v, int align)
{
    while (!shifted_subword(v) && v->p[P_VEC] > align) {
        v->p[P_VEC] /= 2;
        while (!cuspec__transpose_legal(v) && v->p[P_ROWS] > 1)
            v->p[P_ROWS] /= 2;
    }
}

int cuspec__transpose_narrow(unsigned long long rows, unsigned long long cols)
{
    return rows <= NARROW_TAKE || cols <= NARROW_TAKE;
}

/* The register kernel's VEC x VEC squares that the matrix's edge cuts go
 * element by element, which only padded leading dimensions meet
 * (docs/experiments/transpose.md: "Register kernel at cut edges"). */
static int cuts_squares(const struct cuspec__variant *v, const struct cuspec__spec *s)
{
    return s->rows % v->p[P_VEC] != 0 || s->cols % v->p[P_VEC] != 0;
}

void cuspec__transpose_fit(struct cuspec__variant *v, const struct cuspec__spec *s, int from_record)
{
    int size = (int)cuspec_dtype_size(v->dtype), align = s->align;
    /* 1. Narrow matrices take the narrow kernel, tuned or not. */
    if (cuspec__transpose_narrow(s->rows, s->cols)) {
        take(v, NARROW);
        fit_vectors(v, align);
        return;
    }
    /* Parameters for a kernel this shape cannot take, a record's too, give
     * way to the plain tile's: a narrow bucket's record, nearest to this
     * one, or register squares that the edge cuts. */
    if (v->p[P_KERNEL] == K_NARROW || (v->p[P_KERNEL] == K_REGS && cuts_squares(v, s))) {
        take(v, PLAIN_TILE);
        from_record = 0;
    }
    if (from_record) { /* made for this alignment class */
        fit_vectors(v, align);
        return;
    }
    /* 2. The register kernel where its 16-byte vectors fit. */
    if (v->p[P_KERNEL] == K_REGS && v->p[P_VEC] <= align)
        return;
    if (v->p[P_KERNEL] == K_REGS)
        take(v, PLAIN_TILE);
    /* 3. Vectors that do not fit: 1- and 2-byte elements take the shifted
     * sub-word kernel, 4- and 8-byte ones the shifted tile one by one. */
    if (v->p[P_VEC] > align) {
        take(v, size < 4 ? SHIFTED_SUBWORD : SHIFTED_TILE);
        if (size == 1 && s->rows <= SUBWORD_SMALL / s->cols)
            v->p[P_TILE] = 64;
        return;
    }
    /* 4. Vectors that fit, rows below a sector: 4- and 8-byte elements
     * shift them (sub-word ones would lose their packing); 5. else the
     * plain tile. */
    v->p[P_SHIFT] = size >= 4 && align < CUSPEC__SECTOR / size;
    v->p[P_WIDE] = 0;
    if (!cuspec__transpose_legal(v))
        v->p[P_SHIFT] = 0;
    /* Unshifted, a sub-word kernel has TILE / VEC threads per row of ROWS,
     * not TILE: a shifted one's few rows may not make a warp. */
    while (!cuspec__transpose_legal(v) && v->p[P_ROWS] < 32)
        v->p[P_ROWS] *= 2;
}

int cuspec__transpose_params(cuspec_ctx *ctx, const struct cuspec__spec *s,
                             struct cuspec__variant *v)
{
    int from_record = 0;
    if (cuspec__transpose_narrow(s->rows, s->cols)) {
        /* no record applies: no lookup in the store */
        memset(v, 0, sizeof *v);
        v->family = s->family;
        v->dtype = s->dtype;
    } else {
        from_record = cuspec__tuned_params(ctx, s, v);
    }
    cuspec__transpose_fit(v, s, from_record);
    return from_record;
}

/* The default, for large aligned matrices: the register kernel where the
 * table has one for the size (bytes), else the plain tile. */
void cuspec__transpose_defaults(int arch, struct cuspec__variant *v)
{
    (void)arch;
    take(v, cuspec_dtype_size(v->dtype) == 1 ? REGS : PLAIN_TILE);
}

/* Shifting only helps output rows that do not start on a sector; other
 * kernels need vectors no wider than the shape's alignment class. */
int cuspec__transpose_fits(const struct cuspec__variant *v, const struct cuspec__spec *s)
{
    if (v->p[P_KERNEL] == K_NARROW)
        return (narrow_wide(s->rows) || s->cols <= NARROW_MAX) && v->p[P_VEC] <= s->align;
    /* A narrow shape's alignment class is the narrow kernel's, which counts
     * one leading dimension: other kernels' vectors need both. */
    if (cuspec__transpose_narrow(s->rows, s->cols) && !shifted_subword(v))
        return v->p[P_VEC] == 1;
    if (v->p[P_SHIFT] && s->align >= CUSPEC__SECTOR / (int)cuspec_dtype_size(v->dtype))
        return 0;
    return shifted_subword(v) || v->p[P_VEC] <= s->align;
}

void cuspec__transpose_fit_default(struct cuspec__variant *v, const struct cuspec__spec *s)
{
    cuspec__transpose_fit(v, s, 0);
}

/* A narrow shape; small and large ones (SUBWORD_SMALL), with sides that
 * cut the register kernel's squares and sides that do not; each in every
 * alignment class up to a sector. */
int cuspec__transpose_classes(int dtype, int op, int (*fn)(const struct cuspec__spec *s, void *user),
                              void *user)
{
    static const unsigned long long sides[][2] = {
        {8, 4096}, {64, 64}, {65, 65}, {4096, 4096}, {4097, 4097}};
    int size = (int)cuspec_dtype_size(dtype);
    for (size_t i = 0; i < sizeof sides / sizeof *sides; i++)
        for (int align = 1; align <= CUSPEC__SECTOR / size; align *= 2) {
            struct cuspec__spec s = {.family = CUSPEC__FAM_TRANSPOSE,
                                     .op = op,
                                     .dtype = dtype,
                                     .rows = sides[i][0],
                                     .cols = sides[i][1],
                                     .align = align};
            int rc = fn(&s, user);
            if (rc != 0)
                return rc;
        }
    return 0;
}
