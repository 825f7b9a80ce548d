/* What store keys hash of a template: its code and its headers' code. A
 * comment, a blank line or re-indenting changes no hash; a change of code
 * does, in the file and in the files that include it, and in no other.
 * And a family says its kernels wait for the grid before them exactly
 * where their templates do. */
#include "template.h"
#include "catalogue.h"
#include "tap.h"

/* The code text of src, NUL-terminated, in a static buffer. */
static const char *code_of(const char *src)
{
    static char buf[512];
    size_t len = strlen(src);
    if (len >= sizeof buf)
        return "(too long)";
    buf[cuspec__code_text(src, len, buf)] = '\0';
    return buf;
}

TEST(code_text_leaves_out_comments_and_layout)
{
    CHECK_STR_EQ(code_of("a /* x */ b"), "a b");
    CHECK_STR_EQ(code_of("a/**/b"), "a b");
    CHECK_STR_EQ(code_of("int a; // note\n\n    int b;\n"), "int a; int b;");
    CHECK_STR_EQ(code_of("f(x,\n  y);"), "f(x, y);");
    CHECK_STR_EQ(code_of("/* head\n * more */\n#include \"x.cuh\" // why\nint a;\n"),
                 "#include \"x.cuh\"\nint a;");
    CHECK_STR_EQ(code_of("int a;\n  #  pragma unroll\n  for (;;)\n"),
                 "int a;\n# pragma unroll\nfor (;;)");
    CHECK_STR_EQ(code_of("#define A(x) \\\n    (x) // twice\nA(1)"), "#define A(x) (x)\nA(1)");
    CHECK_STR_EQ(code_of("// a comment \\\n still the comment\nint a;"), "int a;");
    /* literals are code, whatever they hold */
    CHECK_STR_EQ(code_of("s = \"a // b /* c */  d\"; // e"), "s = \"a // b /* c */  d\";");
    CHECK_STR_EQ(code_of("s = \"q\\\" // r\";"), "s = \"q\\\" // r\";");
    CHECK_STR_EQ(code_of("c = '/'; d = '\\''; // x"), "c = '/'; d = '\\'';");
}

/* The hash cuspec__template_index gives files[i]. */
static void hash_of(const struct cuspec__file *files, size_t n, size_t i, char hex[33])
{
    struct cuspec__template_info info[CUSPEC__MAX_TEMPLATES];
    cuspec__template_index(files, n, info);
    memcpy(hex, info[i].hash, 33);
}

/* text with every `from` replaced by `to`, malloc'd; NULL for NULL. */
static char *replace_all(const char *text, const char *from, const char *to)
{
    if (text == NULL)
        return NULL;
    size_t n = 0, lf = strlen(from), lt = strlen(to);
    for (const char *p = strstr(text, from); p != NULL; p = strstr(p + lf, from))
        n++;
    char *out = malloc(strlen(text) + n * lt + 1), *o = out;
    if (out == NULL)
        return NULL;
    const char *p = text;
    for (const char *q; (q = strstr(p, from)) != NULL; p = q + lf) {
        memcpy(o, p, (size_t)(q - p));
        o += q - p;
        memcpy(o, to, lt);
        o += lt;
    }
    strcpy(o, p);
    return out;
}

/* Embedded template i's text between `before` and `after`, malloc'd. */
static char *wrapped(size_t i, const char *before, const char *after)
{
    char *text = malloc(strlen(before) + cuspec__templates[i].len + strlen(after) + 1);
    if (text != NULL)
        sprintf(text, "%s%s%s", before, cuspec__templates[i].text, after);
    return text;
}

/* A line of code to add to a template. */
static const char one_more[] = "\nstatic const int cuspec_one_more = 1;\n";

/* The embedded templates, with file i's text replaced by `text`. */
static size_t with_text(struct cuspec__file *files, size_t i, const char *text)
{
    size_t n = cuspec__templates_count;
    memcpy(files, cuspec__templates, n * sizeof *files);
    files[i].text = text;
    files[i].len = strlen(text);
    return n;
}

/* Whether giving embedded template i `text` changes its hash. */
static int changes_hash(size_t i, const char *text)
{
    struct cuspec__file files[CUSPEC__MAX_TEMPLATES];
    char want[33], got[33];
    hash_of(cuspec__templates, cuspec__templates_count, i, want);
    hash_of(files, with_text(files, i, text), i, got);
    return strcmp(got, want) != 0;
}

TEST(a_comment_changes_no_template_hash)
{
    /* Changes that touch only comments and layout: comments and blank
     * lines at the top, a comment after every statement that ends a line,
     * blank lines doubled, lines indented less. */
    static const char *const edits[][2] = {
        {";\n", "; // a note on this statement\n"},
        {"\n\n", "\n\n\n"},
        {"\n    ", "\n  "},
    };
    CHECK(cuspec__templates_count > 0 && cuspec__templates_count <= CUSPEC__MAX_TEMPLATES);
    for (size_t i = 0; i < cuspec__templates_count; i++) {
        char *text = wrapped(i, "/* a new comment\n * over lines */\n// and a line\n\n", "");
        for (size_t e = 0; e < sizeof edits / sizeof *edits; e++) {
            char *edited = replace_all(text, edits[e][0], edits[e][1]);
            free(text);
            text = edited;
        }
        CHECK(text != NULL);
        if (text != NULL && changes_hash(i, text))
            TAP_FAIL("a comment changed the hash of %s", cuspec__templates[i].name);
        free(text);
    }
}

TEST(a_code_change_changes_the_hash)
{
    for (size_t i = 0; i < cuspec__templates_count; i++) {
        char *text = wrapped(i, "", one_more);
        CHECK(text != NULL);
        if (text != NULL && !changes_hash(i, text))
            TAP_FAIL("a code change kept the hash of %s", cuspec__templates[i].name);
        free(text);
    }
}

/* A header's change reaches the files that include it, directly or not,
 * and no others; a commented-out #include is no include. */
TEST(a_header_change_reaches_its_includers_only)
{
    struct cuspec__file files[] = {
        {"common.cuh", "int c;\n", 0},
        {"a.cuh", "#include \"common.cuh\"\nint a;\n", 0},
        {"b.cuh", "#include \"common.cuh\"\nint b;\n", 0},
        {"c.cuh", "// #include \"common.cuh\"\nint c2;\n", 0},
        {"d.cuh", "# include \"a.cuh\" /* and through it common.cuh */\nint d;\n", 0},
        {"x.cuh", "#include \"y.cuh\"\n", 0},
        {"y.cuh", "#include \"x.cuh\"\n#include <cuda.h>\n", 0},
    };
    enum { COMMON, A, B, C, D, X, Y, N };
    for (int k = 0; k < N; k++)
        files[k].len = strlen(files[k].text);
    struct cuspec__template_info before[N], after[N];
    cuspec__template_index(files, N, before);
    CHECK_UINT_EQ(before[A].n_headers, 1);
    CHECK_UINT_EQ(before[A].headers[0], COMMON);
    CHECK_UINT_EQ(before[C].n_headers, 0);
    CHECK_UINT_EQ(before[D].n_headers, 2);
    CHECK_UINT_EQ(before[D].headers[0], A);
    CHECK_UINT_EQ(before[D].headers[1], COMMON);
    CHECK_UINT_EQ(before[X].n_headers, 1); /* a cycle ends */
    CHECK_UINT_EQ(before[Y].n_headers, 1);
    CHECK(strcmp(before[A].hash, before[B].hash) != 0);

    files[COMMON].text = "int c = 1;\n";
    files[COMMON].len = strlen(files[COMMON].text);
    cuspec__template_index(files, N, after);
    for (int k = 0; k < N; k++) {
        int changed = strcmp(before[k].hash, after[k].hash) != 0;
        CHECK_INT_EQ(changed, k == COMMON || k == A || k == B || k == D);
    }
    files[B].text = "#include \"common.cuh\"\nint b = 2;\n";
    files[B].len = strlen(files[B].text);
    cuspec__template_index(files, N, before);
    for (int k = 0; k < N; k++)
        CHECK_INT_EQ(strcmp(before[k].hash, after[k].hash) != 0, k == B);
}

/* Over the embedded templates: a code change to one file changes its own
 * hash and those of the files that include it, no other (editing the
 * narrow transpose keeps the tiled ones' keys). */
TEST(an_edit_reaches_the_templates_that_include_it)
{
    struct cuspec__file files[CUSPEC__MAX_TEMPLATES];
    static struct cuspec__template_info before[CUSPEC__MAX_TEMPLATES], after[CUSPEC__MAX_TEMPLATES];
    size_t n = cuspec__templates_count;
    cuspec__template_index(cuspec__templates, n, before);
    for (size_t k = 0; k < n; k++) {
        char *text = wrapped(k, "", one_more);
        CHECK(text != NULL);
        if (text == NULL)
            return;
        cuspec__template_index(files, with_text(files, k, text), after);
        for (size_t i = 0; i < n; i++) {
            int includes = i == k;
            for (size_t h = 0; h < before[i].n_headers; h++)
                includes |= before[i].headers[h] == k;
            if ((strcmp(before[i].hash, after[i].hash) != 0) != includes)
                TAP_FAIL("editing %s %s the hash of %s", cuspec__templates[k].name,
                         includes ? "kept" : "changed", cuspec__templates[i].name);
        }
        free(text);
    }
}

/* The headers NVRTC is given with a template: the files it includes. */
static void check_headers(const char *file, const char *const *want, size_t n_want)
{
    const struct cuspec__file *headers[CUSPEC__MAX_HEADERS];
    const char *hash;
    const struct cuspec__file *t = cuspec__template(file, &hash);
    CHECK(t != NULL);
    if (t == NULL)
        return;
    CHECK_UINT_EQ(strlen(hash), 32);
    size_t n = cuspec__template_headers(t, headers);
    CHECK_UINT_EQ(n, n_want);
    for (size_t h = 0; h < n && h < n_want; h++)
        CHECK_STR_EQ(headers[h]->name, want[h]);
}

TEST(templates_come_with_their_headers)
{
    static const char *const reduce[] = {"prior_grid.cuh", "reduce_types.cuh"};
    static const char *const transpose[] = {"transpose_common.cuh", "prior_grid.cuh"};
    check_headers("reduce.cuh", reduce, 2);
    check_headers("reduce_types.cuh", NULL, 0);
    check_headers("prior_grid.cuh", NULL, 0);
    check_headers("transpose_tile.cuh", transpose, 2);
    check_headers("transpose_shifted_subword.cuh", transpose, 2);
    check_headers("transpose_regs.cuh", transpose, 2);
    check_headers("transpose_narrow.cuh", transpose, 2);
}

/* The index the build embedded is the one the library would make now. */
TEST(the_build_time_index_is_the_embedded_templates_own)
{
    size_t n = cuspec__templates_count;
    static struct cuspec__template_info now[CUSPEC__MAX_TEMPLATES];
    CHECK_UINT_LT(0, n);
    cuspec__template_index(cuspec__templates, n, now);
    for (size_t i = 0; i < n; i++) {
        CHECK_STR_EQ(cuspec__template_infos[i].hash, now[i].hash);
        CHECK_UINT_EQ(cuspec__template_infos[i].n_headers, now[i].n_headers);
        for (size_t h = 0; h < now[i].n_headers; h++)
            CHECK_UINT_EQ(cuspec__template_infos[i].headers[h], now[i].headers[h]);
        CHECK_UINT_EQ(cuspec__template_infos[i].n_arch_bounds, now[i].n_arch_bounds);
        for (size_t k = 0; k < now[i].n_arch_bounds; k++)
            CHECK_INT_EQ(cuspec__template_infos[i].arch_bounds[k], now[i].arch_bounds[k]);
        CHECK_INT_EQ(cuspec__template_infos[i].arch_opaque, now[i].arch_opaque);
    }
}

/* Where a one-file template's tests of __CUDA_ARCH__ change answer,
 * space-separated, then "opaque" when it names the arch another way. */
static const char *arch_bounds_of(const char *text)
{
    static char out[128];
    struct cuspec__file f = {"t.cuh", text, strlen(text)};
    struct cuspec__template_info info;
    cuspec__template_index(&f, 1, &info);
    out[0] = '\0';
    for (size_t k = 0; k < info.n_arch_bounds; k++)
        snprintf(out + strlen(out), sizeof out - strlen(out), "%s%d", k ? " " : "",
                 info.arch_bounds[k]);
    if (info.arch_opaque)
        snprintf(out + strlen(out), sizeof out - strlen(out), "%sopaque", out[0] ? " " : "");
    return out;
}

/* What tells two archs' compiles apart (one PTX for both, jit.c): where the
 * tests of __CUDA_ARCH__ change answer, and nothing else. */
TEST(the_index_knows_where_the_code_tests_the_arch)
{
    static const struct {
        const char *code, *bounds;
    } cases[] = {
        {"int a;", ""},
        {"#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800\n#endif\n", "800"},
        {"#ifdef __CUDA_ARCH__\n#endif\n#ifndef __CUDA_ARCH__\n#endif\n"
         "#if defined __CUDA_ARCH__ || __CUDA_ARCH__<700\n#endif\n",
         "700"},
        {"#if __CUDA_ARCH__ == 900 || __CUDA_ARCH__ != 1000 || "
         "__CUDA_ARCH__ > 750 || __CUDA_ARCH__ <= 900\n#endif\n",
         "900 901 1000 1001 751"},
        {"// __CUDA_ARCH__ / 100 in a comment\nint a;", ""},
        {"int a = __CUDA_ARCH__ / 100;", "opaque"},
        {"int a = __CUDA_ARCH__ << 2;", "opaque"},
        {"#if 800 <= __CUDA_ARCH__\n#endif\n", "opaque"},
        {"#if __CUDA_ARCH__ >= SM90\n#endif\n", "opaque"},
        {"#if __CUDA_ARCH__ >= 900u\n#endif\n", "opaque"},
        {"#ifdef __CUDA_ARCH_FEAT_SM90_ALL\n#endif\n", "opaque"},
        {"int x = MY__CUDA_ARCH__;", "opaque"},
        /* arithmetic on either side, other spellings of the number */
        {"#if __CUDA_ARCH__ >= 8 * 100\n#endif\n", "opaque"},
        {"#if __CUDA_ARCH__ >= 750 + 50\n#endif\n", "opaque"},
        {"#if __CUDA_ARCH__ >= 1'000\n#endif\n", "opaque"},
        {"#if __CUDA_ARCH__ >= 01440\n#endif\n", "opaque"},
        {"#if 2 * __CUDA_ARCH__ >= 1600\n#endif\n", "opaque"},
        {"#if 800 <= __CUDA_ARCH__ == 1\n#endif\n", "opaque"},
        {"#if !__CUDA_ARCH__ >= 1\n#endif\n", "opaque"},
        {"x = (__CUDA_ARCH__ >= 800) ? 1 : 2;", "800"},
        {"#elif __CUDA_ARCH__ < 700 || (__CUDA_ARCH__ >= 900)\n", "700 900"},
        /* what can test the arch without spelling it */
        {"#define C(a, b) a##b\n#if C(__CUDA_, ARCH__) >= 800\n", "opaque"},
        {"#include <cuda_fp16.h>\n", "opaque"},
        {"NV_IF_TARGET(NV_PROVIDES_SM_80, (f();))", "opaque"},
        {"int a = __nvvm_reflect(\"__CUDA_\" \"ARCH\");", "opaque"},
        {"#include \"x.cuh\"\n", ""},
        {"#if __CUDA_ARCH__ > 1 || __CUDA_ARCH__ > 2 || __CUDA_ARCH__ > 3 || "
         "__CUDA_ARCH__ > 4 || __CUDA_ARCH__ > 5 || __CUDA_ARCH__ > 6 || "
         "__CUDA_ARCH__ > 7 || __CUDA_ARCH__ > 8 || __CUDA_ARCH__ > 9\n",
         "2 3 4 5 6 7 8 9 opaque"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        CHECK_STR_EQ(arch_bounds_of(cases[i].code), cases[i].bounds);

    /* The embedded templates: reduce.cuh's (with its headers) change at 700,
     * 800 and 900; the lessons test nothing. */
    const struct cuspec__file *reduce = cuspec__template("reduce.cuh", NULL),
                              *axis = cuspec__template("reduce_axis.cuh", NULL),
                              *tile = cuspec__template("transpose_tile.cuh", NULL),
                              *lesson = cuspec__template("lessons_dot.cuh", NULL);
    CHECK(reduce != NULL && axis != NULL && tile != NULL && lesson != NULL);
    if (reduce == NULL || axis == NULL || tile == NULL || lesson == NULL)
        return;
    CHECK_INT_EQ(cuspec__template_same_code(reduce, 100, 120), 1);
    CHECK_INT_EQ(cuspec__template_same_code(reduce, 120, 100), 1);
    CHECK_INT_EQ(cuspec__template_same_code(reduce, 75, 80), 0);
    CHECK_INT_EQ(cuspec__template_same_code(reduce, 80, 90), 0);
    CHECK_INT_EQ(cuspec__template_same_code(reduce, 80, 86), 1);
    CHECK_INT_EQ(cuspec__template_same_code(reduce, 90, 100), 1);
    CHECK_INT_EQ(cuspec__template_same_code(axis, 86, 89), 1);
    CHECK_INT_EQ(cuspec__template_same_code(axis, 75, 90), 0);
    CHECK_INT_EQ(cuspec__template_same_code(tile, 75, 80), 1);
    CHECK_INT_EQ(cuspec__template_same_code(tile, 80, 90), 0);
    CHECK_INT_EQ(cuspec__template_same_code(lesson, 75, 120), 1);
}

/* ## Programmatic launch: a family says so exactly when its kernels wait */

/* Whether template `file`'s code, or a header's it includes (but
 * prior_grid.cuh, which defines it), calls CUSPEC_AFTER_PRIOR_GRID(). */
static int waits(const char *file)
{
    const struct cuspec__file *t = cuspec__template(file, NULL), *files[1 + CUSPEC__MAX_HEADERS];
    if (t == NULL)
        return -1;
    files[0] = t;
    size_t n = 1 + cuspec__template_headers(t, files + 1);
    for (size_t i = 0; i < n; i++) {
        if (strcmp(files[i]->name, "prior_grid.cuh") == 0)
            continue;
        char *code = malloc(files[i]->len + 1);
        if (code == NULL)
            return -1;
        code[cuspec__code_text(files[i]->text, files[i]->len, code)] = '\0';
        int found = strstr(code, "CUSPEC_AFTER_PRIOR_GRID()") != NULL;
        free(code);
        if (found)
            return 1;
    }
    return 0;
}

struct family_waits {
    const struct cuspec__family *f;
    int kernels, wrong;
};

static int check_kernel_waits(const struct cuspec__variant *v, void *user)
{
    struct family_waits *w = user;
    const char *file = w->f->template_file ? w->f->template_file : w->f->template_of(v);
    const int got = waits(file);
    w->kernels++;
    if (got != w->f->waits_for_prior_grid && w->wrong++ == 0)
        TAP_FAIL("%s: %s %s CUSPEC_AFTER_PRIOR_GRID(), the family's waits_for_prior_grid is %d",
                 w->f->name, file, got == 1 ? "calls" : "never calls", w->f->waits_for_prior_grid);
    return 0;
}

/* Kernels launch programmatically only where their family says they wait
 * for the grid before them: one that waits but does not say so never gets
 * the overlap (the axis families until 2026-11-30), one that says so but
 * does not wait would read memory the grid before it still writes. Every
 * kernel the build prebuilds, of every family, checked. */
TEST(a_family_says_it_waits_exactly_when_its_kernels_do)
{
    int families = 0;
    for (int id = 0; id < CUSPEC__N_FAMILIES; id++) {
        struct family_waits w = {cuspec__family(id), 0, 0};
        CHECK(w.f != NULL);
        if (w.f == NULL)
            continue;
        CHECK_INT_EQ(cuspec__family_each(id, 90, 0, check_kernel_waits, &w), 0);
        if (w.kernels == 0)
            TAP_FAIL("%s: no kernel to check", w.f->name);
        families++;
    }
    CHECK_INT_EQ(families, CUSPEC__N_FAMILIES);
    /* the families that wait, by name: the check above can not pass by
     * finding no call anywhere */
    CHECK_INT_EQ(cuspec__family(CUSPEC__FAM_REDUCE_ROWS)->waits_for_prior_grid, 1);
    CHECK_INT_EQ(cuspec__family(CUSPEC__FAM_REDUCE_COLS)->waits_for_prior_grid, 1);
    CHECK_INT_EQ(cuspec__family(CUSPEC__FAM_LESSONS)->waits_for_prior_grid, 0);
}

TAP_MAIN(TAP_ENTRY(code_text_leaves_out_comments_and_layout),
         TAP_ENTRY(a_comment_changes_no_template_hash), TAP_ENTRY(a_code_change_changes_the_hash),
         TAP_ENTRY(a_header_change_reaches_its_includers_only),
         TAP_ENTRY(an_edit_reaches_the_templates_that_include_it),
         TAP_ENTRY(templates_come_with_their_headers),
         TAP_ENTRY(the_build_time_index_is_the_embedded_templates_own),
         TAP_ENTRY(the_index_knows_where_the_code_tests_the_arch),
         TAP_ENTRY(a_family_says_it_waits_exactly_when_its_kernels_do))
