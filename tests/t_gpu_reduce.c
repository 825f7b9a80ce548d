/* GPU: reductions (sum, min, max, dot) against a CPU reference.
 *
 * Through the public API: every op x dtype at sizes from 1 to 2^24 (2^28+3
 * for f32 and i32 sums) with the input starting 0..3 elements into its
 * allocation; n = 0 (the identity); NaN propagation of float min/max; bad
 * arguments (an error with its detail, nothing launched). Through
 * cuspec__reduce_variant: a deterministic sample of every legal
 * specialization (two-launch SINGLE=0 ones and several GRID values among
 * them) plus all the defaults. Then a reduction captured into a CUDA graph
 * and replayed on fresh data, reductions running concurrently on two
 * streams, and sums that read what a copy just wrote (on sm_90 the sums,
 * and the copies up to 4 MB, launch programmatically), on a stream and in
 * a graph; and inputs in mapped host memory.
 *
 * One process, one context, no fork after CUDA is touched. The kernels are
 * compiled by NVRTC into a private store (a fresh $CUSPEC_CACHE_DIR). */
#include "gpu.h"
#include "gpu_cases.h"
#include "reduce.h"
#include "compile.h"
#include "reduce_sample.h"
#include "driver.h"

#include <float.h>
#include <ftw.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { OP_SUM, OP_MIN, OP_MAX, OP_DOT, N_OPS };

static const int dtypes[] = {CUSPEC_F32, CUSPEC_F64, CUSPEC_I32, CUSPEC_I64, CUSPEC_U32};
#define N_DTYPES (sizeof dtypes / sizeof *dtypes)

#define BIG_N ((1ull << 28) + 3)              /* f32 and i32 sums only */
#define MAX_ELEMS ((size_t)BIG_N + 8)         /* d_a / h_a capacity in 4-byte elements */
#define MAX_B_ELEMS ((size_t)(1u << 24) + 16) /* d_b / h_b capacity in 8-byte elements */
#define OUT_BYTES 16                          /* poisoned bytes at out (out writes <= 8) */
#define POISON 0xA5

static CUdeviceptr d_a, d_b, d_out;
static unsigned char *h_a, *h_b;

/* ## Values */
static const char *op_name(int op)
{
    static const char *const names[] = {"sum", "min", "max", "dot"};
    return op >= 0 && op < N_OPS ? names[op] : "?";
}

static int out_dtype(int op, int dtype)
{
    return cuspec_reduce_out_dtype(op == OP_DOT ? -1 : op, dtype);
}

/* An element of dtype as text. */
static void format_value(int dtype, const void *p, char *buf, size_t size)
{
    switch (dtype) {
    case CUSPEC_F32: {
        float f;
        uint32_t u;
        memcpy(&f, p, 4);
        memcpy(&u, p, 4);
        snprintf(buf, size, "%.9g (0x%08x)", f, u);
        break;
    }
    case CUSPEC_F64: {
        double d;
        uint64_t u;
        memcpy(&d, p, 8);
        memcpy(&u, p, 8);
        snprintf(buf, size, "%.17g (0x%016llx)", d, (unsigned long long)u);
        break;
    }
    case CUSPEC_I32: {
        int32_t i;
        memcpy(&i, p, 4);
        snprintf(buf, size, "%d", i);
        break;
    }
    case CUSPEC_U32: {
        uint32_t u;
        memcpy(&u, p, 4);
        snprintf(buf, size, "%u", u);
        break;
    }
    case CUSPEC_I64: {
        int64_t i;
        memcpy(&i, p, 8);
        snprintf(buf, size, "%lld", (long long)i);
        break;
    }
    case CUSPEC_U64: {
        uint64_t u;
        memcpy(&u, p, 8);
        snprintf(buf, size, "%llu", (unsigned long long)u);
        break;
    }
    default:
        snprintf(buf, size, "(dtype %d)", dtype);
    }
}

/* Fresh random elements, never zero: floats uniform in [-1, 1) (multiples
 * of 2^-23 or 2^-52, exact in their type), integers over their full range. */
static void fill_random(int dtype, void *buf, size_t count)
{
    switch (dtype) {
    case CUSPEC_F32: {
        float *x = buf;
        for (size_t i = 0; i < count; i++) {
            int32_t k;
            do
                k = (int32_t)(rng_next() >> 40) - (1 << 23);
            while (k == 0);
            x[i] = (float)k * 0x1p-23f;
        }
        break;
    }
    case CUSPEC_F64: {
        double *x = buf;
        for (size_t i = 0; i < count; i++) {
            int64_t k;
            do
                k = (int64_t)(rng_next() >> 11) - (1ll << 52);
            while (k == 0);
            x[i] = (double)k * 0x1p-52;
        }
        break;
    }
    case CUSPEC_I32:
    case CUSPEC_U32: {
        uint32_t *x = buf;
        for (size_t i = 0; i < count; i++)
            do
                x[i] = (uint32_t)(rng_next() >> 32);
            while (x[i] == 0);
        break;
    }
    case CUSPEC_I64: {
        uint64_t *x = buf;
        for (size_t i = 0; i < count; i++)
            do
                x[i] = rng_next();
            while (x[i] == 0);
        break;
    }
    }
}

/* ## CPU reference */
struct want {
    unsigned char bytes[8]; /* the exact result (when !approx) */
    size_t size;            /* bytes the kernel writes */
    int approx;             /* float sum or dot: value within tolerance */
    long double value;      /* the accurately summed result */
    long double scale;      /* sum |x_i * y_i|: the error bound's scale */
};

/* m = the min (OP_MIN) or else the max of m and x[0..n-1], in x's type. */
#define REF_MINMAX(op, x, n, m)                                                                    \
    do {                                                                                           \
        if ((op) == OP_MIN) {                                                                      \
            for (size_t i_ = 0; i_ < (n); i_++)                                                    \
                if ((x)[i_] < (m))                                                                 \
                    (m) = (x)[i_];                                                                 \
        } else {                                                                                   \
            for (size_t i_ = 0; i_ < (n); i_++)                                                    \
                if ((x)[i_] > (m))                                                                 \
                    (m) = (x)[i_];                                                                 \
        }                                                                                          \
    } while (0)

/* Float sums and dots in long double with Neumaier's compensation (error
 * far below the f64 tolerance); min/max exact; n = 0 the identity. */
#define DEFINE_REF_FLOAT(NAME, T, INF)                                                             \
    static void NAME(int op, const void *av, const void *bv, size_t n, struct want *w)             \
    {                                                                                              \
        const T *x = av, *y = bv;                                                                  \
        w->size = sizeof(T);                                                                       \
        if (op == OP_MIN || op == OP_MAX) {                                                        \
            T m = op == OP_MIN ? INF : -INF;                                                       \
            REF_MINMAX(op, x, n, m);                                                               \
            memcpy(w->bytes, &m, sizeof m);                                                        \
            return;                                                                                \
        }                                                                                          \
        if (n == 0) {                                                                              \
            T zero = 0;                                                                            \
            memcpy(w->bytes, &zero, sizeof zero);                                                  \
            return;                                                                                \
        }                                                                                          \
        long double s = 0, c = 0, abs_sum = 0;                                                     \
        for (size_t i = 0; i < n; i++) {                                                           \
            long double v = op == OP_DOT ? (long double)x[i] * (long double)y[i] : x[i];           \
            long double t = s + v;                                                                 \
            if (fabsl(s) >= fabsl(v))                                                              \
                c += (s - t) + v;                                                                  \
            else                                                                                   \
                c += (v - t) + s;                                                                  \
            s = t;                                                                                 \
            abs_sum += fabsl(v);                                                                   \
        }                                                                                          \
        w->approx = 1;                                                                             \
        w->value = s + c;                                                                          \
        w->scale = abs_sum;                                                                        \
    }
DEFINE_REF_FLOAT(ref_f32, float, INFINITY)
DEFINE_REF_FLOAT(ref_f64, double, (double)INFINITY)

/* Integers: sums and dots mod 2^64 of the values widened to 64 bits (sign-
 * or zero-extended per T), min/max in T; n = 0 the identity. */
#define DEFINE_REF_INT(NAME, T, WIDE, LO, HI)                                                      \
    static void NAME(int op, const void *av, const void *bv, size_t n, struct want *w)             \
    {                                                                                              \
        const T *x = av, *y = bv;                                                                  \
        if (op == OP_MIN || op == OP_MAX) {                                                        \
            T m = op == OP_MIN ? HI : LO;                                                          \
            REF_MINMAX(op, x, n, m);                                                               \
            w->size = sizeof m;                                                                    \
            memcpy(w->bytes, &m, sizeof m);                                                        \
            return;                                                                                \
        }                                                                                          \
        uint64_t s = 0;                                                                            \
        if (op == OP_DOT) {                                                                        \
            for (size_t i = 0; i < n; i++)                                                         \
                s += (uint64_t)(WIDE)x[i] * (uint64_t)(WIDE)y[i];                                  \
        } else {                                                                                   \
            for (size_t i = 0; i < n; i++)                                                         \
                s += (uint64_t)(WIDE)x[i];                                                         \
        }                                                                                          \
        w->size = 8;                                                                               \
        memcpy(w->bytes, &s, 8);                                                                   \
    }
DEFINE_REF_INT(ref_i32, int32_t, int64_t, INT32_MIN, INT32_MAX)
DEFINE_REF_INT(ref_i64, int64_t, int64_t, INT64_MIN, INT64_MAX)
DEFINE_REF_INT(ref_u32, uint32_t, uint64_t, 0, UINT32_MAX)

static void reference(int op, int dtype, const void *a, const void *b, size_t n, struct want *w)
{
    memset(w, 0, sizeof *w);
    switch (dtype) {
    case CUSPEC_F32:
        ref_f32(op, a, b, n, w);
        break;
    case CUSPEC_F64:
        ref_f64(op, a, b, n, w);
        break;
    case CUSPEC_I32:
        ref_i32(op, a, b, n, w);
        break;
    case CUSPEC_I64:
        ref_i64(op, a, b, n, w);
        break;
    case CUSPEC_U32:
        ref_u32(op, a, b, n, w);
        break;
    }
}

/* ## Device helpers */

/* Host to device, then a full synchronize: pageable copies may still be in
 * flight on the legacy stream when cuMemcpyHtoD returns, and non-blocking
 * streams do not wait for it. */
static void upload(CUdeviceptr dst, const void *src, size_t bytes)
{
    if (bytes > 0)
        CU_OK(drv->cuMemcpyHtoD(dst, src, bytes));
    CU_OK(drv->cuCtxSynchronize());
}

/* Poisons OUT_BYTES at out on the legacy stream (ordered before a call on
 * the legacy stream; others synchronize first). */
static void poison_out(CUdeviceptr out)
{
    CU_OK(drv->cuMemsetD8(out, POISON, OUT_BYTES));
}

static int call_public(int op, int dtype, CUdeviceptr a, CUdeviceptr b, size_t n, CUdeviceptr out,
                       CUstream stream)
{
    if (op == OP_DOT)
        return cuspec_dot(ctx, dtype, a, b, n, out, stream);
    return cuspec_reduce(ctx, op, dtype, a, n, out, stream);
}

/* Compares OUT_BYTES read back from out with w; `what` describes the case.
 * Returns 1 when it matched. */
static int compare(int op, int dtype, const unsigned char got[OUT_BYTES], const struct want *w,
                   const char *what)
{
    int odt = out_dtype(op, dtype);
    char gs[96], ws[96];
    int ok = 1;
    format_value(odt, got, gs, sizeof gs);
    if (w->approx) {
        long double g;
        double eps = dtype == CUSPEC_F32 ? FLT_EPSILON : DBL_EPSILON;
        if (dtype == CUSPEC_F32) {
            float f;
            memcpy(&f, got, 4);
            g = f;
        } else {
            double d;
            memcpy(&d, got, 8);
            g = d;
        }
        long double err = fabsl(g - w->value);
        if (!isfinite((double)g) || !(err <= 200 * eps * w->scale)) {
            CASE_FAIL("%s: got %s, want %.21Lg (|err| / sum|x*y| = %.3Lg, tolerance %.3g)", what,
                      gs, w->value, w->scale > 0 ? err / w->scale : err, 200 * eps);
            ok = 0;
        }
    } else if (memcmp(got, w->bytes, w->size) != 0) {
        format_value(odt, w->bytes, ws, sizeof ws);
        CASE_FAIL("%s: got %s, want %s", what, gs, ws);
        ok = 0;
    }
    for (size_t i = w->size; i < OUT_BYTES; i++)
        if (got[i] != POISON) {
            CASE_FAIL("%s: byte %zu after the %zu-byte result was written (0x%02x)", what, i,
                      w->size, got[i]);
            ok = 0;
            break;
        }
    return ok;
}

/* One public call on the legacy stream, checked against the reference of
 * the host data it reads. */
static void check_public(int op, int dtype, size_t n, size_t a_off, size_t b_off)
{
    size_t es = cuspec_dtype_size(dtype);
    struct want w;
    reference(op, dtype, h_a + a_off * es, h_b + b_off * es, n, &w);
    char what[160];
    snprintf(what, sizeof what, "%s %s n=%zu offset a+%zu b+%zu", op_name(op),
             cuspec_dtype_name(dtype), n, a_off, b_off);
    poison_out(d_out);
    int rc = call_public(op, dtype, d_a + a_off * es, op == OP_DOT ? d_b + b_off * es : 0, n, d_out,
                         NULL);
    if (rc != CUSPEC_OK) {
        CASE_FAIL("%s: %s: %s", what, cuspec_strerror(rc), cuspec_last_error());
        return;
    }
    unsigned char got[OUT_BYTES];
    CU_OK(drv->cuMemcpyDtoH(got, d_out, OUT_BYTES));
    compare(op, dtype, got, &w, what);
}

static int ready(void)
{
    if (ctx == NULL || d_a == 0 || d_b == 0 || d_out == 0 || h_a == NULL || h_b == NULL) {
        TAP_FAIL("no context or buffers (see the diagnostics above)");
        return 0;
    }
    return 1;
}

/* ## Public API: sizes and offsets */
static void sizes_offsets(int op, int dtype)
{
    /* Shapes a call without a record takes (src/reduce.c, shapes): up to 16
     * KB, to 32 KB (one block), to 256 KB, to 2 MB (by op: one block an
     * SM, or two launches), to 32 MB (float sums in two launches), and
     * beyond; variants_sampled_sizes_offsets runs each of these dtypes'
     * record-free kernels, those of 64 KB too. */
    static const size_t sizes[] = {
        1, 2, 31, 32, 33, 1023, 1025, 5000, 20000, 100000, (1u << 20) + 7, 1u << 24, BIG_N};
    if (!ready())
        return;
    group_begin();
    size_t es = cuspec_dtype_size(dtype);
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        size_t n = sizes[s];
        if (n == BIG_N && !(op == OP_SUM && (dtype == CUSPEC_F32 || dtype == CUSPEC_I32)))
            continue;
        /* Offsets 0..3 read elements [off, off + n) of n + 3 fresh ones. */
        fill_random(dtype, h_a, n + 3);
        upload(d_a, h_a, (n + 3) * es);
        if (op == OP_DOT) {
            fill_random(dtype, h_b, n + 3);
            upload(d_b, h_b, (n + 3) * es);
        }
        for (size_t off = 0; off < 4; off++) {
            /* b's misalignment: the same as a's (vector path) for offsets
             * 0 and 2, a different one (scalar path) for 1 and 3. */
            size_t b_off = op == OP_DOT ? off * 3 % 4 : 0;
            check_public(op, dtype, n, off, b_off);
        }
    }
    group_end();
}

#define SIZES_OFFSETS(OPN, OP, DTN, DT)                                                            \
    TEST(OPN##_##DTN##_sizes_offsets)                                                              \
    {                                                                                              \
        sizes_offsets(OP, DT);                                                                     \
    }
#define SIZES_OFFSETS_OP(OPN, OP)                                                                  \
    SIZES_OFFSETS(OPN, OP, f32, CUSPEC_F32)                                                        \
    SIZES_OFFSETS(OPN, OP, f64, CUSPEC_F64)                                                        \
    SIZES_OFFSETS(OPN, OP, i32, CUSPEC_I32)                                                        \
    SIZES_OFFSETS(OPN, OP, i64, CUSPEC_I64)                                                        \
    SIZES_OFFSETS(OPN, OP, u32, CUSPEC_U32)
SIZES_OFFSETS_OP(sum, OP_SUM)
SIZES_OFFSETS_OP(min, OP_MIN)
SIZES_OFFSETS_OP(max, OP_MAX)
SIZES_OFFSETS_OP(dot, OP_DOT)

/* ## Without a record, the loads go through L1 from 32 MB read, and
 * below where the size's row says (src/reduce.c) */
TEST(untuned_calls_load_through_l1_from_32_mb)
{
    static const struct {
        int op, dtype;
        size_t n;
        const char *cache;
    } cases[] = {
        {CUSPEC_SUM, CUSPEC_F32, (1u << 23) - 1, "cache=0"},
        {CUSPEC_SUM, CUSPEC_F32, 1u << 23, "cache=1"},
        {CUSPEC_ARGMAX, CUSPEC_F32, 1u << 28, "cache=1"},
        {CUSPEC_MAX, CUSPEC_I8, 1u << 24, "cache=0"},
        {CUSPEC_MAX, CUSPEC_I8, 1u << 25, "cache=1"},
        {-1, CUSPEC_F64, 1u << 21, "cache=1"},       /* dot: two inputs of 16 MB */
        {-1, CUSPEC_F64, (1u << 21) - 1, "cache=1"}, /* the row: f64 dots above 1 MB */
        {-1, CUSPEC_F64, (1u << 17) + 1, "cache=1"},
        {-1, CUSPEC_F64, 1u << 17, "cache=0"},
        {CUSPEC_SUM, CUSPEC_F32, (1u << 19) + 1, "cache=1"}, /* the row: 2-4 MB */
        {CUSPEC_SUM, CUSPEC_F32, 1u << 19, "cache=0"},
    };
    if (!ready())
        return;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        cuspec_tune_spec spec = {
            .family = "reduce", .op = cases[i].op, .dtype = cases[i].dtype, .n = cases[i].n};
        char params[256];
        int from_record = -1;
        CHECK_INT_EQ(cuspec_tuned_params(ctx, &spec, params, sizeof params, &from_record),
                     CUSPEC_OK);
        CHECK_INT_EQ(from_record, 0);
        CHECK_STR_CONTAINS(params, cases[i].cache);
    }
}

/* ## n = 0: the identity */
TEST(identity_at_n0)
{
    if (!ready())
        return;
    group_begin();
    for (int op = 0; op < N_OPS; op++)
        for (size_t d = 0; d < N_DTYPES; d++) {
            int dtype = dtypes[d];
            struct want w;
            reference(op, dtype, NULL, NULL, 0, &w); /* the identity */
            /* Spell the policy out as well, so the reference cannot drift. */
            unsigned char want[8] = {0};
            float f = op == OP_MIN ? INFINITY : -INFINITY;
            double g = op == OP_MIN ? (double)INFINITY : -(double)INFINITY;
            int32_t i32 = op == OP_MIN ? INT32_MAX : INT32_MIN;
            int64_t i64 = op == OP_MIN ? INT64_MAX : INT64_MIN;
            uint32_t u32 = op == OP_MIN ? UINT32_MAX : 0;
            if (op == OP_MIN || op == OP_MAX) {
                switch (dtype) {
                case CUSPEC_F32:
                    memcpy(want, &f, 4);
                    break;
                case CUSPEC_F64:
                    memcpy(want, &g, 8);
                    break;
                case CUSPEC_I32:
                    memcpy(want, &i32, 4);
                    break;
                case CUSPEC_I64:
                    memcpy(want, &i64, 8);
                    break;
                case CUSPEC_U32:
                    memcpy(want, &u32, 4);
                    break;
                }
            }
            CHECK(w.approx == 0);
            CHECK_UINT_EQ(w.size, cuspec_dtype_size(out_dtype(op, dtype)));
            CHECK(memcmp(w.bytes, want, w.size) == 0);
            check_public(op, dtype, 0, 1, 2);
        }
    group_end();
}

/* ## NaN: float min/max propagate it */
TEST(nan_propagates_min_max)
{
    if (!ready())
        return;
    group_begin();
    static const int fdt[] = {CUSPEC_F32, CUSPEC_F64};
    const size_t sizes[] = {1, 1025, (1u << 20) + 7, 1u << 24};
    for (size_t d = 0; d < 2; d++)
        for (int op = OP_MIN; op <= OP_MAX; op++)
            for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
                size_t n = sizes[s], es = cuspec_dtype_size(fdt[d]);
                size_t where[] = {0, n - 1, n / 2, (size_t)(rng_next() % n)};
                size_t n_where = n >= 4 ? 4 : 1;
                for (size_t k = 0; k < n_where; k++) {
                    size_t off = (s + k) % 4, pos = where[k];
                    fill_random(fdt[d], h_a, n + 3);
                    if (fdt[d] == CUSPEC_F32)
                        ((float *)h_a)[off + pos] = NAN;
                    else
                        ((double *)h_a)[off + pos] = NAN;
                    upload(d_a, h_a, (n + 3) * es);
                    poison_out(d_out);
                    int rc = cuspec_reduce(ctx, op, fdt[d], d_a + off * es, n, d_out, NULL);
                    unsigned char got[OUT_BYTES];
                    if (rc != CUSPEC_OK) {
                        CASE_FAIL("%s %s n=%zu: %s: %s", op_name(op), cuspec_dtype_name(fdt[d]), n,
                                  cuspec_strerror(rc), cuspec_last_error());
                        continue;
                    }
                    CU_OK(drv->cuMemcpyDtoH(got, d_out, OUT_BYTES));
                    double v;
                    if (fdt[d] == CUSPEC_F32) {
                        float f;
                        memcpy(&f, got, 4);
                        v = f;
                    } else {
                        memcpy(&v, got, 8);
                    }
                    if (!isnan(v)) {
                        char gs[96];
                        format_value(fdt[d], got, gs, sizeof gs);
                        CASE_FAIL("%s %s n=%zu offset %zu, NaN at %zu: got %s, want NaN",
                                  op_name(op), cuspec_dtype_name(fdt[d]), n, off, pos, gs);
                    }
                }
            }
    group_end();
}

/* ## Bad arguments: an error, its detail, nothing launched */
/* After a call that wrote out (a device that reads pageable memory). */
static void poison_default_out(void)
{
    poison_out(d_out);
}

static void expect_invalid(int rc, const char *what, const char *detail)
{
    check_refused(rc, what, detail);
    if (!device_untouched(d_out, OUT_BYTES, POISON))
        CASE_FAIL("%s: out was written (or could not be read back)", what);
    poison_out(d_out);
}

TEST(bad_arguments_rejected)
{
    if (!ready())
        return;
    group_begin();
    const size_t n = 1000;
    fill_random(CUSPEC_F64, h_a, 2 * n);
    upload(d_a, h_a, 2 * n * 8);
    upload(d_b, h_a, 2 * n * 8);
    poison_out(d_out);
    CUdeviceptr a = d_a, b = d_b, out = d_out;
    char what[96];

    expect_invalid(cuspec_reduce(NULL, CUSPEC_SUM, CUSPEC_F32, a, n, out, NULL), "ctx NULL", "ctx");
    expect_invalid(cuspec_reduce(ctx, CUSPEC_SUM, CUSPEC_F32, 0, n, out, NULL), "in NULL",
                   "in is NULL");
    expect_invalid(cuspec_reduce(ctx, CUSPEC_MIN, CUSPEC_I64, a, n, 0, NULL), "out NULL",
                   "out is NULL");
    expect_invalid(cuspec_reduce(ctx, CUSPEC_SUM, CUSPEC_F32, a, 0, 0, NULL), "out NULL, n=0",
                   "out is NULL");
    expect_invalid(cuspec_dot(ctx, CUSPEC_F32, 0, b, n, out, NULL), "dot a NULL", "a is NULL");
    expect_invalid(cuspec_dot(ctx, CUSPEC_F32, a, 0, n, out, NULL), "dot b NULL", "b is NULL");

    /* Unknown ops (-1 is dot, which is no op of cuspec_reduce); argmin and
     * argmax are cuspec_argreduce's. */
    const int bad_ops[] = {-1, 5, 7, 1000};
    for (size_t i = 0; i < sizeof bad_ops / sizeof *bad_ops; i++) {
        snprintf(what, sizeof what, "op %d", bad_ops[i]);
        expect_invalid(cuspec_reduce(ctx, bad_ops[i], CUSPEC_F32, a, n, out, NULL), what,
                       "unknown op");
        snprintf(what, sizeof what, "op %d, n=0", bad_ops[i]);
        expect_invalid(cuspec_reduce(ctx, bad_ops[i], CUSPEC_F32, a, 0, out, NULL), what,
                       "unknown op");
    }
    for (int op = CUSPEC_ARGMIN; op <= CUSPEC_ARGMAX; op++) {
        snprintf(what, sizeof what, "op %d", op);
        expect_invalid(cuspec_reduce(ctx, op, CUSPEC_F32, a, n, out, NULL), what,
                       "call cuspec_argreduce");
    }
    CHECK_INT_EQ(cuspec_reduce_out_dtype(5, CUSPEC_F32), 0);
    CHECK_INT_EQ(cuspec_reduce_out_dtype(-2, CUSPEC_F32), 0);

    /* Unknown dtypes. */
    const int bad_dtypes[] = {0, -1, CUSPEC_BF16 + 1, 999};
    for (size_t i = 0; i < sizeof bad_dtypes / sizeof *bad_dtypes; i++) {
        snprintf(what, sizeof what, "sum dtype %d", bad_dtypes[i]);
        expect_invalid(cuspec_reduce(ctx, CUSPEC_SUM, bad_dtypes[i], a, n, out, NULL), what,
                       "not supported");
        snprintf(what, sizeof what, "dot dtype %d", bad_dtypes[i]);
        expect_invalid(cuspec_dot(ctx, bad_dtypes[i], a, b, n, out, NULL), what, "not supported");
        CHECK_INT_EQ(cuspec_reduce_out_dtype(CUSPEC_SUM, bad_dtypes[i]), 0);
    }

    /* Misaligned for the element (in) or for the result (out). */
    expect_invalid(cuspec_reduce(ctx, CUSPEC_SUM, CUSPEC_F32, a + 1, n, out, NULL), "f32 in+1",
                   "not aligned");
    expect_invalid(cuspec_reduce(ctx, CUSPEC_MAX, CUSPEC_I32, a + 2, n, out, NULL), "i32 in+2",
                   "not aligned");
    expect_invalid(cuspec_reduce(ctx, CUSPEC_MIN, CUSPEC_F64, a + 4, n, out, NULL), "f64 in+4",
                   "not aligned");
    expect_invalid(cuspec_reduce(ctx, CUSPEC_SUM, CUSPEC_I64, a + 1, n, out, NULL), "i64 in+1",
                   "not aligned");
    expect_invalid(cuspec_dot(ctx, CUSPEC_U32, a, b + 1, n, out, NULL), "u32 dot b+1",
                   "not aligned");
    /* i32 sums write an i64: out must be 8-byte aligned. */
    expect_invalid(cuspec_reduce(ctx, CUSPEC_SUM, CUSPEC_I32, a, n, out + 4, NULL), "i32 sum out+4",
                   "not aligned");
    expect_invalid(cuspec_reduce(ctx, CUSPEC_MIN, CUSPEC_F32, a, n, out + 1, NULL), "f32 min out+1",
                   "not aligned");

    /* Host memory from malloc is no device memory. */
    double *host = malloc(n * sizeof *host);
    unsigned char *host_out = malloc(64);
    if (host != NULL && host_out != NULL) {
        for (size_t i = 0; i < n; i++)
            host[i] = 1.0;
        memset(host_out, POISON, 64);
        CUdeviceptr hp = (CUdeviceptr)(uintptr_t)host;
        CUdeviceptr hop = ((CUdeviceptr)(uintptr_t)host_out + 7) & ~(CUdeviceptr)7;
        check_malloc_pointer(cuspec_reduce(ctx, CUSPEC_SUM, CUSPEC_F64, hp, n, out, NULL),
                             "malloc'd in", expect_invalid, poison_default_out);
        if (check_malloc_pointer(cuspec_reduce(ctx, CUSPEC_SUM, CUSPEC_F64, a, n, hop, NULL),
                                 "malloc'd out", expect_invalid, NULL))
            check_host_untouched(host_out, 64, POISON, "malloc'd out");
    } else {
        CASE_FAIL("out of host memory");
    }
    free(host);
    free(host_out);
    group_end();
}

/* ## Sampled legal specializations through cuspec__reduce_variant */
static void variant_text(const struct cuspec__variant *v, char *buf, size_t size)
{
    const struct cuspec__family *f = &cuspec__family_reduce;
    char name[256];
    cuspec__variant_name(v, name, sizeof name);
    int len = snprintf(buf, size, "%s", name);
    for (int i = 0; i < f->n_params && len > 0 && (size_t)len < size; i++)
        len += snprintf(buf + len, size - (size_t)len, " %s=%d", f->params[i].name, v->p[i]);
}

static struct vlist sample; /* what variants_sampled_sizes_offsets runs */

/* Whether v is of this test's dtypes and ops. */
static int ours(const struct cuspec__variant *v)
{
    int dtype_ours = 0;
    for (size_t d = 0; d < N_DTYPES; d++)
        dtype_ours |= v->dtype == dtypes[d];
    return dtype_ours && v->op < N_OPS;
}

/* The defaults and about 40 specializations spread over the legal ones of
 * this test's dtypes and ops (t_gpu_reduce_types has the others), both
 * one- and two-launch ones. */
TEST(kernels_compile)
{
    if (!ready())
        return;
    group_begin();
    int p_single = param_index(&cuspec__family_reduce, "single");
    size_t spread = reduce_sample_compile(ours, 40, &sample);
    int saw[2] = {0, 0};
    for (size_t i = 0; p_single >= 0 && i < spread; i++)
        saw[sample.v[i].p[p_single] != 0] = 1;
    CHECK(saw[0] && saw[1]); /* both one- and two-launch ones spread, not just the defaults */
    group_end();
}

/* ## The sample through cuspec__reduce_variant */
TEST(variants_sampled_sizes_offsets)
{
    static const size_t sizes[] = {0, 1, 1000, (1u << 20) + 3};
    if (!ready())
        return;
    if (sample.n == 0) {
        TAP_FAIL("no sample (kernels_compile failed)");
        return;
    }
    group_begin();
    for (size_t i = 0; i < sample.n; i++) {
        const struct cuspec__variant *v = &sample.v[i];
        int op = v->op, dtype = v->dtype;
        size_t es = cuspec_dtype_size(dtype);
        char vt[400];
        variant_text(v, vt, sizeof vt);
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
            size_t n = sizes[s], off = (i + s) % 4;
            size_t b_off = op == OP_DOT ? (off + i % 2) % 4 : 0;
            fill_random(dtype, h_a, n + 4);
            upload(d_a, h_a, (n + 4) * es);
            if (op == OP_DOT) {
                fill_random(dtype, h_b, n + 4);
                upload(d_b, h_b, (n + 4) * es);
            }
            struct want w;
            reference(op, dtype, h_a + off * es, h_b + b_off * es, n, &w);
            char what[600];
            snprintf(what, sizeof what, "%s n=%zu offset a+%zu b+%zu", vt, n, off, b_off);
            poison_out(d_out);
            int rc = cuspec__reduce_variant(ctx, v, d_a + off * es,
                                            op == OP_DOT ? d_b + b_off * es : 0, n, d_out, NULL);
            if (rc != CUSPEC_OK) {
                CASE_FAIL("%s: %s: %s", what, cuspec_strerror(rc), cuspec_last_error());
                continue;
            }
            unsigned char got[OUT_BYTES];
            CU_OK(drv->cuMemcpyDtoH(got, d_out, OUT_BYTES));
            compare(op, dtype, got, &w, what);
        }
    }
    group_end();
}

/* ## A reduction captured into a CUDA graph, replayed on fresh data */
static void read_on(CUstream s, CUdeviceptr out, unsigned char got[OUT_BYTES])
{
    CU_OK(drv->cuStreamSynchronize(s));
    CU_OK(drv->cuMemcpyDtoH(got, out, OUT_BYTES));
}

TEST(graph_capture_replay)
{
    if (!ready())
        return;
    group_begin();
    CUstream s = NULL;
    CU_OK(drv->cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    if (s == NULL)
        return;
    /* An f32 sum large enough for many blocks (the last-block ticket must
     * come back to 0 for every replay) and an i32 dot with b misaligned
     * differently from a. */
    const size_t n1 = (1u << 22) + 5, n2 = 1000003, off1 = 1, off2a = 2, off2b = 3;
    const CUdeviceptr out1 = d_out, out2 = d_out + 64;
    float *x = (float *)h_a;
    int32_t *ya = (int32_t *)(h_a + (n1 + 8) * 4), *yb = (int32_t *)h_b;
    CUdeviceptr dx = d_a, dya = d_a + (n1 + 8) * 4, dyb = d_b;
    unsigned char got[OUT_BYTES];
    struct want w1, w2;

    CUgraph graph = NULL;
    CUgraphExec exec = NULL;
    for (int round = 0; round < 4; round++) {
        fill_random(CUSPEC_F32, x, n1 + off1);
        fill_random(CUSPEC_I32, ya, n2 + off2a);
        fill_random(CUSPEC_I32, yb, n2 + off2b);
        upload(dx, x, (n1 + off1) * 4);
        upload(dya, ya, (n2 + off2a) * 4);
        upload(dyb, yb, (n2 + off2b) * 4);
        reference(OP_SUM, CUSPEC_F32, x + off1, NULL, n1, &w1);
        reference(OP_DOT, CUSPEC_I32, ya + off2a, yb + off2b, n2, &w2);
        CU_OK(drv->cuMemsetD8Async(out1, POISON, OUT_BYTES, s));
        CU_OK(drv->cuMemsetD8Async(out2, POISON, OUT_BYTES, s));
        if (round == 0) {
            /* A plain call first: loads the kernels, takes the stream's
             * workspace, looks the parameters up. */
            CUSPEC_OK_(cuspec_reduce(ctx, CUSPEC_SUM, CUSPEC_F32, dx + off1 * 4, n1, out1, s));
            CUSPEC_OK_(cuspec_dot(ctx, CUSPEC_I32, dya + off2a * 4, dyb + off2b * 4, n2, out2, s));
            read_on(s, out1, got);
            compare(OP_SUM, CUSPEC_F32, got, &w1, "plain f32 sum on the stream");
            read_on(s, out2, got);
            compare(OP_DOT, CUSPEC_I32, got, &w2, "plain i32 dot on the stream");

            /* Capture both calls; nothing may run while capturing. */
            CU_OK(drv->cuMemsetD8Async(out1, POISON, OUT_BYTES, s));
            CU_OK(drv->cuMemsetD8Async(out2, POISON, OUT_BYTES, s));
            CU_OK(drv->cuStreamSynchronize(s));
            CU_OK(drv->cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
            CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
            CU_OK(drv->cuStreamIsCapturing(s, &status));
            CHECK_INT_EQ(status, CU_STREAM_CAPTURE_STATUS_ACTIVE);
            int rc1 = cuspec_reduce(ctx, CUSPEC_SUM, CUSPEC_F32, dx + off1 * 4, n1, out1, s);
            int rc2 = cuspec_dot(ctx, CUSPEC_I32, dya + off2a * 4, dyb + off2b * 4, n2, out2, s);
            CUresult end = drv->cuStreamEndCapture(s, &graph);
            if (rc1 != CUSPEC_OK || rc2 != CUSPEC_OK)
                CASE_FAIL("calls under capture: %s / %s: %s", cuspec_strerror(rc1),
                          cuspec_strerror(rc2), cuspec_last_error());
            if (end != CUDA_SUCCESS || graph == NULL) {
                CASE_FAIL("cuStreamEndCapture: CUresult %d", (int)end);
                break;
            }
            CU_OK(drv->cuGraphInstantiateWithFlags(&exec, graph, 0));
            if (exec == NULL)
                break;
            CU_OK(drv->cuStreamSynchronize(s));
            CHECK(device_untouched(d_out, OUT_BYTES, POISON));
            unsigned char got2[OUT_BYTES];
            CU_OK(drv->cuMemcpyDtoH(got2, out2, OUT_BYTES));
            for (int i = 0; i < OUT_BYTES; i++)
                if (got2[i] != POISON) {
                    CASE_FAIL("the captured dot ran while capturing");
                    break;
                }
        }
        /* Replays 1..3 on the data written this round; round 0 replays
         * what was captured on the first data. */
        CU_OK(drv->cuGraphLaunch(exec, s));
        char what[64];
        read_on(s, out1, got);
        snprintf(what, sizeof what, "graph replay %d: f32 sum n=%zu", round, n1);
        compare(OP_SUM, CUSPEC_F32, got, &w1, what);
        read_on(s, out2, got);
        snprintf(what, sizeof what, "graph replay %d: i32 dot n=%zu", round, n2);
        compare(OP_DOT, CUSPEC_I32, got, &w2, what);
    }
    if (exec != NULL)
        CU_OK(drv->cuGraphExecDestroy(exec));
    if (graph != NULL)
        CU_OK(drv->cuGraphDestroy(graph));
    CU_OK(drv->cuStreamDestroy(s));
    group_end();
}

/* ## Chains: each call reads what the one before wrote
 * On sm_90 and later the sums (and copies up to CUSPEC__PDL_COPY_BYTES) launch
 * with programmatic stream serialization: a kernel's blocks may be placed
 * before the one before it has finished, and each must wait for it before
 * touching memory. Eight rounds of cuspec_copy of a fresh input into one
 * buffer, then a sum of that buffer, back to back on one stream: a sum that
 * read early would see the round before's bytes, a copy that wrote early
 * would change the bytes a sum still reads. Then the same captured in a
 * graph. */
struct copy_sum {
    CUdeviceptr buf, outs;
    size_t n;
    int dtype; /* 4 bytes */
    struct want w[8];
};

static void copy_sum_chain(CUstream s, void *user)
{
    const struct copy_sum *c = user;
    for (int k = 0; k < 8; k++) {
        CUdeviceptr in = d_a + (CUdeviceptr)k * c->n * 4, out = c->outs + (CUdeviceptr)k * OUT_BYTES;
        int rc = cuspec_copy(ctx, c->buf, in, c->n * 4, s);
        if (rc == CUSPEC_OK)
            rc = cuspec_reduce(ctx, CUSPEC_SUM, c->dtype, c->buf, c->n, out, s);
        if (rc != CUSPEC_OK) {
            CASE_FAIL("round %d of the chain: %s: %s", k, cuspec_strerror(rc), cuspec_last_error());
            return;
        }
    }
}

static void copy_sum_poison(CUstream s, void *user)
{
    const struct copy_sum *c = user;
    CU_OK(drv->cuMemsetD8Async(c->outs, POISON, 8 * OUT_BYTES, s));
    CU_OK(drv->cuMemsetD8Async(c->buf, POISON, c->n * 4, s));
}

static void copy_sum_check(const char *how, void *user)
{
    const struct copy_sum *c = user;
    unsigned char got[8 * OUT_BYTES];
    CU_OK(drv->cuMemcpyDtoH(got, c->outs, sizeof got));
    for (int k = 0; k < 8; k++) {
        char what[96];
        snprintf(what, sizeof what, "%s: %s sum of %zu copied, round %d", how,
                 cuspec_dtype_name(c->dtype), c->n, k);
        compare(OP_SUM, c->dtype, got + k * OUT_BYTES, &c->w[k], what);
    }
}

/* The chain on 8 fresh inputs of n (in d_a) copied through buf, into d_out;
 * a dtype of 4 bytes, as struct copy_sum's. */
static void copy_sum_run(CUdeviceptr buf, size_t n, int dtype)
{
    struct copy_sum c = {.buf = buf, .outs = d_out, .n = n, .dtype = dtype};
    for (int k = 0; k < 8; k++) {
        void *x = (int32_t *)h_a + (size_t)k * n;
        fill_random(dtype, x, n);
        reference(OP_SUM, dtype, x, NULL, n, &c.w[k]);
    }
    upload(d_a, h_a, 8 * n * 4);
    const struct gpu_chain chain = {copy_sum_poison, copy_sum_chain, copy_sum_check, &c};
    gpu_chain_run(&chain);
}

TEST(chained_copy_then_sum)
{
    if (!ready())
        return;
    group_begin();
    /* Kernels compiled for this device wait, and say so, from sm_90 on. */
    gpu_check_pdl(ctx, CUSPEC__FAM_REDUCE, CUSPEC_I32, OP_SUM);

    /* 8 inputs of n in d_a, the buffer in d_b. The sums launch
     * programmatically at every size, the copies up to CUSPEC__PDL_COPY_BYTES:
     * both, then the sums alone (i32 in one launch; f32 in two, the first
     * placed early behind the copy, the second behind the first). */
    static const struct {
        int dtype;
        size_t n;
    } rounds[3] = {{CUSPEC_I32, 300007}, {CUSPEC_I32, 3000017}, {CUSPEC_F32, 3000017}};
    CHECK(2 * rounds[0].n * 4 <= CUSPEC__PDL_COPY_BYTES &&
          2 * rounds[1].n * 4 > CUSPEC__PDL_COPY_BYTES);
    for (int i = 0; i < 3; i++)
        copy_sum_run(d_b, rounds[i].n, rounds[i].dtype);
    group_end();
}

/* ## Two streams at once */
TEST(two_streams_concurrent)
{
    if (!ready())
        return;
    group_begin();
    enum { ROUNDS = 8, SLOT = 64 };
    CUstream st[2] = {NULL, NULL};
    CU_OK(drv->cuStreamCreate(&st[0], CU_STREAM_NON_BLOCKING));
    CU_OK(drv->cuStreamCreate(&st[1], CU_STREAM_NON_BLOCKING));
    const size_t nf = (1u << 24) + 1, nd = (1u << 21) + 3;
    float *hx[2] = {NULL, NULL};
    double *hy[2] = {NULL, NULL};
    CUdeviceptr dx[2] = {0, 0}, dy[2] = {0, 0}, outs = 0;
    struct want wf[2], wd[2];
    int ok = st[0] != NULL && st[1] != NULL;
    for (int k = 0; k < 2 && ok; k++) {
        hx[k] = malloc(nf * sizeof(float));
        hy[k] = malloc(2 * nd * sizeof(double));
        ok = hx[k] != NULL && hy[k] != NULL &&
             drv->cuMemAlloc(&dx[k], nf * sizeof(float)) == CUDA_SUCCESS &&
             drv->cuMemAlloc(&dy[k], 2 * nd * sizeof(double)) == CUDA_SUCCESS;
        if (!ok)
            break;
        fill_random(CUSPEC_F32, hx[k], nf);
        fill_random(CUSPEC_F64, hy[k], 2 * nd);
        upload(dx[k], hx[k], nf * sizeof(float));
        upload(dy[k], hy[k], 2 * nd * sizeof(double));
        reference(OP_SUM, CUSPEC_F32, hx[k], NULL, nf, &wf[k]);
        reference(OP_DOT, CUSPEC_F64, hy[k], hy[k] + nd, nd, &wd[k]);
    }
    ok = ok && drv->cuMemAlloc(&outs, 2 * 2 * ROUNDS * SLOT) == CUDA_SUCCESS;
    if (!ok) {
        CASE_FAIL("could not set up the streams and buffers");
    } else {
        CU_OK(drv->cuMemsetD8(outs, POISON, 2 * 2 * ROUNDS * SLOT));
        CU_OK(drv->cuCtxSynchronize());
        /* Interleaved: both streams have work queued at once. */
        for (int r = 0; r < ROUNDS; r++)
            for (int k = 0; k < 2; k++) {
                CUdeviceptr o = outs + (CUdeviceptr)((k * ROUNDS + r) * 2 * SLOT);
                CUSPEC_OK_(cuspec_reduce(ctx, CUSPEC_SUM, CUSPEC_F32, dx[k], nf, o, st[k]));
                CUSPEC_OK_(cuspec_dot(ctx, CUSPEC_F64, dy[k], dy[k] + nd * 8, nd, o + SLOT, st[k]));
            }
        CU_OK(drv->cuStreamSynchronize(st[0]));
        CU_OK(drv->cuStreamSynchronize(st[1]));
        unsigned char all[2 * 2 * ROUNDS * SLOT];
        CU_OK(drv->cuMemcpyDtoH(all, outs, sizeof all));
        for (int k = 0; k < 2; k++)
            for (int r = 0; r < ROUNDS; r++) {
                unsigned char *g = all + (k * ROUNDS + r) * 2 * SLOT;
                unsigned char *g0 = all + (k * ROUNDS) * 2 * SLOT;
                char what[96];
                unsigned char got[OUT_BYTES];
                memcpy(got, g, OUT_BYTES);
                snprintf(what, sizeof what, "stream %d round %d: f32 sum n=%zu", k, r, nf);
                compare(OP_SUM, CUSPEC_F32, got, &wf[k], what);
                memcpy(got, g + SLOT, OUT_BYTES);
                snprintf(what, sizeof what, "stream %d round %d: f64 dot n=%zu", k, r, nd);
                compare(OP_DOT, CUSPEC_F64, got, &wd[k], what);
                /* Same kernel, same input, same grid: bitwise the same. */
                if (memcmp(g, g0, 8) != 0 || memcmp(g + SLOT, g0 + SLOT, 8) != 0)
                    CASE_FAIL("stream %d round %d differs from round 0", k, r);
            }
    }
    for (int k = 0; k < 2; k++) {
        if (dx[k])
            drv->cuMemFree(dx[k]);
        if (dy[k])
            drv->cuMemFree(dy[k]);
        free(hx[k]);
        free(hy[k]);
        if (st[k])
            CU_OK(drv->cuStreamDestroy(st[k]));
    }
    if (outs)
        drv->cuMemFree(outs);
    group_end();
}

/* ## Inputs in mapped host memory
 * Calls that read pinned host memory through its device address, each
 * twice back to back on one stream (on sm_90 the second launches
 * programmatically and its blocks ask the L2 for their first tile, here
 * host memory, before the first call ends; the f32 dot's a and b are
 * misaligned differently); then sums that read what a copy just wrote
 * there, as chained_copy_then_sum. */
TEST(inputs_in_mapped_host_memory)
{
    if (!ready())
        return;
    group_begin();
    gpu_check_pdl(ctx, CUSPEC__FAM_REDUCE, CUSPEC_F32, OP_SUM);
    static const struct {
        int op, dtype;
        size_t n, off;
    } cases[] = {{OP_SUM, CUSPEC_F32, 3000017, 1}, {OP_SUM, CUSPEC_F64, 524289, 0},
                 {OP_DOT, CUSPEC_F32, 300007, 1}, {OP_MAX, CUSPEC_I32, 3000017, 3}};
    const size_t cap = 2 * (3000017 + 8) * 8;
    void *host = NULL;
    CUdeviceptr dev = 0;
    if (drv->cuMemHostAlloc(&host, cap, CU_MEMHOSTALLOC_DEVICEMAP) != CUDA_SUCCESS ||
        drv->cuMemHostGetDevicePointer(&dev, host, 0) != CUDA_SUCCESS) {
        TAP_FAIL("cuMemHostAlloc or cuMemHostGetDevicePointer failed");
        if (host)
            drv->cuMemFreeHost(host);
        group_end();
        return;
    }
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const size_t es = cuspec_dtype_size(cases[i].dtype), n = cases[i].n;
        unsigned char *a = (unsigned char *)host + cases[i].off * es, *b = a + (n + 8) * es;
        fill_random(cases[i].dtype, a, n);
        fill_random(cases[i].dtype, b, n);
        struct want w;
        reference(cases[i].op, cases[i].dtype, a, b, n, &w);
        const CUdeviceptr da = dev + cases[i].off * es, db = da + (n + 8) * es;
        CU_OK(drv->cuMemsetD8(d_out, POISON, 2 * OUT_BYTES));
        int rc = call_public(cases[i].op, cases[i].dtype, da, db, n, d_out, NULL);
        if (rc == CUSPEC_OK)
            rc = call_public(cases[i].op, cases[i].dtype, da, db, n, d_out + OUT_BYTES, NULL);
        char what[96];
        snprintf(what, sizeof what, "%s %s n=%zu in mapped host memory", op_name(cases[i].op),
                 cuspec_dtype_name(cases[i].dtype), n);
        if (rc != CUSPEC_OK) {
            CASE_FAIL("%s: %s: %s", what, cuspec_strerror(rc), cuspec_last_error());
            continue;
        }
        unsigned char got[2 * OUT_BYTES];
        CU_OK(drv->cuMemcpyDtoH(got, d_out, sizeof got));
        compare(cases[i].op, cases[i].dtype, got, &w, what);
        compare(cases[i].op, cases[i].dtype, got + OUT_BYTES, &w, what);
    }
    copy_sum_run(dev, 300007, CUSPEC_F32);
    drv->cuMemFreeHost(host);
    group_end();
}

int main(void)
{
    if (gpu_cases_setup()) {
        size_t a_bytes = MAX_ELEMS * 4 > MAX_B_ELEMS * 8 ? MAX_ELEMS * 4 : MAX_B_ELEMS * 8;
        h_a = malloc(a_bytes);
        h_b = malloc(MAX_B_ELEMS * 8);
        CUresult r = drv->cuMemAlloc(&d_a, a_bytes);
        if (r == CUDA_SUCCESS)
            r = drv->cuMemAlloc(&d_b, MAX_B_ELEMS * 8);
        if (r == CUDA_SUCCESS)
            r = drv->cuMemAlloc(&d_out, 256);
        if (r != CUDA_SUCCESS)
            printf("# cuMemAlloc: CUresult %d\n", (int)r);
    }

    static const struct tap_test tests[] = {
        TAP_ENTRY(kernels_compile),
        TAP_ENTRY(sum_f32_sizes_offsets),
        TAP_ENTRY(sum_f64_sizes_offsets),
        TAP_ENTRY(sum_i32_sizes_offsets),
        TAP_ENTRY(sum_i64_sizes_offsets),
        TAP_ENTRY(sum_u32_sizes_offsets),
        TAP_ENTRY(min_f32_sizes_offsets),
        TAP_ENTRY(min_f64_sizes_offsets),
        TAP_ENTRY(min_i32_sizes_offsets),
        TAP_ENTRY(min_i64_sizes_offsets),
        TAP_ENTRY(min_u32_sizes_offsets),
        TAP_ENTRY(max_f32_sizes_offsets),
        TAP_ENTRY(max_f64_sizes_offsets),
        TAP_ENTRY(max_i32_sizes_offsets),
        TAP_ENTRY(max_i64_sizes_offsets),
        TAP_ENTRY(max_u32_sizes_offsets),
        TAP_ENTRY(dot_f32_sizes_offsets),
        TAP_ENTRY(dot_f64_sizes_offsets),
        TAP_ENTRY(dot_i32_sizes_offsets),
        TAP_ENTRY(dot_i64_sizes_offsets),
        TAP_ENTRY(dot_u32_sizes_offsets),
        TAP_ENTRY(untuned_calls_load_through_l1_from_32_mb),
        TAP_ENTRY(identity_at_n0),
        TAP_ENTRY(nan_propagates_min_max),
        TAP_ENTRY(bad_arguments_rejected),
        TAP_ENTRY(variants_sampled_sizes_offsets),
        TAP_ENTRY(graph_capture_replay),
        TAP_ENTRY(two_streams_concurrent),
        TAP_ENTRY(chained_copy_then_sum),
        TAP_ENTRY(inputs_in_mapped_host_memory),
    };
    int rc = tap_run(tests, sizeof tests / sizeof *tests);

    if (d_a)
        drv->cuMemFree(d_a);
    if (d_b)
        drv->cuMemFree(d_b);
    if (d_out)
        drv->cuMemFree(d_out);
    free(h_a);
    free(h_b);
    free(sample.v);
    if (ctx != NULL) {
        cuspec__ctx_leave(ctx, ctx_pushed);
        cuspec_ctx_destroy(ctx);
    }
    remove_store();
    return rc;
}
