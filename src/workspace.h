/* Device scratch of reductions (workspace.c): CUSPEC__WS_BYTES of partial
 * results, then CUSPEC__WS_TICKETS 4-byte tickets that are zero between
 * launches (a whole-array reduction uses the first CUSPEC__WS_WHOLE_TICKETS,
 * a split axis reduction one per row or column tile, up to 1024 of them,
 * and few long rows' argmin/argmax CUSPEC__WS_WHOLE_TICKETS per row). Calls on a stream
 * that is not capturing take a slot of the context's pool; calls being
 * captured take a slot that the graph owns until it is destroyed.
 * Internal. */
#ifndef CUSPEC_WORKSPACE_H
#define CUSPEC_WORKSPACE_H

#include "driver.h"

#define CUSPEC__WS_PARTIALS 4096 /* the largest grid of a whole-array reduction */
/* Axis reductions split over blocks keep a partial per block and column
 * (docs/experiments/reduce_axis.md: "Scratch"). */
#define CUSPEC__WS_BYTES (256 * 1024)
#define CUSPEC__WS_TICKETS 4096
/* A whole-array reduction's: its ticket, then (8-byte aligned) the word its
 * blocks combine in (templates/reduce.cuh, WORKSPACE). */
#define CUSPEC__WS_WHOLE_TICKETS 4
#define CUSPEC__WS_MARKED 64 /* captures known to hold their graph-memory marker */

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

/* Called with the context current. */
int cuspec__workspace_init(cuspec_ctx *ctx);
void cuspec__workspace_free(cuspec_ctx *ctx);
/* Scratch for one call on `stream` of `parts` 8-byte partials (at most
 * CUSPEC__WS_BYTES / 8), with `tickets` zero tickets (at most
 * CUSPEC__WS_TICKETS). On a stream that
 * is capturing, an allocation (and the ticket's memset) captured into the
 * graph; else a slot of the pool that no call that may still run uses:
 * the stream's own, one whose last call has completed, or a new one. */
int cuspec__scratch_take(cuspec_ctx *ctx, CUstream stream, unsigned parts, int tickets,
                         struct cuspec__scratch *s);
/* After the call's launches on `stream` (whether they succeeded or not):
 * marks the slot busy until they complete, or frees the graph's allocation
 * after them. */
int cuspec__scratch_give(cuspec_ctx *ctx, CUstream stream, struct cuspec__scratch *s);

#endif /* CUSPEC_WORKSPACE_H */
