/* Declarations shared by the store's own files (the other layers use
 * store.h):
 * store_config.c  location, size bound, process counters
 * store_trust.c   opening the store's folders and files: never through a
 *                 link, each checked for its owner and mode
 * store_entry.c   the entry file format
 * store.c         lookup and publish
 * store_walk.c    walks over the folders: eviction and the public management calls */
#ifndef CUSPEC_STORE_FILES_H
#define CUSPEC_STORE_FILES_H

#include "hash.h"
#include "store.h"
#include "text.h"

#include <stdatomic.h>
#include <stdint.h>
#include <sys/stat.h>

/* Room for a store folder's path, as in cuspec_store_stats.path; an entry's
 * path adds at most CUSPEC__STORE_TAIL characters to it. */
#define CUSPEC__STORE_PATH_MAX 1024
#define CUSPEC__STORE_TAIL 64

/* snprintf for paths and messages whose length the caller has bounded (a
 * store's root leaves CUSPEC__STORE_TAIL characters for the rest of any path
 * in it): a function, so that the compiler does not warn of a truncation
 * that cannot happen, while a message that is longer is merely cut short. */
void cuspec__store_format(char *buf, size_t size, const char *fmt, ...) CUSPEC__PRINTF(3, 4);

/* Where the store is and whether it may be used: fixed once per process, the
 * first time the store is touched, from the environment. */
struct cuspec__store_config {
    char root[CUSPEC__STORE_PATH_MAX];   /* user store; "" when no location is known */
    int root_ok;                         /* exists, is ours and not writable by others */
    int root_fd;                         /* the user store's folder, opened once; -1 */
    char problem[1536];                  /* why root is not usable */
    /* Filled by cuspec__store_config_system() only: */
    char system[CUSPEC__STORE_PATH_MAX]; /* system store; "" when there is none or refused */
    int system_fd;                       /* the system store's folder, opened once; -1 */
    uint64_t max_bytes;                  /* bound on the compiled entries' bytes */
};
const struct cuspec__store_config *cuspec__store_config(void);
/* The same, with the system store opened too (the first time it is asked
 * for). */
const struct cuspec__store_config *cuspec__store_config_system(void);

/* The smallest size bound taken from CUSPEC_CACHE_MAX_BYTES: a few compiled
 * kernels (10-40 KB each); a smaller one would evict most of them at every
 * publish. */
#define CUSPEC__MIN_MAX_BYTES (64ull << 10)

/* The folder of the entries, below a store's root: "v<format>" (entries of
 * older formats sit in folders no lookup opens). */
#define CUSPEC__STR(x) #x
#define CUSPEC__XSTR(x) CUSPEC__STR(x)
#define CUSPEC__ENTRIES_DIR "v" CUSPEC__XSTR(CUSPEC__STORE_FORMAT)
#define CUSPEC__QUARANTINE_DIR "quarantine"

/* The warning for a folder in a store that is refused or cannot be opened:
 * the same words wherever it is met, so that each folder is warned about
 * once (cuspec__warn says each message once). */
#define CUSPEC__REFUSED_FOLDER "%s; nothing is read from it or kept in it"

/* ## Trust (store_trust.c)
 *
 * Each returns CUSPEC_OK with *fd open (O_CLOEXEC), CUSPEC_ERR_NOT_FOUND
 * when the name is absent (and not created), CUSPEC_ERR_STORE when it is
 * refused (a link, not a folder, another owner, writable by others) or
 * CUSPEC_ERR_IO when it cannot be opened; `why` says which. `system`
 * selects the system store's owner rule (root or this user). */

/* A store's root, walked from "/" (see store_trust.c); with `create`, missing
 * folders are made 0700. */
int cuspec__store_open_root(const char *path, int system, int create, int *fd, char *why,
                            size_t size);
/* A folder in an open store folder; `path` names it in messages. */
int cuspec__store_open_dir(int parent, const char *name, int system, int create,
                           const char *path, int *fd, char *why, size_t size);
/* A file in an open store folder, read-only and non-blocking, with *st its
 * fstat. CUSPEC_ERR_CORRUPT: it is no regular file of ours to load (a link,
 * a FIFO, another owner's, writable by others); `why` says which. */
int cuspec__store_open_file(int dir, const char *name, int system, int *fd, struct stat *st,
                            char *why, size_t size);
/* The checks of cuspec__store_open_file on a file's fstat `st`, for a caller
 * that opened it otherwise: CUSPEC_OK or CUSPEC_ERR_CORRUPT saying why. `me`
 * is geteuid(), taken once by the caller. */
int cuspec__store_check_file(const struct stat *st, int system, uid_t me, char *why, size_t size);
/* Whether `st` is a folder the store may use (the checks of
 * cuspec__store_open_dir, without a word of why). */
int cuspec__store_dir_ok(const struct stat *st, int system, uid_t me);

/* Process counters (relaxed atomics: they are statistics, not
 * synchronisation). */
enum cuspec__store_counter {
    CUSPEC__HITS,
    CUSPEC__MISSES,
    CUSPEC__COMPILES,
    CUSPEC__PUBLISHES,
    CUSPEC__BAD_ENTRIES,
    CUSPEC__EVICTIONS,
    CUSPEC__WRITE_FAILURES,
    CUSPEC__N_COUNTERS
};
extern _Atomic uint64_t cuspec__store_counters[CUSPEC__N_COUNTERS];

static inline void cuspec__store_count(enum cuspec__store_counter c, uint64_t n)
{
    atomic_fetch_add_explicit(&cuspec__store_counters[c], n, memory_order_relaxed);
}

/* Bounds an entry's lengths must respect: checked on publish, and against a
 * header before anything is allocated. */
#define CUSPEC__MAX_KEY_LEN (1u << 20)
#define CUSPEC__MAX_META_LEN (1u << 20)
#define CUSPEC__MAX_PAYLOAD_LEN (256ull << 20)

/* An entry file's bytes, in a malloc'd *buf of *size bytes (one buffer, so
 * the checksum covers key, meta and payload in one pass and the file is
 * written with one write). CUSPEC_ERR_NOMEM. */
int cuspec__entry_encode(const char *key, int kind, const char *meta, const void *payload,
                         size_t len, unsigned char **buf, size_t *size);

/* How much of an entry file cuspec__entry_read reads and checks. */
enum cuspec__read_depth {
    CUSPEC__READ_HEADER, /* the fixed header against the file size */
    CUSPEC__READ_KEY,    /* and the key and meta bytes */
    CUSPEC__READ_ALL,    /* and the payload, with the checksum */
};

/* An entry file as read. body holds the key, then the meta bytes, then (with
 * CUSPEC__READ_ALL) the payload; it is NUL-terminated after what was read. */
struct cuspec__entry_file {
    struct stat st; /* of the file that was opened (or the link met) */
    int kind;
    uint32_t key_len, meta_len;
    uint64_t payload_len;
    unsigned char *body;
};

/* Reads the entry file `name` in the store folder `dir` (of the system
 * store or not) to `depth`. CUSPEC_OK: good so far; CUSPEC_ERR_CORRUPT: bad
 * or not to be trusted (cuspec__store_open_file), `problem` says why;
 * CUSPEC_ERR_NOT_FOUND: no such file; CUSPEC_ERR_IO: it could not be read
 * (`problem` says why); CUSPEC_ERR_NOMEM. Never trusts a length before
 * checking it against the file size. Free with cuspec__entry_file_free
 * whatever it returned. */
int cuspec__entry_read(int dir, const char *name, int system, enum cuspec__read_depth depth,
                       struct cuspec__entry_file *f, char *problem, size_t size);
/* The same for an open file: f->st gets its fstat; a file that is not a
 * regular one is CUSPEC_ERR_CORRUPT. */
int cuspec__entry_read_fd(int fd, enum cuspec__read_depth depth, struct cuspec__entry_file *f,
                          char *problem, size_t size);
/* The same for an open regular file whose fstat `st` the caller has taken
 * (and checked: cuspec__store_check_file). */
int cuspec__entry_read_opened(int fd, const struct stat *st, enum cuspec__read_depth depth,
                              struct cuspec__entry_file *f, char *problem, size_t size);
void cuspec__entry_file_free(struct cuspec__entry_file *f);

/* Temporary files of a publish in progress are named ".tmp-PID-RANDOM" in
 * the entry's folder; a walk skips them unless asked. The lock of a key
 * being compiled is "<name of its entry without .entry>.lock" beside it. */
#define CUSPEC__TMP_PREFIX ".tmp-"
#define CUSPEC__LOCK_SUFFIX ".lock"

/* A temporary or lock file older than this was left by a process that died:
 * a live publish renames its file within moments of creating it, and a lock
 * is refreshed while its compile runs. */
#define CUSPEC__LEFTOVER_AGE_S 60

/* Removes the least recently used compiled entries (cubin, ptx) of the user
 * store until they take at most `bound` bytes; *removed (may be NULL) gets the
 * count, *total (may be NULL) the bytes of every entry left. Tuning records
 * are neither counted nor removed. Also removes leftover temporary files. */
int cuspec__store_evict(uint64_t bound, uint64_t *removed, uint64_t *total);

/* Keeps at most CUSPEC__QUARANTINE_MAX files in the open quarantine folder,
 * removing the ones moved there first. */
#define CUSPEC__QUARANTINE_MAX 64
void cuspec__store_quarantine_trim(int qdir);

#endif /* CUSPEC_STORE_FILES_H */
