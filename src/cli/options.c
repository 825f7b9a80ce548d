/* The command line: usage errors, the options every command shares, and the
 * integers and lists options take. */
#include "cli.h"

#include <ctype.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int cli_usage(const struct command *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "cuspec %s: ", cmd->name);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\nTry 'cuspec help %s'.\n", cmd->name);
    va_end(ap);
    return EXIT_USAGE;
}

/* The edit distance (insertions, deletions, substitutions, swaps of two
 * neighbours) between a and b, counted up to 9. */
static int distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 32 || lb > 32)
        return 9;
    int d[33][33];
    for (size_t i = 0; i <= la; i++)
        for (size_t j = 0; j <= lb; j++) {
            if (i == 0 || j == 0) {
                d[i][j] = (int)(i + j);
                continue;
            }
            int sub = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            int del = d[i - 1][j] + 1, ins = d[i][j - 1] + 1;
            d[i][j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < d[i][j])
                d[i][j] = d[i - 2][j - 2] + 1;
        }
    return d[la][lb] < 9 ? d[la][lb] : 9;
}

const char *cli_nearest(const char *word, const char *const *names, size_t n)
{
    const char *best = NULL;
    /* A third of the word may be wrong, at least one letter, at most two. */
    int len = (int)strlen(word), limit = len < 6 ? 1 : 2, best_d = limit + 1;
    /* Of names as near, one the word begins ("tun": tune, not run). */
    for (size_t i = 0; i < n; i++) {
        int d = distance(word, names[i]);
        int begins = strncmp(names[i], word, (size_t)len) == 0;
        if (d < best_d || (d == best_d && begins && strncmp(best, word, (size_t)len) != 0)) {
            best = names[i];
            best_d = d;
        }
    }
    return best_d <= limit ? best : NULL;
}

const char *cli_did_you_mean(const char *word, const char *const *names, size_t n, char *buf,
                             size_t size)
{
    const char *near = cli_nearest(word, names, n);
    if (near == NULL)
        return "";
    snprintf(buf, size, "; did you mean '%s'?", near);
    return buf;
}

int cli_unknown_option(const struct command *cmd, const char *arg)
{
    /* The options are those the command's help names, and the common ones. */
    enum { MAX_OPTIONS = 64 };
    char words[MAX_OPTIONS][32];
    const char *names[MAX_OPTIONS] = {"--help", "--quiet"};
    size_t n = 2, len = strcspn(arg, "=");
    for (const char *p = strstr(cmd->help, "--"); p != NULL && n < MAX_OPTIONS;
         p = strstr(p + 2, "--")) {
        size_t k = 2 + strspn(p + 2, "abcdefghijklmnopqrstuvwxyz-");
        if (k < 3 || k >= sizeof words[0])
            continue;
        memcpy(words[n], p, k);
        words[n][k] = '\0';
        names[n] = words[n];
        n++;
    }
    char word[64], hint[64];
    snprintf(word, sizeof word, "%.*s", (int)(len < 63 ? len : 63), arg);
    for (size_t i = 0; i < n; i++)
        if (strcmp(word, names[i]) == 0 && arg[len] == '\0')
            return cli_usage(cmd, "%s needs a value", word);
    return cli_usage(cmd, "unknown option '%s'%s", word,
                     cli_did_you_mean(word, names, n, hint, sizeof hint));
}

int cli_parse_common(const struct command *cmd, int argc, char **argv, int *json)
{
    static const struct option opts[] = {
        {"help", no_argument, NULL, 'h'},
        {"json", no_argument, NULL, 'j'},
        {0, 0, 0, 0},
    };
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
        switch (c) {
        case 'h':
            fputs(cmd->help, stdout);
            return EXIT_OK;
        case 'j':
            if (json == NULL)
                return cli_usage(cmd, "--json is not an option of this command");
            *json = 1;
            break;
        default:
            return cli_unknown_option(cmd, argv[optind - 1]);
        }
    }
    return -1;
}

int cli_option(const struct command *cmd, int c, char **argv, int *json,
               const struct cli_int_option *ints)
{
    if (c == 'J') {
        *json = 1;
        return -1;
    }
    if (c == 'h') {
        fputs(cmd->help, stdout);
        return EXIT_OK;
    }
    for (; ints != NULL && ints->code != 0; ints++) {
        if (ints->code != c)
            continue;
        int v;
        if (cli_parse_int(optarg, ints->lo, ints->hi, &v) == 0 &&
            (ints->step < 2 || v % ints->step == 0)) {
            *ints->value = v;
            return -1;
        }
        if (ints->takes != NULL)
            return cli_usage(cmd, "--%s takes %s, not '%s'", ints->name, ints->takes, optarg);
        return cli_usage(cmd, "--%s takes a number from %d to %d, not '%s'", ints->name, ints->lo,
                         ints->hi, optarg);
    }
    return cli_unknown_option(cmd, argv[optind - 1]);
}

int cli_split(char *list, char **items, int max)
{
    int n = 0;
    for (char *tok = strtok(list, ","); tok != NULL; tok = strtok(NULL, ","))
        if (n < max)
            items[n++] = tok;
        else
            return -1;
    return n;
}

int cli_parse_int(const char *s, int lo, int hi, int *v)
{
    uint64_t u;
    if (s[0] == '-') { /* only digits after a minus */
        char *end;
        if (!isdigit((unsigned char)s[1]))
            return -1;
        long x = strtol(s, &end, 10);
        if (*end != '\0' || x < lo || x > hi)
            return -1;
        *v = (int)x;
        return 0;
    }
    if (cuspec_parse_size(s, &u) != CUSPEC_OK || (lo > 0 && u < (uint64_t)lo) ||
        u > (uint64_t)(hi > 0 ? hi : 0))
        return -1;
    *v = (int)u;
    return 0;
}
