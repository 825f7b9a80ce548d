/* cuspec lessons: a lesson's table for people and for programs
 * (lessons_print.c), apart from the command (lessons.c) so that tests
 * check them on tables of their own. */
#ifndef CUSPEC_CLI_LESSONS_H
#define CUSPEC_CLI_LESSONS_H

#include "cuspec.h"
#include "json.h"

#include <stdio.h>

/* The table as text: its heading, a line per row with the columns the
 * table fills, and its summary. */
void cli_lesson_print(FILE *f, const cuspec_lesson_table *t);
/* The table as one JSON object (NULL when out of memory): its facts, then
 * "rows", each with every field (null where the table has no such value). */
json_t *cli_lesson_json(const cuspec_lesson_table *t);

#endif
