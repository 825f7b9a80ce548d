/* The reduce family's names that its files share (reduce.c: the kernels and
 * the public calls; reduce_ops.c: its operation hooks). Internal. */
#ifndef CUSPEC_REDUCE_H
#define CUSPEC_REDUCE_H

#include "ops.h"

/* The kernel's ops (the template's Op): the public cuspec_op values, then
 * dot, a map-reduce of two inputs. */
enum {
    CUSPEC__REDUCE_SUM,
    CUSPEC__REDUCE_MIN,
    CUSPEC__REDUCE_MAX,
    CUSPEC__REDUCE_DOT,
    CUSPEC__REDUCE_N_OPS
};

/* The kernel op of public op `op` (-1 is dot in cuspec_reduce_out_dtype
 * and cuspec_tune_spec), or -1 when it names none. */
int cuspec__reduce_op(int op);

extern const struct cuspec__family_ops cuspec__reduce_ops;

#endif /* CUSPEC_REDUCE_H */
