/* Reductions without a GPU: the result dtype of every (op, dtype) pair, op
 * names, the arguments cuspec_reduce, cuspec_dot and cuspec_argreduce refuse
 * before they need a device, and the kernels of the 8- and 16-bit types,
 * u64 and argmin/argmax compiling: their record-free defaults (what the
 * prebuilt store holds) for sm_75 (t_compile.sh compiles sm_90's), and a
 * sample of their other legal specializations for sm_75 and sm_90
 * (`make check-all` compiles them all). */
#include "reduce.h"
#include "catalogue.h"
#include "compile.h"
#include "dtype_values.h"
#include "records.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N_DT = CUSPEC_BF16 }; /* dtypes are 1 .. N_DT */
/* The reduce family's parameters, in src/reduce.c's order. */
enum { P_BLOCK, P_ITEMS, P_VEC, P_SINGLE, P_GRID, P_STAGE, P_CACHE };

/* What each public op writes for dtype: -1 dot, 0 sum, 1 min, 2 max, 3
 * argmin, 4 argmax; spelled out here, not derived from the library. */
static int expected_out(int op, int dtype)
{
    if (op >= CUSPEC_MIN)
        return dtype; /* min, max and argmin/argmax's value: an element */
    switch (dtype) {
    case CUSPEC_I8:
    case CUSPEC_I16:
    case CUSPEC_I32:
    case CUSPEC_I64:
        return CUSPEC_I64;
    case CUSPEC_U8:
    case CUSPEC_U16:
    case CUSPEC_U32:
    case CUSPEC_U64:
        return CUSPEC_U64;
    case CUSPEC_F16:
    case CUSPEC_BF16:
    case CUSPEC_F32:
        return CUSPEC_F32;
    }
    return CUSPEC_F64;
}

TEST(every_op_and_dtype_has_its_result_dtype)
{
    for (int op = -1; op <= CUSPEC_ARGMAX; op++)
        for (int dt = 1; dt <= N_DT; dt++) {
            int got = cuspec_reduce_out_dtype(op, dt);
            if (got != expected_out(op, dt))
                TAP_FAIL("op %d on %s writes %s, want %s", op, cuspec_dtype_name(dt),
                         cuspec_dtype_name(got) ? cuspec_dtype_name(got) : "nothing",
                         cuspec_dtype_name(expected_out(op, dt)));
        }
    /* No op -2 or 5, no dtype 0 or 13. */
    static const int bad_ops[] = {-2, 5, 100};
    for (size_t i = 0; i < sizeof bad_ops / sizeof *bad_ops; i++)
        CHECK_INT_EQ(cuspec_reduce_out_dtype(bad_ops[i], CUSPEC_F32), 0);
    static const int bad_dtypes[] = {0, -1, N_DT + 1, 999};
    for (size_t i = 0; i < sizeof bad_dtypes / sizeof *bad_dtypes; i++)
        for (int op = -1; op <= CUSPEC_ARGMAX; op++)
            CHECK_INT_EQ(cuspec_reduce_out_dtype(op, bad_dtypes[i]), 0);
}

TEST(op_names)
{
    static const char *const names[] = {"sum", "min", "max", "argmin", "argmax"};
    for (int op = 0; op < 5; op++)
        CHECK_STR_EQ(cuspec_op_name(op), names[op]);
    CHECK_INT_EQ(CUSPEC_ARGMIN, 3);
    CHECK_INT_EQ(CUSPEC_ARGMAX, 4);
    CHECK(cuspec_op_name(5) == NULL);
    CHECK(cuspec_op_name(-1) == NULL);
}

/* rc is CUSPEC_ERR_INVALID and the detail says `detail`. */
static void refused(int rc, const char *detail)
{
    CHECK_INT_EQ(rc, CUSPEC_ERR_INVALID);
    CHECK_STR_CONTAINS(cuspec_last_error(), detail);
}

TEST(arguments_refused_before_the_device)
{
    const cuspec_devptr in = 0x10000, out = 0x20000, index = 0x30000;
    /* argmin/argmax are cuspec_argreduce's: cuspec_reduce says so. */
    refused(cuspec_reduce(NULL, CUSPEC_ARGMIN, CUSPEC_F32, in, 10, out, NULL), "cuspec_argreduce");
    refused(cuspec_reduce(NULL, CUSPEC_ARGMAX, CUSPEC_I8, in, 10, out, NULL), "argmax");
    refused(cuspec_reduce(NULL, 5, CUSPEC_F32, in, 10, out, NULL), "unknown op 5");
    refused(cuspec_reduce(NULL, -1, CUSPEC_F32, in, 10, out, NULL), "unknown op -1");
    /* and cuspec_argreduce takes nothing else */
    for (int op = -1; op <= 5; op++) {
        if (op == CUSPEC_ARGMIN || op == CUSPEC_ARGMAX)
            continue;
        refused(cuspec_argreduce(NULL, op, CUSPEC_F32, in, 10, out, index, NULL),
                "neither CUSPEC_ARGMIN (3) nor CUSPEC_ARGMAX (4)");
    }
    refused(cuspec_argreduce(NULL, CUSPEC_ARGMAX, CUSPEC_F32, in, 10, 0, 0, NULL),
            "value and index are both 0");
    refused(cuspec_argreduce(NULL, CUSPEC_ARGMIN, CUSPEC_F16, in, 0, out, index, NULL),
            "n is 0: an empty array has no argmin");
    refused(cuspec_argreduce(NULL, CUSPEC_ARGMAX, CUSPEC_F16, 0, 0, out, 0, NULL), "n is 0");
    /* Unknown dtypes, for every call; then the context. */
    static const int bad_dtypes[] = {0, -1, N_DT + 1, 999};
    for (size_t i = 0; i < sizeof bad_dtypes / sizeof *bad_dtypes; i++) {
        int dt = bad_dtypes[i];
        refused(cuspec_reduce(NULL, CUSPEC_SUM, dt, in, 10, out, NULL), "is not supported");
        refused(cuspec_dot(NULL, dt, in, in, 10, out, NULL), "is not supported");
        refused(cuspec_argreduce(NULL, CUSPEC_ARGMIN, dt, in, 10, out, index, NULL),
                "is not supported");
    }
    refused(cuspec_reduce(NULL, CUSPEC_SUM, CUSPEC_BF16, in, 10, out, NULL), "ctx is NULL");
    refused(cuspec_dot(NULL, CUSPEC_U16, in, in, 10, out, NULL), "ctx is NULL");
    refused(cuspec_argreduce(NULL, CUSPEC_ARGMIN, CUSPEC_U64, in, 10, 0, index, NULL),
            "ctx is NULL");
    CHECK_STR_CONTAINS(cuspec_last_error(), "cuspec_argreduce");
    /* A final pass on its own (the tuner and the tests run variants). */
    struct cuspec__variant fin;
    cuspec__variant_default(CUSPEC__FAM_REDUCE, CUSPEC_F32, CUSPEC__REDUCE_SUM, 90, &fin);
    fin.p[P_ITEMS] = fin.p[P_VEC] = fin.p[P_STAGE] = 1;
    fin.p[P_SINGLE] = fin.p[P_GRID] = fin.p[P_CACHE] = 0;
    CHECK(cuspec__variant_legal(&fin));
    refused(cuspec__reduce_variant(NULL, &fin, in, 0, 10, out, NULL), "final pass");
}

/* ## The record-free choice by size */

/* The kernels a call of each dtype and op can choose without a record on
 * sm_75 and sm_90, one a kernel (cuspec__family_each): the record-free
 * shapes of src/reduce.c's fit by size, and the final passes of those in
 * two launches. A refit changes its cells; docs/experiments/reduce.md tells
 * each one. */
/* clang-format off */
static const unsigned choices[][CUSPEC__REDUCE_N_OPS] = {
    /*              sum min max dot argmin argmax */
    [CUSPEC_F32]  = { 9,  7,  7, 13,  6,  6},
    [CUSPEC_F64]  = {12,  6,  6, 15,  4,  4},
    [CUSPEC_I32]  = { 7,  7,  7,  5,  6,  6},
    [CUSPEC_I64]  = { 4,  6,  6,  4,  4,  4},
    [CUSPEC_U32]  = { 7,  7,  7,  5,  6,  6},
    [CUSPEC_U64]  = { 4,  6,  6,  4,  4,  4},
    [CUSPEC_I8]   = { 4,  3,  3,  3,  3,  3},
    [CUSPEC_U8]   = { 4,  3,  3,  3,  3,  3},
    [CUSPEC_I16]  = { 3,  3,  3,  3,  3,  3},
    [CUSPEC_U16]  = { 3,  3,  3,  3,  3,  3},
    [CUSPEC_F16]  = { 9,  3,  3,  9,  3,  3},
    [CUSPEC_BF16] = { 9,  3,  3,  9,  3,  3},
};
/* clang-format on */

struct fitted {
    int dtype, op;
    unsigned long long n;
    int p[7]; /* block, items, vec, single, grid, stage, cache */
};

TEST(the_shape_follows_the_size)
{
    enum {
        SUM = CUSPEC__REDUCE_SUM,
        MIN = CUSPEC__REDUCE_MIN,
        MAX = CUSPEC__REDUCE_MAX,
        DOT = CUSPEC__REDUCE_DOT,
        ARGMIN = CUSPEC__REDUCE_ARGMIN,
        ARGMAX = CUSPEC__REDUCE_ARGMAX
    };
    static const struct fitted cases[] = {
        /* up to 1024 elements of 4 or 8 bytes: one block of 1024 x 1 */
        {CUSPEC_F32, SUM, 1, {1024, 1, 1, 1, 4, 0, 0}},
        {CUSPEC_F32, SUM, 1000, {1024, 1, 1, 1, 4, 0, 0}},
        {CUSPEC_F64, ARGMAX, 1024, {1024, 1, 1, 1, 4, 0, 0}},
        {CUSPEC_U64, DOT, 1024, {1024, 1, 1, 1, 4, 0, 0}},
        /* up to 16 KB an input: the defaults, one block of 256 x 4 x 16 B */
        {CUSPEC_I32, MAX, 1025, {256, 4, 4, 1, 4, 0, 0}},
        {CUSPEC_I32, DOT, 4095, {256, 4, 4, 1, 4, 0, 0}},
        {CUSPEC_F32, SUM, 4096, {256, 4, 4, 1, 4, 0, 0}},
        {CUSPEC_F32, DOT, 4096, {256, 4, 4, 1, 4, 0, 0}},
        {CUSPEC_I8, DOT, 16384, {256, 4, 16, 1, 4, 0, 0}},
        {CUSPEC_I8, SUM, 1000, {256, 4, 16, 1, 4, 0, 0}},
        {CUSPEC_F16, SUM, 1024, {256, 4, 8, 1, 4, 0, 0}},
        {CUSPEC_I8, ARGMAX, 16384, {256, 4, 16, 1, 4, 0, 0}},
        /* dots of exactly 16 KB of integers of 2 and 4 bytes: one block of
         * 512 x 4 x 16 B, as to 32 KB */
        {CUSPEC_I32, DOT, 4096, {512, 4, 4, 1, 2, 0, 0}},
        {CUSPEC_U16, DOT, 8192, {512, 4, 8, 1, 2, 0, 0}},
        {CUSPEC_I64, DOT, 2048, {256, 4, 2, 1, 4, 0, 0}},
        /* f64 sums to 32 KB: one block of 1024 x 8 x 8 B */
        {CUSPEC_F64, SUM, 2049, {1024, 8, 1, 1, 2, 0, 0}},
        {CUSPEC_F64, SUM, 4096, {1024, 8, 1, 1, 2, 0, 0}},
        /* to 32 KB: one block of 512 x 4 x 16 B */
        {CUSPEC_F32, SUM, 4097, {512, 4, 4, 1, 2, 0, 0}},
        {CUSPEC_F64, DOT, 4096, {512, 4, 2, 1, 2, 0, 0}},
        {CUSPEC_F16, ARGMAX, 16384, {512, 4, 8, 1, 2, 0, 0}},
        /* to 64 KB, sums of f32, f64 and 8-bit integers: one block of
         * 1024 x 4 x 16 B */
        {CUSPEC_F32, SUM, 1 << 14, {1024, 4, 4, 1, 4, 0, 0}},
        {CUSPEC_U8, SUM, (1 << 15) + 1, {1024, 4, 16, 1, 4, 0, 0}},
        {CUSPEC_F64, SUM, 1 << 13, {1024, 4, 2, 1, 4, 0, 0}},
        /* to 256 KB: 512 threads of one load (4 bytes; 8 for elements of
         * other sizes), as many blocks as fit; f32 sums to 128 KB, f32 dots
         * from 64 to 128 KB, no f64 sum or dot past 64 KB (below) */
        {CUSPEC_F32, MAX, 16385, {512, 1, 1, 1, 0, 0, 0}},
        {CUSPEC_F32, SUM, (1 << 14) + 1, {512, 1, 1, 1, 0, 0, 0}},
        {CUSPEC_F16, SUM, 1 << 15, {512, 1, 4, 1, 0, 0, 0}},
        {CUSPEC_I8, SUM, 1 << 18, {512, 1, 8, 1, 0, 0, 0}},
        {CUSPEC_F16, ARGMAX, 1 << 16, {512, 1, 4, 1, 0, 0, 0}},
        {CUSPEC_F32, SUM, 1 << 15, {512, 1, 1, 1, 0, 0, 0}},
        {CUSPEC_F32, DOT, (1 << 14) + 1, {512, 1, 1, 1, 0, 0, 0}},
        /* small sums and dots in two launches: f32 dots from 32 KB in 128 x
         * 1 x 4 B (2 blocks an SM to 64 KB, as many as fit from 128 KB to
         * 256 KB), f64 sums and dots from 64 KB to 256 KB in 128 x 1 x 16 B
         * and 128 x 1 x 8 B, f32 sums from 128 to 256 KB in 128 x 2 x 8 B,
         * f64 dots from 256 to 512 KB in 512 x 1 x 8 B */
        {CUSPEC_F32, DOT, 8193, {128, 1, 1, 0, 2, 0, 0}},
        {CUSPEC_F32, DOT, 1 << 14, {128, 1, 1, 0, 2, 0, 0}},
        {CUSPEC_F32, DOT, (1 << 15) + 1, {128, 1, 1, 0, 0, 0, 0}},
        {CUSPEC_F32, DOT, 1 << 16, {128, 1, 1, 0, 0, 0, 0}},
        {CUSPEC_F64, SUM, 8193, {128, 1, 2, 0, 1, 0, 0}},
        {CUSPEC_F64, SUM, (1 << 15) - 1, {128, 1, 2, 0, 1, 0, 0}},
        {CUSPEC_F64, DOT, 8193, {128, 1, 1, 0, 0, 0, 0}},
        {CUSPEC_F64, DOT, (1 << 15) - 1, {128, 1, 1, 0, 0, 0, 0}},
        {CUSPEC_F32, SUM, (1 << 15) + 1, {128, 2, 2, 0, 1, 0, 0}},
        {CUSPEC_F32, SUM, 1 << 16, {128, 2, 2, 0, 1, 0, 0}},
        {CUSPEC_F64, DOT, (1 << 15) + 1, {512, 1, 1, 0, 0, 0, 0}},
        {CUSPEC_F64, DOT, 1 << 16, {512, 1, 1, 0, 0, 0, 0}},
        /* to 64 KB, min and max of 4 bytes 128 x 2 x 4 B, argmin and argmax
         * 256 x 1 x 4 B; to 128 KB, min and max of 8 bytes 128 x 1 x 8 B,
         * spread over the SMs */
        {CUSPEC_F32, MAX, 8193, {128, 2, 1, 1, 0, 0, 0}},
        {CUSPEC_U32, MIN, 1 << 14, {128, 2, 1, 1, 0, 0, 0}},
        {CUSPEC_F32, ARGMAX, 1 << 14, {256, 1, 1, 1, 1, 0, 0}},
        {CUSPEC_I32, ARGMIN, 8193, {256, 1, 1, 1, 1, 0, 0}},
        {CUSPEC_F64, MIN, 8193, {128, 1, 1, 1, 4, 0, 0}},
        {CUSPEC_I64, MAX, 1 << 14, {128, 1, 1, 1, 4, 0, 0}},
        {CUSPEC_F64, DOT, 1 << 15, {128, 4, 1, 0, 0, 0, 0}},
        {CUSPEC_F64, MAX, 1 << 15, {512, 1, 1, 1, 0, 0, 0}},
        /* just outside those rows: the shapes around them */
        {CUSPEC_F32, ARGMAX, 16385, {512, 1, 1, 1, 0, 0, 0}},
        {CUSPEC_F64, MAX, (1 << 14) + 1, {512, 1, 1, 1, 0, 0, 0}},
        {CUSPEC_I64, MIN, 8192, {512, 1, 1, 1, 0, 0, 0}},
        {CUSPEC_F64, DOT, 8192, {512, 1, 1, 1, 0, 0, 0}},
        {CUSPEC_F64, SUM, 4097, {1024, 4, 2, 1, 4, 0, 0}},
        /* to 1 MB, one block an SM of 512 threads of one 8-byte load; of 4
         * bytes, that for argmin and argmax, 512 x 2 x 4 B for integer dots;
         * min, max and integer sums of 4 bytes 512 x 1 x 16 B, 2 blocks an
         * SM */
        {CUSPEC_I8, ARGMAX, (1 << 18) + 1, {512, 1, 8, 1, 1, 0, 0}},
        {CUSPEC_BF16, MAX, 1 << 18, {512, 1, 4, 1, 1, 0, 0}},
        {CUSPEC_F64, MAX, 1 << 17, {512, 1, 1, 1, 1, 0, 0}},
        {CUSPEC_F32, ARGMIN, 1 << 18, {512, 1, 2, 1, 1, 0, 0}},
        {CUSPEC_I32, DOT, (1 << 16) + 1, {512, 2, 1, 1, 1, 0, 0}},
        {CUSPEC_I32, SUM, (1 << 16) + 1, {512, 1, 4, 1, 2, 0, 0}},
        {CUSPEC_F32, MAX, 1 << 18, {512, 1, 4, 1, 2, 0, 0}},
        /* float sums and dots from 256 KB (f32: above it): two launches of
         * 128 x 4 x 16 B (f32, to 1 MB) or 128 x 4 x 8 B (the others, to 1
         * MB; 16-bit floats from 1 MB 256 x 1 x 16 B), as many as fit */
        {CUSPEC_F32, SUM, (1 << 16) + 1, {128, 4, 4, 0, 0, 0, 0}},
        {CUSPEC_F32, DOT, 1 << 17, {128, 4, 4, 0, 0, 0, 0}},
        {CUSPEC_F64, SUM, 1 << 15, {128, 4, 1, 0, 0, 0, 0}},
        {CUSPEC_BF16, SUM, 1 << 18, {128, 4, 4, 0, 0, 0, 0}},
        {CUSPEC_F16, DOT, 1 << 19, {128, 4, 4, 0, 0, 0, 0}},
        {CUSPEC_F16, SUM, (1 << 19) + 1, {256, 1, 8, 0, 0, 0, 0}},
        {CUSPEC_BF16, DOT, 1 << 20, {256, 1, 8, 0, 0, 0, 0}},
        {CUSPEC_F64, DOT, 1 << 17, {128, 4, 1, 0, 0, 0, 0}},
        {CUSPEC_F64, DOT, (1 << 16) + 1, {128, 4, 1, 0, 0, 0, 0}},
        /* f32 dots from 512 KB to 1 MB 256 x 2 x 4 B, 4 blocks an SM,
         * through L1; f32 and f64 from 1 MB: two launches of small blocks
         * (f32 to 4 MB, f64 sums to 4 MB, f64 dots to 16 MB; through L1
         * f32 dots to 2 MB, sums from 2 to 4 MB, f64 dots all), then f64 sums
         * 256 x 8 x 16 B in one launch to 8 MB, as many as fit, and f32
         * and f64 sums 512 x 4 x 16 B, 2 blocks an SM */
        {CUSPEC_F32, DOT, (1 << 17) + 1, {256, 2, 1, 0, 4, 0, 1}},
        {CUSPEC_F32, DOT, 1 << 18, {256, 2, 1, 0, 4, 0, 1}},
        {CUSPEC_F32, SUM, (1 << 18) + 1, {128, 4, 2, 0, 4, 0, 0}},
        {CUSPEC_F32, DOT, (1 << 19), {256, 2, 2, 0, 0, 0, 1}},
        {CUSPEC_F64, SUM, (1 << 17) + 1, {256, 4, 1, 0, 2, 0, 0}},
        {CUSPEC_F64, DOT, (1 << 17) + 1, {256, 2, 1, 0, 4, 0, 1}},
        {CUSPEC_F32, SUM, (1 << 19) + 1, {128, 4, 4, 0, 4, 0, 1}},
        {CUSPEC_F32, DOT, 1 << 20, {128, 2, 4, 0, 4, 0, 0}},
        {CUSPEC_F64, SUM, (1 << 18) + 1, {128, 4, 2, 0, 4, 0, 1}},
        {CUSPEC_F64, DOT, (1 << 19) + 1, {512, 2, 1, 0, 2, 0, 1}},
        {CUSPEC_F64, DOT, 1 << 21, {512, 2, 1, 0, 2, 0, 1}},
        {CUSPEC_F32, SUM, (1 << 20) + 1, {512, 4, 4, 1, 2, 0, 0}},
        {CUSPEC_F64, SUM, (1 << 19) + 1, {256, 8, 2, 1, 0, 0, 0}},
        {CUSPEC_F64, SUM, 1 << 20, {256, 8, 2, 1, 0, 0, 0}},
        {CUSPEC_F64, SUM, (1 << 20) + 1, {512, 4, 2, 1, 2, 0, 0}},
        {CUSPEC_F64, SUM, 1 << 22, {512, 4, 2, 1, 2, 0, 1}},
        /* to 2 MB: the defaults; min and max of 8 bytes 512 x 2 x 8 B, one
         * block an SM */
        {CUSPEC_F64, ARGMAX, (1 << 17) + 1, {256, 4, 2, 1, 4, 0, 0}},
        {CUSPEC_F64, MAX, (1 << 17) + 1, {512, 2, 1, 1, 1, 0, 0}},
        {CUSPEC_U64, MIN, 1 << 18, {512, 2, 1, 1, 1, 0, 0}},
        {CUSPEC_U16, MAX, 1 << 20, {256, 4, 8, 1, 4, 0, 0}},
        /* to 32 MB: 512 x 4 x 16 B, 2 blocks an SM (min and max of 4
         * bytes from 4 MB); through L1 from 32 MB read (a dot's two
         * inputs) */
        {CUSPEC_F32, ARGMAX, 1 << 23, {512, 4, 4, 1, 2, 0, 1}},
        {CUSPEC_F64, MAX, (1 << 18) + 1, {512, 4, 2, 1, 2, 0, 0}},
        {CUSPEC_I32, MAX, (1 << 20) + 1, {512, 4, 4, 1, 2, 0, 0}},
        {CUSPEC_I32, DOT, 1 << 22, {512, 4, 4, 1, 2, 0, 1}},
        {CUSPEC_I64, SUM, 1 << 21, {512, 4, 2, 1, 2, 0, 0}},
        /* other float sums and dots in two launches, as many blocks as fit:
         * 16-bit floats 256 x 1 x 16 B to 4 MB, 512 x 1 x 16 B from there;
         * f32 dots 512 x 4 x 16 B 2 blocks an SM from 4 MB; f64 dots 1024 x
         * 1 x 8 B from 2 to 4 MB, 1024 x 2 x 8 B from 16 MB */
        {CUSPEC_BF16, SUM, 1 << 21, {256, 1, 8, 0, 0, 0, 0}},
        {CUSPEC_F16, DOT, (1 << 21) + 1, {512, 1, 8, 0, 0, 0, 0}},
        {CUSPEC_BF16, SUM, (1 << 24) - 1, {512, 1, 8, 0, 0, 0, 0}},
        {CUSPEC_BF16, SUM, 1 << 24, {512, 1, 8, 0, 0, 0, 1}},
        {CUSPEC_F32, DOT, 1 << 22, {512, 4, 4, 0, 2, 0, 1}},
        {CUSPEC_F64, DOT, 1 << 19, {1024, 1, 1, 0, 0, 0, 1}},
        {CUSPEC_F64, DOT, (1 << 21) + 1, {1024, 2, 1, 0, 0, 0, 1}},
        /* min, max and integer sums of 4 bytes from 2 to 4 MB: 1024 x 2 x
         * 16 B, 2 blocks an SM; sums of 4-byte integers from there 512 x 2
         * x 16 B, 2 blocks an SM */
        {CUSPEC_I32, SUM, (1 << 19) + 1, {1024, 2, 4, 1, 2, 0, 0}},
        {CUSPEC_U32, SUM, 1 << 20, {1024, 2, 4, 1, 2, 0, 0}},
        {CUSPEC_I32, MAX, 1 << 20, {1024, 2, 4, 1, 2, 0, 0}},
        {CUSPEC_F32, MIN, (1 << 19) + 1, {1024, 2, 4, 1, 2, 0, 0}},
        {CUSPEC_I32, SUM, (1 << 20) + 1, {512, 2, 4, 1, 2, 0, 0}},
        {CUSPEC_U32, SUM, 1 << 23, {512, 2, 4, 1, 2, 0, 1}},
        /* beyond: the defaults through L1; argmin and argmax of one byte
         * 512 x 4 x 16 B, 2 blocks an SM, as below */
        {CUSPEC_F32, SUM, (1 << 23) + 1, {256, 4, 4, 1, 4, 0, 1}},
        {CUSPEC_U8, MAX, 1ULL << 33, {256, 4, 16, 1, 4, 0, 1}},
        {CUSPEC_I8, ARGMAX, 1 << 25, {512, 4, 16, 1, 2, 0, 1}},
        {CUSPEC_U8, ARGMIN, (1 << 25) + 1, {512, 4, 16, 1, 2, 0, 1}},
        {CUSPEC_I8, ARGMIN, 1ULL << 33, {512, 4, 16, 1, 2, 0, 1}},
        {CUSPEC_I16, ARGMAX, (1 << 24) + 1, {256, 4, 8, 1, 4, 0, 1}},
        /* sizes no memory holds: the last class, no overflow */
        {CUSPEC_F64, SUM, ~0ULL, {256, 4, 2, 1, 4, 0, 1}},
        {CUSPEC_U16, DOT, 1ULL << 63, {256, 4, 8, 1, 4, 0, 1}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const struct fitted *c = &cases[i];
        struct cuspec__spec s = {
            .family = CUSPEC__FAM_REDUCE, .op = c->op, .dtype = c->dtype, .n = c->n};
        struct cuspec__variant v;
        cuspec__variant_choose(&s, 90, &v);
        if (memcmp(v.p, c->p, sizeof c->p) != 0) {
            char name[256];
            cuspec__variant_name(&v, name, sizeof name);
            TAP_FAIL("%s op %d n=%llu: %s grid %d cache %d", cuspec_dtype_name(c->dtype), c->op,
                     c->n, name, v.p[P_GRID], v.p[P_CACHE]);
        }
    }
}

/* The choice at n of every dtype and op is legal, and n's record bucket
 * is a power of two whose choice is n's (so a record tuned at n serves
 * it), which holds while every class of shapes ends at a power of two. */
static unsigned own_bucket_fails(unsigned long long n)
{
    const struct cuspec__family *f = cuspec__family(CUSPEC__FAM_REDUCE);
    unsigned bad = 0;
    for (int d = 0; d < f->n_dtypes; d++)
        for (int op = 0; op < CUSPEC__REDUCE_N_OPS; op++) {
            struct cuspec__spec s = {
                .family = CUSPEC__FAM_REDUCE, .op = op, .dtype = f->dtypes[d], .n = n};
            struct cuspec__variant v;
            cuspec__variant_choose(&s, 90, &v);
            int b = cuspec__bucket(&s);
            if (cuspec__variant_legal(&v) && b >= 0 && b <= 63 &&
                (n == 0 || cuspec__reduce_same_choice(&s, 1ULL << b)))
                continue;
            if (bad++ == 0)
                TAP_FAIL("%s op %d n=%llu: bucket %d, legal %d", cuspec_dtype_name(s.dtype), op,
                         n, b, cuspec__variant_legal(&v));
        }
    return bad;
}

/* Every size to 2^12, then 4 either side of each power of two and of the
 * point half-way to the next. */
TEST(every_size_has_a_legal_choice_and_its_own_bucket)
{
    unsigned bad = 0;
    for (unsigned long long n = 0; n <= 4096; n++)
        bad += own_bucket_fails(n);
    for (int k = 12; k < 63; k++)
        for (int e = -4; e <= 4; e++) {
            bad += own_bucket_fails((1ULL << k) + (unsigned long long)(long long)e);
            bad += own_bucket_fails((3ULL << (k - 1)) + (unsigned long long)(long long)e);
        }
    CHECK_UINT_EQ(bad, 0);
}

/* Every choice in two launches comes with its final pass (one block of its
 * block size), which no call chooses alone; only float sums and dots. */
struct chosen {
    struct cuspec__variant v[1024];
    unsigned n;
};

/* v, unless its kernel is listed (sizes that differ only in launch
 * parameters list one kernel several times). */
static int add_chosen(const struct cuspec__variant *v, void *user)
{
    struct chosen *l = user;
    for (unsigned i = 0; i < l->n; i++)
        if (cuspec__same_kernel(&l->v[i], v))
            return 0;
    if (l->n < sizeof l->v / sizeof *l->v)
        l->v[l->n++] = *v;
    return 0;
}

/* l holds the kernels of `choices`, cell by cell. */
static void check_choices(const struct chosen *l)
{
    CHECK_UINT_LT(l->n, sizeof l->v / sizeof *l->v); /* none left out */
    unsigned all = 0;
    for (int d = CUSPEC_F32; d <= CUSPEC_BF16; d++)
        for (int op = 0; op < CUSPEC__REDUCE_N_OPS; op++)
            all += choices[d][op];
    CHECK_UINT_EQ(l->n, all); /* none of another dtype or op */
    for (int d = CUSPEC_F32; d <= CUSPEC_BF16; d++)
        for (int op = 0; op < CUSPEC__REDUCE_N_OPS; op++) {
            unsigned n = 0;
            for (unsigned i = 0; i < l->n; i++)
                n += l->v[i].dtype == d && l->v[i].op == op;
            if (n != choices[d][op])
                TAP_FAIL("%s, op %d: %u kernels, not %u", cuspec_dtype_name(d), op, n,
                         choices[d][op]);
        }
}

TEST(two_launches_come_with_their_final_pass)
{
    static struct chosen l;
    CHECK_INT_EQ(cuspec__family_each(CUSPEC__FAM_REDUCE, 90, 0, add_chosen, &l), 0);
    check_choices(&l);
    unsigned two = 0, finals = 0;
    for (unsigned i = 0; i < l.n; i++) {
        const struct cuspec__variant *v = &l.v[i];
        finals += v->p[P_STAGE] == 1;
        if (v->p[P_SINGLE] || v->p[P_STAGE])
            continue;
        two++;
        CHECK(cuspec__dtype_is_float(v->dtype) &&
              (v->op == CUSPEC__REDUCE_SUM || v->op == CUSPEC__REDUCE_DOT));
        int found = 0;
        for (unsigned j = 0; j < l.n; j++)
            found |= l.v[j].p[P_STAGE] == 1 && l.v[j].dtype == v->dtype && l.v[j].op == v->op &&
                     l.v[j].p[P_BLOCK] == v->p[P_BLOCK];
        CHECK(found);
    }
    CHECK_UINT_EQ(two, 32);
    CHECK_UINT_EQ(finals, 22);
}

/* ## Compiling: every default, and a sample of the new specializations */
struct list {
    struct cuspec__variant v[8192];
    unsigned n;
};

static int add(const struct cuspec__variant *v, void *user)
{
    struct list *l = user;
    if (l->n < sizeof l->v / sizeof *l->v)
        l->v[l->n++] = *v;
    return 0;
}

static int is_new(const struct cuspec__variant *v)
{
    return v->dtype == CUSPEC_U64 || v->dtype >= CUSPEC_I8 || cuspec__reduce_is_arg(v->op);
}

static void compile_for(int arch, int defaults)
{
    static struct list all, build;
    static struct chosen each;
    all.n = each.n = build.n = 0;
    CHECK_INT_EQ(cuspec__family_each(CUSPEC__FAM_REDUCE, arch, 0, add_chosen, &each), 0);
    CHECK_INT_EQ(cuspec__family_each(CUSPEC__FAM_REDUCE, arch, 1, add, &all), 0);
    check_choices(&each);
    CHECK_UINT_LT(each.n, all.n);
    CHECK_UINT_LT(all.n, sizeof all.v / sizeof *all.v); /* none left out */
    /* The defaults' own shape (256 threads; the build compiles the other
     * sizes' shapes for every prebuilt arch, sm_75 among them). */
    for (unsigned i = 0; defaults && i < each.n; i++)
        if (is_new(&each.v[i]) && each.v[i].p[P_BLOCK] == 256)
            add(&each.v[i], &build);
    unsigned n_new = 0;
    for (unsigned i = 0; i < all.n; i++)
        n_new += is_new(&all.v[i]);
    /* Every step-th of the new ones (types, ops, blocks, items, vectors,
     * one- and two-launch). */
    unsigned step = n_new / 16 + 1, k = 0;
    for (unsigned i = 0; i < all.n; i++)
        if (is_new(&all.v[i]) && k++ % step == step / 2)
            add(&all.v[i], &build);
    cuspec_compile_report report;
    int rc = cuspec__compile_many(build.v, build.n, arch, CUSPEC__IMAGE_NO_PTX, 0, 0, NULL, NULL,
                                  NULL, &report);
    printf("# sm_%d: %u of the %u new reduce kernels: %u compiled, %u failed in %.1f s\n", arch,
           build.n, n_new, report.compiled, report.failed, report.seconds);
    CHECK_INT_EQ(rc, CUSPEC_OK);
    CHECK_UINT_EQ(report.failed, 0);
    if (report.failed)
        printf("# %s\n", report.first_error);
}

TEST(new_defaults_and_a_sample_compile_for_sm_75)
{
    compile_for(75, 1);
}

TEST(a_sample_compiles_for_sm_90)
{
    compile_for(90, 0);
}

static char store_dir[] = "/tmp/cuspec-reduce-api-XXXXXX";

int main(void)
{
    if (mkdtemp(store_dir) == NULL) {
        printf("1..0 # SKIP cannot make a temporary folder\n");
        return 77;
    }
    setenv("CUSPEC_CACHE_DIR", store_dir, 1);
    static const struct tap_test tests[] = {
        TAP_ENTRY(every_op_and_dtype_has_its_result_dtype),
        TAP_ENTRY(op_names),
        TAP_ENTRY(arguments_refused_before_the_device),
        TAP_ENTRY(the_shape_follows_the_size),
        TAP_ENTRY(every_size_has_a_legal_choice_and_its_own_bucket),
        TAP_ENTRY(two_launches_come_with_their_final_pass),
        TAP_ENTRY(new_defaults_and_a_sample_compile_for_sm_75),
        TAP_ENTRY(a_sample_compiles_for_sm_90),
    };
    int rc = tap_run(tests, sizeof tests / sizeof *tests);
    tap_remove_tree(store_dir, 0);
    return rc;
}
