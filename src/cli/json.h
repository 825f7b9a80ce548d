/* The CLI's JSON output, built with jansson: one compact object per line on
 * stdout, its keys in the order they were set. */
#ifndef CUSPEC_CLI_JSON_H
#define CUSPEC_CLI_JSON_H

#include <jansson.h>

/* A JSON string of s. jansson takes UTF-8 only: in a string that is not (a
 * path, a corrupt entry's key) each byte that is no part of a character
 * shows as '?', rather than the string being lost. NULL only when out of
 * memory. */
json_t *cli_json_str(const char *s);
/* The number v as printf's fmt ("%.1f", "%.3g") shows it, so that the JSON
 * carries the digits the tables do; null when v is not finite (JSON has no
 * NaN). */
json_t *cli_json_real(const char *fmt, double v);
/* Sets the keys of `more` on obj after its own, in their order, and drops
 * `more`; obj (NULL when either is NULL). */
json_t *cli_json_extend(json_t *obj, json_t *more);
/* Prints obj on one line of stdout, flushes, and drops it. A NULL obj
 * (jansson's answer to a failed json_pack: out of memory) is reported on
 * stderr instead. */
void cli_json_print(json_t *obj);

#endif
