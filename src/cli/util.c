/* Error reporting, option handling and JSON output shared by the commands. */
#include "cli.h"

#include <getopt.h>
#include <stdarg.h>
#include <string.h>

int cli_fail(int status, const char *msg)
{
    fprintf(stderr, "cuspec: %s: %s", msg, cuspec_strerror(status));
    const char *detail = cuspec_last_error();
    if (detail[0] != '\0')
        fprintf(stderr, ": %s", detail);
    fputc('\n', stderr);
    return status == CUSPEC_ERR_NO_DRIVER || status == CUSPEC_ERR_DRIVER_TOO_OLD ||
                   status == CUSPEC_ERR_NO_DEVICE
               ? EXIT_NO_GPU
               : EXIT_FAILED;
}

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

void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", f);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}
