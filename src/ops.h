/* The operation-level facts of a tunable family: its hooks. The kernel facts
 * (parameters, rules, defaults) are in struct cuspec__family; these say what
 * an operation of the family is: how a public spec describes one, which
 * records serve it, how a call picks its kernel, and how a workload runs and
 * checks it. Code outside a family reaches the family through these only.
 * Internal. */
#ifndef CUSPEC_OPS_H
#define CUSPEC_OPS_H

#include "catalogue.h"
#include "driver.h"

/* One operation to tune, run or look parameters up for. The fields past
 * dtype describe its shape: a family uses those it needs, the rest are 0. */
struct cuspec__spec {
    int family;
    int op;                           /* the kernel's op, 0 .. the family's n_ops - 1 */
    int dtype;                        /* the kernel's dtype */
    unsigned long long n;             /* one-dimensional: elements */
    unsigned long long rows, cols;    /* matrices */
    int align;                        /* matrices: alignment class (elements);
                                       * axis calls: cuspec__axis_spec */
    unsigned long long ld_in, ld_out; /* matrices: leading dimensions, checked */
    unsigned long long batch;         /* matrices (0: one); axis calls along rows:
                                       * only where the matrices are apart
                                       * (cuspec__axis_spec) */
};

/* The byte a checked call's output is filled with first: output the
 * operation must not write (padding) still holds it afterwards. */
#define CUSPEC__POISON 0xA5

/* What a workload of a spec allocates, and what one call moves. */
struct cuspec__io {
    unsigned inputs;   /* input buffers (1 or 2), each of in_bytes */
    size_t in_bytes;   /* one input, its padding included */
    size_t out_bytes;  /* the output, its padding included */
    int out_rotates;   /* the output is as large as an input: rotated through a pool as they are */
    int values;        /* inputs are random values of the dtype, not random bits */
    double moved;      /* bytes one call must move: what GB/s counts */
    size_t copy_bytes; /* the benchmark's ceiling: copying this many bytes (0: none) */
};

struct cuspec__scratch;

struct cuspec__family_ops {
    /* Fills s from a public spec (its family already found), checking it:
     * CUSPEC_ERR_INVALID saying what is wrong. */
    int (*from_public)(const cuspec_tune_spec *in, struct cuspec__spec *s);
    /* CUSPEC_OK when s can be tuned, else the error saying why not. NULL:
     * every spec can. */
    int (*tunable)(const struct cuspec__spec *s);

    /* The size bucket records of s are kept under, its text in keys and
     * listings ("n=2^28"), and back: CUSPEC_ERR_CORRUPT saying what is out of
     * range, else the bucket and what it fixes of s (an alignment class). */
    int (*bucket)(const struct cuspec__spec *s);
    void (*bucket_text)(int bucket, char *buf, size_t size);
    int (*bucket_parse)(const char *text, int *bucket, struct cuspec__spec *s);
    /* Calls fn on each bucket `d` powers of two from `bucket` (in all of its
     * sizes together; d = 0: bucket itself) whose record may serve a call on
     * s, in the order a lookup prefers them; stops at and returns the first
     * non-zero fn returns. */
    int (*nearby)(const struct cuspec__spec *s, int bucket, int d,
                  int (*fn)(int bucket, void *user), void *user);
    /* The names of the ops in listings (n_ops of them); NULL: "-". */
    const char *const *op_names;

    /* The variant a call on s runs (v is zeroed first): the tuning record
     * for its bucket (cuspec__tuned_params) where one applies, else the
     * defaults for ctx's device; either fitted to s. Returns 1 when it came
     * from a record. */
    int (*choose)(cuspec_ctx *ctx, const struct cuspec__spec *s, struct cuspec__variant *v);
    /* The spec candidates are checked on: s itself (returns 0), or a smaller
     * one whose result shows the same faults (returns 1). NULL: s. */
    int (*check_spec)(const struct cuspec__spec *s, struct cuspec__spec *small);

    /* The buffers and bytes of a workload of s. */
    void (*io)(const struct cuspec__spec *s, struct cuspec__io *io);
    /* One call of s on device buffers (the context current): variant v, or
     * with v NULL the public call. `held`: scratch the caller holds for v's
     * calls (NULL: each takes its own). */
    int (*run)(cuspec_ctx *ctx, const struct cuspec__spec *s, const struct cuspec__variant *v,
               const CUdeviceptr in[2], CUdeviceptr out, CUstream stream,
               const struct cuspec__scratch *held);
    /* Variants take workspace scratch: graphs the tuner times hold one. */
    int scratch;
    /* The CPU's answer for inputs `in` (host copies), malloc'd (NULL: no
     * memory), and the output read back (out_bytes, poisoned before the
     * call) compared with it: *correct, and for floats *error, the error
     * relative to the inputs' magnitude. */
    void *(*reference)(const struct cuspec__spec *s, const void *const in[2]);
    void (*compare)(const struct cuspec__spec *s, const void *ref, const void *const in[2],
                    const void *got, int *correct, double *error);
};

/* The matrix families' nearby walk (records.c): calls visit on each (rows, cols) pair
 * of log2 sizes (0 to 63) d steps from (rows, cols) in both together, in the
 * order a lookup prefers them (rows from -d to d, for each the fewer
 * columns first); stops at and returns the first non-zero visit returns. */
int cuspec__walk_near(int rows, int cols, int d, int (*visit)(int rows, int cols, void *user),
                      void *user);

/* log2 of x rounded down (0 for 0): the unit of size buckets. */
static inline int cuspec__log2_floor(unsigned long long x)
{
    return x > 1 ? 63 - __builtin_clzll(x) : 0;
}

#endif /* CUSPEC_OPS_H */
