/* The catalogue of kernel families (the registry), and the enumeration of
 * specializations that ahead-of-time compilation and tuning walk. */
#include "catalogue.h"
#include "ops.h"

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

void cuspec__variant_kernel(const struct cuspec__variant *v, struct cuspec__variant *k)
{
    const struct cuspec__family *f = cuspec__family(v->family);
    *k = *v;
    for (int i = 0; i < f->n_params; i++)
        if (f->params[i].launch_only)
            k->p[i] = f->params[i].values[0];
}

int cuspec__same_kernel(const struct cuspec__variant *a, const struct cuspec__variant *b)
{
    struct cuspec__variant ka, kb;
    cuspec__variant_kernel(a, &ka);
    cuspec__variant_kernel(b, &kb);
    return memcmp(&ka, &kb, sizeof ka) == 0;
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

int cuspec__variant_fits(const struct cuspec__variant *v, const struct cuspec__spec *s)
{
    const struct cuspec__family *f = cuspec__family(v->family);
    return f != NULL && (f->fits == NULL || f->fits(v, s));
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

void cuspec__variant_choose(const struct cuspec__spec *s, int arch, struct cuspec__variant *v)
{
    cuspec__variant_default(s->family, s->dtype, s->op, arch, v);
    const struct cuspec__family *f = cuspec__family(s->family);
    if (f->fit != NULL)
        f->fit(v, s);
}

int cuspec__variant_alternative(const struct cuspec__spec *s, int arch, struct cuspec__variant *v)
{
    const struct cuspec__family *f = cuspec__family(s->family);
    cuspec__variant_default(s->family, s->dtype, s->op, arch, v);
    return f->alternative != NULL && f->alternative(v, s);
}

/* The choices found so far, each once. */
#define MAX_CHOICES 64
struct choices {
    int arch;
    int helpers; /* their helper kernels too */
    unsigned n;
    struct cuspec__variant v[MAX_CHOICES];
    int (*fn)(const struct cuspec__variant *v, void *user);
    void *user;
};

static int add_choice(const struct cuspec__variant *v, struct choices *c)
{
    for (unsigned i = 0; i < c->n; i++)
        if (memcmp(&c->v[i], v, sizeof *v) == 0)
            return 0;
    if (c->n < MAX_CHOICES)
        c->v[c->n++] = *v;
    return c->fn(v, c->user);
}

static int choose_for_class(const struct cuspec__spec *s, void *user)
{
    struct choices *c = user;
    struct cuspec__variant v, h;
    const struct cuspec__family *f = cuspec__family(s->family);
    cuspec__variant_choose(s, c->arch, &v);
    if (!f->legal(&v))
        return 0;
    int rc = add_choice(&v, c);
    if (rc == 0 && c->helpers && f->helper != NULL && f->helper(&v, &h))
        rc = add_choice(&h, c);
    return rc;
}

static int choices(int family, int dtype, int op, int arch, int helpers,
                   int (*fn)(const struct cuspec__variant *v, void *user), void *user)
{
    const struct cuspec__family *f = cuspec__family(family);
    struct choices c = {.arch = arch, .helpers = helpers, .fn = fn, .user = user};
    if (f->classes != NULL)
        return f->classes(dtype, op, choose_for_class, &c);
    struct cuspec__spec s = {.family = family, .op = op, .dtype = dtype};
    return choose_for_class(&s, &c);
}

int cuspec__family_choices(int family, int dtype, int op, int arch,
                           int (*fn)(const struct cuspec__variant *v, void *user), void *user)
{
    return choices(family, dtype, op, arch, 0, fn, user);
}

int cuspec__family_each(int family, int arch, int all,
                        int (*fn)(const struct cuspec__variant *v, void *user), void *user)
{
    const struct cuspec__family *f = cuspec__family(family);
    for (int d = 0; d < f->n_dtypes; d++)
        for (int op = 0; op < f->n_ops; op++) {
            int rc;
            if (all) {
                struct cuspec__variant v;
                memset(&v, 0, sizeof v);
                v.family = family;
                v.dtype = f->dtypes[d];
                v.op = op;
                rc = each_param(f, &v, 0, 0, fn, user);
            } else {
                rc = choices(family, f->dtypes[d], op, arch, 1, fn, user);
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
