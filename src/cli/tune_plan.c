/* cuspec tune: the plan, the operations one run tunes: the default suite,
 * narrowed to a family and with the lists the command line replaces. */
#include "tune.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The default suite: what `cuspec tune` tunes with no family, and each
 * family's lists when the command line does not replace them. */
static const struct suite_row {
    const char *family, *ops, *dtypes, *sizes;
} suite[] = {
    {"reduce", "sum,min,max,dot", "f32,f64,i32",
     "2^10,2^12,2^14,2^16,2^18,2^20,2^22,2^24,2^26,2^28"},
    {"reduce", "argmin,argmax", "f32", "2^14,2^18,2^22,2^26,2^28"},
    {"reduce", "sum,argmax", "f16,bf16", "2^14,2^18,2^22,2^26,2^28"},
    {"reduce", "sum", "i8,u8", "2^14,2^18,2^22,2^26,2^28"},
    {"transpose", "-", "f32,f64",
     "256x256,1024x1024,4096x4096,8192x8192,16384x16384,1023x1025,8191x8193,16383x16385,"
     "10000x3000"},
    {"transpose", "-", "u8,u16",
     "256x256,1024x1024,8192x8192,16384x16384,8191x8193,16383x16385,10000x3000"},
    {"reduce_rows", "sum,argmax", "f32", "8192x8192,4096x4096,65536x1024,1048576x32,32x1048576"},
    {"reduce_cols", "sum,argmax", "f32", "8192x8192,4096x4096,65536x1024,1048576x32,32x1048576"},
};
#define N_SUITE (sizeof suite / sizeof *suite)

static int append(struct plan *p, const struct item *it)
{
    if (p->n == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 64;
        struct item *items = realloc(p->items, cap * sizeof *items);
        if (items == NULL) {
            fprintf(stderr, "cuspec tune: out of memory\n");
            return EXIT_FAILED;
        }
        p->items = items;
        p->cap = cap;
    }
    p->items[p->n++] = *it;
    return 0;
}

/* Adds the operations of one dtype: every op (reduce) times every size.
 * Returns 0, or the exit status of a usage error. */
static int add_dtype(struct plan *p, const char *family, const char *ops, const char *dtype,
                     const char *sizes, const struct cli_layout *layout)
{
    int reduce = strcmp(family, "reduce") == 0, status = 0;
    int axis = strncmp(family, "reduce_", 7) == 0;
    char *opv[PLAN_MAX_LIST], *szv[PLAN_MAX_LIST];
    char *ops_copy = strdup(ops), *sizes_copy = strdup(sizes);
    int n_op = ops_copy ? cli_split(ops_copy, opv, PLAN_MAX_LIST) : -1;
    int n_sz = sizes_copy ? cli_split(sizes_copy, szv, PLAN_MAX_LIST) : -1;
    if (n_op <= 0 || n_sz <= 0)
        status = cli_usage(&cmd_tune, "a list is empty or has more than %d values", PLAN_MAX_LIST);
    for (int i = 0; i < n_op && status == 0; i++)
        for (int k = 0; k < n_sz && status == 0; k++) {
            struct item it;
            memset(&it, 0, sizeof it);
            snprintf(it.dtype, sizeof it.dtype, "%s", dtype);
            snprintf(it.op, sizeof it.op, "%s", reduce || axis ? opv[i] : "-");
            if (axis) {
                status = cli_axis_spec(&cmd_tune, family, opv[i], dtype, szv[k], layout, &it.spec);
                snprintf(it.size, sizeof it.size, "%zux%zu", it.spec.rows, it.spec.cols);
            } else if (reduce) {
                status = cli_reduce_spec(&cmd_tune, opv[i], dtype, szv[k], &it.spec);
                size_t n = it.spec.n;
                if ((n & (n - 1)) == 0) {
                    int e = 0;
                    while (n >>= 1)
                        e++;
                    snprintf(it.size, sizeof it.size, "n=2^%d", e);
                } else {
                    snprintf(it.size, sizeof it.size, "n=%zu", n);
                }
            } else {
                status = cli_transpose_spec(&cmd_tune, dtype, szv[k], layout, &it.spec);
                if (layout->pitch || layout->pad)
                    snprintf(it.size, sizeof it.size, "%zux%zu ld %zu/%zu", it.spec.rows,
                             it.spec.cols, it.spec.ld_in, it.spec.ld_out);
                else
                    snprintf(it.size, sizeof it.size, "%zux%zu", it.spec.rows, it.spec.cols);
            }
            if (status == 0)
                status = append(p, &it);
        }
    free(ops_copy);
    free(sizes_copy);
    return status;
}

static int row_has_dtype(const struct suite_row *row, const char *dtype)
{
    size_t len = strlen(dtype);
    for (const char *s = row->dtypes; (s = strstr(s, dtype)) != NULL; s += len)
        if ((s == row->dtypes || s[-1] == ',') && (s[len] == ',' || s[len] == '\0'))
            return 1;
    return 0;
}

int plan_build(struct plan *p, const struct plan_request *o)
{
    int status = 0;
    if (o->dtypes == NULL) {
        for (size_t r = 0; r < N_SUITE && status == 0; r++) {
            const struct suite_row *row = &suite[r];
            if (o->family != NULL && strcmp(o->family, row->family) != 0)
                continue;
            int reduce = strcmp(row->family, "reduce") == 0;
            const char *sizes = reduce ? o->ns : o->shapes;
            char *dts[PLAN_MAX_LIST], *copy = strdup(row->dtypes);
            int n_dt = copy ? cli_split(copy, dts, PLAN_MAX_LIST) : 0;
            for (int j = 0; j < n_dt && status == 0; j++)
                status = add_dtype(p, row->family, o->ops ? o->ops : row->ops, dts[j],
                                   sizes ? sizes : row->sizes, &o->layout);
            free(copy);
        }
        return status;
    }
    /* --dtype: each dtype with the sizes of the suite row that holds it
     * (else the family's first row), unless --n / --shape replace them. */
    char *dts[PLAN_MAX_LIST];
    int reduce = strcmp(o->family, "reduce") == 0;
    int n_dt = cli_split(o->dtypes, dts, PLAN_MAX_LIST);
    if (n_dt <= 0)
        return cli_usage(&cmd_tune, "--dtype takes 1 to %d values", PLAN_MAX_LIST);
    for (int j = 0; j < n_dt && status == 0; j++) {
        const struct suite_row *row = NULL, *first = NULL;
        for (size_t r = 0; r < N_SUITE; r++) {
            if (strcmp(suite[r].family, o->family) != 0)
                continue;
            first = first ? first : &suite[r];
            if (row == NULL && row_has_dtype(&suite[r], dts[j]))
                row = &suite[r];
        }
        row = row ? row : first;
        const char *sizes = reduce ? o->ns : o->shapes;
        status = add_dtype(p, o->family, o->ops ? o->ops : row->ops, dts[j],
                           sizes ? sizes : row->sizes, &o->layout);
    }
    return status;
}

void plan_label(const struct item *it, char *buf, size_t size)
{
    if (strncmp(it->spec.family, "reduce", 6) == 0)
        snprintf(buf, size, "%s %s %s %s", it->spec.family, it->dtype, it->op, it->size);
    else
        snprintf(buf, size, "transpose %s %s", it->dtype, it->size);
}
