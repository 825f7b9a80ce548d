/* Error reporting, option handling and JSON output shared by the commands. */
#include "cli.h"

#include <ctype.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
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

size_t cli_parse_count(const char *s)
{
    char *end;
    if (strncmp(s, "2^", 2) == 0) {
        if (!isdigit((unsigned char)s[2]))
            return 0;
        long e = strtol(s + 2, &end, 10);
        return *end == '\0' && e >= 0 && e < 63 ? (size_t)1 << e : 0;
    }
    uint64_t v;
    if (cuspec_parse_size(s, &v) != CUSPEC_OK || v > SIZE_MAX >> 1)
        return 0;
    return (size_t)v;
}

int cli_parse_shape(const char *s, size_t *rows, size_t *cols)
{
    char buf[64];
    const char *x = strchr(s, 'x');
    if (x == NULL || (size_t)(x - s) >= sizeof buf)
        return -1;
    memcpy(buf, s, (size_t)(x - s));
    buf[x - s] = '\0';
    *rows = cli_parse_count(buf);
    *cols = cli_parse_count(x + 1);
    return *rows != 0 && *cols != 0 ? 0 : -1;
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

/* The leading dimension for rows of len elements of size bytes; 0 when it
 * would overflow. */
static size_t layout_ld(size_t len, size_t size, const struct cli_layout *l)
{
    size_t bytes, unit = l->pitch ? (size_t)l->pitch : size;
    if (__builtin_mul_overflow(len, size, &bytes) || bytes > SIZE_MAX - unit)
        return 0;
    size_t ld = (bytes + unit - 1) / unit * unit / size;
    return ld > SIZE_MAX - (size_t)l->pad ? 0 : ld + (size_t)l->pad;
}

int cli_layout_lds(const struct cli_layout *l, size_t rows, size_t cols, size_t size, size_t *ld_in,
                   size_t *ld_out)
{
    *ld_in = layout_ld(cols, size, l);
    *ld_out = layout_ld(rows, size, l);
    return *ld_in != 0 && *ld_out != 0 ? 0 : -1;
}

const char *cli_transpose_flag(const char *shape, const struct cli_layout *l)
{
    return shape != NULL ? "--shape" : l->pitch ? "--pitch" : l->pad ? "--pad" : NULL;
}

int cli_reduce_spec(const struct command *cmd, const char *op, const char *dtype, const char *n,
                    cuspec_tune_spec *s)
{
    memset(s, 0, sizeof *s);
    s->family = "reduce";
    s->op = strcmp(op, "dot") == 0 ? -1 : -2;
    for (int i = 0; cuspec_op_name(i) != NULL; i++)
        if (strcmp(op, cuspec_op_name(i)) == 0)
            s->op = i;
    if (s->op == -2)
        return cli_usage(cmd, "unknown op '%s' (sum, min, max, dot)", op);
    s->dtype = cuspec_dtype_from_name(dtype);
    if (s->dtype == 0)
        return cli_usage(cmd, "unknown dtype '%s'", dtype);
    if (cuspec_reduce_out_dtype(s->op, s->dtype) == 0)
        return cli_usage(cmd, "reduce %s does not take dtype '%s' (f32, f64, i32, i64, u32)", op,
                         dtype);
    s->n = cli_parse_count(n);
    if (s->n == 0)
        return cli_usage(cmd, "'%s' is not an element count such as 1000, 64K, 16M or 2^20", n);
    return 0;
}

int cli_transpose_spec(const struct command *cmd, const char *dtype, const char *shape,
                       const struct cli_layout *l, cuspec_tune_spec *s)
{
    memset(s, 0, sizeof *s);
    s->family = "transpose";
    s->dtype = cuspec_dtype_from_name(dtype);
    if (s->dtype == 0)
        return cli_usage(cmd, "unknown dtype '%s'", dtype);
    if (cli_parse_shape(shape, &s->rows, &s->cols) != 0)
        return cli_usage(cmd, "'%s' is not a shape such as 8192x8192", shape);
    if (cli_layout_lds(l, s->rows, s->cols, cuspec_dtype_size(s->dtype), &s->ld_in, &s->ld_out))
        return cli_usage(cmd, "'%s' is too large to pad", shape);
    return 0;
}
