/* The store's lookup, publish, and the lock that lets one process compile a
 * key while the others wait for its entry (see store_entry.c for the file
 * format, store_trust.c for how folders and files are opened, and
 * store_config.c for the store's location).
 *
 * Last use, the clock of the LRU eviction, is the entry file's mtime: a
 * publish sets it and every user-store hit sets it to now with futimens
 * (unless it is less than a second old: used_just_now).
 * atime is not used because relatime and noatime mounts make it unreliable.
 * A hit thus costs at most one metadata write, once per process and kernel:
 * the module table serves the later calls. */
#include "store_files.h"
#include "error.h"
#include "hash.h"
#include "userfile.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/openat2.h>
#include <sys/file.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* ## Lookup */

static unsigned long long unique(void)
{
    return (unsigned long long)cuspec__unique64();
}

/* The fan-out folder of `hex` in a store (its root open at `root`, named
 * `store` in messages) into *fan, created with `create`; `why` says why
 * not. */
static int open_fan(int root, const char *store, int system, const char *hex, int create,
                    int *fan, char *why, size_t size)
{
    char path[CUSPEC__STORE_PATH_MAX], fan_name[3] = {hex[0], hex[1], '\0'};
    int top;
    *fan = -1;
    cuspec__store_format(path, sizeof path, "%s/" CUSPEC__ENTRIES_DIR, store);
    int rc = cuspec__store_open_dir(root, CUSPEC__ENTRIES_DIR, system, create, path, &top, why,
                                    size);
    if (rc == CUSPEC_OK) {
        cuspec__store_format(path, sizeof path, "%s/" CUSPEC__ENTRIES_DIR "/%s", store, fan_name);
        rc = cuspec__store_open_dir(top, fan_name, system, create, path, fan, why, size);
        close(top);
    }
    return rc;
}

/* A bad entry is never loaded. In the user store it is moved aside (kept
 * for a look until `cuspec cache verify --repair`), or removed when it cannot
 * be, so the next publish of the key replaces it; the system store is never
 * written, so there it is only ignored. */
static void reject(const struct cuspec__store_config *c, int user, int fan, const char *name,
                   const char *path, const struct stat *seen, const char *problem)
{
    char qname[80], qpath[CUSPEC__STORE_PATH_MAX], why[1536];
    struct stat now;
    int q;
    cuspec__store_count(CUSPEC__BAD_ENTRIES, 1);
    if (!user) {
        cuspec__warn("bad entry %s in the system store (%s): ignored; reinstall the "
                                "package that provides it",
                                path, problem);
        return;
    }
    /* Another process may have published a good entry over it since. */
    if (fstatat(fan, name, &now, AT_SYMLINK_NOFOLLOW) != 0 || now.st_dev != seen->st_dev ||
        now.st_ino != seen->st_ino)
        return;
    cuspec__store_format(qpath, sizeof qpath, "%s/" CUSPEC__QUARANTINE_DIR, c->root);
    int rc = cuspec__store_open_dir(c->root_fd, CUSPEC__QUARANTINE_DIR, 0, 1, qpath, &q, why,
                                    sizeof why);
    if (rc != CUSPEC_OK)
        cuspec__warn("%s; bad entries are removed instead of moved there", why);
    const char *base = strrchr(name, '/'); /* name may be "<fan>/<rest>.entry" */
    snprintf(qname, sizeof qname, "%.40s-%016llx", base != NULL ? base + 1 : name, unique());
    cuspec__store_format(qpath, sizeof qpath, "%s/" CUSPEC__QUARANTINE_DIR "/%s", c->root, qname);
    if (rc == CUSPEC_OK && renameat(fan, name, q, qname) == 0) {
        /* A good entry published between the check and the move goes back
         * (unless a newer one is there by now). */
        if (fstatat(q, qname, &now, AT_SYMLINK_NOFOLLOW) == 0 &&
            (now.st_dev != seen->st_dev || now.st_ino != seen->st_ino)) {
            if (renameat2(q, qname, fan, name, RENAME_NOREPLACE) != 0)
                unlinkat(q, qname, 0);
            close(q);
            return;
        }
        cuspec__warn(
            "bad store entry %s (%s): moved to %s; the next compile or tuning of it replaces it",
            path, problem, qpath);
        cuspec__store_quarantine_trim(q);
    } else if (unlinkat(fan, name, 0) == 0) {
        cuspec__warn(
            "bad store entry %s (%s): removed; the next compile or tuning of it replaces it", path,
            problem);
    } else {
        cuspec__warn("bad store entry %s (%s) cannot be removed (%s); it is ignored", path, problem,
                     strerror(errno));
    }
    if (rc == CUSPEC_OK)
        close(q);
}

/* Hands the payload (moved to the front of the body) and a copy of the meta
 * to *e. */
static int take(struct cuspec__entry_file *f, struct cuspec__entry *e)
{
    e->meta = malloc((size_t)f->meta_len + 1);
    if (e->meta == NULL)
        return cuspec__fail(CUSPEC_ERR_NOMEM, "cannot allocate a store entry's meta");
    memcpy(e->meta, f->body + f->key_len, f->meta_len);
    e->meta[f->meta_len] = '\0';
    memmove(f->body, f->body + f->key_len + f->meta_len, (size_t)f->payload_len);
    f->body[f->payload_len] = '\0'; /* the body has room: it held key and meta too */
    e->payload = f->body;
    e->len = (size_t)f->payload_len;
    e->kind = f->kind;
    f->body = NULL;
    return CUSPEC_OK;
}

/* ## The fast way to an entry
 *
 * A lookup runs at each first call of a kernel or tuning record in a
 * process, and a call's first use costs about 10 of them (tuning records of
 * nearby sizes, in both stores), so they cost as few system calls as the
 * trust rules allow. Each store's entries folder is opened and checked once
 * and kept open, as its root is. A fan-out folder is checked once per
 * process by its fstatat through the entries folder: only that folder's
 * owner (this user, or root for the system store: both checked) can rename
 * or replace a name in it, so the name checked stays the folder checked
 * (a mode its owner changes later is seen by the next process; each entry
 * is still checked for owner, mode and its key as it is read). An
 * entry below a checked fan-out then opens with one openat2 that refuses
 * any link and anything outside the entries folder, and is checked by its
 * own fstat as before. What this way cannot settle (an error other than
 * ENOENT, a folder that fails its check, a kernel or seccomp filter without
 * openat2) goes the step-by-step way, which says what is wrong. */

struct entries {
    _Atomic int fd;              /* <store>/v<format>, checked; -1 until opened */
    _Atomic uint64_t checked[4]; /* the fan-out folders found good, by first byte */
};
static struct entries entries[2] = {{.fd = -1}, {.fd = -1}}; /* [user]: system, user */
static _Atomic int no_openat2;

/* The entries folder of a store, opened (and checked) by the first lookup
 * that finds it, since a new store has none yet; -1 when it is absent, or
 * refused (warned about). */
static int entries_fd(const struct cuspec__store_config *c, int user)
{
    struct entries *s = &entries[user];
    int fd = atomic_load_explicit(&s->fd, memory_order_acquire), none = -1;
    if (fd >= 0)
        return fd;
    char path[CUSPEC__STORE_PATH_MAX], why[1536];
    cuspec__store_format(path, sizeof path, "%s/" CUSPEC__ENTRIES_DIR, user ? c->root : c->system);
    int rc = cuspec__store_open_dir(user ? c->root_fd : c->system_fd, CUSPEC__ENTRIES_DIR, !user, 0,
                                    path, &fd, why, sizeof why);
    if (rc == CUSPEC_ERR_STORE || rc == CUSPEC_ERR_IO) /* said once: cuspec__warn */
        cuspec__warn(CUSPEC__REFUSED_FOLDER, why);
    if (rc != CUSPEC_OK)
        return -1;
    if (!atomic_compare_exchange_strong(&s->fd, &none, fd)) { /* another thread was first */
        close(fd);
        fd = none;
    }
    return fd;
}

void cuspec__store_open(void)
{
    const struct cuspec__store_config *c = cuspec__store_config();
    if (c->root_ok)
        entries_fd(c, 1);
}

enum fast { FAST_OPENED, FAST_ABSENT, FAST_NO };

/* Opens the entry `rel` ("<fan>/<rest>.entry") below the entries folder
 * `top` the fast way into *fd; *me gets geteuid() when it was needed. */
static enum fast open_fast(struct entries *s, int top, const char *rel, int system, uid_t *me,
                           int *fd)
{
    if (atomic_load_explicit(&no_openat2, memory_order_relaxed))
        return FAST_NO;
    unsigned fan = (unsigned)strtoul((char[3]){rel[0], rel[1], '\0'}, NULL, 16);
    uint64_t bit = 1ull << (fan & 63);
    if (!(atomic_load_explicit(&s->checked[fan >> 6], memory_order_relaxed) & bit)) {
        struct stat st;
        if (fstatat(top, (char[3]){rel[0], rel[1], '\0'}, &st, AT_SYMLINK_NOFOLLOW) != 0)
            return errno == ENOENT ? FAST_ABSENT : FAST_NO;
        *me = geteuid();
        if (!cuspec__store_dir_ok(&st, system, *me))
            return FAST_NO;
        atomic_fetch_or_explicit(&s->checked[fan >> 6], bit, memory_order_relaxed);
    }
    /* O_NONBLOCK: a FIFO planted here must not hang the reader. */
    struct open_how how = {.flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC,
                           .resolve =
                               RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS};
    *fd = (int)syscall(SYS_openat2, top, rel, &how, sizeof how);
    if (*fd >= 0)
        return FAST_OPENED;
    if (errno == ENOENT)
        return FAST_ABSENT;
    if (errno == ENOSYS || errno == EPERM || errno == EINVAL || errno == E2BIG)
        atomic_store_explicit(&no_openat2, 1, memory_order_relaxed);
    return FAST_NO;
}

/* Opens the entry `rel` of a store (its entries folder open at `top`) and
 * checks it: CUSPEC_OK with *fd and *st, CUSPEC_ERR_NOT_FOUND (absent, or
 * below a refused folder: warned about), CUSPEC_ERR_CORRUPT or CUSPEC_ERR_IO
 * (`problem` says why; *st is what was met). *fan is the fan-out folder
 * opened on the way, or -1 when the fast way needed none. */
static int open_entry(const struct cuspec__store_config *c, int user, int top, const char *rel,
                      int *fan, int *fd, struct stat *st, char *problem, size_t size)
{
    uid_t me = (uid_t)-1;
    *fan = -1;
    switch (open_fast(&entries[user], top, rel, !user, &me, fd)) {
    case FAST_ABSENT:
        return CUSPEC_ERR_NOT_FOUND;
    case FAST_OPENED:
        if (fstat(*fd, st) != 0) {
            cuspec__store_format(problem, size, "cannot stat it: %s", strerror(errno));
            close(*fd);
            *fd = -1;
            return CUSPEC_ERR_IO;
        }
        if (me == (uid_t)-1)
            me = geteuid();
        if (cuspec__store_check_file(st, !user, me, problem, size) != CUSPEC_OK) {
            close(*fd);
            *fd = -1;
            return CUSPEC_ERR_CORRUPT;
        }
        return CUSPEC_OK;
    case FAST_NO:
        break;
    }
    char path[CUSPEC__STORE_PATH_MAX], why[1536];
    cuspec__store_format(path, sizeof path, "%s/" CUSPEC__ENTRIES_DIR "/%.2s",
                         user ? c->root : c->system, rel);
    int rc = cuspec__store_open_dir(top, (char[3]){rel[0], rel[1], '\0'}, !user, 0, path, fan, why,
                                    sizeof why);
    if (rc == CUSPEC_ERR_STORE || rc == CUSPEC_ERR_IO) /* said once: cuspec__warn */
        cuspec__warn(CUSPEC__REFUSED_FOLDER, why);
    if (rc != CUSPEC_OK)
        return CUSPEC_ERR_NOT_FOUND;
    return cuspec__store_open_file(*fan, rel + 3, !user, fd, st, problem, size);
}

/* Whether the entry's last use is less than a second ago: setting it again
 * would cost a metadata write (a third of a hit's time) to move the LRU
 * clock by less than a second, while processes started in a row hit the
 * same entries. The prebuilt store's rule (Makefile.am) waits a second
 * after its mark before its hits, so each of them still sets the time. */
static int used_just_now(const struct stat *st)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    long long ago_ns = (long long)(t.tv_sec - st->st_mtim.tv_sec) * 1000000000LL +
                       (t.tv_nsec - st->st_mtim.tv_nsec);
    return ago_ns >= 0 && ago_ns < 1000000000LL;
}

/* CUSPEC_OK with *e filled, CUSPEC_ERR_NOT_FOUND (absent, bad or unreadable
 * here), or CUSPEC_ERR_NOMEM. */
static int lookup(const struct cuspec__store_config *c, int user, const char *hex, const char *key,
                  int kind, struct cuspec__entry *e)
{
    static const struct timespec now[2] = {{0, UTIME_OMIT}, {0, UTIME_NOW}};
    char path[CUSPEC__STORE_PATH_MAX], rel[40], problem[256];
    struct cuspec__entry_file f = {0};
    size_t key_len = strlen(key);
    int top = entries_fd(c, user), fan = -1, fd = -1;
    if (top < 0)
        return CUSPEC_ERR_NOT_FOUND;
    snprintf(rel, sizeof rel, "%.2s/%s.entry", hex, hex + 2);
    int rc = open_entry(c, user, top, rel, &fan, &fd, &f.st, problem, sizeof problem);
    if (rc == CUSPEC_ERR_NOT_FOUND)
        return rc;
    /* Where the entry is named: in its fan-out folder, or below the
     * entries folder. */
    int dir = fan >= 0 ? fan : top;
    const char *name = fan >= 0 ? rel + 3 : rel;
    cuspec__store_format(path, sizeof path, "%s/" CUSPEC__ENTRIES_DIR "/%s",
                         user ? c->root : c->system, rel);
    if (rc == CUSPEC_OK)
        rc = cuspec__entry_read_opened(fd, &f.st, CUSPEC__READ_ALL, &f, problem, sizeof problem);
    if (rc == CUSPEC_OK && (f.key_len != key_len || memcmp(f.body, key, key_len) != 0)) {
        cuspec__store_format(problem, sizeof problem,
                             "it holds another key: a swapped file or a hash collision");
        rc = CUSPEC_ERR_CORRUPT;
    }

    if (rc == CUSPEC_ERR_CORRUPT) {
        reject(c, user, dir, name, path, &f.st, problem);
        rc = CUSPEC_ERR_NOT_FOUND;
    } else if (rc == CUSPEC_ERR_IO) {
        cuspec__warn("cannot read store entry %s (%s); it is treated as missing", path, problem);
        rc = CUSPEC_ERR_NOT_FOUND;
    } else if (rc == CUSPEC_OK && f.kind != kind &&
               !(kind == CUSPEC__KIND_COMPILED && f.kind != CUSPEC_KIND_TUNING)) {
        rc = CUSPEC_ERR_NOT_FOUND; /* the same key text, published as another kind */
    } else if (rc == CUSPEC_OK) {
        rc = take(&f, e);
        /* The hit is the entry's last use; a read-only store keeps the old
         * time, which only matters to its eviction, which cannot run. The
         * entry is ours (checked), so its descriptor may set it. */
        if (rc == CUSPEC_OK && user && !used_just_now(&f.st))
            futimens(fd, now);
    }
    cuspec__entry_file_free(&f);
    if (fd >= 0)
        close(fd);
    if (fan >= 0)
        close(fan);
    return rc;
}

int cuspec__store_get(const char *key, int kind, struct cuspec__entry *e, int *tier)
{
    CUSPEC__RETURN_IF(key == NULL || e == NULL, CUSPEC_ERR_INVALID,
                      "cuspec__store_get: key or entry is NULL");
    CUSPEC__RETURN_IF((kind < CUSPEC_KIND_CUBIN || kind > CUSPEC_KIND_TUNING) &&
                          kind != CUSPEC__KIND_COMPILED,
                      CUSPEC_ERR_INVALID, "cuspec__store_get: kind %d is not cubin, ptx or tuning",
                      kind);
    memset(e, 0, sizeof *e);
    const struct cuspec__store_config *c = cuspec__store_config();
    char hex[33];
    cuspec__hash128_hex(key, strlen(key), hex);
    int rc = CUSPEC_ERR_NOT_FOUND, where = CUSPEC_TIER_STORE;
    if (c->root_ok)
        rc = lookup(c, 1, hex, key, kind, e);
    if (rc == CUSPEC_ERR_NOT_FOUND && (c = cuspec__store_config_system())->system[0] != '\0') {
        rc = lookup(c, 0, hex, key, kind, e);
        where = CUSPEC_TIER_SYSTEM;
    }
    if (rc == CUSPEC_OK) {
        cuspec__store_count(CUSPEC__HITS, 1);
        if (tier != NULL)
            *tier = where;
    } else if (rc == CUSPEC_ERR_NOT_FOUND) {
        cuspec__store_count(CUSPEC__MISSES, 1);
        rc = cuspec__fail(rc, "no %s entry for this key in the store",
                          kind == CUSPEC__KIND_COMPILED ? "cubin or ptx" : cuspec_kind_name(kind));
    }
    return rc;
}

/* ## Publish */

/* Writes buf to a new temporary file in the folder `dir`, flushes it and
 * renames it to `name`: a reader sees the old entry or the new one, never
 * part of one, and concurrent publishers of one key each succeed (the last
 * rename wins). On failure: -1 with errno set and *step naming what failed;
 * no temporary file is left. */
static int publish(int dir, const char *name, const unsigned char *buf, size_t len,
                   const char **step)
{
    char tmp[64];
    int fd = -1, rc = -1;
    for (int tries = 0; fd < 0 && tries < 8; tries++) {
        snprintf(tmp, sizeof tmp, CUSPEC__TMP_PREFIX "%ld-%016llx", (long)getpid(), unique());
        fd = openat(dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0) {
        *step = "cannot create a temporary file";
        tmp[0] = '\0'; /* not ours to remove */
        goto done;
    }
    *step = "cannot write";
    if (cuspec__write_all(fd, buf, len) != 0)
        goto done;
    *step = "cannot flush";
    if (fsync(fd) != 0)
        goto done;
    int closed = close(fd);
    fd = -1;
    *step = "cannot close";
    if (closed != 0)
        goto done;
    *step = "cannot rename into place";
    if (renameat(dir, tmp, dir, name) != 0)
        goto done;
    tmp[0] = '\0';
    rc = 0;
    /* Makes the rename itself durable. The entry is visible already, and a
     * crash before this completes loses at most the entry, so a failure here
     * is not one of the publish. */
    fsync(dir);
done:;
    int err = errno;
    if (fd >= 0)
        close(fd);
    if (tmp[0] != '\0')
        unlinkat(dir, tmp, 0);
    errno = err;
    return rc;
}

/* ## Size bound
 *
 * Walking the store after every publish would make filling it quadratic, so
 * each process walks it at its first publish and then keeps a running total
 * of the compiled bytes it added: it walks (and evicts) again only when that
 * total passes the bound. Other processes' entries are counted at its next
 * walk, and theirs at their own. */

static pthread_mutex_t bound_lock = PTHREAD_MUTEX_INITIALIZER;
static int bound_known;
static uint64_t bound_total;

static void keep_bound(const struct cuspec__store_config *c, int kind, size_t size)
{
    pthread_mutex_lock(&bound_lock);
    int compiled = kind != CUSPEC_KIND_TUNING,
        walk = !bound_known || (compiled && bound_total + size > c->max_bytes);
    if (!walk && compiled)
        bound_total += size;
    pthread_mutex_unlock(&bound_lock);
    if (!walk)
        return;
    uint64_t total = 0;
    if (cuspec__store_evict(c->max_bytes, NULL, &total) != CUSPEC_OK)
        cuspec__warn("cannot bound the store's size: %s", cuspec_last_error());
    pthread_mutex_lock(&bound_lock);
    bound_known = 1;
    bound_total = total;
    pthread_mutex_unlock(&bound_lock);
}

int cuspec__store_usable(void)
{
    const struct cuspec__store_config *c = cuspec__store_config();
    CUSPEC__RETURN_IF(!c->root_ok, CUSPEC_ERR_IO, "the store cannot be used: %s", c->problem);
    return CUSPEC_OK;
}

/* cuspec__store_put, and with `required` cuspec__store_publish. */
static int put(const char *key, int kind, const char *meta, const void *payload, size_t len,
               int required)
{
    CUSPEC__RETURN_IF(key == NULL || key[0] == '\0', CUSPEC_ERR_INVALID,
                      "cuspec__store_put: key is NULL or empty");
    CUSPEC__RETURN_IF(kind < CUSPEC_KIND_CUBIN || kind > CUSPEC_KIND_TUNING, CUSPEC_ERR_INVALID,
                      "cuspec__store_put: kind %d is not cubin, ptx or tuning", kind);
    CUSPEC__RETURN_IF(payload == NULL && len > 0, CUSPEC_ERR_INVALID,
                      "cuspec__store_put: payload is NULL");
    if (meta == NULL)
        meta = "";
    size_t key_len = strlen(key), meta_len = strlen(meta);
    CUSPEC__RETURN_IF(key_len > CUSPEC__MAX_KEY_LEN || meta_len > CUSPEC__MAX_META_LEN ||
                          len > CUSPEC__MAX_PAYLOAD_LEN,
                      CUSPEC_ERR_INVALID,
                      "cuspec__store_put: entry too large (key %zu, meta %zu, payload %zu bytes; "
                      "at most %u, %u and %llu)",
                      key_len, meta_len, len, CUSPEC__MAX_KEY_LEN, CUSPEC__MAX_META_LEN,
                      CUSPEC__MAX_PAYLOAD_LEN);
    const struct cuspec__store_config *c = cuspec__store_config();
    if (!c->root_ok) { /* the reason was warned about when the store was located */
        cuspec__store_count(CUSPEC__WRITE_FAILURES, 1);
        return required ? cuspec__store_usable() : CUSPEC_OK;
    }
    unsigned char *buf;
    size_t size;
    int rc = cuspec__entry_encode(key, kind, meta, payload, len, &buf, &size);
    if (rc != CUSPEC_OK)
        return rc;

    char hex[33], name[40], why[1536];
    cuspec__hash128_hex(key, key_len, hex);
    snprintf(name, sizeof name, "%s.entry", hex + 2);
    const char *step;
    int fan, opened = open_fan(c->root_fd, c->root, 0, hex, 1, &fan, why, sizeof why);
    if (opened == CUSPEC_OK && publish(fan, name, buf, size, &step) != 0)
        cuspec__store_format(why, sizeof why, "%s: %s", step, strerror(errno));
    else if (opened == CUSPEC_OK)
        why[0] = '\0';
    if (why[0] != '\0') {
        cuspec__store_count(CUSPEC__WRITE_FAILURES, 1);
        if (required && opened != CUSPEC_OK)
            rc = cuspec__fail(CUSPEC_ERR_IO, "cannot publish to the store %s: %s", c->root, why);
        else if (opened != CUSPEC_OK)
            cuspec__warn(CUSPEC__REFUSED_FOLDER, why);
        else if (required)
            rc = cuspec__fail(CUSPEC_ERR_IO, "cannot publish to the store %s (%s)", c->root, why);
        else
            cuspec__warn("cannot publish to the store %s (%s); %s", c->root, why,
                         kind == CUSPEC_KIND_TUNING ? "tuning results are not kept"
                                                    : "kernels are compiled but not cached");
    } else {
        cuspec__store_count(CUSPEC__PUBLISHES, 1);
        keep_bound(c, kind, size);
    }
    if (opened == CUSPEC_OK)
        close(fan);
    free(buf);
    return rc;
}

int cuspec__store_put(const char *key, int kind, const char *meta, const void *payload, size_t len)
{
    return put(key, kind, meta, payload, len, 0);
}

int cuspec__store_publish(const char *key, int kind, const char *meta, const void *payload,
                          size_t len)
{
    return put(key, kind, meta, payload, len, 1);
}

/* ## Compile lock
 *
 * An flock on "<entry name>.lock" beside the entry: the kernel releases it
 * when its holder dies, so a killed compiler never blocks anyone. The holder
 * removes the file before it lets go; a waiter that then gets the lock on
 * the removed file sees that the name now names another file (or none) and
 * tries again, so two processes never both hold the lock of one key. */

int cuspec__store_lock_wait_ms = 120000;

void cuspec__store_lock(const char *key, struct cuspec__store_lock *lk)
{
    const struct cuspec__store_config *c = cuspec__store_config();
    char hex[33];
    struct stat held, named;
    lk->fan = lk->fd = -1;
    lk->waited = 0;
    if (!c->root_ok)
        return;
    cuspec__hash128_hex(key, strlen(key), hex);
    snprintf(lk->name, sizeof lk->name, "%s" CUSPEC__LOCK_SUFFIX, hex + 2);
    char why[1536];
    if (open_fan(c->root_fd, c->root, 0, hex, 1, &lk->fan, why, sizeof why) != CUSPEC_OK)
        return; /* the publish that follows says why */
    struct timespec start, now, nap = {0, 2000000};
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
        int fd = openat(lk->fan, lk->name, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
                        0600);
        if (fd < 0 || fstat(fd, &held) != 0 || !S_ISREG(held.st_mode) ||
            held.st_uid != geteuid()) {
            /* Not a lock of ours (a link or another's file planted there):
             * compiling unlocked costs time, never correctness. */
            cuspec__warn("the lock %s/" CUSPEC__ENTRIES_DIR "/%.2s/%s is not a file of yours "
                         "(%s); the kernel is compiled without it",
                         c->root, hex, lk->name,
                         fd < 0 ? strerror(errno) : "another user's, or not a regular file");
            if (fd >= 0)
                close(fd);
            break;
        }
        if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
            if (fstatat(lk->fan, lk->name, &named, AT_SYMLINK_NOFOLLOW) == 0 &&
                named.st_dev == held.st_dev && named.st_ino == held.st_ino) {
                lk->fd = fd;
                return;
            }
            close(fd); /* its holder removed it as we took it: again */
            continue;
        }
        close(fd);
        lk->waited = 1;
        clock_gettime(CLOCK_MONOTONIC, &now);
        long long waited = (now.tv_sec - start.tv_sec) * 1000LL +
                           (now.tv_nsec - start.tv_nsec) / 1000000;
        if (waited >= cuspec__store_lock_wait_ms) {
            cuspec__warn("waited %lld ms for another process compiling the same kernel (lock "
                         "%s/" CUSPEC__ENTRIES_DIR "/%.2s/%s); compiling it here too",
                         waited, c->root, hex, lk->name);
            break;
        }
        nanosleep(&nap, NULL);
        if (nap.tv_nsec < 64000000)
            nap.tv_nsec *= 2;
    }
    close(lk->fan);
    lk->fan = -1;
}

void cuspec__store_unlock(struct cuspec__store_lock *lk)
{
    struct stat held, named;
    if (lk->fd >= 0) {
        if (fstat(lk->fd, &held) == 0 &&
            fstatat(lk->fan, lk->name, &named, AT_SYMLINK_NOFOLLOW) == 0 &&
            named.st_dev == held.st_dev && named.st_ino == held.st_ino)
            unlinkat(lk->fan, lk->name, 0);
        close(lk->fd);
    }
    if (lk->fan >= 0)
        close(lk->fan);
    lk->fan = lk->fd = -1;
}
