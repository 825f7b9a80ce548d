/* The parameters a call runs with: the public spec made internal (its
 * family's from_public), and the lookup every call makes, cached per context
 * (exact bucket, nearest bucket on this device, built-in defaults). */
#include "params.h"
#include "records.h"
#include "context.h"
#include "catalogue.h"
#include "error.h"
#include "hash.h"

#include <string.h>

int cuspec__spec_from_public(const cuspec_tune_spec *in, struct cuspec__spec *s)
{
    memset(s, 0, sizeof *s);
    CUSPEC__RETURN_IF(in == NULL || in->family == NULL, CUSPEC_ERR_INVALID, "no spec or family");
    CUSPEC__RETURN_IF_RESERVED(in, "cuspec_tune_spec");
    s->family = cuspec__family_find(in->family);
    const struct cuspec__family_ops *ops = cuspec__ops(s->family);
    if (ops == NULL) {
        char names[256];
        cuspec__family_list(1, names, sizeof names);
        return cuspec__fail(CUSPEC_ERR_INVALID, "family '%s' is not tunable (%s)", in->family,
                            names);
    }
    return ops->from_public(in, s);
}

int cuspec__tuned_params(cuspec_ctx *ctx, const struct cuspec__spec *s, struct cuspec__variant *v)
{
    int b = cuspec__bucket(s);
    uint64_t id[4] = {(uint64_t)s->family, (uint64_t)s->dtype, (uint64_t)s->op, (uint64_t)b};
    size_t i = cuspec__hash64(id, sizeof id) & (CUSPEC__TUNED_SLOTS - 1);
    v->family = s->family;
    v->dtype = s->dtype;
    v->op = s->op;

    pthread_mutex_lock(&ctx->lock);
    for (size_t probe = 0; probe < CUSPEC__TUNED_SLOTS && ctx->tuned[i].used;
         probe++, i = (i + 1) & (CUSPEC__TUNED_SLOTS - 1)) {
        struct cuspec__tuned *t = &ctx->tuned[i];
        if (t->family == s->family && t->dtype == s->dtype && t->op == s->op && t->bucket == b) {
            memcpy(v->p, t->p, sizeof v->p);
            int from_record = t->from_record;
            pthread_mutex_unlock(&ctx->lock);
            return from_record;
        }
    }
    pthread_mutex_unlock(&ctx->lock);

    /* First call for this bucket: the store, outside the lock. */
    struct cuspec__record r;
    int rb, from_record = cuspec__record_find(ctx->device_id, s, &r, &rb) == CUSPEC_OK;
    if (from_record)
        memcpy(v->p, r.p, sizeof v->p);
    else
        cuspec__family(s->family)->defaults(ctx->arch, v);
    cuspec__clear_error();

    pthread_mutex_lock(&ctx->lock);
    for (size_t probe = 0; probe < CUSPEC__TUNED_SLOTS;
         probe++, i = (i + 1) & (CUSPEC__TUNED_SLOTS - 1))
        if (!ctx->tuned[i].used) {
            ctx->tuned[i] =
                (struct cuspec__tuned){1, s->family, s->dtype, s->op, b, {0}, from_record};
            memcpy(ctx->tuned[i].p, v->p, sizeof v->p);
            break;
        }
    pthread_mutex_unlock(&ctx->lock);
    return from_record;
}

void cuspec__tuned_forget(cuspec_ctx *ctx)
{
    pthread_mutex_lock(&ctx->lock);
    memset(ctx->tuned, 0, sizeof ctx->tuned);
    pthread_mutex_unlock(&ctx->lock);
}

int cuspec_tuned_params(cuspec_ctx *ctx, const cuspec_tune_spec *pub, char *params, size_t size,
                        int *from_record)
{
    CUSPEC__RETURN_IF(ctx == NULL || params == NULL, CUSPEC_ERR_INVALID,
                      "cuspec_tuned_params: NULL argument");
    struct cuspec__spec s;
    int rc = cuspec__spec_from_public(pub, &s);
    if (rc != CUSPEC_OK)
        return cuspec__fail_context(rc, "cuspec_tuned_params");
    struct cuspec__variant v;
    int rec = cuspec__ops(s.family)->choose(ctx, &s, &v);
    cuspec__params_text(&v, params, size);
    if (from_record != NULL)
        *from_record = rec;
    return CUSPEC_OK;
}
