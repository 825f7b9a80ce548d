/* Contexts (context.c): the context's insides, its module table and
 * launches, shared by the files that launch kernels. Internal. */
#ifndef CUSPEC_CONTEXT_H
#define CUSPEC_CONTEXT_H

#include "catalogue.h"
#include "ops.h"
#include "driver.h"
#include "workspace.h"

#include <pthread.h>
#include <stdatomic.h>

struct cuspec__kernel {
    CUfunction function;
    int blocks_per_sm; /* occupancy of the kernel at its block size (and shared) */
    int pdl;           /* may launch with programmatic stream serialization */
    unsigned shared;   /* dynamic shared memory its launches give it (held_per_sm) */
};

struct cuspec__slot {
    int used;
    struct cuspec__variant v;
    CUmodule module;
    struct cuspec__kernel kernel; /* what cuspec__function hands out */
    uint64_t last_use;
};

/* Parameters a call used for (family, dtype, op, bucket): looked up in the
 * store once, then served from here. */
#define CUSPEC__TUNED_SLOTS 512
struct cuspec__tuned {
    int used;
    int family, dtype, op, bucket;
    int p[CUSPEC__MAX_PARAMS];
    int from_record;
};

/* A kernel a call wanted that cannot be had here, and the one it ran
 * instead (cuspec__function_for). */
#define CUSPEC__FALLBACKS 64
struct cuspec__fallback {
    struct cuspec__variant wanted, used;
};

struct cuspec_ctx {
    cuspec_device_info info;
    char device_id[512]; /* cuspec__device_identity: what tuning records are keyed by */
    int arch;            /* sm_XY as 10*X+Y */
    CUdevice dev;
    CUcontext cu; /* the retained primary context */
    const struct cuspec__driver *drv;

    pthread_mutex_t lock; /* guards everything below */
    struct cuspec__slot *slots;
    size_t n_loaded;
    uint64_t clock;

    struct cuspec__tuned tuned[CUSPEC__TUNED_SLOTS];
    struct cuspec__fallback fallbacks[CUSPEC__FALLBACKS];
    _Atomic unsigned n_fallbacks; /* read without the lock: 0 costs a call nothing */

    pthread_mutex_t ws_lock; /* guards the pool below */
    struct cuspec__ws_slot **ws;
    size_t ws_n, ws_cap;
    size_t ws_next;       /* where the search for a free slot starts */
    CUmemoryPool ws_pool; /* the device's default pool, for captured calls; NULL: none */
    CUstream ws_zero;     /* zeroes the tickets of slots made during a capture */
    unsigned long long ws_marked[CUSPEC__WS_MARKED]; /* capture ids, a ring */
    size_t ws_n_marked;

    CUstream timing; /* the benchmarks' and the tuner's stream, made on first use */
};

/* Makes the context current for this thread; *pushed says whether
 * cuspec__ctx_leave must pop it. */
int cuspec__ctx_enter(cuspec_ctx *ctx, int *pushed);
void cuspec__ctx_leave(cuspec_ctx *ctx, int pushed);

/* Sets the calling thread's stream-capture mode to relaxed, for work that
 * enqueues nothing on a capturing stream (loading a module, allocating), so
 * that a capture in global mode in another thread does not refuse it. 1 when
 * set: cuspec__capture_restore(drv, 1, mode) then puts *mode back. */
int cuspec__capture_relax(const struct cuspec__driver *drv, CUstreamCaptureMode *mode);
void cuspec__capture_restore(const struct cuspec__driver *drv, int relaxed,
                             CUstreamCaptureMode *mode);

/* The kernel of v, loaded in ctx (which must be current): module table,
 * then cuspec__image_get. Records the tier for cuspec_last_launch().
 * `stream`: the call's. Past the table's bound a miss unloads the least
 * recently used modules, after synchronizing the context, unless `stream`
 * is capturing (that would invalidate the capture): then the table holds
 * more until a miss on a stream that is not. */
int cuspec__function(cuspec_ctx *ctx, CUstream stream, const struct cuspec__variant *v,
                     struct cuspec__kernel *k);

/* cuspec__function for a kernel that helps another (a second pass), which
 * cuspec_last_launch does not report. */
int cuspec__helper_function(cuspec_ctx *ctx, CUstream stream, const struct cuspec__variant *v,
                            struct cuspec__kernel *k);
/* For a call on s on `stream`: the kernel of *v, or where *v is in no tier
 * and cannot be compiled here (no NVRTC), that of the first kernel a call
 * on s could choose without a record (cuspec__family_choices) that fits s
 * and is available with its helper, if it has one; then *v becomes that
 * one and cuspec_last_launch says so. The swap is remembered per context. */
int cuspec__function_for(cuspec_ctx *ctx, CUstream stream, const struct cuspec__spec *s,
                         struct cuspec__variant *v, struct cuspec__kernel *k);
/* The search of cuspec__function_for alone, for a call on s that wanted
 * `wanted`, whose kernel (or one it needs) failed with `status`. */
int cuspec__fall_back(cuspec_ctx *ctx, CUstream stream, const struct cuspec__spec *s,
                      const struct cuspec__variant *wanted, int status, struct cuspec__variant *v,
                      struct cuspec__kernel *k);
/* 1 for the statuses of a kernel that cannot be had here (no NVRTC, or one
 * that cannot make this arch, or a block that does not fit the device). */
static inline int cuspec__unavailable(int status)
{
    return status == CUSPEC_ERR_NO_NVRTC || status == CUSPEC_ERR_UNSUPPORTED;
}

/* The stream workloads are timed on (ctx current): one per context. */
int cuspec__ctx_timing_stream(cuspec_ctx *ctx, CUstream *stream);

/* Calls up to these sizes (bytes read + written) launch programmatically
 * where the kernel allows (k->pdl): larger grids placed early spread
 * unevenly (docs/experiments: "Programmatic dependent launch"). Reductions
 * launch so at every size (docs/experiments/reduce.md: "Programmatic
 * dependent launch at every size"). */
#define CUSPEC__PDL_TILED_BYTES (16ULL << 20) /* transposes: one tile per block */
#define CUSPEC__PDL_COPY_BYTES (4ULL << 20)   /* copies: a grid-stride loop */

/* Launch on grid (x, y, z) with the kernel's dynamic shared memory
 * (k->shared) and the error detail naming the kernel; programmatic (where
 * k->pdl) when `programmatic`. */
int cuspec__launch(cuspec_ctx *ctx, const struct cuspec__kernel *k, const struct cuspec__variant *v,
                   const unsigned grid[3], unsigned block, int programmatic, CUstream stream,
                   void **args);

/* Checks that p is device memory of this context's device (or host memory
 * the driver maps), not NULL, and aligned to `align`; `what` names it. */
int cuspec__check_pointer(cuspec_ctx *ctx, cuspec_devptr p, size_t align, const char *what);

#endif /* CUSPEC_CONTEXT_H */
