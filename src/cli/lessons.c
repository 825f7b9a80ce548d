/* cuspec lessons: the classic memory-access experiments on this GPU, as
 * tables, JSON, CSV files and SVG plots. */
#include "cli.h"
#include "lessons.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char help[] =
    "Usage: cuspec lessons [NAME...] [--device N] [--size [NAME=]N]... [--json]\n"
    "                      [--csv DIR] [--plot DIR]\n"
    "       cuspec lessons --list\n"
    "\n"
    "Runs the classic experiments cuspec grew from on this GPU, each kernel as it was\n"
    "taught (short, readable, not tuned), timed with CUDA events (the median of 20\n"
    "runs after a warm-up) on fresh random data, every result checked against the\n"
    "CPU's (a wrong one is an error, never a row). Each table closes with cuspec's own\n"
    "kernel for the job and a device-to-device memcpy of the same bytes, the ceiling,\n"
    "with the published figures beside yours where there are some. All six take\n"
    "well under two minutes on an H200.\n"
    "\n"
    "  transpose   a 4096 x 4096 f32 matrix: a CPU loop; naive (one element per\n"
    "              thread, writes down a column: a 32-byte sector per 4-byte float);\n"
    "              coalesced (a 32 x 32 shared tile, so writes go along rows too);\n"
    "              no bank conflicts (the tile padded to 33 columns); loop unrolled\n"
    "              (32 x 8 threads of 4 rows); cuspec_transpose; memcpy.\n"
    "  reduce      the sum of 32M ints: a CPU loop; stage 0 (interleaved addressing,\n"
    "              divergent `tid % (2*s) == 0`); 1 (strided index: bank conflicts);\n"
    "              2 (sequential addressing); 3 (first add during load); 4 (32\n"
    "              elements per thread, last warp unrolled); 5 (completely unrolled\n"
    "              on a template block size); cuspec_reduce; memcpy.\n"
    "  coalescing  a[i + s] += 1 for offsets s = 0..32 and a[i * s] += 1 for strides\n"
    "              s = 1..32: GB/s drops at offset 1 and recovers at the warp's 32;\n"
    "              strided, it halves towards a floor of one float per sector.\n"
    "  reverse     an array reversed through global memory only and staged through\n"
    "              shared memory, at three sizes, and why the staging that won 5.3x\n"
    "              on a G80 wins little or loses on this card.\n"
    "  memory      the bandwidth of registers, shared memory, the L2, device memory,\n"
    "              mapped host memory (one way), and constant memory read uniformly\n"
    "              versus by each thread differently.\n"
    "  dot         the dot product with shared memory and one partial per block (as\n"
    "              CUDA by Example teaches it) and the pairwise sum, against\n"
    "              cuspec_dot and cuspec_reduce.\n"
    "\n"
    "Columns: ms per run; GB/s (1e9 bytes/s of the bytes the table counts); step,\n"
    "the speedup over the row above; vs CPU; of memcpy, the fraction of the memcpy's\n"
    "GB/s; published, the figure of the card the lesson was published on.\n"
    "\n"
    "  NAME...          the lessons to run (default: all six, with a progress line\n"
    "                   on stderr when it is a terminal)\n"
    "  --list           the lessons, their sizes and defaults; needs no GPU\n"
    "  --device N       GPU ordinal (default 0)\n"
    "  --size [NAME=]N  the problem size (see --list for what it counts and its\n"
    "                   range) of lesson NAME, or of every lesson run; K, M, G and\n"
    "                   2^K suffixes as in '2^24'\n"
    "  --json           one JSON object per table on stdout instead of the tables\n"
    "  --csv DIR        also write DIR/NAME.csv for each table\n"
    "  --plot DIR       also write SVG plots a browser opens: DIR/coalescing.svg (the\n"
    "                   offset and stride curves), DIR/transpose.svg and\n"
    "                   DIR/reduce.svg (the steps as bars against the memcpy ceiling)\n"
    "\n"
    "Files are written whole or not at all (a new file renamed over the old).\n"
    "Exit status: 0 success; 1 a lesson failed or gave a wrong result; 2 bad\n"
    "command line; 3 no usable GPU.\n";

#define MAX_LESSONS 16

struct opts {
    int device, json, list;
    const char *csv, *plot;
    int n_lessons, run[MAX_LESSONS]; /* the indices of the lessons to run, in order */
    size_t size[MAX_LESSONS];        /* by lesson index: 0 for the default */
    int named[MAX_LESSONS];          /* by lesson index: --size NAME=N named it */
};

static int n_lessons(void)
{
    cuspec_lesson_info info;
    int n = 0;
    while (n < MAX_LESSONS && cuspec_lesson_get_info(n, &info) == CUSPEC_OK)
        n++;
    return n;
}

static void names(char *buf, size_t size)
{
    cuspec_lesson_info info;
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; cuspec_lesson_get_info(i, &info) == CUSPEC_OK && len < size; i++)
        len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? ", " : "", info.name);
}

static int list(void)
{
    cuspec_lesson_info info;
    for (int i = 0; cuspec_lesson_get_info(i, &info) == CUSPEC_OK; i++) {
        char multiple[64] = "";
        if (info.size_multiple > 1)
            snprintf(multiple, sizeof multiple, ", a multiple of %zu", info.size_multiple);
        printf("%-11s %s\n%-11s --size: %s, %zu to %zu%s; default %s\n", info.name, info.title,
               "", info.size_unit, info.min_size, info.max_size, multiple, info.default_note);
    }
    return EXIT_OK;
}

/* --size [NAME=]N: the size of lesson NAME, or with no name of every lesson
 * (each checks it as it runs or not). */
static int parse_size(struct opts *o, const char *arg)
{
    const char *eq = strchr(arg, '=');
    char name[64] = "";
    if (eq != NULL && (size_t)(eq - arg) < sizeof name)
        memcpy(name, arg, (size_t)(eq - arg));
    const char *number = eq ? eq + 1 : arg;
    size_t n = cli_parse_count(number);
    if (n == 0)
        return cli_usage(&cmd_lessons,
                         "--size takes [NAME=]N, N a count such as 4096 or 2^24, "
                         "not '%s'",
                         arg);
    int only = -1;
    if (eq != NULL && (only = cuspec_lesson_find(name)) < 0) {
        char all[256];
        names(all, sizeof all);
        return cli_usage(&cmd_lessons, "--size %s: no lesson is named '%s' (%s)", arg, name, all);
    }
    for (int i = 0; i < n_lessons(); i++)
        if (only < 0 || only == i)
            o->size[i] = n;
    if (only >= 0)
        o->named[only] = 1;
    return -1;
}

/* The sizes of the lessons that run, checked: a usage error names the
 * lesson and the range. */
static int check_sizes(const struct opts *o)
{
    for (int i = 0; i < n_lessons(); i++) {
        int runs = 0;
        for (int k = 0; k < o->n_lessons; k++)
            runs |= o->run[k] == i;
        cuspec_lesson_info info;
        cuspec_lesson_get_info(i, &info);
        if (o->named[i] && !runs)
            return cli_usage(&cmd_lessons, "--size %s=...: lesson %s is not one this runs",
                             info.name, info.name);
    }
    for (int k = 0; k < o->n_lessons; k++) {
        cuspec_lesson_info info;
        cuspec_lesson_get_info(o->run[k], &info);
        if (cuspec_lesson_check_size(info.name, o->size[o->run[k]]) != CUSPEC_OK)
            return cli_usage(&cmd_lessons, "--size: %s", cuspec_last_error());
    }
    return -1;
}

/* A folder for --csv or --plot: made when missing (its parent must exist),
 * and one this process can write into. */
static int check_dir(const char *option, const char *dir)
{
    struct stat st;
    if (stat(dir, &st) != 0 && (errno != ENOENT || mkdir(dir, 0777) != 0 || stat(dir, &st) != 0))
        return cli_usage(&cmd_lessons, "%s %s: cannot make that folder: %s", option, dir,
                         strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return cli_usage(&cmd_lessons, "%s %s: not a folder", option, dir);
    if (access(dir, W_OK | X_OK) != 0)
        return cli_usage(&cmd_lessons, "%s %s: cannot write there: %s", option, dir,
                         strerror(errno));
    return -1;
}

/* The progress line: which lesson of how many, which row. */
struct progress {
    int lesson, of;
    const char *name;
};

static void progress(unsigned done, unsigned total, const char *what, void *user)
{
    const struct progress *p = user;
    fprintf(stderr, "\r\033[K[%d/%d %s] %u/%u %.50s", p->lesson, p->of, p->name, done, total, what);
}

/* Writes the files of one table; an exit status. */
static int write_files(const struct opts *o, const cuspec_lesson_table *t)
{
    char path[4096];
    if (o->csv != NULL) {
        snprintf(path, sizeof path, "%s/%s.csv", o->csv, t->lesson);
        int rc = cuspec_lesson_write_csv(t, path);
        if (rc != CUSPEC_OK)
            return cli_fail(rc, "cannot write the CSV file");
    }
    if (o->plot != NULL && t->plot != CUSPEC_LESSON_PLOT_NONE) {
        snprintf(path, sizeof path, "%s/%s.svg", o->plot, t->lesson);
        int rc = cuspec_lesson_write_svg(t, path);
        if (rc != CUSPEC_OK)
            return cli_fail(rc, "cannot write the plot");
    }
    return EXIT_OK;
}

static int run_lessons(const struct opts *o)
{
    cuspec_ctx *ctx;
    int rc = cuspec_ctx_create(&ctx, o->device);
    if (rc != CUSPEC_OK)
        return cli_fail(rc, "cannot open the GPU");
    /* Compile the lessons' kernels the store lacks on every core at once;
     * where that cannot be (no NVRTC, a read-only store) each lesson finds
     * or compiles its own as it goes. */
    const cuspec_device_info *d = cuspec_ctx_device(ctx);
    cuspec_compile_report report;
    cuspec_compile("lessons", d->sm_major * 10 + d->sm_minor, 0, 0, NULL, NULL, &report);

    cuspec_lesson_table *t = malloc(sizeof *t);
    int status = t ? EXIT_OK : cli_fail(CUSPEC_ERR_NOMEM, "no memory for a table");
    int tty = isatty(2);
    for (int k = 0; status == EXIT_OK && k < o->n_lessons; k++) {
        cuspec_lesson_info info;
        cuspec_lesson_get_info(o->run[k], &info);
        struct progress p = {k + 1, o->n_lessons, info.name};
        rc = cuspec_lesson_run(ctx, info.name, o->size[o->run[k]], tty ? progress : NULL, &p, t);
        if (tty)
            fputs("\r\033[K", stderr);
        if (rc != CUSPEC_OK) {
            status = cli_fail(rc, "the lesson failed");
            break;
        }
        if (o->json)
            cli_json_print(cli_lesson_json(t));
        else
            cli_lesson_print(stdout, t);
        fflush(stdout);
        status = write_files(o, t);
    }
    free(t);
    cuspec_ctx_destroy(ctx);
    return status;
}

static int run(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"device", required_argument, NULL, 'd'}, {"size", required_argument, NULL, 's'},
        {"csv", required_argument, NULL, 'c'},    {"plot", required_argument, NULL, 'p'},
        {"list", no_argument, NULL, 'l'},         {"json", no_argument, NULL, 'J'},
        {"help", no_argument, NULL, 'h'},         {0, 0, 0, 0},
    };
    struct opts o = {0};
    const struct cli_int_option ints[] = {CLI_OPT_DEVICE(&o.device), {0}};
    int c, status;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 's':
            if ((status = parse_size(&o, optarg)) >= 0)
                return status;
            break;
        case 'c':
            o.csv = optarg;
            break;
        case 'p':
            o.plot = optarg;
            break;
        case 'l':
            o.list = 1;
            break;
        default:
            if ((status = cli_option(&cmd_lessons, c, argv, &o.json, ints)) >= 0)
                return status;
        }
    }
    if (o.list) {
        if (optind < argc)
            return cli_usage(&cmd_lessons, "--list takes no lesson names ('%s')", argv[optind]);
        return list();
    }
    for (; optind < argc; optind++) {
        int i = cuspec_lesson_find(argv[optind]);
        if (i < 0) {
            char all[256];
            names(all, sizeof all);
            return cli_usage(&cmd_lessons, "unknown lesson '%s' (%s)", argv[optind], all);
        }
        if (o.n_lessons < MAX_LESSONS)
            o.run[o.n_lessons++] = i;
    }
    if (o.n_lessons == 0)
        for (int i = 0; i < n_lessons(); i++)
            o.run[o.n_lessons++] = i;
    if ((status = check_sizes(&o)) >= 0)
        return status;
    if (o.csv != NULL && (status = check_dir("--csv", o.csv)) >= 0)
        return status;
    if (o.plot != NULL && (status = check_dir("--plot", o.plot)) >= 0)
        return status;
    return run_lessons(&o);
}

const struct command cmd_lessons = {"lessons", "the classic CUDA memory lessons on this GPU", help,
                                    run};
