/* Small text helpers: "name=value" lines (store meta, records), bounded
 * copies and integers checked as they are read. */
#include "text.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

const char *cuspec__text_find(const char *text, const char *name)
{
    size_t len = strlen(name);
    for (const char *line = text; line != NULL && *line; line = strchr(line, '\n')) {
        if (*line == '\n')
            line++;
        if (strncmp(line, name, len) == 0 && line[len] == '=')
            return line + len + 1;
    }
    return NULL;
}

int cuspec__text_field(const char *text, const char *name, char *buf, size_t size)
{
    const char *v = cuspec__text_find(text, name);
    size_t n = v != NULL ? strcspn(v, "\n") : 0;
    if (v == NULL || n >= size)
        return 0;
    memcpy(buf, v, n);
    buf[n] = '\0';
    return 1;
}

void cuspec__strlcpy(char *dst, const char *src, size_t size)
{
    if (size == 0)
        return;
    size_t len = strlen(src);
    if (len >= size)
        len = size - 1;
    memcpy(dst, src, len);
    dst[len] = '\0';
}

const char *cuspec__parse_int(const char *text, char stop, long lo, long hi, int *v)
{
    char *end;
    if (*text < '0' || *text > '9')
        return NULL;
    errno = 0;
    long x = strtol(text, &end, 10);
    if (errno != 0 || x < lo || x > hi || *end != stop)
        return NULL;
    *v = (int)x;
    return end;
}

int cuspec__words(const char *text)
{
    int n = 0;
    for (const char *s = text; *s != '\0'; s++)
        n += !isspace((unsigned char)*s) && (s == text || isspace((unsigned char)s[-1]));
    return n;
}
