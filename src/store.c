/* The store's lookup and publish (see store_entry.c for the file format and
 * store_config.c for its location).
 *
 * Last use, the clock of the LRU eviction, is the entry file's mtime: a
 * publish sets it and every user-store hit sets it to now with utimensat.
 * atime is not used because relatime and noatime mounts make it unreliable.
 * A hit thus costs one metadata write, once per process and kernel: the
 * module table serves the later calls. */
#include "store.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ## Lookup */

static _Atomic uint64_t n_unique;

/* A name part no other process or thread is using now: the pid keeps
 * processes apart, the counter threads, the clock a reused pid. */
static unsigned long long unique(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t seed[4] = {(uint64_t)getpid(), atomic_fetch_add(&n_unique, 1), (uint64_t)ts.tv_sec,
                        (uint64_t)ts.tv_nsec};
    return (unsigned long long)cuspec__hash64(seed, sizeof seed);
}

/* A bad entry is never loaded. In the user store it is moved aside (kept
 * for a look until `cuspec cache verify --repair`), or removed when it cannot
 * be, so the next publish of the key replaces it; the system store is never
 * written, so there it is only ignored. */
static void reject(const char *store, int user, const char *hex, const char *path,
                   const struct stat *seen, const char *problem)
{
    char qdir[CUSPEC__STORE_PATH_MAX], qpath[CUSPEC__STORE_PATH_MAX];
    struct stat now;
    cuspec__store_count(CUSPEC__BAD_ENTRIES, 1);
    if (!user) {
        cuspec__warn("bad entry %s in the system store (%s): ignored; reinstall the package that "
                     "provides it",
                     path, problem);
        return;
    }
    /* Another process may have published a good entry over it since. */
    if (lstat(path, &now) != 0 || now.st_dev != seen->st_dev || now.st_ino != seen->st_ino)
        return;
    cuspec__store_format(qdir, sizeof qdir, "%s/quarantine", store);
    cuspec__store_format(qpath, sizeof qpath, "%s/%s-%016llx", qdir, hex, unique());
    if ((mkdir(qdir, 0700) == 0 || errno == EEXIST) && rename(path, qpath) == 0)
        cuspec__warn(
            "bad store entry %s (%s): moved to %s; the next compile or tuning of it replaces it",
            path, problem, qpath);
    else if (unlink(path) == 0)
        cuspec__warn(
            "bad store entry %s (%s): removed; the next compile or tuning of it replaces it", path,
            problem);
    else
        cuspec__warn("bad store entry %s (%s) cannot be removed (%s); it is ignored", path, problem,
                     strerror(errno));
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
    e->payload = f->body;
    e->len = (size_t)f->payload_len;
    e->kind = f->kind;
    f->body = NULL;
    return CUSPEC_OK;
}

/* CUSPEC_OK with *e filled, CUSPEC_ERR_NOT_FOUND (absent, bad or unreadable
 * here), or CUSPEC_ERR_NOMEM. */
static int lookup(const char *store, int user, const char *hex, const char *key, int kind,
                  struct cuspec__entry *e)
{
    static const struct timespec now[2] = {{0, UTIME_OMIT}, {0, UTIME_NOW}};
    char path[CUSPEC__STORE_PATH_MAX], problem[256];
    struct cuspec__entry_file f;
    size_t key_len = strlen(key);
    cuspec__store_format(path, sizeof path, "%s/v1/%.2s/%s.entry", store, hex, hex + 2);
    int rc = cuspec__entry_read(path, CUSPEC__READ_ALL, &f, problem, sizeof problem);
    if (rc == CUSPEC_OK && (f.key_len != key_len || memcmp(f.body, key, key_len) != 0)) {
        cuspec__store_format(problem, sizeof problem,
                             "it holds another key: a swapped file or a hash collision");
        rc = CUSPEC_ERR_CORRUPT;
    }

    if (rc == CUSPEC_ERR_CORRUPT) {
        reject(store, user, hex, path, &f.st, problem);
        rc = CUSPEC_ERR_NOT_FOUND;
    } else if (rc == CUSPEC_ERR_IO) {
        cuspec__warn("cannot read store entry %s (%s); it is treated as missing", path, problem);
        rc = CUSPEC_ERR_NOT_FOUND;
    } else if (rc == CUSPEC_OK && f.kind != kind) {
        rc = CUSPEC_ERR_NOT_FOUND; /* the same key text, published as another kind */
    } else if (rc == CUSPEC_OK) {
        rc = take(&f, e);
        /* The hit is the entry's last use; a read-only store keeps the old
         * time, which only matters to its eviction, which cannot run. */
        if (rc == CUSPEC_OK && user)
            utimensat(AT_FDCWD, path, now, AT_SYMLINK_NOFOLLOW);
    }
    cuspec__entry_file_free(&f);
    return rc;
}

int cuspec__store_get(const char *key, int kind, struct cuspec__entry *e, int *tier)
{
    CUSPEC__RETURN_IF(key == NULL || e == NULL, CUSPEC_ERR_INVALID,
                      "cuspec__store_get: key or entry is NULL");
    CUSPEC__RETURN_IF(kind < CUSPEC_KIND_CUBIN || kind > CUSPEC_KIND_TUNING, CUSPEC_ERR_INVALID,
                      "cuspec__store_get: kind %d is not cubin, ptx or tuning", kind);
    memset(e, 0, sizeof *e);
    const struct cuspec__store_config *c = cuspec__store_config();
    char hex[33];
    cuspec__hash128_hex(key, strlen(key), hex);
    int rc = CUSPEC_ERR_NOT_FOUND, where = CUSPEC__TIER_STORE;
    if (c->root_ok)
        rc = lookup(c->root, 1, hex, key, kind, e);
    if (rc == CUSPEC_ERR_NOT_FOUND && c->system[0] != '\0') {
        rc = lookup(c->system, 0, hex, key, kind, e);
        where = CUSPEC__TIER_SYSTEM;
    }
    if (rc == CUSPEC_OK) {
        cuspec__store_count(CUSPEC__HITS, 1);
        if (tier != NULL)
            *tier = where;
    } else if (rc == CUSPEC_ERR_NOT_FOUND) {
        cuspec__store_count(CUSPEC__MISSES, 1);
        rc = cuspec__fail(rc, "no %s entry for this key in the store", cuspec_kind_name(kind));
    }
    return rc;
}

/* ## Publish */

static int write_all(int fd, const unsigned char *buf, size_t len)
{
    while (len > 0) {
        ssize_t w = write(fd, buf, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return -1;
        buf += w;
        len -= (size_t)w;
    }
    return 0;
}

/* Writes buf to a new temporary file in `dir`, flushes it and renames it to
 * `path`: a reader sees the old entry or the new one, never part of one, and
 * concurrent publishers of one key each succeed (the last rename wins). On
 * failure: -1 with errno set and *step naming what failed; no temporary file
 * is left. */
static int publish(const char *dir, const char *path, const unsigned char *buf, size_t len,
                   const char **step)
{
    char tmp[CUSPEC__STORE_PATH_MAX];
    int fd = -1, rc = -1;
    for (int tries = 0; fd < 0 && tries < 8; tries++) {
        cuspec__store_format(tmp, sizeof tmp, "%s/" CUSPEC__TMP_PREFIX "%ld-%016llx", dir,
                             (long)getpid(), unique());
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0) {
        *step = "cannot create a temporary file";
        tmp[0] = '\0'; /* not ours to remove */
        goto done;
    }
    *step = "cannot write";
    if (write_all(fd, buf, len) != 0)
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
    if (rename(tmp, path) != 0)
        goto done;
    tmp[0] = '\0';
    rc = 0;
    /* Makes the rename itself durable. The entry is visible already, and a
     * crash before this completes loses at most the entry, so a failure here
     * is not one of the publish. */
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
done:;
    int err = errno;
    if (fd >= 0)
        close(fd);
    if (tmp[0] != '\0')
        unlink(tmp);
    errno = err;
    return rc;
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

    char hex[33], top[CUSPEC__STORE_PATH_MAX], dir[CUSPEC__STORE_PATH_MAX],
        path[CUSPEC__STORE_PATH_MAX];
    cuspec__hash128_hex(key, key_len, hex);
    cuspec__store_format(top, sizeof top, "%s/v1", c->root);
    cuspec__store_format(dir, sizeof dir, "%s/%.2s", top, hex);
    cuspec__store_format(path, sizeof path, "%s/%s.entry", dir, hex + 2);
    const char *step = "cannot create the folder";
    if ((mkdir(top, 0700) != 0 && errno != EEXIST) || (mkdir(dir, 0700) != 0 && errno != EEXIST) ||
        publish(dir, path, buf, size, &step) != 0) {
        cuspec__store_count(CUSPEC__WRITE_FAILURES, 1);
        if (required)
            rc = cuspec__fail(CUSPEC_ERR_IO, "cannot publish to the store %s (%s: %s)", c->root,
                              step, strerror(errno));
        else
            cuspec__warn("cannot publish to the store %s (%s: %s); %s", c->root, step,
                         strerror(errno),
                         kind == CUSPEC_KIND_TUNING ? "tuning results are not kept"
                                                    : "kernels are compiled but not cached");
    } else {
        cuspec__store_count(CUSPEC__PUBLISHES, 1);
        if (cuspec__store_evict(c->max_bytes, NULL) != CUSPEC_OK)
            cuspec__warn("cannot bound the store's size: %s", cuspec_last_error());
    }
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
