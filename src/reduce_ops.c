/* The reduce family's operation hooks (ops.h): its public spec, its size
 * buckets (log2 of n), the parameters a call picks, and how a workload runs
 * a reduction and checks it against the CPU's answer. */
#include "reduce.h"
#include "params.h"
#include "context.h"
#include "catalogue.h"
#include "error.h"
#include "text.h"
#include "dtype_values.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int from_public(const cuspec_tune_spec *in, struct cuspec__spec *s)
{
    s->op = cuspec__reduce_op(in->op);
    s->dtype = in->dtype;
    s->n = in->n;
    CUSPEC__RETURN_IF(cuspec_reduce_out_dtype(in->op, in->dtype) == 0, CUSPEC_ERR_INVALID,
                      "reduce does not take op %d on dtype %s", in->op,
                      cuspec_dtype_name(in->dtype) ? cuspec_dtype_name(in->dtype) : "?");
    CUSPEC__RETURN_IF(in->n == 0, CUSPEC_ERR_INVALID, "n is 0: nothing to tune");
    return CUSPEC_OK;
}

/* n's power of two rounded down, or up where the record-free choice there
 * is not n's: each class of shapes (src/reduce.c) ends at a power of two,
 * or an element short of one where a class from that one size follows,
 * so a size just above one is kept with the next, and a record tuned at
 * any size serves that size. */
static int bucket(const struct cuspec__spec *s)
{
    int b = cuspec__log2_floor(s->n);
    return b < 63 && !cuspec__reduce_same_choice(s, 1ULL << b) ? b + 1 : b;
}

static void bucket_text(int bucket, char *buf, size_t size)
{
    snprintf(buf, size, "n=2^%d", bucket);
}

static int bucket_parse(const char *text, int *bucket, struct cuspec__spec *s)
{
    (void)s; /* a reduction has no alignment class */
    CUSPEC__RETURN_IF(
        strncmp(text, "n=2^", 4) != 0 || !cuspec__parse_int(text + 4, '\0', 0, 63, bucket),
        CUSPEC_ERR_CORRUPT, "a record names bucket '%s' (n=2^K, K from 0 to 63)", text);
    return CUSPEC_OK;
}

/* The smaller size first; only buckets where the record-free choice at
 * their power of two is the call's: a record made for another size class's
 * kernel never serves it (docs/experiments/reduce.md: "Defaults by
 * size"). */
static int nearby(const struct cuspec__spec *s, int bucket, int d,
                  int (*fn)(int bucket, void *user), void *user)
{
    for (int sign = d == 0 ? 1 : -1; sign <= 1; sign += 2) {
        int nb = bucket + sign * d, rc;
        if (nb >= 0 && nb < 64 && cuspec__reduce_same_choice(s, 1ULL << nb) &&
            (rc = fn(nb, user)) != 0)
            return rc;
    }
    return 0;
}

static int choose(cuspec_ctx *ctx, const struct cuspec__spec *s, struct cuspec__variant *v)
{
    memset(v, 0, sizeof *v);
    return cuspec__reduce_params(ctx, s, v);
}

static void io(const struct cuspec__spec *s, struct cuspec__io *io)
{
    unsigned inputs = s->op == CUSPEC__REDUCE_DOT ? 2 : 1;
    size_t bytes = cuspec_dtype_size(s->dtype) * s->n;
    /* One result, the same for every call; argmin/argmax: the value in the
     * first 8 bytes, the index in the next. */
    *io = (struct cuspec__io){.inputs = inputs,
                              .in_bytes = bytes,
                              .out_bytes = cuspec__reduce_is_arg(s->op) ? 16 : 8,
                              .values = 1,
                              .moved = (double)bytes * inputs};
}

static int run(cuspec_ctx *ctx, const struct cuspec__spec *s, const struct cuspec__variant *v,
               const CUdeviceptr in[2], CUdeviceptr out, CUstream stream,
               const struct cuspec__scratch *held)
{
    int dot = s->op == CUSPEC__REDUCE_DOT;
    if (v != NULL)
        return cuspec__reduce_variant_on(ctx, v, in[0], dot ? in[1] : 0, s->n, out, stream, held);
    if (dot)
        return cuspec_dot(ctx, s->dtype, in[0], in[1], s->n, out, stream);
    if (cuspec__reduce_is_arg(s->op))
        return cuspec_argreduce(ctx, cuspec__reduce_public_op(s->op), s->dtype, in[0], s->n, out,
                                out + 8, stream);
    return cuspec_reduce(ctx, s->op, s->dtype, in[0], s->n, out, stream);
}

/* ## The CPU's answer */

struct answer {
    size_t index; /* min/max, argmin/argmax: the first element that wins */
    double sum, mag;
    uint64_t bits; /* integer sums and dots, modulo 2^64 */
};

/* x[i] < x[j]; a NaN is below every number when nan_low (argmin's order)
 * and above it otherwise (argmax's), and never below another NaN. */
static int less(const void *x, int dtype, size_t i, size_t j, int nan_low)
{
    if (cuspec__dtype_is_float(dtype)) {
        double a = cuspec__value_f(x, dtype, i), b = cuspec__value_f(x, dtype, j);
        if (isnan(a) || isnan(b))
            return nan_low ? isnan(a) && !isnan(b) : isnan(b) && !isnan(a);
        return a < b;
    }
    if (cuspec__dtype_is_unsigned(dtype))
        return cuspec__value_i(x, dtype, i) < cuspec__value_i(x, dtype, j);
    return (int64_t)cuspec__value_i(x, dtype, i) < (int64_t)cuspec__value_i(x, dtype, j);
}

/* Computed once per workload and kept: candidates are checked against it,
 * not against each other. */
static void *reference(const struct cuspec__spec *s, const void *const in[2])
{
    struct answer *r = calloc(1, sizeof *r);
    const void *a = in[0], *b = in[1];
    int dot = s->op == CUSPEC__REDUCE_DOT;
    if (r == NULL)
        return NULL;
    if (s->op != CUSPEC__REDUCE_SUM && s->op != CUSPEC__REDUCE_DOT) {
        /* The first of the extremes, a NaN first of all (the workloads'
         * inputs hold none: min and max need not say which NaN). */
        int low = s->op == CUSPEC__REDUCE_MIN || s->op == CUSPEC__REDUCE_ARGMIN;
        for (size_t i = 1; i < s->n; i++)
            if (low ? less(a, s->dtype, i, r->index, 1) : less(a, s->dtype, r->index, i, 0))
                r->index = i;
    } else if (cuspec__dtype_is_float(s->dtype)) {
        for (size_t i = 0; i < s->n; i++) {
            double x = cuspec__value_f(a, s->dtype, i) * (dot ? cuspec__value_f(b, s->dtype, i) : 1.0);
            r->sum += x;
            r->mag += fabs(x);
        }
    } else {
        for (size_t i = 0; i < s->n; i++)
            r->bits += cuspec__value_i(a, s->dtype, i) * (dot ? cuspec__value_i(b, s->dtype, i) : 1);
    }
    return r;
}

/* The result (the out dtype's bytes) against the CPU's. */
static void compare(const struct cuspec__spec *s, const void *ref, const void *const in[2],
                    const void *got, int *correct, double *error)
{
    const struct answer *r = ref;
    size_t size = cuspec_dtype_size(s->dtype);
    *error = 0;
    if (s->op != CUSPEC__REDUCE_SUM && s->op != CUSPEC__REDUCE_DOT) {
        /* the winning element's bytes; argmin/argmax: its index after them */
        int64_t index;
        memcpy(&index, (const char *)got + 8, 8);
        *correct = s->n > 0 && memcmp(got, (const char *)in[0] + r->index * size, size) == 0 &&
                   (!cuspec__reduce_is_arg(s->op) || index == (int64_t)r->index);
    } else if (cuspec__dtype_is_float(s->dtype)) {
        /* 16-bit floats sum in f32 */
        double g = s->dtype == CUSPEC_F64 ? *(const double *)got : *(const float *)got;
        double eps = s->dtype == CUSPEC_F64 ? 0x1p-53 : 0x1p-24;
        double diff = fabs(g - r->sum);
        *error = r->mag > 0 ? diff / r->mag : diff;
        *correct = *error <= 200 * eps; /* see the bound in cuspec.h */
    } else {
        *correct = memcmp(got, &r->bits, 8) == 0;
    }
}

static const char *const op_names[CUSPEC__REDUCE_N_OPS] = {"sum", "min",    "max",
                                                           "dot", "argmin", "argmax"};

const struct cuspec__family_ops cuspec__reduce_ops = {
    .from_public = from_public,
    .bucket = bucket,
    .bucket_text = bucket_text,
    .bucket_parse = bucket_parse,
    .nearby = nearby,
    .op_names = op_names,
    .choose = choose,
    .io = io,
    .run = run,
    .scratch = 1,
    .reference = reference,
    .compare = compare,
};
