/* The embedded templates, each with the embedded files it includes and the
 * hash of their code (indexed at build time: src/embedded_index.c), and the
 * shipped PTX, indexed by name expression. */
#include "template.h"
#include "text.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Embedded templates past CUSPEC__MAX_TEMPLATES are not seen. */
static size_t n_templates(void)
{
    return cuspec__templates_count < CUSPEC__MAX_TEMPLATES ? cuspec__templates_count
                                                           : CUSPEC__MAX_TEMPLATES;
}

static pthread_once_t once_shipped = PTHREAD_ONCE_INIT;

struct shipped {
    char name[256];
    char template_hash[33];
    char entry[256];
    int target; /* the sm_XY of its .target: the oldest GPU it runs on */
    const char *ptx;
};
static struct shipped *shipped; /* one for each shipped file, when allocated */
static size_t n_shipped;

/* Copies the rest of the line after `tag` in text into buf; 0 if absent. */
static int header_field(const char *text, const char *tag, char *buf, size_t size)
{
    const char *at = strstr(text, tag);
    if (at == NULL)
        return 0;
    at += strlen(tag);
    size_t len = strcspn(at, "\n");
    if (len >= size)
        return 0;
    memcpy(buf, at, len);
    buf[len] = '\0';
    return 1;
}

/* Indexed apart from the templates, the first time PTX is asked for: most
 * processes never need it, and reading it is most of the indexing. */
static void index_shipped(void)
{
    /* Each shipped file: "// name: EXPR" and "// template-hash: HEX" in its
     * header (tools/regen-ptx.sh writes them), one ".entry NAME(" below.
     * Where the index cannot be allocated, no PTX is found (as if none was
     * shipped). */
    shipped = calloc(cuspec__shipped_ptx_count, sizeof *shipped);
    for (size_t i = 0; shipped != NULL && i < cuspec__shipped_ptx_count; i++) {
        struct shipped *s = &shipped[n_shipped];
        const char *text = cuspec__shipped_ptx[i].text;
        const char *entry = strstr(text, ".entry "), *target = strstr(text, "\n.target sm_");
        if (!header_field(text, "// name: ", s->name, sizeof s->name) ||
            !header_field(text, "// template-hash: ", s->template_hash, sizeof s->template_hash) ||
            entry == NULL || target == NULL ||
            !cuspec__parse_int(target + strlen("\n.target sm_"), '\n', 10, 1000, &s->target))
            continue;
        entry += strlen(".entry ");
        size_t len = strcspn(entry, "( \n");
        if (len == 0 || len >= sizeof s->entry)
            continue;
        memcpy(s->entry, entry, len);
        s->entry[len] = '\0';
        s->ptx = text;
        n_shipped++;
    }
}

const struct cuspec__file *cuspec__template(const char *file, const char **hash)
{
    for (size_t i = 0; i < n_templates(); i++)
        if (strcmp(cuspec__templates[i].name, file) == 0) {
            if (hash != NULL)
                *hash = cuspec__template_infos[i].hash;
            return &cuspec__templates[i];
        }
    return NULL;
}

size_t cuspec__template_headers(const struct cuspec__file *t, const struct cuspec__file **headers)
{
    const struct cuspec__template_info *ti = &cuspec__template_infos[t - cuspec__templates];
    for (size_t h = 0; h < ti->n_headers; h++)
        headers[h] = &cuspec__templates[ti->headers[h]];
    return ti->n_headers;
}

int cuspec__template_same_code(const struct cuspec__file *t, int a, int b)
{
    const struct cuspec__template_info *ti = &cuspec__template_infos[t - cuspec__templates];
    int lo = (a < b ? a : b) * 10, hi = (a < b ? b : a) * 10; /* __CUDA_ARCH__ of sm_XY: XY0 */
    for (size_t k = 0; k < ti->n_arch_bounds; k++)
        if (ti->arch_bounds[k] > lo && ti->arch_bounds[k] <= hi)
            return 0;
    return !ti->arch_opaque;
}

int cuspec__shipped_ptx_find(const char *name, const char *hash, int arch, const char **ptx,
                             const char **entry)
{
    pthread_once(&once_shipped, index_shipped);
    for (size_t i = 0; i < n_shipped; i++)
        if (strcmp(shipped[i].name, name) == 0 && strcmp(shipped[i].template_hash, hash) == 0 &&
            arch >= shipped[i].target) {
            *ptx = shipped[i].ptx;
            *entry = shipped[i].entry;
            return CUSPEC_OK;
        }
    return CUSPEC_ERR_NOT_FOUND;
}
