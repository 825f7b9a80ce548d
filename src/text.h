/* Small text helpers (text.c): "name=value" lines, bounded copies and
 * checked integers. */
#ifndef CUSPEC_TEXT_H
#define CUSPEC_TEXT_H

#include "config.h"

#include <stddef.h>

/* The value of the first "name=" line of text (up to its newline), or NULL
 * when there is none. */
const char *cuspec__text_find(const char *text, const char *name);
/* The same into buf: 1, or 0 when there is no such line or the value does
 * not fit. */
int cuspec__text_field(const char *text, const char *name, char *buf, size_t size);
/* A decimal integer from lo to hi that runs up to `stop` (or the end: '\0')
 * at the start of text: the pointer past it, or NULL. No sscanf: its %d on a
 * number too large for an int is undefined. */
const char *cuspec__parse_int(const char *text, char stop, long lo, long hi, int *v);
/* The whitespace-separated words in text. */
int cuspec__words(const char *text);

/* Copies into a fixed buffer, truncating; always terminates. */
void cuspec__strlcpy(char *dst, const char *src, size_t size);

#endif /* CUSPEC_TEXT_H */
