/* Without a GPU: the kernels a call can choose without a tuning record are
 * exactly the ones the build prebuilds (cuspec__family_choices, checked on
 * random shapes and sizes, in every family), and where the one a call wants
 * cannot be had and NVRTC is absent, what it may run instead starts with the
 * defaults for its shape, always fits the shape, and is found in the tiers
 * that need no compiler. */
#include "catalogue.h"
#include "image.h"
#include "ops.h"
#include "transpose.h"
#include "tap.h"

#include <stdlib.h>
#include <unistd.h>

#define MAX_LISTED 256
static struct cuspec__variant listed[MAX_LISTED];
static int hit[MAX_LISTED];
static unsigned n_listed;

static int list(const struct cuspec__variant *v, void *user)
{
    (void)user;
    if (n_listed < MAX_LISTED)
        listed[n_listed++] = *v;
    return 0;
}

/* Where v's kernel is listed: launch-only parameters (the reductions'
 * cache, chosen by size) make no other kernel. */
static int index_of(const struct cuspec__variant *v)
{
    for (unsigned i = 0; i < n_listed; i++)
        if (cuspec__same_kernel(&listed[i], v))
            return (int)i;
    return -1;
}

static unsigned long long xorshift(unsigned long long *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

static unsigned long long rng = 0x9e3779b97f4a7c15ULL;
static unsigned long long next_random(void)
{
    return xorshift(&rng);
}

/* The flat kernels' shapes, from a sequence of their own (so that the
 * random shapes before them stay as they were): rows of 1 to 32 whole
 * 16-byte vectors of 4-byte elements, contiguous, 2^16 to 2^22 rows, the
 * rows' start any. */
static unsigned long long flat_rng = 0x2545f4914f6cdd1dULL;
static void random_flat(struct cuspec__spec *s, const int aligns[4])
{
    s->rows = (1ULL << 16) + xorshift(&flat_rng) % (1ULL << 22);
    s->cols = 4ULL << (xorshift(&flat_rng) % 6);
    s->ld_in = s->cols;
    s->align = aligns[xorshift(&flat_rng) % 4];
}

/* 1 .. 2^(log2 - 1), spread over the powers of two (and so over every
 * class). */
static unsigned long long random_side_below(int log2)
{
    return 1 + next_random() % (1ULL << (next_random() % log2));
}

/* 1 .. 2^20 */
static unsigned long long random_side(void)
{
    return random_side_below(21);
}

/* A transpose shape as a call sees it: the alignment class is at most a
 * sector, and for narrow shapes the narrow kernel's 16 bytes. */
static void random_transpose(struct cuspec__spec *s)
{
    int size = (int)cuspec_dtype_size(s->dtype);
    s->rows = random_side();
    s->cols = random_side();
    int widest = (cuspec__transpose_narrow(s->rows, s->cols) ? 16 : CUSPEC__SECTOR) / size;
    s->align = 1 << (int)(next_random() % 6);
    while (s->align > widest)
        s->align /= 2;
}

TEST(every_record_free_choice_is_listed_and_every_listed_one_is_made)
{
    static const int families[] = {CUSPEC__FAM_REDUCE, CUSPEC__FAM_TRANSPOSE,
                                   CUSPEC__FAM_REDUCE_ROWS, CUSPEC__FAM_REDUCE_COLS};
    static const int aligns[] = {0, 1, 2, 4};
    unsigned outside = 0, unmade = 0, lists = 0;
    for (size_t fi = 0; fi < sizeof families / sizeof *families; fi++) {
        const struct cuspec__family *f = cuspec__family(families[fi]);
        for (int d = 0; d < f->n_dtypes; d++)
            for (int op = 0; op < f->n_ops; op++) {
                n_listed = 0;
                memset(hit, 0, sizeof hit);
                cuspec__family_choices(families[fi], f->dtypes[d], op, 90, list, NULL);
                CHECK_UINT_LT(0, n_listed);
                lists++;
                const int axis = families[fi] == CUSPEC__FAM_REDUCE_ROWS ||
                                 families[fi] == CUSPEC__FAM_REDUCE_COLS;
                for (int i = 0; i < (axis ? 4500 : 4000); i++) {
                    struct cuspec__spec s = {
                        .family = families[fi], .op = op, .dtype = f->dtypes[d]};
                    if (families[fi] == CUSPEC__FAM_TRANSPOSE) {
                        random_transpose(&s);
                    } else if (axis && i >= 4000) {
                        random_flat(&s, aligns);
                    } else if (axis) {
                        /* rows to 2^22: columns' argmin/argmax of 4-byte
                         * integers change vectors past 2^25 elements; ld
                         * and the rows' start (0: unknown) change f32's */
                        s.rows = random_side_below(23);
                        s.cols = random_side();
                        s.ld_in = s.cols + next_random() % 2 * (next_random() % 4);
                        s.align = aligns[next_random() % 4];
                    } else if (i < 3 * 64) { /* each power of two and either side */
                        s.n = (1ULL << (i / 3)) + (unsigned long long)(i % 3) - 1;
                    } else {
                        s.n = next_random() >> (next_random() % 64);
                    }
                    /* columns: one matrix, then a batch (cols_flat takes one) */
                    const unsigned long long batches =
                        families[fi] == CUSPEC__FAM_REDUCE_COLS ? 2 : 1;
                    for (s.batch = 1; s.batch <= batches; s.batch++) {
                        struct cuspec__variant v;
                        cuspec__variant_choose(&s, 90, &v);
                        int at = index_of(&v);
                        if (at < 0 && outside++ < 3) {
                            char name[256];
                            cuspec__variant_name(&v, name, sizeof name);
                            TAP_FAIL("%s for n=%llu, %llux%llu ld %llu align %d batch %llu is not "
                                     "listed",
                                     name, s.n, s.rows, s.cols, s.ld_in, s.align, s.batch);
                        }
                        /* A kernel listed with other launch parameters too
                         * (sizes that differ in the load policy) is made. */
                        for (unsigned j = 0; at >= 0 && j < n_listed; j++)
                            hit[j] |= cuspec__same_kernel(&listed[j], &v);
                    }
                }
                for (unsigned i = 0; i < n_listed; i++)
                    if (!hit[i] && unmade++ < 3) {
                        char name[256];
                        cuspec__variant_name(&listed[i], name, sizeof name);
                        TAP_FAIL("%s is listed, and no call made it", name);
                    }
            }
    }
    CHECK_UINT_EQ(outside, 0);
    /* and none is listed that no call makes: the build compiles no more */
    CHECK_UINT_EQ(unmade, 0);
    /* reduce: 12 dtypes x 6 ops; transpose: 4 element sizes; along an
     * axis: 12 dtypes x 6 ops, both ways */
    CHECK_UINT_EQ(lists, 12 * 6 + 4 + 2 * 12 * 6);
}

static char store_dir[] = "/tmp/cuspec-fallback-XXXXXX";

/* All the candidates for a call on s wanting `wanted` on sm_arch: each fits
 * s and is not `wanted`; returns how many, the first at *first and the
 * last at *last (when not NULL). */
static unsigned candidates(const struct cuspec__spec *s, int arch,
                           const struct cuspec__variant *wanted, struct cuspec__variant *first,
                           struct cuspec__variant *last)
{
    unsigned next = 0, n = 0;
    struct cuspec__variant v;
    while (cuspec__fallback_next(s, arch, wanted, &next, &v) == CUSPEC_OK) {
        CHECK(cuspec__variant_fits(&v, s));
        CHECK(memcmp(&v, wanted, sizeof v) != 0);
        if (n++ == 0)
            *first = v;
        if (last != NULL)
            *last = v;
    }
    return n;
}

static void without_nvrtc(void *arg)
{
    (void)arg;
    setenv("CUSPEC_CACHE_DIR", store_dir, 1);
    setenv("CUSPEC_LIBNVRTC", "/nonexistent", 1);
    /* A u8 1080 x 1920 transpose (rows of 8-byte alignment) with a record
     * for a kernel nobody compiled: the defaults for its shape come first. */
    struct cuspec__spec s = {.family = CUSPEC__FAM_TRANSPOSE,
                             .dtype = CUSPEC_U8,
                             .rows = 1080,
                             .cols = 1920,
                             .align = 8};
    struct cuspec__variant wanted, defaults, first;
    memset(&wanted, 0, sizeof wanted);
    wanted.family = CUSPEC__FAM_TRANSPOSE;
    wanted.dtype = CUSPEC_U8;
    int p[] = {64, 16, 1, 8, 0, K_TILE, 0};
    memcpy(wanted.p, p, sizeof p);
    CHECK(cuspec__variant_legal(&wanted));
    cuspec__variant_choose(&s, 90, &defaults);
    CHECK_UINT_LT(1, candidates(&s, 90, &wanted, &first, NULL));
    CHECK(memcmp(&first, &defaults, sizeof first) == 0);
    /* Wanting the defaults themselves: another that fits comes first. */
    CHECK_UINT_LT(0, candidates(&s, 90, &defaults, &first, NULL));
    CHECK(memcmp(&first, &defaults, sizeof first) != 0);

    /* A narrow shape's class counts one leading dimension: whatever falls
     * back for it takes no vectors, or the narrow kernel's that fit. */
    struct cuspec__spec narrow = {.family = CUSPEC__FAM_TRANSPOSE,
                                  .dtype = CUSPEC_U16,
                                  .rows = 3,
                                  .cols = 1000000,
                                  .align = 1};
    cuspec__variant_choose(&narrow, 90, &defaults);
    CHECK_INT_EQ(defaults.p[P_KERNEL], K_NARROW);
    CHECK_UINT_LT(0, candidates(&narrow, 90, &defaults, &first, NULL));
    CHECK_INT_EQ(first.p[P_VEC] == 1 || shifted_subword(&first), 1);

    /* A one-launch record of f64 sums of 800 KB: the defaults for the size
     * (two launches) serve first, then the family's other choices (nine
     * more shapes, two of them in two launches too). */
    struct cuspec__spec sum = {.family = CUSPEC__FAM_REDUCE, .dtype = CUSPEC_F64, .n = 100003};
    cuspec__variant_choose(&sum, 90, &defaults);
    CHECK_INT_EQ(defaults.p[3], 0); /* two launches */
    wanted = defaults;
    wanted.p[3] = 1;
    struct cuspec__variant last;
    CHECK_UINT_EQ(candidates(&sum, 90, &wanted, &first, &last), 10);
    CHECK(memcmp(&first, &defaults, sizeof first) == 0);
    /* the shape of the smallest calls (1024 threads of one element) last */
    CHECK_INT_EQ(last.p[0], 1024); /* block */
    CHECK_INT_EQ(last.p[1], 1);    /* items */

    /* Of 4 MB, whose defaults take two launches: they serve a record of
     * blocks of 512 first, and their final pass is there too. */
    struct cuspec__spec sum4 = {.family = CUSPEC__FAM_REDUCE, .dtype = CUSPEC_F64, .n = 500003};
    cuspec__variant_choose(&sum4, 90, &defaults);
    CHECK_INT_EQ(defaults.p[3], 0);
    wanted = defaults;
    wanted.p[0] = 512; /* block */
    CHECK_UINT_EQ(candidates(&sum4, 90, &wanted, &first, NULL), 10);
    CHECK(memcmp(&first, &defaults, sizeof first) == 0);

    /* Older than the shipped PTX, with no cubin: nothing to fall back to. */
    unsigned next = 0;
    CHECK_INT_EQ(cuspec__fallback_next(&sum, 70, &wanted, &next, &first), CUSPEC_ERR_NOT_FOUND);

    /* A sum reading 64 MB, whose defaults load through L1 (a launch
     * parameter): what it may run instead are other kernels, each once,
     * the defaults fitted to it first. */
    struct cuspec__spec big = {.family = CUSPEC__FAM_REDUCE, .dtype = CUSPEC_F32, .n = 1u << 24};
    cuspec__variant_choose(&big, 90, &defaults);
    wanted = defaults;
    wanted.p[0] = 512; /* block: a tuned kernel nobody compiled */
    struct cuspec__variant seen[64];
    unsigned n_seen = 0;
    next = 0;
    while (n_seen < 64 &&
           cuspec__fallback_next(&big, 90, &wanted, &next, &seen[n_seen]) == CUSPEC_OK)
        n_seen++;
    CHECK_UINT_LT(0, n_seen);
    CHECK(n_seen > 0 && memcmp(&seen[0], &defaults, sizeof defaults) == 0);
    for (unsigned i = 0; i < n_seen; i++) {
        CHECK(!cuspec__same_kernel(&seen[i], &wanted));
        for (unsigned j = 0; j < i; j++)
            if (cuspec__same_kernel(&seen[j], &seen[i]))
                TAP_FAIL("candidates %u and %u are one kernel", j, i);
    }
}

TEST(fallback_starts_with_the_defaults_and_fits_the_shape)
{
    tap_in_child(without_nvrtc, NULL);
}

int main(void)
{
    if (mkdtemp(store_dir) == NULL)
        return 1;
    static const struct tap_test tests[] = {
        TAP_ENTRY(every_record_free_choice_is_listed_and_every_listed_one_is_made),
        TAP_ENTRY(fallback_starts_with_the_defaults_and_fits_the_shape)};
    int rc = tap_run(tests, sizeof tests / sizeof *tests);
    return tap_remove_tree(store_dir, 0) == 0 ? rc : 1;
}
