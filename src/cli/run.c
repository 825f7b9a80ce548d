/* cuspec run: one operation as a program's call would run it now, and what
 * served it: tuned or default parameters, which kernel, from which tier. */
#include "cli.h"
#include "json.h"

#include <getopt.h>
#include <string.h>

static const char help[] =
    "Usage: cuspec run reduce [--op sum|min|max|dot|argmin|argmax] [--dtype T] [--n N]\n"
    "                         [options]\n"
    "       cuspec run reduce --axis rows|cols [--op O] [--dtype T] [--shape RxC] [options]\n"
    "       cuspec run transpose [--dtype T] [--shape RxC] [options]\n"
    "\n"
    "Runs one operation on this GPU the way a call in a program would run it now,\n"
    "on fresh random data, checks the result against a CPU reference, and shows\n"
    "what served it:\n"
    "  params   the parameters the call uses: 'tuned' when the store holds a tuning\n"
    "           record for this device in this size bucket (or the nearest bucket\n"
    "           within two powers of two), else 'default' (the built-in defaults);\n"
    "           see 'cuspec tune'\n"
    "  kernel   the specialization's name expression\n"
    "  tier     where the kernel came from on the first call: table (already loaded),\n"
    "           store (the user store), system (the read-only system store), nvrtc\n"
    "           (compiled now, and published to the store), ptx (shipped PTX,\n"
    "           compiled by the driver)\n"
    "  instead  only when the kernel the call chose is in no tier and NVRTC is\n"
    "           absent: the one it wanted; it ran a correct one that is available\n"
    "           (see 'cuspec compile --check')\n"
    "  check    the result against the CPU reference (float sums: the error\n"
    "           relative to sum|x|)\n"
    "  time     the median of 3 calls timed with CUDA events, and the GB/s it means\n"
    "           (the bytes the operation must move)\n"
    "\n"
    "  --op O          reduce: sum, min, max, dot, argmin or argmax (default sum)\n"
    "  --axis A        reduce: one result per row (rows) or per column (cols) of a\n"
    "                  matrix of --shape (default 8192x8192); --pitch and --pad\n"
    "                  lengthen its rows\n"
    "  --dtype T       any of u8, i8, u16, i16, f16, bf16, f32, i32, u32, f64, i64,\n"
    "                  u64 (default f32)\n"
    "  --n N           reduce: elements: 1000, 64K, 16M (powers of 1024) or 2^K\n"
    "                  (default 2^24)\n"
    "  --shape RxC     transpose: rows x cols, each written as for --n\n"
    "                  (default 8192x8192)\n"
    "  --pitch B       transpose: pitched matrices: each row of the input and of the\n"
    "                  output rounded up to a multiple of B bytes, as cuMemAllocPitch\n"
    "                  gives (512 on many GPUs); tuning records serve the alignment\n"
    "                  class this makes\n"
    "  --pad N         transpose: then N more elements per row; alone, leading\n"
    "                  dimensions of cols + N and rows + N.  The padding holds random\n"
    "                  bytes in the input and must come back untouched in the output\n"
    "  --device N      GPU ordinal (default 0)\n"
    "  --json          one JSON object on stdout instead of the lines\n"
    "\n"
    "Environment: CUSPEC_CACHE_DIR, the store that holds the tuning records and the\n"
    "compiled kernels (default $XDG_CACHE_HOME/cuspec or ~/.cache/cuspec), and\n"
    "CUSPEC_SYSTEM_STORE, the read-only one searched after it.\n"
    "\n"
    "Exit status: 0 the result was right; 1 it was wrong or the call failed; 2 bad\n"
    "command line; 3 no usable CUDA driver or device.\n";

#define REPS 3

struct opts {
    const char *family, *op_name, *dtype_name, *n_text, *shape_text, *axis;
    struct cli_layout layout; /* transpose: --pitch, --pad */
    int device, json;
};

/* The spec a call would make; 0, or the exit status of a usage error. */
static int make_spec(const struct opts *o, cuspec_tune_spec *spec)
{
    if (o->axis != NULL)
        return cli_axis_spec(&cmd_run, cli_axis_family(o->axis), o->op_name, o->dtype_name,
                             o->shape_text, &o->layout, spec);
    if (strcmp(o->family, "transpose") == 0)
        return cli_transpose_spec(&cmd_run, o->dtype_name, o->shape_text, &o->layout, spec);
    return cli_reduce_spec(&cmd_run, o->op_name, o->dtype_name, o->n_text, spec);
}

static void print(const struct opts *o, const cuspec_device_info *d, const cuspec_tune_spec *s,
                  const char *params, int tuned, const cuspec_bench_result *r)
{
    const char *tier = cuspec_tier_name(r->tier) ? cuspec_tier_name(r->tier) : "?";
    int reduce = strcmp(s->family, "reduce") == 0;
    if (o->json) {
        json_t *j = json_pack("{s:o,s:i,s:s,s:s}", "device", cli_json_str(d->name), "ordinal",
                              d->ordinal, "family", s->family, "dtype", o->dtype_name);
        if (o->axis)
            j = cli_json_extend(j, json_pack("{s:s,s:s,s:I,s:I,s:I}", "axis", o->axis, "op",
                                             o->op_name, "rows", (json_int_t)s->rows, "cols",
                                             (json_int_t)s->cols, "ld", (json_int_t)s->ld_in));
        else if (reduce)
            j = cli_json_extend(j, json_pack("{s:s,s:I}", "op", o->op_name, "n", (json_int_t)s->n));
        else
            j = cli_json_extend(j,
                                json_pack("{s:I,s:I,s:I,s:I}", "rows", (json_int_t)s->rows, "cols",
                                          (json_int_t)s->cols, "ld_in", (json_int_t)s->ld_in,
                                          "ld_out", (json_int_t)s->ld_out));
        cli_json_print(cli_json_extend(
            j,
            json_pack("{s:o,s:b,s:o,s:s,s:o,s:b,s:o,s:o,s:o,s:o,s:o}", "params",
                      cli_json_str(params), "tuned", tuned, "kernel", cli_json_str(r->kernel),
                      "tier", tier, "instead_of",
                      r->fallback ? cli_json_str(r->wanted) : json_null(), "correct",
                      r->correct, "error", cli_json_real("%.3g", r->error), "median_us",
                      cli_json_real("%.3f", r->median_us), "p10_us",
                      cli_json_real("%.3f", r->p10_us), "p90_us", cli_json_real("%.3f", r->p90_us),
                      "gbs", cli_json_real("%.1f", r->gbs))));
        return;
    }
    printf("GPU %d: %s (sm_%d%d)\n", d->ordinal, d->name, d->sm_major, d->sm_minor);
    if (o->axis)
        printf("call      reduce %s %s along %s, %zu x %zu, leading dimension %zu\n", o->op_name,
               o->dtype_name, o->axis, s->rows, s->cols, s->ld_in);
    else if (reduce)
        printf("call      reduce %s %s, n = %zu\n", o->op_name, o->dtype_name, s->n);
    else if (s->ld_in == s->cols && s->ld_out == s->rows)
        printf("call      transpose %s, %zu x %zu\n", o->dtype_name, s->rows, s->cols);
    else
        printf("call      transpose %s, %zu x %zu, leading dimensions %zu (in) and %zu (out)\n",
               o->dtype_name, s->rows, s->cols, s->ld_in, s->ld_out);
    printf("params    %s (%s)\n", params, tuned ? "tuned" : "default");
    printf("kernel    %s\n", r->kernel);
    printf("tier      %s\n", tier);
    if (r->fallback)
        printf("instead   of %s, which is in no tier and cannot be compiled here\n", r->wanted);
    if (r->error > 0)
        printf("check     %s (relative error %.3g)\n", r->correct ? "ok" : "WRONG", r->error);
    else
        printf("check     %s\n", r->correct ? "ok" : "WRONG");
    printf("time      %.2f us (median of %d; p10 %.2f, p90 %.2f), %.0f GB/s\n", r->median_us, REPS,
           r->p10_us, r->p90_us, r->gbs);
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
        {"json", no_argument, NULL, 'J'},
        {"axis", required_argument, NULL, 'a'},
        {"help", no_argument, NULL, 'h'},
        {0, 0, 0, 0},
    };
    struct opts o = {.dtype_name = "f32"};
    const struct cli_int_option ints[] = {
        CLI_OPT_DEVICE(&o.device),
        CLI_OPT_PITCH(&o.layout.pitch),
        CLI_OPT_PAD(&o.layout.pad),
        {0},
    };
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 'o':
            o.op_name = optarg;
            break;
        case 't':
            o.dtype_name = optarg;
            break;
        case 'n':
            o.n_text = optarg;
            break;
        case 's':
            o.shape_text = optarg;
            break;
        case 'a':
            o.axis = optarg;
            break;
        default: {
            int status = cli_option(&cmd_run, c, argv, &o.json, ints);
            if (status >= 0)
                return status;
        }
        }
    }
    if (optind == argc)
        return cli_usage(&cmd_run, "name the operation: reduce or transpose");
    o.family = argv[optind++];
    char hint[64];
    if (strcmp(o.family, "reduce") != 0 && strcmp(o.family, "transpose") != 0)
        return cli_usage(&cmd_run, "unknown operation '%s' (reduce, transpose)%s", o.family,
                         cli_did_you_mean(o.family, (const char *[]){"reduce", "transpose"}, 2,
                                          hint, sizeof hint));
    if (optind < argc)
        return cli_usage(&cmd_run, "unexpected argument '%s'", argv[optind]);
    int reduce = strcmp(o.family, "reduce") == 0;
    const char *shape_flag = cli_transpose_flag(o.shape_text, &o.layout);
    if (o.axis != NULL && (!reduce || cli_axis_family(o.axis) == NULL))
        return cli_usage(&cmd_run, "--axis takes rows or cols, for reduce");
    if (o.axis != NULL && o.n_text != NULL)
        return cli_usage(&cmd_run, "--n is for whole arrays: --axis takes --shape");
    if (reduce && shape_flag != NULL && o.axis == NULL)
        return cli_usage(&cmd_run, "%s is for transpose, not reduce (--op, --dtype, --n)",
                         shape_flag);
    if (!reduce && (o.op_name || o.n_text))
        return cli_usage(&cmd_run, "%s is for reduce, not transpose (--dtype, --shape)",
                         o.op_name ? "--op" : "--n");
    o.op_name = o.op_name ? o.op_name : "sum";
    o.n_text = o.n_text ? o.n_text : "2^24";
    o.shape_text = o.shape_text ? o.shape_text : "8192x8192";
    cuspec_tune_spec spec;
    int rc = make_spec(&o, &spec);
    if (rc != 0)
        return rc;

    cuspec_ctx *ctx;
    rc = cuspec_ctx_create(&ctx, o.device);
    if (rc != CUSPEC_OK)
        return cli_fail(rc, "cannot open the GPU");
    char params[160];
    int tuned = 0, status = EXIT_OK;
    cuspec_bench_result r;
    rc = cuspec_tuned_params(ctx, &spec, params, sizeof params, &tuned);
    if (rc != CUSPEC_OK) {
        status = cli_fail(rc, "cannot look up the parameters");
        goto out;
    }
    /* The benchmark makes fresh random inputs, runs the call (the first one
     * resolves the kernel through the tiers), checks it and times it. */
    if (o.axis != NULL)
        rc = cuspec_bench_reduce_axis(ctx, strcmp(o.axis, "cols") == 0, spec.op, spec.dtype,
                                      spec.rows, spec.cols, spec.ld_in, REPS, &r);
    else if (reduce)
        rc = cuspec_bench_reduce(ctx, spec.op, spec.dtype, spec.n, REPS, &r);
    else
        rc = cuspec_bench_transpose_ld(ctx, spec.dtype, spec.rows, spec.cols, spec.ld_in,
                                       spec.ld_out, REPS, &r);
    if (rc != CUSPEC_OK) {
        status = cli_fail(rc, reduce ? "the reduction failed" : "the transpose failed");
        goto out;
    }
    print(&o, cuspec_ctx_device(ctx), &spec, params, tuned, &r);
    if (!r.correct) {
        fprintf(stderr, "cuspec run: the result does not match the CPU reference\n");
        status = EXIT_FAILED;
    }
out:
    cuspec_ctx_destroy(ctx);
    return status;
}

const struct command cmd_run = {"run", "run one operation and show what served it", help, run};
