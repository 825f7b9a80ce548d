/* GPU: tuning end to end. A small reduction and a small transpose are tuned;
 * the record is used by the next call (its kernel is the winner, the
 * parameters say they come from a record); candidates made deliberately
 * wrong through the test hook are rejected and never chosen. */
#include "store_files.h" /* the store's layout */
#include "gpu.h"
#include "tune.h"
#include "tune_search.h"
#include "driver.h"
#include "hash.h"

#include <stdlib.h>

static char store_dir[] = "/tmp/cuspec-tune-XXXXXX";
static cuspec_ctx *ctx;

static cuspec_tune_options small_search(void)
{
    cuspec_tune_options o;
    memset(&o, 0, sizeof o);
    o.max_candidates = 10;
    o.top = 2;
    o.reps = 5;
    return o;
}

/* After a tune, the parameters a call uses come from its record, and the
 * call runs the winner. */
static void check_used(const cuspec_tune_spec *spec, const cuspec_tune_result *r,
                       cuspec_bench_result *b)
{
    char params[160];
    int from_record = 0;
    CUSPEC_OK_(cuspec_tuned_params(ctx, spec, params, sizeof params, &from_record));
    CHECK_INT_EQ(from_record, 1);
    CHECK_STR_EQ(params, r->params);
    CHECK(b->correct);
    CHECK_STR_EQ(b->kernel, r->kernel);
    printf("# %s: %s at %.1f GB/s (default %.1f), %u candidates, %u failed\n", spec->family,
           r->kernel, r->gbs, r->default_gbs, r->candidates, r->failed);
}

TEST(tune_a_reduction_and_use_it)
{
    cuspec_tune_spec spec = {.family = "reduce", .op = CUSPEC_SUM, .dtype = CUSPEC_F32, .n = (1u << 20) + 5};
    cuspec_tune_options o = small_search();
    cuspec_tune_result r;
    char params[160];
    int from_record = 1;
    CUSPEC_OK_(cuspec_tuned_params(ctx, &spec, params, sizeof params, &from_record));
    CHECK_INT_EQ(from_record, 0); /* nothing tuned yet: the defaults */
    CUSPEC_OK_(cuspec_tune(ctx, &spec, &o, &r));
    CHECK(!r.stopped);
    CHECK(r.timed > 0 && r.gbs > 0 && r.default_gbs > 0);
    CHECK(r.gbs >= 0.9 * r.default_gbs); /* the default is a candidate too */
    cuspec_bench_result b;
    CUSPEC_OK_(cuspec_bench_reduce(ctx, CUSPEC_SUM, CUSPEC_F32, (1u << 20) + 5, 5, &b));
    check_used(&spec, &r, &b);
    CHECK(b.copy_us == 0); /* the same-bytes copy is a transpose's yardstick */

    /* A re-run reuses every timed candidate. */
    cuspec_tune_result again;
    CUSPEC_OK_(cuspec_tune(ctx, &spec, &o, &again));
    CHECK_INT_EQ(again.timed, 0);
    CHECK_INT_EQ(again.reused, r.candidates);
}

TEST(tune_a_transpose_and_use_it)
{
    cuspec_tune_spec spec = {.family = "transpose", .dtype = CUSPEC_F32, .rows = 1024, .cols = 1024};
    cuspec_tune_options o = small_search();
    cuspec_tune_result r;
    CUSPEC_OK_(cuspec_tune(ctx, &spec, &o, &r));
    cuspec_bench_result b;
    CUSPEC_OK_(cuspec_bench_transpose(ctx, CUSPEC_F32, 1024, 1024, 5, &b));
    check_used(&spec, &r, &b);
    /* 8 MiB copied, timed as the transpose is: microseconds, not nothing */
    printf("# f32 1024x1024: transpose %.2f us, the same bytes copied %.2f us\n", b.median_us,
           b.copy_us);
    CHECK(b.copy_us > 0.5 && b.copy_us < 10 * b.median_us);
}

/* Pitched u8 rows (ld 1024 for 1000 columns) are a class of their own: the
 * record tuned for them serves them, not the tight layout.  A candidate
 * that writes into the output's padding is rejected. */
static void corrupt_padding(void *user, const struct cuspec__variant *v, CUdeviceptr out,
                            size_t bytes)
{
    int *hits = user;
    (void)bytes;
    if (v != NULL && v->p[0] == 64) { /* tile 64: the last byte of output row 0 */
        drv->cuMemsetD8(out + 1023, 0x00, 1);
        ++*hits;
    }
}

TEST(tune_a_pitched_transpose_and_use_it)
{
    cuspec_tune_spec spec = {.family = "transpose", .dtype = CUSPEC_U8, .rows = 1000, .cols = 1000,
                             .ld_in = 1024, .ld_out = 1024};
    cuspec_tune_spec tight = {.family = "transpose", .dtype = CUSPEC_U8, .rows = 1000, .cols = 1000};
    cuspec_tune_options o = small_search();
    cuspec_tune_result r;
    int hits = 0;
    CUSPEC_OK_(cuspec__tune(ctx, &spec, &o, corrupt_padding, &hits, &r));
    printf("# %d runs wrote the padding, %u failed candidates, winner %s (%s)\n", hits, r.failed,
           r.kernel, r.params);
    CHECK(r.failed >= (unsigned)hits);
    CHECK(strstr(r.params, "tile=64 ") == NULL);
    cuspec_bench_result b;
    CUSPEC_OK_(cuspec_bench_transpose_ld(ctx, CUSPEC_U8, 1000, 1000, 1024, 1024, 5, &b));
    check_used(&spec, &r, &b);
    char params[160];
    int from_record = 1;
    CUSPEC_OK_(cuspec_tuned_params(ctx, &tight, params, sizeof params, &from_record));
    CHECK_INT_EQ(from_record, 0); /* ld 1000 is another alignment class */

    /* Leading dimensions shorter than their rows are refused, with the reason. */
    CHECK_INT_EQ(cuspec_bench_transpose_ld(ctx, CUSPEC_F32, 100, 200, 199, 0, 5, &b),
                 CUSPEC_ERR_INVALID);
    CHECK(strstr(cuspec_last_error(), "ld_in (199) is less than cols (200)") != NULL);
    spec.ld_out = 999;
    CHECK_INT_EQ(cuspec_tune(ctx, &spec, &o, &r), CUSPEC_ERR_INVALID);
    CHECK(strstr(cuspec_last_error(), "ld_out (999) is less than rows (1000)") != NULL);
}

/* Corrupts the output of every candidate with 512-thread blocks. */
static void corrupt_512(void *user, const struct cuspec__variant *v, CUdeviceptr out, size_t bytes)
{
    int *hits = user;
    if (v != NULL && v->p[0] == 512) {
        drv->cuMemsetD8(out, 0x5A, bytes);
        ++*hits;
    }
}

TEST(wrong_candidates_are_rejected)
{
    cuspec_tune_spec spec = {.family = "reduce", .op = CUSPEC_MAX, .dtype = CUSPEC_I32, .n = 1u << 16};
    cuspec_tune_options o = small_search();
    o.max_candidates = 400; /* exhaustive: every 512-thread variant is tried */
    o.reps = 3;
    cuspec_tune_result r;
    int hits = 0;
    CUSPEC_OK_(cuspec__tune(ctx, &spec, &o, corrupt_512, &hits, &r));
    printf("# %d wrong runs, %u failed candidates, winner %s\n", hits, r.failed, r.kernel);
    CHECK(hits > 0);
    CHECK(r.failed >= (unsigned)hits);
    CHECK(strstr(r.kernel, ", 512, ") == NULL);
    CHECK(r.gbs > 0);
}

/* A tuned record the store cannot keep fails the tune, saying so: `cuspec
 * tune` once reported such an operation tuned. Its entry's folder is made a
 * file, which stops root too; a size is taken whose folder nothing uses yet
 * (the tune's lookups find nothing there, its kernels are not cached). */
TEST(a_record_that_cannot_be_kept_fails_the_tune)
{
    char path[4096] = "";
    cuspec_tune_spec spec = {.family = "reduce", .op = CUSPEC_SUM, .dtype = CUSPEC_F32};
    for (int log2n = 10; log2n <= 28 && path[0] == '\0'; log2n++) {
        struct cuspec__spec s = {.family = CUSPEC__FAM_REDUCE,
                                 .op = CUSPEC_SUM,
                                 .dtype = CUSPEC_F32,
                                 .n = 1ull << log2n};
        char key[2048], hex[33];
        cuspec__tuning_key(ctx->device_id, &s, log2n, 0, key, sizeof key);
        cuspec__hash128_hex(key, strlen(key), hex);
        snprintf(path, sizeof path, "%s/" CUSPEC__ENTRIES_DIR "/%.2s", store_dir, hex);
        if (access(path, F_OK) == 0)
            path[0] = '\0';
        spec.n = (size_t)s.n;
    }
    CHECK(path[0] != '\0');
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f != NULL)
        fclose(f);
    cuspec_tune_options o = small_search();
    cuspec_tune_result r;
    CHECK_INT_EQ(cuspec_tune(ctx, &spec, &o, &r), CUSPEC_ERR_IO);
    CHECK(strstr(cuspec_last_error(), "its record was not kept") != NULL);
    printf("# n=%zu: %s\n", spec.n, cuspec_last_error());
    CHECK_INT_EQ(unlink(path), 0);
}

int main(void)
{
    gpu_require();
    if (mkdtemp(store_dir) == NULL)
        return 1;
    setenv("CUSPEC_CACHE_DIR", store_dir, 1);
    if (cuspec_ctx_create(&ctx, 0) != CUSPEC_OK) {
        printf("Bail out! cuspec_ctx_create: %s\n", cuspec_last_error());
        return 1;
    }
    int pushed;
    cuspec__ctx_enter(ctx, &pushed);
    static const struct tap_test tests[] = {
        TAP_ENTRY(tune_a_reduction_and_use_it), TAP_ENTRY(tune_a_transpose_and_use_it),
        TAP_ENTRY(tune_a_pitched_transpose_and_use_it), TAP_ENTRY(wrong_candidates_are_rejected),
        TAP_ENTRY(a_record_that_cannot_be_kept_fails_the_tune)};
    int rc = tap_run(tests, sizeof tests / sizeof *tests);
    cuspec__ctx_leave(ctx, pushed);
    cuspec_ctx_destroy(ctx);
    return tap_remove_tree(store_dir, 0) == 0 ? rc : 1;
}
