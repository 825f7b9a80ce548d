/* Reductions' device scratch (partials and tickets), handed out so that no
 * two calls that may run at the same time share any (DESIGN.md "Scratch,
 * streams and graphs"):
 * - A call on a stream that is not capturing takes a slot of a pool that
 *   grows on demand. A slot stays with the stream of its last call, known
 *   by cuStreamGetId (ids are never reused, unlike handles); after each
 *   call an event is recorded on that stream, and once it has completed the
 *   slot may go to another stream. So the pool is about as large as the
 *   number of streams busy at once, and a stream that keeps its slot pays
 *   no query.
 * - A call on a capturing stream takes a slot of its own that the graph
 *   owns (a user object releases it when the graph and its executables are
 *   destroyed): the kernels reset their tickets after each launch, so no node
 *   is added before them. Each graph also gets one small allocation node and
 *   its free node, apart from everything else: CUDA then refuses a second
 *   executable of it while one exists, so that two executables of one graph,
 *   which would share its slots, never run at the same time
 *   (docs/experiments/reduce.md: "Scratch in graphs").
 * - Before CUDA 12.3 the capture's graph cannot be named (no
 *   cuStreamGetCaptureInfo v3 here), so a captured call allocates its scratch
 *   in the graph through the stream, and memsets its tickets, at that cost. */
#include "workspace.h"
#include "context.h"
#include "error.h"
#include "driver.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define SLOT_BYTES (TICKET_AT(CUSPEC__WS_BYTES / 8) + 4 * CUSPEC__WS_TICKETS)
/* The tickets' offset after `parts` 8-byte partials. */
#define TICKET_AT(parts) (((CUdeviceptr)(parts)*8 + 255) & ~(CUdeviceptr)255)

int cuspec__workspace_init(cuspec_ctx *ctx)
{
    /* Without memory pools (some virtualised devices) only captured
     * reductions fail, and say why. */
    if (ctx->drv->cuDeviceGetDefaultMemPool(&ctx->ws_pool, ctx->dev) != CUDA_SUCCESS)
        ctx->ws_pool = NULL;
    return CUSPEC_OK;
}

void cuspec__workspace_free(cuspec_ctx *ctx)
{
    for (size_t i = 0; i < ctx->ws_n; i++) {
        struct cuspec__ws_slot *w = ctx->ws[i];
        ctx->drv->cuEventDestroy(w->done);
        ctx->drv->cuMemFree(w->mem);
        /* A graph that outlives the context (its kernels are unloaded too:
         * it must not run again) still holds the slot's user object, whose
         * release writes to it: the host struct is left to it. */
        if (!atomic_load(&w->in_graph))
            free(w);
    }
    if (ctx->ws_zero != NULL)
        ctx->drv->cuStreamDestroy(ctx->ws_zero);
    free(ctx->ws);
    ctx->ws = NULL;
    ctx->ws_n = ctx->ws_cap = 0;
}

/* Before 12.3: the scratch allocated through the capturing stream. */
static int graph_alloc(cuspec_ctx *ctx, CUstream stream, unsigned parts, int tickets,
                       struct cuspec__scratch *s)
{
    const struct cuspec__driver *drv = ctx->drv;
    CUSPEC__RETURN_IF(ctx->ws_pool == NULL, CUSPEC_ERR_UNSUPPORTED,
                      "device %d has no stream-ordered memory pool, which a reduction captured "
                      "in a CUDA graph allocates its scratch from",
                      ctx->info.ordinal);
    const CUdeviceptr at = TICKET_AT(parts);
    int rc = cuspec__cu_check(drv->cuMemAllocFromPoolAsync(&s->graph, at + 4 * (CUdeviceptr)tickets,
                                                           ctx->ws_pool, stream),
                              "cuMemAllocFromPoolAsync (scratch in the graph being captured)");
    if (rc != CUSPEC_OK) {
        s->graph = 0;
        return rc;
    }
    s->partials = s->graph;
    if (tickets) {
        s->ticket = s->graph + at;
        rc = cuspec__cu_check(drv->cuMemsetD32Async(s->ticket, 0, (size_t)tickets, stream),
                              "cuMemsetD32Async (tickets in the graph being captured)");
    }
    if (rc != CUSPEC_OK) {
        drv->cuMemFreeAsync(s->graph, stream);
        memset(s, 0, sizeof *s);
    }
    return rc;
}

/* Under ws_lock, a slot of another stream (or released by its graph) that no
 * call holds and whose last call has completed; NULL when there is none (or
 * *rc when a query failed). The search starts after the last slot it gave. */
static struct cuspec__ws_slot *free_slot(cuspec_ctx *ctx, int *rc)
{
    for (size_t k = 0; k < ctx->ws_n; k++) {
        size_t i = (ctx->ws_next + k) % ctx->ws_n;
        struct cuspec__ws_slot *w = ctx->ws[i];
        if (w->users > 0 || w->kept || atomic_load(&w->in_graph))
            continue;
        CUresult r = ctx->drv->cuEventQuery(w->done);
        if (r == CUDA_ERROR_NOT_READY)
            continue;
        if (r != CUDA_SUCCESS) {
            *rc = cuspec__cu_check(r, "cuEventQuery (scratch slot)");
            return NULL;
        }
        ctx->ws_next = i + 1;
        return w;
    }
    return NULL;
}

/* A new slot whose tickets are zeroed on `stream` (NULL: on a stream of the
 * context's own, waited for: the caller's is capturing), before the call's
 * kernels. */
static int new_slot(cuspec_ctx *ctx, CUstream stream, struct cuspec__ws_slot **out)
{
    const struct cuspec__driver *drv = ctx->drv;
    struct cuspec__ws_slot *w = calloc(1, sizeof *w);
    CUSPEC__RETURN_IF(w == NULL, CUSPEC_ERR_NOMEM, "out of host memory (scratch slot)");
    int rc = cuspec__cu_check(drv->cuMemAlloc(&w->mem, SLOT_BYTES), "cuMemAlloc (scratch slot)");
    if (rc == CUSPEC_OK)
        rc = cuspec__cu_check(drv->cuEventCreate(&w->done, CU_EVENT_DISABLE_TIMING),
                              "cuEventCreate (scratch slot)");
    if (rc == CUSPEC_OK && stream == NULL && ctx->ws_zero == NULL)
        rc = cuspec__cu_check(drv->cuStreamCreate(&ctx->ws_zero, CU_STREAM_NON_BLOCKING),
                              "cuStreamCreate (scratch slots)");
    CUstream on = stream != NULL ? stream : ctx->ws_zero;
    if (rc == CUSPEC_OK)
        rc = cuspec__cu_check(drv->cuMemsetD32Async(w->mem + TICKET_AT(CUSPEC__WS_BYTES / 8), 0,
                                                    CUSPEC__WS_TICKETS, on),
                              "cuMemsetD32Async (scratch slot's tickets)");
    if (rc == CUSPEC_OK && stream == NULL)
        rc = cuspec__cu_check(drv->cuStreamSynchronize(on), "cuStreamSynchronize (scratch slot)");
    if (rc == CUSPEC_OK) {
        *out = w;
        return CUSPEC_OK;
    }
    if (w->done != NULL)
        drv->cuEventDestroy(w->done);
    if (w->mem != 0)
        drv->cuMemFree(w->mem);
    free(w);
    return rc;
}

/* Adds w to the pool, held for stream `id`. */
static int add_slot(cuspec_ctx *ctx, struct cuspec__ws_slot *w, unsigned long long id)
{
    int rc = CUSPEC_OK;
    pthread_mutex_lock(&ctx->ws_lock);
    if (ctx->ws_n == ctx->ws_cap) {
        size_t cap = ctx->ws_cap ? 2 * ctx->ws_cap : 16;
        struct cuspec__ws_slot **grown = realloc(ctx->ws, cap * sizeof *grown);
        if (grown == NULL) {
            rc = cuspec__fail(CUSPEC_ERR_NOMEM, "out of host memory (scratch slots)");
        } else {
            ctx->ws = grown;
            ctx->ws_cap = cap;
        }
    }
    if (rc == CUSPEC_OK) {
        w->owner = id;
        w->users = 1;
        ctx->ws[ctx->ws_n++] = w;
    }
    pthread_mutex_unlock(&ctx->ws_lock);
    return rc;
}

/* A slot for stream `id` (0: for the graph being captured on `stream`, which
 * must not be written to): the stream's own, a free one, or a new one. */
static int take_slot(cuspec_ctx *ctx, CUstream stream, unsigned long long id,
                     struct cuspec__ws_slot **out)
{
    const struct cuspec__driver *drv = ctx->drv;
    int rc = CUSPEC_OK;
    pthread_mutex_lock(&ctx->ws_lock);
    struct cuspec__ws_slot *w = NULL;
    for (size_t i = 0; i < ctx->ws_n && w == NULL && id != 0; i++)
        if (ctx->ws[i]->owner == id && !atomic_load(&ctx->ws[i]->in_graph))
            w = ctx->ws[i];
    /* Querying the slots' events and allocating conflict with no capture
     * (the events are never recorded in one, the memory is the context's):
     * allowed even while a thread captures in global mode. */
    CUstreamCaptureMode mode;
    int relaxed = w == NULL && cuspec__capture_relax(drv, &mode);
    if (w == NULL)
        w = free_slot(ctx, &rc);
    if (w != NULL) {
        w->owner = id;
        w->users++;
        atomic_store(&w->in_graph, id == 0);
    }
    pthread_mutex_unlock(&ctx->ws_lock);
    if (w == NULL && rc == CUSPEC_OK) {
        rc = new_slot(ctx, id != 0 ? stream : NULL, &w);
        if (rc == CUSPEC_OK) {
            atomic_store(&w->in_graph, id == 0);
            if ((rc = add_slot(ctx, w, id)) != CUSPEC_OK) {
                /* The tickets' memset may be queued: the memory goes when it is done. */
                drv->cuStreamSynchronize(id != 0 ? stream : ctx->ws_zero);
                drv->cuEventDestroy(w->done);
                drv->cuMemFree(w->mem);
                free(w);
            }
        }
    }
    cuspec__capture_restore(drv, relaxed, &mode);
    if (rc == CUSPEC_OK)
        *out = w;
    return rc;
}

/* A graph's user object gives its slot back: no CUDA call is allowed here,
 * and the work that used the slot is over. */
static void release_slot(void *slot)
{
    atomic_store(&((struct cuspec__ws_slot *)slot)->in_graph, 0);
}

/* Makes sure the capture `id`, whose graph is g, holds the allocation node
 * that keeps its graph to one executable at a time (see the top). */
static int mark_graph(cuspec_ctx *ctx, CUgraph g, unsigned long long id)
{
    const struct cuspec__driver *drv = ctx->drv;
    int marked = 0;
    pthread_mutex_lock(&ctx->ws_lock);
    /* only the entries written: an unwritten 0 is no capture's */
    for (size_t i = 0; i < CUSPEC__WS_MARKED && i < ctx->ws_n_marked && !marked; i++)
        marked = ctx->ws_marked[i] == id;
    pthread_mutex_unlock(&ctx->ws_lock);
    if (marked)
        return CUSPEC_OK;
    CUDA_MEM_ALLOC_NODE_PARAMS p = {0};
    p.poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    p.poolProps.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    p.poolProps.location.id = (int)ctx->dev;
    p.bytesize = 256;
    CUgraphNode alloc, freed;
    int rc = cuspec__cu_check(drv->cuGraphAddMemAllocNode(&alloc, g, NULL, 0, &p),
                              "cuGraphAddMemAllocNode (the graph's one-executable marker)");
    if (rc == CUSPEC_OK)
        rc = cuspec__cu_check(drv->cuGraphAddMemFreeNode(&freed, g, &alloc, 1, p.dptr),
                              "cuGraphAddMemFreeNode (the graph's one-executable marker)");
    if (rc != CUSPEC_OK)
        return cuspec__fail_context(CUSPEC_ERR_UNSUPPORTED,
                                    "a reduction captured in a CUDA graph needs graph memory "
                                    "nodes (memory pools) on device %d",
                                    ctx->info.ordinal);
    pthread_mutex_lock(&ctx->ws_lock);
    ctx->ws_marked[ctx->ws_n_marked++ % CUSPEC__WS_MARKED] = id;
    pthread_mutex_unlock(&ctx->ws_lock);
    return CUSPEC_OK;
}

/* A slot that the graph being captured on `stream` owns from now on. */
static int graph_slot(cuspec_ctx *ctx, CUstream stream, struct cuspec__scratch *s)
{
    const struct cuspec__driver *drv = ctx->drv;
    CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
    cuuint64_t id = 0;
    CUgraph g = NULL;
    const CUgraphNode *deps;
    const CUgraphEdgeData *edges;
    size_t n_deps;
    struct cuspec__ws_slot *w;
    CUuserObject obj;
    int rc = cuspec__cu_check(
        drv->cuStreamGetCaptureInfo(stream, &status, &id, &g, &deps, &edges, &n_deps),
        "cuStreamGetCaptureInfo");
    /* An invalidated capture names no graph (it fails at cuStreamEndCapture). */
    if (rc == CUSPEC_OK && status != CU_STREAM_CAPTURE_STATUS_ACTIVE)
        rc = cuspec__fail(CUSPEC_ERR_CUDA,
                          "the capture on this stream was invalidated before this call (by a "
                          "call that CUDA forbids while a stream captures)");
    if (rc == CUSPEC_OK)
        rc = mark_graph(ctx, g, id);
    if (rc == CUSPEC_OK)
        rc = take_slot(ctx, stream, 0, &w);
    if (rc != CUSPEC_OK)
        return rc;
    rc = cuspec__cu_check(
        drv->cuUserObjectCreate(&obj, w, release_slot, 1, CU_USER_OBJECT_NO_DESTRUCTOR_SYNC),
        "cuUserObjectCreate (scratch slot of a graph)");
    if (rc == CUSPEC_OK)
        rc = cuspec__cu_check(drv->cuGraphRetainUserObject(g, obj, 1, CU_GRAPH_USER_OBJECT_MOVE),
                              "cuGraphRetainUserObject (scratch slot of a graph)");
    pthread_mutex_lock(&ctx->ws_lock);
    w->users--;
    pthread_mutex_unlock(&ctx->ws_lock);
    if (rc != CUSPEC_OK) /* no graph will use it (its capture failed) */
        atomic_store(&w->in_graph, 0);
    else {
        s->partials = w->mem;
        s->ticket = w->mem + TICKET_AT(CUSPEC__WS_BYTES / 8);
    }
    return rc;
}

int cuspec__scratch_take(cuspec_ctx *ctx, CUstream stream, unsigned parts, int tickets,
                         struct cuspec__scratch *s)
{
    const struct cuspec__driver *drv = ctx->drv;
    memset(s, 0, sizeof *s);
    CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
    int rc = cuspec__cu_check(drv->cuStreamIsCapturing(stream, &status), "cuStreamIsCapturing");
    if (rc == CUSPEC_OK && status != CU_STREAM_CAPTURE_STATUS_NONE)
        return drv->cuStreamGetCaptureInfo != NULL ? graph_slot(ctx, stream, s)
                                                   : graph_alloc(ctx, stream, parts, tickets, s);
    unsigned long long id = 0;
    if (rc == CUSPEC_OK)
        rc = cuspec__cu_check(drv->cuStreamGetId(stream, &id), "cuStreamGetId");
    struct cuspec__ws_slot *w;
    if (rc == CUSPEC_OK)
        rc = take_slot(ctx, stream, id, &w);
    if (rc != CUSPEC_OK)
        return rc;
    s->slot = w;
    s->partials = w->mem;
    s->ticket = w->mem + TICKET_AT(CUSPEC__WS_BYTES / 8);
    return CUSPEC_OK;
}

int cuspec__scratch_give(cuspec_ctx *ctx, CUstream stream, struct cuspec__scratch *s)
{
    int rc = CUSPEC_OK;
    if (s->graph != 0) {
        rc = cuspec__cu_check(ctx->drv->cuMemFreeAsync(s->graph, stream),
                              "cuMemFreeAsync (scratch in the graph being captured)");
    } else if (s->slot != NULL) {
        rc = cuspec__cu_check(ctx->drv->cuEventRecord(s->slot->done, stream),
                              "cuEventRecord (scratch slot)");
        pthread_mutex_lock(&ctx->ws_lock);
        /* Unrecorded, its event may complete while the call still runs. */
        if (rc != CUSPEC_OK)
            s->slot->kept = 1;
        s->slot->users--;
        pthread_mutex_unlock(&ctx->ws_lock);
    }
    memset(s, 0, sizeof *s);
    return rc;
}
