/* cuspec_transpose and cuspec_transpose_batched: the arguments checked,
 * the parameters chosen (transpose_select.c), the kernel launched, in
 * pieces where the grid cannot hold the matrix. */
#include "transpose.h"
#include "catalogue.h"
#include "context.h"
#include "driver.h"
#include "error.h"
#include "params.h"

#include <stdint.h>

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

/* One launch of k (variant v, block b) over s, one tile per block: x down
 * the tile rows, y across, z over the batch; s fits the grid's limits. */
static int launch_piece(cuspec_ctx *ctx, const struct cuspec__kernel *k,
                        const struct cuspec__variant *v, const struct cuspec__transpose_block *b,
                        struct cuspec__shape s, CUstream stream)
{
    unsigned long long tr = (unsigned)b->tile_rows, tc = (unsigned)b->tile_cols;
    unsigned grid[3] = {(unsigned)((s.rows + (unsigned)b->extra_rows + tr - 1) / tr),
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
    return cuspec__launch(ctx, k, v, grid, (unsigned)b->threads, bytes <= CUSPEC__PDL_TILED_BYTES,
                          stream, args);
}

static unsigned long long min_ull(unsigned long long a, unsigned long long b)
{
    return a < b ? a : b;
}

/* Runs *v on checked arguments, or for a call on spec (not NULL) what it
 * falls back to. */
static int run_variant(cuspec_ctx *ctx, struct cuspec__variant *v, const struct cuspec__spec *spec,
                       const struct cuspec__shape *s, CUstream stream)
{
    if (!vec_fits(v, s)) { /* named only here: a call that fits formats nothing */
        char kname[256];
        cuspec__variant_name(v, kname, sizeof kname);
        return cuspec__fail(CUSPEC_ERR_INVALID,
                            "%s needs in, out, ld_in, ld_out (and strides) aligned to %d elements",
                            kname, v->p[P_VEC]);
    }
    struct cuspec__kernel k;
    int rc = spec != NULL ? cuspec__function_for(ctx, stream, spec, v, &k)
                          : cuspec__function(ctx, stream, v, &k);
    /* Where the grid cannot hold the whole matrix (2^31 - 1 tile rows, 65535
     * tile columns, 65535 batch entries), pieces of whole tiles: each is a
     * transpose of its own, so every vector stays aligned. */
    struct cuspec__transpose_block blk;
    cuspec__transpose_block_get(v, &blk);
    const unsigned long long max_rows = (1ULL << 30) * (unsigned)blk.tile_rows;
    const unsigned long long max_cols = 65535ULL * (unsigned)blk.tile_cols, max_batch = 65535;
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
                rc = launch_piece(ctx, &k, v, &blk, p, stream);
            }
    return rc;
}

int cuspec__transpose_variant(cuspec_ctx *ctx, const struct cuspec__variant *v,
                              const struct cuspec__shape *s, CUstream stream)
{
    struct cuspec__variant use = *v;
    return run_variant(ctx, &use, NULL, s, stream);
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
                      CUSPEC_ERR_INVALID,
                      "a %llux%llu matrix with leading dimensions %llu and "
                      "%llu does not fit in memory",
                      rows, cols, *ld_in, *ld_out);
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
    rc = run_variant(ctx, &v, &spec, &s, (CUstream)stream);
    cuspec__ctx_leave(ctx, pushed);
    return rc;
}

int cuspec_transpose(cuspec_ctx *ctx, int dtype, cuspec_devptr in, size_t rows, size_t cols,
                     size_t ld_in, cuspec_devptr out, size_t ld_out, void *stream)
{
    return cuspec_transpose_batched(ctx, dtype, in, rows, cols, ld_in, 0, out, ld_out, 0, 1,
                                    stream);
}
