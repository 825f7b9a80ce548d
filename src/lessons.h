/* The lessons (lessons.c and one file per experiment, lessons_*.c): the
 * kernels of templates/lessons_*.cuh as a family (lessons_family.c), and
 * what the experiments share: loading and launching those kernels, timing
 * with CUDA events, rows of the table. Internal. */
#ifndef CUSPEC_LESSONS_H
#define CUSPEC_LESSONS_H

#include "context.h"

/* The kernels, one family op each: X(id, name expression, template, threads
 * per block). The threads are those of the launch the lesson makes. */
#define CUSPEC__LESSON_KERNELS(X)                                                                  \
    X(TRANSPOSE_NAIVE, "lessons_transpose_naive<32>", "lessons_transpose.cuh", 1024)               \
    X(TRANSPOSE_COALESCED, "lessons_transpose_coalesced<32>", "lessons_transpose.cuh", 1024)       \
    X(TRANSPOSE_PADDED, "lessons_transpose_padded<32>", "lessons_transpose.cuh", 1024)             \
    X(TRANSPOSE_UNROLLED, "lessons_transpose_unrolled<32, 8>", "lessons_transpose.cuh", 256)       \
    X(REDUCE0, "lessons_reduce0", "lessons_reduce.cuh", 256)                                       \
    X(REDUCE1, "lessons_reduce1", "lessons_reduce.cuh", 256)                                       \
    X(REDUCE2, "lessons_reduce2", "lessons_reduce.cuh", 256)                                       \
    X(REDUCE3, "lessons_reduce3", "lessons_reduce.cuh", 256)                                       \
    X(REDUCE4, "lessons_reduce4", "lessons_reduce.cuh", 256)                                       \
    X(REDUCE5, "lessons_reduce5<256>", "lessons_reduce.cuh", 256)                                  \
    X(OFFSET, "lessons_offset", "lessons_access.cuh", 256)                                         \
    X(STRIDE, "lessons_stride", "lessons_access.cuh", 256)                                         \
    X(REVERSE_GLOBAL, "lessons_reverse_global", "lessons_access.cuh", 256)                         \
    X(REVERSE_SHARED, "lessons_reverse_shared", "lessons_access.cuh", 256)                         \
    X(REGISTERS, "lessons_registers", "lessons_memory.cuh", 256)                                   \
    X(SHARED, "lessons_shared", "lessons_memory.cuh", 256)                                         \
    X(READ, "lessons_read", "lessons_memory.cuh", 256)                                             \
    X(CONSTANT_UNIFORM, "lessons_constant_uniform", "lessons_memory.cuh", 256)                     \
    X(CONSTANT_DIVERGENT, "lessons_constant_divergent", "lessons_memory.cuh", 256)                 \
    X(DOT, "lessons_dot<256>", "lessons_dot.cuh", 256)                                             \
    X(PRODUCTS, "lessons_products", "lessons_dot.cuh", 256)                                        \
    X(PAIRWISE, "lessons_pairwise", "lessons_dot.cuh", 256)

enum {
#define CUSPEC__LESSON_KERNEL_ID(id, expr, file, threads) CUSPEC__LK_##id,
    CUSPEC__LESSON_KERNELS(CUSPEC__LESSON_KERNEL_ID)
#undef CUSPEC__LESSON_KERNEL_ID
        CUSPEC__LK_COUNT
};

/* The symbol of the constant kernels' table (lessons_memory.cuh) and its
 * length in floats. */
#define CUSPEC__LESSON_CONSTANT "lessons_constant_data"
#define CUSPEC__LESSON_CONSTANT_FLOATS 1024

/* One lesson being run: where its table goes, its progress, and the
 * kernel loaded last. */
struct cuspec__lesson_run {
    cuspec_ctx *ctx;
    const struct cuspec__driver *drv;
    cuspec_lesson_table *table;
    cuspec_progress_fn progress;
    void *user;
    unsigned done, total; /* rows measured, of how many */
    int reps;             /* timed runs per row */
};

/* The experiments (lessons_transpose.c, ...): fill r->table for problem
 * size `size` (checked against the lesson's range). */
int cuspec__lesson_transpose(struct cuspec__lesson_run *r, size_t size);
int cuspec__lesson_reduce(struct cuspec__lesson_run *r, size_t size);
int cuspec__lesson_coalescing(struct cuspec__lesson_run *r, size_t size);
int cuspec__lesson_reverse(struct cuspec__lesson_run *r, size_t size);
int cuspec__lesson_memory(struct cuspec__lesson_run *r, size_t size);
int cuspec__lesson_dot(struct cuspec__lesson_run *r, size_t size);

/* ## What the experiments share (lessons_run.c) */

/* Lesson kernel `id` loaded in the run's context (current). */
int cuspec__lesson_kernel(struct cuspec__lesson_run *r, int id, struct cuspec__kernel *k);
/* Launches k on the legacy stream: grid (gx, gy), block (bx, by), `smem`
 * bytes of dynamic shared memory; the error names kernel `id`. */
int cuspec__lesson_launch(struct cuspec__lesson_run *r, int id, const struct cuspec__kernel *k,
                          unsigned gx, unsigned gy, unsigned bx, unsigned by, unsigned smem,
                          void **args);
/* The median time of r->reps calls of fn(arg) on the legacy stream, each
 * between CUDA events, after one warm-up call, in milliseconds. */
int cuspec__lesson_time(struct cuspec__lesson_run *r, int (*fn)(void *), void *arg, double *ms);
/* Milliseconds of the host's monotonic clock (the CPU rows). */
double cuspec__lesson_now_ms(void);

/* Device memory of `bytes` in *p (freed with cuspec__lesson_free), after
 * checking that it fits the memory free now: CUSPEC_ERR_UNSUPPORTED naming
 * `what` and the sizes, where --size could be smaller. */
int cuspec__lesson_alloc(struct cuspec__lesson_run *r, CUdeviceptr *p, size_t bytes,
                         const char *what);
void cuspec__lesson_free(struct cuspec__lesson_run *r, CUdeviceptr *p);
/* Copies between host and device, failures naming `what`. */
int cuspec__lesson_upload(struct cuspec__lesson_run *r, CUdeviceptr dst, const void *src,
                          size_t bytes, const char *what);
int cuspec__lesson_download(struct cuspec__lesson_run *r, void *dst, CUdeviceptr src, size_t bytes,
                            const char *what);

/* Appends a row (series, label and note as given, NULL for none) and
 * reports it to the progress function as it starts. Each lesson makes at
 * most CUSPEC_LESSON_MAX_ROWS rows, which its file asserts. */
cuspec_lesson_row *cuspec__lesson_row(struct cuspec__lesson_run *r, int kind, const char *series,
                                      const char *label, const char *note);
/* A timed row: ms and, over `bytes`, GB/s. */
void cuspec__lesson_set_time(cuspec_lesson_row *row, double ms, double bytes);
/* The ceiling's rows over copies of `bytes` (cuspec_bench_copy, on buffers
 * of its own, checked), GB/s counting them read and written: with
 * `kernel`, cuspec_copy's (the lesson's cuspec row), then the memcpy's. */
int cuspec__lesson_copy_rows(struct cuspec__lesson_run *r, const char *series, size_t bytes,
                             int kernel);
/* The row of cuspec's own call, from its benchmark: CUSPEC_ERR_CUDA when the
 * benchmark's check failed. */
int cuspec__lesson_cuspec_row(struct cuspec__lesson_run *r, const char *series, const char *label,
                              const char *note, const cuspec_bench_result *b);
/* The failure of a kernel whose result is wrong: CUSPEC_ERR_CUDA, saying
 * which kernel, at which size and what differs (printf-style). */
int cuspec__lesson_wrong(int id, const char *fmt, ...) CUSPEC__PRINTF(2, 3);

/* The name expression of lesson kernel `id`. */
const char *cuspec__lesson_kernel_name(int id);

#endif /* CUSPEC_LESSONS_H */
