/* cuspec bench: GB/s of the operations against the device's copy bandwidth
 * measured in the same run. */
#include "cli.h"
#include "json.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char help[] =
    "Usage: cuspec bench copy|reduce|transpose|latency [options] [--json]\n"
    "\n"
    "Times operations on a GPU with CUDA events (warm-up, --reps calls, fresh random\n"
    "inputs larger than L2 or rotated through a pool 4x its size) after checking one\n"
    "result against a CPU reference. Prints, per call:\n"
    "  median_us  the median of --reps calls, each between its own events\n"
    "  batch_us   the mean over calls enqueued back to back (when the call is small,\n"
    "             this is the host's cost of enqueueing it: compare 'bench latency')\n"
    "  graph_us   the mean over the same calls captured in a CUDA graph, launched\n"
    "             after flushing the L2: the device's time per call, without the\n"
    "             host's enqueueing cost\n"
    "then GB/s at the median and its ratio to the device's copy bandwidth measured\n"
    "in the same run: the better of cuMemcpyDtoDAsync and cuspec's copy kernel,\n"
    "counting bytes read + written. Reductions count bytes read (both inputs for\n"
    "dot); transposes count bytes read + written.\n"
    "Transposes also print 'x same': the median time of copying the same bytes,\n"
    "timed the same way, over the transpose's (small copies run well under the\n"
    "ceiling: the ramp-up and tail of a call weigh more; 1.000 = as fast as a copy).\n"
    "Reductions also print 'x read': GB/s by graph_us over the read ceiling, the\n"
    "same of an f32 sum of 2^28 elements (1 GiB; less on a card under 8 GiB) timed\n"
    "first in the run (1.000 = reads as fast as that sum).\n"
    "\n"
    "latency: the first f32 sum in this process (resolve, load, launch, complete:\n"
    "from the store, NVRTC or shipped PTX, and which) and the host time to enqueue a\n"
    "call once loaded, against a raw cuLaunchKernel of the same kernel. Run it in a\n"
    "fresh process twice on a new CUSPEC_CACHE_DIR to see cold and warm first calls.\n"
    "\n"
    "  --device N        GPU ordinal (default 0)\n"
    "  --reps N          timed calls per case (default 50)\n"
    "  --dtype T[,T..]   reduce: any of u8,i8,u16,i16,f16,bf16,f32,i32,u32,f64,i64,u64\n"
    "                    (default f32,f64,i32)\n"
    "                    transpose: any of u8,u16,f16,bf16,f32,i32,f64,i64 (default f32,f64)\n"
    "  --op O[,O..]      reduce: sum,min,max,dot,argmin,argmax (default sum)\n"
    "  --n N[,N..]       reduce: elements; suffixes K, M, G and 2^K (default\n"
    "                    2^10,2^15,2^20,2^24,2^28)\n"
    "  --shape RxC[,..]  transpose: shapes (default 1024x1024,8192x8192,16384x16384,\n"
    "                    8191x8193,16383x16385,10000x3000)\n"
    "  --pitch B         transpose: pitched matrices: each row of the input and of the\n"
    "                    output rounded up to a multiple of B bytes (a multiple of 8),\n"
    "                    as cuMemAllocPitch does (512 on current GPUs)\n"
    "  --pad N           transpose: then N more elements per row; alone, leading\n"
    "                    dimensions of cols + N and rows + N. The table shows them\n"
    "                    (ld in/out); the padding must come back untouched\n"
    "  --axis rows|cols  reduce: one result per row (or per column) of the matrices\n"
    "                    of --shape (default 8192x8192,4096x4096,65536x1024,\n"
    "                    1048576x32,32x1048576); --op also argmin, argmax; --pitch\n"
    "                    and --pad lengthen the rows\n"
    "  --json            one JSON object per line on stdout instead of the table\n"
    "\n"
    "Exit status: 0 when every checked result was right; 1 when one was wrong or a\n"
    "call failed; 2 bad command line; 3 no usable GPU.\n";

#define MAX_LIST 32

struct opts {
    int device, reps, json;
    const char *what, *axis;
    char *dtypes, *ops, *ns, *shapes;
    struct cli_layout layout;
    /* the lists, split: dtypes, ops (reduce) and sizes (--n or --shape) */
    char *dt[MAX_LIST], *op[MAX_LIST], *sz[MAX_LIST];
    int n_dt, n_op, n_sz;
};

/* Splits the lists, the defaults where none was given, in place; 0, or the
 * exit status of a usage error. */
static int split_lists(struct opts *o)
{
    static char reduce_dtypes[] = "f32,f64,i32", transpose_dtypes[] = "f32,f64", ops[] = "sum",
                ns[] = "2^10,2^15,2^20,2^24,2^28",
                shapes[] = "1024x1024,8192x8192,16384x16384,8191x8193,16383x16385,10000x3000",
                axis_shapes[] = "8192x8192,4096x4096,65536x1024,1048576x32,32x1048576",
                axis_dtypes[] = "f32";
    int reduce = strcmp(o->what, "reduce") == 0 && o->axis == NULL;
    o->n_dt = cli_split(o->dtypes ? o->dtypes
                        : o->axis ? axis_dtypes
                        : reduce  ? reduce_dtypes
                                  : transpose_dtypes,
                        o->dt, MAX_LIST);
    o->n_op = cli_split(o->ops ? o->ops : ops, o->op, MAX_LIST);
    o->n_sz = reduce    ? cli_split(o->ns ? o->ns : ns, o->sz, MAX_LIST)
              : o->axis ? cli_split(o->shapes ? o->shapes : axis_shapes, o->sz, MAX_LIST)
                        : cli_split(o->shapes ? o->shapes : shapes, o->sz, MAX_LIST);
    if (o->n_dt <= 0 || o->n_op <= 0 || o->n_sz <= 0)
        return cli_usage(&cmd_bench, "a list is empty or has more than %d values", MAX_LIST);
    return 0;
}

/* The copy bandwidth and, for reductions, the read ceiling (else 0). */
struct ceilings {
    double copy; /* GB/s at the median, bytes read + written */
    double read; /* GB/s in the graph of the f32 sum of read_n */
    size_t read_n;
};

/* GB/s of r in the graph. */
static double graph_gbs(const cuspec_bench_result *r)
{
    return r->graph_us > 0 ? r->bytes / r->graph_us / 1e3 : 0;
}

static void header(const cuspec_device_info *d, double memcpy_gbs, double kernel_gbs,
                   const struct ceilings *c, int json)
{
    if (json) {
        char sm[16];
        snprintf(sm, sizeof sm, "sm_%d%d", d->sm_major, d->sm_minor);
        json_t *o = json_pack("{s:o,s:s,s:o,s:o}", "device", cli_json_str(d->name), "sm", sm,
                              "memcpy_gbs", cli_json_real("%.1f", memcpy_gbs), "copy_kernel_gbs",
                              cli_json_real("%.1f", kernel_gbs));
        if (c->read > 0)
            o = cli_json_extend(o, json_pack("{s:o,s:I}", "read_ceiling_gbs",
                                             cli_json_real("%.1f", c->read), "read_ceiling_n",
                                             (json_int_t)c->read_n));
        cli_json_print(o);
        return;
    }
    printf("%s (sm_%d%d, %d SMs, peak %.0f GB/s)\n", d->name, d->sm_major, d->sm_minor, d->sm_count,
           d->peak_bandwidth / 1e9);
    printf("copy bandwidth (read + write): cuMemcpyDtoD %.0f GB/s, cuspec copy %.0f GB/s\n",
           memcpy_gbs, kernel_gbs);
    if (c->read > 0)
        printf("read ceiling (x read): f32 sum of %zu elements, %.0f GB/s in a graph\n", c->read_n,
               c->read);
    putchar('\n');
}

/* One case's JSON line: what it was (`label`, which this takes), then its
 * times and check. */
static void row_json(json_t *label, const cuspec_bench_result *r, const struct ceilings *c)
{
    json_t *o = cli_json_extend(
        label,
        json_pack("{s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:b,s:o,s:s}", "median_us",
                  cli_json_real("%.3f", r->median_us), "p10_us", cli_json_real("%.3f", r->p10_us),
                  "p90_us", cli_json_real("%.3f", r->p90_us), "batch_us",
                  cli_json_real("%.3f", r->batch_us), "graph_us",
                  cli_json_real("%.3f", r->graph_us), "gbs", cli_json_real("%.1f", r->gbs), "ratio",
                  cli_json_real("%.4f", r->gbs / c->copy), "correct", r->correct, "error",
                  cli_json_real("%.3g", r->error), "tier",
                  cuspec_tier_name(r->tier) ? cuspec_tier_name(r->tier) : "?"));
    if (r->copy_us > 0)
        o = cli_json_extend(o, json_pack("{s:o,s:o}", "copy_us", cli_json_real("%.3f", r->copy_us),
                                         "ratio_same",
                                         cli_json_real("%.4f", r->copy_us / r->median_us)));
    if (c->read > 0)
        o = cli_json_extend(
            o, json_pack("{s:o}", "ratio_read", cli_json_real("%.4f", graph_gbs(r) / c->read)));
    cli_json_print(cli_json_extend(o, json_pack("{s:o}", "kernel", cli_json_str(r->kernel))));
}

/* One case's row of the table, after its label. */
static void row(const char *label, const cuspec_bench_result *r, const struct ceilings *c)
{
    printf("%s %10.2f %9.2f %9.2f %8.0f %7.3f", label, r->median_us, r->batch_us, r->graph_us,
           r->gbs, r->gbs / c->copy);
    if (r->copy_us > 0)
        printf(" %7.3f", r->copy_us / r->median_us);
    if (c->read > 0)
        printf(" %7.3f", graph_gbs(r) / c->read);
    printf("  %-5s %s\n", r->correct ? "ok" : "WRONG", r->kernel);
}

/* The cases of a reduce or transpose benchmark: with ctx NULL, every case
 * is checked and nothing runs (usage errors come before the GPU is opened);
 * else each runs and prints its row. */
static int bench_reduce(cuspec_ctx *ctx, struct opts *o, const struct ceilings *c)
{
    char label[256];
    if (ctx != NULL && !o->json)
        printf("op     dtype           n  median_us  batch_us  graph_us     GB/s  x copy  x read  "
               "check kernel\n");
    int wrong = 0;
    for (int i = 0; i < o->n_op; i++)
        for (int j = 0; j < o->n_dt; j++)
            for (int k = 0; k < o->n_sz; k++) {
                cuspec_tune_spec s;
                int status = cli_reduce_spec(&cmd_bench, o->op[i], o->dt[j], o->sz[k], &s);
                if (status != 0)
                    return status;
                if (ctx == NULL)
                    continue;
                cuspec_bench_result r;
                int rc = cuspec_bench_reduce(ctx, s.op, s.dtype, s.n, o->reps, &r);
                if (rc != CUSPEC_OK)
                    return cli_fail(rc, "reduce benchmark failed");
                if (o->json) {
                    row_json(json_pack("{s:s,s:s,s:I}", "op", o->op[i], "dtype", o->dt[j], "n",
                                       (json_int_t)s.n),
                             &r, c);
                } else {
                    snprintf(label, sizeof label, "%-6s %-5s %11zu", o->op[i], o->dt[j], s.n);
                    row(label, &r, c);
                }
                fflush(stdout);
                wrong |= !r.correct;
            }
    return wrong ? EXIT_FAILED : EXIT_OK;
}

static int bench_transpose(cuspec_ctx *ctx, struct opts *o, const struct ceilings *c)
{
    char label[256];
    int padded = o->layout.pitch || o->layout.pad;
    if (ctx != NULL && !o->json)
        printf(
            "dtype       shape%s   median_us  batch_us  graph_us     GB/s  x copy  x same  check "
            "kernel\n",
            padded ? "     ld in/out  " : "");
    int wrong = 0;
    for (int j = 0; j < o->n_dt; j++)
        for (int k = 0; k < o->n_sz; k++) {
            cuspec_tune_spec s;
            int status = cli_transpose_spec(&cmd_bench, o->dt[j], o->sz[k], &o->layout, &s);
            if (status != 0)
                return status;
            if (ctx == NULL)
                continue;
            cuspec_bench_result r;
            int rc = cuspec_bench_transpose_ld(ctx, s.dtype, s.rows, s.cols, s.ld_in, s.ld_out,
                                               o->reps, &r);
            if (rc != CUSPEC_OK)
                return cli_fail(rc, "transpose benchmark failed");
            char lds[48] = "";
            if (padded)
                snprintf(lds, sizeof lds, " %7zu/%-7zu", s.ld_in, s.ld_out);
            if (o->json) {
                row_json(json_pack("{s:s,s:I,s:I,s:I,s:I}", "dtype", o->dt[j], "rows",
                                   (json_int_t)s.rows, "cols", (json_int_t)s.cols, "ld_in",
                                   (json_int_t)s.ld_in, "ld_out", (json_int_t)s.ld_out),
                         &r, c);
            } else {
                snprintf(label, sizeof label, "%-5s %13s%s", o->dt[j], o->sz[k], lds);
                row(label, &r, c);
            }
            fflush(stdout);
            wrong |= !r.correct;
        }
    return wrong ? EXIT_FAILED : EXIT_OK;
}

/* Reductions along an axis: each op, dtype and shape. */
static int bench_axis(cuspec_ctx *ctx, struct opts *o, const struct ceilings *c)
{
    char label[256];
    const char *family = cli_axis_family(o->axis);
    int padded = o->layout.pitch || o->layout.pad;
    if (ctx != NULL && !o->json)
        printf(
            "axis op     dtype          shape%s  median_us  batch_us  graph_us     GB/s  x copy  "
            "x read  check kernel\n",
            padded ? "      ld" : "");
    int wrong = 0;
    for (int i = 0; i < o->n_op; i++)
        for (int j = 0; j < o->n_dt; j++)
            for (int k = 0; k < o->n_sz; k++) {
                cuspec_tune_spec s;
                int status =
                    cli_axis_spec(&cmd_bench, family, o->op[i], o->dt[j], o->sz[k], &o->layout, &s);
                if (status != 0)
                    return status;
                if (ctx == NULL)
                    continue;
                cuspec_bench_result r;
                int rc = cuspec_bench_reduce_axis(ctx, strcmp(o->axis, "cols") == 0, s.op, s.dtype,
                                                  s.rows, s.cols, s.ld_in, o->reps, &r);
                if (rc != CUSPEC_OK)
                    return cli_fail(rc, "reduce benchmark failed");
                if (o->json) {
                    row_json(json_pack("{s:s,s:s,s:s,s:I,s:I,s:I}", "axis", o->axis, "op", o->op[i],
                                       "dtype", o->dt[j], "rows", (json_int_t)s.rows, "cols",
                                       (json_int_t)s.cols, "ld", (json_int_t)s.ld_in),
                             &r, c);
                } else {
                    char ld[32] = "";
                    if (padded)
                        snprintf(ld, sizeof ld, " %7zu", s.ld_in);
                    snprintf(label, sizeof label, "%-4s %-6s %-5s %14s%s", o->axis, o->op[i],
                             o->dt[j], o->sz[k], ld);
                    row(label, &r, c);
                }
                fflush(stdout);
                wrong |= !r.correct;
            }
    return wrong ? EXIT_FAILED : EXIT_OK;
}

static int bench_latency(cuspec_ctx *ctx, int json)
{
    cuspec_latency l;
    int rc = cuspec_bench_latency(ctx, &l);
    if (rc != CUSPEC_OK)
        return cli_fail(rc, "latency benchmark failed");
    const char *tier = cuspec_tier_name(l.first_tier) ? cuspec_tier_name(l.first_tier) : "?";
    if (json) {
        cli_json_print(json_pack(
            "{s:o,s:s,s:o,s:o,s:o,s:o}", "first_call_ms", cli_json_real("%.3f", l.first_call_ms),
            "first_tier", tier, "raw_launch_us", cli_json_real("%.3f", l.raw_launch_us),
            "reduce_call_us", cli_json_real("%.3f", l.reduce_call_us), "copy_call_us",
            cli_json_real("%.3f", l.copy_call_us), "kernel", cli_json_str(l.kernel)));
        return EXIT_OK;
    }
    printf("first call      %9.3f ms  from %s (%s)\n", l.first_call_ms, tier, l.kernel);
    printf("raw launch      %9.3f us  per cuLaunchKernel\n", l.raw_launch_us);
    printf("cuspec_copy     %9.3f us  per call (+%.3f over raw)\n", l.copy_call_us,
           l.copy_call_us - l.raw_launch_us);
    printf("cuspec_reduce   %9.3f us  per call (+%.3f over raw)\n", l.reduce_call_us,
           l.reduce_call_us - l.raw_launch_us);
    return EXIT_OK;
}

static int run(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"device", required_argument, NULL, 'd'}, {"reps", required_argument, NULL, 'r'},
        {"dtype", required_argument, NULL, 't'},  {"op", required_argument, NULL, 'o'},
        {"n", required_argument, NULL, 'n'},      {"shape", required_argument, NULL, 's'},
        {"pitch", required_argument, NULL, 'p'},  {"pad", required_argument, NULL, 'P'},
        {"axis", required_argument, NULL, 'a'},   {"json", no_argument, NULL, 'J'},
        {"help", no_argument, NULL, 'h'},         {0, 0, 0, 0},
    };
    struct opts o = {.reps = 50};
    const struct cli_int_option ints[] = {
        CLI_OPT_DEVICE(&o.device),
        CLI_OPT_PITCH(&o.layout.pitch),
        CLI_OPT_PAD(&o.layout.pad),
        {'r', "reps", 3, 1000, 0, NULL, &o.reps},
        {0},
    };
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 't':
            o.dtypes = optarg;
            break;
        case 'o':
            o.ops = optarg;
            break;
        case 'n':
            o.ns = optarg;
            break;
        case 's':
            o.shapes = optarg;
            break;
        case 'a':
            o.axis = optarg;
            break;
        default: {
            int status = cli_option(&cmd_bench, c, argv, &o.json, ints);
            if (status >= 0)
                return status;
        }
        }
    }
    if (optind + 1 != argc)
        return cli_usage(&cmd_bench, "name one of copy, reduce, transpose, latency");
    o.what = argv[optind];
    const char *benchmarks[] = {"copy", "reduce", "transpose", "latency"};
    char hint[64];
    if (strcmp(o.what, "copy") && strcmp(o.what, "reduce") && strcmp(o.what, "transpose") &&
        strcmp(o.what, "latency"))
        return cli_usage(&cmd_bench, "unknown benchmark '%s' (copy, reduce, transpose, latency)%s",
                         o.what, cli_did_you_mean(o.what, benchmarks, 4, hint, sizeof hint));
    if ((o.ops || o.ns) && strcmp(o.what, "reduce") != 0)
        return cli_usage(&cmd_bench, "--op and --n are for reduce");
    if (o.axis != NULL && (strcmp(o.what, "reduce") != 0 || cli_axis_family(o.axis) == NULL))
        return cli_usage(&cmd_bench, "--axis takes rows or cols, for reduce");
    if (o.axis != NULL && o.ns != NULL)
        return cli_usage(&cmd_bench, "--n is for whole arrays: --axis takes --shape");
    const char *shape_flag = cli_transpose_flag(o.shapes, &o.layout);
    if (shape_flag != NULL && strcmp(o.what, "transpose") != 0 && o.axis == NULL)
        return cli_usage(&cmd_bench, "%s is for transpose (or reduce --axis)", shape_flag);
    int status = EXIT_OK;
    if (strcmp(o.what, "reduce") == 0 || strcmp(o.what, "transpose") == 0) {
        status = split_lists(&o);
        if (status == EXIT_OK)
            status = o.axis                          ? bench_axis(NULL, &o, NULL)
                     : strcmp(o.what, "reduce") == 0 ? bench_reduce(NULL, &o, NULL)
                                                     : bench_transpose(NULL, &o, NULL);
        if (status != EXIT_OK)
            return status;
    }

    cuspec_ctx *ctx;
    int rc = cuspec_ctx_create(&ctx, o.device);
    if (rc != CUSPEC_OK)
        return cli_fail(rc, "cannot open the GPU");
    if (strcmp(o.what, "latency") == 0) {
        rc = bench_latency(ctx, o.json);
        cuspec_ctx_destroy(ctx);
        return rc;
    }
    /* The ceiling: 1 GiB copies, or a quarter of a smaller card's memory. */
    const cuspec_device_info *d = cuspec_ctx_device(ctx);
    size_t bytes = d->total_mem / 8 < (1u << 30) ? d->total_mem / 8 : (1u << 30);
    double memcpy_gbs = 0, kernel_gbs = 0;
    rc = cuspec_bench_copy(ctx, bytes, o.reps, &memcpy_gbs, &kernel_gbs);
    if (rc != CUSPEC_OK) {
        cuspec_ctx_destroy(ctx);
        return cli_fail(rc, "copy benchmark failed");
    }
    struct ceilings lim = {.copy = memcpy_gbs > kernel_gbs ? memcpy_gbs : kernel_gbs};
    if (strcmp(o.what, "reduce") == 0) {
        /* The read ceiling: an f32 sum of as many bytes as the copies. */
        cuspec_bench_result r;
        lim.read_n = bytes / 4;
        rc = cuspec_bench_reduce(ctx, CUSPEC_SUM, CUSPEC_F32, lim.read_n, o.reps, &r);
        if (rc != CUSPEC_OK || !r.correct) {
            cuspec_ctx_destroy(ctx);
            if (rc != CUSPEC_OK)
                return cli_fail(rc, "read ceiling (an f32 sum) failed");
            fprintf(stderr, "cuspec: read ceiling: the f32 sum of %zu elements was wrong (%s)\n",
                    lim.read_n, r.kernel);
            return EXIT_FAILED;
        }
        lim.read = graph_gbs(&r);
    }
    header(d, memcpy_gbs, kernel_gbs, &lim, o.json);
    if (o.axis != NULL)
        status = bench_axis(ctx, &o, &lim);
    else if (strcmp(o.what, "reduce") == 0)
        status = bench_reduce(ctx, &o, &lim);
    else if (strcmp(o.what, "transpose") == 0)
        status = bench_transpose(ctx, &o, &lim);
    cuspec_ctx_destroy(ctx);
    return status;
}

const struct command cmd_bench = {"bench", "time operations against the copy bandwidth", help, run};
