/* cuspec cache: looks after the on-disk store of compiled kernels and tuning
 * records (stats, ls, verify, clear, prune) through the public store API. */
#include "cli.h"
#include "json.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char help[] =
    "Usage: cuspec cache stats [--json]\n"
    "       cuspec cache ls [--kind KIND] [--json]\n"
    "       cuspec cache verify [--repair] [--json]\n"
    "       cuspec cache clear [--kind KIND]... [--all] [--yes] [--json]\n"
    "       cuspec cache prune [--max-bytes N[K|M|G]] [--stale] [--json]\n"
    "\n"
    "Looks after the store of compiled kernels (cubin, ptx) and tuning records:\n"
    "$CUSPEC_CACHE_DIR, else $XDG_CACHE_HOME/cuspec, else ~/.cache/cuspec.\n"
    "\n"
    "  stats    where the store is, whether it can be written, its size bound, the\n"
    "           entries and bytes of each kind, leftover temporary and lock files,\n"
    "           quarantined entries, and this process's counters\n"
    "  ls       every entry: kind, size, last use, file, key and meta; a bad entry\n"
    "           with the reason it is bad\n"
    "  verify   reads every entry in full (magic, version, checksum, key against the\n"
    "           file name) and lists the bad ones, and the folders refused because\n"
    "           of their owner, mode or a link\n"
    "  clear    removes the compiled kernels (cubin, ptx), or the entries of the\n"
    "           kinds given; tuning records (minutes of tuning each) only with\n"
    "           --kind tuning or --all. A removed kernel is compiled again when next\n"
    "           needed\n"
    "  prune    removes compiled entries, least recently used first, until they take\n"
    "           no more than the bound; tuning records are kept\n"
    "\n"
    "  --json             one JSON object on stdout instead of the table\n"
    "  --kind KIND        cubin, ptx or tuning; ls: show only this kind; clear: remove\n"
    "                     only these kinds (repeat for several)\n"
    "  --all              clear: every entry, tuning records too, and the bad entries\n"
    "                     moved aside to quarantine/\n"
    "  --repair           verify: remove the bad entries, the temporary files of writers\n"
    "                     that died (older than a minute), the lock files nobody holds\n"
    "                     and the quarantined entries\n"
    "  --yes              clear: accepted for scripts; clear never asks, it is a cache\n"
    "  --max-bytes N      prune: the bound to prune to, in bytes (suffix K, M or G for\n"
    "                     powers of 1024); default $CUSPEC_CACHE_MAX_BYTES, else 1G\n"
    "  --stale            prune: first remove compiled entries made by another NVRTC\n"
    "                     than the one this machine would use (needs NVRTC)\n"
    "\n"
    "Environment: CUSPEC_CACHE_DIR, XDG_CACHE_HOME and HOME place the store;\n"
    "CUSPEC_SYSTEM_STORE is a read-only store searched after it; CUSPEC_CACHE_MAX_BYTES\n"
    "bounds it (at least 64K). Every folder and file of the store must be yours and\n"
    "not writable by group or others (the system store's may be root's); links are\n"
    "never followed inside it: what fails is refused with a warning.\n"
    "\n"
    "Exit status: 0 success; 1 the operation failed, or verify found bad entries and\n"
    "did not remove them; 2 bad command line.\n";

struct options {
    int json, repair, stale, all;
    unsigned kinds; /* bit 1 << kind */
    uint64_t max_bytes;
};

/* n as "512 B", "1.5 KiB", ... in buf. */
static const char *format_bytes(uint64_t n, char buf[32])
{
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB"};
    if (n < 1024) {
        snprintf(buf, 32, "%llu B", (unsigned long long)n);
        return buf;
    }
    double v = (double)n / 1024;
    int u = 0;
    for (; v >= 1024 && u < 3; u++)
        v /= 1024;
    snprintf(buf, 32, "%.1f %s", v, units[u]);
    return buf;
}

/* The kind named `name`, or 0. */
static int kind_from_name(const char *name)
{
    for (int k = CUSPEC_KIND_CUBIN; k <= CUSPEC_KIND_TUNING; k++)
        if (strcmp(name, cuspec_kind_name(k)) == 0)
            return k;
    return 0;
}

/* ## stats */

static int run_stats(const struct options *o)
{
    cuspec_store_stats s;
    char buf[32];
    int status = cuspec_store_get_stats(&s);
    if (status != CUSPEC_OK)
        return cli_fail(status, "cannot read the store");
    /* [0] counts entries whose header is bad. */
    static const char *const names[CUSPEC_N_KINDS] = {"bad", "cubin", "ptx", "tuning"};
    if (o->json) {
        json_t *kinds = json_object();
        for (int k = 1; k <= CUSPEC_N_KINDS; k++) {
            int i = k % CUSPEC_N_KINDS; /* the kinds, then the bad entries */
            json_object_set_new(kinds, names[i],
                                json_pack("{s:I,s:I}", "entries", (json_int_t)s.entries[i], "bytes",
                                          (json_int_t)s.bytes[i]));
        }
        cli_json_print(json_pack(
            "{s:o,s:b,s:I,s:o,s:I,s:I,s:I,s:I,s:o,s:{s:I,s:I,s:I,s:I,s:I,s:I,s:I}}", "path",
            cli_json_str(s.path), "writable", s.writable, "max_bytes", (json_int_t)s.max_bytes,
            "system_path", cli_json_str(s.system_path), "system_entries",
            (json_int_t)s.system_entries, "leftovers", (json_int_t)s.leftovers, "leftover_bytes",
            (json_int_t)s.leftover_bytes, "quarantined", (json_int_t)s.quarantined, "kinds", kinds,
            "process", "hits", (json_int_t)s.hits, "misses", (json_int_t)s.misses, "compiles",
            (json_int_t)s.compiles, "publishes", (json_int_t)s.publishes, "bad_entries",
            (json_int_t)s.bad_entries, "evictions", (json_int_t)s.evictions, "write_failures",
            (json_int_t)s.write_failures));
        return EXIT_OK;
    }
    printf("store          %s\n", s.path[0] ? s.path : "none");
    printf("writable       %s%s\n", s.writable ? "yes" : "no: ", s.why_not_writable);
    printf("size bound     %s of compiled entries (cubin, ptx); tuning records are not counted\n",
           format_bytes(s.max_bytes, buf));
    if (s.system_path[0])
        printf("system store   %s, %llu entries (read-only)\n", s.system_path,
               (unsigned long long)s.system_entries);
    else
        printf("system store   none\n");
    printf("\n%-8s %8s %12s\n", "kind", "entries", "bytes");
    for (int k = 1; k <= CUSPEC_N_KINDS; k++) {
        int i = k % CUSPEC_N_KINDS;
        if (i == 0 && s.entries[0] == 0)
            continue;
        printf("%-8s %8llu %12s\n", names[i], (unsigned long long)s.entries[i],
               format_bytes(s.bytes[i], buf));
    }
    if (s.leftovers > 0)
        printf("\nleftovers      %llu temporary or lock files (%s) of writers that died or are at "
               "work; `cuspec cache verify --repair` removes the dead ones\n",
               (unsigned long long)s.leftovers, format_bytes(s.leftover_bytes, buf));
    if (s.quarantined > 0)
        printf("quarantined    %llu bad entries moved aside (the latest are kept; `cuspec cache "
               "verify --repair` removes them)\n",
               (unsigned long long)s.quarantined);
    printf("\nthis process   %llu hits, %llu misses, %llu compiles, %llu publishes, %llu bad, "
           "%llu evictions, %llu write failures\n",
           (unsigned long long)s.hits, (unsigned long long)s.misses, (unsigned long long)s.compiles,
           (unsigned long long)s.publishes, (unsigned long long)s.bad_entries,
           (unsigned long long)s.evictions, (unsigned long long)s.write_failures);
    return EXIT_OK;
}

/* ## ls and verify */

struct listing {
    const struct options *o;
    int kind; /* ls --kind; 0 for every entry */
    unsigned long long n;
    json_t *entries; /* --json: the entries listed */
};

/* Prints `text` line by line, the first after `label`, the others under it. */
static void print_lines(const char *label, const char *text)
{
    int first = 1;
    while (*text != '\0') {
        size_t len = strcspn(text, "\n");
        printf("  %-7s %.*s\n", first ? label : "", (int)len, text);
        first = 0;
        text += len + (text[len] == '\n');
    }
}

/* Adds the entry to l->entries (--json), or prints it: with its key and meta
 * when full. */
static void print_entry(struct listing *l, const cuspec_store_entry *e, int full)
{
    if (l->o->json) {
        json_array_append_new(
            l->entries, json_pack("{s:o,s:s?,s:I,s:I,s:o,s:o,s:o}", "path", cli_json_str(e->path),
                                  "kind", e->kind != 0 ? cuspec_kind_name(e->kind) : NULL, "size",
                                  (json_int_t)e->size, "last_use", (json_int_t)e->last_use, "key",
                                  cli_json_str(e->key), "meta", cli_json_str(e->meta), "problem",
                                  e->problem[0] != '\0' ? cli_json_str(e->problem) : json_null()));
        return;
    }
    char when[32] = "?", buf[32];
    time_t t = (time_t)e->last_use;
    struct tm tm;
    if (localtime_r(&t, &tm) != NULL)
        strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S", &tm);
    printf("%-7s %10s  %s  %s\n", e->kind != 0 ? cuspec_kind_name(e->kind) : "BAD",
           format_bytes(e->size, buf), when, e->path);
    if (e->problem[0] != '\0')
        print_lines("problem", e->problem);
    if (full) {
        print_lines("key", e->key);
        print_lines("meta", e->meta);
    }
}

static int list_one(const cuspec_store_entry *e, void *user)
{
    struct listing *l = user;
    if (l->kind != 0 && e->kind != l->kind)
        return 0;
    print_entry(l, e, 1);
    l->n++;
    return 0;
}

static int run_ls(const struct options *o)
{
    struct listing l = {o, 0, 0, o->json ? json_array() : NULL};
    for (int k = CUSPEC_KIND_CUBIN; k <= CUSPEC_KIND_TUNING; k++)
        if (o->kinds & 1u << k)
            l.kind = k;
    int status = cuspec_store_list(list_one, &l);
    if (o->json)
        cli_json_print(json_pack("{s:o}", "entries", l.entries));
    if (status != CUSPEC_OK)
        return cli_fail(status, "cannot list the store");
    if (!o->json)
        printf("%llu %s%s%s\n", l.n, l.kind ? cuspec_kind_name(l.kind) : "", l.kind ? " " : "",
               l.n == 1 ? "entry" : "entries");
    return EXIT_OK;
}

static int verify_one(const cuspec_store_entry *e, void *user)
{
    struct listing *l = user;
    print_entry(l, e, 0);
    l->n++;
    return 0;
}

static int run_verify(const struct options *o)
{
    struct listing l = {o, 0, 0, o->json ? json_array() : NULL};
    uint64_t n_bad = 0;
    int status = cuspec_store_verify(o->repair, verify_one, &l, &n_bad);
    if (o->json)
        cli_json_print(json_pack("{s:o,s:I,s:b}", "bad", l.entries, "n_bad", (json_int_t)n_bad,
                                 "repaired", o->repair));
    if (status != CUSPEC_OK)
        return cli_fail(status, o->repair ? "cannot repair the store" : "cannot verify the store");
    if (!o->json && n_bad == 0)
        printf("every entry is good\n");
    else if (!o->json)
        printf("%llu bad %s%s\n", (unsigned long long)n_bad, n_bad == 1 ? "entry" : "entries",
               o->repair ? ", removed" : "; 'cuspec cache verify --repair' removes bad entries");
    return n_bad > 0 && !o->repair ? EXIT_FAILED : EXIT_OK;
}

/* ## clear and prune */

static int run_clear(const struct options *o)
{
    /* One call per kind, so that what was removed can be told by kind; then,
     * with --all, one for the bad entries that are of none. Tuning records
     * go only when asked for by name. */
    uint64_t removed[CUSPEC_N_KINDS] = {0};
    unsigned compiled = 1u << CUSPEC_KIND_CUBIN | 1u << CUSPEC_KIND_PTX;
    unsigned kinds = o->all ? ~0u : o->kinds != 0 ? o->kinds : compiled;
    int status = CUSPEC_OK;
    for (int k = CUSPEC_KIND_CUBIN; k <= CUSPEC_KIND_TUNING && status == CUSPEC_OK; k++)
        if (kinds & 1u << k)
            status = cuspec_store_clear(1u << k, &removed[k]);
    if (status == CUSPEC_OK && o->all)
        status = cuspec_store_clear(0, &removed[0]);
    if (status != CUSPEC_OK)
        return cli_fail(status, "cannot clear the store");
    if (o->json) {
        json_t *by_kind = json_object();
        for (int k = CUSPEC_KIND_CUBIN; k <= CUSPEC_KIND_TUNING; k++)
            json_object_set_new(by_kind, cuspec_kind_name(k), json_integer((json_int_t)removed[k]));
        json_object_set_new(by_kind, "bad", json_integer((json_int_t)removed[0]));
        cli_json_print(json_pack("{s:o}", "removed", by_kind));
        return EXIT_OK;
    }
    uint64_t total = removed[0] + removed[1] + removed[2] + removed[3];
    printf("removed %llu %s (", (unsigned long long)total, total == 1 ? "entry" : "entries");
    const char *sep = "";
    for (int k = CUSPEC_KIND_CUBIN; k <= CUSPEC_KIND_TUNING; k++)
        if (kinds & 1u << k) {
            printf("%s%llu %s", sep, (unsigned long long)removed[k], cuspec_kind_name(k));
            sep = ", ";
        }
    if (o->all)
        printf(", %llu bad", (unsigned long long)removed[0]);
    printf(")\n");
    return EXIT_OK;
}

static int run_prune(const struct options *o)
{
    uint64_t removed = 0;
    cuspec_store_stats s;
    int status = cuspec_store_prune(o->max_bytes, o->stale, &removed);
    if (status != CUSPEC_OK)
        return cli_fail(status, "cannot prune the store");
    status = cuspec_store_get_stats(&s);
    if (status != CUSPEC_OK)
        return cli_fail(status, "cannot read the store");
    uint64_t bound = o->max_bytes != 0 ? o->max_bytes : s.max_bytes;
    uint64_t compiled = s.bytes[CUSPEC_KIND_CUBIN] + s.bytes[CUSPEC_KIND_PTX];
    if (o->json) {
        cli_json_print(json_pack("{s:I,s:I,s:I}", "removed", (json_int_t)removed, "compiled_bytes",
                                 (json_int_t)compiled, "max_bytes", (json_int_t)bound));
        return EXIT_OK;
    }
    char used[32], limit[32];
    printf("removed %llu %s; compiled entries take %s of %s\n", (unsigned long long)removed,
           removed == 1 ? "entry" : "entries", format_bytes(compiled, used),
           format_bytes(bound, limit));
    return EXIT_OK;
}

/* ## Command line */

struct subcommand {
    const char *name;
    const char *options; /* the short codes of the options it takes besides --json */
    int (*run)(const struct options *o);
};

static const struct subcommand subcommands[] = {
    {"stats", "", run_stats},   {"ls", "k", run_ls},        {"verify", "r", run_verify},
    {"clear", "kya", run_clear}, {"prune", "ms", run_prune},
};

static int run(int argc, char **argv)
{
    static const struct option opts[] = {
        {"help", no_argument, NULL, 'h'},       {"json", no_argument, NULL, 'j'},
        {"kind", required_argument, NULL, 'k'}, {"repair", no_argument, NULL, 'r'},
        {"yes", no_argument, NULL, 'y'},        {"max-bytes", required_argument, NULL, 'm'},
        {"stale", no_argument, NULL, 's'},      {"all", no_argument, NULL, 'a'},
        {0, 0, 0, 0},
    };
    struct options o = {0};
    const struct subcommand *sub = NULL;
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        fputs(help, stdout);
        return EXIT_OK;
    }
    if (argc < 2)
        return cli_usage(&cmd_cache, "missing subcommand (stats, ls, verify, clear or prune)");
    for (size_t i = 0; i < sizeof subcommands / sizeof *subcommands; i++)
        if (strcmp(argv[1], subcommands[i].name) == 0)
            sub = &subcommands[i];
    if (sub == NULL) {
        const char *names[] = {"stats", "ls", "verify", "clear", "prune"};
        char hint[64];
        return cli_usage(&cmd_cache, "unknown subcommand '%s'%s", argv[1],
                         cli_did_you_mean(argv[1], names, 5, hint, sizeof hint));
    }

    int c, li = 0;
    optind = 1;
    opterr = 0;
    /* getopt sees the subcommand as argv[0]: (argv + 1)[i] is argv[i + 1]. */
    while ((c = getopt_long(argc - 1, argv + 1, "+:h", opts, &li)) != -1) {
        if (strchr("?:hj", c) == NULL && strchr(sub->options, c) == NULL)
            return cli_usage(&cmd_cache, "--%s is not an option of 'cache %s'", opts[li].name,
                             sub->name);
        switch (c) {
        case 'h':
            fputs(help, stdout);
            return EXIT_OK;
        case 'j':
            o.json = 1;
            break;
        case 'k': {
            int kind = kind_from_name(optarg);
            if (kind == 0)
                return cli_usage(&cmd_cache, "unknown kind '%s' (cubin, ptx or tuning)", optarg);
            if (strcmp(sub->name, "ls") == 0 && o.kinds != 0)
                return cli_usage(&cmd_cache, "ls takes one --kind");
            o.kinds |= 1u << kind;
            break;
        }
        case 'r':
            o.repair = 1;
            break;
        case 'y':
            break; /* clear never asks */
        case 'm':
            if (cuspec_parse_size(optarg, &o.max_bytes) != CUSPEC_OK || o.max_bytes == 0)
                return cli_usage(&cmd_cache,
                                 "--max-bytes wants a positive size such as 500M, not '%s' "
                                 "('cuspec cache clear' removes every compiled entry)",
                                 optarg);
            break;
        case 's':
            o.stale = 1;
            break;
        case 'a':
            o.all = 1;
            break;
        case ':':
            return cli_usage(&cmd_cache, "%s needs a value", argv[optind]);
        default:
            return cli_unknown_option(&cmd_cache, argv[optind]);
        }
    }
    if (optind < argc - 1)
        return cli_usage(&cmd_cache, "unexpected argument '%s'", argv[optind + 1]);
    return sub->run(&o);
}

const struct command cmd_cache = {"cache", "inspect, verify, clear and prune the kernel store",
                                  help, run};
