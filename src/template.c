/* The embedded templates, each with the embedded files it includes and the
 * hash of their code (part of every store key; made once per process), and
 * the shipped PTX, indexed by name expression. */
#include "template.h"
#include "text.h"
#include "hash.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SHIPPED 128

/* Embedded templates past CUSPEC__MAX_TEMPLATES are not seen. */
static size_t n_templates(void)
{
    return cuspec__templates_count < CUSPEC__MAX_TEMPLATES ? cuspec__templates_count
                                                           : CUSPEC__MAX_TEMPLATES;
}

static pthread_once_t once_shipped = PTHREAD_ONCE_INIT;

/* The embedded templates' index, made per template the first time it is
 * asked for (a process loads a few of them): info[i] is valid once
 * indexed[i] is set, under index_lock; codes[] keeps each file's code. */
static pthread_mutex_t index_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cuspec__template_info info[CUSPEC__MAX_TEMPLATES];
static int indexed[CUSPEC__MAX_TEMPLATES];
static char *codes[CUSPEC__MAX_TEMPLATES];

struct shipped {
    char name[256];
    char template_hash[33];
    char entry[256];
    int target; /* the sm_XY of its .target: the oldest GPU it runs on */
    const char *ptx;
};
static struct shipped shipped[MAX_SHIPPED];
static size_t n_shipped;

static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

/* Where the comment at in[i] ("//" or "/ *") ends: the newline that ends a
 * line comment (not spliced by a backslash), or just past a block's end. */
static size_t comment_end(const char *in, size_t len, size_t i)
{
    if (in[i + 1] == '*') {
        for (i += 2; i + 1 < len; i++)
            if (in[i] == '*' && in[i + 1] == '/')
                return i + 2;
        return len;
    }
    for (; i < len && in[i] != '\n'; i++)
        if (in[i] == '\\' && i + 1 < len && in[i + 1] == '\n')
            i++;
    return i;
}

size_t cuspec__code_text(const char *in, size_t len, char *out)
{
    size_t n = 0;
    int blank = 0, line_start = 1, directive = 0;
    for (size_t i = 0; i < len;) {
        char c = in[i];
        if (c == '\\' && i + 1 < len && in[i + 1] == '\n') { /* a spliced line: one line */
            i += 2;
        } else if (c == '/' && i + 1 < len && (in[i + 1] == '*' || in[i + 1] == '/')) {
            i = comment_end(in, len, i);
            blank = 1;
        } else if (c == '\n' && directive) { /* only a directive's line break is code */
            out[n++] = '\n';
            directive = blank = 0;
            line_start = 1;
            i++;
        } else if (c == '\n' || is_blank(c)) {
            blank = 1;
            line_start |= c == '\n';
            i++;
        } else {
            if (line_start && c == '#') {
                if (n > 0 && out[n - 1] != '\n')
                    out[n++] = '\n';
                directive = 1;
            } else if (blank && n > 0 && out[n - 1] != '\n') {
                out[n++] = ' ';
            }
            blank = line_start = 0;
            size_t end = i + 1; /* a string or character literal goes verbatim */
            if (c == '"' || c == '\'') {
                while (end < len && in[end] != c && in[end] != '\n')
                    end += in[end] == '\\' && end + 1 < len ? 2 : 1;
                end += end < len && in[end] == c;
            }
            memcpy(out + n, in + i, end - i);
            n += end - i;
            i = end;
        }
    }
    return n;
}

/* The file of files[0..n) named by the quoted #include at `at` (just past
 * "include"), or n. */
static size_t included(const struct cuspec__file *files, size_t n, const char *at)
{
    at += *at == ' ';
    const char *end = *at == '"' ? strchr(at + 1, '"') : NULL;
    for (size_t k = 0; end != NULL && k < n; k++)
        if (strlen(files[k].name) == (size_t)(end - at - 1) &&
            strncmp(files[k].name, at + 1, (size_t)(end - at - 1)) == 0)
            return k;
    return n;
}

/* The code of files[k], made into code[k] the first time. Out of memory, a
 * file's whole text stands for its code: keys then match no entry made from
 * code alone, so nothing wrong is ever loaded. */
static const char *code_of(const struct cuspec__file *files, char **code, size_t k)
{
    if (code[k] == NULL && (code[k] = malloc(files[k].len + 1)) != NULL)
        code[k][cuspec__code_text(files[k].text, files[k].len, code[k])] = '\0';
    return code[k] != NULL ? code[k] : files[k].text;
}

/* Adds the files that `text` includes, and theirs, to t->headers (each
 * once, never `root`). */
static void add_includes(const struct cuspec__file *files, char **code, size_t n, size_t root,
                         const char *text, struct cuspec__template_info *t)
{
    for (const char *line = text; line != NULL; line = strchr(line, '\n'), line += line != NULL) {
        const char *at = line[0] == '#' ? line + 1 + (line[1] == ' ') : NULL;
        if (at == NULL || strncmp(at, "include", 7) != 0)
            continue;
        size_t k = included(files, n, at + 7);
        int seen = k == root || k == n;
        for (size_t h = 0; h < t->n_headers; h++)
            seen |= t->headers[h] == k;
        if (seen || t->n_headers == CUSPEC__MAX_HEADERS)
            continue;
        t->headers[t->n_headers++] = k;
        add_includes(files, code, n, root, code_of(files, code, k), t);
    }
}

/* files[i]'s headers and hash into *t. */
static void index_one(const struct cuspec__file *files, char **code, size_t n, size_t i,
                      struct cuspec__template_info *t)
{
    char hexes[32 * (CUSPEC__MAX_HEADERS + 1) + 1];
    t->n_headers = 0;
    add_includes(files, code, n, i, code_of(files, code, i), t);
    /* the hash of the hashes of each file's code, the template's first */
    for (size_t h = 0; h <= t->n_headers; h++) {
        const char *text = code_of(files, code, h == 0 ? i : t->headers[h - 1]);
        cuspec__hash128_hex(text, strlen(text), hexes + 32 * h);
    }
    cuspec__hash128_hex(hexes, 32 * (t->n_headers + 1), t->hash);
}

void cuspec__template_index(const struct cuspec__file *files, size_t n,
                            struct cuspec__template_info *out)
{
    char *code[CUSPEC__MAX_TEMPLATES] = {0};
    for (size_t i = 0; i < n; i++)
        index_one(files, code, n, i, &out[i]);
    for (size_t k = 0; k < n; k++)
        free(code[k]);
}

/* info[i], indexed now if it is not yet. */
static const struct cuspec__template_info *info_of(size_t i)
{
    pthread_mutex_lock(&index_lock);
    if (!indexed[i]) {
        index_one(cuspec__templates, codes, n_templates(), i, &info[i]);
        indexed[i] = 1;
    }
    pthread_mutex_unlock(&index_lock);
    return &info[i];
}

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
     * header (tools/regen-ptx.sh writes them), one ".entry NAME(" below. */
    for (size_t i = 0; i < cuspec__shipped_ptx_count && n_shipped < MAX_SHIPPED; i++) {
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
                *hash = info_of(i)->hash;
            return &cuspec__templates[i];
        }
    return NULL;
}

size_t cuspec__template_headers(const struct cuspec__file *t, const struct cuspec__file **headers)
{
    const struct cuspec__template_info *ti = info_of((size_t)(t - cuspec__templates));
    for (size_t h = 0; h < ti->n_headers; h++)
        headers[h] = &cuspec__templates[ti->headers[h]];
    return ti->n_headers;
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
