/* Compiling many specializations into the store on a pool of threads (NVRTC
 * is thread-safe): `cuspec compile` ahead of time, and the tuner's
 * candidates while the GPU is idle. */
#include "family.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct job {
    const struct cuspec__variant *variants;
    unsigned n, next, done;
    int arch;
    int *ok;
    pthread_mutex_t lock;
    cuspec_progress_fn progress;
    void *user;
    cuspec_compile_report *report;
    int first_status;
};

static void *worker(void *arg)
{
    struct job *job = arg;
    for (;;) {
        pthread_mutex_lock(&job->lock);
        unsigned i = job->next < job->n ? job->next++ : job->n;
        pthread_mutex_unlock(&job->lock);
        if (i == job->n)
            return NULL;

        const struct cuspec__variant *v = &job->variants[i];
        struct cuspec__image img;
        int found = cuspec__image_get(v, job->arch, CUSPEC__IMAGE_STORE_ONLY, &img) == CUSPEC_OK;
        int rc = found ? CUSPEC_OK : cuspec__image_get(v, job->arch, CUSPEC__IMAGE_NO_PTX, &img);
        if (rc == CUSPEC_OK)
            cuspec__image_free(&img);
        char name[256];
        cuspec__variant_name(v, name, sizeof name);

        pthread_mutex_lock(&job->lock);
        cuspec_compile_report *rep = job->report;
        if (job->ok != NULL)
            job->ok[i] = rc == CUSPEC_OK;
        if (rc != CUSPEC_OK && rep->failed++ == 0) {
            job->first_status = rc;
            cuspec__strlcpy(rep->first_error, cuspec_last_error(), sizeof rep->first_error);
        } else if (rc == CUSPEC_OK) {
            found ? rep->found++ : rep->compiled++;
        }
        job->done++;
        if (job->progress)
            job->progress(job->done, job->n, name, job->user);
        pthread_mutex_unlock(&job->lock);
    }
}

int cuspec__compile_many(const struct cuspec__variant *variants, unsigned n, int arch, int jobs,
                         int *ok, cuspec_progress_fn progress, void *user,
                         cuspec_compile_report *report)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    memset(report, 0, sizeof *report);
    report->total = n;
    struct job job = {.variants = variants,
                      .n = n,
                      .arch = arch,
                      .ok = ok,
                      .progress = progress,
                      .user = user,
                      .report = report};
    pthread_mutex_init(&job.lock, NULL);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int n_threads = jobs > 0 ? jobs : cores > 0 ? (int)cores : 1;
    if ((unsigned)n_threads > n)
        n_threads = (int)n;
    pthread_t *threads = n_threads > 0 ? calloc((size_t)n_threads, sizeof *threads) : NULL;
    int started = 0;
    for (; threads != NULL && started < n_threads; started++)
        if (pthread_create(&threads[started], NULL, worker, &job) != 0)
            break;
    if (started == 0)
        worker(&job); /* no threads to be had: do the work here */
    for (int i = 0; i < started; i++)
        pthread_join(threads[i], NULL);
    free(threads);
    pthread_mutex_destroy(&job.lock);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    report->seconds = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
    if (report->failed > 0)
        return cuspec__fail(job.first_status, "%s", report->first_error);
    return CUSPEC_OK;
}

struct list {
    struct cuspec__variant *v;
    unsigned n, cap;
};

static int collect(const struct cuspec__variant *v, void *user)
{
    struct list *l = user;
    if (l->n == l->cap) {
        unsigned cap = l->cap ? 2 * l->cap : 64;
        struct cuspec__variant *grown = realloc(l->v, cap * sizeof *grown);
        if (grown == NULL)
            return cuspec__fail(CUSPEC_ERR_NOMEM, "out of memory listing specializations");
        l->v = grown;
        l->cap = cap;
    }
    l->v[l->n++] = *v;
    return 0;
}

int cuspec_compile(const char *family, int arch, int all_variants, int jobs,
                   cuspec_progress_fn progress, void *user, cuspec_compile_report *report)
{
    CUSPEC__RETURN_IF(report == NULL, CUSPEC_ERR_INVALID, "cuspec_compile: report is NULL");
    memset(report, 0, sizeof *report);
    int only = -1;
    if (family != NULL && strcmp(family, "all") != 0) {
        only = cuspec__family_find(family);
        CUSPEC__RETURN_IF(only < 0, CUSPEC_ERR_INVALID,
                          "cuspec_compile: unknown family '%s' (copy, reduce, transpose or all)",
                          family);
    }
    CUSPEC__RETURN_IF(arch < 10 || arch > 1000, CUSPEC_ERR_INVALID,
                      "cuspec_compile: arch %d is not an sm_XY number such as 90", arch);
    struct list l = {0};
    int rc = CUSPEC_OK;
    for (int f = 0; f < CUSPEC__N_FAMILIES && rc == CUSPEC_OK; f++)
        if (only < 0 || only == f)
            rc = cuspec__family_each(f, arch, all_variants, collect, &l);
    if (rc == CUSPEC_OK)
        rc = cuspec__compile_many(l.v, l.n, arch, jobs, NULL, progress, user, report);
    free(l.v);
    return rc;
}
