/* The axis reduction families' operation hooks (ops.h): their public spec
 * (rows, cols and the leading dimension of one matrix), their size buckets
 * (log2 of rows and of cols and the rows' alignment, never crossing a
 * shape class), the parameters
 * a call picks, and how a workload runs one and checks it against the
 * CPU's answer. */
#include "reduce_axis.h"
#include "catalogue.h"
#include "context.h"
#include "dtype_values.h"
#include "error.h"
#include "params.h"
#include "text.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int from_public(const cuspec_tune_spec *in, struct cuspec__spec *s)
{
    s->op = cuspec__axis_op(in->op);
    s->dtype = in->dtype;
    s->rows = in->rows;
    s->cols = in->cols;
    s->ld_in = in->ld_in ? in->ld_in : in->cols;
    const char *name = cuspec_dtype_name(in->dtype);
    CUSPEC__RETURN_IF(cuspec__axis_out_dtype(s->op, in->dtype) == 0, CUSPEC_ERR_INVALID,
                      "%s does not take op %d on dtype %s", in->family, in->op, name ? name : "?");
    CUSPEC__RETURN_IF(in->rows == 0 || in->cols == 0, CUSPEC_ERR_INVALID,
                      "a dimension is 0: nothing to tune");
    CUSPEC__RETURN_IF(s->ld_in < s->cols, CUSPEC_ERR_INVALID, "ld (%llu) is less than cols (%llu)",
                      s->ld_in, s->cols);
    unsigned long long bytes;
    CUSPEC__RETURN_IF(__builtin_mul_overflow(s->rows, s->ld_in, &bytes) ||
                          __builtin_mul_overflow(bytes, cuspec_dtype_size(s->dtype), &bytes) ||
                          bytes > SIZE_MAX,
                      CUSPEC_ERR_INVALID,
                      "a %llux%llu matrix with leading dimension %llu does not "
                      "fit in memory",
                      s->rows, s->cols, s->ld_in);
    return CUSPEC_OK;
}

/* A bucket is log2 rows and log2 cols, and the rows' alignment class
 * (docs/experiments/reduce_axis.md: "Records by alignment"): log2 of the
 * elements every row starts on plus one where short of the 16-byte vector,
 * 0 on it (whose text, and so its records' keys, is as before the class). */
static int align_code(const struct cuspec__spec *s)
{
    const size_t size = cuspec_dtype_size(s->dtype);
    const unsigned long long a = cuspec__axis_row_start(s);
    return size == 0 || a * size >= 16 ? 0 : cuspec__log2_floor(a) + 1;
}

/* The operations the flat kernels take (cuspec__axis_flat_spec; cols_flat
 * argmin/argmax, rows_flat every op but dot):
 * buckets of their own ("flat" in the text), so that a record of cols_flat
 * or rows_flat serves only shapes it takes, and a record of another shape
 * of the same sizes never replaces it. */
#define FLAT_BUCKET (1 << 24)

static int bucket(const struct cuspec__spec *s)
{
    return (cuspec__axis_flat_spec(s) ? FLAT_BUCKET : 0) | align_code(s) << 16 |
           cuspec__log2_floor(s->rows) << 8 | cuspec__log2_floor(s->cols);
}

static void bucket_text(int bucket, char *buf, size_t size)
{
    const int code = bucket >> 16 & 0xff, r = bucket >> 8 & 0xff, c = bucket & 0xff;
    int n = code > 0 ? snprintf(buf, size, "rows=2^%d cols=2^%d align=%d", r, c, 1 << (code - 1))
                     : snprintf(buf, size, "rows=2^%d cols=2^%d%s", r, c,
                                bucket & FLAT_BUCKET ? " flat" : "");
    if (size > 0 && (n < 0 || (size_t)n >= size))
        buf[0] = '\0'; /* cut short, it could name the aligned class */
}

/* The bucket's smallest shape, its rows on the vector but for align; one
 * matrix whose rows are contiguous where the text says flat, else padded
 * by a vector where they would be a flat kernel's. */
static int bucket_parse(const char *text, int *out, struct cuspec__spec *s)
{
    const size_t size = cuspec_dtype_size(s->dtype);
    const int aligned = strstr(text, " align=") == NULL;
    const char *flat = strstr(text, " flat");
    int r, c, a = 0;
    const char *p;
    int ok =
        strncmp(text, "rows=2^", 7) == 0 && (p = cuspec__parse_int(text + 7, ' ', 0, 63, &r)) &&
        strncmp(p, " cols=2^", 8) == 0 &&
        (p = cuspec__parse_int(p + 8, aligned && flat == NULL ? '\0' : ' ', 0, 63, &c)) &&
        (flat == NULL || (aligned && p == flat && strcmp(flat, " flat") == 0)) &&
        (aligned || (strncmp(p, " align=", 7) == 0 && cuspec__parse_int(p + 7, '\0', 1, 8, &a) &&
                     (a & (a - 1)) == 0 && a * size < 16));
    CUSPEC__RETURN_IF(!ok, CUSPEC_ERR_CORRUPT,
                      "a record names bucket '%s' (rows=2^R cols=2^C, R and C from 0 to 63, "
                      "then for rows off the 16-byte vector align=A, A a power of two of "
                      "fewer than 16 bytes of its dtype, or for the flat kernels' shapes flat)",
                      text);
    s->rows = 1ULL << r;
    s->cols = 1ULL << c;
    s->align = a;
    const unsigned long long vec = size ? 16 / size : 1;
    s->ld_in = (s->cols + vec - 1) / vec * vec;
    if (flat == NULL && cuspec__axis_flat_spec(s))
        s->ld_in += vec;
    CUSPEC__RETURN_IF(flat != NULL && !cuspec__axis_flat_spec(s), CUSPEC_ERR_CORRUPT,
                      "a record names bucket '%s', whose shapes no flat kernel takes", text);
    *out = bucket(s);
    return CUSPEC_OK;
}

struct near_walk {
    int family, op, cls, code, cols;
    size_t size;
    int (*fn)(int bucket, void *user);
    void *user;
};

static int visit(int rows, int cols, void *user)
{
    const struct near_walk *w = user;
    if (cuspec__axis_class(w->family, w->op, rows, cols, w->size) != w->cls)
        return 0;
    /* a flat record serves only its own columns (cols_flat's tx is the vectors a
     * row): past one of others, the walk goes on to farther rows */
    if ((w->code << 16 & FLAT_BUCKET) && cols != w->cols)
        return 0;
    return w->fn(w->code << 16 | rows << 8 | cols, w->user);
}

/* Rows and cols together, in the same shape class (of s's element size)
 * and alignment class: a record made for another class's kernel choice
 * never serves this one; flat buckets, rows alone. */
static int nearby_in(int family, const struct cuspec__spec *s, int bucket, int d,
                     int (*fn)(int bucket, void *user), void *user)
{
    const size_t size = cuspec_dtype_size(s->dtype);
    const int rb = bucket >> 8 & 0xff, cb = bucket & 0xff;
    const int cls = cuspec__axis_class(family, s->op, rb, cb, size);
    struct near_walk w = {family, s->op, cls, bucket >> 16, cb, size, fn, user};
    return cuspec__walk_near(rb, cb, d, visit, &w);
}

static int nearby_rows(const struct cuspec__spec *s, int bucket, int d,
                       int (*fn)(int bucket, void *user), void *user)
{
    return nearby_in(CUSPEC__FAM_REDUCE_ROWS, s, bucket, d, fn, user);
}

static int nearby_cols(const struct cuspec__spec *s, int bucket, int d,
                       int (*fn)(int bucket, void *user), void *user)
{
    return nearby_in(CUSPEC__FAM_REDUCE_COLS, s, bucket, d, fn, user);
}

static int choose(cuspec_ctx *ctx, const struct cuspec__spec *s, struct cuspec__variant *v)
{
    memset(v, 0, sizeof *v);
    int from_record = cuspec__tuned_params(ctx, s, v);
    /* A record of a flat kernel that does not fit s (one the tuner and import
     * do not make: a store entry written otherwise) gives way to the fit. */
    if (from_record && !cuspec__axis_fits(v, s)) {
        cuspec__variant_default(s->family, s->dtype, s->op, ctx->arch, v);
        from_record = 0;
    }
    cuspec__axis_fit(v, s, from_record);
    return from_record;
}

static unsigned long long results_of(const struct cuspec__spec *s)
{
    return s->family == CUSPEC__FAM_REDUCE_ROWS ? s->rows : s->cols;
}

/* The output: the values, then (argmin/argmax) the indices from the next
 * 8-byte boundary. */
static size_t values_bytes(const struct cuspec__spec *s)
{
    size_t bytes = results_of(s) * cuspec_dtype_size(cuspec__axis_out_dtype(s->op, s->dtype));
    return (bytes + 7) / 8 * 8;
}

static void io(const struct cuspec__spec *s, struct cuspec__io *io)
{
    unsigned inputs = s->op == CUSPEC__AXIS_DOT ? 2 : 1;
    size_t size = cuspec_dtype_size(s->dtype);
    *io = (struct cuspec__io){.inputs = inputs,
                              .in_bytes = size * s->rows * s->ld_in,
                              .out_bytes = values_bytes(s) +
                                           (cuspec__axis_is_arg(s->op) ? 8 * results_of(s) : 0),
                              .values = 1,
                              .moved = (double)size * s->rows * s->cols * inputs};
}

static int run(cuspec_ctx *ctx, const struct cuspec__spec *s, const struct cuspec__variant *v,
               const CUdeviceptr in[2], CUdeviceptr out, CUstream stream,
               const struct cuspec__scratch *held)
{
    int rows_axis = s->family == CUSPEC__FAM_REDUCE_ROWS, dot = s->op == CUSPEC__AXIS_DOT;
    CUdeviceptr index = cuspec__axis_is_arg(s->op) ? out + values_bytes(s) : 0;
    if (v != NULL) {
        struct cuspec__axis_call c = {.rows_axis = rows_axis,
                                      .kop = s->op,
                                      .dtype = s->dtype,
                                      .a = in[0],
                                      .b = dot ? in[1] : 0,
                                      .value = out,
                                      .index = index,
                                      .rows = s->rows,
                                      .cols = s->cols,
                                      .ld = s->ld_in,
                                      .batch = 1};
        struct cuspec__variant use = *v;
        return cuspec__axis_run(ctx, &use, NULL, &c, stream, held);
    }
    cuspec_matrix m = {s->rows, s->cols, s->ld_in, 1, 0};
    if (dot)
        return rows_axis ? cuspec_dot_rows(ctx, s->dtype, in[0], in[1], &m, out, stream)
                         : cuspec_dot_cols(ctx, s->dtype, in[0], in[1], &m, out, stream);
    return rows_axis ? cuspec_reduce_rows(ctx, s->op, s->dtype, in[0], &m, out, index, stream)
                     : cuspec_reduce_cols(ctx, s->op, s->dtype, in[0], &m, out, index, stream);
}

/* ## The CPU's answer */

struct answer {
    size_t index; /* min, max, arg: the element that wins (its place in the input) */
    double sum, mag;
    uint64_t bits; /* integer sums and dots, modulo 2^64 */
};

/* Element i beats element j (an earlier one) for min (or max): a NaN wins
 * over a number, then the strictly better value. */
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

/* Kept per workload: candidates are checked against it, not each other. */
static void *reference(const struct cuspec__spec *s, const void *const in[2])
{
    unsigned long long results = results_of(s);
    int rows_axis = s->family == CUSPEC__FAM_REDUCE_ROWS;
    unsigned long long length = rows_axis ? s->cols : s->rows;
    unsigned long long along = rows_axis ? 1 : s->ld_in, across = rows_axis ? s->ld_in : 1;
    struct answer *ans = calloc(results ? results : 1, sizeof *ans);
    if (ans == NULL)
        return NULL;
    for (unsigned long long o = 0; o < results; o++) {
        struct answer *r = &ans[o];
        size_t first = o * across;
        r->index = first;
        for (unsigned long long e = 0; e < length; e++) {
            size_t i = first + e * along;
            if (s->op == CUSPEC__AXIS_SUM || s->op == CUSPEC__AXIS_DOT) {
                int dot = s->op == CUSPEC__AXIS_DOT;
                if (cuspec__dtype_is_float(s->dtype)) {
                    double x = cuspec__value_f(in[0], s->dtype, i) *
                               (dot ? cuspec__value_f(in[1], s->dtype, i) : 1);
                    r->sum += x;
                    r->mag += fabs(x);
                } else {
                    r->bits += cuspec__value_i(in[0], s->dtype, i) *
                               (dot ? cuspec__value_i(in[1], s->dtype, i) : 1);
                }
            } else if (e > 0 && beats(in[0], s->dtype,
                                      s->op == CUSPEC__AXIS_MAX || s->op == CUSPEC__AXIS_ARGMAX, i,
                                      r->index)) {
                r->index = i;
            }
        }
    }
    return ans;
}

/* The output read back against the CPU's: exact but for float sums, which
 * may be off by the bound cuspec.h gives. */
static void compare(const struct cuspec__spec *s, const void *ref, const void *const in[2],
                    const void *got, int *correct, double *error)
{
    const struct answer *ans = ref;
    unsigned long long results = results_of(s);
    int rows_axis = s->family == CUSPEC__FAM_REDUCE_ROWS;
    unsigned long long length = rows_axis ? s->cols : s->rows;
    unsigned long long along = rows_axis ? 1 : s->ld_in;
    size_t size = cuspec_dtype_size(s->dtype);
    const int64_t *index = (const int64_t *)((const char *)got + values_bytes(s));
    /* floats sum in f32 (f16, bf16 too) or f64, the type they write */
    int sum_f32 = cuspec__axis_out_dtype(s->op, s->dtype) == CUSPEC_F32;
    double eps = sum_f32 ? 0x1p-24 : 0x1p-53;
    *correct = 1;
    *error = 0;
    for (unsigned long long o = 0; o < results && *correct; o++) {
        const struct answer *r = &ans[o];
        if (s->op != CUSPEC__AXIS_SUM && s->op != CUSPEC__AXIS_DOT) {
            *correct = memcmp((const char *)got + o * size, (const char *)in[0] + r->index * size,
                              size) == 0;
            if (cuspec__axis_is_arg(s->op))
                *correct &=
                    (uint64_t)index[o] == (r->index - (rows_axis ? o * s->ld_in : o)) / along;
        } else if (cuspec__dtype_is_float(s->dtype)) {
            double g = sum_f32 ? ((const float *)got)[o] : ((const double *)got)[o];
            double diff = fabs(g - r->sum), e = r->mag > 0 ? diff / r->mag : diff;
            *error = e > *error ? e : *error;
            *correct = e <= ((double)length / 8 + 64) * eps; /* the bound in cuspec.h */
        } else {
            *correct = memcmp((const char *)got + o * 8, &r->bits, 8) == 0;
        }
    }
}

static const char *const op_names[CUSPEC__AXIS_N_OPS] = {"sum",    "min",    "max",
                                                         "argmin", "argmax", "dot"};

const struct cuspec__family_ops cuspec__axis_rows_ops = {
    .from_public = from_public,
    .bucket = bucket,
    .bucket_text = bucket_text,
    .bucket_parse = bucket_parse,
    .nearby = nearby_rows,
    .op_names = op_names,
    .choose = choose,
    .io = io,
    .run = run,
    .scratch = 1,
    .reference = reference,
    .compare = compare,
};

const struct cuspec__family_ops cuspec__axis_cols_ops = {
    .from_public = from_public,
    .bucket = bucket,
    .bucket_text = bucket_text,
    .bucket_parse = bucket_parse,
    .nearby = nearby_cols,
    .op_names = op_names,
    .choose = choose,
    .io = io,
    .run = run,
    .scratch = 1,
    .reference = reference,
    .compare = compare,
};
