/* Workloads: one operation on fresh random inputs of a given size, with
 * device buffers, a CPU reference, a correctness check and CUDA-event
 * timing. The benchmarks and the tuner both run through these. Internal. */
#ifndef CUSPEC_WORKLOAD_H
#define CUSPEC_WORKLOAD_H

#include "ops.h"

struct cuspec__workload;

/* Called after each checked run with the device output, before it is read
 * back: tests use it to make one candidate deliberately wrong. */
typedef void (*cuspec__after_run_fn)(void *user, const struct cuspec__variant *v, CUdeviceptr out,
                                     size_t bytes);

/* Allocates and fills the inputs for spec, as its family's io hook says.
 * Inputs are rotated through a pool four times the L2 size when one call's
 * data is smaller. spec's family must have operation hooks. */
int cuspec__workload_create(cuspec_ctx *ctx, const struct cuspec__spec *spec,
                            struct cuspec__workload **w);
void cuspec__workload_destroy(struct cuspec__workload *w);
void cuspec__workload_set_hook(struct cuspec__workload *w, cuspec__after_run_fn fn, void *user);

/* Bytes one call must move (read + written), as GB/s counts them. */
double cuspec__workload_bytes(const struct cuspec__workload *w);

/* The input slices calls rotate through (1 where one input is larger than
 * the pool's 4 x L2). */
unsigned cuspec__workload_slices(const struct cuspec__workload *w);

/* Runs variant v (NULL: the public call, with whatever parameters it picks)
 * once on poisoned output and compares with the CPU reference: *correct,
 * and for floats *error = |got - ref| / sum|x|. */
int cuspec__workload_check(struct cuspec__workload *w, const struct cuspec__variant *v,
                           int *correct, double *error);

/* Times v (NULL: the public call) on the context's timing stream: warm-up,
 * `reps` calls each between events (median and spread), then with `batch`
 * the mean per call over calls back to back, enqueued one by one (batch_us)
 * and captured in a CUDA graph launched once after an L2 flush
 * (graph_us). Fills the timing fields and gbs of r. */
int cuspec__workload_time(struct cuspec__workload *w, const struct cuspec__variant *v, int reps,
                          int batch, cuspec_bench_result *r);

/* Operations with a copy ceiling (cuspec__io's copy_bytes): the median per
 * call, timed as cuspec__workload_time does, of copying those bytes (one
 * input slice to one output slice, the slices rotated the same way), the
 * better of cuMemcpyDtoDAsync and cuspec_copy: what moving this many bytes
 * costs on this device, ramp-up and tail included. Others: *us = 0. */
int cuspec__workload_copy_time(struct cuspec__workload *w, int reps, double *us);

/* The device's time per call of v in a CUDA graph of `calls` calls on
 * rotated inputs, launched `launches` (3 to 1000) times with the L2 flushed
 * before each: the median over the launches, and their spread (p90 - p10
 * over the median), after cuspec__workload_time has run v (so that
 * everything is loaded). */
int cuspec__workload_graph_time(struct cuspec__workload *w, const struct cuspec__variant *v,
                                int calls, int launches, double *us, double *spread);

/* The median time of `reps` (3 to 200) calls of fn(arg), each between CUDA
 * events on the legacy stream, after two warm-up calls, in microseconds
 * (bench.c). */
int cuspec__event_median(cuspec_ctx *ctx, int (*fn)(void *), void *arg, int reps, double *us);

/* Fills n elements of buf with fresh random values valid for dtype (floats
 * in [-1, 1), integers over their range), reseeded from the clock. */
void cuspec__random_fill(void *buf, size_t n, int dtype);
/* Fills `bytes` bytes of buf with fresh random bits. */
void cuspec__random_bytes(void *buf, size_t bytes);

#endif
