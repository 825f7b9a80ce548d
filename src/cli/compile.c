/* cuspec compile: fill the store ahead of time, with no GPU. */
#include "cli.h"
#include "json.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char help[] =
    "Usage: cuspec compile [--arch sm_XY]... [--family NAME|all] [--all-variants]\n"
    "                      [--jobs N] [--json]\n"
    "       cuspec compile --check [--arch sm_XY]... [--family NAME|all] [--json]\n"
    "\n"
    "Compiles kernel specializations with NVRTC and publishes them to the store, so\n"
    "that later runs load them with no compiler (what a packager or CI does before\n"
    "deployment). Needs NVRTC, no GPU. Entries already in the store are counted as\n"
    "found, not compiled again. By default: every specialization a call can choose\n"
    "without a tuning record (the defaults of every family, dtype, shape class and\n"
    "alignment class).\n"
    "\n"
    "  --arch sm_XY     target architecture; repeat for several (default: the arch\n"
    "                   of every GPU present; required when there is none)\n"
    "  --family NAME    copy, reduce, transpose, lessons, reduce_rows, reduce_cols,\n"
    "                   or all (default all)\n"
    "  --all-variants   every legal specialization, not only the defaults\n"
    "  --jobs N         compile on N threads (default: one per core)\n"
    "  --check          compile nothing: for each of those specializations, say\n"
    "                   which tier would serve it where NVRTC is absent (user\n"
    "                   store, system store, shipped PTX) and name those none\n"
    "                   would; what a packager runs after `make install`\n"
    "  --json           one JSON object per arch on stdout instead of the summary\n"
    "                   (with --check: every specialization and its tier)\n"
    "\n"
    "A cubin serves its own arch and later minor versions of its major (sm_80\n"
    "serves sm_86 and sm_89); shipped PTX serves any newer GPU whose driver knows\n"
    "the toolkit's PTX version (CUDA 13.0 here).\n"
    "\n"
    "Several archs at once: where CUSPEC_PTXAS names the ptxas of NVRTC's release\n"
    "(`make` sets it to the toolkit's), an arch whose PTX NVRTC makes the same as\n"
    "that of an arch compiled before it (sm_120 and sm_100) gets its cubins from\n"
    "that PTX, made by ptxas: the same code in about half the time.\n"
    "\n"
    "Progress goes to stderr when it is a terminal.\n"
    "Exit status: 0 when everything compiled, was found or (--check) is served;\n"
    "1 when any failed (the first failure's NVRTC log is printed) or (--check) is\n"
    "served by nothing; 2 bad command line.\n";

#define MAX_ARCHS 16

static void progress(unsigned done, unsigned total, const char *what, void *user)
{
    (void)user;
    fprintf(stderr, "\r\033[K[%u/%u] %.70s", done, total, what);
    if (done == total)
        fputc('\n', stderr);
}

static int parse_arch(const char *s)
{
    char *end;
    if (strncmp(s, "sm_", 3) == 0)
        s += 3;
    long v = strtol(s, &end, 10);
    return *end == '\0' && v >= 10 && v <= 1000 ? (int)v : 0;
}

/* The archs of the GPUs present, or none (no driver, no device). */
static int gpu_archs(int *archs)
{
    int count = 0, n = 0;
    if (cuspec_device_count(&count) != CUSPEC_OK)
        return 0;
    for (int i = 0; i < count && n < MAX_ARCHS; i++) {
        cuspec_device_info d;
        if (cuspec_device_get_info(i, &d) != CUSPEC_OK)
            continue;
        int arch = d.sm_major * 10 + d.sm_minor, seen = 0;
        for (int j = 0; j < n; j++)
            seen |= archs[j] == arch;
        if (!seen)
            archs[n++] = arch;
    }
    return n;
}

/* What --check found for one arch. */
struct check {
    unsigned total, by_tier[CUSPEC_TIER_PTX + 1], missing;
    json_t *kernels; /* with --json */
};

static void checked(const char *kernel, int tier, int image_arch, void *user)
{
    struct check *c = user;
    c->total++;
    c->by_tier[tier]++;
    if (c->kernels != NULL) {
        char from[16] = "";
        if (image_arch > 0)
            snprintf(from, sizeof from, "sm_%d", image_arch);
        json_array_append_new(c->kernels,
                              json_pack("{s:s,s:o,s:o}", "kernel", kernel, "tier",
                                        tier ? cli_json_str(cuspec_tier_name(tier)) : json_null(),
                                        "cubin", image_arch ? cli_json_str(from) : json_null()));
    } else if (tier == 0) {
        printf("  missing: %s\n", kernel);
    }
}

static int check_arch(const char *family, int arch, int json)
{
    struct check c = {0};
    if (json)
        c.kernels = json_array();
    int rc = cuspec_compile_check(family, arch, checked, &c, &c.missing);
    if (rc != CUSPEC_OK) {
        json_decref(c.kernels);
        return cli_fail(rc, "check failed");
    }
    char name[16];
    snprintf(name, sizeof name, "sm_%d", arch);
    if (json)
        cli_json_print(json_pack("{s:s,s:o,s:I,s:I,s:I,s:I,s:I,s:o}", "arch", name, "family",
                                 cli_json_str(family), "total", (json_int_t)c.total, "store",
                                 (json_int_t)c.by_tier[CUSPEC_TIER_STORE], "system",
                                 (json_int_t)c.by_tier[CUSPEC_TIER_SYSTEM], "ptx",
                                 (json_int_t)c.by_tier[CUSPEC_TIER_PTX], "missing",
                                 (json_int_t)c.missing, "kernels", c.kernels));
    else
        printf("%s: %u specializations without NVRTC: %u from the user store, %u from the "
               "system store, %u from shipped PTX, %u missing\n",
               name, c.total, c.by_tier[CUSPEC_TIER_STORE], c.by_tier[CUSPEC_TIER_SYSTEM],
               c.by_tier[CUSPEC_TIER_PTX], c.missing);
    return c.missing ? EXIT_FAILED : EXIT_OK;
}

static int run(int argc, char **argv)
{
    static const struct option opts[] = {
        {"arch", required_argument, NULL, 'a'},
        {"family", required_argument, NULL, 'f'},
        {"all-variants", no_argument, NULL, 'A'},
        {"jobs", required_argument, NULL, 'j'},
        {"json", no_argument, NULL, 'J'},
        {"check", no_argument, NULL, 'C'},
        {"help", no_argument, NULL, 'h'},
        {0, 0, 0, 0},
    };
    int archs[MAX_ARCHS], n_archs = 0, all = 0, jobs = 0, json = 0, check = 0, c;
    const char *family = "all";
    const struct cli_int_option ints[] = {{'j', "jobs", 1, 1024, 0, NULL, &jobs}, {0}};
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'a':
            if (n_archs == MAX_ARCHS)
                return cli_usage(&cmd_compile, "at most %d --arch", MAX_ARCHS);
            if ((archs[n_archs++] = parse_arch(optarg)) == 0)
                return cli_usage(&cmd_compile, "'%s' is not an arch such as sm_90", optarg);
            break;
        case 'f':
            family = optarg;
            break;
        case 'A':
            all = 1;
            break;
        case 'C':
            check = 1;
            break;
        default: {
            int status = cli_option(&cmd_compile, c, argv, &json, ints);
            if (status >= 0)
                return status;
        }
        }
    }
    if (optind < argc)
        return cli_usage(&cmd_compile, "unexpected argument '%s'", argv[optind]);
    int known = strcmp(family, "all") == 0;
    for (int i = 0; cuspec_family_name(i) != NULL; i++)
        known |= strcmp(family, cuspec_family_name(i)) == 0;
    if (!known)
        return cli_usage(&cmd_compile,
                         "unknown family '%s' (copy, reduce, transpose, reduce_rows, "
                         "reduce_cols, all)",
                         family);
    if (check && (all || jobs))
        return cli_usage(&cmd_compile, "--check compiles nothing: it takes no %s",
                         all ? "--all-variants" : "--jobs");
    if (n_archs == 0 && (n_archs = gpu_archs(archs)) == 0)
        return cli_usage(&cmd_compile, "no GPU here to take the arch from: pass --arch sm_XY");
    if (check) {
        int status = EXIT_OK;
        for (int i = 0; i < n_archs; i++) {
            int s = check_arch(family, archs[i], json);
            status = status == EXIT_OK ? s : status;
        }
        return status;
    }

    int failed = 0;
    for (int i = 0; i < n_archs; i++) {
        cuspec_compile_report rep;
        int rc =
            cuspec_compile(family, archs[i], all, jobs, isatty(2) && !cli_quiet ? progress : NULL, NULL, &rep);
        if (json) {
            char arch[16];
            snprintf(arch, sizeof arch, "sm_%d", archs[i]);
            cli_json_print(json_pack("{s:s,s:o,s:I,s:I,s:I,s:I,s:o,s:o,s:I}", "arch", arch,
                                     "family", cli_json_str(family), "total", (json_int_t)rep.total,
                                     "compiled", (json_int_t)rep.compiled, "found",
                                     (json_int_t)rep.found, "failed", (json_int_t)rep.failed,
                                     "seconds", cli_json_real("%.3f", rep.seconds), "first_error",
                                     cli_json_str(rep.first_error), "by_ptxas",
                                     (json_int_t)rep.by_ptxas));
        } else {
            char twins[64] = "";
            if (rep.by_ptxas > 0)
                snprintf(twins, sizeof twins, " (%u by ptxas from another arch's PTX)",
                         rep.by_ptxas);
            printf("sm_%d: %u specializations: %u compiled%s, %u found, %u failed in %.1f s\n",
                   archs[i], rep.total, rep.compiled, twins, rep.found, rep.failed, rep.seconds);
        }
        if (rc != CUSPEC_OK) {
            cli_fail(rc, "compile failed");
            failed = 1;
        }
    }
    return failed ? EXIT_FAILED : EXIT_OK;
}

const struct command cmd_compile = {"compile", "fill the store ahead of time (no GPU needed)", help,
                                    run};
