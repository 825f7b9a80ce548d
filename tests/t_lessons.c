/* The lessons without a GPU: their registry and sizes, the lessons family
 * in the catalogue, and the writers (CSV and SVG of the library, text and
 * JSON of the CLI) on tables made here. */
#include "catalogue.h"
#include "image.h"
#include "lessons.h"
#include "template.h"
#include "cli/lessons.h"
#include "tap.h"
#include "xml_check.h"

#include <dirent.h>
#include <math.h>
#include <sys/stat.h>

static char dir[] = "/tmp/cuspec-t-lessons-XXXXXX";

TEST(the_six_lessons_are_listed_and_found)
{
    static const char *const names[] = {"transpose", "reduce", "coalescing",
                                        "reverse",   "memory", "dot"};
    cuspec_lesson_info info;
    for (int i = 0; i < 6; i++) {
        CHECK_INT_EQ(cuspec_lesson_get_info(i, &info), CUSPEC_OK);
        CHECK_STR_EQ(info.name, names[i]);
        CHECK_INT_EQ(cuspec_lesson_find(names[i]), i);
        CHECK(info.min_size > 0 && info.min_size <= info.max_size && info.size_multiple > 0);
        CHECK(info.default_note[0] != '\0');
        /* a fixed default is one the lesson takes */
        CHECK(info.default_size == 0 ||
              cuspec_lesson_check_size(info.name, info.default_size) == CUSPEC_OK);
    }
    CHECK_INT_EQ(cuspec_lesson_get_info(6, &info), CUSPEC_ERR_NOT_FOUND);
    CHECK_INT_EQ(cuspec_lesson_get_info(-1, &info), CUSPEC_ERR_NOT_FOUND);
    CHECK_INT_EQ(cuspec_lesson_find("transpos"), -1);
    CHECK_INT_EQ(cuspec_lesson_find(NULL), -1);
}

TEST(sizes_out_of_range_are_refused_with_the_range)
{
    CHECK_INT_EQ(cuspec_lesson_check_size("transpose", 0), CUSPEC_OK);
    CHECK_INT_EQ(cuspec_lesson_check_size("transpose", 32), CUSPEC_OK);
    CHECK_INT_EQ(cuspec_lesson_check_size("transpose", 16384), CUSPEC_OK);
    CHECK_INT_EQ(cuspec_lesson_check_size("transpose", 100), CUSPEC_ERR_INVALID);
    CHECK_STR_CONTAINS(cuspec_last_error(), "from 32 to 16384, a multiple of 32, not 100");
    CHECK_INT_EQ(cuspec_lesson_check_size("transpose", 16416), CUSPEC_ERR_INVALID);
    CHECK_INT_EQ(cuspec_lesson_check_size("reduce", 1023), CUSPEC_ERR_INVALID);
    CHECK_STR_CONTAINS(cuspec_last_error(), "reduce takes a size");
    CHECK_INT_EQ(cuspec_lesson_check_size("reduce", 1000001), CUSPEC_OK);
    CHECK_INT_EQ(cuspec_lesson_check_size("coalescing", ((size_t)1 << 25) + 256),
                 CUSPEC_ERR_INVALID);
    CHECK_INT_EQ(cuspec_lesson_check_size("fft", 4096), CUSPEC_ERR_INVALID);
    CHECK_STR_CONTAINS(cuspec_last_error(),
                       "no lesson is named 'fft' (transpose, reduce, coalescing, reverse, "
                       "memory, dot)");
}

static int count(const struct cuspec__variant *v, void *user)
{
    (void)v;
    ++*(int *)user;
    return 0;
}

TEST(every_lesson_kernel_is_a_default_of_the_lessons_family)
{
    int fam = cuspec__family_find("lessons");
    CHECK_INT_EQ(fam, CUSPEC__FAM_LESSONS);
    const struct cuspec__family *f = cuspec__family(fam);
    CHECK_INT_EQ(f->n_ops, CUSPEC__LK_COUNT);
    CHECK(f->ops == NULL); /* not tunable */
    for (int op = 0; op < f->n_ops; op++) {
        struct cuspec__variant v;
        cuspec__variant_default(fam, 0, op, 90, &v);
        CHECK(cuspec__variant_legal(&v));
        char name[256];
        cuspec__variant_name(&v, name, sizeof name);
        CHECK_STR_EQ(name, cuspec__lesson_kernel_name(op));
        CHECK(strncmp(name, "lessons_", 8) == 0);
        const char *hash;
        CHECK(cuspec__template(cuspec__variant_template(&v), &hash) != NULL);
        CHECK_INT_GE(f->threads(&v), 32);
        for (int other = 0; other < op; other++)
            CHECK(strcmp(cuspec__lesson_kernel_name(other), name) != 0);
    }
    struct cuspec__variant past = {.family = fam, .op = CUSPEC__LK_COUNT};
    CHECK(!cuspec__variant_legal(&past));
    /* each kernel once: what the build prebuilds is every kernel, no more */
    int defaults = 0, all = 0;
    CHECK_INT_EQ(cuspec__family_each(fam, 90, 0, count, &defaults), 0);
    CHECK_INT_EQ(cuspec__family_each(fam, 75, 1, count, &all), 0);
    CHECK_INT_EQ(defaults, CUSPEC__LK_COUNT);
    CHECK_INT_EQ(all, CUSPEC__LK_COUNT);
}

/* A transpose-like table: every column, a memcpy ceiling, text to escape. */
static void bars_table(cuspec_lesson_table *t)
{
    static const struct {
        int kind;
        const char *label;
        double ms, gbs, published;
        const char *kernel;
    } rows[] = {
        {CUSPEC_LESSON_CPU, "CPU", 80, 1.6, 0.807, ""},
        {CUSPEC_LESSON_STEP, "naive", 0.4, 320, 54.64, "lessons_transpose_naive<32>"},
        {CUSPEC_LESSON_STEP, "coalesced", 0.2, 640, 78.37, "lessons_transpose_coalesced<32>"},
        {CUSPEC_LESSON_STEP, "say \"hi\", then", 0.1, 1280, 0, "lessons_transpose_unrolled<32, 8>"},
        {CUSPEC_LESSON_CUSPEC, "cuspec", 0.05, 2560, 0, "cuspec_transpose<unsigned int, 64, 8>"},
        {CUSPEC_LESSON_COPY, "memcpy", 0.04, 3200, 167.10, ""},
    };
    memset(t, 0, sizeof *t);
    strcpy(t->lesson, "transpose");
    strcpy(t->title, "the matrix transpose, step by step");
    strcpy(t->problem, "4096 x 4096 f32 (64 MiB)");
    strcpy(t->counts, "bytes read + written");
    strcpy(t->published_on, "Tesla K20");
    strcpy(t->published_unit, "GB/s");
    strcpy(t->summary, "A summary.");
    strcpy(t->device, "Test & <GPU> \"9000\"");
    strcpy(t->date, "2025-01-02");
    t->sm = 90;
    t->columns = CUSPEC_LESSON_COL_STEP | CUSPEC_LESSON_COL_CPU | CUSPEC_LESSON_COL_COPY |
                 CUSPEC_LESSON_COL_PUBLISHED;
    t->plot = CUSPEC_LESSON_PLOT_BARS;
    t->n_rows = (int)(sizeof rows / sizeof *rows);
    for (int i = 0; i < t->n_rows; i++) {
        cuspec_lesson_row *r = &t->rows[i];
        r->kind = rows[i].kind;
        strcpy(r->label, rows[i].label);
        strcpy(r->kernel, rows[i].kernel);
        r->ms = rows[i].ms;
        r->gbs = rows[i].gbs;
        r->published = rows[i].published;
        r->verified = rows[i].kind == CUSPEC_LESSON_STEP || rows[i].kind == CUSPEC_LESSON_CUSPEC;
        r->step = i > 0 && i < 5 ? rows[i - 1].ms / rows[i].ms : 0;
        r->vs_cpu = i > 0 ? 80 / rows[i].ms : 0;
        r->of_copy = rows[i].gbs / 3200;
    }
}

/* A coalescing-like table: two series against x, and the ceiling. */
static void lines_table(cuspec_lesson_table *t)
{
    memset(t, 0, sizeof *t);
    strcpy(t->lesson, "coalescing");
    strcpy(t->title, "offset and strided access");
    strcpy(t->problem, "2^25 f32");
    strcpy(t->counts, "bytes read + written");
    strcpy(t->x_name, "s");
    strcpy(t->device, "Test GPU");
    strcpy(t->date, "2025-01-02");
    t->columns = CUSPEC_LESSON_COL_X | CUSPEC_LESSON_COL_COPY;
    t->plot = CUSPEC_LESSON_PLOT_LINES;
    for (int s = 0; s <= 32; s++) {
        cuspec_lesson_row *r = &t->rows[t->n_rows++];
        r->kind = CUSPEC_LESSON_STEP;
        strcpy(r->series, "offset");
        snprintf(r->label, sizeof r->label, "%d", s);
        r->x = s;
        r->gbs = s == 0 || s == 32 ? 3000 : 2500;
        r->ms = 0.1;
    }
    for (int s = 1; s <= 32; s++) {
        cuspec_lesson_row *r = &t->rows[t->n_rows++];
        r->kind = CUSPEC_LESSON_STEP;
        strcpy(r->series, "stride");
        snprintf(r->label, sizeof r->label, "%d", s);
        r->x = s;
        r->gbs = 3000.0 / s;
        r->ms = 0.1 * s;
    }
    cuspec_lesson_row *r = &t->rows[t->n_rows++];
    r->kind = CUSPEC_LESSON_COPY;
    strcpy(r->series, "copy");
    strcpy(r->label, "memcpy");
    r->gbs = 3300;
    r->ms = 0.08;
}

static void path_of(char *buf, size_t size, const char *name)
{
    snprintf(buf, size, "%s/%s", dir, name);
}

/* The files in dir: a failed or finished write leaves no temporary one. */
static int files_in_dir(void)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL;)
        n += e->d_name[0] != '.';
    if (d != NULL)
        closedir(d);
    return n;
}

TEST(csv_has_a_header_and_a_quoted_line_per_row)
{
    cuspec_lesson_table t;
    bars_table(&t);
    char path[256];
    path_of(path, sizeof path, "transpose.csv");
    CHECK_INT_EQ(cuspec_lesson_write_csv(&t, path), CUSPEC_OK);
    char *text = xml_read_file(path);
    CHECK(text != NULL);
    if (text == NULL)
        return;
    CHECK(strncmp(text,
                  "lesson,series,label,kind,x,ms,gbs,step,vs_cpu,of_copy,published,"
                  "verified,kernel\n",
                  strlen("lesson,series,label,kind,x,ms,gbs,step,vs_cpu,of_copy,published,"
                         "verified,kernel\n")) == 0);
    int lines = 0;
    for (const char *p = text; *p; p++)
        lines += *p == '\n';
    CHECK_INT_EQ(lines, 1 + t.n_rows);
    /* no x column in this table, no step for the CPU, quotes doubled, commas kept */
    CHECK_STR_CONTAINS(text, "\"transpose\",\"\",\"CPU\",cpu,,80,1.6,,,0.0005,0.807,0,\"\"\n");
    CHECK_STR_CONTAINS(text, "\"say \"\"hi\"\", then\",step,,0.1,1280,2,800,0.4,,1,"
                             "\"lessons_transpose_unrolled<32, 8>\"\n");
    CHECK_STR_CONTAINS(text, "\"memcpy\",copy,,0.04,3200,,2000,1,167.1,0,\"\"\n");
    free(text);
    /* a second write replaces the file whole, and leaves nothing beside it */
    int before = files_in_dir();
    t.n_rows = 1;
    CHECK_INT_EQ(cuspec_lesson_write_csv(&t, path), CUSPEC_OK);
    text = xml_read_file(path);
    lines = 0;
    for (const char *p = text ? text : ""; *p; p++)
        lines += *p == '\n';
    CHECK_INT_EQ(lines, 2);
    free(text);
    CHECK_INT_EQ(files_in_dir(), before);
}

/* Every bar stands on one baseline, its height its value on the scale the
 * ceiling line gives (coordinates are written to 0.01 px). */
static void check_bars(const char *svg, const cuspec_lesson_table *t)
{
    const char *ceiling = strstr(svg, "<line class=\"ceiling\"");
    const char *first = strstr(svg, "<rect class=\"bar\"");
    CHECK(ceiling != NULL && first != NULL);
    if (ceiling == NULL || first == NULL)
        return;
    CHECK_NEAR(xml_attr(ceiling, "data-gbs"), 3200, 1e-6);
    double base = xml_attr(first, "y") + xml_attr(first, "height");
    double scale = (base - xml_attr(ceiling, "y1")) / 3200;
    CHECK(scale > 0);
    CHECK(xml_attr(ceiling, "y1") > 60); /* below the title: nothing drawn off the axis */
    int bars = 0;
    for (const char *p = first; p != NULL; p = strstr(p + 1, "<rect class=\"bar\"")) {
        double gbs = xml_attr(p, "data-gbs"), y = xml_attr(p, "y"), h = xml_attr(p, "height");
        CHECK_NEAR(gbs, t->rows[bars].gbs, 1e-3);
        CHECK_NEAR(h, gbs * scale, 0.02);
        CHECK_NEAR(y + h, base, 0.02);
        bars++;
    }
    CHECK_INT_EQ(bars, t->n_rows - 1); /* every row but the memcpy */
}

/* Every point lies on one linear map of (x, GB/s) to (cx, cy), the one the
 * extreme points give. */
static void check_points(const char *svg)
{
    double x[80], gbs[80], cx[80], cy[80];
    int n = 0, lo = 0, hi = 0, low = 0, high = 0;
    for (const char *p = strstr(svg, "<circle class=\"point\""); p != NULL && n < 80;
         p = strstr(p + 1, "<circle class=\"point\""), n++) {
        x[n] = xml_attr(p, "data-x");
        gbs[n] = xml_attr(p, "data-gbs");
        cx[n] = xml_attr(p, "cx");
        cy[n] = xml_attr(p, "cy");
        lo = x[n] < x[lo] ? n : lo;
        hi = x[n] > x[hi] ? n : hi;
        low = gbs[n] < gbs[low] ? n : low;
        high = gbs[n] > gbs[high] ? n : high;
    }
    CHECK_INT_EQ(n, 33 + 32);
    if (n < 2)
        return;
    double sx = (cx[hi] - cx[lo]) / (x[hi] - x[lo]),
           sy = (cy[high] - cy[low]) / (gbs[high] - gbs[low]);
    CHECK(sx > 0 && sy < 0); /* x grows rightwards, GB/s upwards */
    for (int i = 0; i < n; i++) {
        CHECK_NEAR(cx[i], cx[lo] + (x[i] - x[lo]) * sx, 0.02);
        CHECK_NEAR(cy[i], cy[low] + (gbs[i] - gbs[low]) * sy, 0.02);
    }
}

/* The checks any plot passes: well-formed, titled, labelled. */
static void check_svg_file(const char *path, const char *lesson)
{
    char *svg = xml_read_file(path);
    CHECK(svg != NULL);
    if (svg == NULL)
        return;
    char why[256];
    if (!xml_well_formed(svg, why, sizeof why))
        TAP_FAIL("%s is not well-formed: %s", path, why);
    CHECK(strncmp(svg, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg ", 44) == 0);
    char title[128];
    snprintf(title, sizeof title, ">cuspec lessons %s: ", lesson);
    CHECK_STR_CONTAINS(svg, title);
    CHECK_STR_CONTAINS(svg, "2025-01-02");
    CHECK_STR_CONTAINS(svg, "class=\"ylabel\"");
    CHECK_STR_CONTAINS(svg, ">GB/s (bytes read + written)</text>");
    CHECK_STR_CONTAINS(svg, "class=\"tick\"");
    CHECK_STR_CONTAINS(svg, "device-to-device memcpy 3");
    free(svg);
    if (xml_have("xmllint")) {
        char command[512];
        snprintf(command, sizeof command, "xmllint --noout '%s'", path);
        CHECK_INT_EQ(system(command), 0);
    } else {
        printf("# xmllint is not installed: the well-formedness check is our own only\n");
    }
}

/* Rendered, the plot is not blank: its PNG is much larger than that of a
 * blank page of the same size (where rsvg-convert is installed). */
static void check_renders(const char *path)
{
    if (!xml_have("rsvg-convert")) {
        printf("# rsvg-convert is not installed: not rendered\n");
        return;
    }
    char blank[256], command[1024];
    path_of(blank, sizeof blank, "blank.svg");
    FILE *f = fopen(blank, "w");
    CHECK(f != NULL);
    if (f == NULL)
        return;
    fputs("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"860\" height=\"520\">"
          "<rect width=\"100%\" height=\"100%\" fill=\"white\"/></svg>\n",
          f);
    fclose(f);
    snprintf(command, sizeof command,
             "rsvg-convert -o '%s.png' '%s' && rsvg-convert -o '%s.png' '%s'", path, path, blank,
             blank);
    CHECK_INT_EQ(system(command), 0);
    struct stat plot_st, blank_st;
    char png[300];
    snprintf(png, sizeof png, "%s.png", path);
    CHECK_INT_EQ(stat(png, &plot_st), 0);
    snprintf(png, sizeof png, "%s.png", blank);
    CHECK_INT_EQ(stat(png, &blank_st), 0);
    CHECK_INT_GE(plot_st.st_size, 4 * blank_st.st_size);
}

TEST(svg_bars_are_drawn_to_scale_against_the_ceiling)
{
    cuspec_lesson_table t;
    bars_table(&t);
    char path[256];
    path_of(path, sizeof path, "transpose.svg");
    CHECK_INT_EQ(cuspec_lesson_write_svg(&t, path), CUSPEC_OK);
    check_svg_file(path, "transpose");
    char *svg = xml_read_file(path);
    if (svg != NULL) {
        check_bars(svg, &t);
        CHECK_STR_CONTAINS(svg, "Test &amp; &lt;GPU&gt; &quot;9000&quot; (sm_90)");
        CHECK_STR_CONTAINS(svg, ">say &quot;hi&quot;, then</text>");
    }
    free(svg);
    check_renders(path);
}

TEST(svg_lines_map_x_and_bandwidth_linearly)
{
    cuspec_lesson_table t;
    lines_table(&t);
    char path[256];
    path_of(path, sizeof path, "coalescing.svg");
    CHECK_INT_EQ(cuspec_lesson_write_svg(&t, path), CUSPEC_OK);
    check_svg_file(path, "coalescing");
    char *svg = xml_read_file(path);
    if (svg != NULL) {
        check_points(svg);
        CHECK_STR_CONTAINS(svg, "class=\"xlabel\" ");
        CHECK_STR_CONTAINS(svg, ">s</text>");
        CHECK_STR_CONTAINS(svg, "class=\"legend\"");
        CHECK_STR_CONTAINS(svg, ">offset</text>");
        CHECK_STR_CONTAINS(svg, ">stride</text>");
        CHECK_INT_EQ(!!strstr(svg, "<polyline"), 1);
    }
    free(svg);
    check_renders(path);
}

TEST(write_errors_leave_nothing_behind)
{
    cuspec_lesson_table t;
    bars_table(&t);
    char path[256], file[256];
    /* a folder that is a file */
    path_of(file, sizeof file, "plain");
    FILE *f = fopen(file, "w");
    CHECK(f != NULL);
    if (f != NULL)
        fclose(f);
    int before = files_in_dir();
    snprintf(path, sizeof path, "%s/x.svg", file);
    CHECK_INT_EQ(cuspec_lesson_write_svg(&t, path), CUSPEC_ERR_IO);
    CHECK_STR_CONTAINS(cuspec_last_error(), "cannot create a file next to");
    CHECK_INT_EQ(cuspec_lesson_write_csv(&t, path), CUSPEC_ERR_IO);
    CHECK_INT_EQ(files_in_dir(), before);
    /* a table with no plot */
    t.plot = CUSPEC_LESSON_PLOT_NONE;
    path_of(path, sizeof path, "none.svg");
    CHECK_INT_EQ(cuspec_lesson_write_svg(&t, path), CUSPEC_ERR_INVALID);
    CHECK_STR_CONTAINS(cuspec_last_error(), "lesson transpose has no plot");
    t.n_rows = CUSPEC_LESSON_MAX_ROWS + 1;
    CHECK_INT_EQ(cuspec_lesson_write_csv(&t, path), CUSPEC_ERR_INVALID);
    CHECK_INT_EQ(cuspec_lesson_write_csv(NULL, path), CUSPEC_ERR_INVALID);
    CHECK_INT_EQ(files_in_dir(), before);
}

TEST(json_has_the_facts_and_every_row)
{
    cuspec_lesson_table t;
    bars_table(&t);
    json_t *j = cli_lesson_json(&t);
    CHECK(j != NULL);
    if (j == NULL)
        return;
    char *text = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(j);
    json_error_t err;
    json_t *back = json_loads(text, 0, &err);
    CHECK(back != NULL);
    free(text);
    if (back == NULL)
        return;
    CHECK_STR_EQ(json_string_value(json_object_get(back, "lesson")), "transpose");
    CHECK_STR_EQ(json_string_value(json_object_get(back, "device")), "Test & <GPU> \"9000\"");
    CHECK_INT_EQ(json_integer_value(json_object_get(back, "sm")), 90);
    CHECK_STR_EQ(json_string_value(json_object_get(back, "published_on")), "Tesla K20");
    CHECK(json_is_null(json_object_get(back, "x_name")));
    json_t *rows = json_object_get(back, "rows");
    CHECK_INT_EQ(json_array_size(rows), t.n_rows);
    json_t *cpu = json_array_get(rows, 0), *unrolled = json_array_get(rows, 3);
    CHECK_STR_EQ(json_string_value(json_object_get(cpu, "kind")), "cpu");
    CHECK(json_is_null(json_object_get(cpu, "step")));
    CHECK(json_is_null(json_object_get(cpu, "vs_cpu")));
    CHECK(json_is_null(json_object_get(cpu, "kernel")));
    CHECK(json_is_false(json_object_get(cpu, "verified")));
    CHECK_NEAR(json_real_value(json_object_get(cpu, "published")), 0.807, 1e-9);
    CHECK_STR_EQ(json_string_value(json_object_get(unrolled, "label")), "say \"hi\", then");
    CHECK_NEAR(json_real_value(json_object_get(unrolled, "gbs")), 1280, 1e-9);
    CHECK_NEAR(json_real_value(json_object_get(unrolled, "step")), 2, 1e-9);
    CHECK(json_is_true(json_object_get(unrolled, "verified")));
    CHECK(json_is_null(json_object_get(unrolled, "published")));
    CHECK_STR_EQ(json_string_value(json_object_get(unrolled, "kernel")),
                 "lessons_transpose_unrolled<32, 8>");
    json_decref(back);
    /* a table with x: x_name and x are there */
    lines_table(&t);
    j = cli_lesson_json(&t);
    CHECK_STR_EQ(json_string_value(json_object_get(j, "x_name")), "s");
    json_t *row = json_array_get(json_object_get(j, "rows"), 40); /* stride 8 */
    CHECK_NEAR(json_real_value(json_object_get(row, "x")), 8, 1e-9);
    CHECK_STR_EQ(json_string_value(json_object_get(row, "series")), "stride");
    CHECK(json_is_null(json_object_get(j, "published_on")));
    json_decref(j);
}

TEST(text_shows_the_columns_the_table_fills)
{
    cuspec_lesson_table t;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    bars_table(&t);
    cli_lesson_print(f, &t);
    lines_table(&t);
    cli_lesson_print(f, &t);
    fclose(f);
    char *second = strstr(text, "coalescing: ");
    CHECK(second != NULL);
    if (second == NULL) {
        free(text);
        return;
    }
    *second = '\0';
    CHECK(strncmp(text, "transpose: the matrix transpose, step by step\n", 46) == 0);
    CHECK_STR_CONTAINS(text, "published: Tesla K20 (GB/s)");
    CHECK_STR_CONTAINS(text, "vs CPU");
    CHECK_STR_CONTAINS(text, "of memcpy");
    CHECK_STR_CONTAINS(text, "cuspec ran cuspec_transpose<unsigned int, 64, 8>");
    /* CPU row: no step or speedup of its own */
    CHECK_STR_CONTAINS(
        text, "  CPU               80.0000        1.6        -        -      0.001      0.807\n");
    CHECK_STR_CONTAINS(
        text, "  naive              0.4000      320.0     200x     200x      0.100      54.64\n");
    CHECK(strstr(second + 1, "vs CPU") == NULL);
    CHECK(strstr(second + 1, "published") == NULL);
    CHECK_STR_CONTAINS(second + 1, "  stride");
    free(text);
}

TEST(cleanup)
{
    CHECK_INT_EQ(tap_remove_tree(dir, 0), 0);
}

static void setup(void) __attribute__((constructor));
static void setup(void)
{
    if (mkdtemp(dir) == NULL) {
        perror("mkdtemp");
        exit(1);
    }
}

TAP_MAIN(TAP_ENTRY(the_six_lessons_are_listed_and_found),
         TAP_ENTRY(sizes_out_of_range_are_refused_with_the_range),
         TAP_ENTRY(every_lesson_kernel_is_a_default_of_the_lessons_family),
         TAP_ENTRY(csv_has_a_header_and_a_quoted_line_per_row),
         TAP_ENTRY(svg_bars_are_drawn_to_scale_against_the_ceiling),
         TAP_ENTRY(svg_lines_map_x_and_bandwidth_linearly),
         TAP_ENTRY(write_errors_leave_nothing_behind), TAP_ENTRY(json_has_the_facts_and_every_row),
         TAP_ENTRY(text_shows_the_columns_the_table_fills), TAP_ENTRY(cleanup))
