/* The parameters a call runs with (params.c): a public spec made internal,
 * and the tuning record for its bucket looked up once per context. Internal. */
#ifndef CUSPEC_PARAMS_H
#define CUSPEC_PARAMS_H

#include "ops.h"

/* The spec of a public one: its family's from_public, for a family that
 * can be tuned; else CUSPEC_ERR_INVALID saying which can. */
int cuspec__spec_from_public(const cuspec_tune_spec *in, struct cuspec__spec *s);

/* Fills v for a call: the tuned parameters for this device and bucket when
 * a record exists and is legal (returns 1), else the family's defaults
 * (returns 0). Cached in the context after the first lookup per (family,
 * dtype, op, bucket). */
int cuspec__tuned_params(cuspec_ctx *ctx, const struct cuspec__spec *s, struct cuspec__variant *v);

/* Drops the cached lookups (after tuning wrote new records). */
void cuspec__tuned_forget(cuspec_ctx *ctx);

#endif /* CUSPEC_PARAMS_H */
