/* cuspec_tune: the tuner's search run on the GPU through a workload
 * (compile the candidates on all cores, check each against the CPU
 * reference, time it with events), and the record it leaves. */
#include "tune.h"
#include "tune_search.h"
#include "workload.h"
#include "params.h"
#include "records.h"
#include "compile.h"
#include "context.h"
#include "error.h"
#include "store.h"
#include "text.h"

#include <string.h>

/* Candidates are ranked much as the peer benchmarks (tools/) time calls:
 * the device's time per call in a CUDA graph of GRAPH_MIN to GRAPH_MAX
 * calls, as many as the inputs' pool has slices. A call timed on its own
 * carries the host's launch, the same for every candidate and most of a
 * short call; graphs of 200 calls made records that lost to the defaults
 * by 2-3.4% under the peers (docs/experiments/reduce.md: "The tuner's
 * clock"). A change here changes the tuning session's key (records.c). */
#define GRAPH_MIN 20
#define GRAPH_MAX 64

struct gpu_env {
    cuspec_ctx *ctx;
    struct cuspec__workload *w;     /* timed */
    struct cuspec__workload *check; /* checked: w, or a smaller copy of its edges */
    int jobs;
    double compile_timeout;
};

static void prepare(void *env, const struct cuspec__variant *v, unsigned n, int *ok)
{
    struct gpu_env *g = env;
    cuspec_compile_report rep;
    cuspec__compile_many(v, n, g->ctx->arch, CUSPEC__IMAGE_NO_PTX, g->jobs, g->compile_timeout, ok,
                         NULL, NULL, &rep);
}

static int measure(void *env, const struct cuspec__variant *v, int reps, double *us, double *spread)
{
    struct gpu_env *g = env;
    int correct;
    double error;
    int rc = cuspec__workload_check(g->check, v, &correct, &error);
    if (rc != CUSPEC_OK || !correct)
        return rc != CUSPEC_OK ? rc : CUSPEC__WRONG;
    /* A few calls on their own load it; then the median of `reps`
     * launches of its graph, the L2 flushed before each. */
    cuspec_bench_result r;
    rc = cuspec__workload_time(g->w, v, 3, 0, &r);
    if (rc != CUSPEC_OK)
        return rc;
    unsigned slices = cuspec__workload_slices(g->w);
    int calls = slices < GRAPH_MIN ? GRAPH_MIN : slices > GRAPH_MAX ? GRAPH_MAX : (int)slices;
    return cuspec__workload_graph_time(g->w, v, calls, reps, us, spread);
}

int cuspec_tune(cuspec_ctx *ctx, const cuspec_tune_spec *pub, const cuspec_tune_options *options,
                cuspec_tune_result *res)
{
    return cuspec__tune(ctx, pub, options, NULL, NULL, res);
}

int cuspec__tune(cuspec_ctx *ctx, const cuspec_tune_spec *pub, const cuspec_tune_options *options,
                 cuspec__after_run_fn hook, void *hook_user, cuspec_tune_result *res)
{
    CUSPEC__RETURN_IF(ctx == NULL || res == NULL, CUSPEC_ERR_INVALID, "cuspec_tune: NULL argument");
    if (options != NULL)
        CUSPEC__RETURN_IF_RESERVED(options, "cuspec_tune_options");
    struct cuspec__tune_job job;
    memset(&job, 0, sizeof job);
    int rc = cuspec__spec_from_public(pub, &job.spec);
    const struct cuspec__family_ops *ops = cuspec__ops(job.spec.family);
    if (rc == CUSPEC_OK && ops->tunable != NULL)
        rc = ops->tunable(&job.spec);
    if (rc != CUSPEC_OK)
        return cuspec__fail_context(rc, "cuspec_tune");
    if (options != NULL)
        job.opt = *options;
    job.opt.max_candidates = job.opt.max_candidates > 0 ? job.opt.max_candidates : 48;
    job.opt.top = job.opt.top > 0 ? job.opt.top : 3;
    job.opt.reps = job.opt.reps > 0 ? job.opt.reps : 15;
    job.device = ctx->device_id;
    cuspec__variant_choose(&job.spec, ctx->arch, &job.def);
    job.has_alt = cuspec__variant_alternative(&job.spec, ctx->arch, &job.alt);

    /* Already searched with at least this candidate limit: nothing to do
     * but keep the record findable. */
    struct cuspec__record rec;
    const int bucket = cuspec__bucket(&job.spec);
    if (!job.opt.force && cuspec__record_get(job.device, &job.spec, bucket, &rec) == CUSPEC_OK &&
        rec.searched >= (unsigned)job.opt.max_candidates &&
        cuspec__record_keep_index(job.device, &job.spec, bucket) == CUSPEC_OK) {
        struct cuspec__variant v = job.def;
        memcpy(v.p, rec.p, sizeof v.p);
        memset(res, 0, sizeof *res);
        cuspec__strlcpy(res->kernel, rec.kernel, sizeof res->kernel);
        cuspec__params_text(&v, res->params, sizeof res->params);
        res->median_us = rec.median_us;
        res->gbs = rec.gbs;
        res->spread = rec.spread;
        res->default_gbs = rec.default_gbs;
        res->default_us = rec.default_gbs > 0 ? rec.median_us * rec.gbs / rec.default_gbs : 0;
        res->candidates = res->reused = rec.candidates;
        return CUSPEC_OK;
    }
    /* The record is the point: a store that cannot keep one fails now, not
     * after the search. */
    rc = cuspec__store_usable();
    if (rc != CUSPEC_OK)
        return cuspec__fail_context(rc, "cuspec_tune: nothing found could be kept");
    cuspec__clear_error();

    struct gpu_env env = {ctx, NULL, NULL, job.opt.jobs,
                          job.opt.compile_timeout_s > 0 ? job.opt.compile_timeout_s : 60};
    rc = cuspec__workload_create(ctx, &job.spec, &env.w);
    if (rc != CUSPEC_OK)
        return rc;
    /* Candidates are checked on a spec of the family's choosing: reading
     * back a large result for each could cost more than timing it. */
    struct cuspec__spec small;
    env.check = env.w;
    if (ops->check_spec != NULL && ops->check_spec(&job.spec, &small))
        rc = cuspec__workload_create(ctx, &small, &env.check);
    if (rc != CUSPEC_OK) {
        cuspec__workload_destroy(env.w);
        return rc;
    }
    cuspec__workload_set_hook(env.check, hook, hook_user);
    job.bytes = cuspec__workload_bytes(env.w);
    struct cuspec__tune_io io = {&env, prepare, measure};
    rc = cuspec__tune_search(&job, &io, res, &rec);
    if (rc == CUSPEC_OK && !res->stopped) {
        rc = cuspec__record_put(ctx->device_id, &job.spec, bucket, &rec);
        if (rc != CUSPEC_OK)
            rc = cuspec__fail_context(rc, "cuspec_tune: %s won, but its record was not kept",
                                      res->kernel);
        cuspec__tuned_forget(ctx);
    }
    if (env.check != env.w)
        cuspec__workload_destroy(env.check);
    cuspec__workload_destroy(env.w);
    return rc;
}
