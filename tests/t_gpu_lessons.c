/* The lessons on a GPU: each runs, every kernel's result was checked
 * against the CPU's (cuspec_lesson_run fails otherwise), the rows are sane
 * (positive times, bandwidths under what the hardware can do, the derived
 * columns what the rows say), the orderings that hold on any GPU hold, and
 * `cuspec lessons --json --csv DIR --plot DIR` writes files that parse. No
 * timing thresholds. */
#include "gpu.h"
#include "xml_check.h"

#include <jansson.h>
#include <math.h>

static cuspec_ctx *ctx;
static cuspec_lesson_table table;

/* The row labelled `label` (in `series`, NULL for any), or a failure. */
static const cuspec_lesson_row *row(const char *series, const char *label)
{
    for (int i = 0; i < table.n_rows; i++)
        if (strcmp(table.rows[i].label, label) == 0 &&
            (series == NULL || strcmp(table.rows[i].series, series) == 0))
            return &table.rows[i];
    TAP_FAIL("%s has no row %s %s", table.lesson, series ? series : "", label);
    static const cuspec_lesson_row none;
    return &none;
}

/* Runs lesson `name` at `size` and checks what every table must satisfy;
 * `bound` is the most GB/s any row may show. */
static int run_lesson(const char *name, size_t size, double bound)
{
    int rc = cuspec_lesson_run(ctx, name, size, NULL, NULL, &table);
    if (rc != CUSPEC_OK) {
        TAP_FAIL("lesson %s: %s: %s", name, cuspec_strerror(rc), cuspec_last_error());
        return 0;
    }
    CHECK_STR_EQ(table.lesson, name);
    CHECK_STR_EQ(table.device, cuspec_ctx_device(ctx)->name);
    CHECK_INT_EQ(strlen(table.date), 10);
    CHECK(table.summary[0] != '\0');
    CHECK_INT_GE(table.n_rows, 3);
    int copies = 0;
    const cuspec_lesson_row *copy = NULL, *cpu = NULL;
    for (int i = 0; i < table.n_rows; i++) {
        const cuspec_lesson_row *r = &table.rows[i];
        if (r->kind == CUSPEC_LESSON_COPY && copies++ == 0)
            copy = r;
        if (r->kind == CUSPEC_LESSON_CPU)
            cpu = r;
    }
    CHECK_INT_EQ(copies, 1);
    for (int i = 0; i < table.n_rows; i++) {
        const cuspec_lesson_row *r = &table.rows[i];
        printf("# %s %s %s: %.4f ms, %.1f GB/s\n", name, r->series, r->label, r->ms, r->gbs);
        CHECK(r->ms > 0 && isfinite(r->ms));
        CHECK(r->gbs > 0 && r->gbs < bound);
        if (r->kind == CUSPEC_LESSON_STEP || r->kind == CUSPEC_LESSON_CUSPEC) {
            CHECK_INT_EQ(r->verified, 1);
            CHECK(r->kernel[0] != '\0');
        }
        if ((table.columns & CUSPEC_LESSON_COL_COPY) && copy != NULL)
            CHECK_NEAR(r->of_copy, r->gbs / copy->gbs, 1e-9);
        if ((table.columns & CUSPEC_LESSON_COL_CPU) && cpu != NULL && r != cpu)
            CHECK_NEAR(r->vs_cpu, cpu->ms / r->ms, 1e-9 * cpu->ms / r->ms);
    }
    return 1;
}

/* What device memory can do, with room for the L2 at small sizes. */
static double memory_bound(void)
{
    return 20 * cuspec_ctx_device(ctx)->peak_bandwidth / 1e9;
}

TEST(transpose_steps_are_exact_and_the_tile_beats_naive)
{
    if (!run_lesson("transpose", 4096, memory_bound()))
        return;
    CHECK_INT_EQ(table.n_rows, 7);
    const cuspec_lesson_row *naive = row("", "naive"), *tiled = row("", "coalesced");
    CHECK(naive->ms > tiled->ms);
    CHECK_NEAR(tiled->step, naive->ms / tiled->ms, 1e-9 * naive->ms / tiled->ms);
    CHECK_NEAR(row("", "memcpy")->published, 167.10, 1e-9);
}

TEST(reduce_stages_are_exact_and_stage_4_beats_stage_0)
{
    if (!run_lesson("reduce", (size_t)1 << 24, memory_bound()))
        return;
    CHECK_INT_EQ(table.n_rows, 9);
    CHECK(row("", "stage 0")->ms > row("", "stage 4")->ms);
    /* an odd size: the kernels' bounds checks and the passes' remainders */
    run_lesson("reduce", 1000003, memory_bound());
}

TEST(coalescing_stride_32_is_slower_than_stride_1)
{
    if (!run_lesson("coalescing", (size_t)1 << 22, memory_bound()))
        return;
    CHECK_INT_EQ(table.n_rows, 33 + 32 + 2);
    CHECK(row("stride", "32")->ms > row("stride", "1")->ms);
    CHECK_NEAR(row("offset", "5")->x, 5, 0);
}

TEST(reverse_both_ways_at_three_sizes)
{
    if (!run_lesson("reverse", (size_t)1 << 22, memory_bound()))
        return;
    CHECK_INT_EQ(table.n_rows, 8);
    const cuspec_lesson_row *shared = row("4M", "shared staged"),
                            *global = row("4M", "global only");
    CHECK_NEAR(shared->step, global->ms / shared->ms, 1e-9 * global->ms / shared->ms);
    CHECK_NEAR(row("16K", "global only")->x, 16384, 0);
    CHECK_STR_CONTAINS(table.summary, "G80");
}

TEST(memory_spaces_in_their_physical_bounds)
{
    const cuspec_device_info *d = cuspec_ctx_device(ctx);
    /* registers: 128 lanes per SM, 12 bytes per FMA, under 3 GHz */
    double bound = d->sm_count * 128.0 * 12 * 3;
    if (!run_lesson("memory", 0, bound))
        return;
    const cuspec_lesson_row *global = row("", "global memory");
    CHECK(global->gbs < 1.25 * d->peak_bandwidth / 1e9);
    CHECK(row("", "shared memory")->gbs < d->sm_count * 128.0 * 3);
    CHECK(row("", "mapped host memory")->gbs < global->gbs);
    CHECK(row("", "constant, divergent")->gbs < row("", "constant, uniform")->gbs);
}

TEST(dot_products_within_float_tolerance)
{
    if (!run_lesson("dot", 3000017, memory_bound()))
        return;
    CHECK_INT_EQ(table.n_rows, 6);
    CHECK_STR_CONTAINS(row("", "cuspec_dot")->kernel, "cuspec_reduce<float");
}

TEST(bad_sizes_fail_before_the_gpu_does_anything)
{
    CHECK_INT_EQ(cuspec_lesson_run(ctx, "transpose", 100, NULL, NULL, &table), CUSPEC_ERR_INVALID);
    CHECK_INT_EQ(cuspec_lesson_run(ctx, "nope", 0, NULL, NULL, &table), CUSPEC_ERR_INVALID);
    CHECK_INT_EQ(cuspec_lesson_run(NULL, "dot", 0, NULL, NULL, &table), CUSPEC_ERR_INVALID);
}

/* Lines of a file, or -1. */
static int lines_of(const char *path)
{
    char *text = xml_read_file(path);
    if (text == NULL)
        return -1;
    int n = 0;
    for (const char *p = text; *p; p++)
        n += *p == '\n';
    free(text);
    return n;
}

TEST(the_command_writes_json_csv_and_plots)
{
    const char *cuspec = getenv("CUSPEC");
    if (cuspec == NULL) {
        printf("# CUSPEC (the command's path) is not set: not run\n");
        return;
    }
    char dir[] = "/tmp/cuspec-t-gpu-lessons-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char command[2048], path[256];
    snprintf(command, sizeof command,
             "'%s' lessons --size transpose=512 --size reduce=2^20 --size coalescing=2^16 "
             "--size reverse=2^18 --size memory=2^20 --size dot=2^20 --json --csv '%s/csv' "
             "--plot '%s/plots' >'%s/out.json'",
             cuspec, dir, dir, dir);
    CHECK_INT_EQ(system(command), 0);
    snprintf(path, sizeof path, "%s/out.json", dir);
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    static const char *const lessons[] = {"transpose", "reverse", "coalescing",
                                          "reduce",    "memory",  "dot"};
    int tables = 0;
    char line[1 << 16];
    while (f != NULL && fgets(line, sizeof line, f) != NULL) {
        json_error_t err;
        json_t *t = json_loads(line, 0, &err);
        CHECK(t != NULL);
        if (t == NULL)
            continue;
        const char *name = json_string_value(json_object_get(t, "lesson"));
        int known = 0;
        for (size_t i = 0; i < sizeof lessons / sizeof *lessons; i++)
            known |= name != NULL && strcmp(name, lessons[i]) == 0;
        CHECK(known);
        json_t *rows = json_object_get(t, "rows");
        snprintf(path, sizeof path, "%s/csv/%s.csv", dir, name ? name : "?");
        CHECK_INT_EQ(lines_of(path), 1 + (int)json_array_size(rows));
        tables++;
        json_decref(t);
    }
    if (f != NULL)
        fclose(f);
    CHECK_INT_EQ(tables, 6);
    static const char *const plots[] = {"transpose", "reduce", "coalescing"};
    for (size_t i = 0; i < sizeof plots / sizeof *plots; i++) {
        snprintf(path, sizeof path, "%s/plots/%s.svg", dir, plots[i]);
        char *svg = xml_read_file(path), why[256];
        CHECK(svg != NULL);
        if (svg != NULL && !xml_well_formed(svg, why, sizeof why))
            TAP_FAIL("%s: %s", path, why);
        CHECK_STR_CONTAINS(svg, cuspec_ctx_device(ctx)->name);
        free(svg);
        if (xml_have("xmllint")) {
            snprintf(command, sizeof command, "xmllint --noout '%s'", path);
            CHECK_INT_EQ(system(command), 0);
        }
    }
    snprintf(path, sizeof path, "%s/plots/dot.svg", dir);
    CHECK(access(path, F_OK) != 0); /* no plot for the dot table */
    CHECK_INT_EQ(tap_remove_tree(dir, 0), 0);
}

TEST(cleanup)
{
    cuspec_ctx_destroy(ctx);
    ctx = NULL;
}

int main(void)
{
    gpu_require();
    if (cuspec_ctx_create(&ctx, 0) != CUSPEC_OK)
        tap_skip("cannot create a context on device 0");
    static const struct tap_test tests[] = {
        TAP_ENTRY(transpose_steps_are_exact_and_the_tile_beats_naive),
        TAP_ENTRY(reduce_stages_are_exact_and_stage_4_beats_stage_0),
        TAP_ENTRY(coalescing_stride_32_is_slower_than_stride_1),
        TAP_ENTRY(reverse_both_ways_at_three_sizes),
        TAP_ENTRY(memory_spaces_in_their_physical_bounds),
        TAP_ENTRY(dot_products_within_float_tolerance),
        TAP_ENTRY(bad_sizes_fail_before_the_gpu_does_anything),
        TAP_ENTRY(the_command_writes_json_csv_and_plots),
        TAP_ENTRY(cleanup),
    };
    return tap_run(tests, sizeof tests / sizeof *tests);
}
