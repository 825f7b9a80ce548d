/* A lesson table's plot as a standalone SVG file a browser opens: GB/s as
 * bars against the memcpy ceiling (transpose, reduce), or against x as one
 * line per series (coalescing), with axes, units, a title, the GPU and the
 * date. Each mark carries its value (data-gbs, data-x) so tests can check
 * where it was drawn. */
#include "lessons_write.h"

#include <math.h>
#include <string.h>

enum { WIDTH = 860, HEIGHT = 520, LEFT = 90, RIGHT = 40, TOP = 84, BOTTOM = 130 };

static const char *const palette[] = {"#4477aa", "#ee6677", "#228833", "#ccbb44", "#66ccee"};
#define CPU_COLOR "#999999"
#define CUSPEC_COLOR "#ee7733"

/* Text content or an attribute value: the XML specials escaped, and
 * control characters XML 1.0 cannot hold shown as '?'. */
static void xml_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '&')
            fputs("&amp;", f);
        else if (c == '<')
            fputs("&lt;", f);
        else if (c == '>')
            fputs("&gt;", f);
        else if (c == '"')
            fputs("&quot;", f);
        else if (c < 0x20 && c != '\t' && c != '\n')
            fputc('?', f);
        else
            fputc(c, f);
    }
}

/* A tick step of 1, 2 or 5 times a power of ten giving at most `ticks`
 * ticks up to `top`. */
static double nice_step(double top, int ticks)
{
    static const double multiples[] = {1, 2, 5};
    if (!(top > 0))
        return 1;
    double base = pow(10, floor(log10(top / ticks)));
    for (size_t i = 0; i < sizeof multiples / sizeof *multiples; i++)
        if (top / (base * multiples[i]) <= ticks)
            return base * multiples[i];
    return base * 10;
}

/* The plot area (y0 at its top) and its scales: GB/s from 0 to `top`
 * upwards, x (line plots) from 0 to x_top rightwards. */
struct frame {
    double x0, x1, y0, y1;
    double top, step, x_top;
};

static double y_of(const struct frame *fr, double gbs)
{
    return fr->y1 - gbs / fr->top * (fr->y1 - fr->y0);
}

static double x_of(const struct frame *fr, double x)
{
    return fr->x0 + x / fr->x_top * (fr->x1 - fr->x0);
}

static void header(FILE *f, const cuspec_lesson_table *t)
{
    fprintf(f,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
            "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n"
            "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
            "<text class=\"title\" x=\"%d\" y=\"30\" font-size=\"18\" font-weight=\"bold\">"
            "cuspec lessons ",
            WIDTH, HEIGHT, WIDTH, HEIGHT, LEFT);
    xml_text(f, t->lesson);
    fputs(": ", f);
    xml_text(f, t->title);
    fprintf(f, "</text>\n<text class=\"subtitle\" x=\"%d\" y=\"52\">", LEFT);
    xml_text(f, t->device);
    fprintf(f, " (sm_%d), %s: ", t->sm, t->date);
    xml_text(f, t->problem);
    fprintf(f, "</text>\n");
}

/* The y axis, its grid and the ceiling, over a frame whose top covers the
 * largest of `max_gbs` and the memcpy row's GB/s. */
static struct frame frame_make(FILE *f, const cuspec_lesson_table *t, double max_gbs)
{
    const cuspec_lesson_row *copy = NULL;
    for (int i = 0; i < t->n_rows && copy == NULL; i++)
        if (t->rows[i].kind == CUSPEC_LESSON_COPY)
            copy = &t->rows[i];
    if (copy != NULL && copy->gbs > max_gbs)
        max_gbs = copy->gbs;
    struct frame fr = {
        .x0 = LEFT, .x1 = WIDTH - RIGHT, .y0 = TOP, .y1 = HEIGHT - BOTTOM, .x_top = 1};
    fr.step = nice_step(max_gbs * 1.08, 8);
    fr.top = ceil(max_gbs * 1.08 / fr.step) * fr.step;
    for (int k = 0; k * fr.step <= fr.top * (1 + 1e-9); k++) {
        double v = k * fr.step, y = y_of(&fr, v);
        fprintf(f,
                "<line class=\"grid\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" "
                "stroke=\"#dddddd\"/>\n"
                "<text class=\"tick\" x=\"%.2f\" y=\"%.2f\" text-anchor=\"end\">%g</text>\n",
                fr.x0, y, fr.x1, y, fr.x0 - 6, y + 4, v);
    }
    fprintf(f,
            "<line class=\"axis\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" "
            "stroke=\"black\"/>\n"
            "<line class=\"axis\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" "
            "stroke=\"black\"/>\n",
            fr.x0, fr.y0, fr.x0, fr.y1, fr.x0, fr.y1, fr.x1, fr.y1);
    fprintf(f,
            "<text class=\"ylabel\" transform=\"translate(22 %.2f) rotate(-90)\" "
            "text-anchor=\"middle\">GB/s (",
            (fr.y0 + fr.y1) / 2);
    xml_text(f, t->counts);
    fputs(")</text>\n", f);
    if (copy != NULL) {
        double y = y_of(&fr, copy->gbs);
        fprintf(f,
                "<line class=\"ceiling\" data-gbs=\"%.6g\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" "
                "y2=\"%.2f\" stroke=\"black\" stroke-dasharray=\"6 4\"/>\n"
                "<text x=\"%.2f\" y=\"%.2f\">device-to-device memcpy %.0f GB/s</text>\n",
                copy->gbs, fr.x0, y, fr.x1, y, fr.x0 + 6, y - 6, copy->gbs);
    }
    return fr;
}

static void bars(FILE *f, const cuspec_lesson_table *t)
{
    int n = 0;
    double max_gbs = 0;
    for (int i = 0; i < t->n_rows; i++)
        if (t->rows[i].kind != CUSPEC_LESSON_COPY) {
            n++;
            max_gbs = t->rows[i].gbs > max_gbs ? t->rows[i].gbs : max_gbs;
        }
    struct frame fr = frame_make(f, t, max_gbs);
    double slot = (fr.x1 - fr.x0) / (n > 0 ? n : 1), x = fr.x0;
    for (int i = 0; i < t->n_rows; i++) {
        const cuspec_lesson_row *r = &t->rows[i];
        if (r->kind == CUSPEC_LESSON_COPY)
            continue;
        const char *color = r->kind == CUSPEC_LESSON_CPU      ? CPU_COLOR
                            : r->kind == CUSPEC_LESSON_CUSPEC ? CUSPEC_COLOR
                                                              : palette[0];
        double y = y_of(&fr, r->gbs), cx = x + slot / 2;
        fprintf(f,
                "<rect class=\"bar\" data-gbs=\"%.6g\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
                "height=\"%.2f\" fill=\"%s\"><title>",
                r->gbs, x + slot * 0.2, y, slot * 0.6, fr.y1 - y, color);
        xml_text(f, r->label);
        fprintf(f, ": %.4g ms, %.1f GB/s</title></rect>\n", r->ms, r->gbs);
        fprintf(f, "<text x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">%.0f</text>\n", cx, y - 4,
                r->gbs);
        fprintf(f,
                "<text class=\"label\" text-anchor=\"end\" "
                "transform=\"translate(%.2f %.2f) rotate(-30)\">",
                cx, fr.y1 + 16);
        xml_text(f, r->label);
        fputs("</text>\n", f);
        x += slot;
    }
}

static void lines(FILE *f, const cuspec_lesson_table *t)
{
    double max_gbs = 0, max_x = 0;
    for (int i = 0; i < t->n_rows; i++)
        if (t->rows[i].kind == CUSPEC_LESSON_STEP) {
            max_gbs = t->rows[i].gbs > max_gbs ? t->rows[i].gbs : max_gbs;
            max_x = t->rows[i].x > max_x ? t->rows[i].x : max_x;
        }
    struct frame fr = frame_make(f, t, max_gbs);
    double x_step = nice_step(max_x, 8);
    fr.x_top = max_x > 0 ? max_x : 1; /* the axis ends at the last x, ticks at round ones */
    for (int k = 0; k * x_step <= fr.x_top * (1 + 1e-9); k++) {
        double v = k * x_step, x = x_of(&fr, v);
        fprintf(f,
                "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"black\"/>\n"
                "<text class=\"tick\" x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">%g</text>\n",
                x, fr.y1, x, fr.y1 + 5, x, fr.y1 + 20, v);
    }
    fprintf(f, "<text class=\"xlabel\" x=\"%.2f\" y=\"%.2f\" text-anchor=\"middle\">",
            (fr.x0 + fr.x1) / 2, fr.y1 + 44);
    xml_text(f, t->x_name);
    fputs("</text>\n", f);
    /* one line per series, in the order the rows name them */
    int n_series = 0;
    for (int i = 0; i < t->n_rows; i++) {
        const cuspec_lesson_row *r = &t->rows[i];
        int first = r->kind == CUSPEC_LESSON_STEP;
        for (int j = 0; first && j < i; j++)
            first = !(t->rows[j].kind == CUSPEC_LESSON_STEP &&
                      strcmp(t->rows[j].series, r->series) == 0);
        if (!first)
            continue;
        const char *color = palette[n_series % (sizeof palette / sizeof *palette)];
        fprintf(f,
                "<polyline class=\"series\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\" "
                "points=\"",
                color);
        for (int j = i; j < t->n_rows; j++)
            if (t->rows[j].kind == CUSPEC_LESSON_STEP && !strcmp(t->rows[j].series, r->series))
                fprintf(f, "%s%.2f,%.2f", j == i ? "" : " ", x_of(&fr, t->rows[j].x),
                        y_of(&fr, t->rows[j].gbs));
        fputs("\"/>\n", f);
        for (int j = i; j < t->n_rows; j++) {
            const cuspec_lesson_row *p = &t->rows[j];
            if (p->kind != CUSPEC_LESSON_STEP || strcmp(p->series, r->series) != 0)
                continue;
            fprintf(f, "<circle class=\"point\" data-series=\"");
            xml_text(f, p->series);
            fprintf(f,
                    "\" data-x=\"%.6g\" data-gbs=\"%.6g\" cx=\"%.2f\" cy=\"%.2f\" r=\"3\" "
                    "fill=\"%s\"><title>",
                    p->x, p->gbs, x_of(&fr, p->x), y_of(&fr, p->gbs), color);
            xml_text(f, p->series);
            fprintf(f, " %g: %.1f GB/s</title></circle>\n", p->x, p->gbs);
        }
        /* the legend in a row under the axis, where no line can cross it */
        double lx = fr.x0 + 140 * n_series, ly = fr.y1 + 70;
        fprintf(f,
                "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"%s\" "
                "stroke-width=\"2\"/>\n<text class=\"legend\" x=\"%.2f\" y=\"%.2f\">",
                lx, ly, lx + 24, ly, color, lx + 30, ly + 4);
        xml_text(f, r->series);
        fputs("</text>\n", f);
        n_series++;
    }
}

static void svg_body(FILE *f, const cuspec_lesson_table *t)
{
    header(f, t);
    if (t->plot == CUSPEC_LESSON_PLOT_LINES)
        lines(f, t);
    else
        bars(f, t);
    fputs("</svg>\n", f);
}

int cuspec_lesson_write_svg(const cuspec_lesson_table *t, const char *path)
{
    CUSPEC__RETURN_IF(t == NULL || path == NULL, CUSPEC_ERR_INVALID,
                      "cuspec_lesson_write_svg: %s is NULL", t == NULL ? "table" : "path");
    CUSPEC__RETURN_IF(t->n_rows < 0 || t->n_rows > CUSPEC_LESSON_MAX_ROWS, CUSPEC_ERR_INVALID,
                      "cuspec_lesson_write_svg: the table has %d rows", t->n_rows);
    CUSPEC__RETURN_IF(t->plot != CUSPEC_LESSON_PLOT_BARS && t->plot != CUSPEC_LESSON_PLOT_LINES,
                      CUSPEC_ERR_INVALID, "cuspec_lesson_write_svg: lesson %s has no plot",
                      t->lesson);
    return cuspec__lesson_write(path, t, svg_body);
}
