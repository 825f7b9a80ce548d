/* Per-stream device scratch from one pool allocated at context creation:
 * the hot path never allocates, and two streams never share scratch. */
#include "context.h"

#define SLOT_BYTES (CUSPEC__WS_PARTIALS * 8 + 256) /* partials, then the ticket */

int cuspec__workspace_init(cuspec_ctx *ctx)
{
    const struct cuspec__driver *drv = ctx->drv;
    size_t bytes = (size_t)SLOT_BYTES * CUSPEC__WS_SLOTS;
    int rc = cuspec__cu_check(drv->cuMemAlloc(&ctx->workspace, bytes), "cuMemAlloc (workspace)");
    if (rc == CUSPEC_OK)
        rc = cuspec__cu_check(drv->cuMemsetD8(ctx->workspace, 0, bytes), "cuMemsetD8 (workspace)");
    return rc;
}

void cuspec__workspace_free(cuspec_ctx *ctx)
{
    if (ctx->workspace)
        ctx->drv->cuMemFree(ctx->workspace);
    ctx->workspace = 0;
}

int cuspec__workspace(cuspec_ctx *ctx, CUstream stream, CUdeviceptr *partials, CUdeviceptr *ticket)
{
    /* The per-thread default stream is one handle for many streams: each
     * thread that uses it gets its own slot. */
    pthread_t thread = stream == CU_STREAM_PER_THREAD ? pthread_self() : (pthread_t)0;
    pthread_mutex_lock(&ctx->lock);
    int i = 0;
    while (i < ctx->ws_used &&
           !(ctx->ws_stream[i] == stream && pthread_equal(ctx->ws_thread[i], thread)))
        i++;
    if (i == ctx->ws_used && i < CUSPEC__WS_SLOTS) {
        ctx->ws_stream[i] = stream;
        ctx->ws_thread[i] = thread;
        ctx->ws_used++;
    }
    pthread_mutex_unlock(&ctx->lock);
    CUSPEC__RETURN_IF(i == CUSPEC__WS_SLOTS, CUSPEC_ERR_UNSUPPORTED,
                      "this context has served %d streams already; use one context per %d "
                      "streams",
                      CUSPEC__WS_SLOTS, CUSPEC__WS_SLOTS);
    *partials = ctx->workspace + (CUdeviceptr)i * SLOT_BYTES;
    *ticket = *partials + CUSPEC__WS_PARTIALS * 8;
    return CUSPEC_OK;
}
