/* A lesson's table for people (aligned columns, only those the table
 * fills) and for programs (one JSON object). */
#include "lessons.h"

#include <string.h>

/* A ratio column: "12.3x", or "-" where the row has none. */
static void ratio(FILE *f, double v, int width)
{
    if (v > 0)
        fprintf(f, " %*.*fx", width - 1, v >= 100 ? 0 : v >= 10 ? 1 : 2, v);
    else
        fprintf(f, " %*s", width, "-");
}

void cli_lesson_print(FILE *f, const cuspec_lesson_table *t)
{
    unsigned c = t->columns;
    int label_w = 5, series_w = 0;
    for (int i = 0; i < t->n_rows; i++) {
        int l = (int)strlen(t->rows[i].label), s = (int)strlen(t->rows[i].series);
        label_w = l > label_w ? l : label_w;
        series_w = s > series_w ? s : series_w;
    }
    fprintf(f, "%s: %s\n  %s; GB/s counts %s\n  %s (sm_%d), %s", t->lesson, t->title, t->problem,
            t->counts, t->device, t->sm, t->date);
    if (c & CUSPEC_LESSON_COL_PUBLISHED)
        fprintf(f, "; published: %s (%s)", t->published_on, t->published_unit);
    fputs("\n\n ", f);
    if (series_w > 0)
        fprintf(f, " %-*s", series_w, "");
    fprintf(f, " %-*s", label_w, "");
    if (c & CUSPEC_LESSON_COL_X)
        fprintf(f, " %10s", t->x_name);
    fprintf(f, " %10s %10s", "ms", "GB/s");
    if (c & CUSPEC_LESSON_COL_STEP)
        fprintf(f, " %8s", "step");
    if (c & CUSPEC_LESSON_COL_CPU)
        fprintf(f, " %8s", "vs CPU");
    if (c & CUSPEC_LESSON_COL_COPY)
        fprintf(f, " %10s", "of memcpy");
    if (c & CUSPEC_LESSON_COL_PUBLISHED)
        fprintf(f, " %10s", "published");
    fputc('\n', f);
    for (int i = 0; i < t->n_rows; i++) {
        const cuspec_lesson_row *r = &t->rows[i];
        fputs(" ", f);
        if (series_w > 0)
            fprintf(f, " %-*s", series_w, r->series);
        fprintf(f, " %-*s", label_w, r->label);
        if (c & CUSPEC_LESSON_COL_X)
            fprintf(f, " %10.0f", r->x);
        fprintf(f, " %10.4f %10.1f", r->ms, r->gbs);
        if (c & CUSPEC_LESSON_COL_STEP)
            ratio(f, r->step, 8);
        if (c & CUSPEC_LESSON_COL_CPU)
            ratio(f, r->vs_cpu, 8);
        if ((c & CUSPEC_LESSON_COL_COPY) && r->of_copy > 0)
            fprintf(f, " %10.3f", r->of_copy);
        else if (c & CUSPEC_LESSON_COL_COPY)
            fprintf(f, " %10s", "-");
        if ((c & CUSPEC_LESSON_COL_PUBLISHED) && r->published > 0)
            fprintf(f, " %10.*f", r->published < 1 ? 3 : r->published < 100 ? 2 : 1, r->published);
        else if (c & CUSPEC_LESSON_COL_PUBLISHED)
            fprintf(f, " %10s", "");
        fputc('\n', f);
    }
    fputc('\n', f);
    if (t->summary[0] != '\0')
        fprintf(f, "  %s\n", t->summary);
    for (int i = 0; i < t->n_rows; i++)
        if (t->rows[i].kind == CUSPEC_LESSON_CUSPEC && t->rows[i].kernel[0] != '\0')
            fprintf(f, "  %s ran %s\n", t->rows[i].label, t->rows[i].kernel);
    fputc('\n', f);
}

/* A value the table has, or null. */
static json_t *maybe(const char *fmt, double v, int present)
{
    return present ? cli_json_real(fmt, v) : json_null();
}

static json_t *row_json(const cuspec_lesson_table *t, const cuspec_lesson_row *r)
{
    return json_pack(
        "{s:s,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:b,s:o}", "kind",
        cuspec_lesson_kind_name(r->kind), "series", cli_json_str(r->series), "label",
        cli_json_str(r->label), "x", maybe("%.6g", r->x, (t->columns & CUSPEC_LESSON_COL_X) != 0),
        "ms", cli_json_real("%.6g", r->ms), "gbs", cli_json_real("%.6g", r->gbs), "step",
        maybe("%.4g", r->step, r->step > 0), "vs_cpu", maybe("%.4g", r->vs_cpu, r->vs_cpu > 0),
        "of_copy", maybe("%.4g", r->of_copy, r->of_copy > 0), "published",
        maybe("%.6g", r->published, r->published > 0), "note", cli_json_str(r->note), "verified",
        r->verified, "kernel", r->kernel[0] ? cli_json_str(r->kernel) : json_null());
}

json_t *cli_lesson_json(const cuspec_lesson_table *t)
{
    json_t *rows = json_array();
    for (int i = 0; rows != NULL && i < t->n_rows; i++) {
        json_t *row = row_json(t, &t->rows[i]);
        if (row == NULL || json_array_append_new(rows, row) != 0) {
            json_decref(rows);
            rows = NULL;
        }
    }
    if (rows == NULL)
        return NULL;
    return json_pack(
        "{s:s,s:o,s:o,s:i,s:s,s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "lesson", t->lesson, "title",
        cli_json_str(t->title), "device", cli_json_str(t->device), "sm", t->sm, "date", t->date,
        "problem", cli_json_str(t->problem), "counts", cli_json_str(t->counts), "x_name",
        t->columns & CUSPEC_LESSON_COL_X ? cli_json_str(t->x_name) : json_null(), "published_on",
        t->published_on[0] ? cli_json_str(t->published_on) : json_null(), "published_unit",
        t->published_on[0] ? cli_json_str(t->published_unit) : json_null(), "summary",
        cli_json_str(t->summary), "rows", rows);
}
