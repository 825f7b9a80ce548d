/* Internal declarations shared by the library's files (not installed).
 * Public names are cuspec_*, internal non-static ones cuspec__*. */
#ifndef CUSPEC_INTERNAL_H
#define CUSPEC_INTERNAL_H

#include "config.h"
#include "cuspec.h"

#include <cuda.h>
#include <nvrtc.h>
#include <stdarg.h>
#include <stddef.h>

#if defined(__GNUC__)
#define CUSPEC__PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CUSPEC__PRINTF(f, a)
#endif

/* ## Errors (error.c) */

/* Records `status` with a printf-style detail for cuspec_last_error() and
 * returns `status`, so error paths read `return cuspec__fail(...)`. */
int cuspec__fail(int status, const char *fmt, ...) CUSPEC__PRINTF(2, 3);
int cuspec__vfail(int status, const char *fmt, va_list ap);
/* Prepends "what: " to the current detail (context for a nested failure). */
int cuspec__fail_context(int status, const char *fmt, ...) CUSPEC__PRINTF(2, 3);
void cuspec__clear_error(void);
/* Sends a warning to the handler set by cuspec_set_warning_handler, once per
 * distinct message per process. Never changes the last-error detail. */
void cuspec__warn(const char *fmt, ...) CUSPEC__PRINTF(1, 2);

#define CUSPEC__RETURN_IF(cond, status, ...)                                                       \
    do {                                                                                           \
        if (cond)                                                                                  \
            return cuspec__fail((status), __VA_ARGS__);                                            \
    } while (0)

/* ## CUDA driver (driver.c)
 * Entry points resolved once through cuGetProcAddress at a pinned API
 * version; X(name, required). */
#define CUSPEC__DRIVER_API_VERSION 12000

#define CUSPEC__DRIVER_SYMBOLS(X)                                                                  \
    X(cuInit, 1)                                                                                   \
    X(cuDriverGetVersion, 1)                                                                       \
    X(cuGetErrorName, 1)                                                                           \
    X(cuGetErrorString, 1)                                                                         \
    X(cuDeviceGetCount, 1)                                                                         \
    X(cuDeviceGet, 1)                                                                              \
    X(cuDeviceGetName, 1)                                                                          \
    X(cuDeviceGetAttribute, 1)                                                                     \
    X(cuDeviceTotalMem, 1)                                                                         \
    X(cuDeviceGetUuid, 0)                                                                          \
    X(cuDevicePrimaryCtxRetain, 1)                                                                 \
    X(cuDevicePrimaryCtxRelease, 1)                                                                \
    X(cuCtxPushCurrent, 1)                                                                         \
    X(cuCtxPopCurrent, 1)                                                                          \
    X(cuCtxGetCurrent, 1)                                                                          \
    X(cuCtxGetDevice, 1)                                                                           \
    X(cuCtxSynchronize, 1)                                                                         \
    X(cuModuleLoadDataEx, 1)                                                                       \
    X(cuModuleUnload, 1)                                                                           \
    X(cuModuleGetFunction, 1)                                                                      \
    X(cuModuleGetGlobal, 0)                                                                        \
    X(cuLaunchKernel, 1)                                                                           \
    X(cuLaunchKernelEx, 0)                                                                         \
    X(cuFuncGetAttribute, 1)                                                                       \
    X(cuOccupancyMaxActiveBlocksPerMultiprocessor, 1)                                              \
    X(cuMemAlloc, 1)                                                                               \
    X(cuMemFree, 1)                                                                                \
    X(cuMemAllocPitch, 1)                                                                          \
    X(cuMemGetInfo, 1)                                                                             \
    X(cuMemcpyHtoD, 1)                                                                             \
    X(cuMemcpyDtoH, 1)                                                                             \
    X(cuMemcpyDtoDAsync, 1)                                                                        \
    X(cuMemsetD8, 1)                                                                               \
    X(cuMemsetD8Async, 1)                                                                          \
    X(cuMemsetD32Async, 1)                                                                         \
    X(cuDeviceGetDefaultMemPool, 1)                                                                \
    X(cuMemAllocFromPoolAsync, 1)                                                                  \
    X(cuMemFreeAsync, 1)                                                                           \
    X(cuPointerGetAttribute, 1)                                                                    \
    X(cuStreamCreate, 1)                                                                           \
    X(cuStreamDestroy, 1)                                                                          \
    X(cuStreamSynchronize, 1)                                                                      \
    X(cuStreamIsCapturing, 1)                                                                      \
    X(cuStreamGetId, 1)                                                                            \
    X(cuThreadExchangeStreamCaptureMode, 1)                                                        \
    X(cuEventCreate, 1)                                                                            \
    X(cuEventDestroy, 1)                                                                           \
    X(cuEventRecord, 1)                                                                            \
    X(cuEventQuery, 1)                                                                             \
    X(cuEventSynchronize, 1)                                                                       \
    X(cuEventElapsedTime, 1)                                                                       \
    X(cuStreamBeginCapture, 1)                                                                     \
    X(cuStreamEndCapture, 1)                                                                       \
    X(cuGraphInstantiateWithFlags, 1)                                                              \
    X(cuGraphLaunch, 1)                                                                            \
    X(cuGraphExecDestroy, 1)                                                                       \
    X(cuGraphDestroy, 1)                                                                           \
    X(cuGraphAddMemAllocNode, 1)                                                                   \
    X(cuGraphAddMemFreeNode, 1)                                                                    \
    X(cuUserObjectCreate, 1)                                                                       \
    X(cuGraphRetainUserObject, 1)

/* Entry points at API 12.3 (resolved at that version; NULL from an older
 * driver): the capture graph's dependencies, with edge data. */
#define CUSPEC__DRIVER_API_VERSION_12_3 12030
#define CUSPEC__DRIVER_SYMBOLS_12_3(X) X(cuStreamGetCaptureInfo, 0)

struct cuspec__driver {
#define CUSPEC__DRIVER_MEMBER(name, required) __typeof__(&name) name;
    CUSPEC__DRIVER_SYMBOLS(CUSPEC__DRIVER_MEMBER)
    CUSPEC__DRIVER_SYMBOLS_12_3(CUSPEC__DRIVER_MEMBER)
#undef CUSPEC__DRIVER_MEMBER
    int version;   /* cuDriverGetVersion */
    int no_device; /* cuInit said CUDA_ERROR_NO_DEVICE */
};

/* Opens the driver once; *drv is valid for the life of the process. */
int cuspec__driver(const struct cuspec__driver **drv);
/* CUSPEC_OK for CUDA_SUCCESS, else CUSPEC_ERR_CUDA with a detail naming
 * `what`, the CUresult's name and its text. */
int cuspec__cu_check(CUresult r, const char *what);

/* ## Devices (device.c) */
/* The CUdevice for `ordinal`, with a clear error when it does not exist. */
int cuspec__device_get(int ordinal, CUdevice *dev);

/* ## NVRTC (nvrtc.c) */
#define CUSPEC__NVRTC_SYMBOLS(X)                                                                   \
    X(nvrtcVersion)                                                                                \
    X(nvrtcGetErrorString)                                                                         \
    X(nvrtcGetNumSupportedArchs)                                                                   \
    X(nvrtcGetSupportedArchs)                                                                      \
    X(nvrtcCreateProgram)                                                                          \
    X(nvrtcDestroyProgram)                                                                         \
    X(nvrtcAddNameExpression)                                                                      \
    X(nvrtcCompileProgram)                                                                         \
    X(nvrtcGetLoweredName)                                                                         \
    X(nvrtcGetProgramLogSize)                                                                      \
    X(nvrtcGetProgramLog)                                                                          \
    X(nvrtcGetPTXSize)                                                                             \
    X(nvrtcGetPTX)                                                                                 \
    X(nvrtcGetCUBINSize)                                                                           \
    X(nvrtcGetCUBIN)

struct cuspec__nvrtc {
#define CUSPEC__NVRTC_MEMBER(name) __typeof__(&name) name;
    CUSPEC__NVRTC_SYMBOLS(CUSPEC__NVRTC_MEMBER)
#undef CUSPEC__NVRTC_MEMBER
    cuspec_nvrtc_info info;
};

/* Opens NVRTC once (lazily); *nv is valid for the life of the process. */
int cuspec__nvrtc(const struct cuspec__nvrtc **nv);

/* ## Hashes (hash.c): xxHash XXH3 */
/* XXH3-128 of data as 32 lowercase hex digits and a terminating NUL. */
void cuspec__hash128_hex(const void *data, size_t len, char hex[33]);
uint64_t cuspec__hash64(const void *data, size_t len);
/* XXH3-64 of a's bytes followed by b's. */
uint64_t cuspec__hash64_pair(const void *a, size_t a_len, const void *b, size_t b_len);

/* ## Store (store.c): see cuspec.h and DESIGN.md "The store" */
/* 2: the checksum covers the whole entry, header included. */
#define CUSPEC__STORE_FORMAT 2

/* Where a kernel came from: the public cuspec_tier values. */
#define CUSPEC__TIER_TABLE CUSPEC_TIER_TABLE
#define CUSPEC__TIER_STORE CUSPEC_TIER_STORE
#define CUSPEC__TIER_SYSTEM CUSPEC_TIER_SYSTEM
#define CUSPEC__TIER_NVRTC CUSPEC_TIER_NVRTC
#define CUSPEC__TIER_PTX CUSPEC_TIER_PTX

struct cuspec__entry {
    int kind;   /* cuspec_entry_kind */
    char *meta; /* NUL-terminated "name=value\n" lines */
    void *payload;
    size_t len;
};
void cuspec__entry_free(struct cuspec__entry *e);

/* Looks `key` up in the user store, then the system store. On a hit:
 * CUSPEC_OK, *e filled (free with cuspec__entry_free) and *tier set; a
 * user-store hit records the use for LRU eviction. On a miss:
 * CUSPEC_ERR_NOT_FOUND. A bad entry met on the way (short, wrong magic or
 * version, bad checksum, other key) is quarantined, counted and warned
 * about, and is a miss. */
int cuspec__store_get(const char *key, int kind, struct cuspec__entry *e, int *tier);

/* Publishes an entry to the user store atomically (temp file in the same
 * folder, write, fsync, rename, fsync the folder), then evicts compiled
 * entries past the size bound. A store that cannot be written is not the
 * caller's failure: it warns once, counts, and returns CUSPEC_OK. */
int cuspec__store_put(const char *key, int kind, const char *meta, const void *payload, size_t len);
/* The same for callers whose whole point is the entry (importing tuning
 * records, compiling ahead of time): a store that cannot be written is
 * CUSPEC_ERR_IO, saying why. */
int cuspec__store_publish(const char *key, int kind, const char *meta, const void *payload,
                          size_t len);
/* Takes the user store's lock on `key` for a compile: while one process
 * compiles a key, the others wait for its entry instead of compiling it too.
 * Waits at most cuspec__store_lock_wait_ms; then, or when the store cannot
 * be used, goes on without the lock (lk->fd == -1): a lock saves work, it is
 * never needed for correctness. lk->waited says whether another process
 * held it (the key may be in the store now). Always pair with
 * cuspec__store_unlock. */
struct cuspec__store_lock {
    int fan, fd, waited;
    char name[48];
};
extern int cuspec__store_lock_wait_ms;
void cuspec__store_lock(const char *key, struct cuspec__store_lock *lk);
void cuspec__store_unlock(struct cuspec__store_lock *lk);

/* CUSPEC_OK when the user store can be used, else CUSPEC_ERR_IO saying why. */
int cuspec__store_usable(void);

/* Counts one NVRTC compile in the store's process counters. */
void cuspec__store_count_compile(void);

/* ## Files at paths the user names, outside the store (userfile.c) */
/* Creates a new file next to `path` to write it through, exclusively (never
 * through a link), mode 0644 before the umask; its name goes to tmp (`size`
 * bytes) and an fd open for writing to *fd. CUSPEC_ERR_IO saying why. */
int cuspec__file_create(const char *path, char *tmp, size_t size, int *fd);
/* Renames tmp (written and closed) over `path`; on failure removes tmp and
 * returns CUSPEC_ERR_IO saying why. */
int cuspec__file_replace(const char *tmp, const char *path);
/* Reads the regular file at `path`, of at most `max` bytes, into a malloc'd,
 * NUL-terminated *text of *len bytes. A directory, FIFO, device or socket
 * is refused at once (never waited on), CUSPEC_ERR_IO saying what it is;
 * CUSPEC_ERR_NOMEM. */
int cuspec__file_read(const char *path, size_t max, char **text, size_t *len);

/* ## Small helpers (error.c) */
/* The value of the first "name=" line of text (up to its newline), or NULL
 * when there is none. */
const char *cuspec__text_find(const char *text, const char *name);
/* The same into buf: 1, or 0 when there is no such line or the value does
 * not fit. */
int cuspec__text_field(const char *text, const char *name, char *buf, size_t size);
/* Copies into a fixed buffer, truncating; always terminates. */
void cuspec__strlcpy(char *dst, const char *src, size_t size);

#endif /* CUSPEC_INTERNAL_H */
