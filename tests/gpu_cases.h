/* Scaffolding shared by the GPU tests that run many cases per test point:
 * failures capped per point, timing of each point, the private store folder,
 * and lists of specializations. Include after gpu.h. */
#ifndef CUSPEC_TEST_GPU_CASES_H
#define CUSPEC_TEST_GPU_CASES_H

#include <sys/stat.h>

#define MAX_PRINT 12 /* failures printed per test point */

static int n_fail;

/* Records a failure; prints only the first MAX_PRINT of a test point. */
#define CASE_FAIL(...)                                                                             \
    do {                                                                                           \
        if (n_fail++ < MAX_PRINT)                                                                  \
            TAP_FAIL(__VA_ARGS__);                                                                 \
        else                                                                                       \
            tap_current_failed = 1;                                                                \
    } while (0)

static struct timespec group_t0;

static inline void group_begin(void)
{
    n_fail = 0;
    clock_gettime(CLOCK_MONOTONIC, &group_t0);
}

/* Says how many failures were not printed, and how long the group took. */
static inline void group_end(void)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (n_fail > MAX_PRINT)
        printf("#   ... and %d more failures\n", n_fail - MAX_PRINT);
    printf("# %.1f s\n",
           (double)(t1.tv_sec - group_t0.tv_sec) + (double)(t1.tv_nsec - group_t0.tv_nsec) / 1e9);
}

static cuspec_ctx *ctx; /* NULL when setup failed: each test point then fails */
static int ctx_pushed;
static char store_dir[] = "/tmp/cuspec-gpu-cases-XXXXXX";
static int store_made;

/* ## Store folder */
static inline void remove_store(void)
{
    if (store_made)
        tap_remove_tree(store_dir, 0);
    store_made = 0;
}

/* Whether the current device reads pageable host memory directly: then a
 * malloc'd pointer is legal input and bad-argument tests must not expect it
 * refused. */
static inline int pageable_access(void)
{
    int dev = 0, v = 0;
    CUdevice d;
    if (drv->cuCtxGetDevice(&d) == CUDA_SUCCESS)
        dev = d;
    if (drv->cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS, dev) !=
        CUDA_SUCCESS)
        v = 0;
    return v;
}

/* ## Bad arguments */
/* Fails the case unless rc is CUSPEC_ERR_INVALID with a detail saying `detail`. */
static inline void check_refused(int rc, const char *what, const char *detail)
{
    if (rc != CUSPEC_ERR_INVALID)
        CASE_FAIL("%s: got %s (%s), want CUSPEC_ERR_INVALID", what,
                  cuspec_status_name(rc) ? cuspec_status_name(rc) : "?", cuspec_last_error());
    else if (strstr(cuspec_last_error(), detail) == NULL)
        CASE_FAIL("%s: the detail \"%s\" does not say \"%s\"", what, cuspec_last_error(), detail);
}

/* rc of a call given a malloc'd pointer as `what` ("malloc'd in"): on a device
 * that reads pageable memory it may be accepted (the call is completed and
 * `accepted` run), else it must be refused as no device memory, which the
 * test's `refused` checks with what it knows of memory left untouched.
 * Returns 1 when it was refused. */
static inline int check_malloc_pointer(int rc, const char *what,
                                       void (*refused)(int, const char *, const char *),
                                       void (*accepted)(void))
{
    if (rc == CUSPEC_OK && pageable_access()) {
        printf("# the device reads pageable memory and a %s was accepted\n", what);
        CU_OK(drv->cuCtxSynchronize());
        if (accepted != NULL)
            accepted();
        return 0;
    }
    refused(rc, what, "not memory the CUDA driver knows");
    return 1;
}

/* Whether all n device bytes at p hold `poison` once the context is idle;
 * 0 also when they cannot be read back. */
static inline int device_untouched(CUdeviceptr p, size_t n, unsigned char poison)
{
    unsigned char *buf = malloc(n);
    int ok = buf != NULL && drv->cuCtxSynchronize() == CUDA_SUCCESS &&
             drv->cuMemcpyDtoH(buf, p, n) == CUDA_SUCCESS;
    for (size_t i = 0; ok && i < n; i++)
        ok = buf[i] == poison;
    free(buf);
    return ok;
}

/* Fails the case unless all n host bytes at p still hold `poison`. */
static inline void check_host_untouched(const unsigned char *p, size_t n, unsigned char poison,
                                        const char *what)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != poison) {
            CASE_FAIL("%s was written (byte %zu)", what, i);
            return;
        }
}

/* ## Lists of specializations */
struct vlist {
    struct cuspec__variant *v;
    size_t n, cap;
};

static inline int vlist_add(struct vlist *l, const struct cuspec__variant *v)
{
    for (size_t i = 0; i < l->n; i++)
        if (memcmp(&l->v[i], v, sizeof *v) == 0)
            return 0;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 256;
        struct cuspec__variant *grown = realloc(l->v, cap * sizeof *grown);
        if (grown == NULL)
            return -1;
        l->v = grown;
        l->cap = cap;
    }
    l->v[l->n++] = *v;
    return 0;
}

static inline int collect(const struct cuspec__variant *v, void *user)
{
    return vlist_add(user, v) == 0 ? 0 : 1;
}

static inline int param_index(const struct cuspec__family *f, const char *name)
{
    for (int i = 0; i < f->n_params; i++)
        if (strcmp(f->params[i].name, name) == 0)
            return i;
    return -1;
}

/* A private store (named before the first cuspec call), the skip when there
 * is no GPU, a fresh seed, and a current context on device 0. Returns 1 with
 * ctx ready; 0 with ctx NULL and the reason printed. */
static inline int gpu_cases_setup(void)
{
    if (mkdtemp(store_dir) == NULL)
        tap_skip("cannot make a temporary folder");
    store_made = 1;
    atexit(remove_store);
    setenv("CUSPEC_CACHE_DIR", store_dir, 1);
    gpu_require();
    rng_seed();
    int rc = cuspec_ctx_create(&ctx, 0);
    if (rc != CUSPEC_OK) {
        printf("# cuspec_ctx_create: %s: %s\n", cuspec_strerror(rc), cuspec_last_error());
        ctx = NULL;
        return 0;
    }
    if (cuspec__ctx_enter(ctx, &ctx_pushed) != CUSPEC_OK) {
        printf("# cuspec__ctx_enter: %s\n", cuspec_last_error());
        cuspec_ctx_destroy(ctx);
        ctx = NULL;
        return 0;
    }
    printf("# device %s (sm_%d%d, %d SMs)\n", ctx->info.name, ctx->info.sm_major,
           ctx->info.sm_minor, ctx->info.sm_count);
    return 1;
}

#endif
