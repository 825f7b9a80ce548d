/* Lesson tables to files: through a new file renamed over the path (so a
 * path is whole or untouched), as CSV here and as SVG (lessons_svg.c). */
#include "lessons_write.h"
#include "userfile.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int cuspec__lesson_write(const char *path, const cuspec_lesson_table *t,
                         void (*body)(FILE *f, const cuspec_lesson_table *t))
{
    char tmp[4096];
    int fd;
    int rc = cuspec__file_create(path, tmp, sizeof tmp, &fd);
    if (rc != CUSPEC_OK)
        return rc;
    FILE *f = fdopen(fd, "w");
    if (f == NULL) {
        rc = cuspec__fail(CUSPEC_ERR_NOMEM, "cannot write %s: %s", tmp, strerror(errno));
        close(fd);
        unlink(tmp);
        return rc;
    }
    body(f, t);
    int bad = ferror(f) | (fflush(f) != 0) | (fsync(fileno(f)) != 0);
    bad |= fclose(f) != 0;
    if (bad) {
        rc = cuspec__fail(CUSPEC_ERR_IO, "cannot write %s: %s", tmp, strerror(errno));
        unlink(tmp);
        return rc;
    }
    return cuspec__file_replace(tmp, path);
}

/* A CSV field: quoted, with its quotes doubled (RFC 4180). */
static void field(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

/* A number, or an empty field where the table has no such value. */
static void number(FILE *f, double v, int present)
{
    if (present)
        fprintf(f, ",%.6g", v);
    else
        fputc(',', f);
}

static void csv_body(FILE *f, const cuspec_lesson_table *t)
{
    fputs("lesson,series,label,kind,x,ms,gbs,step,vs_cpu,of_copy,published,verified,kernel\n", f);
    for (int i = 0; i < t->n_rows; i++) {
        const cuspec_lesson_row *r = &t->rows[i];
        field(f, t->lesson);
        fputc(',', f);
        field(f, r->series);
        fputc(',', f);
        field(f, r->label);
        fprintf(f, ",%s", cuspec_lesson_kind_name(r->kind));
        number(f, r->x, t->columns & CUSPEC_LESSON_COL_X);
        number(f, r->ms, 1);
        number(f, r->gbs, 1);
        number(f, r->step, r->step > 0);
        number(f, r->vs_cpu, r->vs_cpu > 0);
        number(f, r->of_copy, r->of_copy > 0);
        number(f, r->published, r->published > 0);
        fprintf(f, ",%d,", r->verified);
        field(f, r->kernel);
        fputc('\n', f);
    }
}

int cuspec_lesson_write_csv(const cuspec_lesson_table *t, const char *path)
{
    CUSPEC__RETURN_IF(t == NULL || path == NULL, CUSPEC_ERR_INVALID,
                      "cuspec_lesson_write_csv: %s is NULL", t == NULL ? "table" : "path");
    CUSPEC__RETURN_IF(t->n_rows < 0 || t->n_rows > CUSPEC_LESSON_MAX_ROWS, CUSPEC_ERR_INVALID,
                      "cuspec_lesson_write_csv: the table has %d rows", t->n_rows);
    return cuspec__lesson_write(path, t, csv_body);
}
