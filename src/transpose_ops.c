/* The transpose family's operation hooks (ops.h): its public spec, its size
 * buckets (log2 of rows and of cols, and the alignment class), the
 * parameters a call picks, and how a workload runs a transpose and checks
 * it against the CPU's. Built on what transpose.c exports. */
#include "transpose.h"
#include "context.h"
#include "catalogue.h"
#include "error.h"
#include "text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int from_public(const cuspec_tune_spec *in, struct cuspec__spec *s)
{
    s->dtype = cuspec__transpose_dtype(in->dtype);
    CUSPEC__RETURN_IF(s->dtype == 0, CUSPEC_ERR_INVALID, "unknown dtype %d", in->dtype);
    CUSPEC__RETURN_IF(in->rows == 0 || in->cols == 0, CUSPEC_ERR_INVALID, "a dimension is 0");
    s->rows = in->rows;
    s->cols = in->cols;
    s->ld_in = in->ld_in;
    s->ld_out = in->ld_out;
    int rc = cuspec__transpose_layout(s->rows, s->cols, &s->ld_in, &s->ld_out,
                                      cuspec_dtype_size(s->dtype));
    if (rc != CUSPEC_OK)
        return rc;
    /* Matrices on aligned allocations: the class follows the leading
     * dimensions. */
    struct cuspec__shape sh = {256, 256, s->rows, s->cols, s->ld_in, s->ld_out, 0, 0, 1};
    s->align = cuspec__transpose_align(&sh, s->dtype);
    return CUSPEC_OK;
}

static int tunable(const struct cuspec__spec *s)
{
    CUSPEC__RETURN_IF(cuspec__transpose_narrow(s->rows, s->cols), CUSPEC_ERR_UNSUPPORTED,
                      "a %llux%llu transpose takes the narrow kernel (at most 31 rows or "
                      "columns), which is not tuned",
                      s->rows, s->cols);
    return CUSPEC_OK;
}

static int bucket(const struct cuspec__spec *s)
{
    return cuspec__log2_floor(s->rows) << 16 | cuspec__log2_floor(s->cols) << 8 |
           cuspec__log2_floor((unsigned)s->align);
}

static void bucket_text(int bucket, char *buf, size_t size)
{
    snprintf(buf, size, "rows=2^%d cols=2^%d align=%d", bucket >> 16, bucket >> 8 & 0xff,
             1 << (bucket & 0xff));
}

/* A transpose's bucket holds its alignment class, which s takes. */
static int bucket_parse(const char *text, int *out, struct cuspec__spec *s)
{
    int r, c, a;
    const char *p;
    int ok = strncmp(text, "rows=2^", 7) == 0 &&
             (p = cuspec__parse_int(text + 7, ' ', 0, 63, &r)) && strncmp(p, " cols=2^", 8) == 0 &&
             (p = cuspec__parse_int(p + 8, ' ', 0, 63, &c)) && strncmp(p, " align=", 7) == 0 &&
             cuspec__parse_int(p + 7, '\0', 1, CUSPEC__SECTOR, &a) && (a & (a - 1)) == 0;
    CUSPEC__RETURN_IF(!ok, CUSPEC_ERR_CORRUPT,
                      "a record names bucket '%s' (rows=2^R cols=2^C align=A, R and C from 0 to "
                      "63, A a power of two up to %d)",
                      text, CUSPEC__SECTOR);
    /* the bucket's smallest shape: narrow exactly when every shape in it is */
    s->rows = 1ULL << r;
    s->cols = 1ULL << c;
    s->align = a;
    *out = bucket(s);
    return CUSPEC_OK;
}

struct near_walk {
    int align_log2;
    int (*fn)(int bucket, void *user);
    void *user;
};

static int visit(int rows, int cols, void *user)
{
    const struct near_walk *w = user;
    return w->fn(rows << 16 | cols << 8 | w->align_log2, w->user);
}

/* Rows and cols together, at the same alignment class. */
static int nearby(const struct cuspec__spec *s, int bucket, int d,
                  int (*fn)(int bucket, void *user), void *user)
{
    (void)s;
    struct near_walk w = {bucket & 0xff, fn, user};
    return cuspec__walk_near(bucket >> 16, bucket >> 8 & 0xff, d, visit, &w);
}

static int choose(cuspec_ctx *ctx, const struct cuspec__spec *s, struct cuspec__variant *v)
{
    memset(v, 0, sizeof *v);
    return cuspec__transpose_params(ctx, s, v);
}

/* Reading back and comparing a large transpose for every candidate would
 * cost more than timing it. A kernel's correctness depends on the shape only
 * through its edges and alignment, so candidates are checked on a matrix
 * with the same remainders modulo the largest tile (128) and the same
 * alignment class, at most 383 x 383. */
static int check_spec(const struct cuspec__spec *s, struct cuspec__spec *small)
{
    *small = *s;
    small->rows = s->rows > 383 ? s->rows % 128 + 256 : s->rows;
    small->cols = s->cols > 383 ? s->cols % 128 + 256 : s->cols;
    small->ld_in = small->cols + (s->ld_in - s->cols); /* the same padding */
    small->ld_out = small->rows + (s->ld_out - s->rows);
    return small->rows != s->rows || small->cols != s->cols;
}

/* The padded matrices in and out; GB/s counts the matrix's bytes read and
 * written, and its ceiling is copying them. A transpose moves bytes: any
 * bits will do as input, padding too. */
static void io(const struct cuspec__spec *s, struct cuspec__io *io)
{
    size_t size = cuspec_dtype_size(s->dtype), bytes = size * s->rows * s->cols;
    *io = (struct cuspec__io){.inputs = 1,
                              .in_bytes = size * s->rows * s->ld_in,
                              .out_bytes = size * s->cols * s->ld_out,
                              .out_rotates = 1,
                              .moved = 2.0 * bytes,
                              .copy_bytes = bytes};
}

static int run(cuspec_ctx *ctx, const struct cuspec__spec *s, const struct cuspec__variant *v,
               const CUdeviceptr in[2], CUdeviceptr out, CUstream stream,
               const struct cuspec__scratch *held)
{
    (void)held; /* transposes take no scratch */
    if (v != NULL) {
        struct cuspec__shape sh = {in[0], out, s->rows, s->cols, s->ld_in, s->ld_out, 0, 0, 1};
        return cuspec__transpose_variant(ctx, v, &sh, stream);
    }
    return cuspec_transpose(ctx, s->dtype, in[0], s->rows, s->cols, s->ld_in, out, s->ld_out,
                            stream);
}

/* The CPU's transpose, padding included: it must keep the poison. */
static void *reference(const struct cuspec__spec *s, const void *const in[2])
{
    const unsigned char *a = in[0];
    size_t rows = s->rows, cols = s->cols, size = cuspec_dtype_size(s->dtype);
    size_t ld_in = s->ld_in, ld_out = s->ld_out, out_bytes = size * cols * ld_out;
    unsigned char *e = malloc(out_bytes);
    if (e == NULL)
        return NULL;
    memset(e, CUSPEC__POISON, out_bytes);
    for (size_t i = 0; i < rows; i++)
        for (size_t j = 0; j < cols; j++)
            memcpy(e + (j * ld_out + i) * size, a + (i * ld_in + j) * size, size);
    return e;
}

static void compare(const struct cuspec__spec *s, const void *ref, const void *const in[2],
                    const void *got, int *correct, double *error)
{
    (void)in;
    (void)error; /* exact */
    *correct = memcmp(got, ref, cuspec_dtype_size(s->dtype) * s->cols * s->ld_out) == 0;
}

const struct cuspec__family_ops cuspec__transpose_ops = {
    .from_public = from_public,
    .tunable = tunable,
    .bucket = bucket,
    .bucket_text = bucket_text,
    .bucket_parse = bucket_parse,
    .nearby = nearby,
    .choose = choose,
    .check_spec = check_spec,
    .io = io,
    .run = run,
    .reference = reference,
    .compare = compare,
};
