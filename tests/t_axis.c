/* Axis reductions without a GPU: the argument checks, what each op writes,
 * the record buckets (text, parse, nearest within a shape class), the
 * record-free choice for every shape class and that the tuner's space
 * holds it, and the template's element types compiled by NVRTC for sm_75
 * and sm_90. */
#include "reduce_axis.h"
#include "catalogue.h"
#include "image.h"
#include "jit.h"
#include "template.h"
#include "tap.h"

#include <stdlib.h>

/* A valid call: argmax over the rows of two 100 x 30 matrices, ld 32. */
static struct cuspec__axis_call good_call(void)
{
    struct cuspec__axis_call c = {.rows_axis = 1,
                                  .kop = CUSPEC__AXIS_ARGMAX,
                                  .dtype = CUSPEC_F32,
                                  .a = 0x100000,
                                  .value = 0x900000,
                                  .index = 0xa00000,
                                  .rows = 100,
                                  .cols = 30,
                                  .ld = 32,
                                  .stride = 3200,
                                  .batch = 2};
    return c;
}

/* c is refused, and the detail names what is wrong. */
static void refused(struct cuspec__axis_call c, const char *why)
{
    unsigned long long results;
    CHECK_INT_EQ(cuspec__axis_check(&c, &results), CUSPEC_ERR_INVALID);
    CHECK_STR_CONTAINS(cuspec_last_error(), why);
}

TEST(argument_checks)
{
    unsigned long long results = 0;
    struct cuspec__axis_call c = good_call();
    CHECK_INT_EQ(cuspec__axis_check(&c, &results), CUSPEC_OK);
    CHECK_UINT_EQ(results, 200);
    c.rows_axis = 0;
    CHECK_INT_EQ(cuspec__axis_check(&c, &results), CUSPEC_OK);
    CHECK_UINT_EQ(results, 60);

    c = good_call();
    c.ld = 29;
    refused(c, "ld (29) is less than cols (30)");
    c = good_call();
    c.batch = 0;
    refused(c, "batch is 0");
    c = good_call();
    c.kop = -1;
    refused(c, "unknown op");
    c = good_call();
    c.dtype = 0;
    refused(c, "dtype 0 (unknown) is not supported");
    c = good_call();
    c.dtype = 99;
    refused(c, "dtype 99 (unknown)");
    c = good_call();
    c.value = c.index = 0;
    refused(c, "value and index are both NULL");
    c = good_call();
    c.cols = 0;
    refused(c, "argmin/argmax of empty rows (cols is 0)");
    c = good_call();
    c.rows_axis = 0;
    c.rows = 0;
    refused(c, "argmin/argmax of empty columns (rows is 0)");
    c = good_call();
    c.kop = CUSPEC__AXIS_SUM;
    refused(c, "index is only written by CUSPEC_ARGMIN and CUSPEC_ARGMAX");
    c.index = 0;
    c.value = 0;
    refused(c, "value is NULL");
    c.kop = CUSPEC__AXIS_DOT;
    c.b = 0x500000;
    refused(c, "out is NULL");
    c = good_call();
    c.rows = 1ULL << 40;
    c.ld = 1ULL << 40;
    refused(c, "extent overflows 64 bits");
    c = good_call();
    c.batch = 1ULL << 62;
    refused(c, "batch * rows overflows 64 bits");
    /* The new dtypes: value sizes from the input's (argmax) or the sum's
     * dtype. 200 i8 values end at value + 200; 200 i64 sums at + 1600. */
    c = good_call();
    c.dtype = CUSPEC_I8;
    c.index = c.value + 200;
    CHECK_INT_EQ(cuspec__axis_check(&c, &results), CUSPEC_OK);
    c.index = c.value + 199;
    refused(c, "value and index overlap");
    c.kop = CUSPEC__AXIS_SUM;
    c.index = 0;
    c.a = c.value + 1599;
    refused(c, "value overlaps the input a");
    c.a = c.value + 1600;
    CHECK_INT_EQ(cuspec__axis_check(&c, &results), CUSPEC_OK);
    c = good_call();
    c.dtype = CUSPEC_BF16;
    c.ld = 29;
    refused(c, "ld (29) is less than cols (30)");
    c = good_call();
    c.dtype = CUSPEC_U16;
    c.rows = 1ULL << 40;
    c.ld = 1ULL << 40;
    refused(c, "extent overflows 64 bits");
    c = good_call();
    c.value = c.a + 64; /* inside the first matrix */
    refused(c, "value overlaps the input a");
    c = good_call();
    c.index = c.value + 400; /* the values end at value + 200 * 4 */
    refused(c, "value and index overlap");
    c = good_call();
    c.kop = CUSPEC__AXIS_DOT;
    c.index = 0;
    c.b = 0x200000;
    c.value = c.b + 4000;
    refused(c, "value overlaps the input b");

    /* Empty reductions write the identity; no results is no work. */
    c = good_call();
    c.kop = CUSPEC__AXIS_MIN;
    c.index = 0;
    c.cols = 0;
    c.a = 0;
    CHECK_INT_EQ(cuspec__axis_check(&c, &results), CUSPEC_OK);
    CHECK_UINT_EQ(results, 200);
    c = good_call();
    c.rows = 0;
    c.a = c.value = 0;
    CHECK_INT_EQ(cuspec__axis_check(&c, &results), CUSPEC_OK);
    CHECK_UINT_EQ(results, 0);

    /* The public calls refuse before anything needs a device. */
    cuspec_matrix m = {10, 10, 10, 1, 0};
    CHECK_INT_EQ(cuspec_reduce_rows(NULL, CUSPEC_SUM, CUSPEC_F32, 1, &m, 2, 0, NULL),
                 CUSPEC_ERR_INVALID);
    CHECK_STR_CONTAINS(cuspec_last_error(), "cuspec_reduce_rows: ctx is NULL");
    CHECK_INT_EQ(cuspec_dot_cols(NULL, CUSPEC_F32, 1, 2, NULL, 3, NULL), CUSPEC_ERR_INVALID);
}

TEST(what_each_op_writes)
{
    /* every dtype, by the same rules as whole-array reductions */
    for (int d = 1; cuspec_dtype_name(d) != NULL; d++) {
        /* sums, min, max and dots as cuspec_reduce writes them */
        CHECK_INT_EQ(cuspec__axis_out_dtype(CUSPEC__AXIS_SUM, d), cuspec_reduce_out_dtype(0, d));
        CHECK_INT_EQ(cuspec__axis_out_dtype(CUSPEC__AXIS_MIN, d), cuspec_reduce_out_dtype(1, d));
        CHECK_INT_EQ(cuspec__axis_out_dtype(CUSPEC__AXIS_MAX, d), cuspec_reduce_out_dtype(2, d));
        CHECK_INT_EQ(cuspec__axis_out_dtype(CUSPEC__AXIS_DOT, d), cuspec_reduce_out_dtype(-1, d));
        CHECK_INT_EQ(cuspec__axis_out_dtype(CUSPEC__AXIS_ARGMIN, d), d);
        CHECK_INT_EQ(cuspec__axis_out_dtype(CUSPEC__AXIS_ARGMAX, d), d);
        /* the public query says the same, by public op */
        for (int op = -1; op <= CUSPEC_ARGMAX; op++)
            CHECK_INT_EQ(cuspec_reduce_axis_out_dtype(op, d),
                         cuspec__axis_out_dtype(cuspec__axis_op(op), d));
    }
    CHECK_INT_EQ(cuspec_reduce_axis_out_dtype(CUSPEC_SUM, CUSPEC_F16), CUSPEC_F32);
    CHECK_INT_EQ(cuspec_reduce_axis_out_dtype(CUSPEC_SUM, CUSPEC_U8), CUSPEC_U64);
    CHECK_INT_EQ(cuspec_reduce_axis_out_dtype(-1, CUSPEC_I16), CUSPEC_I64);
    CHECK_INT_EQ(cuspec_reduce_axis_out_dtype(CUSPEC_MAX, CUSPEC_BF16), CUSPEC_BF16);
    CHECK_INT_EQ(cuspec_reduce_axis_out_dtype(CUSPEC_ARGMIN, CUSPEC_I8), CUSPEC_I8);
    CHECK_INT_EQ(cuspec_reduce_axis_out_dtype(CUSPEC_SUM, 0), 0);
    CHECK_INT_EQ(cuspec_reduce_axis_out_dtype(CUSPEC_SUM, 13), 0);
    CHECK_INT_EQ(cuspec_reduce_axis_out_dtype(5, CUSPEC_F32), 0);
    CHECK_INT_EQ(cuspec_reduce_axis_out_dtype(-2, CUSPEC_F32), 0);
    CHECK_INT_EQ(cuspec__axis_op(CUSPEC_ARGMAX), CUSPEC__AXIS_ARGMAX);
    CHECK_INT_EQ(cuspec__axis_op(-1), CUSPEC__AXIS_DOT);
    CHECK_INT_EQ(cuspec__axis_op(5), -1);
}

static int collect_bucket(int bucket, void *user)
{
    int *list = user;
    list[++list[0]] = bucket;
    return 0;
}

/* How many buckets `family` offers d away from (rows_log2, cols_log2) for
 * s, each checked to have at least min_rows rows and cols in [cols_lo,
 * cols_hi) (log2). */
static int offered(int family, const struct cuspec__spec *s, int rows_log2, int cols_log2, int d,
                   int min_rows, int cols_lo, int cols_hi)
{
    int near[64] = {0};
    cuspec__ops(family)->nearby(s, rows_log2 << 8 | cols_log2, d, collect_bucket, near);
    for (int i = 1; i <= near[0]; i++) {
        CHECK_INT_GE(near[i] >> 8 & 0xff, min_rows);
        CHECK_INT_GE(near[i] & 0xff, cols_lo);
        CHECK_INT_LT(near[i] & 0xff, cols_hi);
    }
    return near[0];
}

TEST(record_buckets)
{
    const int fams[] = {CUSPEC__FAM_REDUCE_ROWS, CUSPEC__FAM_REDUCE_COLS};
    for (int f = 0; f < 2; f++) {
        const struct cuspec__family_ops *ops = cuspec__ops(fams[f]);
        CHECK(ops != NULL);
        struct cuspec__spec s = {
            .family = fams[f], .dtype = CUSPEC_F32, .rows = 8192, .cols = 1000};
        int b = ops->bucket(&s), back;
        char text[64];
        ops->bucket_text(b, text, sizeof text);
        CHECK_STR_EQ(text, "rows=2^13 cols=2^9");
        struct cuspec__spec parsed = {.dtype = CUSPEC_F32};
        CHECK_INT_EQ(ops->bucket_parse(text, &back, &parsed), CUSPEC_OK);
        CHECK_INT_EQ(back, b);
        CHECK_UINT_EQ(parsed.rows, 8192);
        CHECK_UINT_EQ(parsed.cols, 512);
        CHECK_INT_EQ(parsed.align, 0);
        /* Rows off the 16-byte vector (ld, or a call's pointers): a bucket
         * of their own, by the elements they start on */
        static const struct {
            int dtype;
            unsigned long long ld;
            int align;
            const char *text;
        } classes[] = {
            {CUSPEC_F32, 1001, 0, "rows=2^13 cols=2^9 align=1"},
            {CUSPEC_F32, 1002, 0, "rows=2^13 cols=2^9 align=2"},
            {CUSPEC_F32, 1004, 0, "rows=2^13 cols=2^9"},
            {CUSPEC_F32, 1004, 2, "rows=2^13 cols=2^9 align=2"}, /* a pointer off 16 bytes */
            {CUSPEC_F32, 1004, 4, "rows=2^13 cols=2^9"},
            {CUSPEC_F64, 1001, 0, "rows=2^13 cols=2^9 align=1"},
            {CUSPEC_F64, 1002, 0, "rows=2^13 cols=2^9"},
            {CUSPEC_U8, 1000, 0, "rows=2^13 cols=2^9 align=8"},
            {CUSPEC_U8, 1008, 0, "rows=2^13 cols=2^9"},
            {CUSPEC_F16, 1003, 0, "rows=2^13 cols=2^9 align=1"},
        };
        for (size_t i = 0; i < sizeof classes / sizeof *classes; i++) {
            struct cuspec__spec c = {.family = fams[f],
                                     .dtype = classes[i].dtype,
                                     .rows = 8192,
                                     .cols = 1000,
                                     .ld_in = classes[i].ld,
                                     .align = classes[i].align};
            b = ops->bucket(&c);
            ops->bucket_text(b, text, sizeof text);
            CHECK_STR_EQ(text, classes[i].text);
            struct cuspec__spec p = {.dtype = classes[i].dtype};
            CHECK_INT_EQ(ops->bucket_parse(text, &back, &p), CUSPEC_OK);
            CHECK_INT_EQ(back, b);
            /* the parsed bucket's shape is in its own class */
            CHECK_INT_EQ(ops->bucket(&p), b);
        }
        /* ... narrower than the class too */
        static const struct {
            int dtype;
            const char *text;
        } narrow[] = {{CUSPEC_F32, "rows=2^3 cols=2^0 align=2"}, {CUSPEC_F32, "rows=2^3 cols=2^0"},
                      {CUSPEC_U8, "rows=2^3 cols=2^2 align=8"},  {CUSPEC_U8, "rows=2^3 cols=2^3"},
                      {CUSPEC_F64, "rows=2^3 cols=2^0 align=1"}, {CUSPEC_F64, "rows=2^3 cols=2^0"}};
        for (size_t i = 0; i < sizeof narrow / sizeof *narrow; i++) {
            struct cuspec__spec p = {.family = fams[f], .dtype = narrow[i].dtype};
            CHECK_INT_EQ(ops->bucket_parse(narrow[i].text, &back, &p), CUSPEC_OK);
            CHECK_INT_EQ(ops->bucket(&p), back);
        }
        /* The operations the flat kernels take: buckets of their own (a
         * batch, ld > cols, rows off 16 bytes or 12 vectors a row not);
         * cols_flat's argmin/argmax of 1 to 32 vectors a row, rows_flat's
         * every op but dot of 4 to 32 */
        static const struct {
            int op, dtype;
            unsigned long long cols, ld, batch;
            int align;
            const char *text; /* the columns family's */
            int rows_flat;    /* the rows family's: flat too, else without */
        } flats[] = {
            {CUSPEC__AXIS_ARGMAX, CUSPEC_F32, 32, 32, 0, 0, "rows=2^20 cols=2^5 flat", 1},
            {CUSPEC__AXIS_ARGMIN, CUSPEC_U32, 128, 128, 1, 4, "rows=2^20 cols=2^7 flat", 1},
            {CUSPEC__AXIS_ARGMIN, CUSPEC_I32, 8, 8, 0, 0, "rows=2^20 cols=2^3 flat", 0},
            {CUSPEC__AXIS_ARGMAX, CUSPEC_F32, 4, 4, 0, 0, "rows=2^20 cols=2^2 flat", 0},
            {CUSPEC__AXIS_ARGMAX, CUSPEC_F32, 48, 48, 0, 0, "rows=2^20 cols=2^5", 0},
            {CUSPEC__AXIS_ARGMAX, CUSPEC_F32, 32, 36, 0, 0, "rows=2^20 cols=2^5", 0},
            {CUSPEC__AXIS_ARGMAX, CUSPEC_F32, 32, 32, 2, 0, "rows=2^20 cols=2^5", 0},
            {CUSPEC__AXIS_ARGMAX, CUSPEC_F32, 32, 32, 0, 2, "rows=2^20 cols=2^5 align=2", 0},
            {CUSPEC__AXIS_SUM, CUSPEC_F32, 32, 32, 0, 0, "rows=2^20 cols=2^5", 1},
            {CUSPEC__AXIS_MIN, CUSPEC_I32, 16, 16, 0, 0, "rows=2^20 cols=2^4", 1},
            {CUSPEC__AXIS_MAX, CUSPEC_U32, 64, 64, 0, 0, "rows=2^20 cols=2^6", 1},
            {CUSPEC__AXIS_DOT, CUSPEC_F32, 32, 32, 0, 0, "rows=2^20 cols=2^5", 0},
            {CUSPEC__AXIS_SUM, CUSPEC_F64, 32, 32, 0, 0, "rows=2^20 cols=2^5", 0},
            {CUSPEC__AXIS_ARGMAX, CUSPEC_F16, 64, 64, 0, 0, "rows=2^20 cols=2^6", 0},
        };
        for (size_t i = 0; i < sizeof flats / sizeof *flats; i++) {
            struct cuspec__spec c = {.family = fams[f],
                                     .op = flats[i].op,
                                     .dtype = flats[i].dtype,
                                     .rows = 1 << 20,
                                     .cols = flats[i].cols,
                                     .ld_in = flats[i].ld,
                                     .align = flats[i].align,
                                     .batch = flats[i].batch};
            b = ops->bucket(&c);
            ops->bucket_text(b, text, sizeof text);
            const char *want = flats[i].text, *flat = strstr(want, " flat");
            char rows_text[64];
            const int rows = fams[f] == CUSPEC__FAM_REDUCE_ROWS;
            if (rows && flat != NULL && !flats[i].rows_flat) {
                snprintf(rows_text, sizeof rows_text, "%.*s", (int)(flat - want), want);
                want = rows_text;
            } else if (rows && flat == NULL && flats[i].rows_flat) {
                snprintf(rows_text, sizeof rows_text, "%s flat", want);
                want = rows_text;
            }
            CHECK_STR_EQ(text, want);
            struct cuspec__spec p = {.family = fams[f], .op = flats[i].op, .dtype = flats[i].dtype};
            CHECK_INT_EQ(ops->bucket_parse(text, &back, &p), CUSPEC_OK);
            CHECK_INT_EQ(back, b);
            CHECK_INT_EQ(ops->bucket(&p), b);
        }
        /* flat where the family's flat kernel takes none of the bucket's
         * shapes: corrupt */
        const int rows = fams[f] == CUSPEC__FAM_REDUCE_ROWS;
        struct cuspec__spec fp = {
            .family = fams[f], .op = CUSPEC__AXIS_ARGMAX, .dtype = CUSPEC_F32};
        static const char *const not_flat[] = {
            "rows=2^20 cols=2^8 flat", "rows=2^20 cols=2^1 flat", "rows=2^20 cols=2^5 align=2 flat",
            "rows=2^20 cols=2^5 flat ", "rows=2^20 cols=2^5  flat"};
        for (size_t i = 0; i < sizeof not_flat / sizeof *not_flat; i++)
            CHECK_INT_EQ(ops->bucket_parse(not_flat[i], &back, &fp), CUSPEC_ERR_CORRUPT);
        CHECK_INT_EQ(ops->bucket_parse("rows=2^20 cols=2^3 flat", &back, &fp),
                     rows ? CUSPEC_ERR_CORRUPT : CUSPEC_OK);
        fp.op = CUSPEC__AXIS_SUM;
        CHECK_INT_EQ(ops->bucket_parse("rows=2^20 cols=2^5 flat", &back, &fp),
                     rows ? CUSPEC_OK : CUSPEC_ERR_CORRUPT);
        fp.op = CUSPEC__AXIS_DOT;
        CHECK_INT_EQ(ops->bucket_parse("rows=2^20 cols=2^5 flat", &back, &fp), CUSPEC_ERR_CORRUPT);
        /* A text cut short is empty, not another bucket's. */
        ops->bucket_text(1 << 16 | 13 << 8 | 9, text, 20);
        CHECK_STR_EQ(text, "");
        static const char *const bad[] = {"rows=2^64 cols=2^1",
                                          "rows=2^3",
                                          "n=2^20",
                                          "rows=2^3 cols=2^3 align=4", /* 16 bytes: no class */
                                          "rows=2^3 cols=2^3 align=3",
                                          "rows=2^3 cols=2^3 align=0",
                                          "rows=2^3 cols=2^3 align=",
                                          "rows=2^3 cols=2^3 align=2 ",
                                          "rows=2^3 cols=2^3  align=2",
                                          ""};
        for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
            CHECK_INT_EQ(ops->bucket_parse(bad[i], &back, &parsed), CUSPEC_ERR_CORRUPT);
        parsed.dtype = CUSPEC_F64;
        CHECK_INT_EQ(ops->bucket_parse("rows=2^3 cols=2^3 align=2", &back, &parsed),
                     CUSPEC_ERR_CORRUPT);
        parsed.dtype = CUSPEC_U8;
        CHECK_INT_EQ(ops->bucket_parse("rows=2^3 cols=2^3 align=8", &back, &parsed), CUSPEC_OK);
        CHECK_INT_EQ(ops->bucket_parse("rows=2^3 cols=2^3 align=16", &back, &parsed),
                     CUSPEC_ERR_CORRUPT);
    }
    /* A record serves its own alignment class only: the buckets offered
     * near one off the vector are off it by as much. */
    {
        const int C = CUSPEC__FAM_REDUCE_COLS;
        const struct cuspec__spec odd = {.family = C, .dtype = CUSPEC_F32};
        int near[64] = {0};
        cuspec__ops(C)->nearby(&odd, 1 << 16 | 13 << 8 | 13, 1, collect_bucket, near);
        CHECK_INT_EQ(near[0], 4);
        for (int i = 1; i <= near[0]; i++)
            CHECK_INT_EQ(near[i] >> 16, 1);
        near[0] = 0;
        cuspec__ops(C)->nearby(&odd, 13 << 8 | 13, 2, collect_bucket, near);
        for (int i = 1; i <= near[0]; i++)
            CHECK_INT_EQ(near[i] >> 16, 0);
    }
    /* Nearest buckets: rows and cols together, one power of two away. */
    const int R = CUSPEC__FAM_REDUCE_ROWS;
    const struct cuspec__spec f32 = {.dtype = CUSPEC_F32}, f64 = {.dtype = CUSPEC_F64};
    CHECK_INT_EQ(offered(CUSPEC__FAM_REDUCE_COLS, &f32, 13, 13, 1, 0, 0, 64), 4);
    /* A rows record never serves another shape class: from short rows
     * (2^20 x 2^6) the long rows a power of two away are not offered; */
    CHECK_INT_EQ(offered(R, &f32, 20, 6, 1, 0, 0, 7), 3);
    /* nor, from many long rows (2^11 x 2^10), few ones; */
    CHECK_INT_GE(offered(R, &f32, 11, 10, 2, 11, 0, 64), 3);
    /* nor across 8 KB rows of many (a warp a row below, rows_block from
     * there): f32 from 2^11 columns, f64 from 2^10 (2^9: 4 KB rows) */
    CHECK_INT_GE(offered(R, &f32, 15, 10, 2, 0, 0, 11), 3);
    CHECK_INT_GE(offered(R, &f32, 14, 11, 2, 0, 11, 64), 3);
    CHECK_INT_EQ(offered(R, &f64, 15, 10, 1, 0, 10, 64), 3);
    /* 1024 to 2047 long rows of under 64 KB: rows_block's, as many rows of
     * 8 KB or more take, so their records serve each other and many rows',
     * not fewer rows' nor 64 KB rows' */
    CHECK_INT_EQ(offered(R, &f32, 10, 12, 1, 10, 11, 14), 3);
    CHECK_INT_EQ(offered(R, &f32, 10, 13, 1, 10, 12, 14), 2);
    CHECK_INT_EQ(offered(R, &f32, 10, 8, 1, 10, 7, 10), 2);
    /* A dot's many rows by the bytes they read, both inputs: f32 dots take
     * rows_block from 2^10 columns (8 KB read a row), and records on either
     * side of that serve only their own */
    const struct cuspec__spec f32dot = {.dtype = CUSPEC_F32, .op = CUSPEC__AXIS_DOT};
    CHECK_INT_EQ(offered(R, &f32dot, 14, 10, 1, 0, 10, 64), 3);
    CHECK_INT_EQ(offered(R, &f32dot, 14, 9, 1, 0, 0, 10), 3);
    /* kernel op, log2 rows, log2 cols, element size: class */
    enum { SUM = CUSPEC__AXIS_SUM, DOT = CUSPEC__AXIS_DOT, ARG = CUSPEC__AXIS_ARGMAX };
    static const int classes[][5] = {
        {SUM, 11, 13, 1, 4}, {SUM, 11, 12, 1, 2}, {SUM, 11, 12, 2, 4}, {SUM, 10, 13, 4, 4},
        {SUM, 10, 11, 4, 4}, {SUM, 10, 7, 1, 4},  {SUM, 10, 6, 4, 1},  {SUM, 10, 14, 4, 3},
        {SUM, 10, 12, 8, 4}, {SUM, 10, 13, 8, 3}, {SUM, 9, 13, 4, 3},  {DOT, 11, 10, 4, 4},
        {DOT, 16, 9, 4, 2},  {DOT, 16, 11, 1, 2}, {DOT, 16, 12, 1, 4}, {DOT, 10, 12, 8, 4},
        {DOT, 10, 13, 8, 3}, {DOT, 11, 6, 8, 1},  {ARG, 11, 12, 2, 4}, {ARG, 11, 11, 2, 2},
    };
    for (size_t i = 0; i < sizeof classes / sizeof *classes; i++)
        CHECK_INT_EQ(cuspec__axis_class(R, classes[i][0], classes[i][1], classes[i][2],
                                        (size_t)classes[i][3]),
                     classes[i][4]);
}

/* The distinct kernels among record-free choices. */
struct kernels {
    struct cuspec__variant v[16];
    unsigned n;
    unsigned lanes; /* the launches' lanes: bit 0 for 0 (the block), bit k + 1 for 2^k */
};

static int add_kernel(const struct cuspec__variant *v, void *user)
{
    struct kernels *k = user;
    struct cuspec__variant kernel;
    cuspec__variant_kernel(v, &kernel);
    k->lanes |= v->p[P_LANES] ? 2u << __builtin_ctz((unsigned)v->p[P_LANES]) : 1u;
    for (unsigned i = 0; i < k->n; i++)
        if (memcmp(&k->v[i], &kernel, sizeof kernel) == 0)
            return 0;
    if (k->n < 16)
        k->v[k->n++] = kernel;
    return 0;
}

/* The record-free kernel and launch of an op's call on `batch` (0: one)
 * rows x cols matrices, rows ld elements apart (0: cols). */
static struct cuspec__variant chosen_in(int family, int op, int dtype, unsigned long long rows,
                                        unsigned long long cols, unsigned long long ld,
                                        unsigned long long batch)
{
    struct cuspec__spec s = {.family = family,
                             .op = op,
                             .dtype = dtype,
                             .rows = rows,
                             .cols = cols,
                             .ld_in = ld,
                             .batch = batch};
    struct cuspec__variant v;
    cuspec__variant_choose(&s, 90, &v);
    CHECK(cuspec__variant_legal(&v));
    return v;
}

/* A shape of the flat kernels' table: an op's call on one matrix, rows ld
 * elements apart (0: cols) starting on `align` elements (0: unknown); for
 * rows_flat and cols_flat (in that order), `flat`: the call takes it;
 * `fits`: a variant of it fits the call. */
struct flat_case {
    int op, dtype;
    unsigned long long rows, cols, ld;
    int align, flat[2], fits[2];
};

/* The record-free kernel and launch of c's call in `family`, its spec at *sp. */
static struct cuspec__variant chosen_case(int family, const struct flat_case *c,
                                          struct cuspec__spec *sp)
{
    *sp = (struct cuspec__spec){.family = family,
                                .op = c->op,
                                .dtype = c->dtype,
                                .rows = c->rows,
                                .cols = c->cols,
                                .ld_in = c->ld,
                                .align = c->align};
    struct cuspec__variant v;
    cuspec__variant_choose(sp, 90, &v);
    CHECK(cuspec__variant_legal(&v));
    return v;
}

/* The same of one matrix. */
static struct cuspec__variant chosen_ld(int family, int op, int dtype, unsigned long long rows,
                                        unsigned long long cols, unsigned long long ld)
{
    return chosen_in(family, op, dtype, rows, cols, ld, 0);
}

/* The same of a batch of two matrices, rows cols elements apart (the
 * columns kernel, where cols_flat would take one). */
static struct cuspec__variant batched(int op, int dtype, unsigned long long rows,
                                      unsigned long long cols)
{
    struct cuspec__variant v = chosen_in(CUSPEC__FAM_REDUCE_COLS, op, dtype, rows, cols, 0, 2);
    CHECK_INT_EQ(v.p[P_ROWBLOCK], 0);
    return v;
}

/* The same with rows cols elements apart. */
static struct cuspec__variant chosen_op(int family, int op, int dtype, unsigned long long rows,
                                        unsigned long long cols)
{
    return chosen_ld(family, op, dtype, rows, cols, 0);
}

/* The same for a sum. */
static struct cuspec__variant chosen(int family, int dtype, unsigned long long rows,
                                     unsigned long long cols)
{
    return chosen_op(family, CUSPEC__AXIS_SUM, dtype, rows, cols);
}

TEST(selection_covers_every_shape_class)
{
    const int R = CUSPEC__FAM_REDUCE_ROWS, C = CUSPEC__FAM_REDUCE_COLS;
    /* short rows: the fewest lanes whose 16-byte vectors cover a row, and
     * from ITEMS (4) vectors to less than a warp's, lanes of ITEMS vectors
     * (rows of 4 to 32 whole vectors of 4-byte elements under 16 MB:
     * rows_flat takes them from there) */
    CHECK_INT_EQ(chosen(R, CUSPEC_F32, 1 << 20, 1).p[P_LANES], 1);
    CHECK_INT_EQ(chosen(R, CUSPEC_F32, 1 << 20, 7).p[P_LANES], 2);
    CHECK_INT_EQ(chosen(R, CUSPEC_F32, 1 << 20, 12).p[P_LANES], 4);
    CHECK_INT_EQ(chosen(R, CUSPEC_F32, 1 << 16, 16).p[P_LANES], 1);
    CHECK_INT_EQ(chosen(R, CUSPEC_F32, 1 << 16, 32).p[P_LANES], 2);
    CHECK_INT_EQ(chosen(R, CUSPEC_F32, 1 << 20, 100).p[P_LANES], 8);
    CHECK_INT_EQ(chosen(R, CUSPEC_F64, 1 << 20, 32).p[P_LANES], 4);
    CHECK_INT_EQ(chosen(R, CUSPEC_F32, 1 << 20, 124).p[P_LANES], 8);
    CHECK_INT_EQ(chosen(R, CUSPEC_F32, 1 << 20, 125).p[P_LANES], 32);
    CHECK_INT_EQ(chosen(R, CUSPEC_F32, 1 << 20, 127).p[P_LANES], 32);
    CHECK_INT_EQ(chosen(R, CUSPEC_F32, 3, 7).p[P_LANES], 2);
    CHECK_INT_EQ(chosen_op(R, CUSPEC__AXIS_MAX, CUSPEC_F16, 1 << 20, 64).p[P_LANES], 2);
    /* dots from 2 x ITEMS + 1 vectors */
    CHECK_INT_EQ(chosen_op(R, CUSPEC__AXIS_DOT, CUSPEC_F32, 1 << 20, 32).p[P_LANES], 8);
    CHECK_INT_EQ(chosen_op(R, CUSPEC__AXIS_DOT, CUSPEC_F32, 1 << 20, 33).p[P_LANES], 4);
    CHECK_INT_EQ(chosen_op(R, CUSPEC__AXIS_DOT, CUSPEC_F64, 1 << 20, 32).p[P_LANES], 4);
    CHECK_INT_EQ(chosen_op(R, CUSPEC__AXIS_DOT, CUSPEC_F64, 1 << 20, 16).p[P_LANES], 8);
    /* argmin/argmax the same (rows of 4 to 32 whole vectors of 4-byte
     * elements end to end are rows_flat's: here a row apart) */
    CHECK_INT_EQ(chosen_ld(R, CUSPEC__AXIS_ARGMAX, CUSPEC_F32, 1 << 12, 32, 36).p[P_LANES], 2);
    CHECK_INT_EQ(chosen_op(R, CUSPEC__AXIS_ARGMIN, CUSPEC_F16, 1 << 20, 32).p[P_LANES], 1);
    CHECK_INT_EQ(chosen_op(R, CUSPEC__AXIS_ARGMAX, CUSPEC_F32, 1 << 20, 100).p[P_LANES], 8);
    CHECK_INT_EQ(chosen_op(R, CUSPEC__AXIS_ARGMAX, CUSPEC_F32, 1 << 20, 127).p[P_LANES], 32);
    CHECK_INT_EQ(chosen_ld(R, CUSPEC__AXIS_ARGMAX, CUSPEC_F32, 1 << 12, 16, 20).p[P_LANES], 1);
    CHECK_INT_EQ(chosen_op(R, CUSPEC__AXIS_ARGMAX, CUSPEC_F32, 1 << 20, 9).p[P_LANES], 4);
    CHECK_INT_EQ(chosen_op(R, CUSPEC__AXIS_ARGMAX, CUSPEC_F32, 1 << 20, 7).p[P_LANES], 2);
    /* many long rows' argmin/argmax (16384 or more): 4 lanes to 64
     * vectors, 8 to 256, then a warp */
    CHECK_INT_EQ(chosen_op(R, CUSPEC__AXIS_ARGMAX, CUSPEC_F32, 1 << 14, 1024).p[P_LANES], 8);
    CHECK_INT_EQ(chosen_op(R, CUSPEC__AXIS_ARGMAX, CUSPEC_F32, (1 << 14) - 1, 1024).p[P_LANES],
                 32);
    CHECK_INT_EQ(chosen_op(R, CUSPEC__AXIS_ARGMAX, CUSPEC_F32, 1 << 14, 132).p[P_LANES], 4);
    CHECK_INT_EQ(chosen_op(R, CUSPEC__AXIS_ARGMAX, CUSPEC_F64, 1 << 14, 128).p[P_LANES], 4);
    CHECK_INT_EQ(chosen_op(R, CUSPEC__AXIS_ARGMIN, CUSPEC_F32, 1 << 18, 256).p[P_LANES], 4);
    CHECK_INT_EQ(chosen_op(R, CUSPEC__AXIS_ARGMAX, CUSPEC_F32, 1 << 18, 257).p[P_LANES], 8);
    CHECK_INT_EQ(chosen_op(R, CUSPEC__AXIS_ARGMAX, CUSPEC_F32, 1 << 16, 1024).p[P_LANES], 8);
    CHECK_INT_EQ(chosen_op(R, CUSPEC__AXIS_ARGMAX, CUSPEC_F32, 1 << 16, 1025).p[P_LANES], 32);
    CHECK_INT_EQ(chosen_op(R, CUSPEC__AXIS_ARGMAX, CUSPEC_F16, 1 << 16, 1024).p[P_LANES], 8);
    CHECK_INT_EQ(chosen_op(R, CUSPEC__AXIS_ARGMAX, CUSPEC_F64, 1 << 16, 768).p[P_LANES], 32);
    CHECK_INT_EQ(chosen_op(R, CUSPEC__AXIS_ARGMAX, CUSPEC_I8, 1 << 16, 1024).p[P_LANES], 4);
    CHECK_INT_EQ(chosen(R, CUSPEC_F32, 1 << 16, 1024).p[P_LANES], 32);
    /* those lanes 2 vectors at a time (ITEMS 2): halves and bfloat16s
     * always, dots of 4 and 8 bytes to 2 x ITEMS vectors, argmin/argmax of
     * f32 and f64 from ITEMS + 1 vectors; the rest ITEMS (4) */
    CHECK_INT_EQ(chosen(R, CUSPEC_F16, 1 << 20, 4).p[P_ITEMS], 2);
    CHECK_INT_EQ(chosen_op(R, CUSPEC__AXIS_ARGMAX, CUSPEC_BF16, 1 << 20, 127).p[P_ITEMS], 2);
    CHECK_INT_EQ(chosen(R, CUSPEC_F16, 1 << 20, 128).p[P_ITEMS], 4); /* not short */
    CHECK_INT_EQ(chosen(R, CUSPEC_F32, 1 << 16, 32).p[P_ITEMS], 4);
    CHECK_INT_EQ(chosen_op(R, CUSPEC__AXIS_MAX, CUSPEC_F64, 1 << 20, 8).p[P_ITEMS], 4);
    CHECK_INT_EQ(chosen_op(R, CUSPEC__AXIS_DOT, CUSPEC_F32, 1 << 20, 32).p[P_ITEMS], 2);
    CHECK_INT_EQ(chosen_op(R, CUSPEC__AXIS_DOT, CUSPEC_F32, 1 << 20, 33).p[P_ITEMS], 4);
    CHECK_INT_EQ(chosen_op(R, CUSPEC__AXIS_DOT, CUSPEC_U64, 1 << 20, 1).p[P_ITEMS], 2);
    CHECK_INT_EQ(chosen_op(R, CUSPEC__AXIS_DOT, CUSPEC_F64, 1 << 20, 17).p[P_ITEMS], 4);
    CHECK_INT_EQ(chosen_op(R, CUSPEC__AXIS_DOT, CUSPEC_I16, 1 << 20, 8).p[P_ITEMS], 4);
    CHECK_INT_EQ(chosen_op(R, CUSPEC__AXIS_ARGMAX, CUSPEC_F32, 1 << 20, 17).p[P_ITEMS], 2);
    CHECK_INT_EQ(chosen_ld(R, CUSPEC__AXIS_ARGMIN, CUSPEC_F32, 1 << 12, 16, 20).p[P_ITEMS], 4);
    CHECK_INT_EQ(chosen_op(R, CUSPEC__AXIS_ARGMIN, CUSPEC_F64, 1 << 20, 9).p[P_ITEMS], 2);
    CHECK_INT_EQ(chosen_ld(R, CUSPEC__AXIS_ARGMAX, CUSPEC_I32, 1 << 12, 32, 36).p[P_ITEMS], 4);
    /* dots of long rows in the rows kernel 2 items too, every dtype: a warp
     * a row (2048 or more rows of under 4 KB an input) or the block (fewer);
     * their sums and argmin/argmax 4, and rows_block's dots its own */
    CHECK_INT_EQ(chosen_op(R, CUSPEC__AXIS_DOT, CUSPEC_F32, 1 << 14, 512).p[P_ITEMS], 2);
    CHECK_INT_EQ(chosen_op(R, CUSPEC__AXIS_DOT, CUSPEC_I8, 1 << 16, 1025).p[P_ITEMS], 2);
    CHECK_INT_EQ(chosen_op(R, CUSPEC__AXIS_DOT, CUSPEC_F32, 300, 100003).p[P_ITEMS], 2);
    CHECK_INT_EQ(chosen_op(R, CUSPEC__AXIS_DOT, CUSPEC_U16, 32, 1 << 20).p[P_ITEMS], 2);
    CHECK_INT_EQ(chosen_op(R, CUSPEC__AXIS_DOT, CUSPEC_F64, 1500, 30000).p[P_ITEMS], 2);
    CHECK_INT_EQ(chosen(R, CUSPEC_F32, 300, 100003).p[P_ITEMS], 4);
    CHECK_INT_EQ(chosen_op(R, CUSPEC__AXIS_ARGMAX, CUSPEC_I8, 1 << 14, 512).p[P_ITEMS], 4);
    const struct cuspec__variant wide_dot = chosen_op(R, CUSPEC__AXIS_DOT, CUSPEC_F32, 8192, 8192);
    CHECK_INT_EQ(wide_dot.p[P_ROWBLOCK], 1);
    CHECK_INT_EQ(wide_dot.p[P_ITEMS], 4);
    /* many long rows: a warp each, from 8 KB a block each (rows_block:
     * 128 x 16 B x 2; sums, dots, min and max of 4-byte elements 256 x 16 B
     * x 4 from 16 KB); fewer than 1024: rows_split (a block a chunk of a
     * row, split at launch; argmin/argmax a whole array a row, in blocks
     * of 128 from 160 to 511 rows), from 1024 the rows kernel's block */
    struct cuspec__variant v = chosen_op(R, CUSPEC__AXIS_ARGMAX, CUSPEC_F32, 8192, 8192);
    CHECK_INT_EQ(v.p[P_ROWBLOCK], 1);
    CHECK_INT_EQ(v.p[P_LANES], 0);
    char name[128];
    cuspec__variant_name(&v, name, sizeof name);
    CHECK_STR_EQ(name, "cuspec_reduce_rows_block<float, 4, 128, 4, 2>");
    v = chosen_op(R, CUSPEC__AXIS_ARGMIN, CUSPEC_F64, 2048, 1024);
    cuspec__variant_name(&v, name, sizeof name);
    CHECK_STR_EQ(name, "cuspec_reduce_rows_block<double, 3, 128, 2, 2>");
    v = chosen(R, CUSPEC_F32, 8192, 8192);
    CHECK_INT_EQ(v.p[P_ROWBLOCK], 1);
    CHECK_INT_EQ(v.p[P_LANES], 0);
    CHECK_INT_EQ(v.p[P_GRID], 0);
    cuspec__variant_name(&v, name, sizeof name);
    CHECK_STR_EQ(name, "cuspec_reduce_rows_block<float, 0, 256, 4, 4>");
    v = chosen(R, CUSPEC_F32, 2048, 4096);
    cuspec__variant_name(&v, name, sizeof name);
    CHECK_STR_EQ(name, "cuspec_reduce_rows_block<float, 0, 256, 4, 4>");
    v = chosen_op(R, CUSPEC__AXIS_MAX, CUSPEC_U32, 2048, 4096);
    cuspec__variant_name(&v, name, sizeof name);
    CHECK_STR_EQ(name, "cuspec_reduce_rows_block<unsigned int, 2, 256, 4, 4>");
    v = chosen_op(R, CUSPEC__AXIS_DOT, CUSPEC_F32, 2048, 4095);
    cuspec__variant_name(&v, name, sizeof name);
    CHECK_STR_EQ(name, "cuspec_reduce_rows_block<float, 5, 128, 4, 2>");
    v = chosen(R, CUSPEC_I8, 1 << 20, 8192);
    cuspec__variant_name(&v, name, sizeof name);
    CHECK_STR_EQ(name, "cuspec_reduce_rows_block<signed char, 0, 128, 16, 2>");
    v = chosen(R, CUSPEC_F64, 8192, 8192);
    cuspec__variant_name(&v, name, sizeof name);
    CHECK_STR_EQ(name, "cuspec_reduce_rows_block<double, 0, 128, 2, 2>");
    v = chosen(R, CUSPEC_F32, 2048, 2047);
    CHECK_INT_EQ(v.p[P_ROWBLOCK], 0);
    CHECK_INT_EQ(v.p[P_LANES], 32);
    cuspec__variant_name(&v, name, sizeof name);
    CHECK_STR_EQ(name, "cuspec_reduce_rows<float, 0, 256, 4, 4>");
    v = chosen(R, CUSPEC_F32, 65536, 1024);
    CHECK_INT_EQ(v.p[P_ROWBLOCK], 0);
    CHECK_INT_EQ(v.p[P_LANES], 32);
    v = chosen(R, CUSPEC_F32, 1023, 8192);
    CHECK_INT_EQ(v.p[P_ROWBLOCK], 2);
    CHECK_INT_EQ(v.p[P_LANES], 0);
    cuspec__variant_name(&v, name, sizeof name);
    CHECK_STR_EQ(name, "cuspec_reduce_rows_split<float, 0, 256, 4, 4>");
    const struct {
        int op, dtype;
        unsigned long long rows, cols;
        const char *name;
    } split[] = {
        {CUSPEC__AXIS_ARGMAX, CUSPEC_F32, 32, 1 << 20,
         "cuspec_reduce_rows_split<float, 4, 256, 4, 4>"},
        {CUSPEC__AXIS_ARGMAX, CUSPEC_F32, 159, 1 << 20,
         "cuspec_reduce_rows_split<float, 4, 256, 4, 4>"},
        {CUSPEC__AXIS_ARGMIN, CUSPEC_F64, 160, 100003,
         "cuspec_reduce_rows_split<double, 3, 128, 2, 4>"},
        {CUSPEC__AXIS_ARGMAX, CUSPEC_I8, 511, 5000,
         "cuspec_reduce_rows_split<signed char, 4, 128, 16, 4>"},
        {CUSPEC__AXIS_ARGMAX, CUSPEC_I8, 512, 5000,
         "cuspec_reduce_rows_split<signed char, 4, 256, 16, 4>"},
        {CUSPEC__AXIS_DOT, CUSPEC_U16, 300, 100003,
         "cuspec_reduce_rows_split<unsigned short, 5, 256, 8, 2>"},
        {CUSPEC__AXIS_MIN, CUSPEC_I8, 1, 1000, "cuspec_reduce_rows_split<signed char, 1, 256, 16, 4>"},
    };
    for (size_t i = 0; i < sizeof split / sizeof *split; i++) {
        v = chosen_op(R, split[i].op, split[i].dtype, split[i].rows, split[i].cols);
        cuspec__variant_name(&v, name, sizeof name);
        CHECK_STR_EQ(name, split[i].name);
    }
    CHECK_INT_EQ(chosen(R, CUSPEC_F32, 1024, 40000).p[P_ROWBLOCK], 0);
    CHECK_INT_EQ(chosen(R, CUSPEC_F32, 2047, 16384).p[P_ROWBLOCK], 0);
    CHECK_INT_EQ(chosen_op(R, CUSPEC__AXIS_ARGMAX, CUSPEC_F32, 1024, 40000).p[P_ITEMS], 4);
    CHECK_INT_EQ(chosen(R, CUSPEC_F16, 2048, 2048).p[P_ROWBLOCK], 0);
    /* a dot's rows by the bytes they read, both inputs: 8 KB from 1024
     * columns of f32, 2048 of f16 */
    v = chosen_op(R, CUSPEC__AXIS_DOT, CUSPEC_F32, 65536, 1024);
    cuspec__variant_name(&v, name, sizeof name);
    CHECK_STR_EQ(name, "cuspec_reduce_rows_block<float, 5, 128, 4, 2>");
    CHECK_INT_EQ(chosen_op(R, CUSPEC__AXIS_DOT, CUSPEC_F16, 2048, 2048).p[P_ROWBLOCK], 1);
    v = chosen_op(R, CUSPEC__AXIS_DOT, CUSPEC_F32, 65536, 1023);
    CHECK_INT_EQ(v.p[P_ROWBLOCK], 0);
    CHECK_INT_EQ(v.p[P_LANES], 32);
    /* 1024 to 2047 long rows under 64 KB: rows_block, 8 KB rows and 256 bytes alike */
    static const struct {
        int dtype;
        unsigned long long rows, cols;
        const char *name;
    } few[] = {
        {CUSPEC_F32, 2047, 8192, "cuspec_reduce_rows_block<float, 0, 256, 4, 4>"},
        {CUSPEC_F64, 1024, 1024, "cuspec_reduce_rows_block<double, 0, 128, 2, 2>"},
        {CUSPEC_F16, 2047, 128, "cuspec_reduce_rows_block<cuspec_f16, 0, 128, 8, 2>"},
    };
    for (size_t i = 0; i < sizeof few / sizeof *few; i++) {
        v = chosen(R, few[i].dtype, few[i].rows, few[i].cols);
        cuspec__variant_name(&v, name, sizeof name);
        CHECK_STR_EQ(name, few[i].name);
    }
    v = chosen(R, CUSPEC_F32, 32, 1 << 20);
    CHECK_INT_EQ(v.p[P_LANES], 0);
    CHECK_INT_EQ(v.p[P_ROWBLOCK], 2);
    CHECK_INT_EQ(chosen(R, CUSPEC_F32, 1, 1000).p[P_LANES], 0);
    CHECK_INT_EQ(chosen(R, CUSPEC_F32, 1 << 16, 32).p[P_ROWBLOCK], 0);
    CHECK_INT_EQ(chosen(R, CUSPEC_F32, 1 << 20, 32).p[P_ROWBLOCK], 3);
    /* rows_block takes no lanes or grid, and columns have no such kernel */
    v = chosen(R, CUSPEC_F32, 8192, 8192);
    v.p[P_LANES] = 32;
    CHECK(!cuspec__variant_legal(&v));
    v.p[P_LANES] = 0;
    v.p[P_GRID] = 2;
    CHECK(!cuspec__variant_legal(&v));
    v = chosen(C, CUSPEC_F32, 8192, 8192);
    v.p[P_ROWBLOCK] = 1;
    CHECK(!cuspec__variant_legal(&v));
    /* columns: 128-byte strips in tall matrices, blocks of 256 (but few
     * strips of 4-byte elements, and f32 by their count of strips, below) */
    v = chosen(C, CUSPEC_F32, 16384, 8192);
    CHECK_INT_EQ(v.p[P_LANES], 8);
    CHECK_INT_EQ(v.p[P_BLOCK], 256);
    v = chosen(C, CUSPEC_F64, 1 << 20, 32);
    CHECK_INT_EQ(v.p[P_LANES], 8);
    CHECK_INT_EQ(v.p[P_VEC], 2);
    CHECK_INT_EQ(v.p[P_BLOCK], 256);
    /* 4-byte elements in at most 4 strips (argmin/argmax 2) of at least 2
     * threads, with rows for 512 threads' 8 items: blocks of 512 of 8 */
    v = chosen(C, CUSPEC_F32, 1 << 20, 32);
    CHECK_INT_EQ(v.p[P_LANES], 8);
    CHECK_INT_EQ(v.p[P_BLOCK], 512);
    CHECK_INT_EQ(v.p[P_ITEMS], 8);
    CHECK_INT_EQ(chosen(C, CUSPEC_I32, 1 << 20, 128).p[P_BLOCK], 512);
    CHECK_INT_EQ(chosen(C, CUSPEC_I32, 1 << 20, 132).p[P_BLOCK], 256);
    CHECK_INT_EQ(chosen(C, CUSPEC_F32, 1 << 20, 4).p[P_BLOCK], 256); /* 1 thread across */
    CHECK_INT_EQ(chosen(C, CUSPEC_F32, 1 << 20, 5).p[P_BLOCK], 512);
    CHECK_INT_EQ(batched(CUSPEC__AXIS_ARGMAX, CUSPEC_F32, 1 << 20, 64).p[P_BLOCK], 512);
    /* f32 argmin/argmax there (in a batch: one matrix is cols_flat's) in
     * 8-byte vectors, tx as for 16 bytes; f32 sums' stay 16 bytes */
    v = batched(CUSPEC__AXIS_ARGMIN, CUSPEC_F32, 1 << 20, 32);
    CHECK_INT_EQ(v.p[P_VEC], 2);
    CHECK_INT_EQ(v.p[P_LANES], 8);
    CHECK_INT_EQ(v.p[P_BLOCK], 512);
    CHECK_INT_EQ(chosen_op(C, CUSPEC__AXIS_ARGMAX, CUSPEC_F32, 1 << 20, 68).p[P_VEC], 4);
    CHECK_INT_EQ(chosen_op(C, CUSPEC__AXIS_ARGMAX, CUSPEC_F32, 1 << 20, 65).p[P_VEC], 1);
    /* i32 and u32 too in matrices of at most 2^25 elements (batched) */
    CHECK_INT_EQ(batched(CUSPEC__AXIS_ARGMAX, CUSPEC_I32, 1 << 20, 32).p[P_VEC], 2);
    CHECK_INT_EQ(batched(CUSPEC__AXIS_ARGMIN, CUSPEC_U32, 1 << 19, 64).p[P_VEC], 2);
    CHECK_INT_EQ(batched(CUSPEC__AXIS_ARGMIN, CUSPEC_U32, (1 << 19) + 1, 64).p[P_VEC], 4);
    CHECK_INT_EQ(batched(CUSPEC__AXIS_ARGMAX, CUSPEC_I32, 1 << 22, 32).p[P_VEC], 4);
    CHECK_INT_EQ(batched(CUSPEC__AXIS_ARGMAX, CUSPEC_F32, 1 << 22, 32).p[P_VEC], 2);
    CHECK_INT_EQ(chosen(C, CUSPEC_F32, 1 << 20, 32).p[P_VEC], 4);
    CHECK_INT_EQ(chosen_op(C, CUSPEC__AXIS_ARGMIN, CUSPEC_U32, 1 << 20, 68).p[P_BLOCK], 256);
    /* argmin/argmax of 4-byte elements in matrices of 1024 rows or more,
     * 1024 to 5120 columns and at most 2^24 elements: 512 x 8 in 64-byte
     * strips, f32 in 4-byte vectors, i32 and u32 in 8-byte ones where rows
     * are at most the columns and start on them */
    enum { SUM = CUSPEC__AXIS_SUM, AMIN = CUSPEC__AXIS_ARGMIN, AMAX = CUSPEC__AXIS_ARGMAX };
    static const struct {
        int op, dtype;
        unsigned long long rows, cols;
        int block, vec, items, tx;
        unsigned long long ld; /* 0: cols */
    } square[] = {
        {AMAX, CUSPEC_F32, 2048, 2048, 512, 1, 8, 16, 0},
        {AMIN, CUSPEC_I32, 2048, 2048, 512, 2, 8, 8, 0},
        {AMAX, CUSPEC_U32, 1024, 5120, 512, 2, 8, 8, 0},
        {AMAX, CUSPEC_U32, 2049, 2048, 256, 4, 4, 8, 0},
        {AMIN, CUSPEC_U32, 3000, 5000, 512, 2, 8, 8, 0},
        {AMAX, CUSPEC_I32, 2049, 2048, 256, 4, 4, 8, 0},
        {AMIN, CUSPEC_F32, 16384, 1024, 512, 1, 8, 16, 0},
        {AMIN, CUSPEC_F32, 16385, 1024, 256, 4, 4, 8, 0},
        {AMAX, CUSPEC_F32, 3276, 5120, 512, 1, 8, 16, 0},
        {AMAX, CUSPEC_F32, 3277, 5120, 256, 4, 4, 8, 0},
        {AMAX, CUSPEC_F32, 1024, 5124, 256, 4, 4, 8, 0},
        {AMAX, CUSPEC_F32, 1023, 2048, 256, 4, 4, 8, 0},
        {AMAX, CUSPEC_F32, 2048, 1020, 256, 4, 4, 8, 0},
        /* f32 off the 16-byte vector, 1000 rows or more, but dots: a column
         * a thread, 512 x 8, fitted anew (square_args' where it is theirs) */
        {AMAX, CUSPEC_F32, 1024, 5121, 512, 1, 8, 32, 0},
        {AMAX, CUSPEC_F32, 2048, 1023, 512, 1, 8, 32, 0},
        {AMAX, CUSPEC_F32, 999, 1023, 256, 4, 4, 8, 0},
        {CUSPEC__AXIS_DOT, CUSPEC_F32, 2048, 1023, 256, 4, 4, 8, 0},
        /* so i32 and u32 (but dots), f64 sums, and argmin/argmax of 1-
         * and 2-byte types in rows of 128 elements or more: strips of 128
         * bytes, argmin/argmax of 32 elements (halves 16); the narrow
         * types' sums, min and max, f64's min and max and i64's and u64's
         * sums, min and max keep the vector */
        {SUM, CUSPEC_I32, 4096, 4097, 512, 1, 8, 32, 0},
        {CUSPEC__AXIS_MIN, CUSPEC_U32, 1000, 1001, 512, 1, 8, 32, 0},
        {AMIN, CUSPEC_U32, 1000, 1001, 512, 1, 8, 32, 0},
        {AMAX, CUSPEC_I32, 8192, 8192, 512, 1, 8, 32, 8194},
        {SUM, CUSPEC_I32, 999, 1001, 256, 4, 4, 8, 0},
        /* square_args' matrices: its strips of 64 bytes, in 4-byte vectors
         * off the 8-byte one */
        {AMAX, CUSPEC_I32, 2048, 2049, 512, 1, 8, 16, 0},
        {AMIN, CUSPEC_U32, 1024, 5001, 512, 1, 8, 16, 0},
        {AMAX, CUSPEC_U32, 2048, 2048, 512, 2, 8, 8, 2050},
        {CUSPEC__AXIS_DOT, CUSPEC_I32, 4096, 4097, 256, 4, 4, 8, 0},
        {AMAX, CUSPEC_F16, 4096, 4097, 512, 1, 8, 16, 0},
        {AMIN, CUSPEC_BF16, 2049, 6001, 512, 1, 8, 16, 0},
        {AMAX, CUSPEC_I8, 65536, 1025, 512, 1, 8, 32, 0},
        {AMAX, CUSPEC_U16, 4096, 4096, 512, 1, 8, 32, 4098},
        {SUM, CUSPEC_F16, 4096, 4097, 256, 8, 4, 8, 0},
        {CUSPEC__AXIS_MAX, CUSPEC_U8, 4096, 4097, 256, 16, 4, 8, 0},
        {SUM, CUSPEC_F64, 4096, 4097, 512, 1, 8, 16, 0},
        {SUM, CUSPEC_I64, 4096, 4097, 256, 2, 4, 8, 0},
        {CUSPEC__AXIS_MAX, CUSPEC_F64, 4096, 4097, 256, 2, 4, 8, 0},
        /* argmin/argmax of 8-byte types up to 2^26 elements */
        {AMAX, CUSPEC_F64, 4096, 4097, 512, 1, 8, 16, 0},
        {AMIN, CUSPEC_I64, 8191, 8193, 512, 1, 8, 16, 0},
        {AMAX, CUSPEC_U64, 1048575, 33, 512, 1, 8, 16, 0},
        {AMAX, CUSPEC_F64, 65536, 1025, 256, 2, 4, 8, 0},
        {AMIN, CUSPEC_U64, 8192, 8193, 256, 2, 4, 8, 0},
        {AMAX, CUSPEC_I16, 1048575, 128, 512, 1, 8, 32, 129},
        {AMAX, CUSPEC_I16, 1048575, 127, 256, 8, 4, 4, 0},
        {AMAX, CUSPEC_U8, 1048575, 127, 256, 16, 4, 2, 0},
        {AMAX, CUSPEC_U8, 1048575, 129, 512, 1, 8, 32, 0},
        {AMAX, CUSPEC_F64, 2048, 2048, 256, 2, 4, 8, 0},
        {AMAX, CUSPEC_F16, 2048, 2048, 256, 4, 8, 4, 0},
        {AMAX, CUSPEC_U8, 2048, 2048, 256, 16, 4, 2, 0},
        {SUM, CUSPEC_F32, 2048, 2048, 256, 4, 4, 8, 0},
        /* f32 in 64-byte strips of 8-byte vectors where there are 133 to
         * 264 of them and ld is even (cols need not be); from 100 strips
         * of 128 bytes (3170 columns) split_strips' one wave takes them */
        {AMAX, CUSPEC_F32, 2048, 2112, 512, 1, 8, 16, 0},
        {AMAX, CUSPEC_F32, 2048, 2114, 512, 2, 8, 8, 0},
        {AMAX, CUSPEC_F32, 2048, 2114, 512, 1, 8, 16, 2115}, /* odd ld: 4-byte vectors */
        {AMAX, CUSPEC_F32, 2048, 2113, 512, 2, 8, 8, 2114},  /* a ragged edge, even ld */
        {AMAX, CUSPEC_F32, 3000, 3168, 512, 2, 8, 8, 0},
        {AMAX, CUSPEC_F32, 4096, 4096, 1024, 2, 8, 16, 0},
        {AMIN, CUSPEC_F32, 2048, 4224, 1024, 2, 8, 16, 0},
        {AMIN, CUSPEC_F32, 2048, 4225, 512, 1, 8, 16, 0},
        {AMIN, CUSPEC_F32, 2048, 4226, 512, 1, 8, 16, 0}, /* 265 strips, even */
        /* split_strips, f32 in matrices of 1024 rows or more and at most
         * 2^26 elements, by their 128-byte strips: sums, argmin and argmax
         * of 100 to 132 strips in 1024 x 2 x 8, sums of 133 to 264 in 512
         * x 4 x 8 (where ld is a multiple of the vector); argmin/argmax
         * of 192 to 264 in 1024 x 1 x 8 where rows are 2048 or more and at
         * most the columns */
        {SUM, CUSPEC_F32, 1024, 3168, 256, 4, 4, 8, 0},
        {SUM, CUSPEC_F32, 1024, 3170, 1024, 2, 8, 16, 0},
        {SUM, CUSPEC_F32, 1024, 3170, 512, 1, 8, 32, 3171},  /* odd ld: a column a thread */
        {SUM, CUSPEC_F32, 1024, 3169, 1024, 2, 8, 16, 3170}, /* a ragged edge, even ld */
        {SUM, CUSPEC_F32, 1023, 4096, 256, 4, 4, 8, 0},
        {SUM, CUSPEC_F32, 4096, 4224, 1024, 2, 8, 16, 0},
        {SUM, CUSPEC_F32, 4096, 4228, 512, 4, 8, 8, 0},
        {SUM, CUSPEC_F32, 4096, 4226, 512, 1, 8, 32, 0},
        {SUM, CUSPEC_F32, 4096, 4225, 512, 4, 8, 8, 4228},  /* padded rows */
        {SUM, CUSPEC_F32, 4096, 4225, 512, 1, 8, 32, 4226}, /* ld off the 16-byte vector */
        {SUM, CUSPEC_F32, 2048, 8448, 512, 4, 8, 8, 0},
        {SUM, CUSPEC_F32, 2048, 8449, 512, 1, 8, 32, 0},
        {SUM, CUSPEC_F32, 2048, 8452, 256, 4, 4, 8, 0},     /* 265 strips, whole vectors */
        {SUM, CUSPEC_F32, 4096, 4228, 512, 1, 8, 32, 4230}, /* ld off the 16-byte vector */
        {SUM, CUSPEC_F32, 8192, 8192, 512, 4, 8, 8, 0},
        {SUM, CUSPEC_F32, 8193, 8192, 256, 4, 4, 8, 0},
        {SUM, CUSPEC_I32, 4096, 4096, 256, 4, 4, 8, 0},
        {CUSPEC__AXIS_MAX, CUSPEC_F32, 4096, 4096, 256, 4, 4, 8, 0},
        {AMAX, CUSPEC_F32, 1024, 3170, 1024, 2, 8, 16, 0},
        {AMAX, CUSPEC_F32, 1024, 3170, 512, 1, 8, 16, 3171}, /* odd ld: square_args' */
        {AMAX, CUSPEC_F32, 1023, 4096, 256, 4, 4, 8, 0},
        {AMAX, CUSPEC_F32, 16384, 4096, 1024, 2, 8, 16, 0}, /* rows above the columns */
        {AMIN, CUSPEC_F32, 16385, 4096, 256, 4, 4, 8, 0},
        {AMAX, CUSPEC_F32, 4096, 6112, 256, 4, 4, 8, 0},
        {AMAX, CUSPEC_F32, 4096, 6113, 1024, 1, 8, 32, 0},
        {AMAX, CUSPEC_F32, 2047, 8192, 256, 4, 4, 8, 0},
        {AMAX, CUSPEC_F32, 2048, 8192, 1024, 1, 8, 32, 0},
        {AMIN, CUSPEC_F32, 2048, 8448, 1024, 1, 8, 32, 0},
        {AMIN, CUSPEC_F32, 2048, 8449, 512, 1, 8, 32, 0},
        {AMIN, CUSPEC_F32, 2048, 8452, 256, 4, 4, 8, 0},
        {AMAX, CUSPEC_F32, 8192, 8192, 1024, 1, 8, 32, 0},
        {AMAX, CUSPEC_F32, 8193, 8192, 256, 4, 4, 8, 0},
        {AMAX, CUSPEC_F32, 6145, 6144, 256, 4, 4, 8, 0}, /* rows above the columns */
        {AMAX, CUSPEC_I32, 8192, 8192, 256, 4, 4, 8, 0},
    };
    for (size_t i = 0; i < sizeof square / sizeof *square; i++) {
        v = chosen_ld(C, square[i].op, square[i].dtype, square[i].rows, square[i].cols,
                      square[i].ld);
        CHECK_INT_EQ(v.p[P_BLOCK], square[i].block);
        CHECK_INT_EQ(v.p[P_VEC], square[i].vec);
        CHECK_INT_EQ(v.p[P_ITEMS], square[i].items);
        CHECK_INT_EQ(v.p[P_LANES], square[i].tx);
    }
    CHECK_INT_EQ(chosen(C, CUSPEC_F32, 512, 128).p[P_BLOCK], 512); /* 64 x 8 rows */
    CHECK_INT_EQ(chosen(C, CUSPEC_F32, 511, 128).p[P_BLOCK], 256);
    CHECK_INT_EQ(chosen(C, CUSPEC_F32, 1, 1000).p[P_BLOCK], 256); /* widened: 1 strip of 256 */
    /* narrower where the matrix is */
    CHECK_INT_EQ(chosen(C, CUSPEC_F32, 1 << 20, 1).p[P_LANES], 1);
    CHECK_INT_EQ(chosen(C, CUSPEC_I32, 1 << 20, 12).p[P_LANES], 4);
    CHECK_INT_EQ(chosen(C, CUSPEC_I32, 1 << 20, 9).p[P_LANES], 16); /* off the vector */
    CHECK_INT_EQ(chosen(C, CUSPEC_F32, 1 << 20, 12).p[P_LANES], 4);
    CHECK_INT_EQ(chosen(C, CUSPEC_F32, 1 << 20, 9).p[P_LANES], 16); /* off the vector */
    /* wider, in blocks of 256, where rows are few: up to the block while
     * each thread would take fewer than 16 rounds of 4 rows and 512 strips
     * remain */
    v = chosen(C, CUSPEC_F32, 32, 1 << 20);
    CHECK_INT_EQ(v.p[P_LANES], 256);
    CHECK_INT_EQ(v.p[P_BLOCK], 256);
    CHECK_INT_EQ(chosen(C, CUSPEC_F32, 128, 1 << 19).p[P_LANES], 128);
    CHECK_INT_EQ(chosen(C, CUSPEC_F32, 256, 1 << 18).p[P_LANES], 64);
    CHECK_INT_EQ(chosen(C, CUSPEC_F32, 1024, 1 << 16).p[P_LANES], 16);
    CHECK_INT_EQ(chosen(C, CUSPEC_F32, 2048, 1 << 16).p[P_LANES], 8);
    CHECK_INT_EQ(chosen(C, CUSPEC_F32, 32, 100000).p[P_LANES], 32); /* 390 strips of 64 */
    CHECK_INT_EQ(chosen(C, CUSPEC_F64, 32, 1 << 20).p[P_LANES], 256);
    CHECK_INT_EQ(chosen(C, CUSPEC_U8, 32, 1 << 20).p[P_LANES], 128); /* 512 strips */
    /* argmin/argmax: strips of at most 32 elements (8- and 16-bit types
     * narrower than 128 bytes), widened as the others where rows are few */
    CHECK_INT_EQ(chosen_op(C, CUSPEC__AXIS_ARGMAX, CUSPEC_I8, 8192, 8192).p[P_LANES], 2);
    CHECK_INT_EQ(chosen_op(C, CUSPEC__AXIS_ARGMIN, CUSPEC_F16, 8192, 8192).p[P_LANES], 4);
    /* halves and bfloat16s: 8-byte vectors, 8 in flight, strips of 16 */
    v = chosen_op(C, CUSPEC__AXIS_ARGMAX, CUSPEC_BF16, 8192, 8192);
    CHECK_INT_EQ(v.p[P_VEC], 4);
    CHECK_INT_EQ(v.p[P_ITEMS], 8);
    CHECK_INT_EQ(v.p[P_LANES], 4);
    v = chosen_op(C, CUSPEC__AXIS_ARGMAX, CUSPEC_I16, 8192, 8192);
    CHECK_INT_EQ(v.p[P_VEC], 8);
    CHECK_INT_EQ(v.p[P_ITEMS], 4);
    CHECK_INT_EQ(chosen_op(C, CUSPEC__AXIS_SUM, CUSPEC_F16, 8192, 8192).p[P_VEC], 8);
    CHECK_INT_EQ(chosen_op(C, CUSPEC__AXIS_ARGMAX, CUSPEC_F32, 16384, 8192).p[P_LANES], 8);
    CHECK_INT_EQ(chosen_op(C, CUSPEC__AXIS_ARGMAX, CUSPEC_F64, 8192, 8192).p[P_LANES], 8);
    CHECK_INT_EQ(chosen_op(C, CUSPEC__AXIS_SUM, CUSPEC_I8, 8192, 8192).p[P_LANES], 8);
    CHECK_INT_EQ(chosen_op(C, CUSPEC__AXIS_ARGMAX, CUSPEC_U8, 32, 1 << 20).p[P_LANES], 128);
    /* a row of threads on each row: idle threads otherwise */
    CHECK_INT_EQ(chosen(C, CUSPEC_F32, 1, 1000).p[P_LANES], 256);
    CHECK_INT_EQ(chosen(C, CUSPEC_F32, 1, 100).p[P_LANES], 32); /* 25 vectors */
    /* never wider than tx's largest value, whatever the block */
    struct cuspec__spec wide = {.family = C, .op = CUSPEC__AXIS_SUM, .dtype = CUSPEC_U8,
                                .rows = 1, .cols = 4097};
    cuspec__variant_choose(&wide, 90, &v);
    v.p[P_BLOCK] = 1024;
    cuspec__axis_fit(&v, &wide, 0);
    CHECK_INT_EQ(v.p[P_LANES], 256);
    CHECK(cuspec__variant_legal(&v));
    /* a record's lanes for short rows stay as tuned: fewer than cover a
     * row, or the whole block */
    struct cuspec__spec shortrows = {.family = R, .op = CUSPEC__AXIS_SUM, .dtype = CUSPEC_F32,
                                     .rows = 1 << 20, .cols = 32};
    cuspec__variant_choose(&shortrows, 90, &v);
    v.p[P_LANES] = 2;
    cuspec__axis_fit(&v, &shortrows, 1);
    CHECK_INT_EQ(v.p[P_LANES], 2);
    v.p[P_LANES] = 0;
    cuspec__axis_fit(&v, &shortrows, 1);
    CHECK_INT_EQ(v.p[P_LANES], 0);
    /* the classes give the rows kernel (and for dots a second one of 2
     * items: long rows', and 4- and 8-byte short rows'), the rows_block
     * kernels (two for sums, dots, min and max of 4-byte elements, else
     * one), one rows_split kernel (argmin/argmax two: blocks of 256 and,
     * from 160 to 511 rows, of 128; of 4-byte elements every op but dot
     * also rows_flat's)
     * and one column kernel per dtype and op (two of 4-byte elements,
     * three for argmin/argmax of them; f32 below; argmin/argmax of 8-byte
     * ones also 512 x 1 x 8 off the vector): what the prebuilt store holds */
    for (int op = 0; op < CUSPEC__AXIS_N_OPS; op++) {
        const unsigned dot = op == CUSPEC__AXIS_DOT;
        struct kernels k = {0};
        const unsigned arg = (unsigned)cuspec__axis_is_arg(op);
        cuspec__family_choices(R, CUSPEC_I64, op, 90, add_kernel, &k);
        CHECK_UINT_EQ(k.n, 3 + dot + arg);
        memset(&k, 0, sizeof k);
        cuspec__family_choices(R, CUSPEC_U32, op, 90, add_kernel, &k);
        CHECK_UINT_EQ(k.n, 5); /* but dots: rows_flat's too */
        /* short rows of 1, 2, 4 or 32 lanes (dots also 8), a warp, the
         * block; argmin/argmax of 1024-column rows 8 (long_lanes); every
         * op but dot without 4: its rows of 16 vectors are rows_flat's */
        const unsigned lanes = 1u | 2u << 0 | 2u << 1 | 2u << 2 | 2u << 5;
        CHECK_UINT_EQ(k.lanes, dot   ? lanes | 2u << 3
                               : arg ? (lanes & ~(2u << 2)) | 2u << 3
                                     : lanes & ~(2u << 2));
        memset(&k, 0, sizeof k);
        cuspec__family_choices(C, CUSPEC_I64, op, 90, add_kernel, &k);
        CHECK_UINT_EQ(k.n, cuspec__axis_is_arg(op) ? 2 : 1);
        memset(&k, 0, sizeof k);
        cuspec__family_choices(C, CUSPEC_F32, op, 90, add_kernel, &k);
        /* 512 x 1 x 8 off the vector (but dots); sums also split_strips'
         * 1024 x 2 x 8; argmin/argmax a few strips' 512 x 2 x 8,
         * square_args' 512 x 1 x 8 (the same), split_strips' 1024 x 2 x 8
         * and 1024 x 1 x 8, and cols_flat's 512 x 4 x 8 */
        const unsigned off = op != CUSPEC__AXIS_DOT;
        CHECK_UINT_EQ(k.n, cuspec__axis_is_arg(op) ? 6 : 2 + off + (op == CUSPEC__AXIS_SUM));
        /* u32: the default, 512 x 1 x 8 off the vector (but dots), a few
         * strips' 512 x 4 x 8 and for argmin/argmax 512 x 2 x 8 (also
         * square matrices') and cols_flat's; 1- and 2-byte types: the
         * default, and for argmin/argmax 512 x 1 x 8 */
        memset(&k, 0, sizeof k);
        cuspec__family_choices(C, CUSPEC_U32, op, 90, add_kernel, &k);
        CHECK_UINT_EQ(k.n, 2 + off + 2 * (unsigned)cuspec__axis_is_arg(op));
        memset(&k, 0, sizeof k);
        cuspec__family_choices(C, CUSPEC_I16, op, 90, add_kernel, &k);
        CHECK_UINT_EQ(k.n, 1 + (unsigned)cuspec__axis_is_arg(op));
    }
}

/* A columns variant whose strip is wider than its block would give the
 * kernel no rows of threads: illegal, and refused before anything runs. */
TEST(tx_wider_than_the_block_is_refused)
{
    struct cuspec__variant v = {
        .family = CUSPEC__FAM_REDUCE_COLS,
        .dtype = CUSPEC_F32,
        .op = CUSPEC__AXIS_SUM,
        .p = {[P_BLOCK] = 128, [P_VEC] = 4, [P_ITEMS] = 4, [P_LANES] = 128},
    };
    CHECK(cuspec__variant_legal(&v));
    v.p[P_LANES] = 256;
    CHECK(!cuspec__variant_legal(&v));
    struct cuspec__axis_call c = {.kop = CUSPEC__AXIS_SUM, .dtype = CUSPEC_F32, .rows = 32,
                                  .cols = 1 << 20, .ld = 1 << 20, .batch = 1};
    CHECK_INT_EQ(cuspec__axis_run(NULL, &v, NULL, &c, NULL, NULL), CUSPEC_ERR_INVALID);
    CHECK_STR_CONTAINS(cuspec_last_error(), "tx=256 grid=0 flat=0: not a legal variant");
    /* rows_block with a grid */
    struct cuspec__variant rb = {
        .family = CUSPEC__FAM_REDUCE_ROWS,
        .dtype = CUSPEC_F32,
        .op = CUSPEC__AXIS_SUM,
        .p = {[P_BLOCK] = 128, [P_VEC] = 4, [P_ITEMS] = 2, [P_GRID] = 2, [P_ROWBLOCK] = 1},
    };
    c.rows_axis = 1;
    CHECK_INT_EQ(cuspec__axis_run(NULL, &rb, NULL, &c, NULL, NULL), CUSPEC_ERR_INVALID);
    CHECK_STR_CONTAINS(cuspec_last_error(),
                       "cuspec_reduce_rows_block<float, 0, 128, 4, 2> with block=128 vec=4 "
                       "items=2 lanes=0 grid=2 rowblock=1: not a legal variant");
    v.p[P_BLOCK] = 256;
    CHECK(cuspec__variant_legal(&v));
}

/* Columns' argmin/argmax count a thread's rows in 32 bits: the splits keep
 * every thread (a chunk of ceil(rows / splits) rows, ceil(chunk /
 * thread_rows) a thread) under 2^31 rows, and leave shapes that are under
 * it as they were. */
TEST(argmax_columns_split_below_2_31_rows_a_thread)
{
    CHECK_INT_EQ(cuspec__axis_arg_splits(8192, 32, 1), 1);
    CHECK_INT_EQ(cuspec__axis_arg_splits(1ULL << 36, 32, 7), 7);
    CHECK_INT_EQ(cuspec__axis_arg_splits((1ULL << 36) + 1, 32, 1), 2);
    CHECK_INT_EQ(cuspec__axis_arg_splits(1ULL << 40, 8, 1), 65);
    CHECK_INT_EQ(cuspec__axis_arg_splits(~0ULL, 1, 3), 65535);
    static const unsigned long long rows[] = {
        (1ULL << 31) - 1, 1ULL << 31,       (1ULL << 32) + 5, 3ULL << 35, (1ULL << 36) - 1,
        1ULL << 36,       (1ULL << 36) + 1, 5ULL << 37,       1ULL << 44, 1ULL << 46};
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++)
        for (unsigned ty = 1; ty <= 1024; ty *= 2)
            for (unsigned s0 = 1; s0 <= 4; s0 += 3) {
                unsigned s = cuspec__axis_arg_splits(rows[i], ty, s0);
                unsigned long long chunk = (rows[i] + s - 1) / s;
                unsigned long long per_thread = (chunk + ty - 1) / ty;
                CHECK(s >= s0);
                CHECK(s == 65535 || per_thread <= 1ULL << 31);
                if (per_thread > 1ULL << 31 && s != 65535)
                    printf("# rows %llu, %u rows of threads: %u splits, %llu rows a thread\n",
                           rows[i], ty, s, per_thread);
            }
}

/* What a call chooses its kernel by: its shape, ld and the elements its
 * rows start on (its pointers, ld and, batched, the stride, at most 16
 * bytes' worth); the f32 columns rules take their vectors only where the
 * rows start on them (else, as with an odd ld, the kernel reads element by
 * element). */
TEST(what_a_call_chooses_by)
{
    struct cuspec__axis_call c = good_call(); /* ld 32, a stride of 3200 */
    struct cuspec__spec sp = cuspec__axis_spec(&c);
    CHECK_INT_EQ(sp.family, CUSPEC__FAM_REDUCE_ROWS);
    CHECK_UINT_EQ(sp.rows, 200); /* the batch's rows together */
    CHECK_INT_EQ(sp.op, CUSPEC__AXIS_ARGMAX);
    c.rows_axis = 0;
    sp = cuspec__axis_spec(&c);
    CHECK_INT_EQ(sp.family, CUSPEC__FAM_REDUCE_COLS);
    CHECK_UINT_EQ(sp.rows, 100);
    CHECK_UINT_EQ(sp.cols, 30);
    CHECK_UINT_EQ(sp.ld_in, 32);
    CHECK_INT_EQ(sp.align, 4); /* 16 bytes */
    c.a = 0x100008;
    CHECK_INT_EQ(cuspec__axis_spec(&c).align, 2);
    c.a = 0x100004;
    CHECK_INT_EQ(cuspec__axis_spec(&c).align, 1);
    c.a = 0x100000;
    c.ld = 34;
    CHECK_INT_EQ(cuspec__axis_spec(&c).align, 2);
    c.ld = 32;
    c.kop = CUSPEC__AXIS_DOT; /* b too */
    c.b = 0x200004;
    CHECK_INT_EQ(cuspec__axis_spec(&c).align, 1);
    c.kop = CUSPEC__AXIS_SUM;
    c.stride = 3202;
    CHECK_INT_EQ(cuspec__axis_spec(&c).align, 2);
    c.batch = 1; /* no stride */
    CHECK_INT_EQ(cuspec__axis_spec(&c).align, 4);
    c.dtype = CUSPEC_F64;
    CHECK_INT_EQ(cuspec__axis_spec(&c).align, 2);
    c.dtype = CUSPEC_U8;
    c.a = 0x100003;
    CHECK_INT_EQ(cuspec__axis_spec(&c).align, 1);

    /* the choice of a columns call on side x side f32, its input `off`
     * bytes past 16-byte alignment */
    static const struct {
        int op, off;
        unsigned long long side;
        int block, vec;
    } rules[] = {
        {CUSPEC__AXIS_SUM, 0, 4096, 1024, 2},   {CUSPEC__AXIS_SUM, 8, 4096, 1024, 2},
        {CUSPEC__AXIS_SUM, 4, 4096, 512, 1},    {CUSPEC__AXIS_SUM, 0, 8192, 512, 4},
        {CUSPEC__AXIS_SUM, 8, 8192, 512, 1},    {CUSPEC__AXIS_ARGMAX, 8, 4096, 1024, 2},
        {CUSPEC__AXIS_ARGMAX, 4, 4096, 512, 1}, {CUSPEC__AXIS_ARGMAX, 4, 8192, 1024, 1},
    };
    c = good_call();
    c.rows_axis = 0;
    c.batch = 1;
    for (size_t i = 0; i < sizeof rules / sizeof *rules; i++) {
        c.kop = rules[i].op;
        c.rows = c.cols = c.ld = rules[i].side;
        c.a = 0x100000 + (unsigned)rules[i].off;
        sp = cuspec__axis_spec(&c);
        struct cuspec__variant v;
        cuspec__variant_choose(&sp, 90, &v);
        CHECK_INT_EQ(v.p[P_BLOCK], rules[i].block);
        CHECK_INT_EQ(v.p[P_VEC], rules[i].vec);
    }
}

/* The template's element types (reduce_types.cuh's) with the ops and
 * vector widths whose code differs: SIMD bytes and half-words, max.NaN of
 * halves (sm_90; compare and select on sm_75), one-load sums of narrow
 * integers, for sm_75 and sm_90. */
/* ## The tuner's space holds every default */

/* What the tuner searches for a spec: the family's space (tuning
 * parameters and launch ones), less what its fits refuses. */
struct space_hunt {
    const struct cuspec__spec *s;
    const struct cuspec__variant *want;
    unsigned n, found;
};

static int hunt(const struct cuspec__variant *v, void *user)
{
    struct space_hunt *h = user;
    if (!cuspec__variant_fits(v, h->s))
        return 0;
    h->n++;
    h->found += memcmp(v->p, h->want->p, sizeof v->p) == 0;
    return 0;
}

static int default_in_space(const struct cuspec__spec *s, void *user)
{
    unsigned *bad = user;
    struct cuspec__variant def;
    cuspec__variant_choose(s, 90, &def);
    struct space_hunt h = {s, &def, 0, 0};
    CHECK_INT_EQ(cuspec__family_space(s->family, s->dtype, s->op, hunt, &h), 0);
    if (h.found != 1 && (*bad)++ < 3) {
        char name[256];
        cuspec__variant_name(&def, name, sizeof name);
        TAP_FAIL("%s for %llux%llu batch %llu is %s of the %u candidates", name, s->rows, s->cols,
                 s->batch, h.found ? "more than one" : "none", h.n);
    }
    return 0;
}

/* cuspec_tune starts from the fitted defaults and fails where they are not
 * a candidate: every class of both families, every dtype and op. cols_flat's
 * candidates are only those for the calls it takes, with tx the vectors a
 * row and no GRID, so that a tuning record of it never reaches a call of
 * its bucket it cannot take (the call's choose checks too). */
TEST(tuning_space_holds_every_default)
{
    unsigned bad = 0;
    const int fams[] = {CUSPEC__FAM_REDUCE_ROWS, CUSPEC__FAM_REDUCE_COLS};
    for (size_t fi = 0; fi < 2; fi++) {
        const struct cuspec__family *f = cuspec__family(fams[fi]);
        for (int d = 0; d < f->n_dtypes; d++)
            for (int op = 0; op < f->n_ops; op++)
                CHECK_INT_EQ(f->classes(f->dtypes[d], op, default_in_space, &bad), 0);
    }
    CHECK_UINT_EQ(bad, 0);

    struct cuspec__variant v = {
        .family = CUSPEC__FAM_REDUCE_COLS, .dtype = CUSPEC_F32, .op = CUSPEC__AXIS_ARGMAX};
    struct cuspec__spec s = {.family = CUSPEC__FAM_REDUCE_COLS,
                             .dtype = CUSPEC_F32,
                             .op = CUSPEC__AXIS_ARGMAX,
                             .rows = 1 << 20,
                             .cols = 32};
    cuspec__variant_choose(&s, 90, &v);
    CHECK_INT_EQ(v.p[P_ROWBLOCK], 1);
    CHECK(cuspec__axis_fits(&v, &s));
    s.cols = 48; /* the same bucket (cols 2^5), 12 vectors a row */
    CHECK(!cuspec__axis_fits(&v, &s));
    s.cols = 32;
    s.batch = 2;
    CHECK(!cuspec__axis_fits(&v, &s));
    s.batch = 1;
    s.align = 2; /* rows on 8 bytes */
    CHECK(!cuspec__axis_fits(&v, &s));
    s.align = 4;
    s.ld_in = 33;
    CHECK(!cuspec__axis_fits(&v, &s));
    s.ld_in = 32;
    CHECK(cuspec__axis_fits(&v, &s));
    v.p[P_GRID] = 1;
    CHECK(!cuspec__axis_fits(&v, &s));
    v.p[P_GRID] = 0;
    v.p[P_LANES] = 4;
    CHECK(!cuspec__axis_fits(&v, &s));
    v.p[P_LANES] = 8;
    v.p[P_ROWBLOCK] = 0; /* the columns kernel fits any */
    s.cols = 48;
    CHECK(cuspec__axis_fits(&v, &s));
}

/* The flat kernels take one matrix of 4-byte elements whose rows are
 * contiguous, 16-byte aligned 16-byte vectors (a power of two): cols_flat
 * argmin/argmax of 1 to 32 a row from 128 KB, 512 x 4 x 8 with tx the
 * vectors a row; rows_flat argmin/argmax of 4 to 32 at every size and its
 * other ops but dot from 16 MB, or a batch of them end to end, 256 x 4 x 8
 * with lanes and grid 0 (its buckets are flat: their records are its or
 * the rows kernel's). Smaller, the shape is still one they take, for the
 * tuner. */
TEST(flat_kernels_take_their_shapes)
{
    const int R = CUSPEC__FAM_REDUCE_ROWS, C = CUSPEC__FAM_REDUCE_COLS;
    enum { AMIN = CUSPEC__AXIS_ARGMIN, AMAX = CUSPEC__AXIS_ARGMAX };
    static const struct flat_case cases[] = {
        {AMAX, CUSPEC_F32, 1 << 20, 32, 0, 0, {1, 1}, {1, 1}},
        {AMIN, CUSPEC_I32, 1 << 20, 4, 0, 4, {0, 1}, {0, 1}},
        {AMAX, CUSPEC_U32, 1 << 18, 128, 0, 0, {1, 1}, {1, 1}},
        {AMAX, CUSPEC_F32, (1 << 20) - 1, 4, 0, 0, {0, 1}, {0, 1}},
        {AMIN, CUSPEC_I32, 1 << 20, 16, 0, 4, {1, 1}, {1, 1}},
        {AMAX, CUSPEC_F32, 1 << 19, 64, 64, 0, {1, 1}, {1, 1}},
        {AMAX, CUSPEC_F32, (1 << 10) - 1, 32, 0, 0, {1, 0}, {1, 1}}, /* under 128 KB */
        {AMIN, CUSPEC_U32, 1 << 10, 32, 0, 0, {1, 1}, {1, 1}},       /* 128 KB */
        {AMAX, CUSPEC_I32, 1 << 13, 4, 0, 0, {0, 1}, {0, 1}},
        {AMIN, CUSPEC_F32, 1, 16, 0, 0, {1, 0}, {1, 1}},                         /* a row */
        {CUSPEC__AXIS_SUM, CUSPEC_F32, (1 << 18) - 1, 16, 0, 0, {0, 0}, {1, 0}}, /* under 16 MB */
        {CUSPEC__AXIS_MAX, CUSPEC_F32, 1 << 18, 16, 0, 0, {1, 0}, {1, 0}},       /* 16 MB */
        {AMAX, CUSPEC_F32, 1 << 21, 8, 0, 0, {0, 1}, {0, 1}},   /* 2 vectors a row */
        {AMAX, CUSPEC_F32, 1 << 17, 256, 0, 0, {0, 0}, {0, 0}}, /* 64 vectors a row */
        {AMAX, CUSPEC_F32, 1 << 20, 48, 0, 0, {0, 0}, {0, 0}},  /* 12 vectors a row */
        {AMAX, CUSPEC_F32, 1 << 20, 32, 36, 0, {0, 0}, {0, 0}}, /* ld > cols */
        {AMAX, CUSPEC_F32, 1 << 20, 32, 0, 2, {0, 0}, {0, 0}},  /* 8-byte aligned */
        {CUSPEC__AXIS_SUM, CUSPEC_F32, 1 << 20, 32, 0, 0, {1, 0}, {1, 0}},
        {CUSPEC__AXIS_MIN, CUSPEC_I32, 1 << 20, 32, 0, 0, {1, 0}, {1, 0}},
        {CUSPEC__AXIS_MAX, CUSPEC_U32, 1 << 20, 32, 0, 0, {1, 0}, {1, 0}},
        {CUSPEC__AXIS_DOT, CUSPEC_F32, 1 << 20, 32, 0, 0, {0, 0}, {0, 0}},
        {AMAX, CUSPEC_F64, 1 << 20, 32, 0, 0, {0, 0}, {0, 0}},
        {AMAX, CUSPEC_F16, 1 << 20, 64, 0, 0, {0, 0}, {0, 0}},
    };
    /* each family's defaults for a flat call, handed in */
    const struct cuspec__variant flats[2] = {
        {.family = R,
         .dtype = CUSPEC_F32,
         .op = AMAX,
         .p = {[P_BLOCK] = 256, [P_VEC] = 4, [P_ITEMS] = 8, [P_ROWBLOCK] = 3}},
        {.family = C,
         .dtype = CUSPEC_F32,
         .op = AMAX,
         .p = {[P_BLOCK] = 512, [P_VEC] = 4, [P_ITEMS] = 8, [P_ROWBLOCK] = 1}}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        for (int k = 0; k < 2; k++) {
            const int family = k ? C : R;
            struct cuspec__spec sp;
            struct cuspec__variant f = flats[k], v = chosen_case(family, &cases[i], &sp);
            CHECK_INT_EQ(cuspec__axis_is_flat(&v), cases[i].flat[k]);
            if (cases[i].flat[k]) {
                CHECK_INT_EQ(v.p[P_BLOCK], k ? 512 : 256);
                CHECK_INT_EQ(v.p[P_VEC], 4);
                CHECK_INT_EQ(v.p[P_ITEMS], 8);
                CHECK_INT_EQ(v.p[P_LANES], k ? (int)(cases[i].cols / 4) : 0);
                CHECK_INT_EQ(v.p[P_GRID], 0);
                char kname[128];
                cuspec__variant_name(&v, kname, sizeof kname);
                CHECK(strncmp(kname, k ? "cuspec_reduce_cols_flat<" : "cuspec_reduce_rows_flat<",
                              24) == 0);
            }
            f.op = cases[i].op;
            f.dtype = cases[i].dtype;
            f.p[P_VEC] = (int)(16 / cuspec_dtype_size(f.dtype));
            f.p[P_LANES] = k ? (int)(cases[i].cols / (unsigned long long)f.p[P_VEC]) : 0;
            CHECK_INT_EQ(cuspec__variant_legal(&f) && cuspec__axis_fits(&f, &sp), cases[i].fits[k]);
        }

    /* a batch end to end is one matrix of its rows; one whose matrices are
     * apart keeps its batch, and is not rows_flat's */
    struct cuspec__axis_call c = {.rows_axis = 1,
                                  .kop = AMAX,
                                  .dtype = CUSPEC_F32,
                                  .a = 0x100000,
                                  .value = 0x90000000,
                                  .rows = 1 << 18,
                                  .cols = 32,
                                  .ld = 32,
                                  .stride = 32 << 18,
                                  .batch = 4};
    struct cuspec__spec sp = cuspec__axis_spec(&c);
    CHECK_UINT_EQ(sp.rows, 1 << 20);
    CHECK_UINT_EQ(sp.batch, 0);
    CHECK(cuspec__axis_flat_spec(&sp));
    c.stride += 4;
    sp = cuspec__axis_spec(&c);
    CHECK_UINT_EQ(sp.batch, 4);
    CHECK(!cuspec__axis_flat_spec(&sp));
    struct cuspec__variant v;
    cuspec__variant_choose(&sp, 90, &v);
    CHECK_INT_EQ(v.p[P_ROWBLOCK], 0);

    /* handed in for a call it does not take: refused before anything runs */
    struct cuspec__variant f = flats[0]; /* rows_flat's */
    CHECK_INT_EQ(cuspec__axis_run(NULL, &f, NULL, &c, NULL, NULL), CUSPEC_ERR_INVALID);
    CHECK_STR_CONTAINS(cuspec_last_error(), "rows_flat takes any op but dot of one matrix (or a "
                                            "batch of them end to end) of 4-byte elements");
    c.cols = 8;
    c.ld = 8;
    c.stride = 8 << 18;
    CHECK_INT_EQ(cuspec__axis_run(NULL, &f, NULL, &c, NULL, NULL), CUSPEC_ERR_INVALID);
    CHECK_STR_CONTAINS(cuspec_last_error(), "4 to 32 vectors of 16 bytes");
    /* any variant handed in for a call of another dtype or op: refused */
    c.cols = 32;
    c.ld = 32;
    c.stride = 32 << 18;
    c.dtype = CUSPEC_I32;
    CHECK_INT_EQ(cuspec__axis_run(NULL, &f, NULL, &c, NULL, NULL), CUSPEC_ERR_INVALID);
    CHECK_STR_CONTAINS(cuspec_last_error(), "cuspec_reduce_rows_flat<float, 4, 256, 4, 8> for a "
                                            "call along rows of dtype i32, op 4: not its kernel");
    c.dtype = CUSPEC_F32;
    c.kop = CUSPEC__AXIS_ARGMIN;
    CHECK_INT_EQ(cuspec__axis_run(NULL, &f, NULL, &c, NULL, NULL), CUSPEC_ERR_INVALID);
    CHECK_STR_CONTAINS(cuspec_last_error(), "op 3: not its kernel");
    c.rows_axis = 0; /* a rows variant for a columns call */
    c.kop = CUSPEC__AXIS_ARGMAX;
    CHECK_INT_EQ(cuspec__axis_run(NULL, &f, NULL, &c, NULL, NULL), CUSPEC_ERR_INVALID);
    CHECK_STR_CONTAINS(cuspec_last_error(), "for a call along columns of dtype f32, op 4");

    /* illegal: groups of 4 vectors need ITEMS a multiple of 4, its
     * registers blocks of at most 512; no lanes or grid of its own, no
     * dot, 4-byte elements in 16-byte vectors */
    CHECK(cuspec__variant_legal(&f));
    f.p[P_ITEMS] = 2;
    CHECK(!cuspec__variant_legal(&f));
    f.p[P_ITEMS] = 4;
    CHECK(cuspec__variant_legal(&f));
    f.p[P_BLOCK] = 1024;
    CHECK(!cuspec__variant_legal(&f));
    f.p[P_BLOCK] = 512;
    CHECK(cuspec__variant_legal(&f));
    f.p[P_LANES] = 4;
    CHECK(!cuspec__variant_legal(&f));
    f.p[P_LANES] = 0;
    f.p[P_GRID] = 1;
    CHECK(!cuspec__variant_legal(&f));
    f.p[P_GRID] = 0;
    f.p[P_VEC] = 2;
    CHECK(!cuspec__variant_legal(&f));
    f.p[P_VEC] = 4;
    f.op = CUSPEC__AXIS_DOT;
    CHECK(!cuspec__variant_legal(&f));
    f.op = CUSPEC__AXIS_SUM;
    CHECK(cuspec__variant_legal(&f));
    f.dtype = CUSPEC_F64;
    f.p[P_VEC] = 2;
    CHECK(!cuspec__variant_legal(&f));
}

TEST(template_takes_every_element_type)
{
    const struct cuspec__file *t = cuspec__template("reduce_axis.cuh", NULL);
    CHECK(t != NULL);
    static const char *const names[] = {
        "cuspec_reduce_rows<cuspec_f16, 3, 256, 8, 4>",
        "cuspec_reduce_rows<cuspec_bf16, 4, 256, 2, 4>",
        "cuspec_reduce_cols<cuspec_bf16, 0, 1024, 8, 4>",
        "cuspec_reduce_rows<signed char, 5, 256, 16, 4>",
        "cuspec_reduce_rows<unsigned char, 3, 256, 4, 2>",
        "cuspec_reduce_rows<short, 4, 256, 1, 4>",
        "cuspec_reduce_cols<unsigned short, 4, 256, 8, 4>",
        "cuspec_reduce_rows<unsigned long long, 2, 128, 2, 2>",
        "cuspec_reduce_rows_block<float, 4, 256, 4, 4>",
        "cuspec_reduce_rows_block<cuspec_bf16, 5, 512, 8, 2>",
        "cuspec_reduce_rows_block<unsigned char, 0, 128, 16, 8>",
        "cuspec_reduce_rows_block<long long, 3, 1024, 2, 1>",
        "cuspec_reduce_cols<float, 4, 1024, 4, 4>",
        "cuspec_reduce_cols_flat<unsigned int, 3, 1024, 4, 1>",
        "cuspec_reduce_rows_flat<float, 4, 256, 4, 8>",
        "cuspec_reduce_rows_flat<int, 0, 512, 4, 4>",
        "cuspec_reduce_rows_flat<unsigned int, 1, 128, 4, 8>",
    };
    static const int archs[] = {75, 90};
    for (size_t i = 0; t != NULL && i < sizeof names / sizeof *names; i++)
        for (size_t a = 0; a < 2; a++) {
            struct cuspec__image img;
            char version[16];
            int rc = cuspec__jit(t, names[i], archs[a], 0, &img, version);
            if (rc == CUSPEC_ERR_NO_NVRTC) {
                printf("# no NVRTC: %s not compiled\n", names[i]);
                continue;
            }
            if (rc != CUSPEC_OK)
                printf("# %s for sm_%d: %s\n", names[i], archs[a], cuspec_last_error());
            CHECK_INT_EQ(rc, CUSPEC_OK);
            if (rc == CUSPEC_OK)
                cuspec__image_free(&img);
        }
}

TAP_MAIN(TAP_ENTRY(argument_checks), TAP_ENTRY(what_each_op_writes), TAP_ENTRY(record_buckets),
         TAP_ENTRY(selection_covers_every_shape_class),
         TAP_ENTRY(tx_wider_than_the_block_is_refused),
         TAP_ENTRY(argmax_columns_split_below_2_31_rows_a_thread),
         TAP_ENTRY(what_a_call_chooses_by), TAP_ENTRY(tuning_space_holds_every_default),
         TAP_ENTRY(flat_kernels_take_their_shapes), TAP_ENTRY(template_takes_every_element_type))
