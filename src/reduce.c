/* The reduce family (templates/reduce.cuh): sum, min, max and dot, and the
 * cuspec_reduce / cuspec_dot operations. */
#include "reduce.h"
#include "params.h"
#include "context.h"
#include "workspace.h"
#include "catalogue.h"
#include "error.h"
#include "driver.h"

#include <stdio.h>

enum { P_BLOCK, P_ITEMS, P_VEC, P_SINGLE, P_GRID, P_STAGE };

/* Input and accumulator C types of the kernel for (dtype, op). */
static int types(int dtype, int op, const char **t, const char **acc)
{
    int wide = op == CUSPEC__REDUCE_SUM || op == CUSPEC__REDUCE_DOT;
    switch (dtype) {
    case CUSPEC_F32:
        *t = *acc = "float";
        return 4;
    case CUSPEC_F64:
        *t = *acc = "double";
        return 8;
    case CUSPEC_I64:
        *t = *acc = "long long";
        return 8;
    case CUSPEC_I32:
        *t = "int";
        *acc = wide ? "long long" : "int";
        return 4;
    case CUSPEC_U32:
        *t = "unsigned int";
        *acc = wide ? "unsigned long long" : "unsigned int";
        return 4;
    }
    return 0;
}

int cuspec__reduce_op(int op)
{
    return op == -1 ? CUSPEC__REDUCE_DOT : op >= 0 && op < CUSPEC__REDUCE_DOT ? op : -1;
}

/* The result's dtype for kernel op `op` on dtype, or 0. */
static int out_dtype(int op, int dtype)
{
    const char *t, *acc;
    if (op < 0 || types(dtype, op, &t, &acc) == 0)
        return 0;
    if (op == CUSPEC__REDUCE_SUM || op == CUSPEC__REDUCE_DOT)
        return dtype == CUSPEC_I32 ? CUSPEC_I64 : dtype == CUSPEC_U32 ? CUSPEC_U64 : dtype;
    return dtype;
}

int cuspec_reduce_out_dtype(int op, int dtype)
{
    return out_dtype(cuspec__reduce_op(op), dtype);
}

const char *cuspec_op_name(int op)
{
    static const char *const names[] = {"sum", "min", "max"};
    return op >= 0 && op < 3 ? names[op] : NULL;
}

/* Stage 1 is the second pass of two-launch variants: one canonical form per
 * (dtype, op, block), so it is compiled once. GRID is a launch parameter
 * (blocks per SM, 0 = as many as fit) that does not change the code. */
static int legal(const struct cuspec__variant *v)
{
    const char *t, *acc;
    int size = types(v->dtype, v->op, &t, &acc);
    if (size == 0 || v->op < 0 || v->op >= CUSPEC__REDUCE_N_OPS)
        return 0;
    if (v->p[P_STAGE] == 1)
        return v->p[P_ITEMS] == 1 && v->p[P_VEC] == 1 && v->p[P_SINGLE] == 0 && v->p[P_GRID] == 0;
    return v->p[P_VEC] * size <= 16;
}

static void expr(const struct cuspec__variant *v, char *buf, size_t size)
{
    const char *t = "?", *acc = "?";
    types(v->dtype, v->op, &t, &acc);
    if (v->p[P_STAGE] == 1)
        snprintf(buf, size, "cuspec_reduce_final<%s, %d, %d>", acc, v->op, v->p[P_BLOCK]);
    else
        snprintf(buf, size, "cuspec_reduce<%s, %s, %d, %d, %d, %d, %d>", t, acc, v->op,
                 v->p[P_BLOCK], v->p[P_ITEMS], v->p[P_VEC], v->p[P_SINGLE]);
}

static int threads(const struct cuspec__variant *v)
{
    return v->p[P_BLOCK];
}

static void defaults(int arch, struct cuspec__variant *v)
{
    const char *t, *acc;
    int size = types(v->dtype, v->op, &t, &acc);
    (void)arch;
    v->p[P_BLOCK] = 256;
    v->p[P_ITEMS] = 4;
    v->p[P_VEC] = size ? 16 / size : 1;
    v->p[P_SINGLE] = 1;
    /* 4 blocks of 256 per SM keep ~64 KB of loads in flight: the roofline
     * (docs/experiments/reduce.md: "Loads in flight") */
    v->p[P_GRID] = 4;
    v->p[P_STAGE] = 0;
}

const struct cuspec__family cuspec__family_reduce = {
    .name = "reduce",
    .template_file = "reduce.cuh",
    .waits_for_prior_grid = 1,
    .n_params = 6,
    .params =
        {
            [P_BLOCK] = {"block", 4, {128, 256, 512, 1024}},
            [P_ITEMS] = {"items", 4, {1, 2, 4, 8}},
            [P_VEC] = {"vec", 3, {1, 2, 4}},
            [P_SINGLE] = {"single", 2, {0, 1}},
            [P_GRID] = {"grid", 4, {0, 1, 2, 4}, 1},
            [P_STAGE] = {"stage", 2, {0, 1}, 0, 1},
        },
    .n_dtypes = 5,
    .dtypes = {CUSPEC_F32, CUSPEC_F64, CUSPEC_I32, CUSPEC_I64, CUSPEC_U32},
    .n_ops = CUSPEC__REDUCE_N_OPS,
    .legal = legal,
    .expr = expr,
    .threads = threads,
    .defaults = defaults,
    .ops = &cuspec__reduce_ops,
};

/* The kernels of *v and of its second pass. For a call on s (not NULL),
 * where either is unavailable, *v falls back (to a one-pass kernel: every
 * kernel calls choose without a record is one). */
static int kernels(cuspec_ctx *ctx, const struct cuspec__spec *s, struct cuspec__variant *v,
                   struct cuspec__variant *fin, struct cuspec__kernel *k, struct cuspec__kernel *fk)
{
    int rc = s != NULL ? cuspec__function_for(ctx, s, v, k) : cuspec__function(ctx, v, k);
    while (rc == CUSPEC_OK && !v->p[P_SINGLE]) {
        *fin = *v;
        fin->p[P_ITEMS] = fin->p[P_VEC] = 1;
        fin->p[P_SINGLE] = fin->p[P_GRID] = 0;
        fin->p[P_STAGE] = 1;
        rc = cuspec__helper_function(ctx, fin, fk);
        if (rc == CUSPEC_OK || s == NULL || !cuspec__unavailable(rc))
            return rc;
        struct cuspec__variant wanted = *v;
        rc = cuspec__fall_back(ctx, s, &wanted, rc, v, k);
    }
    return rc;
}

/* Runs *v, or for a call on s what it falls back to. */
static int launch(cuspec_ctx *ctx, struct cuspec__variant *v, const struct cuspec__spec *spec,
                  cuspec_devptr a, cuspec_devptr b, size_t n, cuspec_devptr out, CUstream stream,
                  const struct cuspec__scratch *held)
{
    struct cuspec__kernel k, fk;
    struct cuspec__variant fin;
    int rc = kernels(ctx, spec, v, &fin, &k, &fk);
    if (rc != CUSPEC_OK)
        return rc;

    unsigned long long per_block = (unsigned long long)v->p[P_BLOCK] * v->p[P_ITEMS] * v->p[P_VEC];
    unsigned long long need = n / per_block + (n % per_block != 0);
    int bps = v->p[P_GRID] && v->p[P_GRID] < k.blocks_per_sm ? v->p[P_GRID] : k.blocks_per_sm;
    unsigned long long grid = (unsigned long long)bps * ctx->info.sm_count;
    if (grid > need)
        grid = need;
    if (grid > CUSPEC__WS_PARTIALS)
        grid = CUSPEC__WS_PARTIALS;
    if (grid == 0)
        grid = 1;

    /* One block of a single-pass kernel writes the result itself: no scratch. */
    struct cuspec__scratch s = {0};
    int own = held == NULL && !(v->p[P_SINGLE] && grid == 1);
    if (own)
        rc = cuspec__scratch_take(ctx, stream, (unsigned)grid, v->p[P_SINGLE], &s);
    else if (held != NULL)
        s = *held;
    if (rc != CUSPEC_OK)
        return rc;

    unsigned long long count = n;
    CUdeviceptr partials = s.partials, ticket = s.ticket;
    void *args[] = {&a, &b, &count, &out, &partials, &ticket};
    const unsigned dims[3] = {(unsigned)grid, 1, 1}, one[3] = {1, 1, 1};
    unsigned long long bytes =
        n * cuspec_dtype_size(v->dtype) * (v->op == CUSPEC__REDUCE_DOT ? 2 : 1);
    rc = cuspec__launch(ctx, &k, v, dims, (unsigned)v->p[P_BLOCK],
                        bytes <= CUSPEC__PDL_STRIDED_BYTES, stream, args);
    if (rc == CUSPEC_OK && !v->p[P_SINGLE]) {
        unsigned int parts = (unsigned int)grid;
        void *fargs[] = {&partials, &parts, &out};
        rc = cuspec__launch(ctx, &fk, &fin, one, (unsigned)fin.p[P_BLOCK], 1, stream, fargs);
    }
    if (own) {
        int given = cuspec__scratch_give(ctx, stream, &s);
        rc = rc != CUSPEC_OK ? rc : given;
    }
    return rc;
}

int cuspec__reduce_variant_on(cuspec_ctx *ctx, const struct cuspec__variant *v, cuspec_devptr a,
                              cuspec_devptr b, size_t n, cuspec_devptr out, CUstream stream,
                              const struct cuspec__scratch *held)
{
    struct cuspec__variant use = *v;
    return launch(ctx, &use, NULL, a, b, n, out, stream, held);
}

int cuspec__reduce_variant(cuspec_ctx *ctx, const struct cuspec__variant *v, cuspec_devptr a,
                           cuspec_devptr b, size_t n, cuspec_devptr out, CUstream stream)
{
    return cuspec__reduce_variant_on(ctx, v, a, b, n, out, stream, NULL);
}

static int run(cuspec_ctx *ctx, int op, int dtype, cuspec_devptr a, cuspec_devptr b, size_t n,
               cuspec_devptr out, void *stream)
{
    const char *what = op == CUSPEC__REDUCE_DOT ? "cuspec_dot" : "cuspec_reduce";
    CUSPEC__RETURN_IF(ctx == NULL, CUSPEC_ERR_INVALID, "%s: ctx is NULL", what);
    int result = out_dtype(op, dtype);
    CUSPEC__RETURN_IF(op != CUSPEC__REDUCE_DOT && cuspec_op_name(op) == NULL, CUSPEC_ERR_INVALID,
                      "%s: unknown op %d (CUSPEC_SUM, CUSPEC_MIN or CUSPEC_MAX)", what, op);
    CUSPEC__RETURN_IF(result == 0, CUSPEC_ERR_INVALID,
                      "%s: dtype %d (%s) is not supported (f32, f64, i32, i64, u32)", what, dtype,
                      cuspec_dtype_name(dtype) ? cuspec_dtype_name(dtype) : "unknown");
    int pushed, rc = cuspec__ctx_enter(ctx, &pushed);
    if (rc != CUSPEC_OK)
        return rc;
    size_t size = cuspec_dtype_size(dtype);
    rc = cuspec__check_pointer(ctx, out, cuspec_dtype_size(result), "out");
    if (rc == CUSPEC_OK && n > 0)
        rc = cuspec__check_pointer(ctx, a, size, op == CUSPEC__REDUCE_DOT ? "a" : "in");
    if (rc == CUSPEC_OK && n > 0 && op == CUSPEC__REDUCE_DOT)
        rc = cuspec__check_pointer(ctx, b, size, "b");
    if (rc == CUSPEC_OK) {
        struct cuspec__variant v = {0};
        struct cuspec__spec spec = {.family = CUSPEC__FAM_REDUCE, .op = op, .dtype = dtype, .n = n};
        cuspec__tuned_params(ctx, &spec, &v);
        rc = launch(ctx, &v, &spec, a, op == CUSPEC__REDUCE_DOT ? b : 0, n, out, (CUstream)stream,
                    NULL);
    } else {
        rc = cuspec__fail_context(rc, "%s", what);
    }
    cuspec__ctx_leave(ctx, pushed);
    return rc;
}

int cuspec_reduce(cuspec_ctx *ctx, int op, int dtype, cuspec_devptr in, size_t n, cuspec_devptr out,
                  void *stream)
{
    /* Dot is an op of the kernel, not of this call (it takes two inputs). */
    CUSPEC__RETURN_IF(cuspec_op_name(op) == NULL, CUSPEC_ERR_INVALID,
                      "cuspec_reduce: unknown op %d (CUSPEC_SUM, CUSPEC_MIN or CUSPEC_MAX)", op);
    return run(ctx, op, dtype, in, 0, n, out, stream);
}

int cuspec_dot(cuspec_ctx *ctx, int dtype, cuspec_devptr a, cuspec_devptr b, size_t n,
               cuspec_devptr out, void *stream)
{
    return run(ctx, CUSPEC__REDUCE_DOT, dtype, a, b, n, out, stream);
}
