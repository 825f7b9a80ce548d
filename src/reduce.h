/* The reduce family's names that its files and the tests share (reduce.c:
 * the kernels and the public calls; reduce_ops.c: its operation hooks).
 * Internal. */
#ifndef CUSPEC_REDUCE_H
#define CUSPEC_REDUCE_H

#include "ops.h"

/* The kernel's ops (the template's OP): sum, min and max (the public
 * cuspec_op values), dot, a map-reduce of two inputs, then argmin and
 * argmax (public 3 and 4), which write a value and an index. */
enum {
    CUSPEC__REDUCE_SUM,
    CUSPEC__REDUCE_MIN,
    CUSPEC__REDUCE_MAX,
    CUSPEC__REDUCE_DOT,
    CUSPEC__REDUCE_ARGMIN,
    CUSPEC__REDUCE_ARGMAX,
    CUSPEC__REDUCE_N_OPS
};

/* The kernel op of public op `op` (-1 is dot in cuspec_reduce_out_dtype
 * and cuspec_tune_spec), or -1 when it names none. */
int cuspec__reduce_op(int op);
/* The public op of kernel op `op` (-1 for dot). */
int cuspec__reduce_public_op(int op);
/* Whether kernel op `op` is argmin or argmax. */
static inline int cuspec__reduce_is_arg(int op)
{
    return op == CUSPEC__REDUCE_ARGMIN || op == CUSPEC__REDUCE_ARGMAX;
}

extern const struct cuspec__family_ops cuspec__reduce_ops;

/* The parameters of a call on s: its tuning record's, else the defaults
 * fitted to s (a shape for its size and op, its loads through L1 from 32
 * MB read); 1 when from a record. */
int cuspec__reduce_params(cuspec_ctx *ctx, const struct cuspec__spec *s, struct cuspec__variant *v);
/* 1 when a call of s's family, dtype and op on n elements makes the same
 * record-free choice as one on s (a record of n's size may serve s). */
int cuspec__reduce_same_choice(const struct cuspec__spec *s, unsigned long long n);

/* Runs reduce variant v (dot, with b, when v->op is CUSPEC__REDUCE_DOT);
 * the context must be current and the arguments checked. argmin and argmax
 * write their value at out and their index (an i64) at out + 8. A final
 * pass (stage 1) is refused: it runs only after its first. */
int cuspec__reduce_variant(cuspec_ctx *ctx, const struct cuspec__variant *v, cuspec_devptr a,
                           cuspec_devptr b, size_t n, cuspec_devptr out, CUstream stream);
/* The same on scratch the caller took with cuspec__scratch_take (a whole
 * slot, with its ticket) and keeps until every launch that uses it is over:
 * the tuner's graphs, which it alone launches, time kernels as direct calls
 * run them. */
int cuspec__reduce_variant_on(cuspec_ctx *ctx, const struct cuspec__variant *v, cuspec_devptr a,
                              cuspec_devptr b, size_t n, cuspec_devptr out, CUstream stream,
                              const struct cuspec__scratch *held);

#endif /* CUSPEC_REDUCE_H */
