/* Twin archs (twins.c): where NVRTC makes the same PTX for two archs,
 * ahead-of-time compiles of both give one's PTX to ptxas for the other.
 * Internal. */
#ifndef CUSPEC_TWINS_H
#define CUSPEC_TWINS_H

#include "image.h"
#include "template.h"

/* The cubin of name (template tmpl) for sm_`arch` that ptxas (`ptxas`, see
 * cuspec__ptxas) makes from the PTX kept for a twin arch, which
 * img->ptx_of names; CUSPEC_ERR_NOT_FOUND when NVRTC must make it: no
 * twin's PTX is kept, ptxas failed (that pair of archs is then left to
 * NVRTC), or whether NVRTC makes the same PTX for the two is not known yet.
 * Then *probe (else -1) names the pair this compile settles: it goes to
 * cuspec__twin_keep with the PTX, or to cuspec__twin_drop if the compile
 * fails. Compiles that need a pair being settled wait for it. */
int cuspec__twin_cubin(const char *ptxas, const struct cuspec__file *tmpl, const char *name,
                       int arch, struct cuspec__image *img, int *probe);

/* Keeps ptx (malloc'd, NUL-terminated: taken over), NVRTC's for name on
 * sm_`arch` whose kernel is `lowered`; with it, settles whether NVRTC makes
 * the same PTX of tmpl for arch and for each arch already kept. */
void cuspec__twin_keep(const struct cuspec__file *tmpl, const char *name, int arch,
                       const char *lowered, char *ptx, int probe);

/* The compile that was to settle pair `probe` (-1: none) failed: another
 * may settle it. */
void cuspec__twin_drop(int probe);

#endif /* CUSPEC_TWINS_H */
