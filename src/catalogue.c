/* The catalogue of kernel families and element types, and the enumeration
 * of specializations that ahead-of-time compilation and tuning walk. */
#include "family.h"

#include <string.h>

static const struct cuspec__family *const families[CUSPEC__N_FAMILIES] = {
    [CUSPEC__FAM_COPY] = &cuspec__family_copy,
    [CUSPEC__FAM_REDUCE] = &cuspec__family_reduce,
    [CUSPEC__FAM_TRANSPOSE] = &cuspec__family_transpose,
};

static const struct {
    const char *name;
    size_t size;
} dtypes[] = {
    [CUSPEC_F32] = {"f32", 4}, [CUSPEC_F64] = {"f64", 8}, [CUSPEC_I32] = {"i32", 4},
    [CUSPEC_I64] = {"i64", 8}, [CUSPEC_U32] = {"u32", 4}, [CUSPEC_U64] = {"u64", 8},
    [CUSPEC_I8] = {"i8", 1},   [CUSPEC_U8] = {"u8", 1},   [CUSPEC_I16] = {"i16", 2},
    [CUSPEC_U16] = {"u16", 2}, [CUSPEC_F16] = {"f16", 2}, [CUSPEC_BF16] = {"bf16", 2},
};
#define N_DTYPES (int)(sizeof dtypes / sizeof *dtypes)

size_t cuspec_dtype_size(int dtype)
{
    return dtype > 0 && dtype < N_DTYPES ? dtypes[dtype].size : 0;
}

const char *cuspec_dtype_name(int dtype)
{
    return dtype > 0 && dtype < N_DTYPES ? dtypes[dtype].name : NULL;
}

int cuspec_dtype_from_name(const char *name)
{
    for (int i = 1; name != NULL && i < N_DTYPES; i++)
        if (strcmp(dtypes[i].name, name) == 0)
            return i;
    return 0;
}

const struct cuspec__family *cuspec__family(int id)
{
    return id >= 0 && id < CUSPEC__N_FAMILIES ? families[id] : NULL;
}

int cuspec__family_find(const char *name)
{
    for (int i = 0; i < CUSPEC__N_FAMILIES; i++)
        if (strcmp(families[i]->name, name) == 0)
            return i;
    return -1;
}

const char *cuspec_family_name(int index)
{
    const struct cuspec__family *f = cuspec__family(index);
    return f ? f->name : NULL;
}

const char *cuspec_tier_name(int tier)
{
    static const char *const names[] = {
        [CUSPEC_TIER_TABLE] = "table",   [CUSPEC_TIER_STORE] = "store",
        [CUSPEC_TIER_SYSTEM] = "system", [CUSPEC_TIER_NVRTC] = "nvrtc",
        [CUSPEC_TIER_PTX] = "ptx",
    };
    return tier > 0 && tier <= CUSPEC_TIER_PTX ? names[tier] : NULL;
}

int cuspec__variant_legal(const struct cuspec__variant *v)
{
    const struct cuspec__family *f = cuspec__family(v->family);
    if (f == NULL)
        return 0;
    for (int i = 0; i < CUSPEC__MAX_PARAMS; i++) {
        int found = i >= f->n_params && v->p[i] == 0;
        for (int k = 0; i < f->n_params && k < f->params[i].n; k++)
            found |= v->p[i] == f->params[i].values[k];
        if (!found)
            return 0;
    }
    return f->legal(v);
}

/* Walks the cartesian product of parameter values from index `at` on: for
 * compiling (tune = 0) launch-only parameters stay at their first value, for
 * tuning (tune = 1) helper-kernel parameters do. */
static int each_param(const struct cuspec__family *f, struct cuspec__variant *v, int at, int tune,
                      int (*fn)(const struct cuspec__variant *, void *), void *user)
{
    if (at == f->n_params)
        return f->legal(v) ? fn(v, user) : 0;
    const struct cuspec__param *p = &f->params[at];
    int n = (tune ? p->not_tuned : p->launch_only) ? 1 : p->n;
    for (int i = 0; i < n; i++) {
        v->p[at] = p->values[i];
        int rc = each_param(f, v, at + 1, tune, fn, user);
        if (rc != 0)
            return rc;
    }
    return 0;
}

int cuspec__family_each(int family, int arch, int all,
                        int (*fn)(const struct cuspec__variant *v, void *user), void *user)
{
    const struct cuspec__family *f = cuspec__family(family);
    for (int d = 0; d < f->n_dtypes; d++)
        for (int op = 0; op < f->n_ops; op++) {
            struct cuspec__variant v;
            memset(&v, 0, sizeof v);
            v.family = family;
            v.dtype = f->dtypes[d];
            v.op = op;
            int rc;
            if (all) {
                rc = each_param(f, &v, 0, 0, fn, user);
            } else {
                f->defaults(arch, &v);
                rc = f->legal(&v) ? fn(&v, user) : 0;
                for (int k = 0, r = 0; rc == 0 && f->alternate != NULL && r >= 0; k++) {
                    struct cuspec__variant a = v;
                    r = f->alternate(&a, k);
                    if (r > 0)
                        rc = fn(&a, user);
                }
            }
            if (rc != 0)
                return rc;
        }
    return 0;
}

int cuspec__family_space(int family, int dtype, int op,
                         int (*fn)(const struct cuspec__variant *v, void *user), void *user)
{
    struct cuspec__variant v;
    memset(&v, 0, sizeof v);
    v.family = family;
    v.dtype = dtype;
    v.op = op;
    return each_param(cuspec__family(family), &v, 0, 1, fn, user);
}
