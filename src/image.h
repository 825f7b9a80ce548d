/* Kernel images (image.c): a specialization's cubin or PTX, found in the
 * order DESIGN.md gives. Internal. */
#ifndef CUSPEC_IMAGE_H
#define CUSPEC_IMAGE_H

#include "catalogue.h"

struct cuspec__image {
    int kind;   /* CUSPEC_KIND_CUBIN or CUSPEC_KIND_PTX */
    int tier;   /* cuspec_tier */
    char *data; /* cubin or NUL-terminated PTX; malloc'd */
    size_t len;
    char lowered[512]; /* the kernel's mangled name in the image */
};
void cuspec__image_free(struct cuspec__image *img);

enum {
    CUSPEC__IMAGE_ANY = 0,        /* store, NVRTC, shipped PTX: whatever serves */
    CUSPEC__IMAGE_STORE_ONLY = 1, /* look in the stores only (ahead-of-time "found") */
    CUSPEC__IMAGE_NO_PTX = 2,     /* stores, then NVRTC (the tuner's candidates) */
    CUSPEC__IMAGE_PUBLISH = 3,    /* the same, and the store must keep what NVRTC made:
                                     what ahead-of-time compiling wants */
};

/* The image of v for sm_`arch`: user store, system store, NVRTC (published
 * to the store), shipped PTX (defaults only), else an error that says what
 * is missing and how to get it. */
/* The template file v's kernel is compiled from. */
const char *cuspec__variant_template(const struct cuspec__variant *v);

int cuspec__image_get(const struct cuspec__variant *v, int arch, int how,
                      struct cuspec__image *img);

#endif /* CUSPEC_IMAGE_H */
