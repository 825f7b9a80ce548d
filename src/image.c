/* Kernel images in the order DESIGN.md gives: user store, system store,
 * NVRTC (published to the store), shipped PTX for the defaults, else an
 * error that says what is missing and how to get it. The in-process module
 * table sits in front of this (context.c). */
#include "image.h"
#include "jit.h"
#include "template.h"
#include "catalogue.h"
#include "error.h"
#include "store.h"
#include "text.h"
#include "ops.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cuspec__image_free(struct cuspec__image *img)
{
    free(img->data);
    img->data = NULL;
    img->len = 0;
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

const char *cuspec__variant_template(const struct cuspec__variant *v)
{
    const struct cuspec__family *f = cuspec__family(v->family);
    return f->template_of != NULL ? f->template_of(v) : f->template_file;
}

/* Every input that changes the compiled bytes. The NVRTC version is recorded
 * in the entry instead, so a lookup never needs NVRTC. */
static void make_key(const struct cuspec__file *tmpl, const char *hash, const char *name, int arch,
                     char *key, size_t size)
{
    char opts[256];
    cuspec__jit_options(arch, opts, sizeof opts);
    snprintf(key, size,
             "cuspec store key\nformat=%d\nlibrary=%s\ntemplate=%s %s\nname=%s\noptions=%s\n"
             "arch=sm_%d\n",
             CUSPEC__STORE_FORMAT, PACKAGE_VERSION, tmpl->name, hash, name, opts, arch);
}

/* The key's cubin or PTX from the stores: one lookup, whichever kind NVRTC
 * made for this arch. The payload ends in a NUL, which PTX needs. */
static int from_store(const char *key, int arch, struct cuspec__image *img)
{
    struct cuspec__entry e;
    int tier;
    if (cuspec__store_get(key, CUSPEC__KIND_COMPILED, &e, &tier) != CUSPEC_OK)
        return CUSPEC_ERR_NOT_FOUND;
    int lowered = cuspec__text_field(e.meta, "lowered", img->lowered, sizeof img->lowered);
    free(e.meta);
    if (!lowered) {
        free(e.payload);
        return CUSPEC_ERR_NOT_FOUND;
    }
    img->data = e.payload;
    img->len = e.len;
    img->kind = e.kind;
    img->tier = tier;
    img->arch = e.kind == CUSPEC_KIND_CUBIN ? arch : 0;
    return CUSPEC_OK;
}

/* NVRTC's image of `key`, published to the store; one process compiles a
 * key while the others wait for its entry. */
static int compile(const struct cuspec__file *tmpl, const char *name, const char *key, int arch,
                   int how, struct cuspec__image *img)
{
    struct cuspec__store_lock lock;
    cuspec__store_lock(key, &lock);
    if (lock.waited && from_store(key, arch, img) == CUSPEC_OK) {
        cuspec__store_unlock(&lock);
        return CUSPEC_OK;
    }
    char nvrtc_version[16];
    /* Twin archs only for what is compiled ahead of time (cuspec compile). */
    int rc = cuspec__jit(tmpl, name, arch, how == CUSPEC__IMAGE_PUBLISH, img, nvrtc_version);
    if (rc == CUSPEC_OK) {
        char meta[768], twin[32] = "";
        if (img->ptx_of != 0)
            snprintf(twin, sizeof twin, "ptxas-of=sm_%d\n", img->ptx_of);
        snprintf(meta, sizeof meta, "lowered=%s\nnvrtc=%s\n%s", img->lowered, nvrtc_version, twin);
        rc = how == CUSPEC__IMAGE_PUBLISH
                 ? cuspec__store_publish(key, img->kind, meta, img->data, img->len)
                 : cuspec__store_put(key, img->kind, meta, img->data, img->len);
        if (rc != CUSPEC_OK)
            cuspec__image_free(img);
    }
    cuspec__store_unlock(&lock);
    return rc;
}

/* What serves with no compiler: a cubin of an older arch of the same major
 * (a cubin runs on later minor versions of its major), then shipped PTX. */
static int without_compiler(const struct cuspec__file *tmpl, const char *hash, const char *name,
                            int arch, struct cuspec__image *img)
{
    char key[2048];
    for (int older = arch - 1; older >= arch / 10 * 10; older--) {
        make_key(tmpl, hash, name, older, key, sizeof key);
        if (from_store(key, older, img) == CUSPEC_OK && img->kind == CUSPEC_KIND_CUBIN)
            return CUSPEC_OK;
        cuspec__image_free(img);
    }
    const char *ptx, *entry;
    if (cuspec__shipped_ptx_find(name, hash, arch, &ptx, &entry) != CUSPEC_OK)
        return CUSPEC_ERR_NOT_FOUND;
    img->len = strlen(ptx);
    img->data = malloc(img->len + 1);
    CUSPEC__RETURN_IF(img->data == NULL, CUSPEC_ERR_NOMEM, "out of memory for shipped PTX");
    memcpy(img->data, ptx, img->len + 1);
    cuspec__strlcpy(img->lowered, entry, sizeof img->lowered);
    img->kind = CUSPEC_KIND_PTX;
    img->tier = CUSPEC_TIER_PTX;
    img->arch = 0;
    return CUSPEC_OK;
}

int cuspec__image_get(const struct cuspec__variant *v, int arch, int how, struct cuspec__image *img)
{
    const char *hash, *file = cuspec__variant_template(v);
    const struct cuspec__file *tmpl = cuspec__template(file, &hash);
    char name[256], key[2048];
    memset(img, 0, sizeof *img);
    cuspec__variant_name(v, name, sizeof name);
    CUSPEC__RETURN_IF(tmpl == NULL, CUSPEC_ERR_NOT_FOUND, "template %s is not embedded", file);
    make_key(tmpl, hash, name, arch, key, sizeof key);

    if (from_store(key, arch, img) == CUSPEC_OK)
        return CUSPEC_OK;
    if (how == CUSPEC__IMAGE_STORE_ONLY)
        return cuspec__fail(CUSPEC_ERR_NOT_FOUND, "%s for sm_%d is not in the store", name, arch);
    int rc = CUSPEC_ERR_NOT_FOUND;
    if (how != CUSPEC__IMAGE_NO_COMPILE) {
        rc = compile(tmpl, name, key, arch, how, img);
        /* a template that does not compile is a bug to report, not to hide */
        if (rc == CUSPEC_OK || rc == CUSPEC_ERR_COMPILE || how != CUSPEC__IMAGE_ANY)
            return rc;
    }
    char why[1024]; /* why NVRTC could not make it */
    cuspec__strlcpy(why, cuspec_last_error(), sizeof why);
    int found = without_compiler(tmpl, hash, name, arch, img);
    if (found != CUSPEC_ERR_NOT_FOUND)
        return found;
    if (how == CUSPEC__IMAGE_NO_COMPILE)
        return cuspec__fail(CUSPEC_ERR_NOT_FOUND,
                            "%s for sm_%d is in no store and there is no shipped PTX for it", name,
                            arch);
    return cuspec__fail(rc,
                        "no kernel %s for sm_%d: it is in no store, there is no shipped PTX for "
                        "it, and it cannot be compiled here (install NVRTC, or run `cuspec "
                        "compile --arch sm_%d` where NVRTC is and ship the store; `cuspec "
                        "compile --check` lists what is missing): %s",
                        name, arch, arch, why);
}

/* The kernels a call may fall back to, in order, each once: variants that
 * differ only in launch parameters are one kernel, and the first of them
 * (the defaults fitted to the call come first) stands for it. */
struct candidates {
    const struct cuspec__spec *s;
    const struct cuspec__family *f;
    unsigned n;
    struct cuspec__variant v[64];
};

static int add_candidate(const struct cuspec__variant *v, void *user)
{
    struct candidates *c = user;
    for (unsigned i = 0; i < c->n; i++)
        if (cuspec__same_kernel(&c->v[i], v))
            return 0;
    if (c->n < sizeof c->v / sizeof *c->v && cuspec__variant_fits(v, c->s))
        c->v[c->n++] = *v;
    return 0;
}

/* 1 when v's image for sm_`arch` is there without a compiler. */
static int available(const struct cuspec__variant *v, int arch)
{
    struct cuspec__image img;
    if (cuspec__image_get(v, arch, CUSPEC__IMAGE_NO_COMPILE, &img) != CUSPEC_OK)
        return 0;
    cuspec__image_free(&img);
    return 1;
}

int cuspec__fallback_next(const struct cuspec__spec *s, int arch,
                          const struct cuspec__variant *wanted, unsigned *next,
                          struct cuspec__variant *v)
{
    struct candidates c = {.s = s, .f = cuspec__family(s->family)};
    struct cuspec__variant first;
    cuspec__variant_choose(s, arch, &first);
    add_candidate(&first, &c);
    cuspec__family_choices(s->family, s->dtype, s->op, arch, add_candidate, &c);
    for (; *next < c.n; ++*next) {
        struct cuspec__variant h;
        if (cuspec__same_kernel(&c.v[*next], wanted) || !available(&c.v[*next], arch) ||
            (c.f->helper != NULL && c.f->helper(&c.v[*next], &h) && !available(&h, arch)))
            continue;
        *v = c.v[(*next)++];
        return CUSPEC_OK;
    }
    return CUSPEC_ERR_NOT_FOUND;
}
