/* GPU: transposes compared exactly with a CPU transpose.
 *
 * Every element size (u8, f16, f32, f64) at shapes from 1x1 to 8191x8193,
 * 10000x3000 and 3 x 10^7, with tight and padded leading dimensions,
 * misaligned bases (in + 1 element, out + 3 elements), batches with gaps
 * (and one of 70000 matrices, past the grid's y limit), pitched memory from
 * cuMemAllocPitch. The whole output allocation is poisoned first and
 * compared byte for byte, so padding, gaps between batch entries and the
 * bytes around the output must stay untouched. Then a deterministic sample
 * of the legal specializations through cuspec__transpose_variant (a vector
 * width the shape does not allow is refused), chains of transposes that
 * read what the one before wrote (on a stream and in a graph, where sm_90
 * launches them programmatically), and bad arguments (an error with its
 * detail, nothing written).
 *
 * One process, one context, no fork after CUDA is touched. The kernels are
 * compiled by NVRTC into a private store (a fresh $CUSPEC_CACHE_DIR). */
#include "transpose.h"
#include "compile.h"
#include "gpu.h"
#include "gpu_cases.h"
#include "driver.h"
#include "text.h"

#include <ftw.h>
#include <stdlib.h>
#include <string.h>

#define POISON 0xA5
#define SLACK 64 /* poisoned elements past the last output element */

static int ready(void)
{
    if (ctx == NULL) {
        TAP_FAIL("no context (see the diagnostics above)");
        return 0;
    }
    return 1;
}

/* Random bytes, eight per draw. */
static void fill_bytes(void *buf, size_t bytes)
{
    unsigned char *p = buf;
    size_t i = 0;
    for (; i + 8 <= bytes; i += 8) {
        uint64_t r = rng_next();
        memcpy(p + i, &r, 8);
    }
    if (i < bytes) {
        uint64_t r = rng_next();
        memcpy(p + i, &r, bytes - i);
    }
}

static size_t round_up(size_t x, size_t m)
{
    return (x + m - 1) / m * m;
}

/* ## One transpose and its check */
struct tcase {
    int dtype;
    size_t rows, cols, ld_in, ld_out;
    size_t stride_in, stride_out, batch;
    size_t in_off, out_off; /* elements from the start of the allocations */
    int pitched;            /* allocate with cuMemAllocPitch; ld from the pitch */
    int batched;            /* call cuspec_transpose_batched (else cuspec_transpose) */
};

static struct tcase make_case(int dtype, size_t rows, size_t cols, size_t ld_in, size_t ld_out)
{
    struct tcase c;
    memset(&c, 0, sizeof c);
    c.dtype = dtype;
    c.rows = rows;
    c.cols = cols;
    c.ld_in = ld_in;
    c.ld_out = ld_out;
    c.batch = 1;
    return c;
}

static size_t in_elems(const struct tcase *c)
{
    return c->in_off + (c->batch - 1) * c->stride_in + (c->rows - 1) * c->ld_in + c->cols;
}

static size_t out_elems(const struct tcase *c)
{
    return c->out_off + (c->batch - 1) * c->stride_out + (c->cols - 1) * c->ld_out + c->rows;
}

/* out_b[j*ld_out + i] = in_b[i*ld_in + j], in 32x32 blocks. */
#define DEFINE_XPOSE(NAME, T)                                                                      \
    static void NAME(const struct tcase *c, const void *inv, void *outv)                           \
    {                                                                                              \
        const T *in = (const T *)inv + c->in_off;                                                  \
        T *out = (T *)outv + c->out_off;                                                           \
        for (size_t b = 0; b < c->batch; b++) {                                                    \
            const T *ib = in + b * c->stride_in;                                                   \
            T *ob = out + b * c->stride_out;                                                       \
            for (size_t i0 = 0; i0 < c->rows; i0 += 32)                                            \
                for (size_t j0 = 0; j0 < c->cols; j0 += 32) {                                      \
                    size_t i1 = i0 + 32 < c->rows ? i0 + 32 : c->rows;                             \
                    size_t j1 = j0 + 32 < c->cols ? j0 + 32 : c->cols;                             \
                    for (size_t i = i0; i < i1; i++)                                               \
                        for (size_t j = j0; j < j1; j++)                                           \
                            ob[j * c->ld_out + i] = ib[i * c->ld_in + j];                          \
                }                                                                                  \
        }                                                                                          \
    }
DEFINE_XPOSE(xpose8, uint8_t)
DEFINE_XPOSE(xpose16, uint16_t)
DEFINE_XPOSE(xpose32, uint32_t)
DEFINE_XPOSE(xpose64, uint64_t)

static void xpose(const struct tcase *c, const void *in, void *out)
{
    switch (cuspec_dtype_size(c->dtype)) {
    case 1:
        xpose8(c, in, out);
        break;
    case 2:
        xpose16(c, in, out);
        break;
    case 4:
        xpose32(c, in, out);
        break;
    case 8:
        xpose64(c, in, out);
        break;
    }
}

static void case_text(const struct tcase *c, const char *kernel, char *buf, size_t size)
{
    int len = snprintf(buf, size, "%s %zux%zu ld_in=%zu ld_out=%zu", cuspec_dtype_name(c->dtype),
                       c->rows, c->cols, c->ld_in, c->ld_out);
    if (len > 0 && (size_t)len < size && (c->in_off || c->out_off))
        len += snprintf(buf + len, size - (size_t)len, " in+%zu out+%zu", c->in_off, c->out_off);
    if (len > 0 && (size_t)len < size && c->batched)
        len += snprintf(buf + len, size - (size_t)len, " batch=%zu stride_in=%zu stride_out=%zu",
                        c->batch, c->stride_in, c->stride_out);
    if (len > 0 && (size_t)len < size && c->pitched)
        len += snprintf(buf + len, size - (size_t)len, " (pitched)");
    if (len > 0 && (size_t)len < size && kernel != NULL)
        snprintf(buf + len, size - (size_t)len, " [%s]", kernel);
}

/* Where output element e (from the allocation's start) lies. */
static void where(const struct tcase *c, size_t e, char *buf, size_t size)
{
    if (e < c->out_off) {
        snprintf(buf, size, "element %zu before out", e);
        return;
    }
    size_t r = e - c->out_off, b = 0;
    if (c->batch > 1 && c->stride_out > 0) {
        b = r / c->stride_out;
        r -= b * c->stride_out;
    }
    size_t j = r / c->ld_out, i = r % c->ld_out;
    if (b < c->batch && j < c->cols && i < c->rows)
        snprintf(buf, size, "out[%zu][%zu] of matrix %zu (= in[%zu][%zu])", j, i, b, i, j);
    else
        snprintf(buf, size,
                 "element %zu past out, in padding or between matrices (row %zu col %zu)", e, j, i);
}

static unsigned long long element(const unsigned char *p, size_t es)
{
    unsigned long long v = 0;
    memcpy(&v, p, es); /* little-endian */
    return v;
}

/* Allocates, fills, poisons, runs (public API, or variant v when not
 * NULL), and compares the whole output allocation with the expected bytes.
 * With expect_invalid, the call must fail with CUSPEC_ERR_INVALID and write
 * nothing. */
static void run_case(struct tcase c, const struct cuspec__variant *v, int expect_invalid)
{
    size_t es = cuspec_dtype_size(c.dtype);
    CUdeviceptr din = 0, dout = 0;
    size_t in_bytes, out_bytes;
    unsigned char *hin = NULL, *hgot = NULL, *hexp = NULL;
    char what[512];

    if (c.pitched) {
        size_t pin = 0, pout = 0;
        unsigned int elsz = es < 4 ? 4 : (unsigned int)es;
        CU_OK(drv->cuMemAllocPitch(&din, &pin, c.cols * es, c.rows, elsz));
        CU_OK(drv->cuMemAllocPitch(&dout, &pout, c.rows * es, c.cols, elsz));
        if (pin % es != 0 || pout % es != 0)
            CASE_FAIL("pitches %zu, %zu are not multiples of %zu", pin, pout, es);
        c.ld_in = pin / es;
        c.ld_out = pout / es;
        in_bytes = pin * c.rows;
        out_bytes = pout * c.cols;
    } else {
        in_bytes = in_elems(&c) * es;
        out_bytes = (out_elems(&c) + SLACK) * es;
        CU_OK(drv->cuMemAlloc(&din, in_bytes));
        CU_OK(drv->cuMemAlloc(&dout, out_bytes));
    }
    case_text(&c, NULL, what, sizeof what);
    hin = malloc(in_bytes);
    hgot = malloc(out_bytes);
    hexp = malloc(out_bytes);
    if (din == 0 || dout == 0 || hin == NULL || hgot == NULL || hexp == NULL) {
        CASE_FAIL("%s: could not allocate %zu + %zu bytes", what, in_bytes, out_bytes);
        goto done;
    }
    fill_bytes(hin, in_bytes);
    CU_OK(drv->cuMemcpyHtoD(din, hin, in_bytes));
    CU_OK(drv->cuMemsetD8(dout, POISON, out_bytes));
    memset(hexp, POISON, out_bytes);
    if (!expect_invalid)
        xpose(&c, hin, hexp);

    CUdeviceptr in = din + c.in_off * es, out = dout + c.out_off * es;
    int rc;
    char kernel[256] = "";
    if (v != NULL) {
        struct cuspec__shape s = {in,       out,         c.rows,       c.cols, c.ld_in,
                                  c.ld_out, c.stride_in, c.stride_out, c.batch};
        rc = cuspec__transpose_variant(ctx, v, &s, NULL);
        cuspec__variant_name(v, kernel, sizeof kernel);
    } else if (c.batched) {
        rc = cuspec_transpose_batched(ctx, c.dtype, in, c.rows, c.cols, c.ld_in, c.stride_in, out,
                                      c.ld_out, c.stride_out, c.batch, NULL);
    } else {
        rc = cuspec_transpose(ctx, c.dtype, in, c.rows, c.cols, c.ld_in, out, c.ld_out, NULL);
    }
    cuspec_launch_info info;
    if (v == NULL && rc == CUSPEC_OK && cuspec_last_launch(&info) == CUSPEC_OK)
        cuspec__strlcpy(kernel, info.kernel, sizeof kernel);
    case_text(&c, kernel[0] ? kernel : NULL, what, sizeof what);
    if (expect_invalid) {
        if (rc != CUSPEC_ERR_INVALID)
            CASE_FAIL("%s: got %s, want CUSPEC_ERR_INVALID (the vector width does not fit)", what,
                      cuspec_status_name(rc) ? cuspec_status_name(rc) : "?");
        else if (strstr(cuspec_last_error(), "aligned") == NULL)
            CASE_FAIL("%s: the detail \"%s\" does not say \"aligned\"", what, cuspec_last_error());
    } else if (rc != CUSPEC_OK) {
        CASE_FAIL("%s: %s: %s", what, cuspec_strerror(rc), cuspec_last_error());
        goto done;
    }
    CU_OK(drv->cuCtxSynchronize());
    CU_OK(drv->cuMemcpyDtoH(hgot, dout, out_bytes));
    if (memcmp(hgot, hexp, out_bytes) != 0) {
        size_t bad = 0, total = out_bytes / es;
        for (size_t e = 0; e < total; e++) {
            if (memcmp(hgot + e * es, hexp + e * es, es) == 0)
                continue;
            if (bad++ < 3) {
                char loc[200];
                where(&c, e, loc, sizeof loc);
                CASE_FAIL("%s: %s: got 0x%llx, want 0x%llx", what, loc, element(hgot + e * es, es),
                          element(hexp + e * es, es));
            }
        }
        CASE_FAIL("%s: %zu of %zu elements differ", what, bad, total);
    }
done:
    free(hin);
    free(hgot);
    free(hexp);
    if (din)
        drv->cuMemFree(din);
    if (dout)
        drv->cuMemFree(dout);
}

/* ## Compile what the tests use, in parallel */
static struct vlist sample; /* the specializations transpose_variants_sampled runs */

TEST(kernels_compile)
{
    if (!ready())
        return;
    group_begin();
    const struct cuspec__family *f = &cuspec__family_transpose;
    int p_vec = param_index(f, "vec"), p_shift = param_index(f, "shift");
    int p_kernel = param_index(f, "kernel");
    if (p_vec < 0 || p_shift < 0 || p_kernel < 0) {
        TAP_FAIL("the transpose family has no vec, shift or kernel parameter");
        return;
    }
    struct vlist all = {0}, defaults = {0}, build = {0};
    CHECK_INT_EQ(cuspec__family_each(CUSPEC__FAM_TRANSPOSE, ctx->arch, 1, collect, &all), 0);
    CHECK_INT_EQ(cuspec__family_each(CUSPEC__FAM_TRANSPOSE, ctx->arch, 0, collect, &defaults), 0);
    /* Every kernel a call chooses without a record: for each element size
     * the defaults fitted to every shape and alignment class (t_fallback
     * checks that the list is exact). */
    CHECK_UINT_EQ(defaults.n, 25);
    /* About 20 kernels of each kind (shared tile, shifted, registers,
     * narrow) spread over the enumeration (dtype, tile, rows, pad, vec),
     * then all the defaults. */
    size_t n_kind[4] = {0};
#define KIND(v) ((v).p[p_kernel] ? 1 + (v).p[p_kernel] : (v).p[p_shift] ? 1 : 0)
    for (size_t i = 0; i < all.n; i++)
        n_kind[KIND(all.v[i])]++;
    for (int kind = 0; kind < 4; kind++) {
        size_t step = n_kind[kind] / 20 > 0 ? n_kind[kind] / 20 : 1, seen = 0;
        for (size_t i = 0; i < all.n; i++)
            if (KIND(all.v[i]) == kind && seen++ % step == step / 2)
                CHECK(vlist_add(&sample, &all.v[i]) == 0);
    }
#undef KIND
    for (size_t i = 0; i < defaults.n; i++)
        CHECK(vlist_add(&sample, &defaults.v[i]) == 0);
    printf("# %zu legal transpose specializations (%zu shifted, %zu in registers, %zu narrow); "
           "running %zu of them\n",
           all.n, n_kind[1], n_kind[2], n_kind[3], sample.n);

    /* Public calls use the defaults fitted to the shape's alignment class:
     * shifted below a sector, with vectors no wider than the class (but
     * shifted 1- and 2-byte kernels need none). */
    for (size_t i = 0; i < sample.n; i++)
        CHECK(vlist_add(&build, &sample.v[i]) == 0);
    for (size_t i = 0; i < defaults.n; i++)
        for (int align = 32; align >= 1; align /= 2)
            for (unsigned side = 64; side <= 8192; side *= 128) { /* small and large */
                struct cuspec__variant v = defaults.v[i];
                int size = (int)cuspec_dtype_size(v.dtype);
                struct cuspec__spec spec = {.rows = side, .cols = side, .align = align};
                if (align > 32 / size)
                    continue;
                cuspec__transpose_fit(&v, &spec, 0);
                CHECK(f->legal(&v));
                /* shifted 1- and 2-byte kernels need no alignment */
                CHECK(v.p[p_vec] <= align || (v.p[p_shift] && size < 4));
                CHECK(!v.p[p_shift] || align < 32 / size);
                CHECK(vlist_add(&build, &v) == 0);
            }
    cuspec_compile_report report;
    int rc = cuspec__compile_many(build.v, (unsigned)build.n, ctx->arch, CUSPEC__IMAGE_NO_PTX, 0, 0,
                                  NULL, NULL, NULL, &report);
    printf("# %zu specializations: %u compiled, %u found, %u failed in %.1f s\n", build.n,
           report.compiled, report.found, report.failed, report.seconds);
    if (rc != CUSPEC_OK)
        CASE_FAIL("compiling: %s: %s", cuspec_strerror(rc), report.first_error);
    free(all.v);
    free(defaults.v);
    free(build.v);
    group_end();
}

/* ## Public API: shapes x layouts */
enum { L_TIGHT, L_PADDED, L_ODD, L_OFFSET, N_LAYOUTS };

static struct tcase layout_case(int dtype, size_t rows, size_t cols, int layout)
{
    struct tcase c = make_case(dtype, rows, cols, cols, rows);
    switch (layout) {
    case L_PADDED: /* padded, still allowing the widest vectors */
        c.ld_in = round_up(cols, 16) + 16;
        c.ld_out = round_up(rows, 16) + 16;
        break;
    case L_ODD: /* padded by odd amounts: shifted kernels */
        c.ld_in = cols + 1;
        c.ld_out = rows + 3;
        break;
    case L_OFFSET: /* misaligned bases */
        c.in_off = 1;
        c.out_off = 3;
        break;
    }
    return c;
}

static void shapes_layouts(int dtype)
{
    static const size_t shapes[][2] = {{1, 1},       {1, 1000},    {1000, 1},    {31, 33},
                                       {32, 32},     {33, 31},     {1023, 1025}, {4096, 4096},
                                       {8191, 8193}, {10000, 3000}};
    if (!ready())
        return;
    group_begin();
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        size_t rows = shapes[s][0], cols = shapes[s][1];
        int big = rows * cols > (1u << 24);
        for (int layout = 0; layout < N_LAYOUTS; layout++) {
            if (big && (layout == L_ODD || (layout == L_OFFSET && rows == 8191)))
                continue; /* bound the time: 8191x8193 is already odd */
            run_case(layout_case(dtype, rows, cols, layout), NULL, 0);
        }
    }
    group_end();
}

TEST(transpose_u8_shapes_layouts)
{
    shapes_layouts(CUSPEC_U8);
}

TEST(transpose_f16_shapes_layouts)
{
    shapes_layouts(CUSPEC_F16);
}

TEST(transpose_f32_shapes_layouts)
{
    shapes_layouts(CUSPEC_F32);
}

TEST(transpose_f64_shapes_layouts)
{
    shapes_layouts(CUSPEC_F64);
}

TEST(transpose_3x1e7)
{
    if (!ready())
        return;
    group_begin();
    run_case(layout_case(CUSPEC_F32, 3, 10000000, L_TIGHT), NULL, 0);
    run_case(layout_case(CUSPEC_F32, 3, 10000000, L_OFFSET), NULL, 0);
    run_case(layout_case(CUSPEC_F32, 10000000, 3, L_TIGHT), NULL, 0);
    group_end();
}

/* ## Batched */
TEST(transpose_batched)
{
    static const int dts[] = {CUSPEC_U8, CUSPEC_F16, CUSPEC_F32, CUSPEC_F64};
    static const struct {
        size_t rows, cols, ld_in, ld_out, batch, stride_in, stride_out, in_off, out_off;
    } cases[] = {
        /* Gaps between the matrices, misaligned bases. */
        {33, 31, 31, 33, 3, 33 * 31 + 5, 31 * 33 + 7, 1, 3},
        /* Padded rows and strides that allow the widest vectors. */
        {64, 64, 80, 80, 3, 64 * 80 + 32, 64 * 80 + 48, 0, 0},
        /* Narrow, wide and tall, with vectors. */
        {4, 1024, 1024, 4, 3, 4 * 1024 + 16, 4 * 1024 + 32, 0, 0},
        {2048, 7, 7, 2048, 2, 2048 * 7 + 16, 2048 * 7 + 16, 0, 0},
        /* Large, odd. */
        {1023, 1025, 1025, 1023, 3, 1023 * 1025 + 1, 1025 * 1023 + 2, 0, 0},
        /* Outputs exactly as far apart as allowed; inputs back to back. */
        {5, 4, 4, 8, 3, 20, (4 - 1) * 8 + 5, 0, 0},
        /* One input for every output (inputs may overlap). */
        {17, 19, 19, 17, 3, 0, 19 * 17 + 1, 0, 0},
        /* More matrices than the grid's y dimension holds (65535). */
        {2, 3, 3, 2, 70000, 7, 9, 0, 0},
    };
    if (!ready())
        return;
    group_begin();
    for (size_t d = 0; d < 4; d++)
        for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
            struct tcase c =
                make_case(dts[d], cases[k].rows, cases[k].cols, cases[k].ld_in, cases[k].ld_out);
            c.batch = cases[k].batch;
            c.stride_in = cases[k].stride_in;
            c.stride_out = cases[k].stride_out;
            c.in_off = cases[k].in_off;
            c.out_off = cases[k].out_off;
            c.batched = 1;
            run_case(c, NULL, 0);
        }
    group_end();
}

/* ## Pitched memory */
TEST(transpose_pitched)
{
    static const int dts[] = {CUSPEC_U8, CUSPEC_F16, CUSPEC_F32, CUSPEC_F64};
    static const size_t shapes[][2] = {{1023, 1025}, {33, 31}, {1000, 1}, {1, 1000}, {3, 5}};
    if (!ready())
        return;
    group_begin();
    for (size_t d = 0; d < 4; d++)
        for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
            struct tcase c = make_case(dts[d], shapes[s][0], shapes[s][1], 0, 0);
            c.pitched = 1;
            run_case(c, NULL, 0);
        }
    group_end();
}

/* ## Sampled specializations */
TEST(transpose_variants_sampled)
{
    static const size_t tiled[][2] = {{33, 31}, {1023, 1025}, {4096, 4096}};
    /* the narrow kernel's: wide and tall, edges of its chunks */
    static const size_t narrow[][2] = {{3, 1000}, {1000, 31}, {32, 4099}};
    if (!ready())
        return;
    group_begin();
    int p_vec = param_index(&cuspec__family_transpose, "vec");
    if (p_vec < 0 || sample.n == 0) {
        TAP_FAIL("no sample (kernels_compile failed)");
        return;
    }
    /* The dtypes the family is specialized for, and one public dtype of
     * each size to describe the case with. */
    int p_shift = param_index(&cuspec__family_transpose, "shift");
    int p_kernel = param_index(&cuspec__family_transpose, "kernel");
    int misfits = 0, shifted = 0, narrowed = 0;
    for (size_t k = 0; k < sample.n; k++) {
        const struct cuspec__variant *v = &sample.v[k];
        size_t vec = (size_t)v->p[p_vec];
        shifted += v->p[p_shift] != 0;
        /* shifted 1- and 2-byte kernels take any alignment */
        int any = v->p[p_shift] && cuspec_dtype_size(v->dtype) < 4;
        int is_narrow = v->p[p_kernel] == 2;
        narrowed += is_narrow;
        const size_t(*shapes)[2] = is_narrow ? narrow : tiled;
        size_t n_shapes = is_narrow ? sizeof narrow / sizeof *narrow : sizeof tiled / sizeof *tiled;
        for (size_t s = 0; s < n_shapes; s++) {
            size_t rows = shapes[s][0], cols = shapes[s][1];
            struct tcase c = make_case(v->dtype, rows, cols, cols, rows);
            /* the narrow kernel's vectors run along its planar side only */
            size_t planar = rows <= 32 ? cols : rows;
            if (is_narrow ? planar % vec != 0 : !any && (cols % vec != 0 || rows % vec != 0)) {
                /* The vector width does not fit: refused, nothing written. */
                run_case(c, v, 1);
                misfits++;
                c.ld_in = round_up(cols, 16);
                c.ld_out = round_up(rows, 16);
            }
            run_case(c, v, 0);
            if (s == 0) {
                /* Bases moved by whole vectors, padded rows; single
                 * elements and odd rows for kernels that take any. */
                c.in_off = any ? 1 : vec;
                c.out_off = any ? 3 : 2 * vec;
                c.ld_in = round_up(cols, 16) + 16 + any;
                c.ld_out = round_up(rows, 16) + 32 + 3 * any;
                run_case(c, v, 0);
            }
        }
    }
    CHECK(misfits > 0);
    CHECK(shifted > 0);
    CHECK(narrowed > 0);
    group_end();
}

/* ## Chains: each transpose reads what the one before wrote
 * On sm_90 and later the kernels launch with programmatic stream
 * serialization, so a kernel's blocks may start before the one before it
 * has finished: each must wait for it before reading. Sixteen transposes,
 * a -> b -> a, rows x cols and back, each small enough to launch that way,
 * on a stream and then captured in a graph that is launched twice; a must
 * come back as it was. */
static void chain(CUstream stream, CUdeviceptr a, CUdeviceptr b, size_t rows, size_t cols)
{
    for (int i = 0; i < 16; i++) {
        int rc = i % 2 == 0
                     ? cuspec_transpose(ctx, CUSPEC_F32, a, rows, cols, cols, b, rows, stream)
                     : cuspec_transpose(ctx, CUSPEC_F32, b, cols, rows, rows, a, cols, stream);
        if (rc != CUSPEC_OK) {
            CASE_FAIL("transpose %d of the chain: %s: %s", i, cuspec_strerror(rc),
                      cuspec_last_error());
            return;
        }
    }
}

static void chain_check(CUdeviceptr a, const unsigned char *want, unsigned char *got, size_t bytes,
                        const char *how)
{
    CU_OK(drv->cuMemcpyDtoH(got, a, bytes));
    if (memcmp(got, want, bytes) != 0)
        CASE_FAIL("%s: 16 transposes did not give the input back", how);
}

TEST(transpose_chained)
{
    const size_t rows = 700, cols = 1500, bytes = rows * cols * 4;
    if (!ready())
        return;
    group_begin();
    CHECK(2 * bytes <= CUSPEC__PDL_TILED_BYTES);
    /* Kernels compiled for this device wait, and say so, from sm_90 on. */
    int want_pdl = gpu_wants_pdl(ctx);
    for (size_t k = 0; k < sample.n; k++) {
        struct cuspec__kernel kern;
        if (cuspec__function(ctx, NULL, &sample.v[k], &kern) != CUSPEC_OK)
            CASE_FAIL("loading sampled kernel %zu: %s", k, cuspec_last_error());
        else if (kern.pdl != want_pdl)
            CASE_FAIL("sampled kernel %zu: programmatic launch %d on sm_%d, driver %d, want %d", k,
                      kern.pdl, ctx->arch, drv->version, want_pdl);
    }
    printf("# sm_%d: programmatic dependent launch %s\n", ctx->arch, want_pdl ? "on" : "off");
    CUdeviceptr a = 0, b = 0;
    CUstream stream = NULL;
    CUgraph graph = NULL;
    CUgraphExec exec = NULL;
    unsigned char *want = malloc(bytes), *got = malloc(bytes);
    CU_OK(drv->cuMemAlloc(&a, bytes));
    CU_OK(drv->cuMemAlloc(&b, bytes));
    CU_OK(drv->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
    if (a == 0 || b == 0 || stream == NULL || want == NULL || got == NULL) {
        CASE_FAIL("could not allocate the chain's buffers");
        goto done;
    }
    fill_bytes(want, bytes);
    CU_OK(drv->cuMemcpyHtoD(a, want, bytes));
    chain(stream, a, b, rows, cols);
    CU_OK(drv->cuStreamSynchronize(stream));
    chain_check(a, want, got, bytes, "on a stream");

    CU_OK(drv->cuStreamBeginCapture(stream, CU_STREAM_CAPTURE_MODE_RELAXED));
    chain(stream, a, b, rows, cols);
    CU_OK(drv->cuStreamEndCapture(stream, &graph));
    if (graph != NULL)
        CU_OK(drv->cuGraphInstantiateWithFlags(&exec, graph, 0));
    for (int run = 0; exec != NULL && run < 2; run++) {
        CU_OK(drv->cuMemsetD8(b, POISON, bytes));
        CU_OK(drv->cuGraphLaunch(exec, stream));
        CU_OK(drv->cuStreamSynchronize(stream));
        chain_check(a, want, got, bytes, "in a graph");
    }
    if (exec == NULL)
        CASE_FAIL("the chain could not be captured in a graph");
done:
    if (exec != NULL)
        drv->cuGraphExecDestroy(exec);
    if (graph != NULL)
        drv->cuGraphDestroy(graph);
    if (stream != NULL)
        drv->cuStreamDestroy(stream);
    drv->cuMemFree(a);
    drv->cuMemFree(b);
    free(want);
    free(got);
    group_end();
}

/* ## Bad arguments: an error, its detail, nothing written */
#define BAD_BYTES (1u << 20)
static CUdeviceptr bad_in, bad_out;

/* After a call that wrote out (a device that reads pageable memory). */
static void repoison_bad_out(void)
{
    CU_OK(drv->cuMemsetD8(bad_out, POISON, BAD_BYTES));
}

static void expect_invalid(int rc, const char *what, const char *detail)
{
    check_refused(rc, what, detail);
    if (!device_untouched(bad_in, BAD_BYTES, POISON) ||
        !device_untouched(bad_out, BAD_BYTES, POISON)) {
        CASE_FAIL("%s: memory was written (or could not be read back)", what);
        CU_OK(drv->cuMemsetD8(bad_in, POISON, BAD_BYTES));
        CU_OK(drv->cuMemsetD8(bad_out, POISON, BAD_BYTES));
    }
}

TEST(transpose_bad_arguments)
{
    if (!ready())
        return;
    group_begin();
    CU_OK(drv->cuMemAlloc(&bad_in, BAD_BYTES));
    CU_OK(drv->cuMemAlloc(&bad_out, BAD_BYTES));
    if (bad_in == 0 || bad_out == 0)
        return;
    CU_OK(drv->cuMemsetD8(bad_in, POISON, BAD_BYTES));
    CU_OK(drv->cuMemsetD8(bad_out, POISON, BAD_BYTES));
    const CUdeviceptr in = bad_in, out = bad_out;
    const int F32 = CUSPEC_F32;
    const unsigned long long huge = 1ull << 33;

    expect_invalid(cuspec_transpose(NULL, F32, in, 4, 5, 5, out, 4, NULL), "ctx NULL", "ctx");
    expect_invalid(cuspec_transpose(ctx, F32, 0, 4, 5, 5, out, 4, NULL), "in NULL", "in is NULL");
    expect_invalid(cuspec_transpose(ctx, F32, in, 4, 5, 5, 0, 4, NULL), "out NULL", "out is NULL");
    expect_invalid(cuspec_transpose(ctx, F32, in, 0, 5, 5, out, 4, NULL), "rows 0", "rows is zero");
    expect_invalid(cuspec_transpose(ctx, F32, in, 4, 0, 5, out, 4, NULL), "cols 0", "cols is zero");
    expect_invalid(cuspec_transpose_batched(ctx, F32, in, 4, 5, 5, 20, out, 4, 20, 0, NULL),
                   "batch 0", "batch is zero");
    expect_invalid(cuspec_transpose(ctx, F32, in, 4, 5, 4, out, 4, NULL), "ld_in < cols", "ld_in");
    expect_invalid(cuspec_transpose(ctx, F32, in, 4, 5, 5, out, 3, NULL), "ld_out < rows",
                   "ld_out");
    expect_invalid(cuspec_transpose(ctx, F32, in, 4, 5, 5, in + 64, 4, NULL), "out inside in",
                   "overlap");
    expect_invalid(cuspec_transpose(ctx, F32, in + 16, 4, 5, 5, in, 4, NULL), "in inside out",
                   "overlap");
    expect_invalid(cuspec_transpose(ctx, F32, in, 4, 5, 5, in, 4, NULL), "in == out", "overlap");
    expect_invalid(
        cuspec_transpose_batched(ctx, F32, in, 4, 5, 5, 20, in + 3 * 20 * 4 - 4, 4, 20, 3, NULL),
        "batched out overlapping the last input", "overlap");
    expect_invalid(cuspec_transpose(ctx, F32, in, huge, huge, huge, out, huge, NULL),
                   "rows = cols = 2^33", "overflow");
    expect_invalid(cuspec_transpose(ctx, F32, in, 1, 1ull << 62, 1ull << 62, out, 1, NULL),
                   "cols = 2^62 of 4 bytes", "overflow");
    expect_invalid(cuspec_transpose_batched(ctx, F32, in, 4, 5, 5, 1ull << 62, out, 4, 20, 8, NULL),
                   "stride_in = 2^62, batch 8", "overflow");
    expect_invalid(cuspec_transpose_batched(ctx, F32, in, 4, 5, 5, 20, out, 4, 19, 3, NULL),
                   "stride_out one short", "stride_out");
    expect_invalid(cuspec_transpose_batched(ctx, F32, in, 4, 5, 5, 20, out, 4, 0, 2, NULL),
                   "stride_out 0", "stride_out");
    const int bad_dtypes[] = {0, -1, 13, 999};
    for (size_t i = 0; i < sizeof bad_dtypes / sizeof *bad_dtypes; i++) {
        char what[64];
        snprintf(what, sizeof what, "dtype %d", bad_dtypes[i]);
        expect_invalid(cuspec_transpose(ctx, bad_dtypes[i], in, 4, 5, 5, out, 4, NULL), what,
                       "unknown dtype");
    }
    expect_invalid(cuspec_transpose(ctx, F32, in + 1, 4, 5, 5, out, 4, NULL), "f32 in+1",
                   "not aligned");
    expect_invalid(cuspec_transpose(ctx, CUSPEC_F64, in, 4, 5, 5, out + 4, 4, NULL), "f64 out+4",
                   "not aligned");
    expect_invalid(cuspec_transpose(ctx, CUSPEC_F16, in + 1, 4, 5, 5, out, 4, NULL), "f16 in+1",
                   "not aligned");

    /* Host memory from malloc is no device memory. */
    unsigned char *host = malloc(4096);
    if (host != NULL) {
        memset(host, POISON, 4096);
        CUdeviceptr hp = ((CUdeviceptr)(uintptr_t)host + 15) & ~(CUdeviceptr)15;
        check_malloc_pointer(cuspec_transpose(ctx, F32, hp, 4, 5, 5, out, 4, NULL), "malloc'd in",
                             expect_invalid, repoison_bad_out);
        if (check_malloc_pointer(cuspec_transpose(ctx, F32, in, 4, 5, 5, hp, 4, NULL),
                                 "malloc'd out", expect_invalid, NULL))
            check_host_untouched(host, 4096, POISON, "malloc'd out");
        free(host);
    }
    drv->cuMemFree(bad_in);
    drv->cuMemFree(bad_out);
    bad_in = bad_out = 0;
    group_end();
}

int main(void)
{
    gpu_cases_setup();

    static const struct tap_test tests[] = {
        TAP_ENTRY(kernels_compile),
        TAP_ENTRY(transpose_u8_shapes_layouts),
        TAP_ENTRY(transpose_f16_shapes_layouts),
        TAP_ENTRY(transpose_f32_shapes_layouts),
        TAP_ENTRY(transpose_f64_shapes_layouts),
        TAP_ENTRY(transpose_3x1e7),
        TAP_ENTRY(transpose_batched),
        TAP_ENTRY(transpose_pitched),
        TAP_ENTRY(transpose_variants_sampled),
        TAP_ENTRY(transpose_chained),
        TAP_ENTRY(transpose_bad_arguments),
    };
    int rc = tap_run(tests, sizeof tests / sizeof *tests);

    free(sample.v);
    if (ctx != NULL) {
        cuspec__ctx_leave(ctx, ctx_pushed);
        cuspec_ctx_destroy(ctx);
    }
    remove_store();
    return rc;
}
