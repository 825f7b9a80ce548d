/* The on-disk store as the other layers use it (store.c; its parts share
 * store_files.h): see cuspec.h and DESIGN.md "The store". */
#ifndef CUSPEC_STORE_H
#define CUSPEC_STORE_H

#include "error.h"

/* 2: the checksum covers the whole entry, header included. */
#define CUSPEC__STORE_FORMAT 2

struct cuspec__entry {
    int kind;   /* cuspec_entry_kind */
    char *meta; /* NUL-terminated "name=value\n" lines */
    void *payload; /* len bytes, then a NUL (PTX and records are text) */
    size_t len;
};
void cuspec__entry_free(struct cuspec__entry *e);

/* Looks `key` up, as an entry of `kind`, in the user store, then the system
 * store. On a hit: CUSPEC_OK, *e filled (free with cuspec__entry_free) and
 * *tier set; a
 * user-store hit records the use for LRU eviction. On a miss:
 * CUSPEC_ERR_NOT_FOUND. A bad entry met on the way (short, wrong magic or
 * version, bad checksum, other key) is quarantined, counted and warned
 * about, and is a miss. */
/* As the kind of cuspec__store_get: a cubin or a PTX entry, whichever the
 * key was published as (e->kind says which). */
#define CUSPEC__KIND_COMPILED (-1)
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

/* Opens the user store and its entries folder now, if not yet (a context
 * does at creation, so that its first call finds them open). */
void cuspec__store_open(void);

/* Counts one NVRTC compile in the store's process counters. */
void cuspec__store_count_compile(void);

#endif /* CUSPEC_STORE_H */
