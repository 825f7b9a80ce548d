/* The code of the kernel templates and their index: the files each one
 * includes and the hash of their code, which is part of every store key.
 * Pure functions of the files' text: the build runs them
 * (tools/template-index) and embeds the result, so no process pays for them. */
#include "template.h"
#include "hash.h"

#include <stdlib.h>
#include <string.h>

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

static int is_word(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* Whether the word ending just before `end` (code from `start`) is `word`. */
static int word_before(const char *start, const char *end, const char *word)
{
    size_t n = strlen(word);
    return (size_t)(end - start) >= n && strncmp(end - n, word, n) == 0 &&
           (end - n == start || !is_word(end[-(long)n - 1]));
}

/* Adds bound b to t's (once); too many make t opaque. */
static void add_bound(struct cuspec__template_info *t, long b)
{
    for (size_t k = 0; k < t->n_arch_bounds; k++)
        if (t->arch_bounds[k] == b)
            return;
    if (t->n_arch_bounds == CUSPEC__MAX_ARCH_BOUNDS || b > 100000)
        t->arch_opaque = 1;
    else
        t->arch_bounds[t->n_arch_bounds++] = (int)b;
}

/* Whether the code that comes before `at` (from `start`) leaves what
 * follows a test of its own: nothing, an opening parenthesis, a logical
 * operator, ?, : or a comma, or a directive's "if" or "elif". */
static int test_starts(const char *start, const char *at)
{
    const char *q = at;
    q -= q > start && q[-1] == ' ';
    return q == start || strchr("(&|?:,", q[-1]) != NULL || word_before(start, q, "if") ||
           word_before(start, q, "elif");
}

/* Names that test the arch without spelling __CUDA_ARCH__ (libcu++'s
 * target macros, NVVM's reflection), and what can hide it: token pasting
 * and system headers, whose tests are not read here. */
static const char *const hidden[] = {"##",      "NV_IF_TARGET", "NV_IF_ELSE_TARGET", "NV_PROVIDES_",
                                     "NV_IS_",  "nv::target",   "__nvvm_reflect",    "include <",
                                     "include<"};

/* The tests of __CUDA_ARCH__ in `code` (cuspec__code_text's: no comments,
 * one blank between words) into t: "__CUDA_ARCH__ OP NUMBER" (OP a
 * comparison, standing alone between logical operators, parentheses or a
 * directive's start) adds where its answer changes, and
 * "defined(__CUDA_ARCH__)", "#ifdef __CUDA_ARCH__" and the like say only
 * that it is device code; any other use of a __CUDA_ARCH name (the number
 * the other way round or in arithmetic, __CUDA_ARCH_LIST__...), or any of
 * `hidden`, makes t opaque. */
static void add_arch_tests(const char *code, struct cuspec__template_info *t)
{
    static const char name[] = "__CUDA_ARCH";
    for (size_t k = 0; k < sizeof hidden / sizeof *hidden; k++)
        if (strstr(code, hidden[k]) != NULL)
            t->arch_opaque = 1;
    for (const char *at = strstr(code, name); at != NULL; at = strstr(at + 1, name)) {
        const char *p = at + strlen(name), *q = at;
        if ((at > code && is_word(at[-1])) || strncmp(p, "__", 2) != 0 || is_word(p[2])) {
            t->arch_opaque = 1;
            continue;
        }
        while (q > code && (q[-1] == ' ' || q[-1] == '('))
            q--;
        if (word_before(code, q, "defined") || word_before(code, q, "ifdef") ||
            word_before(code, q, "ifndef"))
            continue;
        p += 2 + (p[2] == ' ');
        size_t op = strspn(p, "<>=!");
        int compares = (op == 1 && (*p == '<' || *p == '>')) ||
                       (op == 2 && p[1] == '=' && strchr("<>=!", *p) != NULL);
        const char *num = p + op + (p[op] == ' ');
        char *end = NULL;
        long v = compares && num[0] >= '1' && num[0] <= '9' ? strtol(num, &end, 10) : -1;
        const char *after = end != NULL ? end + (*end == ' ') : NULL;
        if (v < 0 || !test_starts(code, at) ||
            (*after != '\0' && strchr(")&|?:;,\n", *after) == NULL)) {
            t->arch_opaque = 1;
            continue;
        }
        /* >= and < change at v; > and <= at v + 1; == and != at both */
        if (*p != '>' || op == 2)
            add_bound(t, *p == '<' && op == 2 ? v + 1 : v);
        if ((*p == '>' && op == 1) || *p == '=' || *p == '!')
            add_bound(t, v + 1);
    }
}

/* files[i]'s headers, hash and tests of the arch into *t. */
static void index_one(const struct cuspec__file *files, char **code, size_t n, size_t i,
                      struct cuspec__template_info *t)
{
    char hexes[32 * (CUSPEC__MAX_HEADERS + 1) + 1];
    t->n_headers = t->n_arch_bounds = 0;
    t->arch_opaque = 0;
    add_includes(files, code, n, i, code_of(files, code, i), t);
    for (size_t h = 0; h <= t->n_headers; h++)
        add_arch_tests(code_of(files, code, h == 0 ? i : t->headers[h - 1]), t);
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
