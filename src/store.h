/* Declarations shared by the store's files (not installed):
 * store_config.c  location, trust, size bound, process counters
 * store_entry.c   the entry file format
 * store.c         lookup and publish
 * store_walk.c    walks over the folders: eviction and the public management calls */
#ifndef CUSPEC_STORE_H
#define CUSPEC_STORE_H

#include "internal.h"

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
    char problem[1536];                  /* why root is not usable */
    char system[CUSPEC__STORE_PATH_MAX]; /* system store; "" when there is none or refused */
    uint64_t max_bytes;                  /* bound on the compiled entries' bytes */
};
const struct cuspec__store_config *cuspec__store_config(void);

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

/* Reads the entry file at `path` to `depth`. CUSPEC_OK: good so far;
 * CUSPEC_ERR_CORRUPT: bad, `problem` says why; CUSPEC_ERR_NOT_FOUND: no such
 * file; CUSPEC_ERR_IO: it could not be read (`problem` says why);
 * CUSPEC_ERR_NOMEM. Never trusts a length before checking it against the file
 * size. Free with cuspec__entry_file_free whatever it returned. */
int cuspec__entry_read(const char *path, enum cuspec__read_depth depth,
                       struct cuspec__entry_file *f, char *problem, size_t size);
/* The same for an open file: f->st gets its fstat; a file that is not a
 * regular one is CUSPEC_ERR_CORRUPT. */
int cuspec__entry_read_fd(int fd, enum cuspec__read_depth depth, struct cuspec__entry_file *f,
                          char *problem, size_t size);
void cuspec__entry_file_free(struct cuspec__entry_file *f);

/* Temporary files of a publish in progress are named ".tmp-PID-RANDOM" in
 * the entry's folder; a walk skips them unless asked. */
#define CUSPEC__TMP_PREFIX ".tmp-"

/* Removes the least recently used compiled entries (cubin, ptx) of the user
 * store until they take at most `bound` bytes; *removed (may be NULL) gets the
 * count. Tuning records are neither counted nor removed. */
int cuspec__store_evict(uint64_t bound, uint64_t *removed);

#endif /* CUSPEC_STORE_H */
