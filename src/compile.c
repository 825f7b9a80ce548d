/* Ahead-of-time compilation: fill the store with no GPU, on a pool of
 * threads (NVRTC is thread-safe), for a packager or CI before deployment. */
#include "family.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct job {
    struct cuspec__variant *variants;
    unsigned n, cap, next, done;
    int arch;
    pthread_mutex_t lock;
    cuspec_progress_fn progress;
    void *user;
    cuspec_compile_report *report;
    int first_status;
};

static int collect(const struct cuspec__variant *v, void *user)
{
    struct job *job = user;
    if (job->n == job->cap) {
        unsigned cap = job->cap ? 2 * job->cap : 64;
        struct cuspec__variant *grown = realloc(job->variants, cap * sizeof *grown);
        if (grown == NULL)
            return cuspec__fail(CUSPEC_ERR_NOMEM, "out of memory listing specializations");
        job->variants = grown;
        job->cap = cap;
    }
    job->variants[job->n++] = *v;
    return 0;
}

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

    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    struct job job = {.arch = arch, .progress = progress, .user = user, .report = report};
    pthread_mutex_init(&job.lock, NULL);
    int rc = CUSPEC_OK;
    for (int f = 0; f < CUSPEC__N_FAMILIES && rc == CUSPEC_OK; f++)
        if (only < 0 || only == f)
            rc = cuspec__family_each(f, arch, all_variants, collect, &job);
    report->total = job.n;

    if (rc == CUSPEC_OK && job.n > 0) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        int n_threads = jobs > 0 ? jobs : cores > 0 ? (int)cores : 1;
        if ((unsigned)n_threads > job.n)
            n_threads = (int)job.n;
        pthread_t *threads = calloc((size_t)n_threads, sizeof *threads);
        int started = 0;
        for (; threads != NULL && started < n_threads; started++)
            if (pthread_create(&threads[started], NULL, worker, &job) != 0)
                break;
        if (started == 0)
            worker(&job); /* no threads to be had: do the work here */
        for (int i = 0; i < started; i++)
            pthread_join(threads[i], NULL);
        free(threads);
        if (report->failed > 0)
            rc = cuspec__fail(job.first_status, "%s", report->first_error);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    report->seconds = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
    pthread_mutex_destroy(&job.lock);
    free(job.variants);
    return rc;
}
