/* The copy family (templates/copy.cuh) and cuspec_copy: the device's copy
 * bandwidth as cuspec's own kernel reaches it, the ceiling benchmarks are
 * measured against. */
#include "copy.h"
#include "context.h"
#include "catalogue.h"
#include "error.h"
#include "driver.h"

#include <stdio.h>

enum { P_WORD, P_BLOCK, P_ITEMS };

static int legal(const struct cuspec__variant *v)
{
    return v->op == 0 && v->dtype == 0;
}

static void expr(const struct cuspec__variant *v, char *buf, size_t size)
{
    const char *word = v->p[P_WORD] == 16 ? "uint4" : v->p[P_WORD] == 8 ? "uint2" : "unsigned int";
    snprintf(buf, size, "cuspec_copy<%s, %d, %d>", word, v->p[P_BLOCK], v->p[P_ITEMS]);
}

static int threads(const struct cuspec__variant *v)
{
    return v->p[P_BLOCK];
}

static void defaults(int arch, struct cuspec__variant *v)
{
    (void)arch; /* 16-byte words, 4 in flight, suit every arch cuspec supports */
    v->p[P_WORD] = 16;
    v->p[P_BLOCK] = 256;
    v->p[P_ITEMS] = 4;
}

const struct cuspec__family cuspec__family_copy = {
    .name = "copy",
    .template_file = "copy.cuh",
    .waits_for_prior_grid = 1,
    .n_params = 3,
    .params =
        {
            [P_WORD] = {"word", 3, {4, 8, 16}},
            [P_BLOCK] = {"block", 4, {128, 256, 512, 1024}},
            [P_ITEMS] = {"items", 4, {1, 2, 4, 8}},
        },
    .n_dtypes = 1,
    .dtypes = {0},
    .n_ops = 1,
    .legal = legal,
    .expr = expr,
    .threads = threads,
    .defaults = defaults,
};

void cuspec__copy_default(int arch, struct cuspec__variant *v)
{
    cuspec__variant_default(CUSPEC__FAM_COPY, 0, 0, arch, v);
}

int cuspec__copy_variant(cuspec_ctx *ctx, const struct cuspec__variant *v, cuspec_devptr dst,
                         cuspec_devptr src, size_t bytes, CUstream stream)
{
    struct cuspec__kernel k;
    int rc = cuspec__function(ctx, stream, v, &k);
    if (rc != CUSPEC_OK || bytes == 0)
        return rc;
    /* Enough blocks to fill the device once; the kernel strides over the rest. */
    unsigned long long per_block = (unsigned long long)v->p[P_BLOCK] * v->p[P_ITEMS] * v->p[P_WORD];
    unsigned long long need = (bytes + per_block - 1) / per_block;
    unsigned long long full = (unsigned long long)k.blocks_per_sm * ctx->info.sm_count;
    unsigned grid[3] = {(unsigned)(need < full ? need : full), 1, 1};
    unsigned long long n = bytes;
    void *args[] = {&src, &dst, &n};
    return cuspec__launch(ctx, &k, v, grid, (unsigned)v->p[P_BLOCK],
                          2 * n <= CUSPEC__PDL_COPY_BYTES, stream, args);
}

int cuspec_copy(cuspec_ctx *ctx, cuspec_devptr dst, cuspec_devptr src, size_t bytes, void *stream)
{
    CUSPEC__RETURN_IF(ctx == NULL, CUSPEC_ERR_INVALID, "cuspec_copy: ctx is NULL");
    CUSPEC__RETURN_IF(bytes > 0 && (dst == 0 || src == 0), CUSPEC_ERR_INVALID,
                      "cuspec_copy: %s is NULL", dst == 0 ? "dst" : "src");
    CUSPEC__RETURN_IF(bytes > 0 && dst < src + bytes && src < dst + bytes, CUSPEC_ERR_INVALID,
                      "cuspec_copy: dst and src overlap");
    struct cuspec__variant v;
    cuspec__copy_default(ctx->arch, &v);
    int pushed, rc = cuspec__ctx_enter(ctx, &pushed);
    if (rc != CUSPEC_OK)
        return rc;
    rc = cuspec__copy_variant(ctx, &v, dst, src, bytes, (CUstream)stream);
    cuspec__ctx_leave(ctx, pushed);
    return rc;
}
