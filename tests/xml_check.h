/* Checks for the SVG files the lessons write, shared by t_lessons and
 * t_gpu_lessons: well-formed XML (by xmllint where it is installed, and by
 * a small check of our own everywhere), and the numbers in its tags.
 * Header-only. */
#ifndef CUSPEC_TEST_XML_CHECK_H
#define CUSPEC_TEST_XML_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The whole file at path, malloc'd and NUL-terminated, or NULL. */
static inline char *xml_read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = len >= 0 ? malloc((size_t)len + 1) : NULL;
    if (text != NULL && fread(text, 1, (size_t)len, f) != (size_t)len) {
        free(text);
        text = NULL;
    }
    if (text != NULL)
        text[len] = '\0';
    fclose(f);
    return text;
}

/* 1 when `text` is one element with every element closed in order, every
 * attribute value quoted and every '&' an entity; else 0 with the reason. */
static inline int xml_well_formed(const char *text, char *why, size_t size)
{
    char stack[64][48];
    int depth = 0, roots = 0;
    for (const char *p = text; *p; p++) {
        if (*p == '&') {
            static const char *const entities[] = {"&amp;",  "&lt;",   "&gt;",
                                                   "&quot;", "&apos;", "&#"};
            int known = 0;
            for (size_t i = 0; i < sizeof entities / sizeof *entities; i++)
                known |= strncmp(p, entities[i], strlen(entities[i])) == 0;
            if (!known) {
                snprintf(why, size, "a bare '&' at offset %td", p - text);
                return 0;
            }
            continue;
        }
        if (*p != '<')
            continue;
        if (p[1] == '?' || p[1] == '!') {
            const char *end = strstr(p, p[1] == '?' ? "?>" : ">");
            if (end == NULL) {
                snprintf(why, size, "an unclosed <%c at offset %td", p[1], p - text);
                return 0;
            }
            p = end;
            continue;
        }
        int closing = p[1] == '/';
        const char *name = p + 1 + closing;
        size_t len = strcspn(name, " \t\n/>");
        if (len == 0 || len >= sizeof stack[0]) {
            snprintf(why, size, "a tag without a name at offset %td", p - text);
            return 0;
        }
        const char *q = name + len;
        char quote = 0;
        for (; *q && (quote || *q != '>'); q++) {
            if (quote && *q == quote)
                quote = 0;
            else if (!quote && (*q == '"' || *q == '\''))
                quote = *q;
            else if (!quote && *q == '=' && q[1] != '"' && q[1] != '\'') {
                snprintf(why, size, "an unquoted attribute at offset %td", q - text);
                return 0;
            } else if (*q == '<') {
                snprintf(why, size, "a '<' inside a tag at offset %td", q - text);
                return 0;
            }
        }
        if (*q != '>') {
            snprintf(why, size, "an unclosed tag at offset %td", p - text);
            return 0;
        }
        if (closing) {
            if (depth == 0 || strlen(stack[depth - 1]) != len ||
                strncmp(stack[depth - 1], name, len) != 0) {
                snprintf(why, size, "</%.*s> closes %s at offset %td", (int)len, name,
                         depth ? stack[depth - 1] : "nothing", p - text);
                return 0;
            }
            depth--;
        } else if (q[-1] != '/') {
            if (depth == 0)
                roots++;
            if (depth == 64) {
                snprintf(why, size, "elements nested too deeply");
                return 0;
            }
            memcpy(stack[depth], name, len);
            stack[depth++][len] = '\0';
        } else if (depth == 0) {
            roots++;
        }
        p = q;
    }
    if (depth != 0) {
        snprintf(why, size, "<%s> is never closed", stack[depth - 1]);
        return 0;
    }
    if (roots != 1) {
        snprintf(why, size, "%d root elements", roots);
        return 0;
    }
    return 1;
}

/* 1 when `program` is on the PATH. */
static inline int xml_have(const char *program)
{
    char command[256];
    snprintf(command, sizeof command, "command -v %s >/dev/null 2>&1", program);
    return system(command) == 0;
}

/* The number in attribute `name` of the tag starting at `tag` (up to its
 * '>'), or -1e300 when it has none. */
static inline double xml_attr(const char *tag, const char *name)
{
    char key[64];
    snprintf(key, sizeof key, " %s=\"", name);
    const char *end = strchr(tag, '>'), *at = strstr(tag, key);
    if (at == NULL || (end != NULL && at > end))
        return -1e300;
    return strtod(at + strlen(key), NULL);
}

#endif
