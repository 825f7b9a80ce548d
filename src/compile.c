/* Compiling many specializations into the store on a pool of threads (NVRTC
 * is thread-safe): `cuspec compile` ahead of time, and the tuner's
 * candidates while the GPU is idle. */
#include "compile.h"
#include "catalogue.h"
#include "error.h"
#include "store.h"
#include "text.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The pool's shared state. It lives on the heap and the last of the caller
 * and the workers frees it: a worker still inside a compile that ran past
 * the timeout outlives the call that abandoned it. Results reach the
 * caller's arrays only under the lock and only for items not abandoned.
 * Otherwise the call joins its workers: a thread still exiting when the
 * process does leaves its thread-specific data (NVRTC's, dlerror's) unfreed,
 * which LeakSanitizer reports. */
struct job {
    struct cuspec__variant *variants; /* a copy */
    double *started;                  /* when each item's compile began; 0 before */
    unsigned char *state;             /* 0 queued or running, 1 finished, 2 abandoned */
    unsigned n, next, done, refs, abandoned;
    int arch, how;
    double timeout; /* seconds; 0: none */
    int *ok;
    pthread_mutex_t lock;
    pthread_cond_t progressed;
    cuspec_progress_fn progress;
    void *user;
    cuspec_compile_report *report;
    int first_status;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void job_release(struct job *job)
{
    int last = --job->refs == 0;
    pthread_mutex_unlock(&job->lock);
    if (!last)
        return;
    pthread_mutex_destroy(&job->lock);
    pthread_cond_destroy(&job->progressed);
    free(job->variants);
    free(job->started);
    free(job->state);
    free(job);
}

/* Records one item's outcome, with the lock held. */
static void finish(struct job *job, unsigned i, int rc, int found, int by_ptxas, const char *name)
{
    cuspec_compile_report *rep = job->report;
    if (job->ok != NULL)
        job->ok[i] = rc == CUSPEC_OK;
    if (rc != CUSPEC_OK && rep->failed++ == 0) {
        job->first_status = rc;
        cuspec__strlcpy(rep->first_error, cuspec_last_error(), sizeof rep->first_error);
    } else if (rc == CUSPEC_OK) {
        found ? rep->found++ : rep->compiled++;
        rep->by_ptxas += by_ptxas;
    }
    job->done++;
    if (job->progress)
        job->progress(job->done, job->n, name, job->user);
    pthread_cond_signal(&job->progressed);
}

/* Item i took longer than the timeout: it fails, with the lock held. */
static void fail_late(struct job *job, unsigned i)
{
    char name[256];
    cuspec__variant_name(&job->variants[i], name, sizeof name);
    cuspec__fail(CUSPEC_ERR_COMPILE, "compiling %s took longer than %.0f s: abandoned", name,
                 job->timeout);
    finish(job, i, CUSPEC_ERR_COMPILE, 0, 0, name);
}

static void *worker(void *arg)
{
    struct job *job = arg;
    pthread_mutex_lock(&job->lock);
    while (job->next < job->n) {
        unsigned i = job->next++;
        job->started[i] = now_s();
        pthread_mutex_unlock(&job->lock);

        const struct cuspec__variant *v = &job->variants[i];
        struct cuspec__image img;
        /* Found: from a store, before NVRTC or after waiting for another
         * process compiling it. */
        int rc = cuspec__image_get(v, job->arch, job->how, &img);
        int found = rc == CUSPEC_OK && img.tier != CUSPEC_TIER_NVRTC;
        int by_ptxas = rc == CUSPEC_OK && img.ptx_of != 0;
        if (rc == CUSPEC_OK)
            cuspec__image_free(&img);
        char name[256];
        cuspec__variant_name(v, name, sizeof name);

        pthread_mutex_lock(&job->lock);
        /* Late though done before the caller looked: failed all the same. */
        int is_late = job->timeout > 0 && now_s() - job->started[i] > job->timeout;
        if (job->state[i] == 0) {
            job->state[i] = 1;
            if (is_late)
                fail_late(job, i);
            else
                finish(job, i, rc, found, by_ptxas, name);
        }
    }
    job_release(job);
    return NULL;
}

/* Abandons items compiling for longer than the timeout, with the lock
 * held: they count as failed and the caller stops waiting for them. */
static void abandon_late(struct job *job)
{
    double now = now_s();
    for (unsigned i = 0; i < job->next; i++)
        if (job->state[i] == 0 && now - job->started[i] > job->timeout) {
            job->state[i] = 2;
            job->abandoned++;
            fail_late(job, i);
        }
}

int cuspec__compile_many(const struct cuspec__variant *variants, unsigned n, int arch, int how,
                         int jobs, double timeout, int *ok, cuspec_progress_fn progress, void *user,
                         cuspec_compile_report *report)
{
    double t0 = now_s();
    memset(report, 0, sizeof *report);
    report->total = n;
    struct job *job = calloc(1, sizeof *job);
    if (job != NULL) {
        job->variants = malloc((n ? n : 1) * sizeof *job->variants);
        job->started = calloc(n ? n : 1, sizeof *job->started);
        job->state = calloc(n ? n : 1, 1);
    }
    if (job == NULL || job->variants == NULL || job->started == NULL || job->state == NULL) {
        if (job != NULL) {
            free(job->variants);
            free(job->started);
            free(job->state);
            free(job);
        }
        return cuspec__fail(CUSPEC_ERR_NOMEM, "out of memory for %u compiles", n);
    }
    memcpy(job->variants, variants, n * sizeof *variants);
    job->n = n;
    job->arch = arch;
    job->how = how;
    job->timeout = timeout > 0 ? timeout : 0;
    job->ok = ok;
    job->progress = progress;
    job->user = user;
    job->report = report;
    job->refs = 1;
    pthread_mutex_init(&job->lock, NULL);
    pthread_cond_init(&job->progressed, NULL);

    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned n_threads = jobs > 0 ? (unsigned)jobs : cores > 0 ? (unsigned)cores : 1;
    n_threads = n_threads < n ? n_threads : n;
    pthread_t *threads = malloc((n_threads ? n_threads : 1) * sizeof *threads);
    unsigned started = 0;
    pthread_mutex_lock(&job->lock);
    for (; threads != NULL && started < n_threads; started++) {
        job->refs++;
        if (pthread_create(&threads[started], NULL, worker, job) != 0) {
            job->refs--;
            break;
        }
    }
    if (job->refs == 1) { /* no threads to be had: do the work here */
        job->refs++;
        pthread_mutex_unlock(&job->lock);
        worker(job);
        pthread_mutex_lock(&job->lock);
    }
    while (job->done < n) {
        if (timeout > 0) {
            struct timespec wake;
            clock_gettime(CLOCK_REALTIME, &wake);
            wake.tv_nsec += 100000000; /* look for late compiles ten times a second */
            wake.tv_sec += wake.tv_nsec / 1000000000;
            wake.tv_nsec %= 1000000000;
            pthread_cond_timedwait(&job->progressed, &job->lock, &wake);
            abandon_late(job);
        } else {
            pthread_cond_wait(&job->progressed, &job->lock);
        }
    }
    int first_status = job->first_status, abandoned = job->abandoned > 0;
    job_release(job);
    /* A worker stuck in an abandoned compile may never return: then none is
     * waited for. */
    for (unsigned t = 0; t < started; t++) {
        if (abandoned)
            pthread_detach(threads[t]);
        else
            pthread_join(threads[t], NULL);
    }
    free(threads);
    report->seconds = now_s() - t0;
    if (report->failed > 0)
        return cuspec__fail(first_status, "%s", report->first_error);
    return CUSPEC_OK;
}

struct list {
    struct cuspec__variant *v;
    unsigned n, cap;
};

/* Each kernel once: variants that differ only in how they launch share it. */
static int collect(const struct cuspec__variant *v, void *user)
{
    struct list *l = user;
    struct cuspec__variant k;
    cuspec__variant_kernel(v, &k);
    for (unsigned i = 0; i < l->n; i++)
        if (memcmp(&l->v[i], &k, sizeof k) == 0)
            return 0;
    if (l->n == l->cap) {
        unsigned cap = l->cap ? 2 * l->cap : 64;
        struct cuspec__variant *grown = realloc(l->v, cap * sizeof *grown);
        if (grown == NULL)
            return cuspec__fail(CUSPEC_ERR_NOMEM, "out of memory listing specializations");
        l->v = grown;
        l->cap = cap;
    }
    l->v[l->n++] = k;
    return 0;
}

/* The specializations cuspec_compile and cuspec_compile_check take: of
 * `family` (NULL or "all": every family) for sm_`arch`, `all` or the
 * record-free choices. `what` names the caller in errors. */
static int listed(const char *what, const char *family, int arch, int all, struct list *l)
{
    int only = -1;
    if (family != NULL && strcmp(family, "all") != 0) {
        only = cuspec__family_find(family);
        if (only < 0) {
            char names[256];
            cuspec__family_list(0, names, sizeof names);
            return cuspec__fail(CUSPEC_ERR_INVALID, "%s: unknown family '%s' (%s or all)", what,
                                family, names);
        }
    }
    CUSPEC__RETURN_IF(arch < 10 || arch > 1000, CUSPEC_ERR_INVALID,
                      "%s: arch %d is not an sm_XY number such as 90", what, arch);
    int rc = CUSPEC_OK;
    for (int f = 0; f < CUSPEC__N_FAMILIES && rc == CUSPEC_OK; f++)
        if (only < 0 || only == f)
            rc = cuspec__family_each(f, arch, all, collect, l);
    return rc;
}

int cuspec_compile(const char *family, int arch, int all_variants, int jobs,
                   cuspec_progress_fn progress, void *user, cuspec_compile_report *report)
{
    CUSPEC__RETURN_IF(report == NULL, CUSPEC_ERR_INVALID, "cuspec_compile: report is NULL");
    memset(report, 0, sizeof *report);
    struct list l = {0};
    int rc = listed("cuspec_compile", family, arch, all_variants, &l);
    if (rc == CUSPEC_OK && (rc = cuspec__store_usable()) != CUSPEC_OK) {
        /* filling the store is the whole point */
        report->total = report->failed = l.n;
        cuspec__strlcpy(report->first_error, cuspec_last_error(), sizeof report->first_error);
    }
    if (rc == CUSPEC_OK)
        rc = cuspec__compile_many(l.v, l.n, arch, CUSPEC__IMAGE_PUBLISH, jobs, 0, NULL, progress,
                                  user, report);
    free(l.v);
    return rc;
}

int cuspec_compile_check(const char *family, int arch, cuspec_check_fn each, void *user,
                         unsigned *missing)
{
    CUSPEC__RETURN_IF(each == NULL, CUSPEC_ERR_INVALID, "cuspec_compile_check: each is NULL");
    struct list l = {0};
    unsigned none = 0;
    int rc = listed("cuspec_compile_check", family, arch, 0, &l);
    for (unsigned i = 0; rc == CUSPEC_OK && i < l.n; i++) {
        struct cuspec__image img;
        char name[256];
        cuspec__variant_name(&l.v[i], name, sizeof name);
        if (cuspec__image_get(&l.v[i], arch, CUSPEC__IMAGE_NO_COMPILE, &img) == CUSPEC_OK) {
            each(name, img.tier, img.arch, user);
            cuspec__image_free(&img);
        } else {
            each(name, 0, 0, user);
            none++;
        }
    }
    if (rc == CUSPEC_OK)
        cuspec__clear_error();
    free(l.v);
    if (missing != NULL)
        *missing = none;
    return rc;
}
