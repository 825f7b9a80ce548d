/* cuspec_tune on the GPU (tune.c): the search run through a workload. */
#ifndef CUSPEC_TUNE_H
#define CUSPEC_TUNE_H

#include "workload.h"

/* cuspec_tune with a hook on every checked run: tests use it to make some
 * candidates deliberately wrong and see them rejected. */
int cuspec__tune(cuspec_ctx *ctx, const cuspec_tune_spec *spec, const cuspec_tune_options *options,
                 cuspec__after_run_fn hook, void *hook_user, cuspec_tune_result *res);

#endif /* CUSPEC_TUNE_H */
