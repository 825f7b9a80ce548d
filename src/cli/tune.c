/* cuspec tune: search the specializations of reductions and transposes on
 * this GPU and keep the fastest in the store; list, export and import the
 * records that searches leave. */
#include "tune.h"

#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char help[] =
    "Usage: cuspec tune [options]                  tune the default suite\n"
    "       cuspec tune reduce [--op O,..] [--dtype T,..] [--n N,..] [options]\n"
    "       cuspec tune transpose [--dtype T,..] [--shape RxC,..] [options]\n"
    "       cuspec tune reduce_rows|reduce_cols [--op O,..] [--dtype T,..] [--shape RxC,..]\n"
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
    "or failing candidate is counted and skipped), and times each much as the\n"
    "peer benchmarks in tools/ are timed: calls on inputs rotated through a pool\n"
    "of 4 x the L2 cache (at most 4096 slices), captured in a CUDA graph (20 to\n"
    "64 calls), launched --reps times with the L2 flushed before each; the median\n"
    "launch's time per call (the device's, without the host's launch cost) ranks\n"
    "it. Spaces up to --max-candidates are searched exhaustively, larger ones by\n"
    "the default and, where reduce_rows' or reduce_cols' flat kernel can take the\n"
    "call, the other of the two kernels (flat or not) in the shape a call without\n"
    "a record gives it (with --max-candidates above 1), then random sampling and\n"
    "refinement around the fastest (one parameter moved at a time; where that alone\n"
    "is not a legal kernel, such as reduce_rows' rowblock without lanes=0 grid=0,\n"
    "the nearest legal candidate with the moved value). The best --top and the\n"
    "default are timed again; the fastest wins if it beats the default by 1% (else\n"
    "the default does: a difference within the noise makes no record of a kernel no\n"
    "faster), and a record is written with its GB/s and the default's.\n"
    "Records are per device (name, arch, SMs, memory, driver), library version,\n"
    "family, dtype, op and size bucket (reduce: log2 n; transpose, reduce_rows and\n"
    "reduce_cols: log2 rows, log2 cols and the alignment class: the elements each\n"
    "row starts on, set by --pad or --pitch; the calls that can read a matrix of\n"
    "contiguous rows of 4-byte elements flat, reduce_cols' argmin/argmax and\n"
    "reduce_rows' ops but dot, have buckets of their own, 'flat'). A call\n"
    "with no record in its bucket uses the nearest bucket's record within two\n"
    "powers of two (rows and cols together; flat buckets: rows alone), else the\n"
    "built-in defaults: tune the sizes your calls use.\n"
    "\n"
    "The default suite (cuspec tune with no family):\n"
    "  reduce     sum, min, max, dot over f32, f64, i32 at n = 2^10, 2^12, ..., 2^28\n"
    "             argmin, argmax over f32 at n = 2^14, 2^18, 2^22, 2^26, 2^28\n"
    "             sum, argmax over f16, bf16 at the same n\n"
    "             sum over i8, u8 at the same n\n"
    "  reduce_rows, reduce_cols  (one result per row, per column) sum, argmax over f32\n"
    "             at 8192x8192, 4096x4096, 65536x1024, 1048576x32, 32x1048576\n"
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
    "  --op O[,O..]         reduce: sum, min, max, dot, argmin, argmax\n"
    "  --dtype T[,T..]      any of u8, i8, u16, i16, f16, bf16, f32, i32, u32, f64,\n"
    "                       i64, u64 (transpose: only the element size matters)\n"
    "  --n N[,N..]          reduce: elements: 1000, 64K, 16M, 1G (powers of 1024) or 2^K\n"
    "  --shape RxC[,..]     transpose, reduce_rows, reduce_cols: rows x cols, each\n"
    "                       written as for --n\n"
    "  --pitch B            matrices: pitched: each row of the input (and of a\n"
    "                       transpose's output) rounded up to a multiple of B bytes\n"
    "                       (a multiple of 8), as cuMemAllocPitch does (512 on\n"
    "                       current GPUs). The leading dimensions choose the\n"
    "                       alignment class the record serves: tune the layout your\n"
    "                       calls use\n"
    "  --pad N              matrices: then N more elements per row; alone, leading\n"
    "                       dimensions of cols + N (and a transpose's rows + N)\n"
    "\n"
    "How:\n"
    "  --device N           GPU ordinal (default 0)\n"
    "  --budget SECONDS     search time per operation (default: no limit); the search\n"
    "                       stops after the candidate that runs past it (the default\n"
    "                       is timed whatever the budget), and a later run searches\n"
    "                       on from where it stopped\n"
    "  --max-candidates N   candidates per operation (default 48)\n"
    "  --top K              re-time the best K to confirm the winner (default 3)\n"
    "  --reps N             timed graph launches per candidate, 3 to 1000 (default\n"
    "                       15; twice as many, at most 1000, to confirm)\n"
    "  --force              time again the candidates an earlier run timed\n"
    "  --jobs N             compile threads (default: one per core)\n"
    "  --json               JSON Lines on stdout: a header with the device and copy\n"
    "                       bandwidth, one object per operation as it finishes, and a\n"
    "                       summary with the wall time; with --list one object whose\n"
    "                       \"records\" array holds them ([] when there are none)\n"
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

struct opts {
    struct plan_request req;
    int device, device_set, json, list, all_devices;
    const char *export_path, *import_path;
    char tuning_flag[32]; /* the first tuning-only option given, or "" */
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

/* ## Tuning */

/* Failures that leave the next operations a chance (a shape nothing fits, a
 * candidate set that did not compile); the others end the run. */
static int recoverable(int rc)
{
    return rc == CUSPEC_ERR_UNSUPPORTED || rc == CUSPEC_ERR_COMPILE || rc == CUSPEC_ERR_INVALID ||
           rc == CUSPEC_ERR_CORRUPT;
}

/* Catches Ctrl-C into `interrupted`, a second one kills; *old is the
 * disposition to restore. */
static void catch_sigint(struct sigaction *old)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sa.sa_flags = SA_RESETHAND | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    interrupted = 0;
    sigaction(SIGINT, &sa, old);
    if (old->sa_handler == SIG_IGN) /* started in the background: leave it so */
        sigaction(SIGINT, old, NULL);
}

/* The copy bandwidth, the ceiling the table compares against: 1 GiB copies,
 * or an eighth of a smaller card's memory. */
static int measure_copy(cuspec_ctx *ctx, int tty, double *memcpy_gbs, double *kernel_gbs)
{
    const cuspec_device_info *d = cuspec_ctx_device(ctx);
    size_t bytes = d->total_mem / 8 < (1u << 30) ? d->total_mem / 8 : (1u << 30);
    if (tty)
        fprintf(stderr, "\r\033[Kmeasuring the copy bandwidth");
    int rc = cuspec_bench_copy(ctx, bytes, 20, memcpy_gbs, kernel_gbs);
    if (tty)
        fprintf(stderr, "\r\033[K");
    return rc;
}

/* Keeps the failure of rc in it and reports it; the exit status it means. */
static int failed(struct item *it, int rc, int tty)
{
    const char *detail = cuspec_last_error();
    char what[128], msg[160];
    it->state = FAILED;
    snprintf(it->error, sizeof it->error, "%s%s%s", cuspec_strerror(rc), detail[0] ? ": " : "",
             detail);
    plan_label(it, what, sizeof what);
    snprintf(msg, sizeof msg, "cannot tune %s", what);
    if (tty)
        fprintf(stderr, "\r\033[K");
    return cli_fail(rc, msg);
}

static int run_plan(struct plan *p, const struct opts *o)
{
    int tty = isatty(2) && !cli_quiet, status = EXIT_OK;
    cuspec_ctx *ctx;
    int rc = cuspec_ctx_create(&ctx, o->device);
    if (rc != CUSPEC_OK)
        return cli_fail(rc, "cannot open the GPU");
    const cuspec_device_info *d = cuspec_ctx_device(ctx);
    if (tty)
        cuspec_set_warning_handler(progress_warning, NULL);
    cuspec_nvrtc_info nv;
    int have_nvrtc = cuspec_nvrtc_get_info(&nv) == CUSPEC_OK;
    if (!have_nvrtc && !cli_quiet)
        fprintf(stderr,
                "cuspec tune: warning: %s\n"
                "cuspec tune: only candidates already compiled in the store can be timed\n",
                cuspec_last_error());

    double memcpy_gbs = 0, kernel_gbs = 0;
    rc = measure_copy(ctx, tty, &memcpy_gbs, &kernel_gbs);
    if (rc != CUSPEC_OK) {
        status = cli_fail(rc, "copy benchmark failed");
        cuspec_ctx_destroy(ctx);
        return status;
    }
    double copy = memcpy_gbs > kernel_gbs ? memcpy_gbs : kernel_gbs;
    report_header(d, memcpy_gbs, kernel_gbs, copy, p->n, o->json);

    struct sigaction old;
    catch_sigint(&old);

    struct ahead ahead = {.running = 0};
    if (have_nvrtc)
        ahead_start(&ahead, p, d, o->t.jobs);
    struct progress g = {.p = p, .t0 = now_s(), .budget_s = o->t.budget_s};
    cuspec_tune_options opt = o->t;
    opt.stop = &interrupted;
    opt.progress = tty ? progress_on_tune : NULL;
    opt.user = &g;
    for (size_t i = 0; i < p->n && !interrupted; i++) {
        struct item *it = &p->items[i];
        g.i = i;
        g.spec_t0 = now_s();
        if (ahead.running && strcmp(it->spec.family, "transpose") == 0) {
            if (tty)
                progress_draw(&g, "compiling the transpose kernels", 0, 0);
            ahead_finish(&ahead, interrupted, tty);
        }
        if (tty)
            progress_draw(&g, "compiling candidates", 0, 0);
        rc = cuspec_tune(ctx, &it->spec, &opt, &it->res);
        it->seconds = now_s() - g.spec_t0;
        g.finished_s += it->seconds;
        if (rc == CUSPEC_OK) {
            it->state = it->res.stopped ? STOPPED : TUNED;
        } else {
            int fail = failed(it, rc, tty);
            status = status == EXIT_OK ? fail : status;
        }
        if (!tty && !cli_quiet)
            progress_item(&g, it);
        if (o->json)
            report_item_json(it, copy);
        if (rc != CUSPEC_OK && !recoverable(rc)) {
            fprintf(stderr, "cuspec tune: giving up on the %zu operations left\n", p->n - i - 1);
            break;
        }
    }
    ahead_finish(&ahead, interrupted, tty);
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
        report_table(p, copy);
    report_summary(p, now_s() - g.t0, interrupted, o->json);
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
        if (o->req.family != NULL)
            return cli_usage(&cmd_tune, "%s takes no family ('%s')", action, o->req.family);
        const char *what = o->req.ops          ? "--op"
                           : o->req.dtypes     ? "--dtype"
                           : o->req.ns         ? "--n"
                           : o->req.shapes     ? "--shape"
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
    int reduce = o->req.family && strcmp(o->req.family, "reduce") == 0;
    int transpose = o->req.family && strcmp(o->req.family, "transpose") == 0;
    int axis = o->req.family && strncmp(o->req.family, "reduce_", 7) == 0;
    if ((o->req.ops || o->req.ns || o->req.shapes || o->req.dtypes) && o->req.family == NULL) {
        const char *flag = o->req.ops      ? "--op"
                           : o->req.ns     ? "--n"
                           : o->req.shapes ? "--shape"
                                           : "--dtype";
        const char *fam = o->req.ops || o->req.ns ? "reduce"
                          : o->req.shapes         ? "transpose"
                                                  : "reduce|transpose";
        return cli_usage(&cmd_tune, "%s needs a family: cuspec tune %s %s ...", flag, fam, flag);
    }
    if ((o->req.ops && !reduce && !axis) || (o->req.ns && !reduce))
        return cli_usage(&cmd_tune, "%s is for reduce, not %s (--dtype, --shape)",
                         o->req.ops ? "--op" : "--n", o->req.family);
    const char *shape_flag = cli_transpose_flag(o->req.shapes, &o->req.layout);
    if (shape_flag != NULL && !transpose && !axis)
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
        CLI_OPT_PITCH(&o.req.layout.pitch),
        CLI_OPT_PAD(&o.req.layout.pad),
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
            o.req.ops = optarg;
            break;
        case 't':
            o.req.dtypes = optarg;
            break;
        case 'n':
            o.req.ns = optarg;
            break;
        case 's':
            o.req.shapes = optarg;
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
        char hint[64];
        o.req.family = argv[optind++];
        const char *families[] = {"reduce", "transpose", "reduce_rows", "reduce_cols"};
        int known = 0;
        for (int i = 0; i < 4; i++)
            known |= strcmp(o.req.family, families[i]) == 0;
        if (!known)
            return cli_usage(&cmd_tune,
                             "unknown family '%s' (reduce, transpose, reduce_rows, reduce_cols)%s",
                             o.req.family,
                             cli_did_you_mean(o.req.family, families, 4, hint, sizeof hint));
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
    rc = plan_build(&p, &o.req);
    if (rc == 0)
        rc = run_plan(&p, &o);
    free(p.items);
    return rc;
}

const struct command cmd_tune = {"tune", "find the fastest kernels for this GPU and keep them",
                                 help, run};
