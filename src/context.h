/* The context's insides, shared by the files that launch kernels. */
#ifndef CUSPEC_CONTEXT_H
#define CUSPEC_CONTEXT_H

#include "catalogue.h"
#include "driver.h"

#include <pthread.h>
#include <stdatomic.h>

struct cuspec__kernel {
    CUfunction function;
    int blocks_per_sm; /* occupancy of the kernel at its block size */
    int pdl;           /* may launch with programmatic stream serialization */
};

struct cuspec__slot {
    int used;
    struct cuspec__variant v;
    CUmodule module;
    struct cuspec__kernel kernel; /* what cuspec__function hands out */
    uint64_t last_use;
};

/* Device scratch of reductions (workspace.c): CUSPEC__WS_PARTIALS 8-byte
 * partials, then a 4-byte ticket that is zero between launches. Calls on a
 * stream that is not capturing take a slot of the context's pool; calls
 * being captured take a slot that the graph owns until it is destroyed. */
#define CUSPEC__WS_PARTIALS 4096 /* the largest grid */
#define CUSPEC__WS_MARKED 64     /* captures known to hold their graph-memory marker */

struct cuspec__ws_slot {
    CUdeviceptr mem;
    CUevent done;             /* recorded on the stream after each call that used it */
    unsigned long long owner; /* cuStreamGetId of that stream */
    int users;                /* calls between cuspec__scratch_take and _give */
    int kept;                 /* an event record failed: only `owner` may use it again */
    _Atomic int in_graph;     /* a graph owns it: until the graph's user object goes */
};

/* The scratch one call uses: a pool slot, or memory of the graph being
 * captured where the driver cannot tell the capture's graph (before 12.3). */
struct cuspec__scratch {
    CUdeviceptr partials, ticket;
    struct cuspec__ws_slot *slot;
    CUdeviceptr graph;
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

/* The kernel of v, loaded in ctx (which must be current): module table,
 * then cuspec__image_get. Records the tier for cuspec_last_launch(). */
int cuspec__function(cuspec_ctx *ctx, const struct cuspec__variant *v, struct cuspec__kernel *k);

/* The stream workloads are timed on (ctx current): one per context. */
int cuspec__ctx_timing_stream(cuspec_ctx *ctx, CUstream *stream);

/* Workspace (workspace.c). Called with the context current. */
int cuspec__workspace_init(cuspec_ctx *ctx);
void cuspec__workspace_free(cuspec_ctx *ctx);
/* Scratch for one call on `stream` of `parts` partials (at most
 * CUSPEC__WS_PARTIALS), with a zero ticket when `ticket`. On a stream that
 * is capturing, an allocation (and the ticket's memset) captured into the
 * graph; else a slot of the pool that no call that may still run uses:
 * the stream's own, one whose last call has completed, or a new one. */
int cuspec__scratch_take(cuspec_ctx *ctx, CUstream stream, unsigned parts, int ticket,
                         struct cuspec__scratch *s);
/* After the call's launches on `stream` (whether they succeeded or not):
 * marks the slot busy until they complete, or frees the graph's allocation
 * after them. */
int cuspec__scratch_give(cuspec_ctx *ctx, CUstream stream, struct cuspec__scratch *s);

/* Calls up to these sizes (bytes read + written) launch programmatically
 * where the kernel allows (k->pdl): their blocks are placed while the kernel
 * before them drains. Larger ones do not: placed early, the blocks of a grid
 * of one or two waves, or of a grid sized to the SMs that strides over its
 * input (reduce, copy), spread unevenly over the SMs that free first. On an
 * H200, back to back in a graph: transposes at 1024^2 f32 4.2 -> 3.4 us, u8
 * 2048^2 4.5 -> 3.6, sums of 2^20 f32 4.2 -> 3.9; but u8 4096^2 (32 MB)
 * 10.5 -> 12.8, f32 sums of 2^22 (16 MB) 7.2 -> 7.5, of 2^24 18.0 -> 20.4. */
#define CUSPEC__PDL_TILED_BYTES (16ULL << 20)  /* transposes: one tile per block */
#define CUSPEC__PDL_STRIDED_BYTES (4ULL << 20) /* reduce, copy: grid-stride loops */

/* Launch on grid (x, y, z) with the error detail naming the kernel;
 * programmatic (where k->pdl) when `programmatic`. */
int cuspec__launch(cuspec_ctx *ctx, const struct cuspec__kernel *k, const struct cuspec__variant *v,
                   const unsigned grid[3], unsigned block, int programmatic, CUstream stream,
                   void **args);

/* The variant cuspec_copy runs on sm_`arch`. */
void cuspec__copy_default(int arch, struct cuspec__variant *v);
/* Runs copy variant v (the benchmark's ceiling and the tuner use this
 * directly); the context must be current. */
int cuspec__copy_variant(cuspec_ctx *ctx, const struct cuspec__variant *v, cuspec_devptr dst,
                         cuspec_devptr src, size_t bytes, CUstream stream);

/* Checks that p is device memory of this context's device (or host memory
 * the driver maps), not NULL, and aligned to `align`; `what` names it. */
int cuspec__check_pointer(cuspec_ctx *ctx, cuspec_devptr p, size_t align, const char *what);

/* The transpose family's operation hooks (transpose_ops.c). */
extern const struct cuspec__family_ops cuspec__transpose_ops;

/* A transpose's arguments, in elements. */
struct cuspec__shape {
    cuspec_devptr in, out;
    unsigned long long rows, cols, ld_in, ld_out, stride_in, stride_out, batch;
};
/* The kernel dtype standing for `dtype` (the unsigned type of its size), and
 * the shape's alignment class: the largest power of two of elements, up to
 * one 32-byte sector, that its pointers, leading dimensions and strides are
 * multiples of. Vectors up to that width fit; below a sector, output rows
 * may be shifted. Tuning records are keyed by it. */
int cuspec__transpose_dtype(int dtype);
int cuspec__transpose_align(const struct cuspec__shape *s, int kdtype);
/* A benchmark's or tuner's layout: leading dimensions of 0 become the row
 * lengths; CUSPEC_ERR_INVALID (with the detail) where one is less than its
 * row or the padded matrices would not fit in memory. */
int cuspec__transpose_layout(unsigned long long rows, unsigned long long cols,
                             unsigned long long *ld_in, unsigned long long *ld_out, size_t size);
/* 1 when a rows x cols matrix takes the narrow kernel (at most 31 rows or
 * columns): neither the tiled defaults nor tuning records apply, and its
 * alignment class is the narrow kernel's (its planar side, up to 16 bytes). */
int cuspec__transpose_narrow(unsigned long long rows, unsigned long long cols);
/* Fits v to the shape s describes (its alignment class, rows and cols):
 * narrows its vectors to s->align elements, and unless v came from a tuning
 * record (made for this class), replaces defaults whose vectors do not fit
 * with the misaligned defaults (by size) and shifts output rows to sectors
 * where they do not start on one. */
void cuspec__transpose_fit(struct cuspec__variant *v, const struct cuspec__spec *s,
                           int from_record);
/* The parameters a call on the shape s describes uses: the tuning record
 * for its bucket (or a near one), else the defaults, fitted to s; narrow
 * shapes look for no record. Returns 1 when they came from a record. */
int cuspec__transpose_params(cuspec_ctx *ctx, const struct cuspec__spec *s,
                             struct cuspec__variant *v);
/* Runs transpose variant v on checked arguments; CUSPEC_ERR_INVALID when v's
 * vector width does not fit them. The context must be current. */
int cuspec__transpose_variant(cuspec_ctx *ctx, const struct cuspec__variant *v,
                              const struct cuspec__shape *s, CUstream stream);

/* Runs reduce variant v (dot when v->op is 3, with b); the context must be
 * current and the arguments checked. */
int cuspec__reduce_variant(cuspec_ctx *ctx, const struct cuspec__variant *v, cuspec_devptr a,
                           cuspec_devptr b, size_t n, cuspec_devptr out, CUstream stream);
/* The same on scratch the caller took with cuspec__scratch_take (a whole
 * slot, with its ticket) and keeps until every launch that uses it is over:
 * the tuner's graphs, which it alone launches, time kernels as direct calls
 * run them. */
int cuspec__reduce_variant_on(cuspec_ctx *ctx, const struct cuspec__variant *v, cuspec_devptr a,
                              cuspec_devptr b, size_t n, cuspec_devptr out, CUstream stream,
                              const struct cuspec__scratch *held);

#endif
