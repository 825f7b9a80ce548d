/* NVRTC compiles (jit.c). Internal. */
#ifndef CUSPEC_JIT_H
#define CUSPEC_JIT_H

#include "image.h"
#include "template.h"

/* Compiles the name expression `name` of template `tmpl` for sm_`arch`: a
 * cubin, or PTX for the newest arch NVRTC knows when it does not know this
 * one. img->tier is CUSPEC_TIER_NVRTC; *nvrtc_version gets "MAJOR.MINOR".
 * With `twins` (ahead-of-time compiles) and CUSPEC_PTXAS, a cubin may come
 * from ptxas on the PTX NVRTC made for a twin arch (twins.c). A failed
 * compile is CUSPEC_ERR_COMPILE with the log, the name expression and the
 * options in the detail. */
int cuspec__jit(const struct cuspec__file *tmpl, const char *name, int arch, int twins,
                struct cuspec__image *img, char nvrtc_version[16]);
/* The options every compile uses for sm_`arch` (also part of the store key),
 * as one space-separated string. */
void cuspec__jit_options(int arch, char *buf, size_t size);

#endif /* CUSPEC_JIT_H */
