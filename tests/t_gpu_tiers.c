/* GPU: the copy kernel served by each tier gives correct results: compiled
 * now by NVRTC into an empty store, then from the user store in a new
 * process, then from the shipped PTX with NVRTC disabled and an empty
 * store. Each scenario runs in a child (the store and NVRTC are chosen once
 * per process). The f32 transpose default from each tier launches
 * programmatically on sm_90 and later, except from the shipped PTX (made
 * for compute_75, without the wait that needs). */
#include "gpu.h"
#include "transpose.h"
#include "driver.h"

#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static char store_dir[] = "/tmp/cuspec-tiers-XXXXXX";

static void transpose_launch_mode(cuspec_ctx *ctx, int want_tier)
{
    struct cuspec__variant v;
    memset(&v, 0, sizeof v);
    v.family = CUSPEC__FAM_TRANSPOSE;
    v.dtype = cuspec__transpose_dtype(CUSPEC_F32);
    cuspec__family_transpose.defaults(ctx->arch, &v);
    struct cuspec__kernel k = {0};
    cuspec_launch_info info;
    CUSPEC_OK_(cuspec__function(ctx, NULL, &v, &k));
    CUSPEC_OK_(cuspec_last_launch(&info));
    CHECK_INT_EQ(info.tier, want_tier);
    int want = want_tier != CUSPEC_TIER_PTX && gpu_wants_pdl(ctx);
    printf("# %s from %s on sm_%d: programmatic launch %d\n", info.kernel,
           cuspec_tier_name(info.tier), ctx->arch, k.pdl);
    CHECK_INT_EQ(k.pdl, want);
}

/* Copies random bytes at a few sizes and offsets through cuspec_copy and
 * checks every byte and the tier that served the kernel. */
static void copy_and_check(int want_tier)
{
    cuspec_ctx *ctx = NULL;
    CUSPEC_OK_(cuspec_ctx_create(&ctx, 0));
    if (ctx == NULL)
        return;
    /* The context's warm-up (a launch of the copy kernel when a store holds
     * it) unloads what it loaded: the first call still finds its tier. */
    CHECK_INT_EQ(ctx->n_loaded, 0);
    int pushed;
    cuspec__ctx_enter(ctx, &pushed);
    const size_t max = (64u << 20) + 64;
    unsigned char *host = malloc(max), *back = malloc(max);
    CUdeviceptr src = 0, dst = 0;
    CU_OK(drv->cuMemAlloc(&src, max));
    CU_OK(drv->cuMemAlloc(&dst, max));
    /* The first call loads the kernel from the tier under test. */
    CUSPEC_OK_(cuspec_copy(ctx, dst, src, 16, NULL));
    cuspec_launch_info info;
    CUSPEC_OK_(cuspec_last_launch(&info));
    printf("# first call served by %s: %s\n", cuspec_tier_name(info.tier), info.kernel);
    CHECK_INT_EQ(info.tier, want_tier);

    const size_t sizes[] = {1, 15, 4096, 1000003, 64u << 20};
    const size_t offsets[][2] = {{0, 0}, {3, 3}, {1, 6}};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (size_t o = 0; o < sizeof offsets / sizeof *offsets; o++) {
            size_t n = sizes[s], so = offsets[o][0], d_o = offsets[o][1];
            rng_fill(host, n + so);
            memset(back, 0xA5, max);
            CU_OK(drv->cuMemcpyHtoD(src, host, n + so));
            CU_OK(drv->cuMemsetD8(dst, 0xA5, max)); /* poison */
            CUSPEC_OK_(cuspec_copy(ctx, dst + d_o, src + so, n, NULL));
            CU_OK(drv->cuCtxSynchronize());
            CU_OK(drv->cuMemcpyDtoH(back, dst, n + d_o + 8 < max ? n + d_o + 8 : max));
            if (memcmp(back + d_o, host + so, n) != 0)
                TAP_FAIL("copy of %zu bytes (src+%zu -> dst+%zu) differs", n, so, d_o);
            for (size_t i = 0; i < d_o; i++)
                if (back[i] != 0xA5)
                    TAP_FAIL("byte %zu before dst was written", i);
            if (n + d_o + 8 < max && back[n + d_o] != 0xA5)
                TAP_FAIL("byte after the copy of %zu bytes was written", n);
        }
    /* Later calls hit the module table. */
    CUSPEC_OK_(cuspec_last_launch(&info));
    CHECK_INT_EQ(info.tier, CUSPEC_TIER_TABLE);
    transpose_launch_mode(ctx, want_tier);
    drv->cuMemFree(src);
    drv->cuMemFree(dst);
    free(host);
    free(back);
    cuspec__ctx_leave(ctx, pushed);
    cuspec_ctx_destroy(ctx);
}

struct scenario {
    const char *nvrtc;
    int want_tier;
};

static void scenario(void *arg)
{
    const struct scenario *s = arg;
    setenv("CUSPEC_CACHE_DIR", store_dir, 1);
    if (s->nvrtc != NULL)
        setenv("CUSPEC_LIBNVRTC", s->nvrtc, 1);
    gpu_require();
    rng_seed();
    copy_and_check(s->want_tier);
}

/* Each tier in a fresh process: the store and NVRTC are chosen once per process. */
static void in_child(const char *nvrtc, int want_tier)
{
    struct scenario s = {nvrtc, want_tier};
    tap_in_child(scenario, &s);
}

TEST(fresh_nvrtc_compile)
{
    in_child(NULL, CUSPEC_TIER_NVRTC);
}

TEST(user_store_in_a_new_process)
{
    in_child("/nonexistent/libnvrtc.so", CUSPEC_TIER_STORE);
}

TEST(shipped_ptx_without_nvrtc)
{
    CHECK_INT_EQ(tap_remove_tree(store_dir, 1), 0);
    in_child("/nonexistent/libnvrtc.so", CUSPEC_TIER_PTX);
}

int main(void)
{
    /* CUDA does not survive fork: only children touch the driver. */
    gpu_require_in_child();
    CHECK(mkdtemp(store_dir) != NULL);
    static const struct tap_test tests[] = {TAP_ENTRY(fresh_nvrtc_compile),
                                            TAP_ENTRY(user_store_in_a_new_process),
                                            TAP_ENTRY(shipped_ptx_without_nvrtc)};
    int rc = tap_run(tests, sizeof tests / sizeof *tests);
    return tap_remove_tree(store_dir, 0) == 0 ? rc : 1;
}
