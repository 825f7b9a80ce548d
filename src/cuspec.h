/* cuspec: JIT-specialized, autotuned CUDA reductions and transposes.
 *
 * The one public header. Every function returns 0 (CUSPEC_OK) or a negative
 * status; cuspec_strerror() names a status and cuspec_last_error() gives the
 * detail of the calling thread's last failure. The library never prints and
 * never exits. It needs no CUDA header: device pointers are plain integers
 * (CUdeviceptr) and streams opaque pointers (CUstream). */
#ifndef CUSPEC_H
#define CUSPEC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define CUSPEC_EXPORT __attribute__((visibility("default")))
#else
#define CUSPEC_EXPORT
#endif

/* ## Status codes */
#define CUSPEC_STATUS_MAP(X)                                                                       \
    X(OK, 0, "success")                                                                            \
    X(ERR_INVALID, -1, "invalid argument")                                                         \
    X(ERR_NOMEM, -2, "out of host memory")                                                         \
    X(ERR_NO_DRIVER, -3, "no usable CUDA driver")                                                  \
    X(ERR_DRIVER_TOO_OLD, -4, "CUDA driver too old")                                               \
    X(ERR_NO_DEVICE, -5, "no such CUDA device")                                                    \
    X(ERR_CUDA, -6, "CUDA driver call failed")                                                     \
    X(ERR_NO_NVRTC, -7, "NVRTC not available")                                                     \
    X(ERR_COMPILE, -8, "kernel compilation failed")                                                \
    X(ERR_STORE, -9, "store unusable")                                                             \
    X(ERR_CORRUPT, -10, "corrupt store entry")                                                     \
    X(ERR_NOT_FOUND, -11, "not found")                                                             \
    X(ERR_UNSUPPORTED, -12, "not supported")                                                       \
    X(ERR_IO, -13, "I/O error")

typedef enum cuspec_status {
#define CUSPEC_STATUS_ENUM(name, value, text) CUSPEC_##name = (value),
    CUSPEC_STATUS_MAP(CUSPEC_STATUS_ENUM)
#undef CUSPEC_STATUS_ENUM
} cuspec_status;

/* A sentence for `status` ("invalid argument"); "unknown status" for values
 * outside the list. Static storage. */
CUSPEC_EXPORT const char *cuspec_strerror(int status);

/* The enumerator's name for `status` ("CUSPEC_ERR_INVALID"), or NULL for an
 * unknown value. Static storage. */
CUSPEC_EXPORT const char *cuspec_status_name(int status);

/* The detail of the calling thread's most recent failure: the offending
 * argument, the CUresult name and text, the NVRTC log, the dlopen error.
 * Empty string when none. Valid until this thread's next cuspec call. */
CUSPEC_EXPORT const char *cuspec_last_error(void);

/* The library's version, "MAJOR.MINOR.PATCH". Static storage. */
CUSPEC_EXPORT const char *cuspec_version(void);

/* ## Driver and devices
 *
 * The CUDA driver (libcuda.so.1, or $CUSPEC_LIBCUDA) is opened on first use.
 * Without one these return CUSPEC_ERR_NO_DRIVER and the detail says what was
 * tried and what to install. */

/* The driver's CUDA version, e.g. 13000 for 13.0, in *version. */
CUSPEC_EXPORT int cuspec_driver_version(int *version);

/* The number of CUDA devices in *count (0 is not an error). */
CUSPEC_EXPORT int cuspec_device_count(int *count);

typedef struct cuspec_device_info {
    int ordinal;
    char name[256];
    int sm_major, sm_minor;       /* compute capability: sm_XY */
    int sm_count;                 /* multiprocessors */
    uint64_t total_mem;           /* bytes */
    int mem_bus_width;            /* bits */
    int mem_clock_khz;            /* peak memory clock */
    double peak_bandwidth;        /* bytes/s implied by bus width and clock (DDR) */
    int l2_bytes;
    int max_threads_per_block;
    int max_smem_per_block;       /* bytes, with the opt-in limit */
    int driver_version;           /* as cuspec_driver_version() */
    char uuid[48];                /* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" */
} cuspec_device_info;

/* Fills *info for device `ordinal` (0-based). CUSPEC_ERR_NO_DEVICE when the
 * ordinal is out of range. */
CUSPEC_EXPORT int cuspec_device_get_info(int ordinal, cuspec_device_info *info);

/* ## NVRTC
 *
 * NVRTC is opened only when something must be compiled, or when asked here:
 * $CUSPEC_LIBNVRTC, else libnvrtc.so.13, .so.12, libnvrtc.so, then the same
 * names in the CUDA toolkit found at build time. */

#define CUSPEC_MAX_ARCHS 64

typedef struct cuspec_nvrtc_info {
    char path[1024];              /* the file that was opened */
    int major, minor;             /* NVRTC version */
    int n_archs;
    int archs[CUSPEC_MAX_ARCHS];  /* supported sm_XY as 10*X+Y, ascending */
} cuspec_nvrtc_info;

/* Loads NVRTC (if not yet loaded) and describes it. CUSPEC_ERR_NO_NVRTC
 * when none can be opened; the detail lists what was tried. */
CUSPEC_EXPORT int cuspec_nvrtc_get_info(cuspec_nvrtc_info *info);

/* ## Warnings
 *
 * Conditions that do not fail a call but that a person should hear about (a
 * store that cannot be written or is refused, a bad entry quarantined) go to
 * a process-wide handler. The default handler discards them; the CLI prints
 * them on stderr. Each distinct condition is reported once per process. */
typedef void (*cuspec_warning_fn)(const char *message, void *user);
/* Installs `fn` (NULL restores the default) and returns nothing. */
CUSPEC_EXPORT void cuspec_set_warning_handler(cuspec_warning_fn fn, void *user);

/* ## The store
 *
 * Compiled kernels (cubin, ptx) and tuning records live in an on-disk store:
 * $CUSPEC_CACHE_DIR, else $XDG_CACHE_HOME/cuspec, else ~/.cache/cuspec
 * (created 0700), searched before a read-only system store
 * ($CUSPEC_SYSTEM_STORE, else the one installed under the package's data
 * folder). Entries are content-addressed, checksummed and published
 * atomically; a bad entry is a miss, never loaded. The user store is bounded
 * by $CUSPEC_CACHE_MAX_BYTES (default 1 GiB; suffixes K, M, G) with
 * least-recently-used eviction of compiled entries; tuning records are never
 * evicted by size. */

typedef enum cuspec_entry_kind {
    CUSPEC_KIND_CUBIN = 1,
    CUSPEC_KIND_PTX = 2,
    CUSPEC_KIND_TUNING = 3,
} cuspec_entry_kind;
#define CUSPEC_N_KINDS 4 /* kinds index arrays 1..3 */

/* The name of a kind ("cubin", "ptx", "tuning"), or "unknown". */
CUSPEC_EXPORT const char *cuspec_kind_name(int kind);

typedef struct cuspec_store_stats {
    char path[1024];                        /* the user store's folder */
    char system_path[1024];                 /* the system store's folder, "" if none */
    int writable;                           /* 0 when the user store is refused or read-only */
    uint64_t max_bytes;                     /* the size bound */
    uint64_t entries[CUSPEC_N_KINDS];       /* user store, by kind */
    uint64_t bytes[CUSPEC_N_KINDS];         /* user store, by kind (file sizes) */
    uint64_t system_entries;                /* system store, all kinds */
    /* Counters of this process since it started. */
    uint64_t hits, misses, compiles, publishes, bad_entries, evictions, write_failures;
} cuspec_store_stats;

/* Fills *stats: the store's location, what it holds, and this process's
 * counters. */
CUSPEC_EXPORT int cuspec_store_get_stats(cuspec_store_stats *stats);

typedef struct cuspec_store_entry {
    char path[1024];      /* the entry's file */
    int kind;             /* cuspec_entry_kind; 0 when the entry is bad */
    uint64_t size;        /* file size in bytes */
    int64_t last_use;     /* seconds since the epoch: last publish or hit */
    char key[2048];       /* the full key text (truncated if longer) */
    char meta[512];       /* what the entry records about itself (NVRTC version, ...) */
    char problem[256];    /* why the entry is bad, "" when it is good */
} cuspec_store_entry;

/* Called once per entry; a non-zero return stops the walk and is returned. */
typedef int (*cuspec_store_visit_fn)(const cuspec_store_entry *entry, void *user);

/* Visits every entry of the user store (bad ones too, with `problem` set). */
CUSPEC_EXPORT int cuspec_store_list(cuspec_store_visit_fn fn, void *user);

/* Reads every entry of the user store in full (magic, version, checksum,
 * key against file name) and visits each bad one. With `repair`, bad entries
 * and leftover temporary files are removed. *n_bad (may be NULL) gets the
 * count. */
CUSPEC_EXPORT int cuspec_store_verify(int repair, cuspec_store_visit_fn fn, void *user,
                                      uint64_t *n_bad);

/* Removes the user store's entries of the kinds in `kind_mask` (bit 1 << kind;
 * 0 means every kind). *removed (may be NULL) gets the count. */
CUSPEC_EXPORT int cuspec_store_clear(unsigned kind_mask, uint64_t *removed);

/* Evicts compiled entries, least recently used first, until the user store
 * holds at most `max_bytes` (0 means the configured bound); with `stale`,
 * first removes compiled entries made by an NVRTC other than the one this
 * process would load. *removed (may be NULL) gets the count. */
CUSPEC_EXPORT int cuspec_store_prune(uint64_t max_bytes, int stale, uint64_t *removed);

#ifdef __cplusplus
}
#endif
#endif /* CUSPEC_H */
