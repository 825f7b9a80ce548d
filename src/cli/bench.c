/* cuspec bench: GB/s of the operations against the device's copy bandwidth
 * measured in the same run. */
#include "cli.h"

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
    "  graph_us   the mean over the same calls captured in a CUDA graph: the device's\n"
    "             time per call, without the host's enqueueing cost\n"
    "then GB/s at the median and its ratio to the device's copy bandwidth measured\n"
    "in the same run: the better of cuMemcpyDtoDAsync and cuspec's copy kernel,\n"
    "counting bytes read + written. Reductions count bytes read (both inputs for\n"
    "dot); transposes count bytes read + written.\n"
    "Transposes also print 'x same': the median time of copying the same bytes,\n"
    "timed the same way, over the transpose's (small copies run well under the\n"
    "ceiling: the ramp-up and tail of a call weigh more; 1.000 = as fast as a copy).\n"
    "\n"
    "latency: the first f32 sum in this process (resolve, load, launch, complete:\n"
    "from the store, NVRTC or shipped PTX, and which) and the host time to enqueue a\n"
    "call once loaded, against a raw cuLaunchKernel of the same kernel. Run it in a\n"
    "fresh process twice on a new CUSPEC_CACHE_DIR to see cold and warm first calls.\n"
    "\n"
    "  --device N        GPU ordinal (default 0)\n"
    "  --reps N          timed calls per case (default 50)\n"
    "  --dtype T[,T..]   reduce: f32,f64,i32,i64,u32 (default f32,f64,i32)\n"
    "                    transpose: any of u8,u16,f16,bf16,f32,i32,f64,i64 (default f32,f64)\n"
    "  --op O[,O..]      reduce: sum,min,max,dot (default sum)\n"
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
    "  --json            one JSON object per line on stdout instead of the table\n"
    "\n"
    "Exit status: 0 when every checked result was right; 1 when one was wrong or a\n"
    "call failed; 2 bad command line; 3 no usable GPU.\n";

#define MAX_LIST 32

struct opts {
    int device, reps, json;
    const char *what;
    char *dtypes, *ops, *ns, *shapes;
    struct cli_layout layout;
};

static void header(const cuspec_device_info *d, double memcpy_gbs, double kernel_gbs, int json)
{
    if (json) {
        printf("{\"device\":");
        json_string(stdout, d->name);
        printf(",\"sm\":\"sm_%d%d\",\"memcpy_gbs\":%.1f,\"copy_kernel_gbs\":%.1f}\n", d->sm_major,
               d->sm_minor, memcpy_gbs, kernel_gbs);
        return;
    }
    printf("%s (sm_%d%d, %d SMs, peak %.0f GB/s)\n", d->name, d->sm_major, d->sm_minor, d->sm_count,
           d->peak_bandwidth / 1e9);
    printf("copy bandwidth (read + write): cuMemcpyDtoD %.0f GB/s, cuspec copy %.0f GB/s\n\n",
           memcpy_gbs, kernel_gbs);
}

static void row(const char *label, const cuspec_bench_result *r, double copy, int json)
{
    if (json) {
        printf("{%s,\"median_us\":%.3f,\"p10_us\":%.3f,\"p90_us\":%.3f,\"batch_us\":%.3f,"
               "\"graph_us\":%.3f,\"gbs\":%.1f,\"ratio\":%.4f,\"correct\":%s,\"error\":%.3g,"
               "\"tier\":\"%s\",",
               label, r->median_us, r->p10_us, r->p90_us, r->batch_us, r->graph_us, r->gbs,
               r->gbs / copy, r->correct ? "true" : "false", r->error,
               cuspec_tier_name(r->tier) ? cuspec_tier_name(r->tier) : "?");
        if (r->copy_us > 0)
            printf("\"copy_us\":%.3f,\"ratio_same\":%.4f,", r->copy_us, r->copy_us / r->median_us);
        printf("\"kernel\":");
        json_string(stdout, r->kernel);
        printf("}\n");
        return;
    }
    printf("%s %10.2f %9.2f %9.2f %8.0f %7.3f", label, r->median_us, r->batch_us, r->graph_us,
           r->gbs, r->gbs / copy);
    if (r->copy_us > 0)
        printf(" %7.3f", r->copy_us / r->median_us);
    printf("  %-5s %s\n", r->correct ? "ok" : "WRONG", r->kernel);
}

static int bench_reduce(cuspec_ctx *ctx, struct opts *o, double copy)
{
    char *dts[MAX_LIST], *ops[MAX_LIST], *ns[MAX_LIST], label[256];
    int n_dt = cli_split(o->dtypes ? o->dtypes : (char[]){"f32,f64,i32"}, dts, MAX_LIST);
    int n_op = cli_split(o->ops ? o->ops : (char[]){"sum"}, ops, MAX_LIST);
    int n_n = cli_split(o->ns ? o->ns : (char[]){"2^10,2^15,2^20,2^24,2^28"}, ns, MAX_LIST);
    if (n_dt < 0 || n_op < 0 || n_n < 0)
        return cli_usage(&cmd_bench, "at most %d values per list", MAX_LIST);
    if (!o->json)
        printf("op  dtype           n  median_us  batch_us  graph_us     GB/s  x copy  check "
               "kernel\n");
    int wrong = 0;
    for (int i = 0; i < n_op; i++)
        for (int j = 0; j < n_dt; j++)
            for (int k = 0; k < n_n; k++) {
                int op = strcmp(ops[i], "dot") == 0   ? -1
                         : strcmp(ops[i], "sum") == 0 ? CUSPEC_SUM
                         : strcmp(ops[i], "min") == 0 ? CUSPEC_MIN
                         : strcmp(ops[i], "max") == 0 ? CUSPEC_MAX
                                                      : -2;
                int dtype = cuspec_dtype_from_name(dts[j]);
                size_t n = cli_parse_count(ns[k]);
                if (op == -2)
                    return cli_usage(&cmd_bench, "unknown op '%s'", ops[i]);
                if (cuspec_reduce_out_dtype(op, dtype) == 0)
                    return cli_usage(&cmd_bench, "reduce does not take dtype '%s'", dts[j]);
                if (n == 0)
                    return cli_usage(&cmd_bench, "'%s' is not an element count", ns[k]);
                cuspec_bench_result r;
                int rc = cuspec_bench_reduce(ctx, op, dtype, n, o->reps, &r);
                if (rc != CUSPEC_OK)
                    return cli_fail(rc, "reduce benchmark failed");
                if (o->json)
                    snprintf(label, sizeof label, "\"op\":\"%s\",\"dtype\":\"%s\",\"n\":%zu",
                             ops[i], dts[j], n);
                else
                    snprintf(label, sizeof label, "%-3s %-5s %11zu", ops[i], dts[j], n);
                row(label, &r, copy, o->json);
                fflush(stdout);
                wrong |= !r.correct;
            }
    return wrong ? EXIT_FAILED : EXIT_OK;
}

static int bench_transpose(cuspec_ctx *ctx, struct opts *o, double copy)
{
    char *dts[MAX_LIST], *shapes[MAX_LIST], label[256];
    int n_dt = cli_split(o->dtypes ? o->dtypes : (char[]){"f32,f64"}, dts, MAX_LIST);
    int n_sh = cli_split(o->shapes ? o->shapes
                                   : (char[]){"1024x1024,8192x8192,16384x16384,8191x8193,"
                                              "16383x16385,10000x3000"},
                         shapes, MAX_LIST);
    if (n_dt < 0 || n_sh < 0)
        return cli_usage(&cmd_bench, "at most %d values per list", MAX_LIST);
    int padded = o->layout.pitch || o->layout.pad;
    if (!o->json)
        printf("dtype       shape%s   median_us  batch_us  graph_us     GB/s  x copy  x same  check "
               "kernel\n",
               padded ? "     ld in/out  " : "");
    int wrong = 0;
    for (int j = 0; j < n_dt; j++)
        for (int k = 0; k < n_sh; k++) {
            int dtype = cuspec_dtype_from_name(dts[j]);
            unsigned long long rows = 0, cols = 0;
            char tail;
            if (dtype == 0)
                return cli_usage(&cmd_bench, "unknown dtype '%s'", dts[j]);
            if (sscanf(shapes[k], "%llux%llu%c", &rows, &cols, &tail) != 2 || !rows || !cols)
                return cli_usage(&cmd_bench, "'%s' is not a shape such as 8192x8192", shapes[k]);
            size_t ld_in, ld_out;
            if (cli_layout_lds(&o->layout, rows, cols, cuspec_dtype_size(dtype), &ld_in, &ld_out))
                return cli_usage(&cmd_bench, "'%s' is too large to pad", shapes[k]);
            cuspec_bench_result r;
            int rc = cuspec_bench_transpose_ld(ctx, dtype, rows, cols, ld_in, ld_out, o->reps, &r);
            if (rc != CUSPEC_OK)
                return cli_fail(rc, "transpose benchmark failed");
            char lds[48] = "";
            if (padded)
                snprintf(lds, sizeof lds, " %7zu/%-7zu", ld_in, ld_out);
            if (o->json)
                snprintf(label, sizeof label,
                         "\"dtype\":\"%s\",\"rows\":%llu,\"cols\":%llu,\"ld_in\":%zu,\"ld_out\":%zu",
                         dts[j], rows, cols, ld_in, ld_out);
            else
                snprintf(label, sizeof label, "%-5s %13s%s", dts[j], shapes[k], lds);
            row(label, &r, copy, o->json);
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
        printf("{\"first_call_ms\":%.3f,\"first_tier\":\"%s\",\"raw_launch_us\":%.3f,"
               "\"reduce_call_us\":%.3f,\"copy_call_us\":%.3f,\"kernel\":",
               l.first_call_ms, tier, l.raw_launch_us, l.reduce_call_us, l.copy_call_us);
        json_string(stdout, l.kernel);
        printf("}\n");
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
        {"device", required_argument, NULL, 'd'},
        {"reps", required_argument, NULL, 'r'},
        {"dtype", required_argument, NULL, 't'},
        {"op", required_argument, NULL, 'o'},
        {"n", required_argument, NULL, 'n'},
        {"shape", required_argument, NULL, 's'},
        {"pitch", required_argument, NULL, 'p'},
        {"pad", required_argument, NULL, 'P'},
        {"json", no_argument, NULL, 'J'},
        {"help", no_argument, NULL, 'h'},
        {0, 0, 0, 0},
    };
    struct opts o = {.reps = 50};
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 'r':
            if (cli_parse_int(optarg, 3, 1000, &o.reps) != 0)
                return cli_usage(&cmd_bench, "--reps takes a number from 3 to 1000, not '%s'",
                                 optarg);
            break;
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
        case 'p':
        case 'P': {
            int status = cli_layout_option(&cmd_bench, c, optarg, &o.layout);
            if (status >= 0)
                return status;
            break;
        }
        default: {
            int status = cli_option(&cmd_bench, c, argv, &o.json, &o.device);
            if (status >= 0)
                return status;
        }
        }
    }
    if (optind + 1 != argc)
        return cli_usage(&cmd_bench, "name one of copy, reduce, transpose");
    o.what = argv[optind];
    if (strcmp(o.what, "copy") && strcmp(o.what, "reduce") && strcmp(o.what, "transpose") &&
        strcmp(o.what, "latency"))
        return cli_usage(&cmd_bench, "unknown benchmark '%s' (copy, reduce, transpose, latency)",
                         o.what);
    if ((o.ops || o.ns) && strcmp(o.what, "reduce") != 0)
        return cli_usage(&cmd_bench, "--op and --n are for reduce");
    const char *shape_flag = o.shapes ? "--shape" : cli_layout_flag(&o.layout);
    if (shape_flag != NULL && strcmp(o.what, "transpose") != 0)
        return cli_usage(&cmd_bench, "%s is for transpose", shape_flag);

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
    double copy = memcpy_gbs > kernel_gbs ? memcpy_gbs : kernel_gbs;
    header(d, memcpy_gbs, kernel_gbs, o.json);
    int status = EXIT_OK;
    if (strcmp(o.what, "reduce") == 0)
        status = bench_reduce(ctx, &o, copy);
    else if (strcmp(o.what, "transpose") == 0)
        status = bench_transpose(ctx, &o, copy);
    cuspec_ctx_destroy(ctx);
    return status;
}

const struct command cmd_bench = {"bench", "time operations against the copy bandwidth", help, run};
