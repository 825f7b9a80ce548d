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

/* The code of C/C++ text, as store keys see it: comments left out, each
 * run of blanks and line breaks one space, line breaks kept where they end
 * a preprocessor directive, string and character literals as they are; so
 * a comment never changes a key, nor does re-indenting or re-wrapping.
 * Writes at most len bytes to out (no NUL); returns how many. */
size_t cuspec__code_text(const char *text, size_t len, char *out);

/* What each embedded template is compiled from. */
#define CUSPEC__MAX_TEMPLATES 128
#define CUSPEC__MAX_HEADERS 8
#define CUSPEC__MAX_ARCH_BOUNDS 8
struct cuspec__template_info {
    char hash[33]; /* XXH3-128 hex over the code of the file and of its headers */
    size_t headers[CUSPEC__MAX_HEADERS]; /* the files it includes, directly or not */
    size_t n_headers;
    /* Where their code's tests of __CUDA_ARCH__ change answer (each once:
     * "__CUDA_ARCH__ >= 800" at 800, "> 800" at 801, "== 800" at both),
     * and whether it names the arch any other way (or more bounds than
     * fit): what tells two archs' compiles apart (cuspec__template_same_code). */
    int arch_bounds[CUSPEC__MAX_ARCH_BOUNDS];
    size_t n_arch_bounds;
    int arch_opaque;
};
/* Fills out[i] for each of files[0..n) (n <= CUSPEC__MAX_TEMPLATES): the
 * other files it includes by a quoted #include, directly or through one of
 * them, each once, the hash of their code (cuspec__code_text) and its
 * own, and their tests of __CUDA_ARCH__. Changing a file changes the hash
 * of the files that include it only. */
void cuspec__template_index(const struct cuspec__file *files, size_t n,
                            struct cuspec__template_info *out);

/* cuspec__template_index of the embedded templates, made at build time
 * (tools/template-index): one per cuspec__templates[i]. */
extern const struct cuspec__template_info cuspec__template_infos[];

/* The embedded template `file` and (where hash is not NULL) its
 * cuspec__template_index hash. NULL when there is none. */
const struct cuspec__file *cuspec__template(const char *file, const char **hash);
/* The embedded files template t (as cuspec__template gives it) includes, for
 * NVRTC: up to CUSPEC__MAX_HEADERS into headers; returns how many. */
size_t cuspec__template_headers(const struct cuspec__file *t, const struct cuspec__file **headers);
/* Whether template t's code (its headers' too) is the same for sm_a and
 * sm_b: no test of __CUDA_ARCH__ answers the two differently, and it names
 * the arch no other way. */
int cuspec__template_same_code(const struct cuspec__file *t, int a, int b);

/* Shipped PTX for name expression `name` made from template text with hash
 * `hash` that runs on sm_`arch` (its .target is no newer): its text and
 * entry name (static storage), or CUSPEC_ERR_NOT_FOUND. PTX made from
 * another version of the template is never returned. */
int cuspec__shipped_ptx_find(const char *name, const char *hash, int arch, const char **ptx,
                             const char **entry);

#endif /* CUSPEC_TEMPLATE_H */
