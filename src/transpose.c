/* The transpose family (templates/transpose_*.cuh) and cuspec_transpose:
 * out-of-place, batched, any shape, 1-, 2-, 4- and 8-byte elements. */
#include "tuning.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

enum { P_TILE, P_ROWS, P_PAD, P_VEC, P_SHIFT, P_KERNEL, P_WIDE };

/* The kernels (P_KERNEL): shared tile, registers, narrow. */
enum { K_TILE, K_REGS, K_NARROW };

/* The narrow kernel (the template's NCfg): at most NARROW_MAX rows (then
 * it reads the input's rows as planes) or columns, chunks of planes within
 * NARROW_SMEM bytes; calls take it up to NARROW_TAKE, where it beats the
 * tiled kernels (docs/experiments/transpose.md: "Narrow kernel"). */
enum { NARROW_MAX = 32, NARROW_TAKE = 31, NARROW_SMEM = 32768 };

int cuspec__transpose_narrow(unsigned long long rows, unsigned long long cols)
{
    return rows <= NARROW_TAKE || cols <= NARROW_TAKE;
}

/* Whether the narrow kernel takes the input's rows as its planes (at most
 * NARROW_MAX of them), else the output's: the template's `wide`. */
static int narrow_wide(unsigned long long rows)
{
    return rows <= NARROW_MAX;
}

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

/* Shifted sub-word kernels (cuspec_transpose_shifted_subword) read
 * realigned words and write aligned vectors whatever the alignment: their
 * vectors need none. */
static int shifted_subword(const struct cuspec__variant *v)
{
    return v->p[P_SHIFT] && cuspec_dtype_size(v->dtype) < 4;
}

/* Rows packed per 32-bit shared unit for sub-word elements (the template's K). */
static int packing(const struct cuspec__variant *v)
{
    int size = (int)cuspec_dtype_size(v->dtype), k = 4 / size;
    if (size >= 4)
        return 1;
    return shifted_subword(v) || v->p[P_VEC] >= k ? k : v->p[P_VEC];
}

/* Input rows read before the tile so that output rows start on a sector
 * (the template's XR). */
static int extra_rows(const struct cuspec__variant *v)
{
    int se = CUSPEC__SECTOR / (int)cuspec_dtype_size(v->dtype);
    return v->p[P_SHIFT] ? (shifted_subword(v) ? se : se - 1) : 0;
}

/* The register kernel's warps (the template's RCfg::WX and WY, 16-byte
 * vectors): REGS_WX lanes of VEC elements along the input rows by REGS_WY
 * lanes of VEC rows. */
enum { REGS_WX = 4, REGS_WY = 8 };

/* Columns per tile (the template's TC): wide tiles are twice as wide as
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

static int legal(const struct cuspec__variant *v)
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

/* The fastest shared-tile kernels for each element size
 * (docs/experiments/transpose.md: "Plain tile defaults"). */
static void plain_default(struct cuspec__variant *v)
{
    static const int by_size[9][4] = {
        [1] = {128, 32, 1, 8},
        [2] = {128, 32, 1, 8},
        [4] = {64, 32, 1, 4},
        [8] = {64, 8, 1, 1},
    };
    size_t size = cuspec_dtype_size(v->dtype);
    memcpy(&v->p[P_TILE], by_size[size <= 8 ? size : 0], 4 * sizeof(int));
    v->p[P_SHIFT] = 0;
    v->p[P_KERNEL] = K_TILE;
    v->p[P_WIDE] = 0;
}

/* Bytes take the register kernel (docs/experiments/transpose.md:
 * "Register kernel"). */
static void defaults(int arch, struct cuspec__variant *v)
{
    (void)arch;
    plain_default(v);
    if (cuspec_dtype_size(v->dtype) == 1) {
        static const int regs[4] = {256, 1, 0, 16};
        memcpy(&v->p[P_TILE], regs, sizeof regs);
        v->p[P_KERNEL] = K_REGS;
    }
}

/* Shifting only helps output rows that do not start on a sector; other
 * kernels need vectors no wider than the shape's alignment class. */
static int fits(const struct cuspec__variant *v, const struct cuspec__spec *s)
{
    if (v->p[P_KERNEL] == K_NARROW)
        return (narrow_wide(s->rows) || s->cols <= NARROW_MAX) && v->p[P_VEC] <= s->align;
    if (v->p[P_SHIFT] && s->align >= CUSPEC__SECTOR / (int)cuspec_dtype_size(v->dtype))
        return 0;
    return shifted_subword(v) || v->p[P_VEC] <= s->align;
}

/* What cuspec__transpose_fit makes of default v for a square of side
 * `side` in the least aligned class (odd leading dimensions). */
static void misaligned(struct cuspec__variant *v, unsigned long long side)
{
    struct cuspec__spec s = {.rows = side, .cols = side, .align = 1};
    cuspec__transpose_fit(v, &s, 0);
}

/* The narrow kernel's default: 256 threads, 16-byte vectors. */
static void narrow_default(struct cuspec__variant *v)
{
    static const int narrow[7] = {[P_TILE] = 16, [P_ROWS] = 8, [P_KERNEL] = K_NARROW};
    memcpy(v->p, narrow, sizeof narrow);
    v->p[P_VEC] = 16 / (int)cuspec_dtype_size(v->dtype);
}

/* The defaults for misaligned rows: k = 0 for large matrices, 1 for small
 * ones (see SUBWORD_SMALL), each only where it differs from those before; and
 * for narrow matrices, k = 2 with the widest vectors and k = 3 with none. */
static int alternate(struct cuspec__variant *v, int k)
{
    if (k > 3)
        return -1;
    if (k >= 2) {
        narrow_default(v);
        if (k == 3)
            v->p[P_VEC] = 1;
        return legal(v);
    }
    struct cuspec__variant d = *v, large = *v;
    misaligned(&large, 1ULL << 16);
    if (k == 0)
        *v = large;
    else
        misaligned(v, 64); /* small, and not narrow */
    return legal(v) && memcmp(&d, v, sizeof d) != 0 &&
           (k == 0 || memcmp(&large, v, sizeof large) != 0);
}

const struct cuspec__family cuspec__family_transpose = {
    .name = "transpose",
    .template_of = template_of,
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
    .legal = legal,
    .expr = expr,
    .threads = threads,
    .defaults = defaults,
    .fits = fits,
    .alternate = alternate,
};

/* Whether v's vector width fits the pointers and leading dimensions. */
static int vec_fits(const struct cuspec__variant *v, const struct cuspec__shape *s)
{
    if (shifted_subword(v))
        return 1; /* element alignment, which check() ensures */
    unsigned long long vec = (unsigned long long)v->p[P_VEC];
    unsigned long long bytes = vec * cuspec_dtype_size(v->dtype);
    if (v->p[P_KERNEL] == K_NARROW) {
        /* vectors along the matrix's rows on its planar side (the narrow
         * side's rows); the flat side's records are whole vectors where
         * they lie end to end (ld = R), else elements */
        unsigned long long ld = narrow_wide(s->rows) ? s->ld_in : s->ld_out;
        return s->in % bytes == 0 && s->out % bytes == 0 && ld % vec == 0 &&
               (s->batch == 1 || (s->stride_in % vec == 0 && s->stride_out % vec == 0));
    }
    return s->in % bytes == 0 && s->out % bytes == 0 && s->ld_in % vec == 0 &&
           s->ld_out % vec == 0 &&
           (s->batch == 1 || (s->stride_in % vec == 0 && s->stride_out % vec == 0));
}

int cuspec__transpose_dtype(int dtype)
{
    static const int by_size[] = {0, CUSPEC_U8, CUSPEC_U16, 0, CUSPEC_U32, 0, 0, 0, CUSPEC_U64};
    size_t size = cuspec_dtype_size(dtype);
    return size <= 8 ? by_size[size] : 0;
}

int cuspec__transpose_align(const struct cuspec__shape *s, int kdtype)
{
    struct cuspec__variant v = {0};
    v.dtype = kdtype;
    v.p[P_KERNEL] = cuspec__transpose_narrow(s->rows, s->cols) ? K_NARROW : K_TILE;
    int widest = v.p[P_KERNEL] == K_NARROW ? 16 : CUSPEC__SECTOR; /* bytes */
    for (v.p[P_VEC] = widest / (int)cuspec_dtype_size(kdtype); v.p[P_VEC] > 1; v.p[P_VEC] /= 2)
        if (vec_fits(&v, s))
            break;
    return v.p[P_VEC];
}

/* Bytes in matrices of up to this many elements take the misaligned
 * default with tiles of 64 (see cuspec__transpose_fit). */
#define SUBWORD_SMALL (1ULL << 22)

void cuspec__transpose_fit(struct cuspec__variant *v, const struct cuspec__spec *s,
                           int from_record)
{
    int size = (int)cuspec_dtype_size(v->dtype), align = s->align;
    if (cuspec__transpose_narrow(s->rows, s->cols)) {
        /* Narrow matrices take the narrow kernel, tuned or not (see
         * NARROW_TAKE). */
        narrow_default(v);
        while (v->p[P_VEC] > align)
            v->p[P_VEC] /= 2;
        return;
    }
    if (v->p[P_KERNEL] == K_NARROW) {
        plain_default(v); /* a record from a narrow bucket, nearest to this one */
        from_record = 0;
    }
    if (v->p[P_KERNEL] == K_REGS && (s->rows % v->p[P_VEC] != 0 || s->cols % v->p[P_VEC] != 0)) {
        /* The register kernel's squares (VEC x VEC) that the matrix's edge
         * cuts go element by element, which only padded leading dimensions
         * meet; this holds for records too, a padded layout's tuning
         * included (docs/experiments/transpose.md: "Register kernel at cut
         * edges"). */
        plain_default(v);
        from_record = 0;
    }
    if (!from_record && v->p[P_KERNEL] == K_REGS && v->p[P_VEC] > align)
        plain_default(v); /* its 16-byte vectors do not fit: a shared-tile kernel */
    if (!from_record && v->p[P_VEC] > align) {
        /* 4- and 8-byte elements one by one, shifted; 1- and 2-byte ones
         * through the shifted sub-word kernel: halves in wide tiles of 64
         * rows, bytes in tiles of 64 up to SUBWORD_SMALL elements, else 128
         * (docs/experiments/transpose.md: "Write-side shift", "Shifted
         * sub-word kernels", "Misaligned halves: tiles of 64", "Wide tiles",
         * "Misaligned bytes: tiles of 64 in small matrices"). */
        static const int by_size[9][5] = {/* tile, rows, pad, vec; wide */
            [1] = {128, 2, 1, 16, 0}, [2] = {64, 2, 1, 8, 1}, [4] = {64, 8, 1, 1, 0},
            [8] = {64, 8, 1, 1, 0}};
        const int *d = by_size[size <= 8 ? size : 0];
        memcpy(&v->p[P_TILE], d, 4 * sizeof *d);
        v->p[P_SHIFT] = 1;
        v->p[P_WIDE] = d[4];
        if (size == 1 && s->rows <= SUBWORD_SMALL / s->cols)
            v->p[P_TILE] = 64;
    } else if (!from_record) {
        /* The default's vectors fit: shift 4- and 8-byte rows below a
         * sector (sub-word ones would lose their packing). */
        v->p[P_SHIFT] = size >= 4 && align < CUSPEC__SECTOR / size;
        v->p[P_WIDE] = 0;
        if (!legal(v))
            v->p[P_SHIFT] = 0;
        /* Unshifted, a sub-word kernel has TILE / VEC threads per row of
         * ROWS, not TILE: a shifted one's few rows may not make a warp. */
        while (!legal(v) && v->p[P_ROWS] < 32)
            v->p[P_ROWS] *= 2;
    }
    while (!shifted_subword(v) && v->p[P_VEC] > align) {
        v->p[P_VEC] /= 2;
        while (!legal(v) && v->p[P_ROWS] > 1)
            v->p[P_ROWS] /= 2;
    }
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

/* One launch of k over s, one tile per block: x down the tile rows, y
 * across, z over the batch; s fits the grid's limits. */
static int launch_piece(cuspec_ctx *ctx, const struct cuspec__kernel *k,
                        const struct cuspec__variant *v, struct cuspec__shape s, CUstream stream)
{
    unsigned long long tr = (unsigned)tile_rows(v), tc = (unsigned)tile_cols(v);
    unsigned grid[3] = {(unsigned)((s.rows + (unsigned)extra_rows(v) + tr - 1) / tr),
                        (unsigned)((s.cols + tc - 1) / tc), (unsigned)s.batch};
    if (v->p[P_KERNEL] == K_NARROW) {
        /* chunks of the long side: the largest power of two, at least 32
         * vectors, whose planes fit NARROW_SMEM (the kernel's own sum) */
        int wide = narrow_wide(s.rows);
        unsigned long long r = wide ? s.rows : s.cols, n = wide ? s.cols : s.rows;
        unsigned long long size = cuspec_dtype_size(v->dtype), chunk = 32ULL * v->p[P_VEC];
        while (2 * chunk * r * size <= NARROW_SMEM)
            chunk *= 2;
        grid[0] = (unsigned)((n + chunk - 1) / chunk);
        grid[1] = 1;
    }
    void *args[] = {&s.in,    &s.out,    &s.rows,      &s.cols,
                    &s.ld_in, &s.ld_out, &s.stride_in, &s.stride_out};
    unsigned long long bytes = 2 * s.rows * s.cols * s.batch * cuspec_dtype_size(v->dtype);
    return cuspec__launch(ctx, k, v, grid, (unsigned)threads(v), bytes <= CUSPEC__PDL_TILED_BYTES,
                          stream, args);
}

static unsigned long long min_ull(unsigned long long a, unsigned long long b)
{
    return a < b ? a : b;
}

int cuspec__transpose_variant(cuspec_ctx *ctx, const struct cuspec__variant *v,
                              const struct cuspec__shape *s, CUstream stream)
{
    char kname[256];
    expr(v, kname, sizeof kname);
    CUSPEC__RETURN_IF(!vec_fits(v, s), CUSPEC_ERR_INVALID,
                      "%s needs in, out, ld_in, ld_out (and strides) aligned to %d elements", kname,
                      v->p[P_VEC]);
    struct cuspec__kernel k;
    int rc = cuspec__function(ctx, v, &k);
    /* Where the grid cannot hold the whole matrix (2^31 - 1 tile rows, 65535
     * tile columns, 65535 batch entries), pieces of whole tiles: each is a
     * transpose of its own, so every vector stays aligned. */
    const unsigned long long max_rows = (1ULL << 30) * (unsigned)tile_rows(v);
    const unsigned long long max_cols = 65535ULL * (unsigned)tile_cols(v), max_batch = 65535;
    const unsigned long long size = cuspec_dtype_size(v->dtype);
    for (unsigned long long b = 0; rc == CUSPEC_OK && b < s->batch; b += max_batch)
        for (unsigned long long c = 0; rc == CUSPEC_OK && c < s->cols; c += max_cols)
            for (unsigned long long r = 0; rc == CUSPEC_OK && r < s->rows; r += max_rows) {
                struct cuspec__shape p = *s;
                p.in += (b * s->stride_in + r * s->ld_in + c) * size;
                p.out += (b * s->stride_out + c * s->ld_out + r) * size;
                p.rows = min_ull(s->rows - r, max_rows);
                p.cols = min_ull(s->cols - c, max_cols);
                p.batch = min_ull(s->batch - b, max_batch);
                rc = launch_piece(ctx, &k, v, p, stream);
            }
    return rc;
}

/* Elements spanned by `count` matrices of `rows` rows of `cols` elements. */
static int extent(unsigned long long count, unsigned long long stride, unsigned long long rows,
                  unsigned long long ld, unsigned long long cols, unsigned long long size,
                  unsigned long long *bytes)
{
    unsigned long long a, b, total;
    if (__builtin_mul_overflow(count - 1, stride, &a) || __builtin_mul_overflow(rows - 1, ld, &b) ||
        __builtin_add_overflow(a, b, &total) || __builtin_add_overflow(total, cols, &total) ||
        __builtin_mul_overflow(total, size, bytes))
        return 0;
    return 1;
}

/* Each leading dimension at least its row. */
static int lds_cover(unsigned long long rows, unsigned long long cols, unsigned long long ld_in,
                     unsigned long long ld_out)
{
    CUSPEC__RETURN_IF(ld_in < cols, CUSPEC_ERR_INVALID, "ld_in (%llu) is less than cols (%llu)",
                      ld_in, cols);
    CUSPEC__RETURN_IF(ld_out < rows, CUSPEC_ERR_INVALID, "ld_out (%llu) is less than rows (%llu)",
                      ld_out, rows);
    return CUSPEC_OK;
}

int cuspec__transpose_layout(unsigned long long rows, unsigned long long cols,
                             unsigned long long *ld_in, unsigned long long *ld_out, size_t size)
{
    unsigned long long in_bytes, out_bytes;
    *ld_in = *ld_in ? *ld_in : cols;
    *ld_out = *ld_out ? *ld_out : rows;
    int rc = lds_cover(rows, cols, *ld_in, *ld_out);
    if (rc != CUSPEC_OK)
        return rc;
    CUSPEC__RETURN_IF(!extent(1, 0, rows, *ld_in, *ld_in, size, &in_bytes) ||
                          !extent(1, 0, cols, *ld_out, *ld_out, size, &out_bytes) ||
                          in_bytes > SIZE_MAX || out_bytes > SIZE_MAX,
                      CUSPEC_ERR_INVALID, "a %llux%llu matrix with leading dimensions %llu and "
                      "%llu does not fit in memory", rows, cols, *ld_in, *ld_out);
    return CUSPEC_OK;
}

static int check(const struct cuspec__shape *s, size_t size)
{
    unsigned long long in_bytes, out_bytes;
    CUSPEC__RETURN_IF(s->in == 0 || s->out == 0, CUSPEC_ERR_INVALID, "%s is NULL",
                      s->in == 0 ? "in" : "out");
    CUSPEC__RETURN_IF(s->rows == 0 || s->cols == 0 || s->batch == 0, CUSPEC_ERR_INVALID,
                      "%s is zero",
                      s->rows == 0   ? "rows"
                      : s->cols == 0 ? "cols"
                                     : "batch");
    int rc = lds_cover(s->rows, s->cols, s->ld_in, s->ld_out);
    if (rc != CUSPEC_OK)
        return rc;
    CUSPEC__RETURN_IF(s->in % size != 0 || s->out % size != 0, CUSPEC_ERR_INVALID,
                      "%s is not aligned to its %zu-byte elements", s->in % size ? "in" : "out",
                      size);
    CUSPEC__RETURN_IF(
        !extent(s->batch, s->stride_in, s->rows, s->ld_in, s->cols, size, &in_bytes) ||
            !extent(s->batch, s->stride_out, s->cols, s->ld_out, s->rows, size, &out_bytes) ||
            s->in + in_bytes < s->in || s->out + out_bytes < s->out,
        CUSPEC_ERR_INVALID, "the matrices' extent overflows 64 bits");
    CUSPEC__RETURN_IF(s->batch > 1 && s->stride_out < (s->cols - 1) * s->ld_out + s->rows,
                      CUSPEC_ERR_INVALID,
                      "stride_out (%llu) is less than one output matrix (%llu elements): outputs "
                      "would overlap",
                      s->stride_out, (s->cols - 1) * s->ld_out + s->rows);
    CUSPEC__RETURN_IF(s->in < s->out + out_bytes && s->out < s->in + in_bytes, CUSPEC_ERR_INVALID,
                      "in and out overlap: the transpose is out-of-place");
    return CUSPEC_OK;
}

int cuspec_transpose_batched(cuspec_ctx *ctx, int dtype, cuspec_devptr in, size_t rows, size_t cols,
                             size_t ld_in, size_t stride_in, cuspec_devptr out, size_t ld_out,
                             size_t stride_out, size_t batch, void *stream)
{
    CUSPEC__RETURN_IF(ctx == NULL, CUSPEC_ERR_INVALID, "cuspec_transpose: ctx is NULL");
    size_t size = cuspec_dtype_size(dtype);
    CUSPEC__RETURN_IF(size == 0, CUSPEC_ERR_INVALID, "cuspec_transpose: unknown dtype %d", dtype);
    struct cuspec__shape s = {in, out, rows, cols, ld_in, ld_out, stride_in, stride_out, batch};
    int rc = check(&s, size);
    if (rc != CUSPEC_OK)
        return cuspec__fail_context(rc, "cuspec_transpose");
    int pushed;
    rc = cuspec__ctx_enter(ctx, &pushed);
    if (rc != CUSPEC_OK)
        return rc;
    rc = cuspec__check_pointer(ctx, in, size, "in");
    if (rc == CUSPEC_OK)
        rc = cuspec__check_pointer(ctx, out, size, "out");
    if (rc != CUSPEC_OK) {
        cuspec__ctx_leave(ctx, pushed);
        return cuspec__fail_context(rc, "cuspec_transpose");
    }

    struct cuspec__variant v = {0};
    struct cuspec__spec spec = {.family = CUSPEC__FAM_TRANSPOSE,
                                .dtype = cuspec__transpose_dtype(dtype),
                                .rows = rows,
                                .cols = cols,
                                .align =
                                    cuspec__transpose_align(&s, cuspec__transpose_dtype(dtype))};
    cuspec__transpose_params(ctx, &spec, &v);
    rc = cuspec__transpose_variant(ctx, &v, &s, (CUstream)stream);
    cuspec__ctx_leave(ctx, pushed);
    return rc;
}

int cuspec_transpose(cuspec_ctx *ctx, int dtype, cuspec_devptr in, size_t rows, size_t cols,
                     size_t ld_in, cuspec_devptr out, size_t ld_out, void *stream)
{
    return cuspec_transpose_batched(ctx, dtype, in, rows, cols, ld_in, 0, out, ld_out, 0, 1,
                                    stream);
}
