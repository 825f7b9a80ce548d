/* cuspec tune: search the specializations of reductions and transposes on
 * this GPU and keep the fastest in the store; list, export and import the
 * records that searches leave. */
#include "cli.h"
#include "json.h"

#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

static const char help[] =
    "Usage: cuspec tune [options]                  tune the default suite\n"
    "       cuspec tune reduce [--op O,..] [--dtype T,..] [--n N,..] [options]\n"
    "       cuspec tune transpose [--dtype T,..] [--shape RxC,..] [options]\n"
    "       cuspec tune --list [--device N | --all-devices] [--json]\n"
    "       cuspec tune --export FILE [--device N | --all-devices] [--json]\n"
    "       cuspec tune --import FILE [--json]\n"
    "\n"
    "Finds the fastest specialization of each operation on this GPU and keeps it\n"
    "in the store, where every later call of that operation in that size bucket on\n"
    "this device finds it ('cuspec run' shows which parameters a call uses).\n"
    "\n"
    "For each operation and size, the tuner lists the legal specializations (block\n"
    "size, items per thread, vector width, tile, rows per thread, padding, ...) and\n"
    "starts with the built-in default, the baseline. It compiles the candidates with\n"
    "NVRTC on all cores, checks each one's result against a CPU reference (a wrong\n"
    "or failing candidate is counted and skipped), and times each with CUDA events:\n"
    "the median of --reps calls after a warm-up, on inputs the L2 cache does not\n"
    "hold (calls under 20 us: the mean per call of calls captured in a CUDA graph,\n"
    "the device's time without the host's launch cost). Spaces up to\n"
    "--max-candidates are searched exhaustively, larger ones by random sampling and\n"
    "then refinement around the fastest. The best --top are timed again to confirm\n"
    "the winner, and a record is written with its GB/s and the default's. Records\n"
    "are per device (name, arch, SMs, memory, driver), library version, family,\n"
    "dtype, op and size bucket (reduce: log2 n; transpose: log2 rows, log2 cols and\n"
    "the alignment class). A call with no record in its bucket uses the nearest\n"
    "bucket's record within two powers of two (rows and cols together), else the\n"
    "built-in defaults: tune the sizes your calls use.\n"
    "\n"
    "The default suite (cuspec tune with no family):\n"
    "  reduce     sum, min, max, dot over f32, f64, i32 at n = 2^10, 2^12, ..., 2^28\n"
    "  transpose  f32, f64 at 256x256, 1024x1024, 4096x4096, 8192x8192, 16384x16384,\n"
    "               1023x1025, 8191x8193, 16383x16385, 10000x3000\n"
    "             u8, u16 at 256x256, 1024x1024, 8192x8192, 16384x16384,\n"
    "               8191x8193, 16383x16385, 10000x3000\n"
    "While the suite tunes the reductions, a thread compiles every transpose kernel\n"
    "into the store on half the cores (or --jobs), for the transposes that follow.\n"
    "A family alone tunes its part of the suite; --op, --dtype, --n and --shape each\n"
    "replace one of its lists. Before tuning, the copy bandwidth is measured once:\n"
    "the ceiling the table compares against.\n"
    "\n"
    "What to tune:\n"
    "  --op O[,O..]         reduce: sum, min, max, dot\n"
    "  --dtype T[,T..]      reduce: f32, f64, i32, i64, u32; transpose: any of u8, i8,\n"
    "                       u16, i16, f16, bf16, f32, i32, u32, f64, i64, u64 (only\n"
    "                       the element size matters)\n"
    "  --n N[,N..]          reduce: elements: 1000, 64K, 16M, 1G (powers of 1024) or 2^K\n"
    "  --shape RxC[,..]     transpose: rows x cols, each written as for --n\n"
    "  --pitch B            transpose: for pitched matrices: each row of the input\n"
    "                       and of the output rounded up to a multiple of B bytes (a\n"
    "                       multiple of 8), as cuMemAllocPitch does (512 on current\n"
    "                       GPUs). The leading dimensions choose the alignment class\n"
    "                       the record serves: tune the layout your calls use\n"
    "  --pad N              transpose: then N more elements per row; alone, leading\n"
    "                       dimensions of cols + N and rows + N\n"
    "\n"
    "How:\n"
    "  --device N           GPU ordinal (default 0)\n"
    "  --budget SECONDS     search time per operation (default: no limit); the search\n"
    "                       stops after the candidate that runs past it\n"
    "  --max-candidates N   candidates per operation (default 48)\n"
    "  --top K              re-time the best K to confirm the winner (default 3)\n"
    "  --reps N             timed calls per candidate, 3 to 1000 (default 15)\n"
    "  --force              time again the candidates an earlier run timed\n"
    "  --jobs N             compile threads (default: one per core)\n"
    "  --json               JSON lines on stdout: a header with the device and copy\n"
    "                       bandwidth, one object per operation as it finishes, and a\n"
    "                       summary with the wall time\n"
    "\n"
    "Records:\n"
    "  --list               the records for this device: family, dtype, op, bucket,\n"
    "                       GB/s, the default's GB/s, when, and the parameters\n"
    "  --export FILE        write this device's records to FILE (text format\n"
    "                       \"cuspec-tuning 1\", written atomically), to carry them to\n"
    "                       another machine with the same GPU and driver\n"
    "  --import FILE        publish the records of FILE to the store; needs no GPU.\n"
    "                       A file with anything malformed, of another format or\n"
    "                       library version, or with parameters the family rejects is\n"
    "                       refused whole: nothing is imported\n"
    "  --all-devices        with --list or --export: every device's records; needs\n"
    "                       no GPU\n"
    "\n"
    "Output: the table on stdout gives, per operation, the default's and the tuned\n"
    "GB/s (the bytes the operation must move: reduce reads, transpose reads + writes),\n"
    "the speedup, the fraction of the copy bandwidth reached, the candidates timed\n"
    "now, reused from an earlier run and failed, and the chosen parameters; then the\n"
    "total wall time. Progress goes to stderr: one line redrawn in place when it is\n"
    "a terminal, else one line per finished operation.\n"
    "\n"
    "Interrupting and resuming: every timed candidate is logged in the store at\n"
    "once. Ctrl-C stops after the current candidate: the operations already finished\n"
    "keep their records, their table is printed, and the exit status is 130; a\n"
    "second Ctrl-C quits at once. Running the same command again resumes: the\n"
    "candidates timed before are reused, not timed again (--force times them again).\n"
    "\n"
    "Environment:\n"
    "  CUSPEC_CACHE_DIR     the store that keeps the records and the compiled kernels\n"
    "                       (default $XDG_CACHE_HOME/cuspec or ~/.cache/cuspec)\n"
    "  CUSPEC_LIBCUDA, CUSPEC_LIBNVRTC  the driver and NVRTC libraries to open\n"
    "\n"
    "Exit status: 0 every operation was tuned and its record kept (or the records\n"
    "were listed, exported, imported); 1 an operation could not be tuned, the store\n"
    "could not keep its record, or an export or import failed (the reason is\n"
    "printed); 2 bad command line; 3 no usable CUDA driver or device;\n"
    "130 interrupted by Ctrl-C.\n";

#define MAX_LIST 64

/* The default suite: what `cuspec tune` tunes with no family, and each
 * family's lists when the command line does not replace them. */
static const struct suite_row {
    const char *family, *ops, *dtypes, *sizes;
} suite[] = {
    {"reduce", "sum,min,max,dot", "f32,f64,i32",
     "2^10,2^12,2^14,2^16,2^18,2^20,2^22,2^24,2^26,2^28"},
    {"transpose", "-", "f32,f64",
     "256x256,1024x1024,4096x4096,8192x8192,16384x16384,1023x1025,8191x8193,16383x16385,"
     "10000x3000"},
    {"transpose", "-", "u8,u16",
     "256x256,1024x1024,8192x8192,16384x16384,8191x8193,16383x16385,10000x3000"},
};
#define N_SUITE (sizeof suite / sizeof *suite)

enum { PENDING, TUNED, STOPPED, FAILED };

struct item {
    cuspec_tune_spec spec;
    char dtype[8], op[8], size[96];
    int state;
    cuspec_tune_result res;
    double seconds;
    char error[512];
};

struct plan {
    struct item *items;
    size_t n, cap;
};

struct opts {
    const char *family; /* reduce, transpose, or NULL for the suite */
    char *ops, *dtypes, *ns, *shapes;
    int device, device_set, json, list, all_devices;
    const char *export_path, *import_path;
    char tuning_flag[32];     /* the first tuning-only option given, or "" */
    struct cli_layout layout; /* transpose: --pitch, --pad */
    cuspec_tune_options t;
};

/* Ctrl-C: the tuner polls the flag between candidates. */
static volatile sig_atomic_t interrupted;
_Static_assert(_Generic((sig_atomic_t)0, int : 1, default : 0),
               "options.stop points to an int: sig_atomic_t must be int");

static void on_sigint(int sig)
{
    static const char msg[] = "\ncuspec tune: stopping after the current candidate "
                              "(Ctrl-C again quits at once)\n";
    (void)sig;
    interrupted = 1;
    if (write(2, msg, sizeof msg - 1) < 0) {
        /* nothing to do: stderr is gone */
    }
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* "3.1s", "40s", "12m05s", "2h03m". */
static const char *duration(double s, char *buf, size_t size)
{
    if (s < 10)
        snprintf(buf, size, "%.1fs", s);
    else if (s < 60)
        snprintf(buf, size, "%.0fs", s);
    else if (s < 3600)
        snprintf(buf, size, "%dm%02ds", (int)s / 60, (int)s % 60);
    else
        snprintf(buf, size, "%dh%02dm", (int)s / 3600, (int)s % 3600 / 60);
    return buf;
}

/* ## The plan: the operations to tune */

static int append(struct plan *p, const struct item *it)
{
    if (p->n == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 64;
        struct item *items = realloc(p->items, cap * sizeof *items);
        if (items == NULL) {
            fprintf(stderr, "cuspec tune: out of memory\n");
            return EXIT_FAILED;
        }
        p->items = items;
        p->cap = cap;
    }
    p->items[p->n++] = *it;
    return 0;
}

/* Adds the operations of one dtype: every op (reduce) times every size.
 * Returns 0, or the exit status of a usage error. */
static int add_dtype(struct plan *p, const char *family, const char *ops, const char *dtype,
                     const char *sizes, const struct cli_layout *layout)
{
    int reduce = strcmp(family, "reduce") == 0, status = 0;
    char *opv[MAX_LIST], *szv[MAX_LIST];
    char *ops_copy = strdup(ops), *sizes_copy = strdup(sizes);
    int n_op = ops_copy ? cli_split(ops_copy, opv, MAX_LIST) : -1;
    int n_sz = sizes_copy ? cli_split(sizes_copy, szv, MAX_LIST) : -1;
    if (n_op <= 0 || n_sz <= 0)
        status = cli_usage(&cmd_tune, "a list is empty or has more than %d values", MAX_LIST);
    for (int i = 0; i < n_op && status == 0; i++)
        for (int k = 0; k < n_sz && status == 0; k++) {
            struct item it;
            memset(&it, 0, sizeof it);
            snprintf(it.dtype, sizeof it.dtype, "%s", dtype);
            snprintf(it.op, sizeof it.op, "%s", reduce ? opv[i] : "-");
            if (reduce) {
                status = cli_reduce_spec(&cmd_tune, opv[i], dtype, szv[k], &it.spec);
                size_t n = it.spec.n;
                if ((n & (n - 1)) == 0) {
                    int e = 0;
                    while (n >>= 1)
                        e++;
                    snprintf(it.size, sizeof it.size, "n=2^%d", e);
                } else {
                    snprintf(it.size, sizeof it.size, "n=%zu", n);
                }
            } else {
                status = cli_transpose_spec(&cmd_tune, dtype, szv[k], layout, &it.spec);
                if (layout->pitch || layout->pad)
                    snprintf(it.size, sizeof it.size, "%zux%zu ld %zu/%zu", it.spec.rows,
                             it.spec.cols, it.spec.ld_in, it.spec.ld_out);
                else
                    snprintf(it.size, sizeof it.size, "%zux%zu", it.spec.rows, it.spec.cols);
            }
            if (status == 0)
                status = append(p, &it);
        }
    free(ops_copy);
    free(sizes_copy);
    return status;
}

static int row_has_dtype(const struct suite_row *row, const char *dtype)
{
    size_t len = strlen(dtype);
    for (const char *s = row->dtypes; (s = strstr(s, dtype)) != NULL; s += len)
        if ((s == row->dtypes || s[-1] == ',') && (s[len] == ',' || s[len] == '\0'))
            return 1;
    return 0;
}

/* The suite, narrowed to o->family and with the lists the options replace. */
static int build_plan(struct plan *p, const struct opts *o)
{
    int status = 0;
    if (o->dtypes == NULL) {
        for (size_t r = 0; r < N_SUITE && status == 0; r++) {
            const struct suite_row *row = &suite[r];
            if (o->family != NULL && strcmp(o->family, row->family) != 0)
                continue;
            int reduce = strcmp(row->family, "reduce") == 0;
            const char *sizes = reduce ? o->ns : o->shapes;
            char *dts[MAX_LIST], *copy = strdup(row->dtypes);
            int n_dt = copy ? cli_split(copy, dts, MAX_LIST) : 0;
            for (int j = 0; j < n_dt && status == 0; j++)
                status = add_dtype(p, row->family, o->ops ? o->ops : row->ops, dts[j],
                                   sizes ? sizes : row->sizes, &o->layout);
            free(copy);
        }
        return status;
    }
    /* --dtype: each dtype with the sizes of the suite row that holds it
     * (else the family's first row), unless --n / --shape replace them. */
    char *dts[MAX_LIST];
    int reduce = strcmp(o->family, "reduce") == 0;
    int n_dt = cli_split(o->dtypes, dts, MAX_LIST);
    if (n_dt <= 0)
        return cli_usage(&cmd_tune, "--dtype takes 1 to %d values", MAX_LIST);
    for (int j = 0; j < n_dt && status == 0; j++) {
        const struct suite_row *row = NULL, *first = NULL;
        for (size_t r = 0; r < N_SUITE; r++) {
            if (strcmp(suite[r].family, o->family) != 0)
                continue;
            first = first ? first : &suite[r];
            if (row == NULL && row_has_dtype(&suite[r], dts[j]))
                row = &suite[r];
        }
        row = row ? row : first;
        const char *sizes = reduce ? o->ns : o->shapes;
        status = add_dtype(p, o->family, o->ops ? o->ops : row->ops, dts[j],
                           sizes ? sizes : row->sizes, &o->layout);
    }
    return status;
}

/* ## Progress */

struct progress {
    const struct plan *p;
    size_t i;          /* the operation being tuned */
    double t0;         /* the run's start */
    double spec_t0;    /* this operation's start */
    double finished_s; /* time spent on the operations finished so far */
    double budget_s;
};

static void label(const struct item *it, char *buf, size_t size)
{
    if (strcmp(it->spec.family, "reduce") == 0)
        snprintf(buf, size, "reduce %s %s %s", it->dtype, it->op, it->size);
    else
        snprintf(buf, size, "transpose %s %s", it->dtype, it->size);
}

/* Seconds left, from the time per finished operation, else (the first one)
 * from the time per candidate; -1 when nothing is known yet. */
static double eta(const struct progress *g, unsigned done, unsigned total, double spec_elapsed)
{
    size_t left = g->p->n - g->i - 1;
    double per_spec = g->i > 0 ? g->finished_s / (double)g->i : 0, cur;
    if (done > 0 && total >= done)
        cur = spec_elapsed / done * (total - done);
    else if (g->i > 0)
        cur = per_spec > spec_elapsed ? per_spec - spec_elapsed : 0;
    else
        return -1;
    if (g->budget_s > 0 && cur > g->budget_s - spec_elapsed)
        cur = g->budget_s > spec_elapsed ? g->budget_s - spec_elapsed : 0;
    return cur + (g->i > 0 ? per_spec : spec_elapsed + cur) * (double)left;
}

/* Redraws the progress line (stderr is a terminal). */
static void draw(const struct progress *g, const char *state, unsigned done, unsigned total)
{
    char what[128], line[320], t1[16], t2[16], eta_text[32] = "";
    double spec_elapsed = now_s() - g->spec_t0, e = eta(g, done, total, spec_elapsed);
    label(&g->p->items[g->i], what, sizeof what);
    if (e >= 0)
        snprintf(eta_text, sizeof eta_text, "  ETA ~%s", duration(e, t2, sizeof t2));
    snprintf(line, sizeof line, "[spec %zu/%zu] %s  %s  elapsed %s%s", g->i + 1, g->p->n, what,
             state, duration(now_s() - g->t0, t1, sizeof t1), eta_text);
    struct winsize ws;
    int cols = ioctl(2, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 1 ? ws.ws_col : 100;
    fprintf(stderr, "\r\033[K%.*s", cols - 1, line);
}

static void on_progress(const cuspec_tune_progress *pr, void *user)
{
    char state[96];
    if (pr->best_gbs > 0)
        snprintf(state, sizeof state, "candidates %u/%u  best %.0f GB/s", pr->done, pr->total,
                 pr->best_gbs);
    else
        snprintf(state, sizeof state, "candidates %u/%u  best -", pr->done, pr->total);
    draw(user, state, pr->done, pr->total);
}

/* The library's warnings, on a line of their own under the progress line. */
static void tty_warning(const char *message, void *user)
{
    (void)user;
    fprintf(stderr, "\r\033[Kcuspec: warning: %s\n", message);
}

/* ## Reporting */

static double speedup(const cuspec_tune_result *r)
{
    return r->default_gbs > 0 ? r->gbs / r->default_gbs : 0;
}

static void json_item(const struct item *it, double copy)
{
    static const char *const states[] = {"pending", "tuned", "interrupted", "failed"};
    const cuspec_tune_result *r = &it->res;
    json_t *j = json_pack("{s:s,s:s}", "family", it->spec.family, "dtype", it->dtype);
    if (strcmp(it->spec.family, "reduce") == 0)
        j = cli_json_extend(j, json_pack("{s:s,s:I}", "op", it->op, "n", (json_int_t)it->spec.n));
    else
        j = cli_json_extend(j, json_pack("{s:n,s:I,s:I}", "op", "rows", (json_int_t)it->spec.rows,
                                         "cols", (json_int_t)it->spec.cols));
    j = cli_json_extend(j, json_pack("{s:s,s:o}", "status", states[it->state], "seconds",
                                     cli_json_real("%.3f", it->seconds)));
    if (it->state == TUNED)
        j = cli_json_extend(
            j, json_pack(
                   "{s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "default_gbs",
                   cli_json_real("%.1f", r->default_gbs), "gbs", cli_json_real("%.1f", r->gbs),
                   "speedup", cli_json_real("%.4f", speedup(r)), "copy_fraction",
                   cli_json_real("%.4f", copy > 0 ? r->gbs / copy : 0), "median_us",
                   cli_json_real("%.3f", r->median_us), "default_us",
                   cli_json_real("%.3f", r->default_us), "spread", cli_json_real("%.4f", r->spread),
                   "params", cli_json_str(r->params), "kernel", cli_json_str(r->kernel)));
    if (it->state != FAILED)
        j = cli_json_extend(j,
                            json_pack("{s:I,s:I,s:I,s:I}", "candidates", (json_int_t)r->candidates,
                                      "timed", (json_int_t)r->timed, "reused",
                                      (json_int_t)r->reused, "failed", (json_int_t)r->failed));
    else
        j = cli_json_extend(j, json_pack("{s:o}", "error", cli_json_str(it->error)));
    cli_json_print(j);
}

/* One line on stderr per finished operation when stderr is no terminal. */
static void plain_item(const struct progress *g, const struct item *it)
{
    char what[128], t[16];
    const cuspec_tune_result *r = &it->res;
    label(it, what, sizeof what);
    fprintf(stderr, "[spec %zu/%zu] %s: ", g->i + 1, g->p->n, what);
    if (it->state == TUNED)
        fprintf(stderr, "%.0f GB/s, default %.0f (%.2fx); %u timed, %u reused, %u failed", r->gbs,
                r->default_gbs, speedup(r), r->timed, r->reused, r->failed);
    else if (it->state == STOPPED)
        fprintf(stderr, "interrupted after %u timed, %u reused", r->timed, r->reused);
    else
        fprintf(stderr, "failed");
    fprintf(stderr, " in %s\n", duration(it->seconds, t, sizeof t));
}

static void print_table(const struct plan *p, double copy)
{
    printf("\nGB/s: the bytes an operation must move per second (reduce: read; transpose:\n"
           "read + write). speedup: tuned / default. x copy: tuned / the copy bandwidth\n"
           "(%.0f GB/s).\n\n",
           copy);
    printf("%-9s %-5s %-4s %-13s %7s %7s %7s %6s %5s %6s %6s  %s\n", "family", "dtype", "op",
           "size", "default", "tuned", "speedup", "x copy", "timed", "reused", "failed", "params");
    for (size_t i = 0; i < p->n; i++) {
        const struct item *it = &p->items[i];
        const cuspec_tune_result *r = &it->res;
        if (it->state == PENDING)
            continue;
        printf("%-9s %-5s %-4s %-13s ", it->spec.family, it->dtype, it->op, it->size);
        if (it->state == STOPPED) {
            printf("interrupted after %u of %u candidates: a re-run resumes\n",
                   r->timed + r->reused, r->candidates);
            continue;
        }
        if (it->state == FAILED) {
            printf("failed: %.100s\n", it->error);
            continue;
        }
        char def[16] = "-", sp[16] = "-";
        if (r->default_gbs > 0) {
            snprintf(def, sizeof def, "%.0f", r->default_gbs);
            snprintf(sp, sizeof sp, "%.2fx", speedup(r));
        }
        printf("%7s %7.0f %7s %6.2f %5u %6u %6u  %s\n", def, r->gbs, sp,
               copy > 0 ? r->gbs / copy : 0, r->timed, r->reused, r->failed, r->params);
    }
}

/* The end of a run: counts, geometric mean speedup and wall time. */
static void summary(const struct plan *p, double wall, int json)
{
    size_t tuned = 0, failed = 0, stopped = 0, n_sp = 0;
    double log_sum = 0;
    for (size_t i = 0; i < p->n; i++) {
        const struct item *it = &p->items[i];
        tuned += it->state == TUNED;
        failed += it->state == FAILED;
        stopped += it->state == STOPPED;
        if (it->state == TUNED && speedup(&it->res) > 0) {
            log_sum += log(speedup(&it->res));
            n_sp++;
        }
    }
    double geo = n_sp ? exp(log_sum / (double)n_sp) : 0;
    if (json) {
        cli_json_print(json_pack(
            "{s:I,s:I,s:I,s:b,s:o,s:o}", "operations", (json_int_t)p->n, "tuned", (json_int_t)tuned,
            "failed", (json_int_t)failed, "interrupted", interrupted || stopped, "geomean_speedup",
            cli_json_real("%.4f", geo), "wall_s", cli_json_real("%.3f", wall)));
        return;
    }
    char t[16];
    printf("\n%zu of %zu operations tuned", tuned, p->n);
    if (failed)
        printf(", %zu failed", failed);
    if (n_sp)
        printf("; geometric mean speedup %.2fx", geo);
    printf("; wall time %s\n", duration(wall, t, sizeof t));
}

/* ## Compiling ahead
 *
 * The default suite tunes the reductions first. Meanwhile a thread compiles
 * every transpose kernel into the store on half the cores, so that the
 * transposes' searches find their kernels there instead of waiting for NVRTC
 * (on an H200's 16 cores: about 35 of the suite's seconds). */

struct ahead {
    pthread_t thread;
    int arch, jobs, running;
    cuspec_compile_report report;
};

static void *compile_ahead(void *arg)
{
    struct ahead *a = arg;
    /* A kernel that fails here is compiled again, and reported, by the
     * search that needs it. */
    (void)cuspec_compile("transpose", a->arch, 1, a->jobs, NULL, NULL, &a->report);
    return NULL;
}

/* Starts it when reductions come before the first transpose. */
static void ahead_start(struct ahead *a, const struct plan *p, const cuspec_device_info *d,
                        int jobs)
{
    size_t first = 0;
    while (first < p->n && strcmp(p->items[first].spec.family, "transpose") != 0)
        first++;
    a->running = 0;
    if (first == 0 || first == p->n)
        return;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    a->arch = d->sm_major * 10 + d->sm_minor;
    a->jobs = jobs > 0 ? jobs : cores > 1 ? (int)(cores / 2) : 1;
    a->running = pthread_create(&a->thread, NULL, compile_ahead, a) == 0;
}

/* Waits for it: before the transposes, or at the end of a run cut short
 * (compiler threads are not left running into the process's exit). */
static void ahead_finish(struct ahead *a, int tty)
{
    if (!a->running)
        return;
    if (interrupted)
        fprintf(stderr,
                "%scuspec tune: waiting for the transpose kernels being compiled (Ctrl-C again "
                "quits at once)\n",
                tty ? "\r\033[K" : "");
    pthread_join(a->thread, NULL);
    a->running = 0;
}

/* ## Tuning */

/* Failures that leave the next operations a chance (a shape nothing fits, a
 * candidate set that did not compile); the others end the run. */
static int recoverable(int rc)
{
    return rc == CUSPEC_ERR_UNSUPPORTED || rc == CUSPEC_ERR_COMPILE || rc == CUSPEC_ERR_INVALID ||
           rc == CUSPEC_ERR_CORRUPT;
}

static int tune_plan(struct plan *p, const struct opts *o)
{
    int tty = isatty(2), status = EXIT_OK;
    cuspec_ctx *ctx;
    int rc = cuspec_ctx_create(&ctx, o->device);
    if (rc != CUSPEC_OK)
        return cli_fail(rc, "cannot open the GPU");
    const cuspec_device_info *d = cuspec_ctx_device(ctx);
    if (tty)
        cuspec_set_warning_handler(tty_warning, NULL);
    cuspec_nvrtc_info nv;
    int have_nvrtc = cuspec_nvrtc_get_info(&nv) == CUSPEC_OK;
    if (!have_nvrtc)
        fprintf(stderr,
                "cuspec tune: warning: %s\n"
                "cuspec tune: only candidates already compiled in the store can be timed\n",
                cuspec_last_error());

    /* The ceiling: 1 GiB copies, or an eighth of a smaller card's memory. */
    size_t bytes = d->total_mem / 8 < (1u << 30) ? d->total_mem / 8 : (1u << 30);
    double memcpy_gbs = 0, kernel_gbs = 0;
    if (tty)
        fprintf(stderr, "\r\033[Kmeasuring the copy bandwidth");
    rc = cuspec_bench_copy(ctx, bytes, 20, &memcpy_gbs, &kernel_gbs);
    if (tty)
        fprintf(stderr, "\r\033[K");
    if (rc != CUSPEC_OK) {
        status = cli_fail(rc, "copy benchmark failed");
        cuspec_ctx_destroy(ctx);
        return status;
    }
    double copy = memcpy_gbs > kernel_gbs ? memcpy_gbs : kernel_gbs;
    if (o->json) {
        char sm[16];
        snprintf(sm, sizeof sm, "sm_%d%d", d->sm_major, d->sm_minor);
        cli_json_print(json_pack("{s:o,s:i,s:s,s:o,s:o,s:o,s:I}", "device", cli_json_str(d->name),
                                 "ordinal", d->ordinal, "sm", sm, "memcpy_gbs",
                                 cli_json_real("%.1f", memcpy_gbs), "copy_kernel_gbs",
                                 cli_json_real("%.1f", kernel_gbs), "copy_gbs",
                                 cli_json_real("%.1f", copy), "operations", (json_int_t)p->n));
    } else {
        printf("GPU %d: %s (sm_%d%d, %d SMs, peak %.0f GB/s)\n", d->ordinal, d->name, d->sm_major,
               d->sm_minor, d->sm_count, d->peak_bandwidth / 1e9);
        printf("copy bandwidth (read + write): %.0f GB/s (cuMemcpyDtoD %.0f, cuspec copy %.0f)\n",
               copy, memcpy_gbs, kernel_gbs);
        printf("tuning %zu operation%s\n", p->n, p->n == 1 ? "" : "s");
    }
    fflush(stdout);

    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sa.sa_flags = SA_RESETHAND | SA_RESTART; /* a second Ctrl-C kills */
    sigemptyset(&sa.sa_mask);
    interrupted = 0;
    sigaction(SIGINT, &sa, &old);
    if (old.sa_handler == SIG_IGN) /* started in the background: leave it so */
        sigaction(SIGINT, &old, NULL);

    struct ahead ahead = {.running = 0};
    if (have_nvrtc)
        ahead_start(&ahead, p, d, o->t.jobs);
    struct progress g = {.p = p, .t0 = now_s(), .budget_s = o->t.budget_s};
    cuspec_tune_options opt = o->t;
    opt.stop = &interrupted;
    opt.progress = tty ? on_progress : NULL;
    opt.user = &g;
    for (size_t i = 0; i < p->n && !interrupted; i++) {
        struct item *it = &p->items[i];
        g.i = i;
        g.spec_t0 = now_s();
        if (ahead.running && strcmp(it->spec.family, "transpose") == 0) {
            if (tty)
                draw(&g, "compiling the transpose kernels", 0, 0);
            ahead_finish(&ahead, tty);
        }
        if (tty)
            draw(&g, "compiling candidates", 0, 0);
        rc = cuspec_tune(ctx, &it->spec, &opt, &it->res);
        it->seconds = now_s() - g.spec_t0;
        g.finished_s += it->seconds;
        if (rc == CUSPEC_OK) {
            it->state = it->res.stopped ? STOPPED : TUNED;
        } else {
            const char *detail = cuspec_last_error();
            it->state = FAILED;
            snprintf(it->error, sizeof it->error, "%s%s%s", cuspec_strerror(rc),
                     detail[0] ? ": " : "", detail);
            char what[128], msg[160];
            label(it, what, sizeof what);
            snprintf(msg, sizeof msg, "cannot tune %s", what);
            if (tty)
                fprintf(stderr, "\r\033[K");
            int fail = cli_fail(rc, msg);
            status = status == EXIT_OK ? fail : status;
        }
        if (!tty)
            plain_item(&g, it);
        if (o->json)
            json_item(it, copy);
        if (rc != CUSPEC_OK && !recoverable(rc)) {
            fprintf(stderr, "cuspec tune: giving up on the %zu operations left\n", p->n - i - 1);
            break;
        }
    }
    ahead_finish(&ahead, tty);
    sigaction(SIGINT, &old, NULL);
    if (tty)
        fprintf(stderr, "\r\033[K");
    if (interrupted) {
        size_t done = 0;
        for (size_t i = 0; i < p->n; i++)
            done += p->items[i].state == TUNED;
        fprintf(stderr,
                "cuspec tune: interrupted with %zu of %zu operations tuned; the candidates "
                "timed so far are kept in the store: run the same command again to resume\n",
                done, p->n);
        status = 130;
    }
    if (!o->json)
        print_table(p, copy);
    summary(p, now_s() - g.t0, o->json);
    cuspec_ctx_destroy(ctx);
    return status;
}

/* ## The command line */

/* Checks the combinations getopt cannot; returns -1 to go on, or the exit
 * status of a usage error. */
static int check_opts(const struct opts *o)
{
    const char *action = o->list          ? "--list"
                         : o->export_path ? "--export"
                         : o->import_path ? "--import"
                                          : NULL;
    if (o->list + (o->export_path != NULL) + (o->import_path != NULL) > 1)
        return cli_usage(&cmd_tune, "--list, --export and --import do not go together");
    if (o->all_devices && o->device_set)
        return cli_usage(&cmd_tune, "--all-devices and --device do not go together");
    if (action != NULL) {
        if (o->family != NULL)
            return cli_usage(&cmd_tune, "%s takes no family ('%s')", action, o->family);
        const char *what = o->ops              ? "--op"
                           : o->dtypes         ? "--dtype"
                           : o->ns             ? "--n"
                           : o->shapes         ? "--shape"
                           : o->tuning_flag[0] ? o->tuning_flag
                                               : NULL;
        if (what != NULL)
            return cli_usage(&cmd_tune, "%s is for tuning, not for %s", what, action);
        if (o->import_path && (o->all_devices || o->device_set))
            return cli_usage(&cmd_tune, "--import needs no GPU: the records name their device "
                                        "(leave out --device and --all-devices)");
        return -1;
    }
    if (o->all_devices)
        return cli_usage(&cmd_tune, "--all-devices is for --list and --export");
    int reduce = o->family && strcmp(o->family, "reduce") == 0;
    int transpose = o->family && strcmp(o->family, "transpose") == 0;
    if ((o->ops || o->ns || o->shapes || o->dtypes) && o->family == NULL) {
        const char *flag = o->ops ? "--op" : o->ns ? "--n" : o->shapes ? "--shape" : "--dtype";
        const char *fam = o->ops || o->ns ? "reduce" : o->shapes ? "transpose" : "reduce|transpose";
        return cli_usage(&cmd_tune, "%s needs a family: cuspec tune %s %s ...", flag, fam, flag);
    }
    if ((o->ops || o->ns) && !reduce)
        return cli_usage(&cmd_tune, "%s is for reduce, not transpose (--dtype, --shape)",
                         o->ops ? "--op" : "--n");
    const char *shape_flag = cli_transpose_flag(o->shapes, &o->layout);
    if (shape_flag != NULL && !transpose)
        return cli_usage(&cmd_tune, "%s is for transpose: cuspec tune transpose %s ...", shape_flag,
                         shape_flag);
    return -1;
}

static int run(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"op", required_argument, NULL, 'o'},
        {"dtype", required_argument, NULL, 't'},
        {"n", required_argument, NULL, 'n'},
        {"shape", required_argument, NULL, 's'},
        {"pitch", required_argument, NULL, 'p'},
        {"pad", required_argument, NULL, 'P'},
        {"device", required_argument, NULL, 'd'},
        {"budget", required_argument, NULL, 'b'},
        {"max-candidates", required_argument, NULL, 'm'},
        {"top", required_argument, NULL, 'T'},
        {"reps", required_argument, NULL, 'r'},
        {"force", no_argument, NULL, 'F'},
        {"jobs", required_argument, NULL, 'j'},
        {"json", no_argument, NULL, 'J'},
        {"list", no_argument, NULL, 'l'},
        {"export", required_argument, NULL, 'e'},
        {"import", required_argument, NULL, 'i'},
        {"all-devices", no_argument, NULL, 'A'},
        {"help", no_argument, NULL, 'h'},
        {0, 0, 0, 0},
    };
    struct opts o;
    memset(&o, 0, sizeof o);
    const struct cli_int_option ints[] = {
        CLI_OPT_DEVICE(&o.device),
        CLI_OPT_PITCH(&o.layout.pitch),
        CLI_OPT_PAD(&o.layout.pad),
        {'m', "max-candidates", 1, 1000000, 0, NULL, &o.t.max_candidates},
        {'T', "top", 1, 1000, 0, NULL, &o.t.top},
        {'r', "reps", 3, 1000, 0, NULL, &o.t.reps},
        {'j', "jobs", 1, 1024, 0, NULL, &o.t.jobs},
        {0},
    };
    int c, li = 0, status;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", longopts, &li)) != -1) {
        char *end;
        /* Options that only tuning takes are all long: li names them. */
        if (o.tuning_flag[0] == '\0' && strchr("pPbmTrFj", c) != NULL)
            snprintf(o.tuning_flag, sizeof o.tuning_flag, "--%s", longopts[li].name);
        switch (c) {
        case 'o':
            o.ops = optarg;
            break;
        case 't':
            o.dtypes = optarg;
            break;
        case 'n':
            o.ns = optarg;
            break;
        case 's':
            o.shapes = optarg;
            break;
        case 'b':
            o.t.budget_s = strtod(optarg, &end);
            if (end == optarg || *end != '\0' || !(o.t.budget_s > 0 && o.t.budget_s < 1e7))
                return cli_usage(&cmd_tune, "--budget takes seconds > 0, not '%s'", optarg);
            break;
        case 'F':
            o.t.force = 1;
            break;
        case 'l':
            o.list = 1;
            break;
        case 'e':
        case 'i':
            /* "--export --all-devices" would name a file "--all-devices" */
            if (strncmp(optarg, "--", 2) == 0)
                return cli_usage(&cmd_tune,
                                 "%s needs a FILE, not the option '%s' (for a file of that "
                                 "name, write ./%s)",
                                 c == 'e' ? "--export" : "--import", optarg, optarg);
            *(c == 'e' ? &o.export_path : &o.import_path) = optarg;
            break;
        case 'A':
            o.all_devices = 1;
            break;
        default:
            o.device_set |= c == 'd'; /* --device, which cli_option reads */
            if ((status = cli_option(&cmd_tune, c, argv, &o.json, ints)) >= 0)
                return status;
        }
    }
    if (optind < argc) {
        o.family = argv[optind++];
        if (strcmp(o.family, "reduce") != 0 && strcmp(o.family, "transpose") != 0)
            return cli_usage(&cmd_tune, "unknown family '%s' (reduce, transpose)", o.family);
    }
    if (optind < argc)
        return cli_usage(&cmd_tune, "unexpected argument '%s'", argv[optind]);
    int rc = check_opts(&o);
    if (rc >= 0)
        return rc;
    if (o.import_path)
        return records_import(o.import_path, o.json);
    if (o.export_path)
        return records_export(o.export_path, o.device, o.all_devices, o.json);
    if (o.list)
        return records_list(o.device, o.all_devices, o.json);

    /* Every usage error before the GPU is touched. */
    struct plan p = {0};
    rc = build_plan(&p, &o);
    if (rc == 0)
        rc = tune_plan(&p, &o);
    free(p.items);
    return rc;
}

const struct command cmd_tune = {"tune", "find the fastest kernels for this GPU and keep them",
                                 help, run};
