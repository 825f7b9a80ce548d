/* Compiling many specializations at once (compile.c): ahead of time and the
 * tuner's candidates. Internal. */
#ifndef CUSPEC_COMPILE_H
#define CUSPEC_COMPILE_H

#include "image.h"

/* Compiles (or finds in the store) n specializations for sm_`arch` on
 * `jobs` threads (0: one per core), as cuspec__image_get does with `how`
 * (CUSPEC__IMAGE_NO_PTX or CUSPEC__IMAGE_PUBLISH); ok[i] (may be NULL) says which
 * succeeded. With `timeout` > 0, a compile running longer than that many
 * seconds counts as failed and is not waited for (its thread finishes in the
 * background). Returns the first failure's status, with the counts in
 * report. */
int cuspec__compile_many(const struct cuspec__variant *variants, unsigned n, int arch, int how,
                         int jobs, double timeout, int *ok, cuspec_progress_fn progress, void *user,
                         cuspec_compile_report *report);

#endif /* CUSPEC_COMPILE_H */
