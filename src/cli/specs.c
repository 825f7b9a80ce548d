/* The operation a command line names: element counts, shapes, padded
 * layouts, and the checked spec of a reduction or a transpose. */
#include "cli.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

size_t cli_parse_count(const char *s)
{
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

/* The usage error for an unknown dtype, with the nearest name suggested. */
static int unknown_dtype(const struct command *cmd, const char *dtype)
{
    const char *names[64];
    size_t n = 0;
    for (int i = 1; i < 64; i++)
        if (cuspec_dtype_name(i) != NULL)
            names[n++] = cuspec_dtype_name(i);
    char hint[64];
    return cli_usage(cmd, "unknown dtype '%s'%s", dtype,
                     cli_did_you_mean(dtype, names, n, hint, sizeof hint));
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
    if (s->op == -2) {
        const char *names[] = {"sum", "min", "max", "dot", "argmin", "argmax"};
        char hint[64];
        return cli_usage(cmd, "unknown op '%s' (sum, min, max, dot, argmin, argmax)%s", op,
                         cli_did_you_mean(op, names, 6, hint, sizeof hint));
    }
    s->dtype = cuspec_dtype_from_name(dtype);
    if (s->dtype == 0)
        return unknown_dtype(cmd, dtype);
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
        return unknown_dtype(cmd, dtype);
    if (cli_parse_shape(shape, &s->rows, &s->cols) != 0)
        return cli_usage(cmd, "'%s' is not a shape such as 8192x8192", shape);
    if (cli_layout_lds(l, s->rows, s->cols, cuspec_dtype_size(s->dtype), &s->ld_in, &s->ld_out))
        return cli_usage(cmd, "'%s' is too large to pad", shape);
    return 0;
}

const char *cli_axis_family(const char *axis)
{
    return strcmp(axis, "rows") == 0   ? "reduce_rows"
           : strcmp(axis, "cols") == 0 ? "reduce_cols"
                                       : NULL;
}

int cli_axis_spec(const struct command *cmd, const char *family, const char *op, const char *dtype,
                  const char *shape, const struct cli_layout *l, cuspec_tune_spec *s)
{
    static const char *const ops[] = {"sum", "min", "max", "argmin", "argmax"};
    memset(s, 0, sizeof *s);
    s->family = family;
    s->op = strcmp(op, "dot") == 0 ? -1 : -2;
    for (int i = 0; i < 5; i++)
        if (strcmp(op, ops[i]) == 0)
            s->op = i;
    if (s->op == -2)
        return cli_usage(cmd, "unknown op '%s' (sum, min, max, argmin, argmax, dot)", op);
    s->dtype = cuspec_dtype_from_name(dtype);
    if (s->dtype == 0)
        return cli_usage(cmd, "unknown dtype '%s'", dtype);
    if (cuspec_reduce_axis_out_dtype(s->op, s->dtype) == 0)
        return cli_usage(cmd, "%s %s does not take dtype '%s'", family, op, dtype);
    if (cli_parse_shape(shape, &s->rows, &s->cols) != 0)
        return cli_usage(cmd, "'%s' is not a shape such as 8192x8192", shape);
    s->ld_in = layout_ld(s->cols, cuspec_dtype_size(s->dtype), l);
    if (s->ld_in == 0)
        return cli_usage(cmd, "'%s' is too large to pad", shape);
    return 0;
}
