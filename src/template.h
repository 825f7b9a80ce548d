/* The kernel templates and the shipped PTX, embedded into the library at
 * build time (tools/embed.sh), and their lookup (template.c). Internal. */
#ifndef CUSPEC_TEMPLATE_H
#define CUSPEC_TEMPLATE_H

#include "error.h"

struct cuspec__file {
    const char *name;
    const char *text;
    size_t len;
};
extern const struct cuspec__file cuspec__templates[];
extern const size_t cuspec__templates_count;
extern const struct cuspec__file cuspec__shipped_ptx[];
extern const size_t cuspec__shipped_ptx_count;

/* The header every template includes (NVRTC is given it by this name). */
#define CUSPEC__TEMPLATE_HEADER "prior_grid.cuh"

/* The embedded template `file` and (where hash is not NULL) the XXH3-128
 * hex of its text followed by the header's (hashed once per process). NULL
 * when there is none. */
const struct cuspec__file *cuspec__template(const char *file, const char **hash);

/* Shipped PTX for name expression `name` made from template text with hash
 * `hash`: its text and entry name (static storage), or CUSPEC_ERR_NOT_FOUND.
 * PTX made from another version of the template is never returned. */
int cuspec__shipped_ptx_find(const char *name, const char *hash, const char **ptx,
                             const char **entry);

#endif /* CUSPEC_TEMPLATE_H */
