/* The tuner's search, separated from the GPU by an interface so that its
 * logic (sampling, refinement, resume, rejection of wrong candidates) is
 * tested on the CPU with a fake timer. Internal. */
#ifndef CUSPEC_TUNE_SEARCH_H
#define CUSPEC_TUNE_SEARCH_H

#include "records.h"

#define CUSPEC__WRONG 1 /* measure: the candidate ran but gave a wrong result */

struct cuspec__tune_io {
    void *env;
    /* Makes candidates ready to run (compiled into the store); sets ok[i] to
     * 0 for those that are not. */
    void (*prepare)(void *env, const struct cuspec__variant *v, unsigned n, int *ok);
    /* Runs v, checks its result, times it: CUSPEC_OK with the median time
     * and spread, CUSPEC__WRONG, or an error status (the candidate failed). */
    int (*measure)(void *env, const struct cuspec__variant *v, int reps, double *us,
                   double *spread);
};

struct cuspec__tune_job {
    const char *device; /* identity the session log and record are keyed by */
    struct cuspec__spec spec;
    double bytes;               /* moved per call, for GB/s */
    struct cuspec__variant def; /* what a call uses without a record: the baseline */
    struct cuspec__variant alt; /* the family's alternative to it, where has_alt */
    int has_alt;
    cuspec_tune_options opt;
};

/* Searches spec's space through io, logging every candidate in the store as
 * it goes; on completion (not stopped) fills *rec with the winner. */
int cuspec__tune_search(const struct cuspec__tune_job *job, const struct cuspec__tune_io *io,
                        cuspec_tune_result *res, struct cuspec__record *rec);

/* Of the n variants at base (stride bytes apart), the index of the one with
 * p[i] == v nearest to `from`: the fewest other parameters changed, then the
 * least movement along their value lists, then the first; -1 if none. The
 * refinement's step: `from` with p[i] moved where that is in the space, else
 * the nearest (reduce_rows' rowblock needs lanes and grid 0; a columns' tx may
 * not pass its block). */
int cuspec__nearest_variant(const void *base, size_t stride, unsigned n,
                            const struct cuspec__variant *from, int i, int v);

#endif
