/* GPU: reductions along an axis against a CPU reference.
 *
 * Through the public API: every op (sum, min, max, argmin, argmax, dot) x
 * dtype (all twelve) x axis on 1x1, 1x1000, 1000x1, 3x7, 1100x300 (rows:
 * a block a row), 1048576x32 and 32x1048576 (split over blocks),
 * 3x1000000, 8191x8193, 8192x8192 and a strided batch of 3 of 8x300000
 * for some, with ld > cols (pitched)
 * and batches (contiguous and strided), the input 1 element into its
 * allocation; integers exact, floats within the bound cuspec.h states
 * (values are multiples of 1/4 in [-2, 2], whose sums are exact in f64 and
 * tie often); the output past the results untouched. Then argmin/argmax
 * ties and NaNs (the first NaN wins, also across split blocks) at every
 * element position of a vector and a row's last, for every dtype, pitched
 * rows whose last vector is partial (each input an allocation of exactly
 * its extent, its padding poisoned), empty
 * reductions (the identity), bad arguments, a sample of non-default
 * parameters (every lanes and tx value and the block-a-row kernel, blocks of
 * 128 and 1024, scalar and vector loads, 1 and 4 items, a strided batch;
 * rows_split's argmax of 80000 rows, past a grid's 65535 along y)
 * through cuspec__axis_run, columns' argmin/argmax read flat
 * (cols_flat: f32, i32, u32 from 128 KB, late extremes, NaNs, signed
 * zeros, rows off its tile; a batch refused), rows read flat (rows_flat:
 * f32, i32, u32 from 16 MB, argmin/argmax at every size, 1 to 8 lanes a
 * row, planted extremes, NaNs and signed zeros; every op but dot and other
 * blocks handed in; a batch apart refused), and split
 * reductions (a rows sum and argmax, a columns argmax) captured in a CUDA
 * graph replayed 100 times, unchanged;
 * a copy then the axis calls that read it, 8 rounds on a stream and in a
 * graph (on sm_90 and later the axis calls launch programmatically, and the
 * copies up to 4 MB).
 *
 * One process, one context; kernels compiled into a private store. */
#include "gpu.h"
#include "gpu_cases.h"
#include "reduce_axis.h"
#include "dtype_values.h"
#include "params.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const int dtypes[] = {CUSPEC_F32, CUSPEC_F64, CUSPEC_F16, CUSPEC_BF16, CUSPEC_I8, CUSPEC_U8,
                             CUSPEC_I16, CUSPEC_U16, CUSPEC_I32, CUSPEC_U32, CUSPEC_I64, CUSPEC_U64};
#define N_DTYPES (sizeof dtypes / sizeof *dtypes)
static const char *const op_names[] = {"sum", "min", "max", "argmin", "argmax", "dot"};

#define MAX_ELEMS ((size_t)(1u << 25) + 4096) /* per input, 8-byte elements at most */
#define MAX_RESULTS ((size_t)(1u << 20) + 64)
#define GUARD 256 /* poisoned bytes after the results */
#define POISON 0xA5

static CUdeviceptr d_in[2], d_value, d_index;
static unsigned char *h_in[2], *h_value, *h_index;

/* Element i of buf set to x (exactly representable in the dtype: small
 * multiples of 1/4 for floats, NaN; integers of its range). */
static void set_value(unsigned char *buf, int dtype, size_t i, double x)
{
    float f = (float)x;
    uint32_t b;
    memcpy(&b, &f, 4);
    switch (dtype) {
    case CUSPEC_F32:
        ((float *)buf)[i] = f;
        break;
    case CUSPEC_F64:
        ((double *)buf)[i] = x;
        break;
    case CUSPEC_BF16: /* the top half of an f32 */
        ((uint16_t *)buf)[i] = (uint16_t)(b >> 16);
        break;
    case CUSPEC_F16: /* a normal f32 rebiased, or 0, or a NaN */
        ((uint16_t *)buf)[i] =
            isnan(x) ? 0x7e00
            : x == 0 ? (uint16_t)(b >> 16 & 0x8000)
                     : (uint16_t)((b >> 16 & 0x8000) | (((b >> 23 & 0xff) - 112) << 10) |
                                  (b >> 13 & 0x3ff));
        break;
    case CUSPEC_I8:
    case CUSPEC_U8:
        ((uint8_t *)buf)[i] = (uint8_t)(int64_t)x;
        break;
    case CUSPEC_I16:
    case CUSPEC_U16:
        ((uint16_t *)buf)[i] = (uint16_t)(int64_t)x;
        break;
    case CUSPEC_I32:
    case CUSPEC_U32:
        ((uint32_t *)buf)[i] = (uint32_t)(int64_t)x;
        break;
    default:
        ((uint64_t *)buf)[i] = (uint64_t)(int64_t)x;
    }
}

/* ## Values: multiples of 1/4 in [-2, 2] for floats (exact sums, many ties),
 * small integers or (one in eight) any bits of the type's for integers. */
static void fill(unsigned char *buf, int dtype, size_t n)
{
    size_t size = cuspec_dtype_size(dtype);
    for (size_t i = 0; i < n; i++) {
        uint64_t r = rng_next();
        int64_t small = (int64_t)(r % 17) - 8;
        if (cuspec__dtype_is_float(dtype)) {
            set_value(buf, dtype, i, (double)small / 4);
        } else if ((r >> 8) % 8) {
            set_value(buf, dtype, i, (double)(cuspec__dtype_is_unsigned(dtype) ? small + 8 : small));
        } else {
            uint64_t bits = rng_next();
            memcpy(buf + i * size, &bits, size); /* little-endian: the low bytes */
        }
    }
}

/* Element i beats the earlier element j for min (max = 0) or max. */
static int beats(const void *x, int dtype, int max, size_t i, size_t j)
{
    if (cuspec__dtype_is_float(dtype)) {
        double a = cuspec__value_f(x, dtype, i), b = cuspec__value_f(x, dtype, j);
        if (isnan(a) || isnan(b))
            return isnan(a) && !isnan(b);
        return max ? a > b : a < b;
    }
    uint64_t a = cuspec__value_i(x, dtype, i), b = cuspec__value_i(x, dtype, j);
    if (cuspec__dtype_is_unsigned(dtype))
        return max ? a > b : a < b;
    return max ? (int64_t)a > (int64_t)b : (int64_t)a < (int64_t)b;
}

/* One call's shape, in elements from the start of the inputs. */
struct shape {
    size_t rows, cols, ld, batch, stride, offset;
};

static size_t extent(const struct shape *s)
{
    return s->offset + (s->batch - 1) * s->stride + (s->rows - 1) * s->ld + s->cols;
}

/* ## One call against the CPU */

/* The outputs a call asks for: argmin/argmax may leave either out. */
enum { VALUE = 1, INDEX = 2, BOTH = VALUE | INDEX };

/* Result o against the CPU: the value and, for argmin/argmax, the index,
 * those of them `asked` for. */
static void check_result(int rows_axis, int kop, int dtype, const struct shape *s, size_t o,
                         int asked, const char *what)
{
    size_t m = o / (rows_axis ? s->rows : s->cols), k = o % (rows_axis ? s->rows : s->cols);
    size_t base = s->offset + m * s->stride + (rows_axis ? k * s->ld : k);
    size_t along = rows_axis ? 1 : s->ld, length = rows_axis ? s->cols : s->rows;
    size_t size = cuspec_dtype_size(dtype);
    char where[160];
    snprintf(where, sizeof where, "%s result %zu", what, o);
    if (kop == CUSPEC__AXIS_SUM || kop == CUSPEC__AXIS_DOT) {
        int dot = kop == CUSPEC__AXIS_DOT;
        if (cuspec__dtype_is_float(dtype)) {
            double sum = 0, mag = 0;
            for (size_t e = 0; e < length; e++) {
                size_t i = base + e * along;
                double x = cuspec__value_f(h_in[0], dtype, i) *
                           (dot ? cuspec__value_f(h_in[1], dtype, i) : 1);
                sum += x;
                mag += fabs(x);
            }
            /* f16 and bf16 sum in f32 and write it; a NaN among the
             * elements makes the sum a NaN */
            int f32 = cuspec__axis_out_dtype(kop, dtype) == CUSPEC_F32;
            double got = f32 ? ((float *)h_value)[o] : ((double *)h_value)[o];
            double eps = f32 ? 0x1p-24 : 0x1p-53;
            if (isnan(sum) ? !isnan(got)
                           : !(fabs(got - sum) <= ((double)length / 8 + 64) * eps * mag))
                CASE_FAIL("%s: got %.17g, want %.17g (sum|x| %.6g)", where, got, sum, mag);
        } else {
            uint64_t sum = 0, got;
            for (size_t e = 0; e < length; e++) {
                size_t i = base + e * along;
                sum += cuspec__value_i(h_in[0], dtype, i) *
                       (dot ? cuspec__value_i(h_in[1], dtype, i) : 1);
            }
            memcpy(&got, h_value + 8 * o, 8);
            if (got != sum)
                CASE_FAIL("%s: got %llu, want %llu", where, (unsigned long long)got,
                          (unsigned long long)sum);
        }
        return;
    }
    int max = kop == CUSPEC__AXIS_MAX || kop == CUSPEC__AXIS_ARGMAX;
    size_t win = 0;
    for (size_t e = 1; e < length; e++)
        if (beats(h_in[0], dtype, max, base + e * along, base + win * along))
            win = e;
    const unsigned char *want = h_in[0] + (base + win * along) * size;
    int nan = cuspec__dtype_is_float(dtype) &&
              isnan(cuspec__value_f(h_in[0], dtype, base + win * along));
    int same = nan ? isnan(cuspec__value_f(h_value, dtype, o))
                   : memcmp(h_value + o * size, want, size) == 0;
    /* min and max write a zero of either sign where a zero wins (cuspec.h);
     * argmin and argmax the first element's bytes */
    if (!same && kop < CUSPEC__AXIS_ARGMIN && cuspec__dtype_is_float(dtype) &&
        cuspec__value_f(h_value, dtype, o) == 0 &&
        cuspec__value_f(h_in[0], dtype, base + win * along) == 0)
        same = 1;
    if ((asked & VALUE) && !same)
        CASE_FAIL("%s: the value differs from the winner at %zu", where, win);
    if (kop >= CUSPEC__AXIS_ARGMIN && (asked & INDEX)) {
        int64_t got;
        memcpy(&got, h_index + 8 * o, 8);
        if (got != (int64_t)win)
            CASE_FAIL("%s: index %lld, want %zu", where, (long long)got, win);
    }
}

/* Every result of a call against the CPU, and how many are wrong where
 * some are (the first few are printed in full). */
static void check_all(int rows_axis, int kop, int dtype, const struct shape *s, size_t results,
                      int asked, const char *what)
{
    const int before = n_fail;
    for (size_t o = 0; o < results; o++)
        check_result(rows_axis, kop, dtype, s, o, asked, what);
    if (n_fail != before)
        printf("# %s: %d of %zu results wrong\n", what, n_fail - before, results);
}

/* Runs one public call on the inputs (uploaded), asking argmin/argmax for
 * the outputs in `asked`, and checks every result, the guards after them and
 * that nothing was written where an output not asked for would go. */
static void run_case_asking(int rows_axis, int kop, int dtype, const struct shape *s, int asked)
{
    int arg = cuspec__axis_is_arg(kop);
    char what[160];
    snprintf(what, sizeof what, "%s %s %s %zux%zu ld %zu batch %zu%s",
             rows_axis ? "rows" : "cols", op_names[kop], cuspec_dtype_name(dtype), s->rows,
             s->cols, s->ld, s->batch,
             !arg || asked == BOTH ? "" : asked == VALUE ? ", the value alone" : ", the index alone");
    size_t results = s->batch * (rows_axis ? s->rows : s->cols);
    size_t out_size = cuspec_dtype_size(cuspec__axis_out_dtype(kop, dtype));
    size_t size = cuspec_dtype_size(dtype);
    int want_value = !arg || (asked & VALUE), want_index = arg && (asked & INDEX);
    CU_OK(drv->cuMemsetD8(d_value, POISON, results * out_size + GUARD));
    CU_OK(drv->cuMemsetD8(d_index, POISON, results * 8 + GUARD));
    cuspec_matrix m = {s->rows, s->cols, s->ld, s->batch, s->stride};
    CUdeviceptr a = d_in[0] + s->offset * size, b = d_in[1] + s->offset * size;
    CUdeviceptr value = want_value ? d_value : 0, index = want_index ? d_index : 0;
    int rc;
    if (kop == CUSPEC__AXIS_DOT)
        rc = rows_axis ? cuspec_dot_rows(ctx, dtype, a, b, &m, value, NULL)
                       : cuspec_dot_cols(ctx, dtype, a, b, &m, value, NULL);
    else
        rc = (rows_axis ? cuspec_reduce_rows : cuspec_reduce_cols)(ctx, kop, dtype, a, &m, value,
                                                                   index, NULL);
    if (rc != CUSPEC_OK) {
        CASE_FAIL("%s: %s: %s", what, cuspec_strerror(rc), cuspec_last_error());
        return;
    }
    CU_OK(drv->cuCtxSynchronize());
    CU_OK(drv->cuMemcpyDtoH(h_value, d_value, results * out_size + GUARD));
    CU_OK(drv->cuMemcpyDtoH(h_index, d_index, results * 8 + GUARD));
    if (want_value)
        check_host_untouched(h_value + results * out_size, GUARD, POISON, "the values' guard");
    else
        check_host_untouched(h_value, results * out_size + GUARD, POISON,
                             "the values (not asked for)");
    if (want_index)
        check_host_untouched(h_index + results * 8, GUARD, POISON, "the indices' guard");
    else
        check_host_untouched(h_index, results * 8 + GUARD, POISON, "the indices (not asked for)");
    check_all(rows_axis, kop, dtype, s, results, asked, what);
}

/* The same with every output asked for. */
static void run_case(int rows_axis, int kop, int dtype, const struct shape *s)
{
    run_case_asking(rows_axis, kop, dtype, s, BOTH);
}

/* Runs variant v (handed in, as the tuner and benchmarks do) on s,
 * argmin/argmax writing both outputs, and checks every result and the
 * guards after them. */
static void run_variant(const struct cuspec__variant *v, int rows_axis, const struct shape *s)
{
    const size_t size = cuspec_dtype_size(v->dtype);
    const size_t out_size = cuspec_dtype_size(cuspec__axis_out_dtype(v->op, v->dtype));
    const int arg = cuspec__axis_is_arg(v->op);
    const size_t results = s->batch * (rows_axis ? s->rows : s->cols);
    struct cuspec__axis_call c = {.rows_axis = rows_axis,
                                  .kop = v->op,
                                  .dtype = v->dtype,
                                  .a = d_in[0] + s->offset * size,
                                  .b = v->op == CUSPEC__AXIS_DOT ? d_in[1] + s->offset * size : 0,
                                  .value = d_value,
                                  .index = arg ? d_index : 0,
                                  .rows = s->rows,
                                  .cols = s->cols,
                                  .ld = s->ld,
                                  .stride = s->stride,
                                  .batch = s->batch};
    /* poisoned: a variant that leaves a result unwritten shows, not the one before's */
    CU_OK(drv->cuMemsetD8(d_value, POISON, results * out_size + GUARD));
    CU_OK(drv->cuMemsetD8(d_index, POISON, results * 8 + GUARD));
    struct cuspec__variant use = *v;
    int rc = cuspec__axis_run(ctx, &use, NULL, &c, NULL, NULL);
    char name[256], what[400];
    cuspec__variant_name(v, name, sizeof name);
    snprintf(what, sizeof what, "%s lanes %d grid %d on %zux%zu ld %zu batch %zu", name,
             v->p[P_LANES], v->p[P_GRID], s->rows, s->cols, s->ld, s->batch);
    if (rc != CUSPEC_OK) {
        CASE_FAIL("%s: %s", what, cuspec_last_error());
        return;
    }
    CU_OK(drv->cuCtxSynchronize());
    CU_OK(drv->cuMemcpyDtoH(h_value, d_value, results * out_size + GUARD));
    CU_OK(drv->cuMemcpyDtoH(h_index, d_index, results * 8 + GUARD));
    check_host_untouched(h_value + results * out_size, GUARD, POISON, "the values' guard");
    if (arg)
        check_host_untouched(h_index + results * 8, GUARD, POISON, "the indices' guard");
    check_all(rows_axis, v->op, v->dtype, s, results, BOTH, what);
}

/* Fresh inputs, n elements each (all the buffers hold: 0). */
static void upload(int dtype, size_t n)
{
    size_t size = cuspec_dtype_size(dtype);
    n = n ? n : MAX_ELEMS * 8 / size;
    for (int k = 0; k < 2; k++) {
        fill(h_in[k], dtype, n);
        CU_OK(drv->cuMemcpyHtoD(d_in[k], h_in[k], n * size));
    }
}

/* Every op and axis on the shapes; `big`: the large ones too. */
static void all_ops(int dtype, int big)
{
    static const struct shape shapes[] = {
        {1, 1, 1, 1, 0, 1},
        {1, 1000, 1000, 1, 0, 1},
        {1000, 1, 1, 1, 0, 1},
        {3, 7, 7, 1, 0, 1},
        {3, 7, 9, 1, 0, 1},      /* pitched */
        {1000, 33, 37, 1, 0, 1}, /* pitched, odd */
        {3, 7, 8, 5, 24, 1},     /* a contiguous batch */
        {5, 70, 72, 3, 401, 1},  /* a strided batch */
        {40, 3000, 3001, 2, 1 << 17, 1},
        {1100, 300, 303, 1, 0, 1},       /* 1024 to 2047 rows: rows_block */
        {2048, 1030, 1031, 1, 0, 1},     /* 4-byte dots of many rows: rows_block, pitched */
        {1 << 20, 32, 32, 1, 0, 1},      /* short rows, tall columns: split */
        {32, 1 << 20, 1 << 20, 1, 0, 1}, /* long rows: split; few rows of columns */
    };
    group_begin();
    upload(dtype, 0);
    for (int axis = 1; axis >= 0; axis--)
        for (int kop = 0; kop < CUSPEC__AXIS_N_OPS; kop++)
            for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++)
                run_case(axis, kop, dtype, &shapes[i]);
    if (big) {
        static const struct shape large[] = {
            {8192, 8192, 8192, 1, 0, 1},
            {8191, 8193, 8193, 1, 0, 1}, /* every row misaligned differently */
            {3, 1000000, 1000000, 1, 0, 1},
            {1500, 3001, 3003, 1, 0, 1},    /* square_args' columns, pitched */
            {2000, 4000, 4002, 1, 0, 1},    /* split_strips' 1024 x 2 x 8, pitched */
            {300, 100003, 100003, 1, 0, 1}, /* long odd rows, half a wave to a wave */
            /* few long rows' argmin/argmax: a strided, pitched batch of
             * 24 rows, each in several blocks */
            {8, 300000, 300001, 3, 2500001, 1},
        };
        for (size_t i = 0; i < sizeof large / sizeof *large; i++)
            for (int axis = 1; axis >= 0; axis--) {
                run_case(axis, CUSPEC__AXIS_SUM, dtype, &large[i]);
                run_case(axis, CUSPEC__AXIS_ARGMAX, dtype, &large[i]);
            }
    }
    group_end();
}

TEST(f32_every_op_axis_shape)
{
    all_ops(CUSPEC_F32, 1);
}
TEST(f64_every_op_axis_shape)
{
    all_ops(CUSPEC_F64, 0);
}
TEST(i32_every_op_axis_shape)
{
    all_ops(CUSPEC_I32, 1);
}
TEST(i64_every_op_axis_shape)
{
    all_ops(CUSPEC_I64, 0);
}
TEST(u32_every_op_axis_shape)
{
    all_ops(CUSPEC_U32, 0);
}
TEST(u64_every_op_axis_shape)
{
    all_ops(CUSPEC_U64, 0);
}
TEST(f16_every_op_axis_shape)
{
    all_ops(CUSPEC_F16, 1);
}
TEST(bf16_every_op_axis_shape)
{
    all_ops(CUSPEC_BF16, 0);
}
TEST(i8_every_op_axis_shape)
{
    all_ops(CUSPEC_I8, 1);
}
TEST(u8_every_op_axis_shape)
{
    all_ops(CUSPEC_U8, 0);
}
TEST(i16_every_op_axis_shape)
{
    all_ops(CUSPEC_I16, 0);
}
TEST(u16_every_op_axis_shape)
{
    all_ops(CUSPEC_U16, 1);
}

/* ## One output of argmin/argmax */

/* argmin/argmax with only the value or only the index asked for: the one
 * given is right, and nothing is written where the other would go (its
 * buffer, poisoned, stays so). Wide matrices: columns are written a warp at
 * a time through shared memory. */
TEST(arg_value_or_index_alone)
{
    static const struct shape shapes[] = {
        {7, 5003, 5003, 1, 0, 1}, {16, 1 << 16, 1 << 16, 1, 0, 0}, {5, 70, 72, 3, 401, 1}};
    static const int types[] = {CUSPEC_I8, CUSPEC_F16, CUSPEC_F32, CUSPEC_F64};
    group_begin();
    for (size_t d = 0; d < sizeof types / sizeof *types; d++) {
        upload(types[d], 1 << 22);
        for (int axis = 1; axis >= 0; axis--)
            for (int kop = CUSPEC__AXIS_ARGMIN; kop <= CUSPEC__AXIS_ARGMAX; kop++)
                for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
                    run_case_asking(axis, kop, types[d], &shapes[i], VALUE);
                    run_case_asking(axis, kop, types[d], &shapes[i], INDEX);
                }
    }
    group_end();
}

/* ## Ties and NaNs */

TEST(ties_and_nans)
{
    group_begin();
    for (size_t d = 0; d < 2; d++) {
        int dtype = dtypes[d];
        size_t size = cuspec_dtype_size(dtype);
        /* Long rows (split over blocks) of equal values, NaNs in some: row
         * r has NaNs at columns 900000 - r and 700000 + r for odd r; even
         * rows none. */
        struct shape s = {32, 1 << 20, 1 << 20, 1, 0, 0};
        for (size_t i = 0; i < extent(&s); i++)
            set_value(h_in[0], dtype, i, 1.5);
        for (size_t r = 1; r < 32; r += 2) {
            set_value(h_in[0], dtype, r * s.ld + 900000 - r, NAN);
            set_value(h_in[0], dtype, r * s.ld + 700000 + r, NAN);
        }
        CU_OK(drv->cuMemcpyHtoD(d_in[0], h_in[0], extent(&s) * size));
        for (int kop = CUSPEC__AXIS_MIN; kop <= CUSPEC__AXIS_ARGMAX; kop++)
            run_case(1, kop, dtype, &s);
        /* The same in columns: a tall matrix, equal values, NaNs in odd columns. */
        struct shape t = {1 << 20, 32, 32, 1, 0, 0};
        for (size_t i = 0; i < extent(&t); i++)
            set_value(h_in[0], dtype, i, -0.25);
        for (size_t c = 1; c < 32; c += 2) {
            set_value(h_in[0], dtype, (900000 - c) * t.ld + c, NAN);
            set_value(h_in[0], dtype, (300000 + 7 * c) * t.ld + c, NAN);
        }
        CU_OK(drv->cuMemcpyHtoD(d_in[0], h_in[0], extent(&t) * size));
        for (int kop = CUSPEC__AXIS_MIN; kop <= CUSPEC__AXIS_ARGMAX; kop++)
            run_case(0, kop, dtype, &t);
        /* Ties only: the smallest index of the extreme value. */
        struct shape u = {100, 3000, 3000, 1, 0, 0};
        for (size_t i = 0; i < extent(&u); i++)
            set_value(h_in[0], dtype, i, (double)(rng_next() % 3));
        CU_OK(drv->cuMemcpyHtoD(d_in[0], h_in[0], extent(&u) * size));
        for (int axis = 0; axis < 2; axis++)
            for (int kop = CUSPEC__AXIS_ARGMIN; kop <= CUSPEC__AXIS_ARGMAX; kop++)
                run_case(axis, kop, dtype, &u);
    }
    group_end();
}

/* For every dtype, in short rows (three vectors and one element: every
 * place), long ones (a warp's tiles and a tail) and many of 8 KB or more (a
 * block a row: rows_block): row r's maximum twice,
 * first at column 37 r mod cols (the last row: the last column), its
 * minimum twice; floats again with NaNs for the maxima and a larger value
 * before the first. Columns are read on the same data (ties, mostly). */
TEST(arg_ties_and_nans_at_every_position)
{
    /* 0: 3 vectors + 1; 1100 x 4098: split_strips' one wave (f32 in
     * 1024 x 2 x 8); 1100 x 4099: square_args' columns (f32 in 4-byte
     * vectors, ld odd); 2048 x 8195: split_strips' f32 columns */
    static const size_t shapes[][2] = {{0, 0},       {200, 4099}, {1100, 4098},
                                       {1100, 4099}, {2048, 8195}};
    group_begin();
    for (size_t d = 0; d < sizeof dtypes / sizeof *dtypes; d++) {
        int dtype = dtypes[d];
        size_t size = cuspec_dtype_size(dtype), vec = 16 / size;
        for (size_t w = 0; w < sizeof shapes / sizeof *shapes; w++) {
            size_t cols = w ? shapes[w][1] : 3 * vec + 1, rows = w ? shapes[w][0] : cols;
            struct shape s = {rows, cols, cols, 1, 0, 0};
            for (int nans = 0; nans <= cuspec__dtype_is_float(dtype); nans++) {
                for (size_t r = 0; r < rows; r++) {
                    size_t p = r + 1 == rows ? cols - 1 : r * 37 % cols; /* 37: prime to cols */
                    size_t q = (p + 1 + r % 5) % cols;
                    for (size_t c = 0; c < cols; c++)
                        set_value(h_in[0], dtype, r * cols + c, 5);
                    size_t hi[2] = {p, (p + 1 + r % 7) % cols};
                    size_t lo[2] = {q, (q + 2 + r % 3) % cols};
                    for (int k = 0; k < 2; k++) {
                        set_value(h_in[0], dtype, r * cols + hi[k], nans ? NAN : 9);
                        if (hi[k] != q && lo[k] != hi[0] && lo[k] != hi[1])
                            set_value(h_in[0], dtype, r * cols + lo[k], 2);
                    }
                    if (nans && p > 0) /* larger than any, before the NaN */
                        set_value(h_in[0], dtype, r * cols + p - 1, 1000);
                }
                CU_OK(drv->cuMemcpyHtoD(d_in[0], h_in[0], rows * cols * size));
                for (int axis = 1; axis >= 0; axis--)
                    for (int kop = CUSPEC__AXIS_ARGMIN; kop <= CUSPEC__AXIS_ARGMAX; kop++)
                        run_case(axis, kop, dtype, &s);
            }
        }
    }
    group_end();
}

/* Padded rows whose last vector is partial (cols off the vector, ld on it):
 * the columns kernels read that vector whole into the padding between rows,
 * but the last row of each matrix element by element. Each input sits in an
 * allocation of exactly its extent: an aligned vector read past it cannot
 * fault, so only compute-sanitizer's memcheck sees one (TAP_ONLY runs this
 * test alone). The padding holds what would show in any result it reached:
 * NaN, or an integer type's largest in even rows and smallest in odd ones
 * (+-2^62 for 64 bits, which a double converts exactly). The edge columns'
 * extremes are in their last row, some also earlier (ties: the earlier
 * wins). Every op and dtype on small shapes, batches (one whose tall
 * matrices split their rows, one whose stride is off the vector, so that
 * its matrices start on it and off it), and f32 on the f32 columns rules'
 * shapes. */
TEST(padded_rows_with_a_partial_last_vector)
{
    static const struct {
        size_t rows, cols, batch;
        int skew; /* the stride one element past a whole vector's */
        int all;  /* every dtype and op, else f32's sum, argmin and argmax */
    } shapes[] = {
        {1, 5, 1, 0, 1},        {2, 13, 1, 0, 1},       {1000, 33, 1, 0, 1},
        {37, 45, 3, 0, 1},      {37, 45, 3, 1, 1},      {65536, 7, 1, 0, 1},
        {65536, 7, 3, 0, 1},    {4096, 4225, 1, 0, 0},  {1024, 3169, 1, 0, 0},
        {2048, 2113, 1, 0, 0},  {4096, 6113, 1, 0, 0},
    };
    group_begin();
    CUdeviceptr keep[2] = {d_in[0], d_in[1]};
    for (size_t d = 0; d < N_DTYPES; d++) {
        int dtype = dtypes[d];
        size_t size = cuspec_dtype_size(dtype), vec = 16 / size;
        double top = cuspec__dtype_is_unsigned(dtype) ? -1.0 /* all ones */
                     : size == 8                      ? 0x1p62
                                                      : (double)((1ull << (8 * size - 1)) - 1);
        double bottom = cuspec__dtype_is_unsigned(dtype) ? 0 : size == 8 ? -0x1p62 : -top - 1;
        for (size_t w = 0; w < sizeof shapes / sizeof *shapes; w++) {
            if (!shapes[w].all && dtype != CUSPEC_F32)
                continue;
            size_t rows = shapes[w].rows, cols = shapes[w].cols;
            size_t ld = (cols + vec - 1) / vec * vec;
            struct shape s = {rows, cols, ld, shapes[w].batch,
                              rows * ld + (shapes[w].skew ? 1 : vec), 0};
            size_t n = extent(&s);
            fill(h_in[0], dtype, n);
            fill(h_in[1], dtype, n);
            for (size_t m = 0; m < s.batch; m++)
                for (size_t r = 0; r < rows; r++)
                    for (size_t c = cols; c < (r + 1 < rows ? ld : cols); c++)
                        for (int k = 0; k < 2; k++)
                            set_value(h_in[k], dtype, m * s.stride + r * ld + c,
                                      cuspec__dtype_is_float(dtype) ? NAN
                                      : r % 2                       ? bottom
                                                                    : top);
            for (size_t m = 0; m < s.batch; m++)
                for (size_t c = cols - cols % vec; c < cols; c++) {
                    size_t last = m * s.stride + (rows - 1) * ld + c;
                    set_value(h_in[0], dtype, last, (c % 2) ? 3 : -3);
                    if (c % 3 == 0 && rows > 1)
                        set_value(h_in[0], dtype, last - ld * (rows / 2), (c % 2) ? 3 : -3);
                }
            int k = 0;
            for (; k < 2; k++) {
                CUresult rc = drv->cuMemAlloc(&d_in[k], n * size);
                if (rc != CUDA_SUCCESS) {
                    CASE_FAIL("cuMemAlloc of %zu bytes: CUresult %d", n * size, (int)rc);
                    break;
                }
                CU_OK(drv->cuMemcpyHtoD(d_in[k], h_in[k], n * size));
            }
            if (k == 2)
                for (int axis = 1; axis >= 0; axis--)
                    for (int kop = 0; kop < CUSPEC__AXIS_N_OPS; kop++)
                        if (shapes[w].all || kop == CUSPEC__AXIS_SUM ||
                            kop == CUSPEC__AXIS_ARGMIN || kop == CUSPEC__AXIS_ARGMAX)
                            run_case(axis, kop, dtype, &s);
            while (k-- > 0)
                CU_OK(drv->cuMemFree(d_in[k]));
        }
    }
    d_in[0] = keep[0];
    d_in[1] = keep[1];
    group_end();
}

/* Zeros of random sign only: every float dtype's argmin and argmax give the
 * first element of each row or column, its bytes (-0.0 where that is
 * -0.0): both zeros are equal, also where a warp ranks values by key
 * (reduce_types.cuh: warp_arg). Short rows, long rows split over blocks,
 * and columns (at most MAX_RESULTS of them). */
TEST(signed_zeros_tie)
{
    static const int floats[] = {CUSPEC_F32, CUSPEC_F64, CUSPEC_F16, CUSPEC_BF16};
    static const struct shape shapes[] = {{1000, 33, 33, 1, 0, 0},
                                          {64, 100000, 100000, 1, 0, 0},
                                          {4, 1 << 20, 1 << 20, 1, 0, 0},
                                          {3000, 1000, 1000, 1, 0, 0}};
    group_begin();
    for (size_t d = 0; d < sizeof floats / sizeof *floats; d++)
        for (size_t k = 0; k < sizeof shapes / sizeof *shapes; k++) {
            const struct shape *s = &shapes[k];
            for (size_t i = 0; i < extent(s); i++)
                set_value(h_in[0], floats[d], i, rng_next() & 1 ? -0.0 : 0.0);
            CU_OK(drv->cuMemcpyHtoD(d_in[0], h_in[0], extent(s) * cuspec_dtype_size(floats[d])));
            for (int axis = 1; axis >= 0; axis--)
                for (int kop = CUSPEC__AXIS_ARGMIN; kop <= CUSPEC__AXIS_ARGMAX; kop++)
                    run_case(axis, kop, floats[d], s);
        }
    group_end();
}

/* ## Empty reductions and bad arguments */

TEST(empty_reductions_write_the_identity)
{
    cuspec_matrix rows = {4, 0, 0, 1, 0}, cols = {0, 5, 5, 1, 0};
    float v[5];
    CUSPEC_OK_(cuspec_reduce_rows(ctx, CUSPEC_MIN, CUSPEC_F32, 0, &rows, d_value, 0, NULL));
    CU_OK(drv->cuMemcpyDtoH(v, d_value, 4 * sizeof *v));
    for (int i = 0; i < 4; i++)
        CHECK(isinf(v[i]) && v[i] > 0);
    CUSPEC_OK_(cuspec_reduce_cols(ctx, CUSPEC_MAX, CUSPEC_F32, 0, &cols, d_value, 0, NULL));
    CU_OK(drv->cuMemcpyDtoH(v, d_value, 5 * sizeof *v));
    for (int i = 0; i < 5; i++)
        CHECK(isinf(v[i]) && v[i] < 0);
    int64_t s[4];
    CU_OK(drv->cuMemsetD8(d_value, POISON, 64));
    CUSPEC_OK_(cuspec_reduce_rows(ctx, CUSPEC_SUM, CUSPEC_I32, 0, &rows, d_value, 0, NULL));
    CU_OK(drv->cuMemcpyDtoH(s, d_value, sizeof s));
    for (int i = 0; i < 4; i++)
        CHECK_INT_EQ(s[i], 0);
    /* No results: no work, even with NULL pointers. */
    cuspec_matrix none = {0, 10, 10, 1, 0};
    CUSPEC_OK_(cuspec_reduce_rows(ctx, CUSPEC_ARGMAX, CUSPEC_F32, 0, &none, 0, 0, NULL));
}

TEST(bad_arguments_rejected)
{
    group_begin();
    cuspec_matrix m = {10, 10, 10, 1, 0};
    check_refused(
        cuspec_reduce_rows(ctx, CUSPEC_SUM, CUSPEC_F32, d_in[0] + 2, &m, d_value, 0, NULL),
        "misaligned in", "in (0x");
    check_refused(cuspec_reduce_rows(ctx, CUSPEC_SUM, CUSPEC_F32, 0, &m, d_value, 0, NULL),
                  "NULL in", "in is NULL");
    check_refused(
        cuspec_reduce_cols(ctx, CUSPEC_ARGMIN, CUSPEC_F64, d_in[0], &m, d_value + 4, d_index, NULL),
        "misaligned value", "value (0x");
    check_refused(cuspec_reduce_cols(ctx, 7, CUSPEC_F64, d_in[0], &m, d_value, 0, NULL),
                  "unknown op", "unknown op");
    check_refused(cuspec_dot_rows(ctx, CUSPEC_I32, d_in[0], 0, &m, d_value, NULL), "NULL b",
                  "b is NULL");
    m.ld = 9;
    check_refused(cuspec_reduce_rows(ctx, CUSPEC_SUM, CUSPEC_F32, d_in[0], &m, d_value, 0, NULL),
                  "ld < cols", "ld (9) is less than cols (10)");
    group_end();
}

/* ## Non-default parameters through the variant path */

TEST(variants_sampled)
{
    static const struct shape shapes[] = {{1000, 33, 37, 1, 0, 1},
                                          {7, 5000, 5003, 1, 0, 1},
                                          {300, 300, 300, 1, 0, 0},
                                          {5, 70, 72, 3, 401, 1}}; /* a strided batch */
    static const int kops[] = {CUSPEC__AXIS_SUM, CUSPEC__AXIS_ARGMAX, CUSPEC__AXIS_DOT};
    static const int blocks[] = {128, 1024}, items[] = {1, 4};
    group_begin();
    for (size_t d = 0; d < 2; d++) {
        int dtype = d ? CUSPEC_I64 : CUSPEC_F32;
        size_t size = cuspec_dtype_size(dtype);
        upload(dtype, 1 << 22);
        for (int fam = CUSPEC__FAM_REDUCE_ROWS; fam <= CUSPEC__FAM_REDUCE_COLS; fam++) {
            const struct cuspec__family *f = cuspec__family(fam);
            /* rows: every lanes value, then the block-a-row kernel (rows_block)
             * and the block-a-chunk one (rows_split) */
            const int n_lanes = f->params[P_LANES].n + 2 * (fam == CUSPEC__FAM_REDUCE_ROWS);
            for (size_t o = 0; o < 3; o++)
                for (size_t si = 0; si < sizeof shapes / sizeof *shapes; si++)
                    for (int bi = 0; bi < 2; bi++)
                        for (int vi = 0; vi < 2; vi++)
                            for (int ii = 0; ii < 2; ii++)
                                for (int li = 0; li < n_lanes; li++) {
                                    const struct shape *s = &shapes[si];
                                    struct cuspec__variant v = {0};
                                    v.family = fam;
                                    v.dtype = dtype;
                                    v.op = kops[o];
                                    v.p[P_BLOCK] = blocks[bi];
                                    v.p[P_VEC] = vi ? 16 / (int)size : 1;
                                    v.p[P_ITEMS] = items[ii];
                                    const int lanes = f->params[P_LANES].n;
                                    const int rowblock = li < lanes ? 0 : li - lanes + 1;
                                    v.p[P_LANES] = rowblock ? 0 : f->params[P_LANES].values[li];
                                    v.p[P_GRID] = li % 2 && !rowblock ? 1 : 0;
                                    v.p[P_ROWBLOCK] = rowblock;
                                    if (!cuspec__variant_legal(&v)) /* tx wider than the block */
                                        continue;
                                    run_variant(&v, fam == CUSPEC__FAM_REDUCE_ROWS, s);
                                }
        }
    }
    /* rows_split's argmax of a batch of 5000 matrices of 16 x 130: 80000
     * rows, a block each, along y and z */
    struct cuspec__variant v = {.family = CUSPEC__FAM_REDUCE_ROWS, .dtype = CUSPEC_F32,
                                .op = CUSPEC__AXIS_ARGMAX};
    v.p[P_BLOCK] = 256;
    v.p[P_VEC] = 4;
    v.p[P_ITEMS] = 4;
    v.p[P_ROWBLOCK] = 2;
    const struct shape many = {16, 130, 130, 5000, 2080, 0};
    upload(CUSPEC_F32, many.rows * many.cols * many.batch);
    struct cuspec__axis_call m = {.kop = CUSPEC__AXIS_ARGMAX, .rows_axis = 1, .dtype = CUSPEC_F32,
                                  .a = d_in[0], .value = d_value, .index = d_index,
                                  .rows = many.rows, .cols = many.cols, .ld = many.ld,
                                  .stride = many.stride, .batch = many.batch};
    const size_t results = many.rows * many.batch;
    CU_OK(drv->cuMemsetD8(d_value, POISON, results * 8));
    CU_OK(drv->cuMemsetD8(d_index, POISON, results * 8));
    if (cuspec__axis_run(ctx, &v, NULL, &m, NULL, NULL) != CUSPEC_OK) {
        CASE_FAIL("rows_split argmax of 80000 rows: %s", cuspec_last_error());
    } else {
        CU_OK(drv->cuCtxSynchronize());
        CU_OK(drv->cuMemcpyDtoH(h_value, d_value, results * 4));
        CU_OK(drv->cuMemcpyDtoH(h_index, d_index, results * 8));
        for (size_t r = 0; r < results; r++)
            check_result(1, CUSPEC__AXIS_ARGMAX, CUSPEC_F32, &many, r, BOTH,
                         "rows_split argmax of 80000 rows");
    }
    /* rows_split has a block (a column of blocks) a row: 2^31 rows refused,
     * before anything is read */
    v.op = CUSPEC__AXIS_SUM;
    struct cuspec__axis_call c = {.kop = CUSPEC__AXIS_SUM, .rows_axis = 1, .dtype = CUSPEC_F32,
                                  .a = d_in[0], .value = d_value, .rows = 1ULL << 30,
                                  .cols = 1, .ld = 1, .stride = 1ULL << 30, .batch = 2};
    check_refused(cuspec__axis_run(ctx, &v, NULL, &c, NULL, NULL), "rows_split of 2^31 rows",
                  "rows_split takes at most 2^31 - 1 rows, not 2147483648");
    group_end();
}

/* ## Columns' argmin/argmax read flat (cuspec_reduce_cols_flat) */

/* The ops from `first` to argmax of s through the public call (run_case),
 * and the kernel that ran: one whose name starts with `kernel` for the ops
 * from `taking_from` (CUSPEC__AXIS_N_OPS: none), another before them. */
static void run_ops_taking(int rows_axis, int first, int dtype, const struct shape *s,
                           const char *kernel, int taking_from)
{
    for (int kop = first; kop <= CUSPEC__AXIS_ARGMAX; kop++) {
        run_case(rows_axis, kop, dtype, s);
        cuspec_launch_info li;
        CUSPEC_OK_(cuspec_last_launch(&li));
        if ((strncmp(li.kernel, kernel, strlen(kernel)) == 0) != (kop >= taking_from))
            CASE_FAIL("%s %s %zux%zu batch %zu stride %zu offset %zu ran %s", op_names[kop],
                      cuspec_dtype_name(dtype), s->rows, s->cols, s->batch, s->stride, s->offset,
                      li.kernel);
    }
}

/* One matrix of f32, i32 and u32 with ld == cols, 16-byte aligned, from 128
 * KB (1 to 32 vectors a row, rows off the kernel's tile too): each column's
 * extremes placed late, some twice (the first wins), f32's odd columns with
 * two NaNs (the first wins) and its even ones with -0.0 and +0.0 tied at the
 * top; the value alone and the index alone; the same matrix in a batch of
 * two and off the vector by an element (the columns kernel); a flat
 * variant handed in for a batch is refused. */
TEST(cols_flat_argmin_argmax)
{
    static const struct shape shapes[] = {
        {1 << 20, 4, 4, 1, 0, 0},          {1 << 20, 8, 8, 1, 0, 0},
        {(1 << 19) + 3, 16, 16, 1, 0, 0},  {(1 << 20) + 1, 32, 32, 1, 0, 0},
        {(1 << 18) + 77, 64, 64, 1, 0, 0}, {1 << 17, 128, 128, 1, 0, 0},
        {(1 << 16) + 5, 4, 4, 1, 0, 0},    {(1 << 10) + 1, 32, 32, 1, 0, 0}, /* 128 KB to 16 MB */
        {1 << 20, 32, 32, 2, 1 << 25, 0}, /* a batch: the columns kernel */
        {1 << 20, 32, 32, 1, 0, 1},       /* 4-byte aligned: the columns kernel */
        {(1 << 10) - 1, 32, 32, 1, 0, 0}, /* under 128 KB: the columns kernel */
    };
    enum { FLAT_SHAPES = 8 };
    static const int types[] = {CUSPEC_F32, CUSPEC_I32, CUSPEC_U32};
    group_begin();
    for (size_t d = 0; d < sizeof types / sizeof *types; d++) {
        const int dtype = types[d], f32 = dtype == CUSPEC_F32;
        for (size_t w = 0; w < sizeof shapes / sizeof *shapes; w++) {
            const struct shape *s = &shapes[w];
            const size_t n = extent(s);
            fill(h_in[0], dtype, n);
            for (size_t m = 0; m < s->batch; m++)
                for (size_t c = 0; c < s->cols; c++) {
                    const size_t at = s->offset + m * s->stride + c;
                    const size_t late = s->rows - 1 - (c * 7919) % (s->rows / 3);
                    const size_t later = late + (s->rows - late) / 2;
                    if (f32 && c % 2) {
                        set_value(h_in[0], dtype, at + late * s->ld, NAN);
                        set_value(h_in[0], dtype, at + later * s->ld, NAN);
                    } else if (f32) {
                        set_value(h_in[0], dtype, at + late * s->ld, 1e30);
                        set_value(h_in[0], dtype, at + later * s->ld, 1e30);
                        set_value(h_in[0], dtype, at + (late / 2) * s->ld, -1e30);
                        set_value(h_in[0], dtype, at + (late / 3) * s->ld, -1e30);
                    } else {
                        set_value(h_in[0], dtype, at + late * s->ld, 0x7fffff00);
                        set_value(h_in[0], dtype, at + later * s->ld, 0x7fffff00);
                        set_value(h_in[0], dtype, at + (late / 2) * s->ld,
                                  dtype == CUSPEC_I32 ? -0x7fffff00 : 0);
                    }
                }
            if (f32) /* +-0.0 tied at the top of column 0, everything else below */
                for (size_t r = 0; r < s->rows; r++)
                    set_value(h_in[0], dtype, s->offset + r * s->ld,
                              r == s->rows / 2   ? -0.0
                              : r == s->rows - 2 ? 0.0
                                                 : -1.0 - r % 4);
            CU_OK(drv->cuMemcpyHtoD(d_in[0], h_in[0], n * 4));
            run_ops_taking(0, CUSPEC__AXIS_ARGMIN, dtype, s, "cuspec_reduce_cols_flat<",
                           w < FLAT_SHAPES ? CUSPEC__AXIS_ARGMIN : CUSPEC__AXIS_N_OPS);
            if (w == 0) {
                run_case_asking(0, CUSPEC__AXIS_ARGMAX, dtype, s, VALUE);
                run_case_asking(0, CUSPEC__AXIS_ARGMIN, dtype, s, INDEX);
            }
        }
    }
    /* handed in for a batch, which the fit never gives it: refused */
    struct cuspec__variant v = {
        .family = CUSPEC__FAM_REDUCE_COLS,
        .dtype = CUSPEC_F32,
        .op = CUSPEC__AXIS_ARGMAX,
        .p = {[P_BLOCK] = 128, [P_VEC] = 4, [P_ITEMS] = 8, [P_LANES] = 8, [P_ROWBLOCK] = 1}};
    struct cuspec__axis_call c = {.kop = CUSPEC__AXIS_ARGMAX,
                                  .dtype = CUSPEC_F32,
                                  .a = d_in[0],
                                  .value = d_value,
                                  .index = d_index,
                                  .rows = 1000,
                                  .cols = 32,
                                  .ld = 32,
                                  .stride = 32000,
                                  .batch = 2};
    check_refused(cuspec__axis_run(ctx, &v, NULL, &c, NULL, NULL), "cols_flat of a batch",
                  "cols_flat takes argmin/argmax of one matrix (batch 1)");
    group_end();
}

/* ## Rows read flat (cuspec_reduce_rows_flat) */

/* Each row of s's extremes planted at two columns (the first of equals
 * wins), after a fill: f32's rows in three kinds, two NaNs (the first wins),
 * -0.0 and +0.0 tied at the top in either order of everything else below,
 * or +-1e30; integers the type's near-extremes. */
static void plant_rows(int dtype, const struct shape *s)
{
    const int f32 = dtype == CUSPEC_F32;
    const double hi = f32 ? 1e30 : 0x7fffff00, lo = dtype == CUSPEC_I32 ? -0x7fffff00
                                                    : f32               ? -1e30
                                                                        : 0;
    for (size_t m = 0; m < s->batch; m++)
        for (size_t r = 0; r < s->rows; r++) {
            const size_t at = s->offset + m * s->stride + r * s->ld, n = s->cols;
            const size_t first = (r * 7919) % (n - 1);
            const size_t second = first + 1 + (r * 31) % (n - 1 - first);
            if (f32 && r % 3 == 1) {
                set_value(h_in[0], dtype, at + first, NAN);
                set_value(h_in[0], dtype, at + second, NAN);
            } else if (f32 && r % 3 == 2) {
                for (size_t k = 0; k < n; k++)
                    set_value(h_in[0], dtype, at + k, -1.0 - (double)(k % 4));
                set_value(h_in[0], dtype, at + first, r % 2 ? -0.0 : 0.0);
                set_value(h_in[0], dtype, at + second, r % 2 ? 0.0 : -0.0);
            } else {
                set_value(h_in[0], dtype, at + (first + n / 2) % n, lo);
                set_value(h_in[0], dtype, at + (second + n / 2) % n, lo);
                set_value(h_in[0], dtype, at + first, hi);
                set_value(h_in[0], dtype, at + second, hi);
            }
        }
}

/* f32, i32 and u32 rows read flat: one matrix (or a batch of them end to
 * end) whose rows are 4 to 32 vectors of 16 bytes (1 to 8 lanes a row),
 * contiguous and 16-byte aligned, row counts off the kernel's tile,
 * extremes planted (plant_rows). Sums, min, max, argmin and argmax through
 * the public call, which takes rows_flat there from 16 MB, for argmin and
 * argmax at every size (also the value alone, the index alone), and the
 * rows kernel for a batch whose matrices are apart, for rows off the
 * vector and sums, min and max under 16 MB; sums, min and max
 * handed in, and argmin/argmax in other blocks and items; handed in for a
 * batch apart, refused. */
TEST(rows_flat_every_op)
{
    static const struct shape shapes[] = {
        {1 << 18, 16, 16, 1, 0, 0},              /* a lane a row */
        {(1 << 17) + 3, 32, 32, 1, 0, 0},        /* 2 lanes a row */
        {(1 << 16) + 77, 64, 64, 1, 0, 0},       /* 4 */
        {(1 << 15) + 5, 128, 128, 1, 0, 0},      /* 8 */
        {1 << 17, 32, 32, 2, 32 << 17, 0},       /* a batch end to end */
        {(1 << 14) + 3, 32, 32, 1, 0, 0},        /* 2 MB: argmin/argmax alone */
        {(1 << 12) + 1, 64, 64, 1, 0, 0},        /* 1 MB */
        {5, 16, 16, 1, 0, 0},                    /* 5 rows */
        {3, 128, 128, 1, 0, 0},                  /* 3 rows of 8 lanes: no whole tile */
        {1 << 17, 32, 32, 2, (32 << 17) + 4, 0}, /* matrices apart: the rows kernel */
        {1 << 18, 32, 32, 1, 0, 1},              /* 4-byte aligned: the rows kernel */
    };
    enum { FLAT_SHAPES = 9, WHOLE_FLAT = 5 };
    static const int types[] = {CUSPEC_F32, CUSPEC_I32, CUSPEC_U32};
    static const int others[] = {CUSPEC__AXIS_SUM, CUSPEC__AXIS_MIN, CUSPEC__AXIS_MAX};
    static const int shapes_of[][2] = {{128, 4}, {512, 8}, {256, 4}}; /* block, items */
    /* its defaults, handed in */
    const struct cuspec__variant rows_flat = {
        .family = CUSPEC__FAM_REDUCE_ROWS,
        .dtype = CUSPEC_F32,
        .op = CUSPEC__AXIS_ARGMAX,
        .p = {[P_BLOCK] = 256, [P_VEC] = 4, [P_ITEMS] = 8, [P_ROWBLOCK] = 3}};
    group_begin();
    for (size_t d = 0; d < sizeof types / sizeof *types; d++) {
        const int dtype = types[d];
        for (size_t w = 0; w < sizeof shapes / sizeof *shapes; w++) {
            const struct shape *s = &shapes[w];
            const size_t n = extent(s);
            fill(h_in[0], dtype, n);
            plant_rows(dtype, s);
            CU_OK(drv->cuMemcpyHtoD(d_in[0], h_in[0], n * 4));
            run_ops_taking(1, CUSPEC__AXIS_SUM, dtype, s, "cuspec_reduce_rows_flat<",
                           w < WHOLE_FLAT    ? CUSPEC__AXIS_SUM
                           : w < FLAT_SHAPES ? CUSPEC__AXIS_ARGMIN
                                             : CUSPEC__AXIS_N_OPS);
            if (w == 1) {
                run_case_asking(1, CUSPEC__AXIS_ARGMAX, dtype, s, VALUE);
                run_case_asking(1, CUSPEC__AXIS_ARGMIN, dtype, s, INDEX);
            }
            if (w >= FLAT_SHAPES)
                continue;
            struct cuspec__variant v = rows_flat;
            v.dtype = dtype;
            for (size_t o = 0; o < sizeof others / sizeof *others; o++) {
                v.op = others[o];
                run_variant(&v, 1, s);
            }
            v.op = w % 2 ? CUSPEC__AXIS_ARGMAX : CUSPEC__AXIS_ARGMIN;
            for (size_t k = 0; k < sizeof shapes_of / sizeof *shapes_of; k++) {
                v.p[P_BLOCK] = shapes_of[k][0];
                v.p[P_ITEMS] = shapes_of[k][1];
                run_variant(&v, 1, s);
            }
        }
    }
    /* handed in for a batch whose matrices are apart, which the fit never
     * gives it: refused */
    struct cuspec__variant v = rows_flat;
    const struct shape *apart = &shapes[FLAT_SHAPES];
    struct cuspec__axis_call c = {.rows_axis = 1,
                                  .kop = CUSPEC__AXIS_ARGMAX,
                                  .dtype = CUSPEC_F32,
                                  .a = d_in[0],
                                  .value = d_value,
                                  .index = d_index,
                                  .rows = apart->rows,
                                  .cols = apart->cols,
                                  .ld = apart->ld,
                                  .stride = apart->stride,
                                  .batch = apart->batch};
    check_refused(cuspec__axis_run(ctx, &v, NULL, &c, NULL, NULL), "rows_flat of a batch apart",
                  "rows_flat takes any op but dot of one matrix (or a batch of them end to end)");
    group_end();
}

/* ## Graphs: split reductions captured once, replayed 100 times */

TEST(graph_replayed_100_times)
{
    group_begin();
    upload(CUSPEC_F32, 0);
    CUstream st;
    CU_OK(drv->cuStreamCreate(&st, CU_STREAM_NON_BLOCKING));
    cuspec_matrix wide = {32, 1 << 20, 1 << 20, 1, 0}, tall = {1 << 20, 32, 32, 1, 0};
    CUdeviceptr v2 = d_value + 4096, i2 = d_index + 4096, v3 = d_value + 8192, i3 = d_index + 8192;
    CUgraph g = NULL;
    CUgraphExec exec = NULL;
    /* The tests before have filled the module table (1024): the captured
     * calls' kernels, loaded first, have been evicted and load again under
     * capture, where no eviction may synchronize the context. */
    printf("# %zu modules loaded before the capture\n", ctx->n_loaded);
    CU_OK(drv->cuStreamBeginCapture(st, CU_STREAM_CAPTURE_MODE_GLOBAL));
    CUSPEC_OK_(cuspec_reduce_rows(ctx, CUSPEC_SUM, CUSPEC_F32, d_in[0], &wide, d_value, 0, st));
    CUSPEC_OK_(cuspec_reduce_cols(ctx, CUSPEC_ARGMAX, CUSPEC_F32, d_in[1], &tall, v2, i2, st));
    /* few long rows' argmax: several blocks a row, their tickets and words */
    CUSPEC_OK_(cuspec_reduce_rows(ctx, CUSPEC_ARGMAX, CUSPEC_F32, d_in[0], &wide, v3, i3, st));
    CU_OK(drv->cuStreamEndCapture(st, &g));
    CU_OK(drv->cuGraphInstantiateWithFlags(&exec, g, 0));
    float first[32], again[32], first_a[32], again_a[32];
    int64_t first_i[32], again_i[32], first_r[32], again_r[32];
    for (int round = 0; round < 100 && exec != NULL; round++) {
        CU_OK(drv->cuMemsetD8Async(d_value, POISON, 12288, st));
        CU_OK(drv->cuMemsetD8Async(d_index, POISON, 12288, st));
        CU_OK(drv->cuGraphLaunch(exec, st));
        CU_OK(drv->cuStreamSynchronize(st));
        CU_OK(drv->cuMemcpyDtoH(round ? again : first, d_value, sizeof first));
        CU_OK(drv->cuMemcpyDtoH(round ? again_i : first_i, i2, sizeof first_i));
        CU_OK(drv->cuMemcpyDtoH(round ? again_a : first_a, v3, sizeof first_a));
        CU_OK(drv->cuMemcpyDtoH(round ? again_r : first_r, i3, sizeof first_r));
        if (round &&
            (memcmp(first, again, sizeof first) || memcmp(first_i, again_i, sizeof first_i) ||
             memcmp(first_a, again_a, sizeof first_a) || memcmp(first_r, again_r, sizeof first_r)))
            CASE_FAIL("replay %d differs from the first", round);
    }
    /* the first replay against the CPU */
    struct shape sw = {32, 1 << 20, 1 << 20, 1, 0, 0};
    memcpy(h_value, first, sizeof first);
    for (size_t o = 0; o < 32; o++)
        check_result(1, CUSPEC__AXIS_SUM, CUSPEC_F32, &sw, o, BOTH, "graph rows sum");
    memcpy(h_value, first_a, sizeof first_a);
    memcpy(h_index, first_r, sizeof first_r);
    for (size_t o = 0; o < 32; o++)
        check_result(1, CUSPEC__AXIS_ARGMAX, CUSPEC_F32, &sw, o, BOTH, "graph rows argmax");
    if (exec != NULL)
        drv->cuGraphExecDestroy(exec);
    if (g != NULL)
        drv->cuGraphDestroy(g);
    drv->cuStreamDestroy(st);
    group_end();
}

/* ## A copy, then the axis calls that read it */

/* 8 rounds: input k (in d_in[0], rows x CHAIN_COLS f32 each) copied into
 * buf (d_in[1]), then buf's column sums (to d_value) and row argmaxes (to
 * d_index), each round's results CHAIN_APART bytes from the last. The axis
 * calls launch programmatically at every size, the copies up to
 * CUSPEC__PDL_COPY_BYTES: each call waits for the one before. */
#define CHAIN_COLS 1000
#define CHAIN_APART 32768

struct axis_chain {
    size_t rows;
    CUdeviceptr buf;
};

static void chain(CUstream s, void *user)
{
    const struct axis_chain *c = user;
    const size_t n = c->rows * CHAIN_COLS;
    cuspec_matrix m = {c->rows, CHAIN_COLS, CHAIN_COLS, 1, 0};
    for (int k = 0; k < 8; k++) {
        CUdeviceptr at = (CUdeviceptr)k * CHAIN_APART;
        int rc = cuspec_copy(ctx, c->buf, d_in[0] + k * n * 4, n * 4, s);
        if (rc == CUSPEC_OK)
            rc = cuspec_reduce_cols(ctx, CUSPEC_SUM, CUSPEC_F32, c->buf, &m, d_value + at, 0, s);
        if (rc == CUSPEC_OK)
            rc = cuspec_reduce_rows(ctx, CUSPEC_ARGMAX, CUSPEC_F32, c->buf, &m, 0, d_index + at, s);
        if (rc != CUSPEC_OK) {
            CASE_FAIL("round %d of the chain: %s: %s", k, cuspec_strerror(rc), cuspec_last_error());
            return;
        }
    }
}

static void chain_poison(CUstream s, void *user)
{
    const struct axis_chain *c = user;
    CU_OK(drv->cuMemsetD8Async(d_value, POISON, 8 * CHAIN_APART, s));
    CU_OK(drv->cuMemsetD8Async(d_index, POISON, 8 * CHAIN_APART, s));
    CU_OK(drv->cuMemsetD8Async(c->buf, POISON, c->rows * CHAIN_COLS * 4, s));
}

static void chain_check(const char *how, void *user)
{
    const struct axis_chain *c = user;
    static unsigned char sums[8 * CHAIN_APART], args[8 * CHAIN_APART];
    CU_OK(drv->cuMemcpyDtoH(sums, d_value, sizeof sums));
    CU_OK(drv->cuMemcpyDtoH(args, d_index, sizeof args));
    for (int k = 0; k < 8; k++) {
        struct shape sh = {c->rows, CHAIN_COLS, CHAIN_COLS, 1, 0, k * c->rows * CHAIN_COLS};
        char what[96];
        snprintf(what, sizeof what, "%s: %zu rows, round %d's copy", how, c->rows, k);
        memcpy(h_value, sums + k * CHAIN_APART, CHAIN_COLS * 4);
        for (size_t o = 0; o < CHAIN_COLS; o++)
            check_result(0, CUSPEC__AXIS_SUM, CUSPEC_F32, &sh, o, VALUE, what);
        memcpy(h_index, args + k * CHAIN_APART, c->rows * 8);
        for (size_t o = 0; o < c->rows; o++)
            check_result(1, CUSPEC__AXIS_ARGMAX, CUSPEC_F32, &sh, o, INDEX, what);
    }
}

TEST(chained_copy_then_axis)
{
    group_begin();
    gpu_check_pdl(ctx, CUSPEC__FAM_REDUCE_ROWS, CUSPEC_F32, CUSPEC__AXIS_SUM);
    gpu_check_pdl(ctx, CUSPEC__FAM_REDUCE_COLS, CUSPEC_F32, CUSPEC__AXIS_SUM);
    /* The copies programmatic, then not. */
    static const size_t rows[2] = {512, 4096};
    CHECK(2 * rows[0] * CHAIN_COLS * 4 <= CUSPEC__PDL_COPY_BYTES &&
          2 * rows[1] * CHAIN_COLS * 4 > CUSPEC__PDL_COPY_BYTES);
    CHECK(rows[1] * 8 <= CHAIN_APART && 8 * rows[1] * CHAIN_COLS <= MAX_ELEMS * 2);
    for (int i = 0; i < 2; i++) {
        upload(CUSPEC_F32, 8 * rows[i] * CHAIN_COLS);
        struct axis_chain c = {rows[i], d_in[1]};
        const struct gpu_chain g = {chain_poison, chain, chain_check, &c};
        gpu_chain_run(&g);
    }
    group_end();
}

int main(void)
{
    if (gpu_cases_setup()) {
        for (int k = 0; k < 2; k++) {
            h_in[k] = malloc(MAX_ELEMS * 8);
            CU_OK(drv->cuMemAlloc(&d_in[k], MAX_ELEMS * 8));
        }
        h_value = malloc(MAX_RESULTS * 8 + GUARD);
        h_index = malloc(MAX_RESULTS * 8 + GUARD);
        CU_OK(drv->cuMemAlloc(&d_value, MAX_RESULTS * 8 + GUARD));
        CU_OK(drv->cuMemAlloc(&d_index, MAX_RESULTS * 8 + GUARD));
        /* The record-free kernels compiled on every core first, not one by one. */
        cuspec_compile_report rep;
        CUSPEC_OK_(cuspec_compile("reduce_rows", ctx->arch, 0, 0, NULL, NULL, &rep));
        CUSPEC_OK_(cuspec_compile("reduce_cols", ctx->arch, 0, 0, NULL, NULL, &rep));
    }
    static const struct tap_test tests[] = {
        TAP_ENTRY(f32_every_op_axis_shape),
        TAP_ENTRY(f64_every_op_axis_shape),
        TAP_ENTRY(i32_every_op_axis_shape),
        TAP_ENTRY(i64_every_op_axis_shape),
        TAP_ENTRY(u32_every_op_axis_shape),
        TAP_ENTRY(u64_every_op_axis_shape),
        TAP_ENTRY(f16_every_op_axis_shape),
        TAP_ENTRY(bf16_every_op_axis_shape),
        TAP_ENTRY(i8_every_op_axis_shape),
        TAP_ENTRY(u8_every_op_axis_shape),
        TAP_ENTRY(i16_every_op_axis_shape),
        TAP_ENTRY(u16_every_op_axis_shape),
        TAP_ENTRY(arg_value_or_index_alone),
        TAP_ENTRY(ties_and_nans),
        TAP_ENTRY(arg_ties_and_nans_at_every_position),
        TAP_ENTRY(padded_rows_with_a_partial_last_vector),
        TAP_ENTRY(signed_zeros_tie),
        TAP_ENTRY(empty_reductions_write_the_identity),
        TAP_ENTRY(bad_arguments_rejected),
        TAP_ENTRY(variants_sampled),
        TAP_ENTRY(cols_flat_argmin_argmax),
        TAP_ENTRY(rows_flat_every_op),
        TAP_ENTRY(graph_replayed_100_times),
        TAP_ENTRY(chained_copy_then_axis),
    };
    int rc = tap_run(tests, sizeof tests / sizeof *tests);
    for (int k = 0; k < 2; k++) {
        if (d_in[k])
            drv->cuMemFree(d_in[k]);
        free(h_in[k]);
    }
    if (d_value)
        drv->cuMemFree(d_value);
    if (d_index)
        drv->cuMemFree(d_index);
    free(h_value);
    free(h_index);
    if (ctx != NULL) {
        cuspec__ctx_leave(ctx, ctx_pushed);
        cuspec_ctx_destroy(ctx);
    }
    remove_store();
    return rc;
}
