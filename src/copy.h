/* The copy family's calls that other files make (copy.c). Internal. */
#ifndef CUSPEC_COPY_H
#define CUSPEC_COPY_H

#include "catalogue.h"
#include "driver.h"

/* The variant cuspec_copy runs on sm_`arch`. */
void cuspec__copy_default(int arch, struct cuspec__variant *v);
/* Runs copy variant v (the benchmark's ceiling and the tuner use this
 * directly); the context must be current. */
int cuspec__copy_variant(cuspec_ctx *ctx, const struct cuspec__variant *v, cuspec_devptr dst,
                         cuspec_devptr src, size_t bytes, CUstream stream);

#endif /* CUSPEC_COPY_H */
