/* Tuning records in export files (records_io.c): the parser, which the
 * import and the fuzz test share. Internal. */
#ifndef CUSPEC_RECORDS_IO_H
#define CUSPEC_RECORDS_IO_H

#include "error.h"

/* One record of an export file, checked: its store key and payload. */
struct cuspec__import {
    char *key, *payload; /* malloc'd */
};
/* The records of an export file's text (`len` bytes; `name` names it in
 * messages), each checked as cuspec_tuning_import checks them: CUSPEC_OK with
 * *out and *n set (free with cuspec__tuning_parsed_free), or
 * CUSPEC_ERR_CORRUPT, CUSPEC_ERR_UNSUPPORTED or CUSPEC_ERR_NOMEM saying what
 * and at which line, with nothing in *out. */
int cuspec__tuning_parse(const char *text, size_t len, const char *name,
                         struct cuspec__import **out, unsigned *n);
void cuspec__tuning_parsed_free(struct cuspec__import *records, unsigned n);

#endif /* CUSPEC_RECORDS_IO_H */
