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
            return cli_usage(cmd, "unknown option '%s'", argv[optind - 1]);
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
    return cli_usage(cmd, "unknown option or missing value '%s'", argv[optind - 1]);
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
    char *end;
    if (!isdigit((unsigned char)s[0]) && !(s[0] == '-' && isdigit((unsigned char)s[1])))
        return -1;
    long x = strtol(s, &end, 10);
    if (*end != '\0' || x < lo || x > hi)
        return -1;
    *v = (int)x;
    return 0;
}
