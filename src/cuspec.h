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

/* The version of this header (the library's when they come from one build;
 * the build checks that they are configure's). A client may run with a
 * later library of the same soname, which cuspec_version() names. */
#define CUSPEC_VERSION_MAJOR 0
#define CUSPEC_VERSION_MINOR 2
#define CUSPEC_VERSION_PATCH 0
/* MAJOR * 10000 + MINOR * 100 + PATCH: 200 for 0.2.0, for #if tests. */
#define CUSPEC_VERSION_NUMBER                                                                      \
    (CUSPEC_VERSION_MAJOR * 10000 + CUSPEC_VERSION_MINOR * 100 + CUSPEC_VERSION_PATCH)

/* ## Structs that grow
 *
 * A struct the caller allocates for the library to fill (cuspec_device_info,
 * cuspec_store_stats, cuspec_bench_result, ...) or to read
 * (cuspec_tune_spec, cuspec_tune_options) ends in reserved space: a later
 * version adds its fields there, so the struct's size and every field's
 * place stay, and a program built against this header runs with a later
 * library of the same soname. Zero a struct the library reads before
 * setting its fields (= {0}, designated initializers, or memset): a field
 * added later reads its zero as "the default", and a call given non-zero
 * reserved space fails with CUSPEC_ERR_INVALID. A struct the library hands to a callback
 * (cuspec_store_entry, cuspec_tune_progress, cuspec_tuning_record) is the
 * library's: it may grow at its end, which a program built before does not
 * see. A program needs a library at least as new as the header it was built
 * with. */

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
    int sm_major, sm_minor; /* compute capability: sm_XY */
    int sm_count;           /* multiprocessors */
    uint64_t total_mem;     /* bytes */
    int mem_bus_width;      /* bits */
    int mem_clock_khz;      /* peak memory clock */
    double peak_bandwidth;  /* bytes/s implied by bus width and clock (DDR) */
    int l2_bytes;
    int max_threads_per_block;
    int max_smem_per_block; /* bytes, with the opt-in limit */
    int driver_version;     /* as cuspec_driver_version() */
    char uuid[48];          /* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" */
    uint64_t reserved[8]; /* zero: later fields are taken from here */
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
    char path[1024];  /* the file that was opened */
    int major, minor; /* NVRTC version */
    int n_archs;
    int archs[CUSPEC_MAX_ARCHS]; /* supported sm_XY as 10*X+Y, ascending */
    uint64_t reserved[8]; /* zero: later fields are taken from here */
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

/* ## Sizes
 *
 * A size as people write it, read the same way by $CUSPEC_CACHE_MAX_BYTES
 * and by the cuspec command's options: decimal digits, then optionally one
 * suffix K, M or G (either case) for 2^10, 2^20 or 2^30; or 2^K for K from
 * 0 to 63; no sign, space or other suffix. */

/* The size `text` in *value: CUSPEC_OK, or CUSPEC_ERR_INVALID (and *value
 * unchanged) when it is not such a size or is more than UINT64_MAX. 0 is a
 * size: a caller that needs more than 0 says so. */
CUSPEC_EXPORT int cuspec_parse_size(const char *text, uint64_t *value);

/* ## The store
 *
 * Compiled kernels (cubin, ptx) and tuning records live in an on-disk store:
 * $CUSPEC_CACHE_DIR, else $XDG_CACHE_HOME/cuspec, else ~/.cache/cuspec
 * (created 0700), searched before a read-only system store
 * ($CUSPEC_SYSTEM_STORE, else the one installed under the package's data
 * folder). Entries are content-addressed, checksummed and published
 * atomically; a bad entry is a miss, never loaded. The user store is bounded
 * by $CUSPEC_CACHE_MAX_BYTES (default 1 GiB; a size as above) with
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
    char path[1024];                  /* the user store's folder */
    char system_path[1024];           /* the system store's folder, "" if none */
    int writable;                     /* 0 when the user store is refused or read-only */
    char why_not_writable[1536];      /* why writable is 0, "" when it is 1 */
    uint64_t max_bytes;               /* the size bound */
    uint64_t entries[CUSPEC_N_KINDS]; /* user store, by kind; [0]: bad entries */
    uint64_t bytes[CUSPEC_N_KINDS];   /* user store, by kind (file sizes); [0]: bad */
    uint64_t system_entries;          /* system store, all kinds */
    uint64_t leftovers;               /* temporary and lock files of writers that died (or
                                         are at work now) */
    uint64_t leftover_bytes;          /* their bytes */
    uint64_t quarantined;             /* bad entries moved aside (at most 64 are kept) */
    /* Counters of this process since it started. */
    uint64_t hits, misses, compiles, publishes, bad_entries, evictions, write_failures;
    uint64_t reserved[8]; /* zero: later fields are taken from here */
} cuspec_store_stats;

/* Fills *stats: the store's location, what it holds, and this process's
 * counters. */
CUSPEC_EXPORT int cuspec_store_get_stats(cuspec_store_stats *stats);

typedef struct cuspec_store_entry {
    char path[1024];   /* the entry's file */
    int kind;          /* cuspec_entry_kind; 0 when the entry is bad */
    uint64_t size;     /* file size in bytes */
    int64_t last_use;  /* seconds since the epoch: last publish or hit */
    char key[2048];    /* the full key text (truncated if longer) */
    char meta[512];    /* what the entry records about itself (NVRTC version, ...) */
    char problem[256]; /* why the entry is bad, "" when it is good */
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
 * 0 means every kind, and the bad entries moved aside too). *removed (may be
 * NULL) gets the count of entries. */
CUSPEC_EXPORT int cuspec_store_clear(unsigned kind_mask, uint64_t *removed);

/* Evicts compiled entries, least recently used first, until the user store
 * holds at most `max_bytes` (0 means the configured bound); with `stale`,
 * first removes compiled entries made by an NVRTC other than the one this
 * process would load. *removed (may be NULL) gets the count. */
CUSPEC_EXPORT int cuspec_store_prune(uint64_t max_bytes, int stale, uint64_t *removed);

/* ## Element types */
typedef enum cuspec_dtype {
    CUSPEC_F32 = 1,
    CUSPEC_F64,
    CUSPEC_I32,
    CUSPEC_I64,
    CUSPEC_U32,
    CUSPEC_U64,
    CUSPEC_I8,
    CUSPEC_U8,
    CUSPEC_I16,
    CUSPEC_U16,
    CUSPEC_F16,
    CUSPEC_BF16,
} cuspec_dtype;

/* Bytes per element of `dtype`, 0 for an unknown value. */
CUSPEC_EXPORT size_t cuspec_dtype_size(int dtype);
/* "f32", "i64", ...; NULL for an unknown value. */
CUSPEC_EXPORT const char *cuspec_dtype_name(int dtype);
/* The dtype named `name` ("f32", ...), or 0 when there is none. */
CUSPEC_EXPORT int cuspec_dtype_from_name(const char *name);

/* ## Kernel families and ahead-of-time compilation
 *
 * A family is one CUDA C++ template (copy, reduce, transpose, lessons) with the
 * parameters it is specialized over. */

/* The name of family `index` (0, 1, ...), NULL past the last. */
CUSPEC_EXPORT const char *cuspec_family_name(int index);

typedef struct cuspec_compile_report {
    unsigned total;    /* specializations asked for */
    unsigned compiled; /* compiled by NVRTC and published */
    unsigned found;    /* already in the store */
    unsigned failed;
    double seconds; /* wall time */
    char first_error[2048];
    unsigned by_ptxas; /* of those compiled, how many ptxas made from the PTX NVRTC
                          made for another arch (CUSPEC_PTXAS, README "Deploying") */
    unsigned reserved32;
    uint64_t reserved[7]; /* zero: later fields are taken from here */
} cuspec_compile_report;

/* Called after each specialization: how many are done, of how many, and the
 * name expression just finished. From worker threads, one call at a time. */
typedef void (*cuspec_progress_fn)(unsigned done, unsigned total, const char *what, void *user);

/* Fills the store ahead of time, with no GPU: compiles the default
 * specializations of `family` (NULL or "all" for every family; with
 * `all_variants`, every legal one) for sm_`arch` (e.g. 90) on `jobs` threads
 * (0: one per core). Entries already in the store are counted as found.
 * Returns CUSPEC_OK when nothing failed, else the first failure's status
 * (the report has the counts and the first error's detail); a store that
 * cannot be used is CUSPEC_ERR_IO before anything is compiled, and a
 * specialization the store does not keep counts as failed. */
CUSPEC_EXPORT int cuspec_compile(const char *family, int arch, int all_variants, int jobs,
                                 cuspec_progress_fn progress, void *user,
                                 cuspec_compile_report *report);

/* Called by cuspec_compile_check for each specialization, in order: its
 * name expression and the tier that would serve it with NVRTC absent,
 * CUSPEC_TIER_STORE (the user store), CUSPEC_TIER_SYSTEM or CUSPEC_TIER_PTX
 * (shipped PTX, which the driver compiles), or 0 when none would;
 * `image_arch` is the sm_XY of the cubin that serves (an older one of the
 * same major may: cubins run on later minor versions), 0 for PTX or none. */
typedef void (*cuspec_check_fn)(const char *kernel, int tier, int image_arch, void *user);

/* Checks a deployment, with no GPU and no NVRTC: for every specialization
 * a call can choose without a tuning record on sm_`arch` (cuspec_compile's
 * default set) of `family` (NULL or "all" for every family), which tier
 * would serve it where NVRTC is absent (see cuspec_check_fn). *missing gets
 * how many none would serve. Returns CUSPEC_OK when the check ran (whatever
 * it found), else the error (an unknown family, a bad arch). */
CUSPEC_EXPORT int cuspec_compile_check(const char *family, int arch, cuspec_check_fn each,
                                       void *user, unsigned *missing);

/* ## Contexts
 *
 * A context ties cuspec to one device: it retains the device's primary
 * context (so pointers from cudaMalloc, PyTorch or CuPy work as they are),
 * holds the loaded kernels and the reductions' scratch (see "The rule for
 * streams and graphs" under Operations). Thread-safe: one context may serve
 * any number of threads and streams. */
typedef struct cuspec_ctx cuspec_ctx;

/* Creates a context for device `ordinal` in *ctx. Free with
 * cuspec_ctx_destroy. When a store holds the copy kernel's cubin, it also
 * launches that kernel once on nothing, on the calling thread's per-thread
 * default stream, and waits for it (which waits for work before it there
 * and on the legacy default stream), so that the first call does not pay
 * the driver's first launch. */
CUSPEC_EXPORT int cuspec_ctx_create(cuspec_ctx **ctx, int ordinal);
/* Releases everything the context holds. Accepts NULL. The caller makes sure
 * no work launched through it is still running. */
CUSPEC_EXPORT void cuspec_ctx_destroy(cuspec_ctx *ctx);
/* The device facts the context was created with. */
CUSPEC_EXPORT const cuspec_device_info *cuspec_ctx_device(const cuspec_ctx *ctx);

/* Where the kernel of the last call on this thread came from. */
typedef enum cuspec_tier {
    CUSPEC_TIER_TABLE = 1, /* already loaded in this context */
    CUSPEC_TIER_STORE,     /* the user store */
    CUSPEC_TIER_SYSTEM,    /* the read-only system store */
    CUSPEC_TIER_NVRTC,     /* compiled now by NVRTC (and published) */
    CUSPEC_TIER_PTX,       /* shipped PTX, compiled by the driver */
} cuspec_tier;
/* "table", "store", "system", "nvrtc", "ptx"; NULL for an unknown value. */
CUSPEC_EXPORT const char *cuspec_tier_name(int tier);

/* The kernel behind this thread's last successful operation: its tier and
 * its name expression (e.g. "cuspec_copy<uint4, 256, 4>"). `fallback` is 1
 * when the kernel the call chose (`wanted`: its tuning record's, or the
 * defaults for its shape) was in no tier and could not be compiled here (no
 * NVRTC): the call ran `kernel` instead, an available one that is correct
 * for its dtype, shape and alignment, maybe slower. `cuspec compile --check`
 * lists what a deployment lacks. */
typedef struct cuspec_launch_info {
    int tier;
    char kernel[256];
    int fallback;
    char wanted[256]; /* empty unless fallback */
    uint64_t reserved[8]; /* zero: later fields are taken from here */
} cuspec_launch_info;
CUSPEC_EXPORT int cuspec_last_launch(cuspec_launch_info *info);

/* ## Operations
 *
 * Device pointers are CUdeviceptr values; `stream` is a CUstream (NULL: the
 * legacy default stream). Every operation validates its arguments first (a
 * bad one is an error and nothing is launched), is asynchronous on `stream`,
 * and may be captured into a CUDA graph.
 *
 * The rule for streams and graphs: two calls that may run at the same time
 * never share memory of cuspec's, whatever streams they are on (any number,
 * created and destroyed as the program goes; CU_STREAM_PER_THREAD of any
 * number of threads; the legacy stream) and wherever a graph holding them
 * is launched. Only reductions use such memory (scratch for partial
 * results); copies and transposes use none, nor does a reduction that runs
 * on one block (up to 4096 f32 elements with the default parameters).
 * - Direct calls (the stream is not capturing) take scratch of the context
 *   that stays with their stream: the call records an event on the stream
 *   after its kernels, and only once it has completed may another stream
 *   have that scratch. Only when all of it is busy on other streams does a
 *   call allocate, 272 KB (cuMemAlloc) kept until cuspec_ctx_destroy: the
 *   context's scratch grows to what the streams busy at once need, with no
 *   limit on the number of streams.
 * - A reduction captured into a graph takes scratch that the graph owns
 *   (given back, through a CUDA user object, when the graph and all its
 *   executables are destroyed); no node is added around its kernels. Each
 *   such graph also gets one small allocation node and its free node, so
 *   that CUDA's rules for graphs with memory nodes apply to it: one
 *   executable graph at a time (a second cuGraphInstantiate fails until the
 *   first is destroyed: capture twice to run two copies at once), which
 *   keeps two runs of the graph from sharing its scratch; no cuGraphClone;
 *   as a child graph only moved into its parent
 *   (CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE, not cuGraphAddChildGraphNode); not
 *   in the body of a conditional node; not instantiated for device launch.
 *   The device must support memory pools (else the captured call fails with
 *   CUSPEC_ERR_UNSUPPORTED). Destroy such graphs before the context. Before
 *   CUDA 12.3 (no way to name the graph being captured) the scratch is
 *   allocated in the graph through the stream, with a memset of its ticket. */
typedef uint64_t cuspec_devptr;

/* Copies `bytes` bytes from `src` to `dst` (device memory, not overlapping)
 * with the copy family: the bandwidth ceiling cuspec measures against. */
CUSPEC_EXPORT int cuspec_copy(cuspec_ctx *ctx, cuspec_devptr dst, cuspec_devptr src, size_t bytes,
                              void *stream);

/* ## Reductions
 *
 * out[0] = op over in[0 .. n-1], for every dtype: f32, f64, f16, bf16, i8,
 * u8, i16, u16, i32, u32, i64, u64. Min and max write the winning element
 * (in the input's dtype; a zero of either sign, and a NaN not necessarily
 * with the input's payload); float min/max propagate NaN (any NaN in, NaN out);
 * n = 0 writes the identity (sum: 0; min: +inf or the type's largest value;
 * max: -inf or the type's smallest). Integer sums and dots accumulate in 64
 * bits and write 64 bits of the input's signedness: i8, i16, i32 -> i64;
 * u8, u16, u32 -> u64 (cuspec_reduce_out_dtype says which), exact unless
 * the true value leaves the 64-bit range (then it wraps). f16 and bf16 sums
 * and dots accumulate in f32 and write f32. f32 (and f16, bf16) accumulates
 * in f32 with many independent partial sums and a tree: |error| <= 160 *
 * 2^-24 * sum|x| for n = 2^28 (see templates/reduce.cuh). `in` must be
 * aligned to its element size; any such alignment is fast (16-byte vector
 * loads start at the first aligned element); with n = 0 it is not read and
 * may be NULL. Scratch: see "The rule for streams and graphs" above. */
typedef enum cuspec_op {
    CUSPEC_SUM = 0,
    CUSPEC_MIN = 1,
    CUSPEC_MAX = 2,
    CUSPEC_ARGMIN = 3, /* cuspec_argreduce and the axis reductions only */
    CUSPEC_ARGMAX = 4, /* cuspec_argreduce and the axis reductions only */
} cuspec_op;

/* "sum", "min", "max", "argmin", "argmax"; NULL for an unknown value. */
CUSPEC_EXPORT const char *cuspec_op_name(int op);
/* The dtype cuspec_reduce (op), cuspec_dot (op = -1) or cuspec_argreduce
 * (op CUSPEC_ARGMIN or CUSPEC_ARGMAX: its value; the index is an i64)
 * writes for `dtype`, 0 when the pair is not supported. */
CUSPEC_EXPORT int cuspec_reduce_out_dtype(int op, int dtype);

CUSPEC_EXPORT int cuspec_reduce(cuspec_ctx *ctx, int op, int dtype, cuspec_devptr in, size_t n,
                                cuspec_devptr out, void *stream);
/* out[0] = sum of a[i] * b[i] (fused multiply-add for floats). */
CUSPEC_EXPORT int cuspec_dot(cuspec_ctx *ctx, int dtype, cuspec_devptr a, cuspec_devptr b, size_t n,
                             cuspec_devptr out, void *stream);

/* argmin (op CUSPEC_ARGMIN) or argmax (CUSPEC_ARGMAX) of in[0 .. n-1], in
 * one pass over the data: value[0] gets the extreme element (in the input's
 * dtype) and index[0] its position (an i64, 8-byte aligned). Ties give the
 * smallest index; a NaN beats every number and the first NaN's index is
 * given (as NumPy and PyTorch do; value[0] is then a NaN, not necessarily
 * with that element's payload); -0.0 and +0.0 are equal. Either of value
 * and index may be 0 (not written), not both. n must be at least 1: an
 * empty array has no index to give (CUSPEC_ERR_INVALID naming n). Any dtype;
 * the rest as cuspec_reduce. */
CUSPEC_EXPORT int cuspec_argreduce(cuspec_ctx *ctx, int op, int dtype, cuspec_devptr in, size_t n,
                                   cuspec_devptr value, cuspec_devptr index, void *stream);

/* ## Reductions along an axis
 *
 * One result per row, or per column, of `batch` row-major matrices of
 * rows x cols elements, rows ld elements apart (ld >= cols; pitched memory
 * works: ld = pitch / element size), the b-th matrix batch_stride elements
 * after the first (any stride: matrices may overlap; ignored when batch is
 * 1). batch is at least 1; rows and cols may be 0. The results are
 * contiguous: matrix b's row r at value[b * rows + r] (columns: value[b *
 * cols + c]).
 * - sum, min, max, dot: `value` gets the result, of the dtype
 *   cuspec_reduce_axis_out_dtype says for the op (dot: op -1), with the rules
 *   of cuspec_reduce: integer sums in 64 bits, f16 and bf16 sums in f32,
 *   float min/max propagate NaN, an
 *   empty reduction (cols = 0 for rows, rows = 0 for columns) writes the
 *   identity. `index` must be 0.
 * - CUSPEC_ARGMIN, CUSPEC_ARGMAX: `value` gets the extreme element (the
 *   input's dtype) and `index` its index along the axis (int64_t: the column
 *   for rows, the row for columns); either may be 0, not both. Ties give the
 *   smallest index; where there is a NaN, the first NaN wins (as NumPy and
 *   PyTorch; `value` is then a NaN, not necessarily with that element's
 *   payload). An empty reduction is an error.
 * Floats accumulate in their own type (f32 in f32; f16 and bf16 in f32)
 * with several partial sums per thread and trees: with the record-free
 * parameters, |error| <= (n / 8 + 64) * u * sum|x| for a result of n
 * elements (u = 2^-24 for f32, f16 and bf16, 2^-53 for f64); tuned ones are
 * checked against it. No results (rows = 0 for rows, cols = 0
 * for columns) is no work: nothing is read or written and the pointers may
 * be 0. Outputs must not overlap the input or each other. Every dtype.
 * Short rows and long, many columns and few, are read at close to the copy
 * bandwidth (columns in vectors of up to 16 bytes where every row, by ld
 * and the pointer, starts on one: the last vector of a row then reads on
 * into the padding between rows, never past the last row's cols, so
 * compute-sanitizer's initcheck reports padding never written; element
 * by element, slower, where not);
 * a long row (or a tall column) with few results is split across blocks,
 * whose partial results take scratch as cuspec_reduce's do (see "The rule
 * for streams and graphs"). */
typedef struct cuspec_matrix {
    size_t rows, cols;   /* each matrix's */
    size_t ld;           /* elements from one row to the next, >= cols */
    size_t batch;        /* matrices, >= 1 */
    size_t batch_stride; /* elements from one matrix to the next */
} cuspec_matrix;

/* The dtype of `value` that cuspec_reduce_rows/_cols (op) or
 * cuspec_dot_rows/_cols (op -1) write for `dtype` (argmin/argmax: the
 * value's; the index is an i64), 0 when they do not take the pair. */
CUSPEC_EXPORT int cuspec_reduce_axis_out_dtype(int op, int dtype);

/* value[r] = op over row r: in[r * ld + 0 .. cols-1] (per matrix). */
CUSPEC_EXPORT int cuspec_reduce_rows(cuspec_ctx *ctx, int op, int dtype, cuspec_devptr in,
                                     const cuspec_matrix *shape, cuspec_devptr value,
                                     cuspec_devptr index, void *stream);
/* value[c] = op over column c: in[0 .. rows-1][c] (per matrix). */
CUSPEC_EXPORT int cuspec_reduce_cols(cuspec_ctx *ctx, int op, int dtype, cuspec_devptr in,
                                     const cuspec_matrix *shape, cuspec_devptr value,
                                     cuspec_devptr index, void *stream);
/* out[r] = sum over row r of a * b (fused multiply-add for floats); a and b
 * have the same shape. */
CUSPEC_EXPORT int cuspec_dot_rows(cuspec_ctx *ctx, int dtype, cuspec_devptr a, cuspec_devptr b,
                                  const cuspec_matrix *shape, cuspec_devptr out, void *stream);
/* out[c] = sum over column c of a * b. */
CUSPEC_EXPORT int cuspec_dot_cols(cuspec_ctx *ctx, int dtype, cuspec_devptr a, cuspec_devptr b,
                                  const cuspec_matrix *shape, cuspec_devptr out, void *stream);

/* ## Transposes
 *
 * out = in^T: `in` is a row-major rows x cols matrix whose rows are ld_in
 * elements apart (ld_in >= cols; pitched memory from cuMemAllocPitch works:
 * ld = pitch / element size); `out` is cols x rows with rows ld_out apart
 * (ld_out >= rows). Any dtype: only its size matters (1, 2, 4 or 8 bytes).
 * Nothing outside the rows x cols (cols x rows) elements is read (written).
 * rows and cols must be at least 1. in and out must not overlap (their whole
 * extents, from the first element to the last). Vector loads are used where the pointers and
 * leading dimensions allow; otherwise a variant that does not need them. Where output rows do
 * not start on 32-byte sectors (odd ld_out), each block writes its piece of an output row
 * shifted to whole sectors, so no two blocks write parts of one sector. */
CUSPEC_EXPORT int cuspec_transpose(cuspec_ctx *ctx, int dtype, cuspec_devptr in, size_t rows,
                                   size_t cols, size_t ld_in, cuspec_devptr out, size_t ld_out,
                                   void *stream);

/* The batched form: `batch` matrices, the b-th at in + b*stride_in and
 * out + b*stride_out (elements). Output matrices must not overlap. */
CUSPEC_EXPORT int cuspec_transpose_batched(cuspec_ctx *ctx, int dtype, cuspec_devptr in,
                                           size_t rows, size_t cols, size_t ld_in, size_t stride_in,
                                           cuspec_devptr out, size_t ld_out, size_t stride_out,
                                           size_t batch, void *stream);

/* ## Benchmarks
 *
 * Each benchmark allocates its own inputs (fresh random values, never
 * zeros), checks the result once against a CPU reference, then times calls
 * with CUDA events after a warm-up: the median of `reps` calls, each on an
 * input the L2 cache does not hold (inputs larger than L2, or rotated
 * through a pool several times its size). Bandwidth counts the fewest bytes
 * the operation must move, in GB/s (1e9 bytes per second). */
typedef struct cuspec_bench_result {
    double median_us; /* one call, CUDA events */
    double p10_us, p90_us;
    double batch_us;  /* mean per call over back-to-back calls on one stream */
    double graph_us;  /* the same captured in a CUDA graph, launched after the L2
                       * is flushed: the device's time per call, without the
                       * host's cost of enqueueing each */
    double bytes;     /* bytes one call moves */
    double gbs;       /* bytes / median */
    double copy_us;   /* transposes: the median of copying the same bytes, timed
                       * the same way (the better of cuMemcpyDtoDAsync and
                       * cuspec_copy); 0 for reductions */
    int correct;      /* the checked result matched the CPU reference */
    double error;     /* float results: |got - ref| / sum|x| (0 for exact types) */
    char kernel[256]; /* name expression of the kernel that ran */
    int tier;         /* where it came from on its first call (cuspec_tier) */
    int fallback;     /* ran instead of `wanted`, as cuspec_launch_info says */
    char wanted[256];
    uint64_t reserved[8]; /* zero: later fields are taken from here */
} cuspec_bench_result;

/* The device's copy bandwidth measured now, counting bytes read + written,
 * over `bytes`-byte copies: *memcpy_gbs through cuMemcpyDtoDAsync and
 * *kernel_gbs through cuspec_copy (either may be NULL). */
CUSPEC_EXPORT int cuspec_bench_copy(cuspec_ctx *ctx, size_t bytes, int reps, double *memcpy_gbs,
                                    double *kernel_gbs);

/* cuspec_reduce (op CUSPEC_SUM/MIN/MAX), cuspec_argreduce (CUSPEC_ARGMIN/
 * ARGMAX: the value and the index checked) or cuspec_dot (op -1) of n
 * elements. */
CUSPEC_EXPORT int cuspec_bench_reduce(cuspec_ctx *ctx, int op, int dtype, size_t n, int reps,
                                      cuspec_bench_result *result);

/* cuspec_reduce_rows (axis 0) or cuspec_reduce_cols (axis 1) of op
 * (CUSPEC_SUM .. CUSPEC_ARGMAX; -1: cuspec_dot_rows/_cols) over one rows x
 * cols matrix with leading dimension ld (0: cols). GB/s counts the bytes
 * read. */
CUSPEC_EXPORT int cuspec_bench_reduce_axis(cuspec_ctx *ctx, int axis, int op, int dtype,
                                           size_t rows, size_t cols, size_t ld, int reps,
                                           cuspec_bench_result *result);

/* cuspec_transpose of a rows x cols matrix (ld = the row length). */
CUSPEC_EXPORT int cuspec_bench_transpose(cuspec_ctx *ctx, int dtype, size_t rows, size_t cols,
                                         int reps, cuspec_bench_result *result);

/* The same with leading dimensions ld_in >= cols and ld_out >= rows (0: the
 * row length), as pitched memory has them. The input's padding holds random
 * bytes; the output's must come back untouched for the result to count as
 * correct. GB/s counts the matrix's bytes, not the padding. */
CUSPEC_EXPORT int cuspec_bench_transpose_ld(cuspec_ctx *ctx, int dtype, size_t rows, size_t cols,
                                            size_t ld_in, size_t ld_out, int reps,
                                            cuspec_bench_result *result);

typedef struct cuspec_latency {
    /* The first f32 sum on this context: resolve (module table miss: store,
     * NVRTC or shipped PTX), load, launch, complete. */
    double first_call_ms;
    int first_tier;
    char kernel[256];
    /* Host time to enqueue one call once everything is loaded (microseconds):
     * a raw cuLaunchKernel of the same kernel, and through cuspec. */
    double raw_launch_us, reduce_call_us, copy_call_us;
    uint64_t reserved[8]; /* zero: later fields are taken from here */
} cuspec_latency;

/* Measures dispatch: run it first on a fresh context for an honest first
 * call (a later run finds the kernel in the module table). */
CUSPEC_EXPORT int cuspec_bench_latency(cuspec_ctx *ctx, cuspec_latency *latency);

/* ## Tuning
 *
 * cuspec_tune times the legal specializations of one operation at one size
 * on this context's device and records the fastest in the store, where every
 * later call of that operation in that size bucket finds it (reduce: log2 of
 * n; transpose: log2 of rows and of cols, and the alignment class). */

typedef struct cuspec_tune_spec {
    const char *family; /* "reduce" or "transpose" */
    int op;             /* reduce: CUSPEC_SUM, CUSPEC_MIN, CUSPEC_MAX, CUSPEC_ARGMIN,
                           CUSPEC_ARGMAX, or -1 for dot */
    int dtype;
    size_t n;             /* reduce: elements */
    size_t rows, cols;    /* transpose */
    size_t ld_in, ld_out; /* transpose: leading dimensions (0: the row length). They
                             choose the alignment class the record is made for */
    uint64_t reserved[8]; /* must be zero: later fields are taken from here */
} cuspec_tune_spec;

typedef struct cuspec_tune_progress {
    unsigned done, total; /* candidates of this spec */
    double best_gbs;      /* best so far */
    double elapsed_s;     /* since this spec started */
    const char *what;     /* the candidate just timed */
} cuspec_tune_progress;

typedef struct cuspec_tune_options {
    double budget_s;          /* search time per spec, seconds (0: no limit) */
    int max_candidates;       /* 0: 48. Spaces up to this size are searched exhaustively;
                                 larger ones by the defaults, then (reduce_rows,
                                 reduce_cols, where a flat kernel takes the call) the
                                 one of the flat and non-flat kernels the defaults did
                                 not pick, in the shape a call without a record gives
                                 it, then random sampling and local refinement */
    int top;                  /* re-time the best K to confirm the winner (0: 3) */
    int reps;                 /* timed graph launches per candidate (0: 15) */
    int force;                /* re-time candidates a previous run already timed */
    int jobs;                 /* compile threads (0: one per core) */
    double compile_timeout_s; /* a candidate compiling for longer fails (0: 60 s) */
    volatile const int *stop; /* when it becomes non-zero, stop after the current candidate */
    void (*progress)(const cuspec_tune_progress *p, void *user);
    void *user;
    uint64_t reserved[8]; /* must be zero: later fields are taken from here */
} cuspec_tune_options;

typedef struct cuspec_tune_result {
    char kernel[256];              /* the winner's name expression */
    char params[160];              /* "block=256 items=4 vec=4 single=1 grid=4" */
    double median_us, gbs, spread; /* spread: (p90 - p10) / median of the winner */
    double default_us, default_gbs;
    unsigned candidates; /* in the searched set */
    unsigned timed;      /* timed now */
    unsigned reused;     /* timed by an earlier, interrupted or smaller run */
    unsigned failed;     /* did not compile, launch, or give the right result */
    int stopped;         /* the stop flag ended the search early */
    uint64_t reserved[8]; /* zero: later fields are taken from here */
} cuspec_tune_result;

/* Tunes one operation; the record it writes serves every later call. The
 * log of timed candidates is kept in the store too, so an interrupted run
 * resumes and a re-run with a larger space times only what is new. A store
 * that cannot keep the record is CUSPEC_ERR_IO (before the search when the
 * store cannot be used at all). */
CUSPEC_EXPORT int cuspec_tune(cuspec_ctx *ctx, const cuspec_tune_spec *spec,
                              const cuspec_tune_options *options, cuspec_tune_result *result);

/* The parameters a call of spec on ctx would use now, as "name=value" text,
 * and whether they come from a tuning record (1) or the defaults (0). */
CUSPEC_EXPORT int cuspec_tuned_params(cuspec_ctx *ctx, const cuspec_tune_spec *spec, char *params,
                                      size_t size, int *from_record);

typedef struct cuspec_tuning_record {
    char device[512]; /* "NAME|sm_XY|SMs|memory|driver" */
    char family[16];
    char dtype[8];
    char op[8];      /* reduce: sum, min, max, dot, argmin, argmax */
    char bucket[64]; /* "n=2^28", "rows=2^13 cols=2^13 align=8" */
    char kernel[256];
    char params[160];
    double median_us, gbs, default_gbs;
    long long when; /* seconds since the epoch */
} cuspec_tuning_record;

/* Visits the tuning records in the user store: those for ctx's device, or
 * every device's when ctx is NULL. A record no call would use (one that
 * cannot be decoded, or whose parameters its family rejects) is skipped
 * with a warning. */
CUSPEC_EXPORT int cuspec_tuning_list(cuspec_ctx *ctx,
                                     int (*fn)(const cuspec_tuning_record *r, void *user),
                                     void *user);

/* Writes the records (ctx's device, or all with NULL) to `path` in the
 * versioned text format of docs in README ("cuspec-tuning 1"), atomically.
 * *count gets how many. A store that cannot be used is CUSPEC_ERR_STORE,
 * as for cuspec_tuning_list, and writes nothing. */
CUSPEC_EXPORT int cuspec_tuning_export(cuspec_ctx *ctx, const char *path, unsigned *count);

/* Reads an export and publishes its records to the user store. Refuses the
 * whole file (nothing imported) when anything in it is malformed, of another
 * format or library version, or names parameters the family rejects.
 * *count gets how many were imported: all, or where the store cannot be
 * written (CUSPEC_ERR_IO, saying why), those published before the failure,
 * each replaced whole. */
CUSPEC_EXPORT int cuspec_tuning_import(const char *path, unsigned *count);

/* ## Lessons
 *
 * The classic memory-access experiments cuspec grew from, run on this
 * context's device (`cuspec lessons`): transpose, reduce, coalescing,
 * reverse, memory, dot. Each runs its kernels as they were taught (short,
 * readable, not tuned: templates/lessons_*.cuh, the "lessons" family,
 * compiled, stored and prebuilt like every kernel) on fresh random data,
 * checks every result against a CPU reference (a wrong one fails the
 * lesson: it is never a row), times each with CUDA events (the median of
 * repeated runs on the legacy stream, after a warm-up) and closes with
 * cuspec's own kernel for the same job and the device-to-device copy
 * ceiling, with the published figures beside the user's where there are
 * some. GB/s is 1e9 bytes per second of the bytes the table says it counts. */

typedef struct cuspec_lesson_info {
    const char *name;      /* "transpose" (static storage, as the others) */
    const char *title;     /* "the matrix transpose, step by step" */
    const char *size_unit; /* what a size counts: "matrix side", "elements", ... */
    size_t min_size, max_size, size_multiple; /* the sizes cuspec_lesson_run takes */
    size_t default_size;                      /* 0: chosen from the device (default_note) */
    const char *default_note;                 /* the default, in words */
    uint64_t reserved[8]; /* zero: later fields are taken from here */
} cuspec_lesson_info;

/* Fills *info for lesson `index` (0, 1, ...); CUSPEC_ERR_NOT_FOUND past the
 * last. */
CUSPEC_EXPORT int cuspec_lesson_get_info(int index, cuspec_lesson_info *info);
/* The index of the lesson named `name`, or -1. */
CUSPEC_EXPORT int cuspec_lesson_find(const char *name);
/* CUSPEC_OK when lesson `name` takes problem size `size` (0: its default),
 * else CUSPEC_ERR_INVALID with a detail giving the range. Needs no GPU. */
CUSPEC_EXPORT int cuspec_lesson_check_size(const char *name, size_t size);

/* What a row is. */
typedef enum cuspec_lesson_row_kind {
    CUSPEC_LESSON_CPU = 1, /* a plain host loop, timed on the host clock */
    CUSPEC_LESSON_STEP,    /* a kernel of the lesson */
    CUSPEC_LESSON_CUSPEC,  /* cuspec's own call for the same job */
    CUSPEC_LESSON_COPY,    /* the ceiling: a device-to-device memcpy */
} cuspec_lesson_row_kind;
/* "cpu", "step", "cuspec", "copy"; "?" for an unknown value. */
CUSPEC_EXPORT const char *cuspec_lesson_kind_name(int kind);

/* The columns a table fills (bits of cuspec_lesson_table.columns). */
#define CUSPEC_LESSON_COL_X 1u         /* x: the row's parameter (x_name) */
#define CUSPEC_LESSON_COL_STEP 2u      /* step: speedup over the row before */
#define CUSPEC_LESSON_COL_CPU 4u       /* vs_cpu: speedup over the CPU row */
#define CUSPEC_LESSON_COL_COPY 8u      /* of_copy: GB/s over the memcpy row's */
#define CUSPEC_LESSON_COL_PUBLISHED 16u /* published: the figure of published_on */

/* The plot a table has (`cuspec lessons --plot`). */
typedef enum cuspec_lesson_plot {
    CUSPEC_LESSON_PLOT_NONE = 0,
    CUSPEC_LESSON_PLOT_BARS,  /* GB/s of each row but the memcpy, which is a ceiling line */
    CUSPEC_LESSON_PLOT_LINES, /* GB/s against x, one line per series */
} cuspec_lesson_plot;

#define CUSPEC_LESSON_MAX_ROWS 80

typedef struct cuspec_lesson_row {
    int kind;          /* cuspec_lesson_row_kind */
    char series[24];   /* the row's group ("offset", "stride", "256K"); "" for none */
    char label[48];    /* "naive", "stage 3", "s = 4" */
    char note[160];    /* what the step changes, in a line */
    double x;          /* the parameter (CUSPEC_LESSON_COL_X), else 0 */
    double ms;         /* one run: the median between CUDA events (the CPU row: host clock) */
    double gbs;        /* the bytes the table counts, per second, in 1e9 */
    double step;       /* the previous row's ms in the same series over this one's; 0: none */
    double vs_cpu;     /* the CPU row's ms over this one's; 0: none */
    double of_copy;    /* gbs over the memcpy row's gbs; 0: none */
    double published;  /* the published figure (published_unit), 0: none */
    int verified;      /* the result matched the CPU reference (0: the reference or memcpy) */
    char kernel[256];  /* the kernel's name expression ("" for the CPU and memcpy rows) */
    uint64_t reserved[8]; /* zero: later fields are taken from here */
} cuspec_lesson_row;

typedef struct cuspec_lesson_table {
    char lesson[16];          /* "transpose" */
    char title[96];           /* "the matrix transpose, step by step" */
    char problem[96];         /* "4096 x 4096 f32 (64 MiB)" */
    char counts[96];          /* which bytes GB/s counts: "read + written" */
    char x_name[32];          /* what x is (CUSPEC_LESSON_COL_X) */
    char published_on[96];    /* where the published figures come from; "" for none */
    char published_unit[16];  /* "GB/s", or "x" for a speedup */
    char summary[512];        /* what the numbers show on this card, in a sentence or two */
    char device[256];         /* the GPU's name */
    int sm;                   /* 10 * major + minor */
    char date[32];            /* "YYYY-MM-DD", UTC */
    unsigned columns;         /* CUSPEC_LESSON_COL_* bits */
    int plot;                 /* cuspec_lesson_plot */
    int n_rows;
    cuspec_lesson_row rows[CUSPEC_LESSON_MAX_ROWS];
    uint64_t reserved[8]; /* zero: later fields are taken from here */
} cuspec_lesson_table;

/* Runs lesson `name` at problem size `size` (0: its default; else as
 * cuspec_lesson_check_size takes) into *table. `progress` (may be NULL) is
 * called after each row: rows done, rows in all, the row's label. A result
 * that differs from the CPU's is CUSPEC_ERR_CUDA naming the kernel; a size
 * whose buffers do not fit the device's free memory is
 * CUSPEC_ERR_UNSUPPORTED saying how much it needs. */
CUSPEC_EXPORT int cuspec_lesson_run(cuspec_ctx *ctx, const char *name, size_t size,
                                    cuspec_progress_fn progress, void *user,
                                    cuspec_lesson_table *table);

/* Writes *table to `path` as CSV (RFC 4180: a header line, then one line per
 * row), or its plot as an SVG file (CUSPEC_ERR_INVALID for a table whose
 * plot is CUSPEC_LESSON_PLOT_NONE): a new file beside `path` renamed over
 * it, so `path` is either whole or untouched. CUSPEC_ERR_IO saying why. */
CUSPEC_EXPORT int cuspec_lesson_write_csv(const cuspec_lesson_table *table, const char *path);
CUSPEC_EXPORT int cuspec_lesson_write_svg(const cuspec_lesson_table *table, const char *path);

#ifdef __cplusplus
}
#endif
#endif /* CUSPEC_H */
