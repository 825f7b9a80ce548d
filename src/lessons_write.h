/* Lesson tables to files (lessons_write.c: the atomic write and CSV;
 * lessons_svg.c: the plots). Internal. */
#ifndef CUSPEC_LESSONS_WRITE_H
#define CUSPEC_LESSONS_WRITE_H

#include "error.h"

#include <stdio.h>

/* Writes `path` through a new file beside it that body(f, t) fills, renamed
 * over it once written and synced; on any failure nothing is left behind
 * and `path` is untouched: CUSPEC_ERR_IO saying why. */
int cuspec__lesson_write(const char *path, const cuspec_lesson_table *t,
                         void (*body)(FILE *f, const cuspec_lesson_table *t));

#endif /* CUSPEC_LESSONS_WRITE_H */
