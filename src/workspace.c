/* Reductions' device scratch (partials and a ticket), handed out so that no
 * two calls that may run at the same time share any (DESIGN.md "Scratch,
 * streams and graphs"):
 * - A call on a stream that is not capturing takes a slot of a pool that
 *   grows on demand. A slot stays with the stream of its last call, known
 *   by cuStreamGetId (ids are never reused, unlike handles); after each
 *   call an event is recorded on that stream, and once it has completed the
 *   slot may go to another stream. So the pool is about as large as the
 *   number of streams busy at once, and a stream that keeps its slot pays
 *   no query.
 * - A call on a capturing stream allocates its scratch in the graph: an
 *   allocation node, the ticket's memset, the kernels, a free node. Each
 *   executable graph owns its memory, so a graph may run on any stream
 *   beside direct calls and other graphs. Where the driver lets nodes be
 *   added to the capture (12.3), the allocation and the memset are a branch
 *   of their own from the graph's start, joined to the call's first kernel,
 *   and the free node hangs after its last: the kernels stay in line with
 *   the work before and after them (and launch programmatically after it),
 *   instead of waiting for a memset between them. On an H200, a sum of 2^13
 *   f32 in a graph: 2.4 us a call with a pool slot, 4.4 with the nodes in
 *   the stream's path. */
#include "context.h"

#include <stdlib.h>
#include <string.h>

#define SLOT_BYTES (CUSPEC__WS_PARTIALS * 8 + 256)
/* The ticket's offset after `parts` 8-byte partials, and the same from the
 * bytes of scratch with a ticket. */
#define TICKET_AT(parts) (((CUdeviceptr)(parts)*8 + 255) & ~(CUdeviceptr)255)
#define TICKET_AT_BYTES(bytes) ((bytes)-4)

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
        ctx->drv->cuEventDestroy(ctx->ws[i]->done);
        ctx->drv->cuMemFree(ctx->ws[i]->mem);
        free(ctx->ws[i]);
    }
    free(ctx->ws);
    ctx->ws = NULL;
    ctx->ws_n = ctx->ws_cap = 0;
}

/* Scratch in the graph being captured on `stream`, made off the stream's
 * path: an allocation node at the graph's start and the ticket's memset
 * after it; cuspec__scratch_launched joins them to the first kernel. */
static int graph_branch(cuspec_ctx *ctx, CUstream stream, CUdeviceptr bytes, int ticket,
                        struct cuspec__scratch *s)
{
    const struct cuspec__driver *drv = ctx->drv;
    CUstreamCaptureStatus status;
    cuuint64_t id;
    const CUgraphNode *deps;
    const CUgraphEdgeData *edges;
    size_t n_deps;
    CUgraphNode alloc;
    int rc = cuspec__cu_check(
        drv->cuStreamGetCaptureInfo(stream, &status, &id, &s->g, &deps, &edges, &n_deps),
        "cuStreamGetCaptureInfo");
    CUDA_MEM_ALLOC_NODE_PARAMS p = {0};
    p.poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    p.poolProps.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    p.poolProps.location.id = (int)ctx->dev;
    p.bytesize = (size_t)bytes;
    if (rc == CUSPEC_OK)
        rc = cuspec__cu_check(drv->cuGraphAddMemAllocNode(&alloc, s->g, NULL, 0, &p),
                              "cuGraphAddMemAllocNode (scratch in the graph being captured)");
    if (rc != CUSPEC_OK)
        return rc;
    s->graph = s->partials = p.dptr;
    s->ready = alloc;
    if (ticket) {
        CUDA_MEMSET_NODE_PARAMS m = {0};
        m.dst = s->ticket = p.dptr + TICKET_AT_BYTES(bytes);
        m.elementSize = 4;
        m.width = m.height = 1;
        rc = cuspec__cu_check(drv->cuGraphAddMemsetNode(&s->ready, s->g, &alloc, 1, &m, ctx->cu),
                              "cuGraphAddMemsetNode (ticket in the graph being captured)");
    }
    return rc;
}

static int graph_scratch(cuspec_ctx *ctx, CUstream stream, unsigned parts, int ticket,
                         struct cuspec__scratch *s)
{
    const struct cuspec__driver *drv = ctx->drv;
    const CUdeviceptr at = TICKET_AT(parts), bytes = at + (ticket ? 4 : 0);
    if (drv->cuStreamGetCaptureInfo != NULL && drv->cuGraphAddDependencies != NULL)
        return graph_branch(ctx, stream, bytes, ticket, s);
    CUSPEC__RETURN_IF(ctx->ws_pool == NULL, CUSPEC_ERR_UNSUPPORTED,
                      "device %d has no stream-ordered memory pool, which a reduction captured "
                      "in a CUDA graph allocates its scratch from",
                      ctx->info.ordinal);
    int rc = cuspec__cu_check(drv->cuMemAllocFromPoolAsync(&s->graph, bytes, ctx->ws_pool, stream),
                              "cuMemAllocFromPoolAsync (scratch in the graph being captured)");
    if (rc != CUSPEC_OK) {
        s->graph = 0;
        return rc;
    }
    s->partials = s->graph;
    if (ticket) {
        s->ticket = s->graph + at;
        rc = cuspec__cu_check(drv->cuMemsetD32Async(s->ticket, 0, 1, stream),
                              "cuMemsetD32Async (ticket in the graph being captured)");
    }
    if (rc != CUSPEC_OK) {
        drv->cuMemFreeAsync(s->graph, stream);
        memset(s, 0, sizeof *s);
    }
    return rc;
}

/* The one node the capture on `stream` would make the next node depend on:
 * the node just captured. */
static int last_captured(cuspec_ctx *ctx, CUstream stream, CUgraphNode *node)
{
    CUstreamCaptureStatus status;
    cuuint64_t id;
    CUgraph g;
    const CUgraphNode *deps;
    const CUgraphEdgeData *edges;
    size_t n_deps = 0;
    int rc = cuspec__cu_check(
        ctx->drv->cuStreamGetCaptureInfo(stream, &status, &id, &g, &deps, &edges, &n_deps),
        "cuStreamGetCaptureInfo");
    CUSPEC__RETURN_IF(rc == CUSPEC_OK && n_deps != 1, CUSPEC_ERR_CUDA,
                      "the capture holds %zu nodes where the kernel just captured was expected",
                      n_deps);
    if (rc == CUSPEC_OK)
        *node = deps[0];
    return rc;
}

int cuspec__scratch_launched(cuspec_ctx *ctx, CUstream stream, struct cuspec__scratch *s)
{
    CUgraphNode kernel;
    if (s->ready == NULL)
        return CUSPEC_OK;
    int rc = last_captured(ctx, stream, &kernel);
    if (rc == CUSPEC_OK)
        rc = cuspec__cu_check(ctx->drv->cuGraphAddDependencies(s->g, &s->ready, &kernel, NULL, 1),
                              "cuGraphAddDependencies (scratch to the kernel using it)");
    s->ready = NULL;
    return rc;
}

/* Under ws_lock, a slot of another stream that no call holds and whose
 * last call has completed; NULL when there is none (or *rc when a query
 * failed). The search starts after the last slot it gave. */
static struct cuspec__ws_slot *free_slot(cuspec_ctx *ctx, int *rc)
{
    for (size_t k = 0; k < ctx->ws_n; k++) {
        size_t i = (ctx->ws_next + k) % ctx->ws_n;
        struct cuspec__ws_slot *w = ctx->ws[i];
        if (w->users > 0 || w->kept)
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

/* A new slot whose ticket is zeroed on `stream`, before the call's kernels. */
static int new_slot(cuspec_ctx *ctx, CUstream stream, struct cuspec__ws_slot **out)
{
    const struct cuspec__driver *drv = ctx->drv;
    struct cuspec__ws_slot *w = calloc(1, sizeof *w);
    CUSPEC__RETURN_IF(w == NULL, CUSPEC_ERR_NOMEM, "out of host memory (scratch slot)");
    int rc = cuspec__cu_check(drv->cuMemAlloc(&w->mem, SLOT_BYTES), "cuMemAlloc (scratch slot)");
    if (rc == CUSPEC_OK)
        rc = cuspec__cu_check(drv->cuEventCreate(&w->done, CU_EVENT_DISABLE_TIMING),
                              "cuEventCreate (scratch slot)");
    if (rc == CUSPEC_OK)
        rc = cuspec__cu_check(
            drv->cuMemsetD32Async(w->mem + TICKET_AT(CUSPEC__WS_PARTIALS), 0, 1, stream),
            "cuMemsetD32Async (scratch slot's ticket)");
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

int cuspec__scratch_take(cuspec_ctx *ctx, CUstream stream, unsigned parts, int ticket,
                         struct cuspec__scratch *s)
{
    const struct cuspec__driver *drv = ctx->drv;
    memset(s, 0, sizeof *s);
    CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
    int rc = cuspec__cu_check(drv->cuStreamIsCapturing(stream, &status), "cuStreamIsCapturing");
    if (rc == CUSPEC_OK && status != CU_STREAM_CAPTURE_STATUS_NONE)
        return graph_scratch(ctx, stream, parts, ticket, s);
    unsigned long long id = 0;
    if (rc == CUSPEC_OK)
        rc = cuspec__cu_check(drv->cuStreamGetId(stream, &id), "cuStreamGetId");
    if (rc != CUSPEC_OK)
        return rc;

    pthread_mutex_lock(&ctx->ws_lock);
    struct cuspec__ws_slot *w = NULL;
    for (size_t i = 0; i < ctx->ws_n && w == NULL; i++)
        if (ctx->ws[i]->owner == id)
            w = ctx->ws[i];
    /* Querying the slots' events and allocating conflict with no capture
     * (the events are never recorded in one, the memory is the context's):
     * allowed even while a thread captures in global mode. */
    CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_RELAXED;
    int relaxed = w == NULL && drv->cuThreadExchangeStreamCaptureMode(&mode) == CUDA_SUCCESS;
    if (w == NULL)
        w = free_slot(ctx, &rc);
    if (w != NULL) {
        w->owner = id;
        w->users++;
    }
    pthread_mutex_unlock(&ctx->ws_lock);
    if (w == NULL && rc == CUSPEC_OK) {
        rc = new_slot(ctx, stream, &w);
        if (rc == CUSPEC_OK && (rc = add_slot(ctx, w, id)) != CUSPEC_OK) {
            /* The ticket's memset may be queued: the memory goes when it is done. */
            drv->cuStreamSynchronize(stream);
            drv->cuEventDestroy(w->done);
            drv->cuMemFree(w->mem);
            free(w);
        }
    }
    if (relaxed)
        drv->cuThreadExchangeStreamCaptureMode(&mode);
    if (rc != CUSPEC_OK)
        return rc;
    s->slot = w;
    s->partials = w->mem;
    s->ticket = w->mem + TICKET_AT(CUSPEC__WS_PARTIALS);
    return CUSPEC_OK;
}

int cuspec__scratch_give(cuspec_ctx *ctx, CUstream stream, struct cuspec__scratch *s)
{
    int rc = CUSPEC_OK;
    CUgraphNode last, freed;
    if (s->g != NULL) {
        /* A leaf after the last kernel: what follows on the stream does not
         * wait for it. */
        rc = last_captured(ctx, stream, &last);
        if (rc == CUSPEC_OK)
            rc = cuspec__cu_check(ctx->drv->cuGraphAddMemFreeNode(&freed, s->g, &last, 1, s->graph),
                                  "cuGraphAddMemFreeNode (scratch in the graph being captured)");
    } else if (s->graph != 0) {
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
