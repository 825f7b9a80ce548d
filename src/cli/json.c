/* The CLI's JSON output: the few things jansson leaves to its caller. */
#include "json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The length of the UTF-8 sequence at s, or 0 when it is none that jansson
 * takes (it also refuses overlong forms, surrogates and code points past
 * U+10FFFF). */
static size_t utf8_length(const unsigned char *s)
{
    unsigned c = s[0];
    size_t n = c < 0x80 ? 1 : c < 0xc2 ? 0 : c < 0xe0 ? 2 : c < 0xf0 ? 3 : c < 0xf5 ? 4 : 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xc0) != 0x80) /* the string's end included */
            return 0;
    if ((n == 3 && ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] >= 0xa0))) ||
        (n == 4 && ((c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] >= 0x90))))
        return 0;
    return n;
}

json_t *cli_json_str(const char *s)
{
    json_t *j = json_string(s);
    if (j != NULL)
        return j;
    char *text = strdup(s);
    if (text == NULL)
        return NULL;
    for (unsigned char *p = (unsigned char *)text; *p != '\0';) {
        size_t n = utf8_length(p);
        if (n == 0)
            *p++ = '?';
        else
            p += n;
    }
    j = json_string(text);
    free(text);
    return j;
}

json_t *cli_json_real(const char *fmt, double v)
{
    char text[64];
    if (!isfinite(v))
        return json_null();
    snprintf(text, sizeof text, fmt, v);
    return json_real(strtod(text, NULL));
}

json_t *cli_json_extend(json_t *obj, json_t *more)
{
    if (obj != NULL && (more == NULL || json_object_update(obj, more) != 0)) {
        json_decref(obj);
        obj = NULL;
    }
    json_decref(more);
    return obj;
}

void cli_json_print(json_t *obj)
{
    /* 15 digits print back every value cli_json_real made as its format
     * wrote it (jansson's default, 17, would show 0.1 as 0.10000000000000001). */
    if (obj == NULL ||
        json_dumpf(obj, stdout, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15)) != 0)
        fprintf(stderr, "cuspec: cannot write the JSON output\n");
    else
        putchar('\n');
    fflush(stdout);
    json_decref(obj);
}
