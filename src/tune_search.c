/* The tuner's search: exhaustive over small spaces; over large ones the
 * default, the family's alternative to it, a random sample, then local
 * refinement around the best, within a candidate count and a time budget.
 * Every timed candidate is logged in the store at once, so an interrupted
 * run resumes where it stopped. */
#include "tune_search.h"
#include "records.h"
#include "catalogue.h"
#include "error.h"
#include "hash.h"
#include "store.h"
#include "text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { UNTRIED = -1, OK = 0, FAILED = 1, WRONG = 2 };

struct cand {
    struct cuspec__variant v;
    int status;
    int chosen; /* in the searched set */
    double us, spread;
};

struct search {
    const struct cuspec__tune_job *job;
    const struct cuspec__tune_io *io;
    struct cand *c;
    unsigned n, cap, n_chosen, n_done;
    char log_key[2048];
    double t0;
    uint64_t rng;
    cuspec_tune_result *res;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int add(const struct cuspec__variant *v, void *user)
{
    struct search *s = user;
    if (!cuspec__variant_fits(v, &s->job->spec))
        return 0;
    if (s->n == s->cap) {
        unsigned cap = s->cap ? 2 * s->cap : 256;
        struct cand *grown = realloc(s->c, cap * sizeof *grown);
        if (grown == NULL)
            return cuspec__fail(CUSPEC_ERR_NOMEM, "out of memory listing candidates");
        s->c = grown;
        s->cap = cap;
    }
    s->c[s->n++] = (struct cand){*v, UNTRIED, 0, 0, 0};
    return 0;
}

static struct cand *find(struct search *s, const int *p)
{
    for (unsigned i = 0; i < s->n; i++)
        if (memcmp(s->c[i].v.p, p, sizeof s->c[i].v.p) == 0)
            return &s->c[i];
    return NULL;
}

/* ## The log: one line per timed candidate, "p0 .. p6 status us spread"
 * (logs written before the seventh parameter have six). */

static void log_load(struct search *s)
{
    struct cuspec__entry e;
    int tier;
    if (cuspec__store_get(s->log_key, CUSPEC_KIND_TUNING, &e, &tier) != CUSPEC_OK)
        return;
    /* The payload ends in a NUL: text. */
    char *save;
    for (char *line = strtok_r(e.payload, "\n", &save); line != NULL;
         line = strtok_r(NULL, "\n", &save)) {
        int p[CUSPEC__MAX_PARAMS], status;
        double us, spread;
        int used = cuspec__params_read(line, cuspec__words(line) - 3, p);
        if (used < 0 || sscanf(line + used, "%d %lf %lf", &status, &us, &spread) != 3 ||
            status < OK || status > WRONG)
            continue; /* a line we cannot read is a candidate to time again */
        struct cand *c = find(s, p);
        if (c != NULL) {
            c->status = status;
            c->us = us;
            c->spread = spread;
        }
    }
    cuspec__entry_free(&e);
}

static void log_save(struct search *s)
{
    size_t size = 64 + (size_t)s->n * 96, len = 0;
    char *text = malloc(size);
    if (text == NULL)
        return;
    for (unsigned i = 0; i < s->n; i++) {
        const struct cand *c = &s->c[i];
        if (c->status == UNTRIED)
            continue;
        char params[16 * CUSPEC__MAX_PARAMS];
        cuspec__params_write(c->v.p, params, sizeof params);
        len += (size_t)snprintf(text + len, size - len, "%s %d %.6g %.6g\n", params, c->status,
                                c->us, c->spread);
    }
    cuspec__store_put(s->log_key, CUSPEC_KIND_TUNING, "", text, len);
    free(text);
}

static int stopped(const struct search *s)
{
    return s->job->opt.stop != NULL && *s->job->opt.stop;
}

static int out_of_time(const struct search *s)
{
    const double budget = s->job->opt.budget_s;
    return stopped(s) || (budget > 0 && now_s() - s->t0 > budget);
}

static double best_gbs(const struct search *s)
{
    double best = 0;
    for (unsigned i = 0; i < s->n; i++)
        if (s->c[i].chosen && s->c[i].status == OK && s->job->bytes / s->c[i].us / 1e3 > best)
            best = s->job->bytes / s->c[i].us / 1e3;
    return best;
}

/* Compiles the chosen, untried candidates together, then times them one by
 * one (the GPU is not shared), logging each; the first `anyway` of them
 * whatever the budget, unless stopped. */
static void run_batch(struct search *s, unsigned total, unsigned anyway)
{
    unsigned m = 0;
    struct cuspec__variant *vs = malloc((size_t)s->n * sizeof *vs);
    unsigned *idx = malloc((size_t)s->n * sizeof *idx);
    int *ok = malloc((size_t)s->n * sizeof *ok);
    if (vs == NULL || idx == NULL || ok == NULL)
        goto out;
    for (unsigned i = 0; i < s->n; i++)
        if (s->c[i].chosen && s->c[i].status == UNTRIED) {
            vs[m] = s->c[i].v;
            idx[m] = i;
            ok[m++] = 1;
        }
    if (m > 0)
        s->io->prepare(s->io->env, vs, m, ok);
    for (unsigned k = 0; k < m && !(k >= anyway ? out_of_time(s) : stopped(s)); k++) {
        struct cand *c = &s->c[idx[k]];
        int rc = ok[k] ? s->io->measure(s->io->env, &c->v, s->job->opt.reps, &c->us, &c->spread)
                       : CUSPEC_ERR_COMPILE;
        c->status = rc == CUSPEC_OK ? OK : rc == CUSPEC__WRONG ? WRONG : FAILED;
        s->res->timed++;
        s->n_done++;
        log_save(s);
        if (s->job->opt.progress != NULL) {
            char name[256];
            cuspec__variant_name(&c->v, name, sizeof name);
            cuspec_tune_progress p = {s->n_done, total, best_gbs(s), now_s() - s->t0, name};
            s->job->opt.progress(&p, s->job->opt.user);
        }
    }
out:
    free(vs);
    free(idx);
    free(ok);
}

/* Compiles every kernel of the space at once, on all cores, before any
 * timing: the searches of the later sizes of this operation then find them
 * all in the store, and refinement never waits for the compiler. Launch-only
 * parameters make several candidates share a kernel; each is compiled once. */
static void prefetch(struct search *s)
{
    struct cuspec__variant *vs = malloc((size_t)s->n * sizeof *vs);
    unsigned *of = malloc((size_t)s->n * sizeof *of);
    int *ok = malloc((size_t)s->n * sizeof *ok);
    char(*names)[256] = malloc((size_t)s->n * sizeof *names);
    unsigned m = 0;
    if (vs == NULL || of == NULL || ok == NULL || names == NULL)
        goto out;
    for (unsigned i = 0; i < s->n; i++) {
        char name[256];
        unsigned k = 0;
        cuspec__variant_name(&s->c[i].v, name, sizeof name);
        while (k < m && strcmp(names[k], name) != 0)
            k++;
        if (k == m) {
            memcpy(names[m], name, sizeof name);
            vs[m] = s->c[i].v;
            ok[m++] = 1;
        }
        of[i] = k;
    }
    s->io->prepare(s->io->env, vs, m, ok);
    for (unsigned i = 0; i < s->n; i++)
        if (!ok[of[i]] && s->c[i].status == UNTRIED)
            s->c[i].status = FAILED;
out:
    free(vs);
    free(of);
    free(ok);
    free(names);
}

static void choose(struct search *s, struct cand *c)
{
    if (c->chosen)
        return;
    c->chosen = 1;
    s->n_chosen++;
    if (c->status != UNTRIED) {
        s->res->reused++;
        s->n_done++;
    }
}

static int value_index(const struct cuspec__param *param, int value)
{
    for (int k = 0; k < param->n; k++)
        if (param->values[k] == value)
            return k;
    return 0;
}

int cuspec__nearest_variant(const void *base, size_t stride, unsigned n,
                            const struct cuspec__variant *from, int i, int v)
{
    const struct cuspec__family *f = cuspec__family(from->family);
    int best = -1, best_d = 0, best_moved = 0;
    for (unsigned j = 0; j < n; j++) {
        const struct cuspec__variant *c = (const void *)((const char *)base + j * stride);
        if (c->p[i] != v)
            continue;
        int d = 0, moved = 0;
        for (int k = 0; k < f->n_params; k++)
            if (k != i && c->p[k] != from->p[k]) {
                d++;
                moved += abs(value_index(&f->params[k], c->p[k]) -
                             value_index(&f->params[k], from->p[k]));
            }
        if (best < 0 || d < best_d || (d == best_d && moved < best_moved)) {
            best = (int)j;
            best_d = d;
            best_moved = moved;
        }
    }
    return best;
}

/* Neighbours of c: one parameter moved to an adjacent value of its list (and
 * where that alone leaves the space, the nearest candidate with that value). */
static unsigned choose_neighbours(struct search *s, const struct cand *c, unsigned limit)
{
    const struct cuspec__family *f = cuspec__family(c->v.family);
    unsigned added = 0;
    for (int i = 0; i < f->n_params && added < limit; i++) {
        const int k = value_index(&f->params[i], c->v.p[i]);
        for (int d = -1; d <= 1 && added < limit; d += 2) {
            if (k + d < 0 || k + d >= f->params[i].n)
                continue;
            /* the candidate itself where the move alone stays in the space */
            int j = cuspec__nearest_variant(&s->c[0].v, sizeof *s->c, s->n, &c->v, i,
                                            f->params[i].values[k + d]);
            if (j >= 0 && !s->c[j].chosen) {
                choose(s, &s->c[j]);
                added++;
            }
        }
    }
    return added;
}

/* How much faster than the defaults a winner must be to be recorded. */
#define CONFIRM_MARGIN 0.01

/* c timed again with twice the calls (the confirming round). */
static void retime(const struct cuspec__tune_job *job, const struct cuspec__tune_io *io,
                   struct cand *c)
{
    double us, spread;
    if (io->measure(io->env, &c->v, 2 * job->opt.reps, &us, &spread) == CUSPEC_OK) {
        c->us = us;
        c->spread = spread;
    }
}

static int by_time(const void *a, const void *b)
{
    const struct cand *x = *(const struct cand *const *)a, *y = *(const struct cand *const *)b;
    return (x->us > y->us) - (x->us < y->us);
}

int cuspec__tune_search(const struct cuspec__tune_job *job, const struct cuspec__tune_io *io,
                        cuspec_tune_result *res, struct cuspec__record *rec)
{
    struct search s = {.job = job, .io = io, .res = res, .t0 = now_s()};
    memset(res, 0, sizeof *res);
    const struct cuspec__spec *spec = &job->spec;
    int rc = cuspec__family_space(spec->family, spec->dtype, spec->op, add, &s);
    if (rc == CUSPEC_OK && s.n == 0)
        rc = cuspec__fail(CUSPEC_ERR_UNSUPPORTED, "no legal %s specialization fits this shape",
                          cuspec__family(spec->family)->name);
    struct cand *dc = rc == CUSPEC_OK ? find(&s, job->def.p) : NULL;
    if (rc == CUSPEC_OK && dc == NULL)
        rc = cuspec__fail(CUSPEC_ERR_INVALID, "the default parameters are not in the space");
    if (rc != CUSPEC_OK) {
        free(s.c);
        return rc;
    }
    cuspec__tuning_key(job->device, spec, cuspec__bucket(spec), 1, s.log_key, sizeof s.log_key);
    if (!job->opt.force)
        log_load(&s);
    s.rng = cuspec__hash64(s.log_key, strlen(s.log_key)) | 1;

    prefetch(&s);

    /* The defaults first (the baseline), timed even when compiling the
     * space took the whole budget, then the family's alternative to them
     * and everything or a sample. */
    unsigned max = (unsigned)job->opt.max_candidates;
    unsigned total = s.n < max ? s.n : max;
    choose(&s, dc);
    run_batch(&s, total, 1);
    struct cand *ac = job->has_alt ? find(&s, job->alt.p) : NULL;
    if (ac != NULL && max > 1)
        choose(&s, ac);
    if (s.n <= max) {
        for (unsigned i = 0; i < s.n; i++)
            choose(&s, &s.c[i]);
    } else {
        for (unsigned tries = 0; s.n_chosen < max / 2 && tries < 64 * max; tries++) {
            s.rng ^= s.rng << 13;
            s.rng ^= s.rng >> 7;
            s.rng ^= s.rng << 17;
            choose(&s, &s.c[s.rng % s.n]);
        }
    }
    run_batch(&s, total, 0);

    /* Refine: the neighbours of the best timed so far, until nothing new,
     * the candidate count, or the time is up. */
    struct cand **ranked = malloc((size_t)s.n * sizeof *ranked);
    int timed_out = 0; /* with candidates left to choose */
    while (ranked != NULL && s.n_chosen < max && s.n_chosen < s.n &&
           !(timed_out = out_of_time(&s))) {
        unsigned m = 0, added = 0;
        for (unsigned i = 0; i < s.n; i++)
            if (s.c[i].chosen && s.c[i].status == OK)
                ranked[m++] = &s.c[i];
        qsort(ranked, m, sizeof *ranked, by_time);
        for (unsigned r = 0; r < m && r < 4 && added == 0; r++)
            added = choose_neighbours(&s, ranked[r], max - s.n_chosen);
        if (added == 0)
            break;
        run_batch(&s, total, 0);
    }

    res->candidates = s.n_chosen;
    res->stopped = stopped(&s);
    unsigned m = 0;
    for (unsigned i = 0; ranked != NULL && i < s.n; i++) {
        res->failed += s.c[i].chosen && (s.c[i].status == FAILED || s.c[i].status == WRONG);
        if (s.c[i].chosen && s.c[i].status == OK)
            ranked[m++] = &s.c[i];
    }
    if (ranked == NULL)
        rc = cuspec__fail(CUSPEC_ERR_NOMEM, "out of memory ranking candidates");
    else if (res->stopped)
        rc = CUSPEC_OK; /* the log keeps what was timed; a re-run resumes */
    else if (m == 0)
        rc = cuspec__fail(CUSPEC_ERR_UNSUPPORTED, "no candidate ran correctly");
    if (rc == CUSPEC_OK && !res->stopped) {
        /* Confirm: re-time the best few, and the defaults, with twice the
         * calls; keep the best, unless it beats the defaults by less than
         * CONFIRM_MARGIN (a difference within the noise would make a
         * record of a kernel no faster, and at times slower, in calls). */
        qsort(ranked, m, sizeof *ranked, by_time);
        unsigned top = (unsigned)job->opt.top < m ? (unsigned)job->opt.top : m;
        int default_timed = 0;
        for (unsigned r = 0; r < top; r++) {
            retime(job, io, ranked[r]);
            default_timed |= ranked[r] == dc;
        }
        if (!default_timed && dc->status == OK)
            retime(job, io, dc);
        qsort(ranked, top, sizeof *ranked, by_time);
        const struct cand *w = ranked[0];
        if (dc->status == OK && w != dc && w->us > dc->us * (1 - CONFIRM_MARGIN))
            w = dc;
        log_save(&s);
        cuspec__variant_name(&w->v, res->kernel, sizeof res->kernel);
        cuspec__params_text(&w->v, res->params, sizeof res->params);
        res->median_us = w->us;
        res->gbs = job->bytes / w->us / 1e3;
        res->spread = w->spread;
        res->default_us = dc->status == OK ? dc->us : 0;
        res->default_gbs = dc->status == OK ? job->bytes / dc->us / 1e3 : 0;
        memset(rec, 0, sizeof *rec);
        memcpy(rec->p, w->v.p, sizeof rec->p);
        cuspec__strlcpy(rec->kernel, res->kernel, sizeof rec->kernel);
        rec->median_us = w->us;
        rec->gbs = res->gbs;
        rec->default_gbs = res->default_gbs;
        rec->spread = w->spread;
        rec->candidates = s.n_chosen;
        /* A search the time cut short (chosen candidates left untimed, or
         * more to choose) counts the candidates it timed, so that a later
         * run under the same limit goes on from its log. */
        rec->searched =
            s.n_done < s.n_chosen || timed_out ? s.n_done : (unsigned)job->opt.max_candidates;
        rec->when = (long long)time(NULL);
    }
    free(ranked);
    free(s.c);
    return rc;
}
