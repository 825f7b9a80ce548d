/* Kernel resolution without a GPU: NVRTC compile and publish, store hits
 * (also with NVRTC gone), shipped PTX for defaults, the error that says what
 * is missing, compile errors with their log, and PTX for an arch NVRTC does
 * not know. Each scenario runs in a child with its own store. */
#include "family.h"
#include "tap.h"

#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static char store_dir[] = "/tmp/cuspec-kernel-XXXXXX";

static void in_child(const char *nvrtc, void (*fn)(void))
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        setenv("CUSPEC_CACHE_DIR", store_dir, 1);
        if (nvrtc != NULL)
            setenv("CUSPEC_LIBNVRTC", nvrtc, 1);
        tap_current_failed = 0;
        fn();
        fflush(stdout);
        _exit(tap_current_failed);
    }
    int st = 0;
    CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static struct cuspec__variant copy_default(void)
{
    struct cuspec__variant v;
    memset(&v, 0, sizeof v);
    v.family = CUSPEC__FAM_COPY;
    cuspec__family_copy.defaults(90, &v);
    return v;
}

static void compile_then_hit(void)
{
    struct cuspec__variant v = copy_default();
    struct cuspec__image a, b;
    CHECK_INT_EQ(cuspec__image_get(&v, 90, CUSPEC__IMAGE_ANY, &a), CUSPEC_OK);
    CHECK_INT_EQ(a.tier, CUSPEC_TIER_NVRTC);
    CHECK_INT_EQ(a.kind, CUSPEC_KIND_CUBIN);
    CHECK(strncmp(a.lowered, "_Z", 2) == 0);
    CHECK_INT_EQ(cuspec__image_get(&v, 90, CUSPEC__IMAGE_ANY, &b), CUSPEC_OK);
    CHECK_INT_EQ(b.tier, CUSPEC_TIER_STORE);
    CHECK_UINT_EQ(b.len, a.len);
    CHECK(a.len == b.len && memcmp(a.data, b.data, a.len) == 0);
    CHECK_STR_EQ(b.lowered, a.lowered);
    cuspec_store_stats st;
    CHECK_INT_EQ(cuspec_store_get_stats(&st), CUSPEC_OK);
    CHECK_UINT_EQ(st.compiles, 1);
    CHECK_UINT_EQ(st.hits, 1);
    /* Another arch is another key: compiled, not found. */
    CHECK_INT_EQ(cuspec__image_get(&v, 80, CUSPEC__IMAGE_ANY, &b), CUSPEC_OK);
    CHECK_INT_EQ(b.tier, CUSPEC_TIER_NVRTC);
    cuspec__image_free(&a);
    cuspec__image_free(&b);
}

static void warm_store_without_nvrtc(void)
{
    struct cuspec__variant v = copy_default();
    struct cuspec__image img;
    cuspec_nvrtc_info info;
    CHECK_INT_EQ(cuspec_nvrtc_get_info(&info), CUSPEC_ERR_NO_NVRTC);
    CHECK_INT_EQ(cuspec__image_get(&v, 90, CUSPEC__IMAGE_ANY, &img), CUSPEC_OK);
    CHECK_INT_EQ(img.tier, CUSPEC_TIER_STORE);
    CHECK_INT_EQ(img.kind, CUSPEC_KIND_CUBIN);
    cuspec__image_free(&img);
}

static void cold_store_without_nvrtc(void)
{
    struct cuspec__variant v = copy_default();
    struct cuspec__image img;
    /* sm_86 is not in the store: the default comes from the shipped PTX. */
    CHECK_INT_EQ(cuspec__image_get(&v, 86, CUSPEC__IMAGE_ANY, &img), CUSPEC_OK);
    CHECK_INT_EQ(img.tier, CUSPEC_TIER_PTX);
    CHECK_INT_EQ(img.kind, CUSPEC_KIND_PTX);
    CHECK_STR_CONTAINS(img.data, img.lowered);
    cuspec__image_free(&img);
    /* A non-default has no PTX: the error says what to do. */
    v.p[2] = 1; /* items */
    CHECK_INT_EQ(cuspec__image_get(&v, 86, CUSPEC__IMAGE_ANY, &img), CUSPEC_ERR_NO_NVRTC);
    CHECK_STR_CONTAINS(cuspec_last_error(), "cuspec_copy<uint4, 256, 1>");
    CHECK_STR_CONTAINS(cuspec_last_error(), "cuspec compile --arch sm_86");
    CHECK_STR_CONTAINS(cuspec_last_error(), "CUSPEC_LIBNVRTC");
}

static void compile_error_has_log(void)
{
    /* Two doubles per vector and 4 of them: the template's static_assert. */
    struct cuspec__variant v;
    memset(&v, 0, sizeof v);
    v.family = CUSPEC__FAM_REDUCE;
    v.dtype = CUSPEC_F64;
    cuspec__family_reduce.defaults(90, &v);
    v.p[2] = 4; /* vec */
    CHECK(!cuspec__family_reduce.legal(&v));
    struct cuspec__image img;
    CHECK_INT_EQ(cuspec__image_get(&v, 90, CUSPEC__IMAGE_ANY, &img), CUSPEC_ERR_COMPILE);
    CHECK_STR_CONTAINS(cuspec_last_error(), "cuspec_reduce<double, double, 0, 256, 4, 4, 1>");
    CHECK_STR_CONTAINS(cuspec_last_error(), "--gpu-architecture=sm_90");
    CHECK_STR_CONTAINS(cuspec_last_error(), "VEC*sizeof(T) must be <= 16 bytes");
}

static void unknown_arch_gets_ptx(void)
{
    struct cuspec__variant v = copy_default();
    struct cuspec__image img;
    CHECK_INT_EQ(cuspec__image_get(&v, 990, CUSPEC__IMAGE_ANY, &img), CUSPEC_OK);
    CHECK_INT_EQ(img.tier, CUSPEC_TIER_NVRTC);
    CHECK_INT_EQ(img.kind, CUSPEC_KIND_PTX);
    CHECK_STR_CONTAINS(img.data, ".target sm_");
    cuspec__image_free(&img);
}

TEST(nvrtc_compile_then_store_hit)
{
    in_child(NULL, compile_then_hit);
}

TEST(warm_store_serves_without_nvrtc)
{
    in_child("/nonexistent/libnvrtc.so", warm_store_without_nvrtc);
}

TEST(shipped_ptx_or_clear_error_without_nvrtc)
{
    in_child("/nonexistent/libnvrtc.so", cold_store_without_nvrtc);
}

TEST(compile_error_reports_log_name_and_options)
{
    in_child(NULL, compile_error_has_log);
}

TEST(arch_unknown_to_nvrtc_compiles_ptx)
{
    in_child(NULL, unknown_arch_gets_ptx);
}

int main(void)
{
    if (mkdtemp(store_dir) == NULL)
        return 1;
    static const struct tap_test tests[] = {TAP_ENTRY(nvrtc_compile_then_store_hit),
                                            TAP_ENTRY(warm_store_serves_without_nvrtc),
                                            TAP_ENTRY(shipped_ptx_or_clear_error_without_nvrtc),
                                            TAP_ENTRY(compile_error_reports_log_name_and_options),
                                            TAP_ENTRY(arch_unknown_to_nvrtc_compiles_ptx)};
    int rc = tap_run(tests, sizeof tests / sizeof *tests);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", store_dir);
    return system(cmd) == 0 ? rc : 1;
}
