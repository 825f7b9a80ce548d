/* The kernel catalogue (catalogue.c): the registry of families, each of
 * which declares its template, its parameters and their legal values, the
 * rules that prune illegal combinations, its name expressions, its default
 * parameters and (ops.h) its operation hooks. Internal. */
#ifndef CUSPEC_CATALOGUE_H
#define CUSPEC_CATALOGUE_H

#include "error.h"

#define CUSPEC__MAX_PARAMS 7
#define CUSPEC__MAX_VALUES 9

/* The registry: one line per family, its id and the suffix of its struct
 * (cuspec__family_NAME, defined in the family's own file). A new family is
 * that file and one line here. */
#define CUSPEC__FAMILIES(X)                                                                        \
    X(COPY, copy)                                                                                  \
    X(REDUCE, reduce) X(TRANSPOSE, transpose) X(LESSONS, lessons) X(REDUCE_ROWS, reduce_rows)      \
        X(REDUCE_COLS, reduce_cols)

enum {
#define CUSPEC__FAMILY_ID(id, name) CUSPEC__FAM_##id,
    CUSPEC__FAMILIES(CUSPEC__FAMILY_ID)
#undef CUSPEC__FAMILY_ID
        CUSPEC__N_FAMILIES
};

/* One specialization: everything that selects a kernel instance. Compared
 * and hashed as bytes, so always zero-initialise before filling. */
struct cuspec__variant {
    int family;
    int dtype; /* cuspec_dtype the instance is for; 0 where the family has none */
    int op;    /* family-specific operation (reduce: sum, min, max, dot), else 0 */
    int p[CUSPEC__MAX_PARAMS];
};

struct cuspec__param {
    const char *name;
    int n;
    int values[CUSPEC__MAX_VALUES];
    int launch_only; /* changes the launch, not the code: not part of the kernel */
    int not_tuned;   /* only the first value is a tuning candidate (helper kernels) */
};

struct cuspec__spec;
struct cuspec__family_ops;

struct cuspec__family {
    const char *name;
    const char *template_file; /* under templates/, embedded */
    /* The template of v's kernel, for families whose kernels have several
     * (then template_file is NULL). */
    const char *(*template_of)(const struct cuspec__variant *v);
    int n_params;
    struct cuspec__param params[CUSPEC__MAX_PARAMS];
    int n_dtypes;
    int dtypes[12]; /* 0 alone: the family has no dtype */
    int n_ops;      /* ops 0 .. n_ops-1 */
    /* 1 when v obeys the family's rules (on any device). */
    int (*legal)(const struct cuspec__variant *v);
    /* The NVRTC name expression of v. */
    void (*expr)(const struct cuspec__variant *v, char *buf, size_t size);
    /* Threads per block of v's kernel. */
    int (*threads)(const struct cuspec__variant *v);
    /* Fills v->p with the defaults for sm_`arch` (family, dtype, op set). */
    void (*defaults)(int arch, struct cuspec__variant *v);
    /* 1 when v can run the operation spec describes (NULL: any legal v can). */
    int (*fits)(const struct cuspec__variant *v, const struct cuspec__spec *s);
    /* Fits defaults v to the operation s describes: what a call without a
     * tuning record runs (NULL: the defaults serve every operation). */
    void (*fit)(struct cuspec__variant *v, const struct cuspec__spec *s);
    /* Fits v, the defaults (as `defaults` fills them), to s in the
     * record-free shape of a kernel of the family that `fit` does not
     * choose for s but that takes it, where there is one: 1 then, else 0.
     * The tuner times it beside the defaults, so that a kernel whose good
     * shape is more than one step from the fit's is searched (NULL: none). */
    int (*alternative)(struct cuspec__variant *v, const struct cuspec__spec *s);
    /* Calls fn on one spec of (dtype, op) for each class of shapes and
     * alignments that `fit` tells apart, so that the defaults fitted to them
     * are every kernel a call can choose without a record; stops at and
     * returns the first non-zero fn returns. NULL: the defaults alone. */
    int (*classes)(int dtype, int op, int (*fn)(const struct cuspec__spec *s, void *user),
                   void *user);
    /* 1, and the second kernel in *h, when a call of v launches one after
     * v (reduce: the final pass of two launches); NULL: never. */
    int (*helper)(const struct cuspec__variant *v, struct cuspec__variant *h);
    /* The operation-level hooks (ops.h); NULL: the family is not tunable. */
    const struct cuspec__family_ops *ops;
    /* 1: every kernel starts with CUSPEC_AFTER_PRIOR_GRID() (prior_grid.cuh),
     * so code made for sm_90 or later may launch programmatically. */
    int waits_for_prior_grid;
    /* The blocks a multiprocessor that v's kernel is held to by dynamic
     * shared memory leaving room for no more, which its launches give it
     * (set at its load); 0 or NULL: none. */
    int (*held_per_sm)(const struct cuspec__variant *v);
};

#define CUSPEC__FAMILY_EXTERN(id, name) extern const struct cuspec__family cuspec__family_##name;
CUSPEC__FAMILIES(CUSPEC__FAMILY_EXTERN)
#undef CUSPEC__FAMILY_EXTERN

/* The family with index `id`, or NULL. */
const struct cuspec__family *cuspec__family(int id);
/* The family id named `name`, or -1. */
int cuspec__family_find(const char *name);
/* The operation hooks of family `id`: NULL when it has none (it is not
 * tunable) or there is no such family. */
const struct cuspec__family_ops *cuspec__ops(int id);
/* The families' names, ", "-separated, for messages: all, or with
 * `tunable` those with operation hooks. */
void cuspec__family_list(int tunable, char *buf, size_t size);

/* Zeroes v and fills it with the defaults of (family, dtype, op) for
 * sm_`arch`. */
void cuspec__variant_default(int family, int dtype, int op, int arch, struct cuspec__variant *v);

/* 1 when every parameter of v takes one of its family's declared values
 * (those past n_params 0) and the family's rules accept v: the check for
 * parameters that come from outside, such as tuning records. */
int cuspec__variant_legal(const struct cuspec__variant *v);

/* 1 when v can run the operation s describes: its family's fits, where it
 * has one. */
int cuspec__variant_fits(const struct cuspec__variant *v, const struct cuspec__spec *s);

/* The kernel a call on s runs on sm_`arch` without a tuning record: the
 * defaults, fitted to s. */
void cuspec__variant_choose(const struct cuspec__spec *s, int arch, struct cuspec__variant *v);
/* The family's alternative to that (its `alternative`) in *v: 1, or 0 where
 * it has none for s. */
int cuspec__variant_alternative(const struct cuspec__spec *s, int arch, struct cuspec__variant *v);

/* Calls fn once for each kernel a call of (family, dtype, op) can choose on
 * sm_`arch` without a tuning record (the defaults fitted to every class of
 * the family's `classes`): what the build prebuilds, `cuspec compile
 * --check` checks and a call without NVRTC falls back to. Stops at and
 * returns the first non-zero fn returns. */
int cuspec__family_choices(int family, int dtype, int op, int arch,
                           int (*fn)(const struct cuspec__variant *v, void *user), void *user);

/* Calls fn for each specialization of `family` to compile ahead of time:
 * cuspec__family_choices of every dtype and op and the helper kernels they
 * launch after them, or with `all` every legal
 * combination of parameter values (launch-only parameters at their first
 * value, so each kernel comes once). Stops early and returns a non-zero
 * value fn returns. */
int cuspec__family_each(int family, int arch, int all,
                        int (*fn)(const struct cuspec__variant *v, void *user), void *user);

/* Calls fn for every tuning candidate of (family, dtype, op): every legal
 * combination, launch-only parameters at all their values. */
int cuspec__family_space(int family, int dtype, int op,
                         int (*fn)(const struct cuspec__variant *v, void *user), void *user);

/* v with its launch-only parameters at their first values: the kernel it
 * runs, one for all its launches. */
void cuspec__variant_kernel(const struct cuspec__variant *v, struct cuspec__variant *k);

/* Whether a and b run the same kernel (they differ at most in launch-only
 * parameters). */
int cuspec__same_kernel(const struct cuspec__variant *a, const struct cuspec__variant *b);

/* The variant's name expression, for messages. */
void cuspec__variant_name(const struct cuspec__variant *v, char *buf, size_t size);
/* "block=256 items=4 ..." for v: its tuned parameters. */
void cuspec__params_text(const struct cuspec__variant *v, char *buf, size_t size);

#endif /* CUSPEC_CATALOGUE_H */
