/* The embedded templates (hashed once per process: the hash is part of every
 * store key) and the shipped PTX, indexed by name expression. */
#include "template.h"
#include "hash.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FILES 128

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char template_hash[MAX_FILES][33];

struct shipped {
    char name[256];
    char template_hash[33];
    char entry[256];
    const char *ptx;
};
static struct shipped shipped[MAX_FILES];
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

/* A template's hash covers the header it includes: a change to either
 * makes new store keys and needs new shipped PTX. */
static void hash_template(const struct cuspec__file *t, const struct cuspec__file *header,
                          char hex[33])
{
    char both[66] = "";
    cuspec__hash128_hex(t->text, t->len, both);
    if (header != NULL)
        cuspec__hash128_hex(header->text, header->len, both + 32);
    cuspec__hash128_hex(both, strlen(both), hex);
}

static void index_files(void)
{
    const struct cuspec__file *header = NULL;
    for (size_t i = 0; i < cuspec__templates_count; i++)
        if (strcmp(cuspec__templates[i].name, CUSPEC__TEMPLATE_HEADER) == 0)
            header = &cuspec__templates[i];
    for (size_t i = 0; i < cuspec__templates_count && i < MAX_FILES; i++)
        hash_template(&cuspec__templates[i], header, template_hash[i]);

    /* Each shipped file: "// name: EXPR" and "// template-hash: HEX" in its
     * header (tools/regen-ptx.sh writes them), one ".entry NAME(" below. */
    for (size_t i = 0; i < cuspec__shipped_ptx_count && n_shipped < MAX_FILES; i++) {
        struct shipped *s = &shipped[n_shipped];
        const char *text = cuspec__shipped_ptx[i].text;
        const char *entry = strstr(text, ".entry ");
        if (!header_field(text, "// name: ", s->name, sizeof s->name) ||
            !header_field(text, "// template-hash: ", s->template_hash, sizeof s->template_hash) ||
            entry == NULL)
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
    pthread_once(&once, index_files);
    for (size_t i = 0; i < cuspec__templates_count && i < MAX_FILES; i++)
        if (strcmp(cuspec__templates[i].name, file) == 0) {
            if (hash != NULL)
                *hash = template_hash[i];
            return &cuspec__templates[i];
        }
    return NULL;
}

int cuspec__shipped_ptx_find(const char *name, const char *hash, const char **ptx,
                             const char **entry)
{
    pthread_once(&once, index_files);
    for (size_t i = 0; i < n_shipped; i++)
        if (strcmp(shipped[i].name, name) == 0 && strcmp(shipped[i].template_hash, hash) == 0) {
            *ptx = shipped[i].ptx;
            *entry = shipped[i].entry;
            return CUSPEC_OK;
        }
    return CUSPEC_ERR_NOT_FOUND;
}
