/* Kernel images (image.c): a specialization's cubin or PTX, found in the
 * order DESIGN.md gives. Internal. */
#ifndef CUSPEC_IMAGE_H
#define CUSPEC_IMAGE_H

#include "catalogue.h"

struct cuspec__image {
    int kind;   /* CUSPEC_KIND_CUBIN or CUSPEC_KIND_PTX */
    int tier;   /* cuspec_tier */
    int arch;   /* the sm_XY a cubin was made for (an older one of the same
                   major may serve); 0 for PTX */
    int ptx_of; /* a cubin ptxas made from NVRTC's PTX for this twin arch
                   (jit.c); 0: NVRTC's own */
    char *data; /* cubin or NUL-terminated PTX; malloc'd */
    size_t len;
    char lowered[512]; /* the kernel's mangled name in the image */
};
void cuspec__image_free(struct cuspec__image *img);

enum {
    CUSPEC__IMAGE_ANY,        /* store, NVRTC, shipped PTX: whatever serves */
    CUSPEC__IMAGE_STORE_ONLY, /* this arch's entry in the stores only (ahead-of-time "found") */
    CUSPEC__IMAGE_NO_COMPILE, /* whatever serves without NVRTC (`cuspec compile --check`) */
    CUSPEC__IMAGE_NO_PTX,     /* stores, then NVRTC (the tuner's candidates) */
    CUSPEC__IMAGE_PUBLISH,    /* the same, and the store must keep what NVRTC made:
                                 what ahead-of-time compiling wants */
};

/* The template file v's kernel is compiled from. */
const char *cuspec__variant_template(const struct cuspec__variant *v);

/* The image of v for sm_`arch`: this arch's entry in the user store or the
 * system store; NVRTC (published to the store); without NVRTC, a cubin of
 * an older arch of the same major from the stores (binary compatible), then
 * shipped PTX; else an error that says what is missing and how to get it:
 * CUSPEC_ERR_NO_NVRTC (or CUSPEC_ERR_UNSUPPORTED where NVRTC cannot make
 * this arch) when a compiler would have made it. */
int cuspec__image_get(const struct cuspec__variant *v, int arch, int how,
                      struct cuspec__image *img);

struct cuspec__spec;
/* Where the kernel `wanted` for a call on s cannot be had on sm_`arch`
 * (DESIGN.md's last tier): the kernels it may run instead are the one a
 * call on s chooses without a record, then the family's other such choices
 * (cuspec__family_choices) for its dtype and op that fit s. From *next (0
 * at first) on, the first of them whose image (and its helper's, where it
 * launches one) is available without a compiler goes to *v and *next moves
 * past it; CUSPEC_ERR_NOT_FOUND when none is left. */
int cuspec__fallback_next(const struct cuspec__spec *s, int arch,
                          const struct cuspec__variant *wanted, unsigned *next,
                          struct cuspec__variant *v);

#endif /* CUSPEC_IMAGE_H */
