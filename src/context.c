/* Contexts: one device's retained primary context and its module table,
 * (variant) -> loaded CUmodule/CUfunction, thread-safe and bounded. A hit
 * costs one hash of the small variant struct and no I/O. */
#include "context.h"
#include "copy.h"
#include "prefault.h"
#include "store.h"
#include "image.h"
#include "workspace.h"
#include "catalogue.h"
#include "error.h"
#include "driver.h"
#include "device.h"
#include "hash.h"
#include "text.h"

#include <stdlib.h>
#include <string.h>

#define TABLE_SLOTS 2048 /* power of two, twice the bound: short probes */
#define TABLE_BOUND 1024

/* This thread's last kernel: its variant, named only when asked for, so
 * that a module-table hit formats nothing. */
static _Thread_local struct {
    int tier;
    struct cuspec__variant v;
    int fallback;
    struct cuspec__variant wanted;
} last_launch;

static size_t slot_of(const struct cuspec__variant *v)
{
    return cuspec__hash64(v, sizeof *v) & (TABLE_SLOTS - 1);
}

static void warm_up(cuspec_ctx *ctx);

int cuspec_ctx_create(cuspec_ctx **out, int ordinal)
{
    CUSPEC__RETURN_IF(out == NULL, CUSPEC_ERR_INVALID, "cuspec_ctx_create: ctx is NULL");
    *out = NULL;
    cuspec_ctx *ctx = calloc(1, sizeof *ctx);
    CUSPEC__RETURN_IF(ctx == NULL, CUSPEC_ERR_NOMEM, "cuspec_ctx_create: out of memory");
    ctx->slots = calloc(TABLE_SLOTS, sizeof *ctx->slots);
    int rc = ctx->slots ? CUSPEC_OK : cuspec__fail(CUSPEC_ERR_NOMEM, "out of memory");
    if (rc == CUSPEC_OK)
        rc = cuspec_device_get_info(ordinal, &ctx->info);
    if (rc == CUSPEC_OK)
        rc = cuspec__device_get(ordinal, &ctx->dev);
    if (rc == CUSPEC_OK)
        rc = cuspec__driver(&ctx->drv);
    if (rc == CUSPEC_OK)
        rc = cuspec__cu_check(ctx->drv->cuDevicePrimaryCtxRetain(&ctx->cu, ctx->dev),
                              "cuDevicePrimaryCtxRetain");
    if (rc != CUSPEC_OK) {
        free(ctx->slots);
        free(ctx);
        return rc;
    }
    ctx->arch = ctx->info.sm_major * 10 + ctx->info.sm_minor;
    /* What every first call needs, done here, where a context's creation
     * hides it: the store open, the library's code mapped, and below, the
     * driver's first load and launch (warm_up; docs/experiments/deploy.md). */
    cuspec__store_open();
    cuspec__prefault_code();
    cuspec__device_identity(&ctx->info, ctx->device_id, sizeof ctx->device_id);
    pthread_mutex_init(&ctx->lock, NULL);
    pthread_mutex_init(&ctx->ws_lock, NULL);
    int pushed;
    rc = cuspec__ctx_enter(ctx, &pushed);
    if (rc == CUSPEC_OK) {
        rc = cuspec__workspace_init(ctx);
        if (rc == CUSPEC_OK)
            warm_up(ctx);
        cuspec__ctx_leave(ctx, pushed);
    }
    if (rc != CUSPEC_OK) {
        cuspec_ctx_destroy(ctx);
        return rc;
    }
    *out = ctx;
    return CUSPEC_OK;
}

void cuspec_ctx_destroy(cuspec_ctx *ctx)
{
    if (ctx == NULL)
        return;
    int pushed;
    if (cuspec__ctx_enter(ctx, &pushed) == CUSPEC_OK) {
        cuspec__workspace_free(ctx);
        if (ctx->timing != NULL)
            ctx->drv->cuStreamDestroy(ctx->timing);
        for (size_t i = 0; i < TABLE_SLOTS; i++)
            if (ctx->slots[i].used)
                ctx->drv->cuModuleUnload(ctx->slots[i].module);
        cuspec__ctx_leave(ctx, pushed);
    }
    ctx->drv->cuDevicePrimaryCtxRelease(ctx->dev);
    pthread_mutex_destroy(&ctx->lock);
    pthread_mutex_destroy(&ctx->ws_lock);
    free(ctx->slots);
    free(ctx);
}

int cuspec__ctx_timing_stream(cuspec_ctx *ctx, CUstream *stream)
{
    int rc = CUSPEC_OK;
    pthread_mutex_lock(&ctx->lock);
    if (ctx->timing == NULL)
        rc = cuspec__cu_check(ctx->drv->cuStreamCreate(&ctx->timing, CU_STREAM_NON_BLOCKING),
                              "cuStreamCreate (timing stream)");
    *stream = ctx->timing;
    pthread_mutex_unlock(&ctx->lock);
    return rc;
}

const cuspec_device_info *cuspec_ctx_device(const cuspec_ctx *ctx)
{
    return ctx ? &ctx->info : NULL;
}

int cuspec__ctx_enter(cuspec_ctx *ctx, int *pushed)
{
    /* Most callers already have the primary context current (the runtime
     * API makes it so): then there is nothing to push. */
    CUcontext cur = NULL;
    *pushed = 0;
    if (ctx->drv->cuCtxGetCurrent(&cur) == CUDA_SUCCESS && cur == ctx->cu)
        return CUSPEC_OK;
    int rc = cuspec__cu_check(ctx->drv->cuCtxPushCurrent(ctx->cu), "cuCtxPushCurrent");
    *pushed = rc == CUSPEC_OK;
    return rc;
}

void cuspec__ctx_leave(cuspec_ctx *ctx, int pushed)
{
    CUcontext popped;
    if (pushed)
        ctx->drv->cuCtxPopCurrent(&popped);
}

/* Removes slot i and re-seats the rest of its probe cluster (linear probing
 * without tombstones). Called with the lock held. */
static void table_remove(cuspec_ctx *ctx, size_t i)
{
    ctx->slots[i].used = 0;
    ctx->n_loaded--;
    for (size_t j = (i + 1) & (TABLE_SLOTS - 1); ctx->slots[j].used;
         j = (j + 1) & (TABLE_SLOTS - 1)) {
        struct cuspec__slot s = ctx->slots[j];
        ctx->slots[j].used = 0;
        size_t k = slot_of(&s.v);
        while (ctx->slots[k].used)
            k = (k + 1) & (TABLE_SLOTS - 1);
        ctx->slots[k] = s;
    }
}

/* Past the bound, the least recently used modules go, down to it. Their
 * kernels may still be queued, so the context synchronizes first (never
 * during a capture: see get_kernel). Called with the lock held. */
static void table_evict(cuspec_ctx *ctx)
{
    ctx->drv->cuCtxSynchronize();
    while (ctx->n_loaded >= TABLE_BOUND) {
        size_t oldest = TABLE_SLOTS;
        for (size_t i = 0; i < TABLE_SLOTS; i++)
            if (ctx->slots[i].used &&
                (oldest == TABLE_SLOTS || ctx->slots[i].last_use < ctx->slots[oldest].last_use))
                oldest = i;
        ctx->drv->cuModuleUnload(ctx->slots[oldest].module);
        table_remove(ctx, oldest);
    }
}

/* Whether `stream` is capturing, or cannot tell (then as if it were). */
static int capturing(cuspec_ctx *ctx, CUstream stream)
{
    CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
    return ctx->drv->cuStreamIsCapturing(stream, &status) != CUDA_SUCCESS ||
           status != CU_STREAM_CAPTURE_STATUS_NONE;
}

static struct cuspec__slot *table_find(cuspec_ctx *ctx, const struct cuspec__variant *v)
{
    for (size_t i = slot_of(v); ctx->slots[i].used; i = (i + 1) & (TABLE_SLOTS - 1))
        if (memcmp(&ctx->slots[i].v, v, sizeof *v) == 0)
            return &ctx->slots[i];
    return NULL;
}

/* The sm_XY an image's code was made for: a cubin's arch, a PTX's .target
 * (shipped PTX: sm_75). */
static int code_arch(const struct cuspec__image *img)
{
    if (img->kind == CUSPEC_KIND_CUBIN)
        return img->arch;
    const char *target = strstr(img->data, "\n.target sm_");
    return target != NULL ? atoi(target + strlen("\n.target sm_")) : 0;
}

/* Dynamic shared memory that holds a multiprocessor to `held` blocks of fn:
 * (held + 1/2) blocks' worth each, so that `held` fit and one more does not
 * (a grid launched programmatically after it, placed while it drains, then
 * lands evenly). fn is allowed that much where it is over 48 KB. */
static int hold(cuspec_ctx *ctx, CUfunction fn, int held, unsigned *shared)
{
    const struct cuspec__driver *drv = ctx->drv;
    int per_sm = 0, reserved = 0, fixed = 0;
    const char *what = "cuDeviceGetAttribute (shared memory a multiprocessor)";
    CUresult r = drv->cuDeviceGetAttribute(
        &per_sm, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, ctx->dev);
    if (r == CUDA_SUCCESS) {
        what = "cuDeviceGetAttribute (shared memory reserved a block)";
        r = drv->cuDeviceGetAttribute(
            &reserved, CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK, ctx->dev);
    }
    if (r == CUDA_SUCCESS) {
        what = "cuFuncGetAttribute (a kernel's static shared memory)";
        r = drv->cuFuncGetAttribute(&fixed, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, fn);
    }
    if (r != CUDA_SUCCESS)
        return cuspec__cu_check(r, what);
    long long want = (long long)per_sm * 2 / (2 * held + 1) - reserved - fixed;
    long long most = (drv->cuFuncSetAttribute != NULL ? ctx->info.max_smem_per_block : 48 << 10) -
                     (long long)fixed;
    want = want < 0 ? 0 : want > most ? most : want;
    if (want > (48 << 10) - fixed) {
        r = drv->cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)want);
        if (r != CUDA_SUCCESS)
            return cuspec__cu_check(r,
                                    "cuFuncSetAttribute (shared memory to hold a kernel's blocks)");
    }
    *shared = (unsigned)want;
    return CUSPEC_OK;
}

/* Loads an image into the context (current), finds its kernel and how many
 * of its blocks fit on one multiprocessor. */
static int load(cuspec_ctx *ctx, const struct cuspec__variant *v, const struct cuspec__image *img,
                struct cuspec__slot *slot)
{
    CUmodule *mod = &slot->module;
    CUfunction *fn = &slot->kernel.function;
    const struct cuspec__driver *drv = ctx->drv;
    char log[4096] = "";
    CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *vals[] = {log, (void *)(uintptr_t)sizeof log};
    CUresult r = drv->cuModuleLoadDataEx(mod, img->data, 2, opts, vals);
    if (r != CUDA_SUCCESS) {
        int rc = cuspec__cu_check(r, img->kind == CUSPEC_KIND_PTX ? "cuModuleLoadDataEx (PTX)"
                                                                  : "cuModuleLoadDataEx (cubin)");
        return log[0] ? cuspec__fail_context(rc, "%s", log) : rc;
    }
    r = drv->cuModuleGetFunction(fn, *mod, img->lowered);
    if (r != CUDA_SUCCESS) {
        drv->cuModuleUnload(*mod);
        return cuspec__cu_check(r, "cuModuleGetFunction");
    }
    const struct cuspec__family *fam = cuspec__family(v->family);
    int threads = fam->threads(v), held = fam->held_per_sm != NULL ? fam->held_per_sm(v) : 0;
    slot->kernel.shared = 0;
    int rc = held > 0 ? hold(ctx, *fn, held, &slot->kernel.shared) : CUSPEC_OK;
    if (rc != CUSPEC_OK) {
        drv->cuModuleUnload(*mod);
        return rc;
    }
    r = drv->cuOccupancyMaxActiveBlocksPerMultiprocessor(&slot->kernel.blocks_per_sm, *fn, threads,
                                                         slot->kernel.shared);
    if (r != CUDA_SUCCESS || slot->kernel.blocks_per_sm < 1) {
        drv->cuModuleUnload(*mod);
        return r != CUDA_SUCCESS
                   ? cuspec__cu_check(r, "cuOccupancyMaxActiveBlocksPerMultiprocessor")
                   : cuspec__fail(CUSPEC_ERR_UNSUPPORTED,
                                  "no block of %d threads fits on this device", threads);
    }
    /* Their family's kernels wait for the grid before them in code made for
     * sm_90 or later; graphs keep the programmatic edges of such launches
     * from driver 12.3 on. No marker in the module: a __device__ variable
     * would cost the load an allocation (docs/experiments/deploy.md). */
    slot->kernel.pdl = drv->cuLaunchKernelEx != NULL && drv->version >= 12030 &&
                       cuspec__family(v->family)->waits_for_prior_grid && code_arch(img) >= 90;
    return CUSPEC_OK;
}

int cuspec__capture_relax(const struct cuspec__driver *drv, CUstreamCaptureMode *mode)
{
    *mode = CU_STREAM_CAPTURE_MODE_RELAXED;
    return drv->cuThreadExchangeStreamCaptureMode(mode) == CUDA_SUCCESS;
}

void cuspec__capture_restore(const struct cuspec__driver *drv, int relaxed,
                             CUstreamCaptureMode *mode)
{
    if (relaxed)
        drv->cuThreadExchangeStreamCaptureMode(mode);
}

/* The driver's one-time work of a context's first module load and launch,
 * paid here rather than by the first call (docs/experiments/deploy.md: "A
 * launch when the context is made"): when a store holds the copy kernel's
 * cubin (no compiling, no PTX to JIT), it is loaded, launched on nothing on
 * the calling thread's per-thread default stream, waited for and unloaded.
 * The table stays as it was; anything that fails skips the rest. Skipped
 * while that stream captures (the launch would join the caller's graph); a
 * failed wait leaves the module loaded rather than unload it under a kernel
 * that may still be queued. */
static void warm_up(cuspec_ctx *ctx)
{
    struct cuspec__variant v;
    struct cuspec__image img;
    struct cuspec__slot s = {0};
    const struct cuspec__driver *drv = ctx->drv;
    CUstreamCaptureMode mode;
    int relaxed = cuspec__capture_relax(drv, &mode);
    cuspec__copy_default(ctx->arch, &v);
    if (!capturing(ctx, CU_STREAM_PER_THREAD) &&
        cuspec__image_get(&v, ctx->arch, CUSPEC__IMAGE_NO_COMPILE, &img) == CUSPEC_OK) {
        if (img.kind == CUSPEC_KIND_CUBIN && load(ctx, &v, &img, &s) == CUSPEC_OK) {
            CUdeviceptr none = 0;
            unsigned long long n = 0;
            void *args[] = {&none, &none, &n}; /* the copy kernel's (src, dst, n) */
            int queued = drv->cuLaunchKernel(s.kernel.function, 1, 1, 1,
                                             (unsigned)cuspec__family(v.family)->threads(&v), 1,
                                             1, 0, CU_STREAM_PER_THREAD, args,
                                             NULL) == CUDA_SUCCESS;
            if (!queued || drv->cuStreamSynchronize(CU_STREAM_PER_THREAD) == CUDA_SUCCESS)
                drv->cuModuleUnload(s.module);
        }
        cuspec__image_free(&img);
    }
    cuspec__capture_restore(drv, relaxed, &mode);
    cuspec__clear_error();
}

/* On a miss: v's image loaded and kept in the table (or another thread's,
 * loaded meanwhile). */
static int load_kept(cuspec_ctx *ctx, CUstream stream, const struct cuspec__variant *v,
                     struct cuspec__kernel *k, int *tier)
{
    /* Resolve outside the lock: a compile may take a while and other threads
     * keep launching what is loaded. */
    struct cuspec__image img;
    struct cuspec__slot fresh = {.used = 1, .v = *v};
    /* Loading a module enqueues nothing, so it conflicts with no capture. */
    CUstreamCaptureMode mode;
    int relaxed = cuspec__capture_relax(ctx->drv, &mode);
    int rc = cuspec__image_get(v, ctx->arch, CUSPEC__IMAGE_ANY, &img);
    if (rc == CUSPEC_OK) {
        rc = load(ctx, v, &img, &fresh);
        cuspec__image_free(&img);
    }
    cuspec__capture_restore(ctx->drv, relaxed, &mode);
    if (rc != CUSPEC_OK)
        return rc;

    pthread_mutex_lock(&ctx->lock);
    struct cuspec__slot *hit = table_find(ctx, v);
    if (hit != NULL) { /* another thread loaded it meanwhile: keep theirs */
        ctx->drv->cuModuleUnload(fresh.module);
        *k = hit->kernel;
    } else {
        /* Synchronizing the context would invalidate the capture of a call on
         * a capturing stream: the table holds more until a call on another. */
        if (ctx->n_loaded >= TABLE_BOUND && !capturing(ctx, stream))
            table_evict(ctx);
        if (ctx->n_loaded >= TABLE_SLOTS - 1) { /* a slot stays free: probes end */
            pthread_mutex_unlock(&ctx->lock);
            ctx->drv->cuModuleUnload(fresh.module);
            return cuspec__fail(CUSPEC_ERR_UNSUPPORTED,
                                "%d kernels are loaded in this context, and none can be "
                                "unloaded while the call's stream is capturing",
                                TABLE_SLOTS - 1);
        }
        size_t i = slot_of(v);
        while (ctx->slots[i].used)
            i = (i + 1) & (TABLE_SLOTS - 1);
        fresh.last_use = ++ctx->clock;
        ctx->slots[i] = fresh;
        ctx->n_loaded++;
        *k = fresh.kernel;
    }
    pthread_mutex_unlock(&ctx->lock);
    *tier = img.tier;
    return CUSPEC_OK;
}

/* The kernel of v and the tier it came from (table, or where its image
 * came from). The table holds kernels: variants that differ only in
 * launch parameters (a reduction's grid or cache) share one module. */
static int get_kernel(cuspec_ctx *ctx, CUstream stream, const struct cuspec__variant *v,
                      struct cuspec__kernel *k, int *tier)
{
    struct cuspec__variant kv;
    cuspec__variant_kernel(v, &kv);
    pthread_mutex_lock(&ctx->lock);
    struct cuspec__slot *hit = table_find(ctx, &kv);
    if (hit != NULL) {
        hit->last_use = ++ctx->clock;
        *k = hit->kernel;
        pthread_mutex_unlock(&ctx->lock);
        *tier = CUSPEC_TIER_TABLE;
        return CUSPEC_OK;
    }
    pthread_mutex_unlock(&ctx->lock);
    return load_kept(ctx, stream, &kv, k, tier);
}

int cuspec__function(cuspec_ctx *ctx, CUstream stream, const struct cuspec__variant *v,
                     struct cuspec__kernel *k)
{
    int tier, rc = get_kernel(ctx, stream, v, k, &tier);
    if (rc == CUSPEC_OK) {
        last_launch.tier = tier;
        last_launch.v = *v;
        last_launch.fallback = 0;
    }
    return rc;
}

int cuspec__helper_function(cuspec_ctx *ctx, CUstream stream, const struct cuspec__variant *v,
                            struct cuspec__kernel *k)
{
    int tier;
    return get_kernel(ctx, stream, v, k, &tier);
}

/* The kernel that served a call on s instead of *v before: *v becomes it
 * (1), or 0. It must still fit s: a variant stands for several shapes. */
static int fallback_find(cuspec_ctx *ctx, const struct cuspec__spec *s, struct cuspec__variant *v)
{
    int found = 0;
    pthread_mutex_lock(&ctx->lock);
    for (unsigned i = 0; !found && i < ctx->n_fallbacks; i++) {
        const struct cuspec__fallback *fb = &ctx->fallbacks[i];
        if (memcmp(&fb->wanted, v, sizeof *v) == 0 && cuspec__variant_fits(&fb->used, s)) {
            *v = fb->used;
            found = 1;
        }
    }
    pthread_mutex_unlock(&ctx->lock);
    return found;
}

static void fallback_keep(cuspec_ctx *ctx, const struct cuspec__variant *wanted,
                          const struct cuspec__variant *used)
{
    pthread_mutex_lock(&ctx->lock);
    unsigned i = 0;
    while (i < ctx->n_fallbacks && memcmp(&ctx->fallbacks[i].wanted, wanted, sizeof *wanted) != 0)
        i++;
    if (i < CUSPEC__FALLBACKS) {
        ctx->fallbacks[i] = (struct cuspec__fallback){*wanted, *used};
        if (i == ctx->n_fallbacks)
            ctx->n_fallbacks++;
    }
    pthread_mutex_unlock(&ctx->lock);
}

static void note_fallback(const struct cuspec__variant *wanted)
{
    last_launch.fallback = 1;
    last_launch.wanted = *wanted;
}

int cuspec__fall_back(cuspec_ctx *ctx, CUstream stream, const struct cuspec__spec *s,
                      const struct cuspec__variant *wanted, int status, struct cuspec__variant *v,
                      struct cuspec__kernel *k)
{
    char why[1024];
    cuspec__strlcpy(why, cuspec_last_error(), sizeof why);
    unsigned next = 0;
    struct cuspec__variant c;
    while (cuspec__fallback_next(s, ctx->arch, wanted, &next, &c) == CUSPEC_OK) {
        int rc = cuspec__function(ctx, stream, &c, k);
        if (rc == CUSPEC_OK) {
            fallback_keep(ctx, wanted, &c);
            *v = c;
            note_fallback(wanted);
            return CUSPEC_OK;
        }
        if (!cuspec__unavailable(rc)) { /* it is there, but will not load: say why */
            status = rc;
            cuspec__strlcpy(why, cuspec_last_error(), sizeof why);
        }
    }
    return cuspec__fail(status, "%s; nor is any other kernel that could serve this call", why);
}

int cuspec__function_for(cuspec_ctx *ctx, CUstream stream, const struct cuspec__spec *s,
                         struct cuspec__variant *v, struct cuspec__kernel *k)
{
    struct cuspec__variant wanted = *v;
    if (ctx->n_fallbacks > 0 && fallback_find(ctx, s, v)) {
        int rc = cuspec__function(ctx, stream, v, k);
        if (rc == CUSPEC_OK)
            note_fallback(&wanted);
        return rc;
    }
    int rc = cuspec__function(ctx, stream, v, k);
    return cuspec__unavailable(rc) ? cuspec__fall_back(ctx, stream, s, &wanted, rc, v, k) : rc;
}

int cuspec_last_launch(cuspec_launch_info *info)
{
    CUSPEC__RETURN_IF(info == NULL, CUSPEC_ERR_INVALID, "cuspec_last_launch: info is NULL");
    CUSPEC__RETURN_IF(last_launch.tier == 0, CUSPEC_ERR_NOT_FOUND,
                      "no operation has run on this thread");
    memset(info, 0, sizeof *info);
    info->tier = last_launch.tier;
    cuspec__variant_name(&last_launch.v, info->kernel, sizeof info->kernel);
    info->fallback = last_launch.fallback;
    if (last_launch.fallback)
        cuspec__variant_name(&last_launch.wanted, info->wanted, sizeof info->wanted);
    return CUSPEC_OK;
}

int cuspec__launch(cuspec_ctx *ctx, const struct cuspec__kernel *k, const struct cuspec__variant *v,
                   const unsigned grid[3], unsigned block, int programmatic, CUstream stream,
                   void **args)
{
    CUresult r;
    if (k->pdl && programmatic) { /* placed while the grid before it drains */
        CUlaunchAttribute attr = {.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION,
                                  .value.programmaticStreamSerializationAllowed = 1};
        CUlaunchConfig cfg = {.gridDimX = grid[0],
                              .gridDimY = grid[1],
                              .gridDimZ = grid[2],
                              .blockDimX = block,
                              .blockDimY = 1,
                              .blockDimZ = 1,
                              .sharedMemBytes = k->shared,
                              .hStream = stream,
                              .attrs = &attr,
                              .numAttrs = 1};
        r = ctx->drv->cuLaunchKernelEx(&cfg, k->function, args, NULL);
    } else {
        r = ctx->drv->cuLaunchKernel(k->function, grid[0], grid[1], grid[2], block, 1, 1, k->shared,
                                     stream, args, NULL);
    }
    if (r == CUDA_SUCCESS)
        return CUSPEC_OK;
    char name[256];
    cuspec__variant_name(v, name, sizeof name);
    return cuspec__fail_context(cuspec__cu_check(r, "cuLaunchKernel"),
                                "%s with grid %ux%ux%u, block %u", name, grid[0], grid[1], grid[2],
                                block);
}

int cuspec__check_pointer(cuspec_ctx *ctx, cuspec_devptr p, size_t align, const char *what)
{
    CUSPEC__RETURN_IF(p == 0, CUSPEC_ERR_INVALID, "%s is NULL", what);
    CUSPEC__RETURN_IF(p % align != 0, CUSPEC_ERR_INVALID,
                      "%s (0x%llx) is not aligned to its %zu-byte elements", what,
                      (unsigned long long)p, align);
    CUcontext owner = NULL;
    CUresult r =
        ctx->drv->cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_CONTEXT, (CUdeviceptr)p);
    CUSPEC__RETURN_IF(r != CUDA_SUCCESS, CUSPEC_ERR_INVALID,
                      "%s (0x%llx) is not memory the CUDA driver knows", what,
                      (unsigned long long)p);
    CUSPEC__RETURN_IF(owner != NULL && owner != ctx->cu, CUSPEC_ERR_INVALID,
                      "%s (0x%llx) belongs to another context than device %d's primary context",
                      what, (unsigned long long)p, ctx->info.ordinal);
    return CUSPEC_OK;
}
