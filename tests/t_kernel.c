/* Kernel resolution without a GPU: NVRTC compile and publish, store hits
 * (also with NVRTC gone), shipped PTX for defaults, the error that says what
 * is missing, compile errors with their log, and PTX for an arch NVRTC does
 * not know. Each scenario runs in a child with its own store. */
#include "catalogue.h"
#include "image.h"
#include "compile.h"
#include "tap.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static char store_dir[] = "/tmp/cuspec-kernel-XXXXXX";

struct scenario {
    const char *nvrtc;
    void (*fn)(void);
};

static void with_env(void *arg)
{
    const struct scenario *s = arg;
    setenv("CUSPEC_CACHE_DIR", store_dir, 1);
    if (s->nvrtc != NULL)
        setenv("CUSPEC_LIBNVRTC", s->nvrtc, 1);
    s->fn();
}

/* Runs fn in a child on the test's store, NVRTC overridden when nvrtc is set. */
static void in_child(const char *nvrtc, void (*fn)(void))
{
    struct scenario s = {nvrtc, fn};
    tap_in_child(with_env, &s);
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
    /* sm_86 is not in the store, sm_80 is: its cubin runs on sm_86. */
    CHECK_INT_EQ(cuspec__image_get(&v, 86, CUSPEC__IMAGE_ANY, &img), CUSPEC_OK);
    CHECK_INT_EQ(img.tier, CUSPEC_TIER_STORE);
    CHECK_INT_EQ(img.kind, CUSPEC_KIND_CUBIN);
    CHECK_INT_EQ(img.arch, 80);
    cuspec__image_free(&img);
    /* No cubin of major 12: the default comes from the shipped PTX. */
    CHECK_INT_EQ(cuspec__image_get(&v, 121, CUSPEC__IMAGE_ANY, &img), CUSPEC_OK);
    CHECK_INT_EQ(img.tier, CUSPEC_TIER_PTX);
    CHECK_INT_EQ(img.kind, CUSPEC_KIND_PTX);
    CHECK_INT_EQ(img.arch, 0);
    CHECK_STR_CONTAINS(img.data, img.lowered);
    cuspec__image_free(&img);
    /* A non-default has no PTX: the error says what to do. */
    v.p[2] = 1; /* items */
    CHECK_INT_EQ(cuspec__image_get(&v, 121, CUSPEC__IMAGE_ANY, &img), CUSPEC_ERR_NO_NVRTC);
    CHECK_STR_CONTAINS(cuspec_last_error(), "cuspec_copy<uint4, 256, 1>");
    CHECK_STR_CONTAINS(cuspec_last_error(), "cuspec compile --arch sm_121");
    CHECK_STR_CONTAINS(cuspec_last_error(), "CUSPEC_LIBNVRTC");
    /* Without NVRTC the check looks, whatever `how` NVRTC would be. */
    CHECK_INT_EQ(cuspec__image_get(&v, 121, CUSPEC__IMAGE_NO_COMPILE, &img), CUSPEC_ERR_NOT_FOUND);
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

static void late_compiles_are_abandoned(void)
{
    /* Four transposes compiled with a 1 ms limit: all count as failed at
     * once; their threads finish in the background and still publish good
     * entries. A store of its own: one the earlier tests filled could serve
     * a default (rows 8) in under 1 ms. */
    char own[sizeof store_dir + 16];
    snprintf(own, sizeof own, "%s/late", store_dir);
    setenv("CUSPEC_CACHE_DIR", own, 1);
    struct cuspec__variant v[4];
    int ok[4] = {1, 1, 1, 1};
    for (int i = 0; i < 4; i++) {
        memset(&v[i], 0, sizeof v[i]);
        v[i].family = CUSPEC__FAM_TRANSPOSE;
        v[i].dtype = CUSPEC_U32;
        cuspec__family_transpose.defaults(80, &v[i]);
        v[i].p[1] = 2 << i; /* rows 2, 4, 8, 16 */
        CHECK(cuspec__family_transpose.legal(&v[i]));
    }
    cuspec_compile_report rep;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    CHECK_INT_EQ(
        cuspec__compile_many(v, 4, 80, CUSPEC__IMAGE_NO_PTX, 4, 0.001, ok, NULL, NULL, &rep),
        CUSPEC_ERR_COMPILE);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    CHECK_STR_CONTAINS(rep.first_error, "took longer than");
    CHECK_INT_EQ(rep.failed, 4);
    CHECK(!ok[0] && !ok[1] && !ok[2] && !ok[3]);
    double waited = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
    printf("# returned after %.3f s\n", waited);
    CHECK(waited < 1.0); /* one thread each: all four are late within 0.1 s */
    /* The abandoned compiles finish and publish: wait for all four (a
     * loaded machine takes longer than an idle one, so no fixed sleep). */
    struct cuspec__image img;
    int published = 0;
    for (int tenth = 0; tenth < 1200 && published < 4; tenth++) {
        published = 0;
        for (int i = 0; i < 4; i++)
            if (cuspec__image_get(&v[i], 80, CUSPEC__IMAGE_STORE_ONLY, &img) == CUSPEC_OK) {
                cuspec__image_free(&img);
                published++;
            }
        if (published < 4)
            usleep(100000);
    }
    CHECK_INT_EQ(published, 4);
    uint64_t bad = 1;
    CHECK_INT_EQ(cuspec_store_verify(0, NULL, NULL, &bad), CUSPEC_OK);
    CHECK_UINT_EQ(bad, 0);
}

/* Every worker marks itself with thread-specific data whose destructor runs
 * when the thread exits: after the call, all of them must have run. A worker
 * still exiting when the process does leaves such data (NVRTC's, dlerror's)
 * unfreed, which LeakSanitizer reported as a leak of `cuspec compile`. */
static pthread_key_t worker_key;
static atomic_uint workers_marked, workers_exited;

static void worker_exited(void *p)
{
    (void)p;
    usleep(20000); /* a slow exit, to show a call that does not wait for it */
    atomic_fetch_add(&workers_exited, 1);
}

static void mark_worker(unsigned done, unsigned total, const char *what, void *user)
{
    (void)done, (void)total, (void)what, (void)user;
    if (pthread_getspecific(worker_key) == NULL) {
        atomic_fetch_add(&workers_marked, 1);
        pthread_setspecific(worker_key, &worker_key);
    }
}

static void workers_gone_on_return(void)
{
    /* Looked up in the store only, for an arch nothing here compiles for: no
     * NVRTC needed. */
    struct cuspec__variant v[16];
    for (int i = 0; i < 16; i++)
        v[i] = copy_default();
    CHECK_INT_EQ(pthread_key_create(&worker_key, worker_exited), 0);
    for (int round = 0; round < 5; round++) {
        cuspec_compile_report rep;
        atomic_store(&workers_marked, 0);
        atomic_store(&workers_exited, 0);
        CHECK_INT_EQ(cuspec__compile_many(v, 16, 52, CUSPEC__IMAGE_STORE_ONLY, 4, 0, NULL,
                                          mark_worker, NULL, &rep),
                     CUSPEC_ERR_NOT_FOUND);
        CHECK_UINT_EQ(rep.failed, 16);
        unsigned marked = atomic_load(&workers_marked), exited = atomic_load(&workers_exited);
        CHECK_UINT_EQ(exited, marked);
        if (exited != marked)
            break;
    }
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

TEST(compile_timeout_abandons_late_compiles)
{
    in_child(NULL, late_compiles_are_abandoned);
}

TEST(compile_pool_threads_exit_before_return)
{
    in_child(NULL, workers_gone_on_return);
}

int main(void)
{
    if (mkdtemp(store_dir) == NULL)
        return 1;
    static const struct tap_test tests[] = {TAP_ENTRY(nvrtc_compile_then_store_hit),
                                            TAP_ENTRY(warm_store_serves_without_nvrtc),
                                            TAP_ENTRY(shipped_ptx_or_clear_error_without_nvrtc),
                                            TAP_ENTRY(compile_error_reports_log_name_and_options),
                                            TAP_ENTRY(arch_unknown_to_nvrtc_compiles_ptx),
                                            TAP_ENTRY(compile_timeout_abandons_late_compiles),
                                            TAP_ENTRY(compile_pool_threads_exit_before_return)};
    int rc = tap_run(tests, sizeof tests / sizeof *tests);
    return tap_remove_tree(store_dir, 0) == 0 ? rc : 1;
}
