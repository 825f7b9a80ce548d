/* GPU: the reductions of the narrow and 64-bit unsigned types (f16, bf16,
 * i8, u8, i16, u16, u64: sum, min, max, dot) and argmin/argmax of every
 * dtype, against a CPU reference.
 *
 * Through the public calls: n = 0, 1, 31, 1000, 2^20 + 3 with the input
 * 0..3 elements into its allocation, and 2^27 at 3; integers exact, f16
 * and bf16 sums and dots within 200 * 2^-24 * sum|x*y| of a long double
 * reference (they accumulate in f32: templates/reduce.cuh gives the bound),
 * float min/max by value (NaN for NaN; which zero is unspecified), argmin
 * and argmax by index and the bytes of the element there. Then ties (the
 * smallest index), NaN (the first NaN's index; min/max propagate it), -0.0
 * against +0.0, arrays holding only the identity's value (+inf for argmin),
 * i8 and u8 argmin/argmax around 2^31 elements,
 * argreduce's arguments, a sample of every legal specialization of these
 * types and ops through cuspec__reduce_variant, and argmax and an f16 sum
 * captured in a graph and replayed 100 times.
 *
 * One process, one context; kernels compiled by NVRTC into a private store. */
#include "gpu.h"
#include "gpu_cases.h"
#include "reduce.h"
#include "compile.h"
#include "reduce_sample.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { K_SUM, K_MIN, K_MAX, K_DOT, K_ARGMIN, K_ARGMAX, N_KOPS }; /* kernel ops */

/* The public op of a kernel op, as cuspec_reduce_out_dtype takes it (dot: -1). */
static int public_op(int kop)
{
    static const int ops[N_KOPS] = {CUSPEC_SUM, CUSPEC_MIN,    CUSPEC_MAX,
                                    -1,         CUSPEC_ARGMIN, CUSPEC_ARGMAX};
    return ops[kop];
}

#define BIG_N ((size_t)1 << 27)
#define CAP (BIG_N + 64) /* elements of d_a, d_b, h_a, h_b (8 bytes each at most) */
#define OUT_BYTES 32     /* poisoned at out: value, then the index at out + 8 */
#define POISON 0xA5

static CUdeviceptr d_a, d_b, d_out;
static unsigned char *h_a, *h_b;

static const char *const kop_names[N_KOPS] = {"sum", "min", "max", "dot", "argmin", "argmax"};

static int is_arg(int kop)
{
    return kop == K_ARGMIN || kop == K_ARGMAX;
}

static int is_float(int dt)
{
    return dt == CUSPEC_F32 || dt == CUSPEC_F64 || dt == CUSPEC_F16 || dt == CUSPEC_BF16;
}

static int is_signed_int(int dt)
{
    return dt == CUSPEC_I8 || dt == CUSPEC_I16 || dt == CUSPEC_I32 || dt == CUSPEC_I64;
}

/* ## Host values */
static double half_value(uint16_t h)
{
    int e = h >> 10 & 0x1f, m = h & 0x3ff;
    double v = e == 0 ? ldexp(m, -24) : e < 31 ? ldexp(m + 1024, e - 25) : m ? NAN : INFINITY;
    return h >> 15 ? -v : v;
}

/* Element i of a float dtype as a double (exact). */
static double fget(int dt, const void *p, size_t i)
{
    const unsigned char *b = (const unsigned char *)p + i * cuspec_dtype_size(dt);
    uint16_t h;
    uint32_t u;
    float f;
    double d;
    switch (dt) {
    case CUSPEC_F16:
        memcpy(&h, b, 2);
        return half_value(h);
    case CUSPEC_BF16:
        memcpy(&h, b, 2);
        u = (uint32_t)h << 16;
        memcpy(&f, &u, 4);
        return f;
    case CUSPEC_F32:
        memcpy(&f, b, 4);
        return f;
    }
    memcpy(&d, b, 8);
    return d;
}

/* Element i of an integer dtype, sign- or zero-extended to 64 bits. */
static uint64_t iget(int dt, const void *p, size_t i)
{
    const unsigned char *b = (const unsigned char *)p + i * cuspec_dtype_size(dt);
    int8_t i8;
    int16_t i16;
    int32_t i32;
    uint16_t u16;
    uint32_t u32;
    uint64_t u64;
    switch (dt) {
    case CUSPEC_I8:
        memcpy(&i8, b, 1);
        return (uint64_t)(int64_t)i8;
    case CUSPEC_U8:
        return *b;
    case CUSPEC_I16:
        memcpy(&i16, b, 2);
        return (uint64_t)(int64_t)i16;
    case CUSPEC_U16:
        memcpy(&u16, b, 2);
        return u16;
    case CUSPEC_I32:
        memcpy(&i32, b, 4);
        return (uint64_t)(int64_t)i32;
    case CUSPEC_U32:
        memcpy(&u32, b, 4);
        return u32;
    }
    memcpy(&u64, b, 8);
    return u64;
}

/* x[i] < x[j] as integers or floats (NaN: never). */
static int below(int dt, const void *x, size_t i, size_t j)
{
    if (is_float(dt))
        return fget(dt, x, i) < fget(dt, x, j);
    if (is_signed_int(dt))
        return (int64_t)iget(dt, x, i) < (int64_t)iget(dt, x, j);
    return iget(dt, x, i) < iget(dt, x, j);
}

static int nan_at(int dt, const void *x, size_t i)
{
    return is_float(dt) && isnan(fget(dt, x, i));
}

/* ## Random inputs */
enum fill { UNIT, SPREAD, FEW };

/* The half k / 1024, |k| <= 1024, as its bits. */
static uint16_t half_bits(int k)
{
    unsigned m = (unsigned)(k < 0 ? -k : k), e = 0;
    if (m == 0)
        return 0;
    while (m >> (e + 1))
        e++;
    return (uint16_t)((k < 0 ? 0x8000u : 0) | (e + 5) << 10 | ((m << (10 - e)) & 0x3ffu));
}

/* count elements of dt: UNIT floats uniform in [-1, 1) (sums stay in range),
 * SPREAD any finite value (subnormals, both zeros, the largest), integers
 * over their whole range either way; FEW four values, so that the extremes
 * come back again and again (ties). */
static void fill(int dt, void *buf, size_t count, enum fill how)
{
    size_t size = cuspec_dtype_size(dt);
    unsigned char *p = buf;
    for (size_t i = 0; i < count; i++, p += size) {
        uint64_t r = rng_next();
        if (how == FEW) {
            int k = (int)(r >> 62);
            double v = 0.5 * k - 0.75; /* exact in every float type */
            float f = (float)v;
            uint32_t u;
            uint64_t w = (uint64_t)k;
            memcpy(&u, &f, 4);
            if (dt == CUSPEC_F16)
                w = half_bits((int)(v * 1024));
            else if (dt == CUSPEC_BF16)
                w = u >> 16;
            else if (dt == CUSPEC_F32)
                w = u;
            else if (dt == CUSPEC_F64)
                memcpy(&w, &v, 8);
            memcpy(p, &w, size);
            continue;
        }
        if (how == UNIT && is_float(dt)) {
            double v = (double)(r >> 11) * 0x1p-52 - 1.0;
            float f = (float)v;
            uint32_t u;
            memcpy(&u, &f, 4);
            if (dt == CUSPEC_F64) {
                memcpy(p, &v, 8);
            } else if (dt == CUSPEC_F32) {
                memcpy(p, &f, 4);
            } else {
                uint16_t h =
                    dt == CUSPEC_BF16 ? (uint16_t)(u >> 16) : half_bits((int)(r >> 53) - 1024);
                memcpy(p, &h, 2);
            }
            continue;
        }
        memcpy(p, &r, size);
        while (nan_at(dt, p, 0) || (is_float(dt) && isinf(fget(dt, p, 0)))) {
            r = rng_next();
            memcpy(p, &r, size);
        }
    }
}

/* ## The CPU's answer */
struct want {
    size_t size;            /* bytes of the result (the value, for argmin/argmax) */
    unsigned char bytes[8]; /* integers; argmin/argmax: the element */
    int approx;             /* float sums and dots: within the bound */
    long double value, scale;
    int by_value; /* float min/max: equal as numbers (or both NaN) */
    double fvalue;
    int64_t index; /* argmin/argmax */
};

static void identity(int kop, int dt, struct want *w)
{
    int odt = cuspec_reduce_out_dtype(public_op(kop), dt);
    w->size = cuspec_dtype_size(odt);
    if (kop == K_SUM || kop == K_DOT)
        return; /* zero bytes: integer, f32 or f64 zero */
    int lo = kop == K_MAX;
    if (is_float(dt)) {
        w->by_value = 1;
        w->fvalue = lo ? -INFINITY : INFINITY;
        return;
    }
    uint64_t v;
    if (dt == CUSPEC_U8 || dt == CUSPEC_U16 || dt == CUSPEC_U32 || dt == CUSPEC_U64)
        v = lo ? 0 : ~0ull;
    else /* the signed type's extreme in its width, little-endian */
        v = lo ? 1ull << (8 * w->size - 1) : ~0ull >> (64 - 8 * w->size + 1);
    memcpy(w->bytes, &v, w->size);
}

static void reference(int kop, int dt, const void *a, const void *b, size_t n, struct want *w)
{
    memset(w, 0, sizeof *w);
    size_t size = cuspec_dtype_size(dt);
    if (n == 0) {
        identity(kop, dt, w);
        return;
    }
    w->size = cuspec_dtype_size(cuspec_reduce_out_dtype(public_op(kop), dt));
    if (kop == K_SUM || kop == K_DOT) {
        if (is_float(dt)) {
            long double s = 0, c = 0, mag = 0;
            for (size_t i = 0; i < n; i++) {
                long double v = (long double)fget(dt, a, i) * (kop == K_DOT ? fget(dt, b, i) : 1);
                long double t = s + v;
                c += fabsl(s) >= fabsl(v) ? (s - t) + v : (v - t) + s;
                s = t;
                mag += fabsl(v);
            }
            w->approx = 1;
            w->value = s + c;
            w->scale = mag;
        } else {
            uint64_t s = 0;
            for (size_t i = 0; i < n; i++)
                s += iget(dt, a, i) * (kop == K_DOT ? iget(dt, b, i) : 1);
            memcpy(w->bytes, &s, 8);
        }
        return;
    }
    /* The first extreme element; a NaN before all (the first one). */
    int low = kop == K_MIN || kop == K_ARGMIN;
    size_t best = 0;
    for (size_t i = 1; i < n && !nan_at(dt, a, best); i++)
        if (nan_at(dt, a, i) || (low ? below(dt, a, i, best) : below(dt, a, best, i)))
            best = i;
    w->index = (int64_t)best;
    memcpy(w->bytes, (const unsigned char *)a + best * size, size);
    if (is_float(dt) && !is_arg(kop)) {
        w->by_value = 1;
        w->fvalue = fget(dt, a, best);
    }
}

/* The result read back (OUT_BYTES of it) against w. Returns 1 when right. */
static int check(int kop, int dt, const unsigned char *got, const struct want *w, const char *what)
{
    int odt = cuspec_reduce_out_dtype(public_op(kop), dt);
    int ok = 1;
    if (w->approx) {
        long double g = fget(odt, got, 0), err = fabsl(g - w->value);
        long double bound = 200 * 0x1p-24L * w->scale;
        if (odt == CUSPEC_F64)
            bound = 200 * 0x1p-53L * w->scale;
        if (!isfinite((double)g) || !(err <= bound)) {
            CASE_FAIL("%s: got %.9Lg, want %.12Lg (|err| %.3Lg > bound %.3Lg)", what, g, w->value,
                      err, bound);
            ok = 0;
        }
    } else if (w->by_value) {
        double g = fget(odt, got, 0);
        if (!(g == w->fvalue || (isnan(g) && isnan(w->fvalue)))) {
            CASE_FAIL("%s: got %.9g, want %.9g", what, g, w->fvalue);
            ok = 0;
        }
    } else if (is_arg(kop) && nan_at(dt, w->bytes, 0)) {
        if (!nan_at(dt, got, 0)) {
            CASE_FAIL("%s: the value is %.9g, want NaN", what, fget(dt, got, 0));
            ok = 0;
        }
    } else if (memcmp(got, w->bytes, w->size) != 0) {
        char gs[64], ws[64];
        if (is_float(odt)) {
            snprintf(gs, sizeof gs, "%.9g", fget(odt, got, 0));
            snprintf(ws, sizeof ws, "%.9g", fget(odt, w->bytes, 0));
        } else {
            snprintf(gs, sizeof gs, "0x%llx", (unsigned long long)iget(odt, got, 0));
            snprintf(ws, sizeof ws, "0x%llx", (unsigned long long)iget(odt, w->bytes, 0));
        }
        CASE_FAIL("%s: got %s, want %s", what, gs, ws);
        ok = 0;
    }
    size_t end = w->size;
    if (is_arg(kop)) {
        int64_t index;
        memcpy(&index, got + 8, 8);
        if (index != w->index) {
            CASE_FAIL("%s: index %lld, want %lld", what, (long long)index, (long long)w->index);
            ok = 0;
        }
        for (size_t i = w->size; i < 8; i++)
            if (got[i] != POISON) {
                CASE_FAIL("%s: byte %zu after the value was written", what, i);
                ok = 0;
            }
        end = 16;
    }
    for (size_t i = end; i < OUT_BYTES; i++)
        if (got[i] != POISON) {
            CASE_FAIL("%s: byte %zu after the result was written (0x%02x)", what, i, got[i]);
            return 0;
        }
    return ok;
}

/* ## Calls */
static void upload(CUdeviceptr dst, const void *src, size_t bytes)
{
    if (bytes > 0)
        CU_OK(drv->cuMemcpyHtoD(dst, src, bytes));
    CU_OK(drv->cuCtxSynchronize());
}

/* The public call of kernel op kop; argmin/argmax write their index at out + 8. */
static int call_public(int kop, int dt, CUdeviceptr a, CUdeviceptr b, size_t n, CUdeviceptr out,
                       CUstream s)
{
    switch (kop) {
    case K_DOT:
        return cuspec_dot(ctx, dt, a, b, n, out, s);
    case K_ARGMIN:
        return cuspec_argreduce(ctx, CUSPEC_ARGMIN, dt, a, n, out, out + 8, s);
    case K_ARGMAX:
        return cuspec_argreduce(ctx, CUSPEC_ARGMAX, dt, a, n, out, out + 8, s);
    }
    return cuspec_reduce(ctx, kop, dt, a, n, out, s);
}

/* One call on h_a/h_b as uploaded (elements from a_off, b_off), through the
 * public API or (v not NULL) a specialization, checked. */
static void run_case(const struct cuspec__variant *v, int kop, int dt, size_t n, size_t a_off,
                     size_t b_off, const char *label)
{
    size_t es = cuspec_dtype_size(dt);
    struct want w;
    reference(kop, dt, h_a + a_off * es, h_b + b_off * es, n, &w);
    char what[512];
    snprintf(what, sizeof what, "%s %s %s n=%zu offset a+%zu b+%zu", label, kop_names[kop],
             cuspec_dtype_name(dt), n, a_off, b_off);
    CU_OK(drv->cuMemsetD8(d_out, POISON, OUT_BYTES));
    CUdeviceptr a = d_a + a_off * es, b = kop == K_DOT ? d_b + b_off * es : 0;
    int rc = v != NULL ? cuspec__reduce_variant(ctx, v, a, b, n, d_out, NULL)
                       : call_public(kop, dt, a, b, n, d_out, NULL);
    if (rc != CUSPEC_OK) {
        CASE_FAIL("%s: %s: %s", what, cuspec_strerror(rc), cuspec_last_error());
        return;
    }
    unsigned char got[OUT_BYTES];
    CU_OK(drv->cuMemcpyDtoH(got, d_out, OUT_BYTES));
    check(kop, dt, got, &w, what);
}

static int ready(void)
{
    if (ctx == NULL || d_a == 0 || d_b == 0 || d_out == 0 || h_a == NULL || h_b == NULL) {
        TAP_FAIL("no context or buffers (see the diagnostics above)");
        return 0;
    }
    return 1;
}

/* Fresh inputs for kop: n + 4 elements of a (and b for dot). */
static void fresh(int kop, int dt, size_t n, enum fill how)
{
    size_t es = cuspec_dtype_size(dt);
    fill(dt, h_a, n + 4, how);
    upload(d_a, h_a, (n + 4) * es);
    if (kop == K_DOT) {
        fill(dt, h_b, n + 4, how);
        upload(d_b, h_b, (n + 4) * es);
    }
}

/* ## The public calls: sizes and offsets */
static const int new_dtypes[] = {CUSPEC_F16, CUSPEC_BF16, CUSPEC_I8, CUSPEC_U8,
                                 CUSPEC_I16, CUSPEC_U16,  CUSPEC_U64};
static const int all_dtypes[] = {CUSPEC_F16, CUSPEC_BF16, CUSPEC_I8,  CUSPEC_U8,
                                 CUSPEC_I16, CUSPEC_U16,  CUSPEC_U64, CUSPEC_F32,
                                 CUSPEC_F64, CUSPEC_I32,  CUSPEC_I64, CUSPEC_U32};
#define N_NEW (sizeof new_dtypes / sizeof *new_dtypes)
#define N_ALL (sizeof all_dtypes / sizeof *all_dtypes)

static void sizes_offsets(int kop, const int *dts, size_t n_dts)
{
    /* For 1- to 8-byte elements, every shape a call without a record takes
     * (src/reduce.c, fit) among them. */
    static const size_t sizes[] = {1, 31, 1000, 5000, 20000, 100000, 400000, (1u << 20) + 3};
    if (!ready())
        return;
    group_begin();
    for (size_t d = 0; d < n_dts; d++) {
        int dt = dts[d];
        /* sums: values whose sum stays in range; the others: any value */
        enum fill how = kop == K_SUM || kop == K_DOT ? UNIT : SPREAD;
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
            fresh(kop, dt, sizes[s], how);
            for (size_t off = 0; off < 4; off++)
                run_case(NULL, kop, dt, sizes[s], off, kop == K_DOT ? off * 3 % 4 : 0, "public");
        }
        fresh(kop, dt, BIG_N, how);
        run_case(NULL, kop, dt, BIG_N, 3, 3, "public");
        if (kop == K_DOT)
            run_case(NULL, kop, dt, BIG_N, 3, 1, "public");
    }
    group_end();
}

TEST(sum_new_dtypes)
{
    sizes_offsets(K_SUM, new_dtypes, N_NEW);
}
TEST(min_new_dtypes)
{
    sizes_offsets(K_MIN, new_dtypes, N_NEW);
}
TEST(max_new_dtypes)
{
    sizes_offsets(K_MAX, new_dtypes, N_NEW);
}
TEST(dot_new_dtypes)
{
    sizes_offsets(K_DOT, new_dtypes, N_NEW);
}
TEST(argmin_every_dtype)
{
    sizes_offsets(K_ARGMIN, all_dtypes, N_ALL);
}
TEST(argmax_every_dtype)
{
    sizes_offsets(K_ARGMAX, all_dtypes, N_ALL);
}

/* ## n = 0: the identity of the reductions, an error for argreduce */
TEST(n0_identity_and_argreduce_refusal)
{
    if (!ready())
        return;
    group_begin();
    /* The identities spelled out for two types, so that the reference
     * cannot drift: f16 min is +inf (0x7c00), i8 max is -128. */
    struct want w;
    identity(K_MIN, CUSPEC_F16, &w);
    CHECK(w.by_value && w.fvalue == INFINITY);
    CHECK(half_value(0x7c00) == INFINITY);
    identity(K_MAX, CUSPEC_I8, &w);
    CHECK_UINT_EQ(w.size, 1);
    CHECK_INT_EQ(w.bytes[0], 0x80);
    identity(K_SUM, CUSPEC_U16, &w);
    CHECK_UINT_EQ(w.size, 8);
    for (size_t d = 0; d < N_NEW; d++)
        for (int kop = K_SUM; kop <= K_DOT; kop++)
            run_case(NULL, kop, new_dtypes[d], 0, 1, 2, "public");
    CU_OK(drv->cuMemsetD8(d_out, POISON, OUT_BYTES));
    for (size_t d = 0; d < N_ALL; d++)
        for (int op = CUSPEC_ARGMIN; op <= CUSPEC_ARGMAX; op++) {
            int rc = cuspec_argreduce(ctx, op, all_dtypes[d], d_a, 0, d_out, d_out + 8, NULL);
            check_refused(rc, "argreduce n=0", "n is 0");
            if (!device_untouched(d_out, OUT_BYTES, POISON))
                CASE_FAIL("argreduce n=0 wrote its outputs");
        }
    group_end();
}

/* ## Ties, NaN, zeros, the identity's value */
/* argmin/argmax of every dtype on FEW values (the extreme many times):
 * the first index. With 2^24 + 1 elements each thread's scan of its loads
 * (templates/reduce.cuh) sees the extreme in loads of several grid passes
 * (at least 1.7 passes of bytes, more of wider types, on GPUs of up to 144
 * SMs: a pass is 4 blocks of 256 threads an SM, 4 loads of 16 bytes each);
 * that size in two offsets only. */
TEST(ties_give_the_smallest_index)
{
    static const size_t sizes[] = {2, 1000, (1u << 20) + 3, (1u << 24) + 1};
    const size_t n_sizes = sizeof sizes / sizeof *sizes;
    if (!ready())
        return;
    group_begin();
    for (size_t d = 0; d < N_ALL; d++)
        for (size_t s = 0; s < n_sizes; s++)
            for (int kop = K_ARGMIN; kop <= K_ARGMAX; kop++) {
                fresh(kop, all_dtypes[d], sizes[s], FEW);
                for (size_t off = 0; off < 4; off += s + 1 < n_sizes ? 1 : 3)
                    run_case(NULL, kop, all_dtypes[d], sizes[s], off, 0, "ties");
            }
    group_end();
}

/* Writes `value` (a double the float dtype holds) at element i of h_a. */
static void put_float(int dt, size_t i, double value)
{
    unsigned char *p = h_a + i * cuspec_dtype_size(dt);
    float f = (float)value;
    uint32_t u;
    memcpy(&u, &f, 4);
    uint16_t h = (uint16_t)(u >> 16); /* bf16; f16 below */
    if (dt == CUSPEC_F16)
        h = isnan(value)   ? 0x7e00
            : isinf(value) ? (value < 0 ? 0xfc00 : 0x7c00)
            : value == 0   ? (signbit(value) ? 0x8000 : 0)
                           : half_bits((int)(value * 1024));
    if (dt == CUSPEC_F64)
        memcpy(p, &value, 8);
    else if (dt == CUSPEC_F32)
        memcpy(p, &f, 4);
    else
        memcpy(p, &h, 2);
}

static const int float_dtypes[] = {CUSPEC_F16, CUSPEC_BF16, CUSPEC_F32, CUSPEC_F64};

/* NaNs at random places (several): argmin and argmax give the first one's
 * index and a NaN; min and max a NaN. */
TEST(nan_wins)
{
    const size_t sizes[] = {1, 1000, (1u << 20) + 3, BIG_N};
    if (!ready())
        return;
    group_begin();
    for (size_t d = 0; d < 4; d++)
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
            int dt = float_dtypes[d];
            size_t n = sizes[s], off = (d + s) % 4;
            fill(dt, h_a, n + 4, SPREAD);
            size_t first = (size_t)(rng_next() % n);
            put_float(dt, off + first, NAN);
            for (int k = 0; k < 3; k++) /* more NaNs after the first */
                put_float(dt, off + first + (size_t)(rng_next() % (n - first)), NAN);
            upload(d_a, h_a, (n + 4) * cuspec_dtype_size(dt));
            for (int kop = K_MIN; kop <= K_ARGMAX; kop++)
                if (kop != K_DOT)
                    run_case(NULL, kop, dt, n, off, 0, "NaN");
        }
    group_end();
}

/* Only zeros, of both signs: equal, so argmin and argmax give index 0 (its
 * bytes: -0.0 where the first is), min and max a zero. Only +inf (min,
 * argmin) or -inf (max, argmax), or an integer type's largest (smallest)
 * value: the identity's value, which any element must still win, at index
 * 0 (min and max combine their blocks in a word that
 * starts at the worst key: templates/reduce.cuh). */
TEST(signed_zeros_and_identity_values)
{
    const size_t sizes[] = {1, 1000, (1u << 20) + 3};
    if (!ready())
        return;
    group_begin();
    for (size_t d = 0; d < N_ALL; d++)
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
            for (int kop = K_MIN; kop <= K_ARGMAX; kop++) {
                if (kop == K_DOT)
                    continue;
                int dt = all_dtypes[d];
                size_t n = sizes[s], es = cuspec_dtype_size(dt), off = s % 4;
                const int low = kop == K_MIN || kop == K_ARGMIN;
                if (is_float(dt)) {
                    for (size_t i = 0; i < n + 4; i++)
                        put_float(dt, i, rng_next() & 1 ? -0.0 : 0.0);
                    upload(d_a, h_a, (n + 4) * es);
                    run_case(NULL, kop, dt, n, off, 0, "zeros");
                    for (size_t i = 0; i < n + 4; i++)
                        put_float(dt, i, low ? INFINITY : -INFINITY);
                } else {
                    struct want w;
                    identity(low ? K_MIN : K_MAX, dt, &w);
                    for (size_t i = 0; i < n + 4; i++)
                        memcpy(h_a + i * es, w.bytes, es);
                }
                upload(d_a, h_a, (n + 4) * es);
                run_case(NULL, kop, dt, n, off, 0, "identity's value");
            }
    group_end();
}

/* ## Each lane of a load */
/* Element i of h_a set to `value` (which dt holds exactly). */
static void put_value(int dt, size_t i, double value)
{
    if (is_float(dt)) {
        put_float(dt, i, value);
        return;
    }
    int64_t v = (int64_t)value;
    memcpy(h_a + i * cuspec_dtype_size(dt), &v, cuspec_dtype_size(dt)); /* little-endian */
}

/* The kernels take each 16-byte load's extreme with packed operations
 * (8-bit elements widened, signed or not, two to a 16-bit lane) and search
 * the lanes of the load holding the best once, at the end. Here n = 1000
 * elements of a background value, the input aligned to 16 bytes or one
 * element past; for each lane L of the sixth load: the extreme at L alone
 * (argmin, argmax, min, max); tied with a later lane of the same load and
 * with lane L of the next two loads (the first wins); and for floats, the
 * best number just before lane L, a NaN at L and at a later lane (the NaN
 * at L wins). The values tell a sign-extended lane from a zero-extended one:
 * for max, background -50 and extreme 100 for signed types, 100 and 200 for
 * unsigned ones; for min, 50 and -100, 200 and 100; floats -0.5 and 2, 0.5
 * and -2. */
TEST(each_lane_of_a_load)
{
    static const int kops[] = {K_ARGMIN, K_ARGMAX, K_MIN, K_MAX};
    const size_t n = 1000;
    if (!ready())
        return;
    group_begin();
    for (size_t d = 0; d < N_ALL; d++)
        for (size_t o = 0; o < sizeof kops / sizeof *kops; o++)
            for (size_t off = 0; off < 2; off++) {
                int dt = all_dtypes[d], kop = kops[o], low = kop == K_ARGMIN || kop == K_MIN;
                size_t es = cuspec_dtype_size(dt), vec = 16 / es;
                double back, best;
                if (is_float(dt))
                    back = low ? 0.5 : -0.5, best = low ? -2 : 2;
                else if (is_signed_int(dt))
                    back = low ? 50 : -50, best = low ? -100 : 100;
                else
                    back = low ? 200 : 100, best = low ? 100 : 200;
                for (size_t lane = 0; lane < vec; lane++) {
                    /* element index (from the input's start) of lane `lane` of load 5 */
                    size_t at = 5 * vec + lane - off;
                    for (int shape = 0; shape < 3; shape++) {
                        if (shape == 2 && !is_float(dt))
                            break;
                        if (shape > 0 && !is_arg(kop))
                            break;
                        for (size_t i = 0; i < n + 4; i++)
                            put_value(dt, i, back);
                        if (shape == 0) {
                            put_value(dt, off + at, best);
                        } else if (shape == 1) {
                            put_value(dt, off + at, best);
                            put_value(dt, off + at + (vec - 1 - lane), best);
                            put_value(dt, off + at + vec, best);
                            put_value(dt, off + at + 2 * vec, best);
                        } else {
                            put_value(dt, off + at - 1, best);
                            put_value(dt, off + at, NAN);
                            put_value(dt, off + at + (vec - 1 - lane), NAN);
                        }
                        upload(d_a, h_a, (n + 4) * es);
                        static const char *const shapes[] = {"alone", "tied", "NaN"};
                        char label[64];
                        snprintf(label, sizeof label, "lane %zu %s", lane, shapes[shape]);
                        run_case(NULL, kop, dt, n, off, 0, label);
                    }
                }
            }
    group_end();
}

/* ## argreduce's arguments, with a device */
TEST(argreduce_outputs)
{
    if (!ready())
        return;
    group_begin();
    const size_t n = 100003;
    fill(CUSPEC_F16, h_a, n, SPREAD);
    upload(d_a, h_a, n * 2);
    struct want w;
    reference(K_ARGMAX, CUSPEC_F16, h_a, NULL, n, &w);
    unsigned char got[OUT_BYTES];
    /* value alone, index alone: the other slot stays untouched */
    CU_OK(drv->cuMemsetD8(d_out, POISON, OUT_BYTES));
    CUSPEC_OK_(cuspec_argreduce(ctx, CUSPEC_ARGMAX, CUSPEC_F16, d_a, n, d_out, 0, NULL));
    CU_OK(drv->cuMemcpyDtoH(got, d_out, OUT_BYTES));
    CHECK(memcmp(got, w.bytes, 2) == 0);
    for (size_t i = 2; i < OUT_BYTES; i++)
        CHECK_INT_EQ(got[i], POISON);
    CU_OK(drv->cuMemsetD8(d_out, POISON, OUT_BYTES));
    CUSPEC_OK_(cuspec_argreduce(ctx, CUSPEC_ARGMAX, CUSPEC_F16, d_a, n, 0, d_out + 8, NULL));
    CU_OK(drv->cuMemcpyDtoH(got, d_out, OUT_BYTES));
    int64_t index;
    memcpy(&index, got + 8, 8);
    CHECK_INT_EQ(index, w.index);
    for (size_t i = 0; i < 8; i++)
        CHECK_INT_EQ(got[i], POISON);
    CU_OK(drv->cuMemsetD8(d_out, POISON, OUT_BYTES));
    /* misaligned index or value, both 0, input misaligned: refused */
    check_refused(cuspec_argreduce(ctx, CUSPEC_ARGMIN, CUSPEC_F16, d_a, n, d_out, d_out + 4, NULL),
                  "index misaligned", "index (0x");
    check_refused(cuspec_argreduce(ctx, CUSPEC_ARGMIN, CUSPEC_I32, d_a, n, d_out + 2, 0, NULL),
                  "value misaligned", "value (0x");
    check_refused(cuspec_argreduce(ctx, CUSPEC_ARGMIN, CUSPEC_F16, d_a + 1, n, d_out, 0, NULL),
                  "in misaligned", "in (0x");
    check_refused(cuspec_argreduce(ctx, CUSPEC_ARGMIN, CUSPEC_F16, d_a, n, 0, 0, NULL), "no output",
                  "both 0");
    check_refused(cuspec_argreduce(ctx, CUSPEC_ARGMIN, CUSPEC_F16, 0, n, d_out, 0, NULL), "in NULL",
                  "in is NULL");
    check_refused(cuspec_reduce(ctx, CUSPEC_ARGMIN, CUSPEC_F16, d_a, n, d_out, NULL),
                  "cuspec_reduce with argmin", "call cuspec_argreduce");
    if (!device_untouched(d_out, OUT_BYTES, POISON))
        CASE_FAIL("a refused call wrote its outputs");
    group_end();
}

/* ## A sample of every legal specialization of these types and ops */
static struct vlist sample;

static int is_new(const struct cuspec__variant *v)
{
    return v->dtype == CUSPEC_U64 || v->dtype >= CUSPEC_I8 || cuspec__reduce_is_arg(v->op);
}

TEST(kernels_compile)
{
    if (!ready())
        return;
    group_begin();
    reduce_sample_compile(is_new, 60, &sample);
    group_end();
}

TEST(variants_sampled_sizes_offsets)
{
    static const size_t sizes[] = {1, 1000, (1u << 20) + 3};
    if (!ready())
        return;
    if (sample.n == 0) {
        TAP_FAIL("no sample (kernels_compile failed)");
        return;
    }
    group_begin();
    for (size_t i = 0; i < sample.n; i++) {
        const struct cuspec__variant *v = &sample.v[i];
        char label[320], name[256];
        cuspec__variant_name(v, name, sizeof name);
        snprintf(label, sizeof label, "%s grid=%d:", name,
                 v->p[param_index(&cuspec__family_reduce, "grid")]);
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
            size_t off = (i + s) % 4;
            enum fill how = v->op == K_SUM || v->op == K_DOT ? UNIT : i % 2 ? FEW : SPREAD;
            fresh(v->op, v->dtype, sizes[s], how);
            run_case(v, v->op, v->dtype, sizes[s], off, v->op == K_DOT ? (off + i % 2) % 4 : 0,
                     label);
        }
    }
    group_end();
}

/* ## Captured in a graph, replayed 100 times: the same results every time */
/* ## Around 2^31 elements: argmin/argmax of 32-bit values below 2^31
 * elements combine blocks in one 64-bit word holding a 31-bit index
 * (templates/reduce.cuh); from 2^31 they keep 64-bit indices in partials.
 * u8 and i8 arrays of 2^31 - 1, 2^31 and 2^31 + 100 bytes (zeros) with the
 * extreme twice near the end: the first of the two, past 2^31 where there
 * is room; its value; and the last element alone. */
TEST(argreduce_around_2_31)
{
    if (!ready())
        return;
    group_begin();
    const size_t two31 = (size_t)1 << 31;
    const size_t sizes[] = {two31 - 1, two31, two31 + 100};
    CUdeviceptr big = 0;
    CUresult r = drv->cuMemAlloc(&big, two31 + 100);
    if (r != CUDA_SUCCESS) {
        CASE_FAIL("cuMemAlloc of 2^31 + 100 bytes: CUresult %d", (int)r);
        group_end();
        return;
    }
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        const size_t n = sizes[k];
        for (int op = CUSPEC_ARGMIN; op <= CUSPEC_ARGMAX; op++)
            for (int last = 0; last < 2; last++) {
                const int dt = op == CUSPEC_ARGMIN ? CUSPEC_I8 : CUSPEC_U8;
                const unsigned char best = op == CUSPEC_ARGMIN ? 0xfd /* -3 */ : 200;
                /* the extreme at n - 9 and n - 3, or at n - 1 alone */
                const size_t at = last ? n - 1 : n - 9;
                CU_OK(drv->cuMemsetD8(big, 0, n));
                CU_OK(drv->cuMemcpyHtoD(big + at, &best, 1));
                if (!last)
                    CU_OK(drv->cuMemcpyHtoD(big + n - 3, &best, 1));
                CU_OK(drv->cuMemsetD8(d_out, POISON, OUT_BYTES));
                int rc = cuspec_argreduce(ctx, op, dt, big, n, d_out, d_out + 8, NULL);
                unsigned char got[OUT_BYTES];
                CU_OK(drv->cuMemcpyDtoH(got, d_out, OUT_BYTES));
                int64_t index;
                memcpy(&index, got + 8, 8);
                if (rc != CUSPEC_OK || got[0] != best || index != (int64_t)at)
                    CASE_FAIL("%s of %s, n = %zu, extreme at %zu%s: rc %d, value 0x%02x, index "
                              "%lld",
                              op == CUSPEC_ARGMIN ? "argmin" : "argmax", cuspec_dtype_name(dt), n,
                              at, last ? " alone" : " and n - 3", rc, got[0], (long long)index);
            }
    }
    CU_OK(drv->cuMemFree(big));
    group_end();
}

TEST(graph_replayed_100_times)
{
    if (!ready())
        return;
    group_begin();
    const size_t n = (1u << 24) + 7;
    CUstream s = NULL;
    CUgraph graph = NULL;
    CUgraphExec exec = NULL;
    CU_OK(drv->cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    fill(CUSPEC_F16, h_a, n + 1, UNIT);
    upload(d_a, h_a, (n + 1) * 2);
    struct want w_max, w_sum;
    reference(K_ARGMAX, CUSPEC_F16, h_a + 2, NULL, n, &w_max);
    reference(K_SUM, CUSPEC_F16, h_a + 2, NULL, n, &w_sum);
    CU_OK(drv->cuMemsetD8(d_out, POISON, 2 * OUT_BYTES));
    CU_OK(drv->cuCtxSynchronize());
    CU_OK(drv->cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_RELAXED));
    int rc1 = cuspec_argreduce(ctx, CUSPEC_ARGMAX, CUSPEC_F16, d_a + 2, n, d_out, d_out + 8, s);
    int rc2 = cuspec_reduce(ctx, CUSPEC_SUM, CUSPEC_F16, d_a + 2, n, d_out + OUT_BYTES, s);
    CU_OK(drv->cuStreamEndCapture(s, &graph));
    if (rc1 != CUSPEC_OK || rc2 != CUSPEC_OK)
        CASE_FAIL("calls under capture: %s / %s: %s", cuspec_strerror(rc1), cuspec_strerror(rc2),
                  cuspec_last_error());
    if (graph != NULL)
        CU_OK(drv->cuGraphInstantiateWithFlags(&exec, graph, 0));
    unsigned char first[2 * OUT_BYTES], got[2 * OUT_BYTES];
    for (int r = 0; exec != NULL && r < 100; r++) {
        CU_OK(drv->cuGraphLaunch(exec, s));
        CU_OK(drv->cuStreamSynchronize(s));
        CU_OK(drv->cuMemcpyDtoH(got, d_out, sizeof got));
        if (r == 0) {
            memcpy(first, got, sizeof got);
            check(K_ARGMAX, CUSPEC_F16, got, &w_max, "graph: f16 argmax");
            check(K_SUM, CUSPEC_F16, got + OUT_BYTES, &w_sum, "graph: f16 sum");
        } else if (memcmp(first, got, sizeof got) != 0) {
            CASE_FAIL("graph replay %d differs from the first", r);
        }
    }
    if (exec == NULL)
        CASE_FAIL("the calls could not be captured in a graph");
    else
        CU_OK(drv->cuGraphExecDestroy(exec));
    if (graph != NULL)
        CU_OK(drv->cuGraphDestroy(graph));
    if (s != NULL)
        CU_OK(drv->cuStreamDestroy(s));
    group_end();
}

int main(void)
{
    if (gpu_cases_setup()) {
        h_a = malloc(CAP * 8);
        h_b = malloc(CAP * 8);
        CUresult r = drv->cuMemAlloc(&d_a, CAP * 8);
        if (r == CUDA_SUCCESS)
            r = drv->cuMemAlloc(&d_b, CAP * 8);
        if (r == CUDA_SUCCESS)
            r = drv->cuMemAlloc(&d_out, 4 * OUT_BYTES);
        if (r != CUDA_SUCCESS)
            printf("# cuMemAlloc: CUresult %d\n", (int)r);
    }
    static const struct tap_test tests[] = {
        TAP_ENTRY(kernels_compile),
        TAP_ENTRY(sum_new_dtypes),
        TAP_ENTRY(min_new_dtypes),
        TAP_ENTRY(max_new_dtypes),
        TAP_ENTRY(dot_new_dtypes),
        TAP_ENTRY(argmin_every_dtype),
        TAP_ENTRY(argmax_every_dtype),
        TAP_ENTRY(n0_identity_and_argreduce_refusal),
        TAP_ENTRY(ties_give_the_smallest_index),
        TAP_ENTRY(nan_wins),
        TAP_ENTRY(signed_zeros_and_identity_values),
        TAP_ENTRY(each_lane_of_a_load),
        TAP_ENTRY(argreduce_outputs),
        TAP_ENTRY(variants_sampled_sizes_offsets),
        TAP_ENTRY(argreduce_around_2_31),
        TAP_ENTRY(graph_replayed_100_times),
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
