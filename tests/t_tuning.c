/* Tuning without a GPU: record encode/decode, key separation, the
 * nearest-bucket lookup, export/import (and refusing what cannot be
 * trusted), and the search's resume and rejection logic with a fake timer. */
#include "store_files.h" /* first: config.h picks the system interfaces */
#include "tune_search.h"
#include "transpose.h"
#include "device.h"
#include "tap.h"
#include "params.h"
#include "context.h"
#include "hash.h"
#include "store.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char store_dir[] = "/tmp/cuspec-tuning-XXXXXX";

static struct cuspec__spec reduce_spec(unsigned long long n)
{
    struct cuspec__spec s = {.family = CUSPEC__FAM_REDUCE, .op = 0, .dtype = CUSPEC_F32, .n = n};
    return s;
}

static struct cuspec__record sample_record(int block)
{
    struct cuspec__record r = {{block, 4, 4, 1, 4, 0}, "", 12.5, 3000, 2500, 3100, 0.02, 48, 1, 0};
    snprintf(r.kernel, sizeof r.kernel, "cuspec_reduce<float, float, 0, %d, 4, 4, 1>", block);
    return r;
}

TEST(record_round_trip)
{
    struct cuspec__record r = sample_record(512), back;
    char text[2048];
    cuspec__record_encode(&r, text, sizeof text);
    CHECK_INT_EQ(cuspec__record_decode(text, strlen(text), &back), CUSPEC_OK);
    CHECK(memcmp(back.p, r.p, sizeof r.p) == 0);
    CHECK_STR_EQ(back.kernel, r.kernel);
    CHECK_NEAR(back.gbs, 3000, 0);
    CHECK_NEAR(back.default_gbs, 2500, 0);
    CHECK_INT_EQ(back.candidates, 48);
    r.p[6] = 1; /* the seventh parameter (a transpose's wide) is written */
    cuspec__record_encode(&r, text, sizeof text);
    CHECK_INT_EQ(cuspec__record_decode(text, strlen(text), &back), CUSPEC_OK);
    CHECK_INT_EQ(back.p[6], 1);
    /* A record written before the seventh parameter reads it as 0. */
    static const char old[] = "params=64 2 1 8 1 0\nkernel=k\nmedian_us=1\ngbs=1\n";
    CHECK_INT_EQ(cuspec__record_decode(old, strlen(old), &back), CUSPEC_OK);
    CHECK(back.p[0] == 64 && back.p[3] == 8 && back.p[4] == 1 && back.p[6] == 0);
    static const char *const bad[] = {
        "params=1 2 3\nkernel=k\nmedian_us=1\ngbs=1\n",              /* too few params */
        "params=1 2 3 4 5 6 7 8\nkernel=k\nmedian_us=1\ngbs=1\n",    /* too many */
        "params=1 2 3 4 5 6x\nkernel=k\nmedian_us=1\ngbs=1\n",       /* not an integer */
        "params=1 2 3 4 5 6\nkernel=k\nmedian_us=x\ngbs=1\n",        /* not a number */
        "params=1 2 3 4 5 6\nkernel=k\nmedian_us=1\n",               /* no gbs */
        "params=1 2 3 4 5 6\nkernel=k\nmedian_us=1\ngbs=1\nfoo=1\n", /* unknown field */
        "params=1 2 3 4 5 6\nkernel=k\nmedian_us=-1\ngbs=1\n",       /* negative time */
        "garbage",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        CHECK_INT_EQ(cuspec__record_decode(bad[i], strlen(bad[i]), &back), CUSPEC_ERR_CORRUPT);
}

/* Reading a record (as every call with one does) leaves a caller's strtok
 * where it was: the library tokenizes with strtok_r. peer-axis, which walks
 * its shapes with strtok, stopped after the first once records existed. */
TEST(reading_a_record_leaves_the_callers_strtok_alone)
{
    struct cuspec__record r = sample_record(512), back;
    char text[2048], list[] = "8192x8192,4096x4096";
    cuspec__record_encode(&r, text, sizeof text);
    CHECK_STR_EQ(strtok(list, ","), "8192x8192");
    CHECK_INT_EQ(cuspec__record_decode(text, strlen(text), &back), CUSPEC_OK);
    const char *next = strtok(NULL, ",");
    CHECK(next != NULL);
    if (next != NULL)
        CHECK_STR_EQ(next, "4096x4096");
}

TEST(keys_separate_device_driver_and_bucket)
{
    struct cuspec__spec s = reduce_spec(1 << 20);
    char a[2048], b[2048];
    cuspec_device_info d = {.name = "GPU X",
                            .sm_major = 9,
                            .sm_count = 132,
                            .total_mem = 80ull << 30,
                            .driver_version = 13000};
    char id1[512], id2[512];
    cuspec__device_identity(&d, id1, sizeof id1);
    d.driver_version = 12080;
    cuspec__device_identity(&d, id2, sizeof id2);
    CHECK(strcmp(id1, id2) != 0);
    cuspec__tuning_key(id1, &s, 20, 0, a, sizeof a);
    cuspec__tuning_key(id2, &s, 20, 0, b, sizeof b);
    CHECK(strcmp(a, b) != 0);
    CHECK_STR_CONTAINS(a, "library=" PACKAGE_VERSION);
    cuspec__tuning_key(id1, &s, 21, 0, b, sizeof b);
    CHECK(strcmp(a, b) != 0);
    cuspec__tuning_key(id1, &s, 20, 1, b, sizeof b); /* the session log is another entry */
    CHECK(strcmp(a, b) != 0);
    s.op = 1;
    cuspec__tuning_key(id1, &s, 20, 0, b, sizeof b);
    CHECK(strcmp(a, b) != 0);

    /* A record for one driver is not found for another. */
    struct cuspec__record r = sample_record(512), got;
    s.op = 0;
    CHECK_INT_EQ(cuspec__record_put(id1, &s, 20, &r), CUSPEC_OK);
    CHECK_INT_EQ(cuspec__record_get(id1, &s, 20, &got), CUSPEC_OK);
    CHECK_INT_EQ(cuspec__record_get(id2, &s, 20, &got), CUSPEC_ERR_NOT_FOUND);
    int bucket;
    CHECK_INT_EQ(cuspec__record_find(id2, &s, &got, &bucket), CUSPEC_ERR_NOT_FOUND);
}

static int walk_pair(int rows, int cols, void *user)
{
    int *list = user;
    list[++list[0]] = rows << 8 | cols;
    return 0;
}

static int walk_two(int rows, int cols, void *user)
{
    int *list = user;
    walk_pair(rows, cols, list);
    return list[0] == 2 ? -7 : 0;
}

TEST(nearest_bucket_lookup)
{
    const char *dev = "nearest|sm_90|132|1|13000";
    struct cuspec__spec s = reduce_spec(1 << 10);
    struct cuspec__record r11 = sample_record(128), r22 = sample_record(1024), got;
    CHECK_INT_EQ(cuspec__record_put(dev, &s, 11, &r11), CUSPEC_OK);
    CHECK_INT_EQ(cuspec__record_put(dev, &s, 22, &r22), CUSPEC_OK);
    int bucket;
    /* bucket -1: none. Records stand in at most two powers of two away, for
     * sizes whose record-free shape is the same (f32 sums: 1024 threads to
     * 1024 elements, the defaults to 16 KB, one block to 32 KB, ..., from 4
     * MB to 32 MB 512 threads in two launches; src/reduce.c, shapes). */
    static const struct {
        int log2n, bucket, block;
    } cases[] = {{9, -1, 0},     {10, 11, 128},  {11, 11, 128},  {12, -1, 0},
                 {13, -1, 0},    {19, -1, 0},    {20, 22, 1024}, {21, 22, 1024},
                 {22, 22, 1024}, {23, -1, 0},    {28, -1, 0}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        s.n = 1ull << cases[i].log2n;
        s.n += 3; /* not a power of two: its bucket is its class's */
        if (cases[i].bucket < 0) {
            CHECK_INT_EQ(cuspec__record_find(dev, &s, &got, &bucket), CUSPEC_ERR_NOT_FOUND);
            continue;
        }
        CHECK_INT_EQ(cuspec__record_find(dev, &s, &got, &bucket), CUSPEC_OK);
        CHECK_INT_EQ(bucket, cases[i].bucket);
        CHECK_INT_EQ(got.p[0], cases[i].block);
    }
    /* A record with parameters the family rejects is passed over. */
    struct cuspec__record bad = sample_record(1024);
    bad.p[2] = 16; /* vec 16 of floats: illegal */
    s.n = 1ull << 21;
    CHECK_INT_EQ(cuspec__record_put(dev, &s, 21, &bad), CUSPEC_OK);
    CHECK_INT_EQ(cuspec__record_find(dev, &s, &got, &bucket), CUSPEC_OK);
    CHECK_INT_EQ(bucket, 22);
    bad = sample_record(0); /* a block size of 0 would divide by zero */
    CHECK_INT_EQ(cuspec__record_put(dev, &s, 21, &bad), CUSPEC_OK);
    CHECK_INT_EQ(cuspec__record_find(dev, &s, &got, &bucket), CUSPEC_OK);
    CHECK_INT_EQ(bucket, 22);
    /* Nor is one of a final pass (stage 1, legal as a helper kernel), which
     * a call would launch alone with the first pass's arguments. */
    bad = sample_record(512);
    int final_pass[] = {512, 1, 1, 0, 0, 1, 0};
    memcpy(bad.p, final_pass, sizeof final_pass);
    CHECK_INT_EQ(cuspec__record_put(dev, &s, 21, &bad), CUSPEC_OK);
    CHECK_INT_EQ(cuspec__record_find(dev, &s, &got, &bucket), CUSPEC_OK);
    CHECK_INT_EQ(bucket, 22);

    /* A class may start at a bucket's first size: a record tuned at 2^12
     * (f32: 16 KB, the defaults' one block) serves 2^12, not 2^12 + 3
     * (512 threads' one block). */
    const char *dev12 = "edge|sm_90|132|1|13000";
    CHECK_INT_EQ(cuspec__record_put(dev12, &s, 12, &r11), CUSPEC_OK);
    s.n = 1ull << 12;
    CHECK_INT_EQ(cuspec__record_find(dev12, &s, &got, &bucket), CUSPEC_OK);
    CHECK_INT_EQ(bucket, 12);
    s.n += 3;
    CHECK_INT_EQ(cuspec__record_find(dev12, &s, &got, &bucket), CUSPEC_ERR_NOT_FOUND);
    s.n = (1ull << 11) + 3; /* the defaults' class, a power of two below */
    CHECK_INT_EQ(cuspec__record_find(dev12, &s, &got, &bucket), CUSPEC_OK);
    CHECK_INT_EQ(bucket, 12);
    /* ... and one tuned at 2^12 + 3 is kept with 2^13, its class's power
     * of two, and serves 2^12 + 3 (the tuner keeps a record at the
     * bucket of the size it tuned). */
    const char *dev13 = "above|sm_90|132|1|13000";
    s.n = (1ull << 12) + 3;
    CHECK_INT_EQ(cuspec__bucket(&s), 13);
    CHECK_INT_EQ(cuspec__record_put(dev13, &s, cuspec__bucket(&s), &r22), CUSPEC_OK);
    CHECK_INT_EQ(cuspec__record_find(dev13, &s, &got, &bucket), CUSPEC_OK);
    CHECK_INT_EQ(bucket, 13);
    s.n = 1ull << 12; /* the defaults' class */
    CHECK_INT_EQ(cuspec__bucket(&s), 12);
    CHECK_INT_EQ(cuspec__record_find(dev13, &s, &got, &bucket), CUSPEC_ERR_NOT_FOUND);

    /* Transposes: nearest in rows and cols together, same alignment class. */
    struct cuspec__spec t = {.family = CUSPEC__FAM_TRANSPOSE,
                             .dtype = CUSPEC_U32,
                             .rows = 8192,
                             .cols = 8192,
                             .align = 4};
    struct cuspec__record tr = {{32, 8, 1, 4, 0, 0}, "t", 10, 2900, 2800, 3000, 0, 10, 1, 0};
    CHECK_INT_EQ(cuspec__record_put(dev, &t, cuspec__bucket(&t), &tr), CUSPEC_OK);
    t.rows = 4096;
    t.cols = 16384;
    CHECK_INT_EQ(cuspec__record_find(dev, &t, &got, &bucket), CUSPEC_OK);
    CHECK_INT_EQ(got.p[0], 32);
    t.rows = 2048; /* three powers of two away in all */
    CHECK_INT_EQ(cuspec__record_find(dev, &t, &got, &bucket), CUSPEC_ERR_NOT_FOUND);
    t.rows = 4096;
    t.align = 1;
    CHECK_INT_EQ(cuspec__record_find(dev, &t, &got, &bucket), CUSPEC_ERR_NOT_FOUND);
    /* Its bucket's text gives the bucket back, and the walk that both
     * matrix families share goes rows first, then the fewer columns, and
     * stops at the edges of 0 to 63. */
    struct cuspec__spec parsed = {.family = CUSPEC__FAM_TRANSPOSE, .dtype = CUSPEC_U32};
    int back = -1;
    CHECK_INT_EQ(cuspec__ops(CUSPEC__FAM_TRANSPOSE)
                     ->bucket_parse("rows=2^3 cols=2^4 align=8", &back, &parsed),
                 CUSPEC_OK);
    CHECK_INT_EQ(back, 3 << 16 | 4 << 8 | 3);
    CHECK_INT_EQ(parsed.align, 8);
    int walk[16] = {0};
    cuspec__walk_near(13, 13, 1, walk_pair, walk);
    CHECK_INT_EQ(walk[0], 4);
    CHECK_INT_EQ(walk[1], 12 << 8 | 13);
    CHECK_INT_EQ(walk[2], 13 << 8 | 12);
    CHECK_INT_EQ(walk[3], 13 << 8 | 14);
    CHECK_INT_EQ(walk[4], 14 << 8 | 13);
    walk[0] = 0;
    cuspec__walk_near(0, 63, 1, walk_pair, walk);
    CHECK_INT_EQ(walk[0], 2);
    CHECK_INT_EQ(walk[1], 0 << 8 | 62);
    CHECK_INT_EQ(walk[2], 1 << 8 | 63);
    walk[0] = 0; /* the second pair stops it, and its value comes back */
    CHECK_INT_EQ(cuspec__walk_near(13, 13, 1, walk_two, walk), -7);
    CHECK_INT_EQ(walk[0], 2);

    /* Axis reductions too: a record tuned where rows are off the 16-byte
     * vector (f32 column sums, ld 4097) serves that class nearby, never
     * rows on the vector; one tuned on it, never rows off it. */
    struct cuspec__spec c = {.family = CUSPEC__FAM_REDUCE_COLS,
                             .dtype = CUSPEC_F32,
                             .op = 0, /* sum */
                             .rows = 4096,
                             .cols = 4097,
                             .ld_in = 4097};
    /* block, vec, items, tx, grid */
    struct cuspec__record odd = {{512, 1, 8, 32, 0}, "o", 10, 2900, 2800, 3000, 0, 10, 1, 0};
    struct cuspec__record even = {{256, 4, 4, 8, 0}, "e", 10, 2900, 2800, 3000, 0, 10, 1, 0};
    CHECK_INT_EQ(cuspec__record_put(dev, &c, cuspec__bucket(&c), &odd), CUSPEC_OK);
    c.rows = 8191;
    c.cols = c.ld_in = 8193;
    CHECK_INT_EQ(cuspec__record_find(dev, &c, &got, &bucket), CUSPEC_OK);
    CHECK_INT_EQ(got.p[0], 512);
    c.ld_in = 8194; /* 8 bytes: another class */
    CHECK_INT_EQ(cuspec__record_find(dev, &c, &got, &bucket), CUSPEC_ERR_NOT_FOUND);
    c.ld_in = 8196; /* on the vector */
    CHECK_INT_EQ(cuspec__record_find(dev, &c, &got, &bucket), CUSPEC_ERR_NOT_FOUND);
    c.rows = c.cols = c.ld_in = 4096;
    CHECK_INT_EQ(cuspec__record_put(dev, &c, cuspec__bucket(&c), &even), CUSPEC_OK);
    CHECK_INT_EQ(cuspec__record_find(dev, &c, &got, &bucket), CUSPEC_OK);
    CHECK_INT_EQ(got.p[0], 256);
    c.ld_in = 4097;
    CHECK_INT_EQ(cuspec__record_find(dev, &c, &got, &bucket), CUSPEC_OK);
    CHECK_INT_EQ(got.p[0], 512);
    c.ld_in = 4096;
    c.align = 1; /* a pointer off the vector: the call's class */
    CHECK_INT_EQ(cuspec__record_find(dev, &c, &got, &bucket), CUSPEC_OK);
    CHECK_INT_EQ(got.p[0], 512);
}

/* A record of cols_flat (f32 argmax read flat, in its buckets of their own)
 * serves calls of its own columns alone, as its tx is the vectors a row:
 * the nearest-bucket walk passes one of other columns and goes on to
 * farther rows, and calls whose rows are padded (not cols_flat's) never
 * see either. */
TEST(a_flat_record_serves_its_own_columns_alone)
{
    const char *dev = "flatnear|sm_90|132|1|13000";
    struct cuspec__spec s = {.family = CUSPEC__FAM_REDUCE_COLS,
                             .dtype = CUSPEC_F32,
                             .op = 4, /* argmax */
                             .rows = 1 << 20,
                             .cols = 32,
                             .ld_in = 32};
    /* block, vec, items, tx, grid, flat */
    struct cuspec__record c32 = {{128, 4, 8, 8, 0, 1}, "a", 10, 4000, 3900, 4100, 0, 10, 1, 0};
    struct cuspec__record c64 = {{256, 4, 8, 16, 0, 1}, "b", 10, 4000, 3900, 4100, 0, 10, 1, 0};
    CHECK_INT_EQ(cuspec__record_put(dev, &s, cuspec__bucket(&s), &c32), CUSPEC_OK);
    s.rows = 1 << 22;
    s.cols = s.ld_in = 64;
    CHECK_INT_EQ(cuspec__record_put(dev, &s, cuspec__bucket(&s), &c64), CUSPEC_OK);
    struct cuspec__record got;
    int bucket;
    /* 2^20 x 64: 2^20 x 32's record is one power of two away, 2^22 x 64's two */
    s.rows = 1 << 20;
    CHECK_INT_EQ(cuspec__record_find(dev, &s, &got, &bucket), CUSPEC_OK);
    CHECK_INT_EQ(got.p[0], 256);
    CHECK_INT_EQ(got.p[3], 16);
    /* 2^21 x 32: its columns' record, a power of two of rows away */
    s.rows = 1 << 21;
    s.cols = s.ld_in = 32;
    CHECK_INT_EQ(cuspec__record_find(dev, &s, &got, &bucket), CUSPEC_OK);
    CHECK_INT_EQ(got.p[0], 128);
    CHECK_INT_EQ(got.p[3], 8);
    /* 2^20 x 16: neither record has its columns */
    s.rows = 1 << 20;
    s.cols = s.ld_in = 16;
    CHECK_INT_EQ(cuspec__record_find(dev, &s, &got, &bucket), CUSPEC_ERR_NOT_FOUND);
    /* 2^20 x 32 with padded rows: the plain buckets */
    s.cols = 32;
    s.ld_in = 36;
    CHECK_INT_EQ(cuspec__record_find(dev, &s, &got, &bucket), CUSPEC_ERR_NOT_FOUND);
    /* A record of cols_flat there (the tuner and import make none; a store
     * entry written otherwise): the call's choose gives way to the fit,
     * the columns kernel, which takes padded rows. */
    CHECK_INT_EQ(cuspec__record_put(dev, &s, cuspec__bucket(&s), &c32), CUSPEC_OK);
    CHECK_INT_EQ(cuspec__record_find(dev, &s, &got, &bucket), CUSPEC_OK);
    static cuspec_ctx ctx;
    pthread_mutex_init(&ctx.lock, NULL);
    snprintf(ctx.device_id, sizeof ctx.device_id, "%s", dev);
    ctx.arch = 90;
    struct cuspec__variant v;
    CHECK_INT_EQ(cuspec__ops(s.family)->choose(&ctx, &s, &v), 0);
    CHECK_INT_EQ(v.p[5], 0); /* flat */
    pthread_mutex_destroy(&ctx.lock);
}

/* Misaligned transposes without a record: bytes take tiles of 64 in small
 * matrices and 128 in large ones, and both are compiled ahead with the
 * defaults (the shipped PTX holds what cuspec__family_each lists). */
static int shifted_byte_tiles(const struct cuspec__variant *v, void *user)
{
    unsigned *tiles = user; /* bit 0: tile 64, bit 1: tile 128 */
    if (v->dtype == CUSPEC_U8 && v->p[4]) /* shift */
        *tiles |= v->p[0] == 64 ? 1u : v->p[0] == 128 ? 2u : 4u;
    return 0;
}

/* A lookup first asks the (device, family, dtype, op) index entry that
 * publishing writes: without it, one miss and no bucket is read; a record
 * stored without it (written by hand, or its index lost) is not found
 * until the tuner puts the index back; with it, found. */
TEST(an_untuned_op_costs_one_lookup)
{
    const char *dev = "index|sm_90|132|1|13000";
    struct cuspec__spec s = reduce_spec(1 << 16);
    struct cuspec__record r = sample_record(256), got;
    cuspec_store_stats before, after;
    int bucket;
    CHECK_INT_EQ(cuspec_store_get_stats(&before), CUSPEC_OK);
    CHECK_INT_EQ(cuspec__record_find(dev, &s, &got, &bucket), CUSPEC_ERR_NOT_FOUND);
    CHECK_INT_EQ(cuspec_store_get_stats(&after), CUSPEC_OK);
    CHECK_INT_EQ((int)(after.misses - before.misses), 1);

    char key[2048], payload[2048];
    cuspec__tuning_key(dev, &s, 16, 0, key, sizeof key);
    cuspec__record_encode(&r, payload, sizeof payload);
    CHECK_INT_EQ(cuspec__store_publish(key, CUSPEC_KIND_TUNING, "", payload, strlen(payload)),
                 CUSPEC_OK);
    CHECK_INT_EQ(cuspec__record_find(dev, &s, &got, &bucket), CUSPEC_ERR_NOT_FOUND);
    /* The tuner, finding the record, puts its lost index back, once. */
    CHECK_INT_EQ(cuspec_store_get_stats(&before), CUSPEC_OK);
    CHECK_INT_EQ(cuspec__record_keep_index(dev, &s, 16), CUSPEC_OK);
    CHECK_INT_EQ(cuspec__record_keep_index(dev, &s, 16), CUSPEC_OK);
    CHECK_INT_EQ(cuspec_store_get_stats(&after), CUSPEC_OK);
    CHECK_INT_EQ((int)(after.publishes - before.publishes), 1);
    CHECK_INT_EQ(cuspec__record_find(dev, &s, &got, &bucket), CUSPEC_OK);
    CHECK_INT_EQ(bucket, 16);
    CHECK_INT_EQ(cuspec__record_publish(key, payload), CUSPEC_OK);
    CHECK_INT_EQ(cuspec__record_find(dev, &s, &got, &bucket), CUSPEC_OK);
    CHECK_INT_EQ(bucket, 16);
    /* Another op of the same device and dtype has no index entry. */
    s.op = 2;
    CHECK_INT_EQ(cuspec_store_get_stats(&before), CUSPEC_OK);
    CHECK_INT_EQ(cuspec__record_find(dev, &s, &got, &bucket), CUSPEC_ERR_NOT_FOUND);
    CHECK_INT_EQ(cuspec_store_get_stats(&after), CUSPEC_OK);
    CHECK_INT_EQ((int)(after.misses - before.misses), 1);
    /* Not a record's key: refused, nothing published. */
    CHECK_INT_EQ(cuspec__record_publish("cuspec tuning session\nbucket=1\n", payload),
                 CUSPEC_ERR_INVALID);
}

TEST(misaligned_byte_defaults_by_size)
{
    static const struct {
        unsigned long long rows, cols;
        int tile;
    } cases[] = {{1023, 1025, 64}, {2047, 2049, 64}, {4095, 4097, 128}, {8191, 8193, 128},
                 {64, 1ULL << 16, 64}, {64, (1ULL << 16) + 1, 128}, {1ULL << 40, 1ULL << 40, 128}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct cuspec__spec s = {.family = CUSPEC__FAM_TRANSPOSE,
                                 .dtype = CUSPEC_U8,
                                 .rows = cases[i].rows,
                                 .cols = cases[i].cols,
                                 .align = 1};
        struct cuspec__variant v = {.family = CUSPEC__FAM_TRANSPOSE, .dtype = CUSPEC_U8};
        cuspec__family_transpose.defaults(90, &v);
        cuspec__transpose_fit(&v, &s, 0);
        CHECK_INT_EQ(v.p[0], cases[i].tile);
        CHECK_INT_EQ(v.p[4], 1);
        CHECK(cuspec__family_transpose.legal(&v));
        /* aligned rows keep the default (the register kernel) where the
         * shape cuts none of its 16 x 16 squares */
        s.align = 16;
        v = (struct cuspec__variant){.family = CUSPEC__FAM_TRANSPOSE, .dtype = CUSPEC_U8};
        cuspec__family_transpose.defaults(90, &v);
        cuspec__transpose_fit(&v, &s, 0);
        CHECK_INT_EQ(v.p[5], s.rows % 16 == 0 && s.cols % 16 == 0);
        CHECK(cuspec__family_transpose.legal(&v));
    }
    /* Squares cut by the edge of a padded matrix: the shared-tile kernel,
     * for the defaults and for a tuning record that names the register
     * kernel alike; uncut ones keep it. */
    static const unsigned long long cut[][3] = {
        {1000, 1000, 0}, {1024, 1000, 0}, {1000, 1024, 0}, {48, 48, 1}, {8192, 8192, 1}};
    for (size_t i = 0; i < sizeof cut / sizeof *cut; i++)
        for (int from_record = 0; from_record <= 1; from_record++) {
            struct cuspec__spec s = {.family = CUSPEC__FAM_TRANSPOSE,
                                     .dtype = CUSPEC_U8,
                                     .rows = cut[i][0],
                                     .cols = cut[i][1],
                                     .align = 32};
            struct cuspec__variant v = {.family = CUSPEC__FAM_TRANSPOSE, .dtype = CUSPEC_U8};
            cuspec__family_transpose.defaults(90, &v);
            v.p[1] = 2; /* a tuned register kernel: tile 256, rows 2 */
            cuspec__transpose_fit(&v, &s, from_record);
            CHECK_INT_EQ(v.p[5], (int)cut[i][2]);
            CHECK(cuspec__family_transpose.legal(&v));
            if (cut[i][2] && from_record)
                CHECK_INT_EQ(v.p[1], 2); /* the record's own parameters */
        }
    unsigned tiles = 0;
    CHECK_INT_EQ(cuspec__family_each(CUSPEC__FAM_TRANSPOSE, 90, 0, shifted_byte_tiles, &tiles), 0);
    CHECK_INT_EQ(tiles, 3u);
}

/* At most 31 rows or columns: the narrow kernel (kernel = 2), with or
 * without a tuning record, its vectors as wide as the planar side (the
 * narrow side's rows) and the pointers allow; one more row or column: not. */
TEST(narrow_shapes_take_the_narrow_kernel)
{
    static const struct {
        unsigned long long rows, cols, ld_in, ld_out, in;
        int dtype, narrow, vec;
    } cases[] = {
        {3, 10000000, 10000000, 3, 256, CUSPEC_F32, 1, 4},   /* wide: ld_out = 3 is flat */
        {10000000, 3, 3, 10000000, 256, CUSPEC_F32, 1, 4},   /* tall */
        {31, 4096, 4096, 31, 256, CUSPEC_U8, 1, 16},         /* the widest narrow side */
        {4096, 32, 32, 4096, 256, CUSPEC_U8, 0, 0},
        {3, 1001, 1001, 3, 256, CUSPEC_F64, 1, 1},           /* odd planar rows */
        {3, 1000, 1000, 3, 260, CUSPEC_U8, 1, 4},            /* a base on 4 bytes */
        {1, 1, 1, 1, 256, CUSPEC_U16, 1, 1},
        {33, 4096, 4096, 33, 256, CUSPEC_F32, 0, 0},
        {4096, 33, 33, 4096, 256, CUSPEC_F32, 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int kd = cuspec__transpose_dtype(cases[i].dtype);
        struct cuspec__shape sh = {cases[i].in, 4096, cases[i].rows, cases[i].cols,
                                   cases[i].ld_in, cases[i].ld_out, 0, 0, 1};
        struct cuspec__spec s = {.family = CUSPEC__FAM_TRANSPOSE,
                                 .dtype = kd,
                                 .rows = cases[i].rows,
                                 .cols = cases[i].cols,
                                 .align = cuspec__transpose_align(&sh, kd)};
        CHECK_INT_EQ(cuspec__transpose_narrow(s.rows, s.cols), cases[i].narrow);
        for (int from_record = 0; from_record <= 1; from_record++) {
            struct cuspec__variant v = {.family = CUSPEC__FAM_TRANSPOSE, .dtype = kd};
            cuspec__family_transpose.defaults(90, &v);
            cuspec__transpose_fit(&v, &s, from_record);
            CHECK(cuspec__family_transpose.legal(&v));
            CHECK_INT_EQ(v.p[5] == 2, cases[i].narrow);
            if (cases[i].narrow)
                CHECK_INT_EQ(v.p[3], cases[i].vec);
        }
    }
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f != NULL) {
        fputs(text, f);
        fclose(f);
    }
}

static int count_records(const cuspec_tuning_record *r, void *user)
{
    (void)r;
    ++*(int *)user;
    return 0;
}

static int count_byte_sectors(const cuspec_tuning_record *r, void *user)
{
    if (strcmp(r->dtype, "u8") == 0 && strstr(r->bucket, " align=32") != NULL)
        ++*(int *)user;
    return 0;
}

/* Byte rows that start on sectors make the widest alignment class (32
 * elements): its records are listed, and so exported and imported (below),
 * like any other. */
TEST(byte_records_of_the_widest_class_are_listed)
{
    const char *dev = "bytes|sm_90|132|1|13000";
    struct cuspec__spec t = {.family = CUSPEC__FAM_TRANSPOSE,
                             .dtype = CUSPEC_U8,
                             .rows = 8192,
                             .cols = 8192,
                             .align = 32};
    struct cuspec__record r = {{256, 1, 0, 16, 0, 1, 0}, "r", 38, 3500, 3400, 4200, 0, 10, 1, 0};
    CHECK_INT_EQ(cuspec__record_put(dev, &t, cuspec__bucket(&t), &r), CUSPEC_OK);
    int found = 0;
    CHECK_INT_EQ(cuspec_tuning_list(NULL, count_byte_sectors, &found), CUSPEC_OK);
    CHECK_INT_EQ(found, 1);
}

static char warning[2048];

/* The last warning naming the device name `user` starts. */
static void keep_warning(const char *message, void *user)
{
    if (strstr(message, user) != NULL)
        snprintf(warning, sizeof warning, "%s", message);
}

struct device_count {
    const char *prefix;
    int n;
};

static int count_device(const cuspec_tuning_record *r, void *user)
{
    struct device_count *c = user;
    c->n += strncmp(r->device, c->prefix, strlen(c->prefix)) == 0;
    return 0;
}

/* A stored record that no call would use (here a block size of 999, which
 * an older import let in) is not listed, and the listing says so instead
 * of leaving its bucket looking tuned. */
TEST(unusable_records_are_skipped_with_a_warning)
{
    const char *dev = "skipped|sm_90|132|1|13000";
    struct cuspec__spec s = reduce_spec(1 << 16);
    struct cuspec__record bad = sample_record(999);
    CHECK_INT_EQ(cuspec__record_put(dev, &s, 16, &bad), CUSPEC_OK);
    struct device_count found = {"skipped|", 0};
    cuspec_set_warning_handler(keep_warning, "skipped|");
    CHECK_INT_EQ(cuspec_tuning_list(NULL, count_device, &found), CUSPEC_OK);
    cuspec_set_warning_handler(NULL, NULL);
    CHECK_INT_EQ(found.n, 0);
    CHECK_STR_CONTAINS(warning, "tuning record of reduce f32 n=2^16 on skipped|sm_90");
    CHECK_STR_CONTAINS(warning, "is skipped: its parameters are not among");
    CHECK_STR_CONTAINS(warning, store_dir);
}

/* A record whose index entry is lost is listed, and the listing says that
 * calls do not find it and what puts it back; with the index, no word. */
TEST(a_record_without_its_index_is_listed_with_a_warning)
{
    const char *dev = "unindexed|sm_90|132|1|13000";
    struct cuspec__spec s = reduce_spec(1 << 16);
    struct cuspec__record r = sample_record(256);
    char key[2048], payload[2048];
    cuspec__tuning_key(dev, &s, 16, 0, key, sizeof key);
    cuspec__record_encode(&r, payload, sizeof payload);
    CHECK_INT_EQ(cuspec__store_publish(key, CUSPEC_KIND_TUNING, "", payload, strlen(payload)),
                 CUSPEC_OK);
    struct device_count found = {"unindexed|", 0};
    cuspec_set_warning_handler(keep_warning, "unindexed|");
    CHECK_INT_EQ(cuspec_tuning_list(NULL, count_device, &found), CUSPEC_OK);
    CHECK_INT_EQ(found.n, 1);
    CHECK_STR_CONTAINS(warning, "reduce f32 n=2^16 on unindexed|sm_90");
    CHECK_STR_CONTAINS(warning, "is not found by calls: its index entry is missing");
    warning[0] = '\0';
    CHECK_INT_EQ(cuspec__record_keep_index(dev, &s, 16), CUSPEC_OK);
    CHECK_INT_EQ(cuspec_tuning_list(NULL, count_device, &found), CUSPEC_OK);
    cuspec_set_warning_handler(NULL, NULL);
    CHECK_INT_EQ(found.n, 2);
    CHECK_STR_EQ(warning, "");
}

/* The entry file of a record, made a folder: no publish can rename over it,
 * whoever runs the test (root ignores permissions, not this). */
static void block_record(const char *dev, const struct cuspec__spec *s, int bucket, char *path,
                         size_t size)
{
    char key[2048], hex[33];
    cuspec__tuning_key(dev, s, bucket, 0, key, sizeof key);
    cuspec__hash128_hex(key, strlen(key), hex);
    snprintf(path, size, "%s/v1", store_dir);
    mkdir(path, 0700);
    snprintf(path, size, "%s/" CUSPEC__ENTRIES_DIR "/%.2s", store_dir, hex);
    mkdir(path, 0700);
    snprintf(path, size, "%s/" CUSPEC__ENTRIES_DIR "/%.2s/%s.entry", store_dir, hex, hex + 2);
    CHECK_INT_EQ(mkdir(path, 0700), 0);
}

/* A record is what tuning is for: one the store cannot keep is an error,
 * not a warning (`cuspec tune` said "tuned" and kept nothing). */
TEST(a_record_the_store_cannot_keep_is_an_error)
{
    const char *dev = "unkept|sm_90|132|1|13000";
    struct cuspec__spec s = reduce_spec(1 << 12);
    struct cuspec__record r = sample_record(256), got;
    char path[4096];
    block_record(dev, &s, 12, path, sizeof path);
    CHECK_INT_EQ(cuspec__record_put(dev, &s, 12, &r), CUSPEC_ERR_IO);
    CHECK_STR_CONTAINS(cuspec_last_error(), "cannot publish to the store");
    CHECK_INT_EQ(rmdir(path), 0);
    CHECK_INT_EQ(cuspec__record_get(dev, &s, 12, &got), CUSPEC_ERR_NOT_FOUND);
    CHECK_INT_EQ(cuspec__record_put(dev, &s, 12, &r), CUSPEC_OK);
    CHECK_INT_EQ(cuspec__record_get(dev, &s, 12, &got), CUSPEC_OK);
}

static int count_large_buckets(const cuspec_tuning_record *r, void *user)
{
    if (strcmp(r->device, "imported|sm_80|108|1|12080") == 0 &&
        (strcmp(r->bucket, "n=2^40") == 0 || strcmp(r->bucket, "n=2^63") == 0))
        ++*(int *)user;
    return 0;
}

TEST(export_import_and_refusals)
{
    char path[512], file[4096];
    unsigned n = 0;
    snprintf(path, sizeof path, "%s/export.txt", store_dir);
    CHECK_INT_EQ(cuspec_tuning_export(NULL, path, &n), CUSPEC_OK);
    CHECK_INT_GE(n, 4); /* the records the tests above wrote */
    unsigned back = 0;
    if (cuspec_tuning_import(path, &back) != CUSPEC_OK)
        TAP_FAIL("import of an export failed: %s", cuspec_last_error());
    CHECK_UINT_EQ(back, n);

    const char *good =
        "cuspec-tuning 1\nrecord\ndevice=imported|sm_80|108|1|12080\nlibrary=" PACKAGE_VERSION
        "\nformat=1\nfamily=reduce\ndtype=f64\nop=2\n"
        "bucket=n=2^16\nparams=512 2 2 1 2 0\nkernel=k\nmedian_us=3\ngbs=900\n"
        "end\n";
    static const struct {
        const char *what, *from, *to, *detail;
    } bad[] = {
        {"not an export", "cuspec-tuning 1", "hello", "not a cuspec tuning export"},
        {"a foreign library", "library=" PACKAGE_VERSION, "library=0.0.1", "made by cuspec 0.0.1"},
        {"illegal params", "params=512 2 2", "params=512 2 4", "not legal"},
        {"a block size not in the list", "params=512", "params=999", "not legal"},
        {"a zero block size", "params=512", "params=0", "not legal"},
        {"a negative item count", "params=512 2", "params=512 -7", "not legal"},
        {"an identity field twice", "dtype=f64\n", "dtype=f64\ndtype=f32\n", "dtype twice"},
        {"a record field twice", "gbs=900\n", "gbs=900\ngbs=1\n", "'gbs' appears twice"},
        {"an infinite time", "median_us=3", "median_us=inf", "median_us"},
        {"an unknown family", "family=reduce", "family=fft", "family 'fft'"},
        {"an unknown dtype", "dtype=f64", "dtype=f33", "dtype 'f33'"},
        {"a bad bucket", "n=2^16", "n=2^x", "bucket"},
        {"a bucket past 2^63", "n=2^16", "n=2^64", "K from 0 to 63"},
        /* numbers past an int once wrapped to legal ones (2^32 + 16 to 16) */
        {"a bucket past an int", "n=2^16", "n=2^4294967312", "K from 0 to 63"},
        {"a format past an int", "format=1", "format=4294967297", "format 4294967297"},
        {"an op past an int", "op=2", "op=4294967298", "op '4294967298'"},
        {"a truncated file", "end\n", "", "no 'end'"},
        {"a bad number", "gbs=900", "gbs=lots", "gbs"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        /* One good record, then the bad one: nothing at all is imported. */
        const char *at = strstr(good, bad[i].from);
        int len = snprintf(file, sizeof file, "%s", good);
        len += snprintf(file + len, sizeof file - (size_t)len, "%.*s%s%s",
                        (int)(at - good) - (int)strlen("cuspec-tuning 1\n"),
                        good + strlen("cuspec-tuning 1\n"), bad[i].to, at + strlen(bad[i].from));
        if (i == 0) /* the header itself */
            snprintf(file, sizeof file, "hello\n%s", good + strlen("cuspec-tuning 1\n"));
        write_file(path, file);
        int before = 0, after = 0;
        cuspec_tuning_list(NULL, count_records, &before);
        int rc = cuspec_tuning_import(path, &back);
        cuspec_tuning_list(NULL, count_records, &after);
        if (rc == CUSPEC_OK)
            TAP_FAIL("import of %s was accepted", bad[i].what);
        else if (strstr(cuspec_last_error(), bad[i].detail) == NULL)
            TAP_FAIL("import of %s: detail '%s' lacks '%s'", bad[i].what, cuspec_last_error(),
                     bad[i].detail);
        CHECK_INT_EQ(after, before);
    }
    write_file(path, good);
    CHECK_INT_EQ(cuspec_tuning_import(path, &back), CUSPEC_OK);
    CHECK_UINT_EQ(back, 1);
    /* The largest buckets are legal: a reduction's has no alignment class to
     * shift out of it (1 << 63 was undefined), and a listing reads them back
     * from the store's keys. */
    static const char *const edges[] = {"bucket=n=2^40\n", "bucket=n=2^63\n"};
    for (size_t i = 0; i < sizeof edges / sizeof *edges; i++) {
        const char *at = strstr(good, "bucket=n=2^16\n");
        snprintf(file, sizeof file, "%.*s%s%s", (int)(at - good), good, edges[i],
                 at + strlen("bucket=n=2^16\n"));
        write_file(path, file);
        if (cuspec_tuning_import(path, &back) != CUSPEC_OK)
            TAP_FAIL("import of %.13s failed: %s", edges[i], cuspec_last_error());
    }
    int listed = 0;
    CHECK_INT_EQ(cuspec_tuning_list(NULL, count_large_buckets, &listed), CUSPEC_OK);
    CHECK_INT_EQ(listed, 2);
    CHECK_INT_EQ(cuspec_tuning_import("/nonexistent/file", &back), CUSPEC_ERR_IO);
}

/* ## The search, with a fake timer */

struct fake {
    int measured, stop_after;
    int stop;
    int wrong_block; /* this block size gives wrong results */
    int fail_items;  /* these do not compile */
    int flat;        /* everything 0.4% faster than the defaults */
    const int *rows; /* reduce_rows: the defaults, which rows_time ranks against */
    const int *best; /* these parameters fastest (50 us; the others 100 or more) */
    int calls[4096];
};

/* Fastest at block 512, items 2, vec 4, single 1, grid 2. */
static double fake_time(const struct cuspec__variant *v)
{
    return 100 + abs(v->p[0] - 512) / 16.0 + abs(v->p[1] - 2) * 3 + abs(v->p[2] - 4) * 5 +
           (v->p[3] ? 0 : 20) + abs(v->p[4] - 2) * 2;
}

/* Family f's parameter `name`'s index (the axis header's names clash with
 * transpose.h's). */
static int param_of(const struct cuspec__family *f, const char *name)
{
    for (int i = 0; i < f->n_params; i++)
        if (strcmp(f->params[i].name, name) == 0)
            return i;
    abort();
}

static int rows_param(const char *name)
{
    return param_of(&cuspec__family_reduce_rows, name);
}

/* reduce_rows: a block a row (rowblock 1) with the defaults' block, vector
 * and items is fastest; any other rowblock variant (rows_split's rowblock 2
 * among them) and the lanes-0, grid-0 ones (a step from it) are wrong, so
 * refinement must step onto it from the defaults (lanes 32), moving lanes
 * and grid with rowblock. Else the defaults are fastest. -1: wrong. */
static double rows_time(const int *def, const struct cuspec__variant *v)
{
    const int *p = v->p, block = rows_param("block"), vec = rows_param("vec"),
              items = rows_param("items"), lanes = rows_param("lanes"), grid = rows_param("grid");
    const int same = p[block] == def[block] && p[vec] == def[vec] && p[items] == def[items];
    if (p[rows_param("rowblock")])
        return p[rows_param("rowblock")] == 1 && same ? 80 : -1;
    if (p[lanes] == 0 && p[grid] == 0)
        return -1;
    return 100 + 3 * (p[block] != def[block]) + 3 * (p[vec] != def[vec]) +
           3 * (p[items] != def[items]) + (p[lanes] != def[lanes]) + (p[grid] != def[grid]);
}

static void fake_prepare(void *env, const struct cuspec__variant *v, unsigned n, int *ok)
{
    struct fake *f = env;
    for (unsigned i = 0; i < n; i++)
        ok[i] = v[i].p[1] != f->fail_items;
}

static int fake_measure(void *env, const struct cuspec__variant *v, int reps, double *us,
                        double *spread)
{
    struct fake *f = env;
    (void)reps;
    f->measured++;
    if (f->stop_after && f->measured >= f->stop_after)
        f->stop = 1;
    if (v->p[0] == f->wrong_block || (f->rows && rows_time(f->rows, v) < 0))
        return CUSPEC__WRONG;
    *us = f->rows ? rows_time(f->rows, v) : fake_time(v);
    if (f->best != NULL && memcmp(f->best, v->p, sizeof v->p) == 0)
        *us = 50;
    if (f->flat) {
        struct cuspec__variant d = *v;
        cuspec__family_reduce.defaults(90, &d);
        *us = memcmp(d.p, v->p, sizeof d.p) == 0 ? 100 : 99.6;
    }
    *spread = 0.01;
    return CUSPEC_OK;
}

static struct cuspec__tune_job fake_job(const char *device, struct fake *f, int max)
{
    struct cuspec__tune_job job;
    memset(&job, 0, sizeof job);
    job.device = device;
    job.spec = reduce_spec(1 << 20);
    job.bytes = 4.0 * (1 << 20);
    job.def.family = CUSPEC__FAM_REDUCE;
    job.def.dtype = CUSPEC_F32;
    cuspec__family_reduce.defaults(90, &job.def);
    job.opt.max_candidates = max;
    job.opt.top = 3;
    job.opt.reps = 5;
    job.opt.stop = &f->stop;
    return job;
}

/* job searched with f's compile results and times. */
static int fake_search(struct fake *f, const struct cuspec__tune_job *job, cuspec_tune_result *r,
                       struct cuspec__record *rec)
{
    const struct cuspec__tune_io io = {f, fake_prepare, fake_measure};
    return cuspec__tune_search(job, &io, r, rec);
}

/* A session log of one line, the defaults timed (status 0) at 123.5 us, in
 * the six-parameter form, under the job's session key; without_clock: under
 * the key as it was before it named the tuner's clock. */
static void put_log(const struct cuspec__tune_job *job, int without_clock)
{
    char key[2048], line[256];
    cuspec__tuning_key(job->device, &job->spec, cuspec__bucket(&job->spec), 1, key, sizeof key);
    char *clock = strstr(key, "clock=");
    CHECK(clock != NULL);
    if (without_clock && clock != NULL)
        *clock = '\0';
    const int *p = job->def.p;
    int len = snprintf(line, sizeof line, "%d %d %d %d %d %d 0 123.5 0.01\n", p[0], p[1], p[2],
                       p[3], p[4], p[5]);
    CHECK_INT_EQ(cuspec__store_put(key, CUSPEC_KIND_TUNING, "", line, (size_t)len), CUSPEC_OK);
}

/* A log written before the seventh parameter (six per line) is still read;
 * one timed by the tuner's clock before (its key had no clock line) is not
 * resumed from: its times do not rank against this clock's. */
TEST(search_reads_six_parameter_logs_of_this_clock)
{
    static const char *const device[2] = {"old-log", "old-clock"};
    for (int without_clock = 0; without_clock < 2; without_clock++) {
        struct fake f = {0};
        struct cuspec__tune_job job = fake_job(device[without_clock], &f, 40);
        put_log(&job, without_clock);
        cuspec_tune_result r;
        struct cuspec__record rec;
        CHECK_INT_EQ(fake_search(&f, &job, &r, &rec), CUSPEC_OK);
        CHECK_INT_EQ(r.reused, !without_clock);
        CHECK_INT_EQ(r.timed + r.reused, r.candidates);
    }
}

TEST(search_resumes_after_a_stop)
{
    struct fake full = {0}, part = {0};
    const struct cuspec__tune_io io_full = {&full, fake_prepare, fake_measure};
    struct cuspec__tune_job job = fake_job("resume-a", &full, 40);
    cuspec_tune_result r1, r2, r3;
    struct cuspec__record rec1, rec2;
    CHECK_INT_EQ(cuspec__tune_search(&job, &io_full, &r1, &rec1), CUSPEC_OK);
    CHECK(!r1.stopped);
    CHECK_INT_EQ(r1.candidates, 40);
    CHECK_INT_EQ(r1.reused, 0);
    CHECK(r1.gbs >= r1.default_gbs);

    /* Another device: stopped after 7 candidates, then resumed. */
    part.stop_after = 7;
    const struct cuspec__tune_io io_part = {&part, fake_prepare, fake_measure};
    job = fake_job("resume-b", &part, 40);
    CHECK_INT_EQ(cuspec__tune_search(&job, &io_part, &r2, &rec2), CUSPEC_OK);
    CHECK(r2.stopped);
    CHECK_INT_EQ(r2.timed, 7);
    part.stop_after = 0;
    part.stop = 0;
    CHECK_INT_EQ(cuspec__tune_search(&job, &io_part, &r3, &rec2), CUSPEC_OK);
    CHECK(!r3.stopped);
    CHECK_INT_EQ(r3.reused, 7);
    CHECK_INT_EQ(r3.timed, r1.timed - 7);
    CHECK_STR_EQ(r3.kernel, r1.kernel); /* the same search, the same winner */

    /* --force times everything again. */
    job.opt.force = 1;
    CHECK_INT_EQ(cuspec__tune_search(&job, &io_part, &r3, &rec2), CUSPEC_OK);
    CHECK_INT_EQ(r3.reused, 0);
    CHECK_INT_EQ(r3.timed, r1.timed);

    /* A larger space later times only what is new. */
    job.opt.force = 0;
    job.opt.max_candidates = 60;
    CHECK_INT_EQ(cuspec__tune_search(&job, &io_part, &r3, &rec2), CUSPEC_OK);
    CHECK_INT_GE(r3.reused, 20); /* what this search chose again was not timed again */
    CHECK_INT_EQ(r3.timed + r3.reused, r3.candidates);
}

TEST(search_rejects_wrong_and_failed_candidates)
{
    struct fake f = {.wrong_block = 512, .fail_items = 8};
    struct cuspec__tune_job job = fake_job("wrong", &f, 800); /* exhaustive */
    cuspec_tune_result r;
    struct cuspec__record rec;
    CHECK_INT_EQ(fake_search(&f, &job, &r, &rec), CUSPEC_OK);
    CHECK(rec.p[0] != 512); /* the fastest block size gave wrong results */
    CHECK(rec.p[1] != 8);   /* items 8 did not compile */
    /* items 8 (a quarter of the 768) or block 512 (a quarter; 48 are both) */
    CHECK_INT_EQ(r.candidates, 768);
    CHECK_INT_EQ(r.failed, 192 + 192 - 48);
    /* What did not compile is never timed. */
    CHECK_INT_EQ(r.timed, r.candidates - 192);
    /* Exhaustive: the best of the rest is found: block 256 or 1024 next. */
    CHECK_INT_EQ(rec.p[1], 2);
    CHECK_INT_EQ(rec.p[2], 4);
}

/* A winner less than 1% faster than the defaults is not recorded: the
 * defaults are, and the confirming round timed them again. */
TEST(search_keeps_the_defaults_against_a_winner_within_the_noise)
{
    struct fake f = {.flat = 1};
    struct cuspec__tune_job job = fake_job("flat", &f, 40);
    cuspec_tune_result r;
    struct cuspec__record rec;
    CHECK_INT_EQ(fake_search(&f, &job, &r, &rec), CUSPEC_OK);
    CHECK(memcmp(rec.p, job.def.p, sizeof rec.p) == 0);
    CHECK(r.gbs == r.default_gbs);
    /* 40 timed once, 3 and the defaults again */
    CHECK_INT_EQ(f.measured, 40 + 3 + 1);
}

/* A budget spent before the first candidate is timed (compiling the space
 * took it all) still times the defaults, and keeps them: a result, not "no
 * candidate ran correctly". Its record says one candidate was searched, so
 * that a run without the budget searches on, from the log. */
TEST(search_times_the_defaults_whatever_the_budget)
{
    struct fake f = {0};
    struct cuspec__tune_job job = fake_job("no-budget", &f, 40);
    job.opt.budget_s = 1e-9;
    cuspec_tune_result r;
    struct cuspec__record rec;
    CHECK_INT_EQ(fake_search(&f, &job, &r, &rec), CUSPEC_OK);
    CHECK_INT_EQ(r.timed, 1);
    CHECK(memcmp(rec.p, job.def.p, sizeof rec.p) == 0);
    CHECK(r.gbs == r.default_gbs && r.gbs > 0);
    CHECK_UINT_EQ(rec.searched, 1);
    job.opt.budget_s = 0;
    CHECK_INT_EQ(fake_search(&f, &job, &r, &rec), CUSPEC_OK);
    CHECK_INT_EQ(r.reused, 1);
    CHECK_INT_EQ(r.candidates, 40);
    CHECK_UINT_EQ(rec.searched, 40);
}

/* A stop before the first candidate (Ctrl-C while the space compiles)
 * times nothing, not even the defaults, and makes no record. */
TEST(a_stop_before_the_first_candidate_times_nothing)
{
    struct fake f = {.stop = 1};
    struct cuspec__tune_job job = fake_job("stopped-early", &f, 40);
    cuspec_tune_result r;
    struct cuspec__record rec;
    CHECK_INT_EQ(fake_search(&f, &job, &r, &rec), CUSPEC_OK);
    CHECK(r.stopped);
    CHECK_INT_EQ(r.timed, 0);
    CHECK_INT_EQ(f.measured, 0);
}

TEST(search_finds_the_optimum_by_refinement)
{
    struct fake f = {0};
    struct cuspec__tune_job job = fake_job("refine", &f, 48); /* 768 in the space */
    cuspec_tune_result r;
    struct cuspec__record rec;
    CHECK_INT_EQ(fake_search(&f, &job, &r, &rec), CUSPEC_OK);
    CHECK_UINT_LE(r.candidates, 48);
    printf("# winner %s after %u candidates\n", r.kernel, r.candidates);
    /* The fake's optimum is block 512, items 2, vec 4, single 1, grid 2. */
    CHECK_INT_EQ(rec.p[0], 512);
    CHECK_INT_EQ(rec.p[1], 2);
    CHECK_INT_EQ(rec.p[2], 4);
    CHECK_INT_EQ(rec.p[3], 1);
    CHECK_INT_EQ(rec.p[4], 2);
}

/* A parameter that picks another kernel, whose kernel takes other values of
 * the rest (reduce_rows' rowblock: lanes and grid 0), is still a step of the
 * refinement: from the defaults' lanes 32 to the nearest rowblock variant. */
TEST(refinement_steps_onto_a_kernel_selecting_parameter)
{
    struct fake f = {0};
    struct cuspec__tune_job job = fake_job("rowblock", &f, 48);
    job.spec = (struct cuspec__spec){
        .family = CUSPEC__FAM_REDUCE_ROWS, .dtype = CUSPEC_F32, .rows = 8192, .cols = 1024};
    job.bytes = 4.0 * 8192 * 1024;
    cuspec__variant_choose(&job.spec, 90, &job.def);
    const int lanes = rows_param("lanes"), rowblock = rows_param("rowblock");
    CHECK_INT_EQ(job.def.p[lanes], 32); /* 4 KB rows: a warp a row */
    CHECK_INT_EQ(job.def.p[rowblock], 0);
    f.rows = job.def.p;
    cuspec_tune_result r;
    struct cuspec__record rec;
    CHECK_INT_EQ(fake_search(&f, &job, &r, &rec), CUSPEC_OK);
    CHECK_INT_EQ(rec.p[rowblock], 1);
    CHECK_INT_EQ(rec.p[lanes], 0);
    CHECK_INT_EQ(rec.p[rows_param("grid")], 0);
    for (const char *const *name = (const char *const[]){"block", "vec", "items", NULL}; *name;
         name++)
        CHECK_INT_EQ(rec.p[rows_param(*name)], job.def.p[rows_param(*name)]);
    CHECK_STR_CONTAINS(r.kernel, "cuspec_reduce_rows_block<float, 0,");
}

/* spec searched in 8 candidates (of over a thousand for rows) where
 * the family's alternative to the defaults is fastest: found, as `want`;
 * in 1, the defaults alone. */
static void search_finds_the_alternative(const struct cuspec__spec *spec, const char *want)
{
    struct fake f = {0};
    struct cuspec__tune_job job = fake_job(want, &f, 8);
    job.spec = *spec;
    job.bytes = 4.0 * (double)spec->rows * (double)spec->cols;
    cuspec__variant_choose(spec, 90, &job.def);
    job.has_alt = cuspec__variant_alternative(spec, 90, &job.alt);
    CHECK(job.has_alt);
    CHECK(memcmp(job.alt.p, job.def.p, sizeof job.alt.p) != 0);
    f.best = job.alt.p;
    cuspec_tune_result r;
    struct cuspec__record rec;
    CHECK_INT_EQ(fake_search(&f, &job, &r, &rec), CUSPEC_OK);
    CHECK_UINT_LE(r.candidates, 8);
    CHECK_UINT_EQ(r.timed + r.reused, r.candidates);
    CHECK_STR_EQ(r.kernel, want);
    CHECK(memcmp(rec.p, job.alt.p, sizeof rec.p) == 0);
    job.opt.max_candidates = 1;
    job.opt.force = 1;
    CHECK_INT_EQ(fake_search(&f, &job, &r, &rec), CUSPEC_OK);
    CHECK_UINT_EQ(r.candidates, 1);
    CHECK(memcmp(rec.p, job.def.p, sizeof rec.p) == 0);
}

/* A kernel whose good shape is several one-parameter steps from the
 * defaults' is timed beside them: where a flat kernel takes the call, the
 * one the defaults do not choose (rows_flat's 256 x 4 x 8 is rowblock,
 * items and lanes away from the rows kernel's short rows): for sums,
 * rows_flat under 16 MB, the rows kernel from there; for argmin/argmax the
 * rows kernel at every size; cols_flat under 128 KB, the columns kernel
 * from there. None where the flat kernel does not take the call, nor for
 * whole arrays. */
TEST(search_times_the_familys_alternative_to_the_defaults)
{
    const int R = CUSPEC__FAM_REDUCE_ROWS, C = CUSPEC__FAM_REDUCE_COLS;
    struct cuspec__spec s = {
        .family = R, .op = CUSPEC_SUM, .dtype = CUSPEC_F32, .rows = 1 << 16, .cols = 32};
    search_finds_the_alternative(&s, "cuspec_reduce_rows_flat<float, 0, 256, 4, 8>");
    s.rows = 1 << 20; /* 128 MB: rows_flat's, the rows kernel the other */
    search_finds_the_alternative(&s, "cuspec_reduce_rows<float, 0, 256, 4, 4>");
    struct cuspec__variant v;
    CHECK(cuspec__variant_alternative(&s, 90, &v));
    CHECK_INT_EQ(v.p[rows_param("lanes")], 2);
    s.op = CUSPEC_ARGMAX;
    s.rows = 1 << 12; /* argmin/argmax: rows_flat's at every size, the rows kernel the other */
    search_finds_the_alternative(&s, "cuspec_reduce_rows<float, 4, 256, 4, 2>");
    s = (struct cuspec__spec){
        .family = C, .op = CUSPEC_ARGMAX, .dtype = CUSPEC_I32, .rows = 1 << 9, .cols = 32};
    search_finds_the_alternative(&s, "cuspec_reduce_cols_flat<int, 4, 512, 4, 8>");
    s.rows = 1 << 10; /* 128 KB: cols_flat's, the columns kernel the other */
    CHECK(cuspec__variant_alternative(&s, 90, &v));
    CHECK_INT_EQ(v.p[param_of(&cuspec__family_reduce_cols, "flat")], 0);
    s.rows = (1 << 10) - 1;
    CHECK(cuspec__variant_alternative(&s, 90, &v));
    CHECK_INT_EQ(v.p[param_of(&cuspec__family_reduce_cols, "flat")], 1);
    s.rows = 1 << 13;
    search_finds_the_alternative(&s, "cuspec_reduce_cols<int, 4, 512, 2, 8>");
    s.rows = 1 << 9;
    CHECK(cuspec__variant_alternative(&s, 90, &v));
    CHECK_INT_EQ(v.p[param_of(&cuspec__family_reduce_cols, "tx")], 8);
    s.ld_in = 36; /* rows apart */
    CHECK(!cuspec__variant_alternative(&s, 90, &v));
    s = (struct cuspec__spec){
        .family = C, .op = CUSPEC_SUM, .dtype = CUSPEC_I32, .rows = 1 << 16, .cols = 32};
    CHECK(!cuspec__variant_alternative(&s, 90, &v)); /* cols_flat: argmin/argmax */
    s = (struct cuspec__spec){
        .family = R, .op = 5 /* dot */, .dtype = CUSPEC_F32, .rows = 1 << 16, .cols = 32};
    CHECK(!cuspec__variant_alternative(&s, 90, &v));
    s = reduce_spec(1 << 20);
    CHECK(!cuspec__variant_alternative(&s, 90, &v));
}

struct space {
    unsigned n;
    struct cuspec__variant v[16384];
};

static int keep_variant(const struct cuspec__variant *v, void *user)
{
    struct space *sp = user;
    if (sp->n < sizeof sp->v / sizeof *sp->v)
        sp->v[sp->n++] = *v;
    return 0;
}

/* Where one parameter moved alone is not legal, the step lands on the
 * candidate that changes the fewest others, and among those the one that
 * moves them least along their lists: a columns' block of 128 under tx 256
 * takes tx 128, not tx 1. */
TEST(a_step_out_of_the_space_lands_on_the_nearest_legal_candidate)
{
    static struct space sp;
    const struct cuspec__family *f = &cuspec__family_reduce_cols;
    sp.n = 0;
    const int argmax = 4; /* the axis families' op */
    CHECK_INT_EQ(
        cuspec__family_space(CUSPEC__FAM_REDUCE_COLS, CUSPEC_F32, argmax, keep_variant, &sp),
        CUSPEC_OK);
    CHECK(sp.n > 0 && sp.n < sizeof sp.v / sizeof *sp.v);
    const int block = param_of(f, "block"), tx = param_of(f, "tx");
    struct cuspec__variant from = {0};
    cuspec__variant_default(CUSPEC__FAM_REDUCE_COLS, CUSPEC_F32, argmax, 90, &from);
    from.p[tx] = 256;
    CHECK_INT_EQ(from.p[block], 256);
    CHECK(cuspec__variant_legal(&from));
    int j = cuspec__nearest_variant(sp.v, sizeof *sp.v, sp.n, &from, block, 128);
    CHECK(j >= 0);
    if (j >= 0) {
        struct cuspec__variant want = from;
        want.p[block] = 128;
        want.p[tx] = 128;
        CHECK(memcmp(sp.v[j].p, want.p, sizeof want.p) == 0);
    }
    /* no candidate with the value */
    CHECK_INT_EQ(cuspec__nearest_variant(sp.v, sizeof *sp.v, sp.n, &from, block, 96), -1);
}

/* A spec whose reserved space is not zero is refused, saying why: a field a
 * later version takes from it would read the caller's garbage. */
TEST(a_spec_with_reserved_space_set_is_refused)
{
    cuspec_tune_spec pub = {.family = "reduce", .op = CUSPEC_SUM, .dtype = CUSPEC_F32, .n = 1024};
    struct cuspec__spec s;
    CHECK_INT_EQ(cuspec__spec_from_public(&pub, &s), CUSPEC_OK);
    pub.reserved[7] = 1;
    CHECK_INT_EQ(cuspec__spec_from_public(&pub, &s), CUSPEC_ERR_INVALID);
    CHECK_STR_CONTAINS(cuspec_last_error(), "cuspec_tune_spec: reserved is not zero");
}

int main(void)
{
    if (mkdtemp(store_dir) == NULL)
        return 1;
    setenv("CUSPEC_CACHE_DIR", store_dir, 1);
    static const struct tap_test tests[] = {
        TAP_ENTRY(record_round_trip),
        TAP_ENTRY(reading_a_record_leaves_the_callers_strtok_alone),
        TAP_ENTRY(keys_separate_device_driver_and_bucket),
        TAP_ENTRY(nearest_bucket_lookup),
        TAP_ENTRY(a_flat_record_serves_its_own_columns_alone),
        TAP_ENTRY(an_untuned_op_costs_one_lookup),
        TAP_ENTRY(misaligned_byte_defaults_by_size),
        TAP_ENTRY(narrow_shapes_take_the_narrow_kernel),
        TAP_ENTRY(byte_records_of_the_widest_class_are_listed),
        TAP_ENTRY(unusable_records_are_skipped_with_a_warning),
        TAP_ENTRY(a_record_without_its_index_is_listed_with_a_warning),
        TAP_ENTRY(a_record_the_store_cannot_keep_is_an_error),
        TAP_ENTRY(export_import_and_refusals),
        TAP_ENTRY(search_reads_six_parameter_logs_of_this_clock),
        TAP_ENTRY(search_resumes_after_a_stop),
        TAP_ENTRY(search_rejects_wrong_and_failed_candidates),
        TAP_ENTRY(search_keeps_the_defaults_against_a_winner_within_the_noise),
        TAP_ENTRY(search_times_the_defaults_whatever_the_budget),
        TAP_ENTRY(a_stop_before_the_first_candidate_times_nothing),
        TAP_ENTRY(search_finds_the_optimum_by_refinement),
        TAP_ENTRY(refinement_steps_onto_a_kernel_selecting_parameter),
        TAP_ENTRY(search_times_the_familys_alternative_to_the_defaults),
        TAP_ENTRY(a_step_out_of_the_space_lands_on_the_nearest_legal_candidate),
        TAP_ENTRY(a_spec_with_reserved_space_set_is_refused),
    };
    int rc = tap_run(tests, sizeof tests / sizeof *tests);
    return tap_remove_tree(store_dir, 0) == 0 ? rc : 1;
}
