/* A deployment with the driver alone (issue 24): with NVRTC hidden and an
 * empty user store, every operation is served by the prebuilt system store
 * and is exact against the CPU: copy; sum, min, max and dot of every dtype
 * at n = 0, 1, 1000, 2^20 + 3 and 2^27; transposes of every element size
 * on square, odd, pitched, narrow and batched shapes. Then, with NVRTC
 * present, the same calls compile nothing. Last, NVRTC hidden again, calls
 * whose tuning record names a kernel no tier holds fall back and are exact. The system store is
 * $DEPLOY_STORE, else the build tree's store/, else (make installcheck) the
 * installed one. Skips without a GPU or without a prebuilt store. */
#include "gpu.h"
#include "records.h"
#include "reduce_axis.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>

static char user_dir[] = "/tmp/cuspec-deploy-XXXXXX";
static char fallback_dir[] = "/tmp/cuspec-deploy-fallback-XXXXXX";
static const char *system_store;
static int pass_nvrtc; /* 0: NVRTC hidden; 1: present */
static cuspec_ctx *ctx;
static char seen[512][256];
static int n_seen, n_calls;

/* The kernel of the call that just ran came from the system store (or, when
 * an earlier call loaded it, the module table), with no fallback. */
static void check_served(const char *what)
{
    cuspec_launch_info li;
    n_calls++;
    if (cuspec_last_launch(&li) != CUSPEC_OK) {
        TAP_FAIL("%s: no launch info: %s", what, cuspec_last_error());
        return;
    }
    if (li.fallback)
        TAP_FAIL("%s: fell back from %s to %s", what, li.wanted, li.kernel);
    int known = 0;
    for (int i = 0; i < n_seen && !known; i++)
        known = strcmp(seen[i], li.kernel) == 0;
    int want = known ? CUSPEC_TIER_TABLE : CUSPEC_TIER_SYSTEM;
    if (li.tier != want)
        TAP_FAIL("%s: %s came from %s, not %s", what, li.kernel, cuspec_tier_name(li.tier),
                 cuspec_tier_name(want));
    if (!known && n_seen < 512)
        snprintf(seen[n_seen++], sizeof seen[0], "%s", li.kernel);
}

static CUdeviceptr dev_alloc(size_t bytes)
{
    CUdeviceptr p = 0;
    CU_OK(drv->cuMemAlloc(&p, bytes ? bytes : 1));
    return p;
}

static void copies(void)
{
    static const size_t sizes[] = {0, 1, 1000, (1u << 20) + 3, 1u << 27};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        size_t n = sizes[i];
        unsigned char *h = malloc(n + 1), *back = malloc(n + 1);
        rng_fill(h, n);
        CUdeviceptr src = dev_alloc(n), dst = dev_alloc(n);
        if (n)
            CU_OK(drv->cuMemcpyHtoD(src, h, n));
        char what[64];
        snprintf(what, sizeof what, "copy of %zu bytes", n);
        CUSPEC_OK_(cuspec_copy(ctx, dst, src, n, NULL));
        CU_OK(drv->cuCtxSynchronize());
        check_served(what);
        if (n)
            CU_OK(drv->cuMemcpyDtoH(back, dst, n));
        if (n && memcmp(h, back, n) != 0)
            TAP_FAIL("%s: wrong bytes", what);
        drv->cuMemFree(src);
        drv->cuMemFree(dst);
        free(h);
        free(back);
    }
}

/* Element i of x (dtype) as a double and as wrapping 64-bit integer bits. */
static double as_double(const void *x, int dtype, size_t i)
{
    switch (dtype) {
    case CUSPEC_F32: return ((const float *)x)[i];
    case CUSPEC_F64: return ((const double *)x)[i];
    case CUSPEC_I32: return ((const int32_t *)x)[i];
    case CUSPEC_U32: return ((const uint32_t *)x)[i];
    default: return (double)((const int64_t *)x)[i];
    }
}

static uint64_t as_bits(const void *x, int dtype, size_t i)
{
    switch (dtype) {
    case CUSPEC_I32: return (uint64_t)(int64_t)((const int32_t *)x)[i];
    case CUSPEC_U32: return ((const uint32_t *)x)[i];
    default: return (uint64_t)((const int64_t *)x)[i];
    }
}

static void fill_values(void *x, int dtype, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        double r = (double)(rng_next() >> 11) / 9007199254740992.0 * 2 - 1;
        int64_t k = (int64_t)(rng_next() % 2000001) - 1000000;
        switch (dtype) {
        case CUSPEC_F32: ((float *)x)[i] = (float)r; break;
        case CUSPEC_F64: ((double *)x)[i] = r; break;
        case CUSPEC_I32: ((int32_t *)x)[i] = (int32_t)k; break;
        case CUSPEC_U32: ((uint32_t *)x)[i] = (uint32_t)rng_next(); break;
        default: ((int64_t *)x)[i] = (int64_t)rng_next(); break;
        }
    }
}

/* x[i] < x[j] (doubles hold every i32 and u32 exactly, not every i64) */
static int less(const void *x, int dtype, size_t i, size_t j)
{
    if (dtype == CUSPEC_I64)
        return ((const int64_t *)x)[i] < ((const int64_t *)x)[j];
    return as_double(x, dtype, i) < as_double(x, dtype, j);
}

/* The CPU's answer to op (-1: dot) over a (and b), compared with got. */
static int reduce_right(int op, int dtype, const void *a, const void *b, size_t n,
                        const void *got)
{
    int fp = dtype == CUSPEC_F32 || dtype == CUSPEC_F64;
    if (op == CUSPEC_SUM || op == -1) {
        double sum = 0, mag = 0;
        uint64_t bits = 0;
        for (size_t i = 0; i < n; i++) {
            if (fp) {
                double t = as_double(a, dtype, i) * (op == -1 ? as_double(b, dtype, i) : 1);
                sum += t;
                mag += fabs(t);
            } else {
                bits += as_bits(a, dtype, i) * (op == -1 ? as_bits(b, dtype, i) : 1);
            }
        }
        if (!fp) /* i32 and u32 write 64 bits; their products and sums wrap there */
            return *(const uint64_t *)got == bits;
        double g = dtype == CUSPEC_F32 ? *(const float *)got : *(const double *)got;
        return fabs(g - sum) <= (dtype == CUSPEC_F32 ? 1e-5 : 1e-13) * (mag + 1e-30);
    }
    /* min and max: exactly the winning element (n = 0 writes the identity) */
    if (n == 0)
        return 1;
    size_t best = 0;
    for (size_t i = 1; i < n; i++)
        if (op == CUSPEC_MIN ? less(a, dtype, i, best) : less(a, dtype, best, i))
            best = i;
    size_t size = cuspec_dtype_size(dtype);
    return memcmp(got, (const char *)a + best * size, size) == 0;
}

static void reductions(void)
{
    static const size_t sizes[] = {0, 1, 1000, (1u << 20) + 3, 1u << 27};
    static const int dtypes[] = {CUSPEC_F32, CUSPEC_F64, CUSPEC_I32, CUSPEC_I64, CUSPEC_U32};
    static const int ops[] = {CUSPEC_SUM, CUSPEC_MIN, CUSPEC_MAX, -1};
    for (size_t d = 0; d < sizeof dtypes / sizeof *dtypes; d++)
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
            int dtype = dtypes[d];
            size_t n = sizes[s], size = cuspec_dtype_size(dtype);
            void *a = malloc(n * size + 1), *b = malloc(n * size + 1);
            fill_values(a, dtype, n);
            fill_values(b, dtype, n);
            CUdeviceptr da = dev_alloc(n * size), db = dev_alloc(n * size), out = dev_alloc(8);
            if (n) {
                CU_OK(drv->cuMemcpyHtoD(da, a, n * size));
                CU_OK(drv->cuMemcpyHtoD(db, b, n * size));
            }
            for (size_t o = 0; o < sizeof ops / sizeof *ops; o++) {
                char what[96], got[8] = {0};
                snprintf(what, sizeof what, "%s of %zu %s", ops[o] < 0 ? "dot" : cuspec_op_name(ops[o]),
                         n, cuspec_dtype_name(dtype));
                int rc = ops[o] < 0 ? cuspec_dot(ctx, dtype, da, db, n, out, NULL)
                                    : cuspec_reduce(ctx, ops[o], dtype, da, n, out, NULL);
                if (rc != CUSPEC_OK) {
                    TAP_FAIL("%s: %s", what, cuspec_last_error());
                    continue;
                }
                CU_OK(drv->cuCtxSynchronize());
                check_served(what);
                CU_OK(drv->cuMemcpyDtoH(got, out, 8));
                if (!reduce_right(ops[o], dtype, a, b, n, got))
                    TAP_FAIL("%s: wrong result", what);
            }
            drv->cuMemFree(da);
            drv->cuMemFree(db);
            drv->cuMemFree(out);
            free(a);
            free(b);
        }
}

/* batch matrices of rows x cols at leading dimension ld_in (stride rows *
 * ld_in), transposed into ld_out, checked element by element. */
static void transpose_case(int dtype, size_t rows, size_t cols, size_t ld_in, size_t ld_out,
                           size_t batch, const char *shape)
{
    size_t size = cuspec_dtype_size(dtype), in_n = batch * rows * ld_in,
           out_n = batch * cols * ld_out;
    unsigned char *h = malloc(in_n * size), *back = malloc(out_n * size);
    rng_fill(h, in_n * size);
    CUdeviceptr din = dev_alloc(in_n * size), dout = dev_alloc(out_n * size);
    CU_OK(drv->cuMemcpyHtoD(din, h, in_n * size));
    char what[128];
    snprintf(what, sizeof what, "transpose %s %s", cuspec_dtype_name(dtype), shape);
    int rc = cuspec_transpose_batched(ctx, dtype, din, rows, cols, ld_in, rows * ld_in, dout,
                                      ld_out, cols * ld_out, batch, NULL);
    if (rc != CUSPEC_OK) {
        TAP_FAIL("%s: %s", what, cuspec_last_error());
    } else {
        CU_OK(drv->cuCtxSynchronize());
        check_served(what);
        CU_OK(drv->cuMemcpyDtoH(back, dout, out_n * size));
        size_t wrong = 0;
        for (size_t m = 0; m < batch; m++)
            for (size_t r = 0; r < rows; r++)
                for (size_t c = 0; c < cols; c++)
                    wrong += memcmp(back + ((m * cols + c) * ld_out + r) * size,
                                    h + ((m * rows + r) * ld_in + c) * size, size) != 0;
        if (wrong)
            TAP_FAIL("%s: %zu wrong elements", what, wrong);
    }
    drv->cuMemFree(din);
    drv->cuMemFree(dout);
    free(h);
    free(back);
}

static size_t pitched(size_t n, size_t size)
{
    return (n * size + 511) / 512 * 512 / size;
}

static void transposes(void)
{
    static const int dtypes[] = {CUSPEC_U8, CUSPEC_U16, CUSPEC_F32, CUSPEC_F64};
    for (size_t d = 0; d < sizeof dtypes / sizeof *dtypes; d++) {
        int t = dtypes[d];
        size_t size = cuspec_dtype_size(t);
        transpose_case(t, 4096, 4096, 4096, 4096, 1, "square 4096x4096");
        transpose_case(t, 8191, 8193, 8193, 8191, 1, "odd 8191x8193");
        transpose_case(t, 1080, 1920, 1920, 1080, 1, "1080x1920");
        transpose_case(t, 1000, 999, pitched(999, size), pitched(1000, size), 1,
                       "pitched 1000x999 (rows of 512 bytes)");
        transpose_case(t, 3, 1000000, 1000000, 3, 1, "narrow 3x1000000");
        transpose_case(t, 1000000, 3, 3, 1000000, 1, "narrow 1000000x3");
        transpose_case(t, 300, 301, 301, 300, 5, "batched 5 x 300x301");
    }
}

/* A tuning record whose kernel no tier holds (NVRTC hidden, neither
 * prebuilt nor shipped): the call falls back to an available kernel that
 * fits it (cols_flat's for the columns kernel's, or the other way), and is
 * exact: its geometry and scratch are those of the kernel that ran. */
static void fallbacks(void)
{
    static const struct {
        int op, kop, dtype;
        size_t rows, cols;
        int p[6]; /* block, vec, items, tx, grid, flat */
    } cases[] = {
        {CUSPEC_ARGMAX, CUSPEC__AXIS_ARGMAX, CUSPEC_F32, 1 << 20, 32, {256, 4, 8, 8, 0, 1}},
        {CUSPEC_ARGMIN, CUSPEC__AXIS_ARGMIN, CUSPEC_I32, 1 << 21, 16, {256, 2, 1, 8, 0, 0}},
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        const size_t rows = cases[k].rows, cols = cases[k].cols, n = rows * cols;
        const int dtype = cases[k].dtype;
        unsigned char *h = malloc(n * 4), vals[32 * 4];
        int64_t got[32];
        fill_values(h, dtype, n);
        CUdeviceptr in = dev_alloc(n * 4), value = dev_alloc(cols * 4), index = dev_alloc(cols * 8);
        CU_OK(drv->cuMemcpyHtoD(in, h, n * 4));
        const struct cuspec__axis_call c = {.kop = cases[k].kop,
                                            .dtype = dtype,
                                            .a = in,
                                            .rows = rows,
                                            .cols = cols,
                                            .ld = cols,
                                            .batch = 1};
        const struct cuspec__spec s = cuspec__axis_spec(&c);
        struct cuspec__record r = {{0}, "by hand", 10, 4000, 3900, 4100, 0, 10, 1, 0};
        memcpy(r.p, cases[k].p, sizeof cases[k].p);
        CUSPEC_OK_(cuspec__record_put(ctx->device_id, &s, cuspec__bucket(&s), &r));
        const cuspec_matrix m = {rows, cols, cols, 1, 0};
        CUSPEC_OK_(cuspec_reduce_cols(ctx, cases[k].op, dtype, in, &m, value, index, NULL));
        CU_OK(drv->cuCtxSynchronize());
        cuspec_launch_info li;
        CUSPEC_OK_(cuspec_last_launch(&li));
        printf("# %s %zu x %zu: wanted %s, ran %s\n", cuspec_dtype_name(dtype), rows, cols,
               li.wanted, li.kernel);
        CHECK(li.fallback);
        CU_OK(drv->cuMemcpyDtoH(got, index, cols * 8));
        CU_OK(drv->cuMemcpyDtoH(vals, value, cols * 4));
        for (size_t col = 0; col < cols; col++) {
            size_t best = col; /* the first extreme: ties keep the smaller row */
            for (size_t i = col + cols; i < n; i += cols)
                if (cases[k].op == CUSPEC_ARGMAX ? less(h, dtype, best, i)
                                                 : less(h, dtype, i, best))
                    best = i;
            if (got[col] != (int64_t)(best / cols) || memcmp(vals + col * 4, h + best * 4, 4) != 0)
                TAP_FAIL("%s column %zu: row %lld, not %zu", li.kernel, col, (long long)got[col],
                         best / cols);
        }
        drv->cuMemFree(in);
        drv->cuMemFree(value);
        drv->cuMemFree(index);
        free(h);
    }
}

/* ctx, current, in a child whose user store is `dir`, with the system
 * store and, unless `nvrtc`, NVRTC hidden; 0 when it cannot be made. */
static int open_ctx(const char *dir, int nvrtc, int *pushed)
{
    setenv("CUSPEC_CACHE_DIR", dir, 1);
    if (system_store != NULL)
        setenv("CUSPEC_SYSTEM_STORE", system_store, 1);
    if (!nvrtc)
        setenv("CUSPEC_LIBNVRTC", "/nonexistent", 1);
    gpu_require();
    rng_seed();
    if (cuspec_ctx_create(&ctx, 0) != CUSPEC_OK || cuspec__ctx_enter(ctx, pushed) != CUSPEC_OK) {
        TAP_FAIL("cuspec_ctx_create: %s", cuspec_last_error());
        return 0;
    }
    return 1;
}

static void close_ctx(int pushed)
{
    cuspec__ctx_leave(ctx, pushed);
    cuspec_ctx_destroy(ctx);
}

static void run_pass(void)
{
    int pushed;
    if (!open_ctx(user_dir, pass_nvrtc, &pushed))
        return;
    copies();
    reductions();
    transposes();
    cuspec_store_stats st;
    CUSPEC_OK_(cuspec_store_get_stats(&st));
    CHECK_UINT_EQ(st.compiles, 0);
    CHECK_UINT_EQ(st.publishes, 0);
    printf("# %d calls served by %d kernels from the system store %s\n", n_calls, n_seen,
           system_store ? system_store : "(installed)");
    close_ctx(pushed);
}

static void in_child(void *arg)
{
    (void)arg;
    run_pass();
}

static void fallback_pass(void *arg)
{
    (void)arg;
    int pushed;
    if (!open_ctx(fallback_dir, 0, &pushed))
        return;
    fallbacks();
    close_ctx(pushed);
}

TEST(without_nvrtc_every_call_is_served_by_the_system_store_and_exact)
{
    pass_nvrtc = 0;
    tap_in_child(in_child, NULL);
}

TEST(with_nvrtc_and_an_empty_user_store_nothing_is_compiled)
{
    pass_nvrtc = 1;
    tap_in_child(in_child, NULL);
}

TEST(without_nvrtc_a_record_of_a_kernel_no_tier_holds_falls_back_exactly)
{
    tap_in_child(fallback_pass, NULL);
}

int main(void)
{
    static char built[PATH_MAX];
    struct stat st;
    const char *top = getenv("top_builddir");
    system_store = getenv("DEPLOY_STORE");
    if (system_store == NULL && top != NULL) {
        char rel[4096];
        snprintf(rel, sizeof rel, "%s/store", top);
        if (stat(rel, &st) != 0 || realpath(rel, built) == NULL)
            tap_skip("no prebuilt store in the build tree (configured --with-prebuilt-archs=none)");
        system_store = built;
    }
    gpu_require_in_child();
    if (mkdtemp(user_dir) == NULL || mkdtemp(fallback_dir) == NULL)
        return 1;
    static const struct tap_test tests[] = {
        TAP_ENTRY(without_nvrtc_every_call_is_served_by_the_system_store_and_exact),
        TAP_ENTRY(with_nvrtc_and_an_empty_user_store_nothing_is_compiled),
        TAP_ENTRY(without_nvrtc_a_record_of_a_kernel_no_tier_holds_falls_back_exactly)};
    int rc = tap_run(tests, sizeof tests / sizeof *tests);
    return tap_remove_tree(user_dir, 0) == 0 && tap_remove_tree(fallback_dir, 0) == 0 ? rc : 1;
}
