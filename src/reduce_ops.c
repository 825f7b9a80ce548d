/* The reduce family's operation hooks (ops.h): its public spec, its size
 * buckets (log2 of n), the parameters a call picks, and how a workload runs
 * a reduction and checks it against the CPU's answer. */
#include "reduce.h"
#include "params.h"
#include "context.h"
#include "catalogue.h"
#include "error.h"
#include "text.h"

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

static int bucket(const struct cuspec__spec *s)
{
    return cuspec__log2_floor(s->n);
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

/* The smaller size first. */
static int nearby(int bucket, int d, int (*fn)(int bucket, void *user), void *user)
{
    for (int sign = -1; sign <= 1; sign += 2) {
        int nb = bucket + sign * d, rc;
        if (nb >= 0 && nb < 64 && (rc = fn(nb, user)) != 0)
            return rc;
    }
    return 0;
}

static int choose(cuspec_ctx *ctx, const struct cuspec__spec *s, struct cuspec__variant *v)
{
    memset(v, 0, sizeof *v);
    return cuspec__tuned_params(ctx, s, v);
}

static void io(const struct cuspec__spec *s, struct cuspec__io *io)
{
    unsigned inputs = s->op == CUSPEC__REDUCE_DOT ? 2 : 1;
    size_t bytes = cuspec_dtype_size(s->dtype) * s->n;
    *io = (struct cuspec__io){.inputs = inputs,
                              .in_bytes = bytes,
                              .out_bytes = 8, /* one result, the same for every call */
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
    return cuspec_reduce(ctx, s->op, s->dtype, in[0], s->n, out, stream);
}

/* ## The CPU's answer */

struct answer {
    size_t index; /* min/max: the element that wins */
    double sum, mag;
    uint64_t bits; /* integer sums and dots, modulo 2^64 */
};

static double get_f(const void *x, int dtype, size_t i)
{
    return dtype == CUSPEC_F32 ? ((const float *)x)[i] : ((const double *)x)[i];
}

/* Element i widened to 64 bits the way the kernel accumulates it. */
static uint64_t get_i(const void *x, int dtype, size_t i)
{
    switch (dtype) {
    case CUSPEC_I32:
        return (uint64_t)(int64_t)((const int32_t *)x)[i];
    case CUSPEC_U32:
        return ((const uint32_t *)x)[i];
    default:
        return ((const uint64_t *)x)[i];
    }
}

static int less(const void *x, int dtype, size_t i, size_t j)
{
    switch (dtype) {
    case CUSPEC_F32:
    case CUSPEC_F64:
        return get_f(x, dtype, i) < get_f(x, dtype, j);
    case CUSPEC_U32:
        return get_i(x, dtype, i) < get_i(x, dtype, j);
    default:
        return (int64_t)get_i(x, dtype, i) < (int64_t)get_i(x, dtype, j);
    }
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
    if (s->op == CUSPEC__REDUCE_MIN || s->op == CUSPEC__REDUCE_MAX) {
        for (size_t i = 1; i < s->n; i++)
            if (s->op == CUSPEC__REDUCE_MIN ? less(a, s->dtype, i, r->index)
                                            : less(a, s->dtype, r->index, i))
                r->index = i;
    } else if (s->dtype == CUSPEC_F32 || s->dtype == CUSPEC_F64) {
        for (size_t i = 0; i < s->n; i++) {
            double x = get_f(a, s->dtype, i) * (dot ? get_f(b, s->dtype, i) : 1.0);
            r->sum += x;
            r->mag += fabs(x);
        }
    } else {
        for (size_t i = 0; i < s->n; i++)
            r->bits += get_i(a, s->dtype, i) * (dot ? get_i(b, s->dtype, i) : 1);
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
    if (s->op == CUSPEC__REDUCE_MIN || s->op == CUSPEC__REDUCE_MAX) {
        *correct = s->n > 0 && memcmp(got, (const char *)in[0] + r->index * size, size) == 0;
    } else if (s->dtype == CUSPEC_F32 || s->dtype == CUSPEC_F64) {
        double g = s->dtype == CUSPEC_F32 ? *(const float *)got : *(const double *)got;
        double eps = s->dtype == CUSPEC_F32 ? 0x1p-24 : 0x1p-53;
        double diff = fabs(g - r->sum);
        *error = r->mag > 0 ? diff / r->mag : diff;
        *correct = *error <= 200 * eps; /* see the bound in cuspec.h */
    } else {
        *correct = memcmp(got, &r->bits, 8) == 0;
    }
}

static const char *const op_names[CUSPEC__REDUCE_N_OPS] = {"sum", "min", "max", "dot"};

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
