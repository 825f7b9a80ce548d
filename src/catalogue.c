/* The catalogue of kernel families (the registry), and the enumeration of
 * specializations that ahead-of-time compilation and tuning walk. */
#include "catalogue.h"

#include <stdio.h>
#include <string.h>

static const struct cuspec__family *const families[CUSPEC__N_FAMILIES] = {
#define CUSPEC__FAMILY_ENTRY(id, name) [CUSPEC__FAM_##id] = &cuspec__family_##name,
    CUSPEC__FAMILIES(CUSPEC__FAMILY_ENTRY)
#undef CUSPEC__FAMILY_ENTRY
};

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

const struct cuspec__family_ops *cuspec__ops(int id)
{
    const struct cuspec__family *f = cuspec__family(id);
    return f ? f->ops : NULL;
}

void cuspec__family_list(int tunable, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < CUSPEC__N_FAMILIES && len < size; i++)
        if (!tunable || families[i]->ops != NULL)
            len +=
                (size_t)snprintf(buf + len, size - len, "%s%s", len ? ", " : "", families[i]->name);
}

void cuspec__variant_default(int family, int dtype, int op, int arch, struct cuspec__variant *v)
{
    memset(v, 0, sizeof *v);
    v->family = family;
    v->dtype = dtype;
    v->op = op;
    cuspec__family(family)->defaults(arch, v);
}

const char *cuspec_family_name(int index)
{
    const struct cuspec__family *f = cuspec__family(index);
    return f ? f->name : NULL;
}

void cuspec__variant_name(const struct cuspec__variant *v, char *buf, size_t size)
{
    cuspec__family(v->family)->expr(v, buf, size);
}

void cuspec__params_text(const struct cuspec__variant *v, char *buf, size_t size)
{
    const struct cuspec__family *f = cuspec__family(v->family);
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < f->n_params && len < size; i++)
        if (!f->params[i].not_tuned)
            len += (size_t)snprintf(buf + len, size - len, "%s%s=%d", len ? " " : "",
                                    f->params[i].name, v->p[i]);
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
