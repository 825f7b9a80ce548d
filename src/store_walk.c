/* Walks over the store's folders: size-bound eviction, the quarantine's
 * bound, and the public management calls (stats, list, verify, clear,
 * prune). Every folder and file is reached from the root's descriptor
 * (store_trust.c); a refused folder is reported and not entered. */
#include "store_files.h"
#include "nvrtc_loader.h"
#include "error.h"
#include "hash.h"
#include "text.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

enum file_type { FILE_ENTRY, FILE_TMP, FILE_LOCK, FILE_REFUSED };

/* Called for each file of the fan-out folders, open at `dir`: `name` in it,
 * `path` for messages; `hex` is the key hash an entry's name claims (NULL
 * for other files). A fan-out folder that is refused comes as FILE_REFUSED
 * with dir -1 and `hex` saying why. Non-zero stops the walk. */
typedef int (*walk_fn)(int dir, const char *name, const char *path, enum file_type type,
                       const char *hex, void *user);

static int is_hex(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return 0;
    return 1;
}

static enum file_type classify(const char *name, int *ours)
{
    size_t n = strlen(name);
    *ours = 1;
    if (n == 36 && is_hex(name, 30) && strcmp(name + 30, ".entry") == 0)
        return FILE_ENTRY;
    if (n == 30 + strlen(CUSPEC__LOCK_SUFFIX) && is_hex(name, 30) &&
        strcmp(name + 30, CUSPEC__LOCK_SUFFIX) == 0)
        return FILE_LOCK;
    if (n < 64 && strncmp(name, CUSPEC__TMP_PREFIX, strlen(CUSPEC__TMP_PREFIX)) == 0)
        return FILE_TMP;
    *ours = 0; /* other names are not the store's, and are left alone */
    return FILE_TMP;
}

/* Visits the files under <store>/v<format>/ of the store open at `root`. A
 * store without that folder is empty. */
static int walk(int root, const char *store, int system, walk_fn fn, void *user)
{
    char path[CUSPEC__STORE_PATH_MAX], sub[CUSPEC__STORE_PATH_MAX], why[1536], hex[33];
    int top, status = CUSPEC_OK;
    cuspec__store_format(path, sizeof path, "%s/" CUSPEC__ENTRIES_DIR, store);
    int rc = cuspec__store_open_dir(root, CUSPEC__ENTRIES_DIR, system, 0, path, &top, why,
                                    sizeof why);
    if (rc == CUSPEC_ERR_NOT_FOUND)
        return CUSPEC_OK;
    if (rc != CUSPEC_OK)
        return cuspec__fail(rc, "%s", why);
    DIR *d = fdopendir(top);
    if (d == NULL) {
        close(top);
        return cuspec__fail(CUSPEC_ERR_IO, "cannot read %s: %s", path, strerror(errno));
    }
    struct dirent *de;
    while (status == CUSPEC_OK && (de = readdir(d)) != NULL) {
        if (strlen(de->d_name) != 2 || !is_hex(de->d_name, 2))
            continue;
        int fan;
        cuspec__store_format(sub, sizeof sub, "%s/%s", path, de->d_name);
        rc = cuspec__store_open_dir(dirfd(d), de->d_name, system, 0, sub, &fan, why, sizeof why);
        if (rc == CUSPEC_ERR_NOT_FOUND)
            continue; /* removed since the folder was read */
        if (rc != CUSPEC_OK) {
            status = fn(-1, de->d_name, sub, FILE_REFUSED, why, user);
            continue;
        }
        DIR *s = fdopendir(fan);
        if (s == NULL) {
            close(fan);
            status = cuspec__fail(CUSPEC_ERR_IO, "cannot read %s: %s", sub, strerror(errno));
            break;
        }
        struct dirent *fe;
        while (status == CUSPEC_OK && (fe = readdir(s)) != NULL) {
            int ours;
            enum file_type type = classify(fe->d_name, &ours);
            if (!ours)
                continue;
            cuspec__store_format(path, sizeof path, "%s/%s", sub, fe->d_name);
            cuspec__store_format(hex, sizeof hex, "%s%.30s", de->d_name, fe->d_name);
            status = fn(dirfd(s), fe->d_name, path, type, type == FILE_ENTRY ? hex : NULL, user);
        }
        closedir(s);
        cuspec__store_format(path, sizeof path, "%s/" CUSPEC__ENTRIES_DIR, store);
    }
    closedir(d);
    return status;
}

/* The user store, or CUSPEC_ERR_STORE saying why it cannot be used. */
static int user_store(const struct cuspec__store_config **c)
{
    *c = cuspec__store_config();
    if (!(*c)->root_ok)
        return cuspec__fail(CUSPEC_ERR_STORE, "%s", (*c)->problem);
    return CUSPEC_OK;
}

static int remove_file(int dir, const char *name, const char *path, uint64_t *removed)
{
    /* An empty folder where an entry belongs is as bad as a bad file; one
     * with something in it is not ours to empty. */
    if (unlinkat(dir, name, 0) == 0 ||
        ((errno == EISDIR || errno == EPERM) && unlinkat(dir, name, AT_REMOVEDIR) == 0))
        ++*removed;
    else if (errno != ENOENT) /* gone already: another process removed it */
        return cuspec__fail(CUSPEC_ERR_IO, "cannot remove %s: %s", path, strerror(errno));
    return CUSPEC_OK;
}

/* Removes a temporary or lock file left by a process that died: a
 * temporary file old enough, a lock file nobody holds (removed while this
 * process holds it, so that nobody takes it in between). */
static int remove_leftover(int dir, const char *name, const char *path, enum file_type type,
                           uint64_t *removed)
{
    struct stat st;
    if (type == FILE_TMP)
        return fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                       time(NULL) - st.st_mtime > CUSPEC__LEFTOVER_AGE_S
                   ? remove_file(dir, name, path, removed)
                   : CUSPEC_OK;
    int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) /* a link is no lock of ours */
        return errno == ELOOP ? remove_file(dir, name, path, removed) : CUSPEC_OK;
    int status = CUSPEC_OK;
    if (fstat(fd, &st) == 0 && (!S_ISREG(st.st_mode) || flock(fd, LOCK_EX | LOCK_NB) == 0))
        status = remove_file(dir, name, path, removed);
    close(fd);
    return status;
}

/* A refused fan-out folder: said once; a walk that only reads goes on. */
static int skip_refused(const char *why)
{
    cuspec__warn(CUSPEC__REFUSED_FOLDER, why);
    return CUSPEC_OK;
}

/* ## Eviction */

struct lru_item {
    struct timespec last_use; /* first: earlier_first sorts by it */
    char fan[3], name[40];
    uint64_t size;
};

struct lru {
    struct lru_item *items;
    size_t n, cap;
    uint64_t total;
};

static int collect(int dir, const char *name, const char *path, enum file_type type,
                   const char *hex, void *user)
{
    struct lru *l = user;
    struct stat st;
    uint64_t removed = 0;
    if (type == FILE_REFUSED)
        return skip_refused(hex);
    if (type != FILE_ENTRY)
        return remove_leftover(dir, name, path, type, &removed);
    if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return CUSPEC_OK; /* gone since the folder was read: nothing to evict */
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 256;
        struct lru_item *items = realloc(l->items, cap * sizeof *items);
        if (items == NULL)
            return cuspec__fail(CUSPEC_ERR_NOMEM, "cannot list the store's entries");
        l->items = items;
        l->cap = cap;
    }
    struct lru_item *it = &l->items[l->n++];
    memcpy(it->fan, hex, 2);
    it->fan[2] = '\0';
    cuspec__strlcpy(it->name, name, sizeof it->name);
    it->size = (uint64_t)st.st_size;
    it->last_use = st.st_mtim;
    l->total += it->size;
    return CUSPEC_OK;
}

/* qsort order of items whose first member is a struct timespec: earlier
 * first. */
static int earlier_first(const void *a, const void *b)
{
    const struct timespec *x = a, *y = b;
    if (x->tv_sec != y->tv_sec)
        return x->tv_sec < y->tv_sec ? -1 : 1;
    return (x->tv_nsec > y->tv_nsec) - (x->tv_nsec < y->tv_nsec);
}

/* The fan-out folder of an item, kept open while items of it follow. */
static int item_dir(const struct cuspec__store_config *c, int top, const char *fan, char *open_name,
                    int *fd)
{
    char path[CUSPEC__STORE_PATH_MAX], why[1536];
    if (*fd >= 0 && strcmp(open_name, fan) == 0)
        return CUSPEC_OK;
    if (*fd >= 0)
        close(*fd);
    cuspec__strlcpy(open_name, fan, 3);
    cuspec__store_format(path, sizeof path, "%s/" CUSPEC__ENTRIES_DIR "/%s", c->root, fan);
    return cuspec__store_open_dir(top, fan, 0, 0, path, fd, why, sizeof why);
}

int cuspec__store_evict(uint64_t bound, uint64_t *removed, uint64_t *total)
{
    const struct cuspec__store_config *c;
    struct lru l = {0};
    uint64_t n_removed = 0, compiled = 0;
    char path[CUSPEC__STORE_PATH_MAX], why[1536], fan_name[3] = "";
    int top = -1, fan = -1;
    int status = user_store(&c);
    if (status == CUSPEC_OK)
        status = walk(c->root_fd, c->root, 0, collect, &l);
    /* The file sizes alone settle the common case: when every entry together
     * fits, no entry needs to be opened to learn its kind. */
    compiled = l.total;
    if (status != CUSPEC_OK || l.total <= bound)
        goto done;
    cuspec__store_format(path, sizeof path, "%s/" CUSPEC__ENTRIES_DIR, c->root);
    if (cuspec__store_open_dir(c->root_fd, CUSPEC__ENTRIES_DIR, 0, 0, path, &top, why,
                               sizeof why) != CUSPEC_OK)
        goto done;
    size_t kept = 0;
    compiled = 0;
    for (size_t i = 0; i < l.n; i++) {
        struct cuspec__entry_file f = {0};
        char problem[256];
        int rc = item_dir(c, top, l.items[i].fan, fan_name, &fan);
        if (rc == CUSPEC_OK)
            rc = cuspec__entry_read(fan, l.items[i].name, 0, CUSPEC__READ_HEADER, &f, problem,
                                    sizeof problem);
        cuspec__entry_file_free(&f);
        /* Tuning records are never evicted by size; a bad entry goes with
         * the compiled ones, as it is of no use; one that cannot be read
         * (CUSPEC_ERR_IO: its permissions, say) may be a tuning record, and
         * stays. */
        if (rc == CUSPEC_ERR_NOT_FOUND || rc == CUSPEC_ERR_IO || rc == CUSPEC_ERR_STORE ||
            (rc == CUSPEC_OK && f.kind == CUSPEC_KIND_TUNING))
            continue;
        compiled += l.items[i].size;
        l.items[kept++] = l.items[i];
    }
    l.n = kept;
    qsort(l.items, l.n, sizeof *l.items, earlier_first);
    /* One entry that cannot be removed (a folder with something in it)
     * must not stop the others' eviction: it is warned about and passed. */
    for (size_t i = 0; i < l.n && compiled > bound; i++) {
        if (item_dir(c, top, l.items[i].fan, fan_name, &fan) != CUSPEC_OK)
            continue;
        cuspec__store_format(path, sizeof path, "%s/" CUSPEC__ENTRIES_DIR "/%s/%s", c->root,
                             l.items[i].fan, l.items[i].name);
        if (remove_file(fan, l.items[i].name, path, &n_removed) != CUSPEC_OK) {
            cuspec__warn("%s; it is left in the store", cuspec_last_error());
            continue;
        }
        compiled -= l.items[i].size;
    }
done:
    if (fan >= 0)
        close(fan);
    if (top >= 0)
        close(top);
    free(l.items);
    cuspec__store_count(CUSPEC__EVICTIONS, n_removed);
    if (removed != NULL)
        *removed = n_removed;
    if (total != NULL)
        *total = compiled;
    return status;
}

/* ## Quarantine */

/* Whether `name` is one that reject() (store.c) gives a moved entry:
 * "<30 hex>.entry-<16 hex>". */
static int quarantine_name(const char *name)
{
    return strlen(name) == 53 && is_hex(name, 30) && strncmp(name + 30, ".entry-", 7) == 0 &&
           is_hex(name + 37, 16);
}

struct quarantined {
    struct timespec moved; /* first: earlier_first sorts by it */
    char name[80];
};

void cuspec__store_quarantine_trim(int qdir)
{
    struct quarantined *q = NULL;
    size_t n = 0, cap = 0;
    int fd = openat(qdir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (d == NULL) {
        if (fd >= 0)
            close(fd);
        return;
    }
    struct dirent *de;
    struct stat st;
    while ((de = readdir(d)) != NULL) {
        if (!quarantine_name(de->d_name) ||
            fstatat(qdir, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
            continue;
        if (n == cap) {
            struct quarantined *more = realloc(q, (cap = cap ? 2 * cap : 64) * sizeof *q);
            if (more == NULL)
                break;
            q = more;
        }
        cuspec__strlcpy(q[n].name, de->d_name, sizeof q[n].name);
        q[n++].moved = st.st_ctim; /* a rename sets it */
    }
    closedir(d);
    if (n > CUSPEC__QUARANTINE_MAX) {
        qsort(q, n, sizeof *q, earlier_first);
        for (size_t i = 0; i < n - CUSPEC__QUARANTINE_MAX; i++)
            unlinkat(qdir, q[i].name, 0);
    }
    free(q);
}

/* Empties <store>/quarantine/: what got moved aside has served its purpose
 * once someone chose to repair. Something else of that name (a link, a
 * file) is removed itself, never followed; a folder that is refused is left
 * alone, with a warning. */
static int empty_quarantine(const struct cuspec__store_config *c, uint64_t *removed)
{
    char dir[CUSPEC__STORE_PATH_MAX], path[CUSPEC__STORE_PATH_MAX], why[1536];
    int q, status = CUSPEC_OK;
    cuspec__store_format(dir, sizeof dir, "%s/" CUSPEC__QUARANTINE_DIR, c->root);
    int rc = cuspec__store_open_dir(c->root_fd, CUSPEC__QUARANTINE_DIR, 0, 0, dir, &q, why,
                                    sizeof why);
    struct stat st;
    if (rc == CUSPEC_ERR_NOT_FOUND)
        return CUSPEC_OK;
    if (rc == CUSPEC_ERR_STORE &&
        fstatat(c->root_fd, CUSPEC__QUARANTINE_DIR, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
        !S_ISDIR(st.st_mode)) {
        cuspec__warn("%s: removed (what it pointed to, if anything, is left alone)", why);
        return remove_file(c->root_fd, CUSPEC__QUARANTINE_DIR, dir, removed);
    }
    if (rc != CUSPEC_OK) {
        cuspec__warn("%s; it is not emptied", why);
        return CUSPEC_OK;
    }
    DIR *d = fdopendir(q);
    if (d == NULL) {
        close(q);
        return cuspec__fail(CUSPEC_ERR_IO, "cannot read %s: %s", dir, strerror(errno));
    }
    struct dirent *de;
    uint64_t n = 0;
    while (status == CUSPEC_OK && (de = readdir(d)) != NULL) {
        if (!quarantine_name(de->d_name))
            continue; /* not put there by cuspec: left alone */
        cuspec__store_format(path, sizeof path, "%s/%.200s", dir, de->d_name);
        status = remove_file(dirfd(d), de->d_name, path, &n);
    }
    closedir(d);
    return status;
}

/* ## Stats */

/* Entries by kind ([0] counts the entries whose header is bad), and
 * leftovers. */
static int tally(int dir, const char *name, const char *path, enum file_type type,
                 const char *hex, void *user)
{
    cuspec_store_stats *s = user;
    struct cuspec__entry_file f;
    struct stat st;
    char problem[256];
    if (type == FILE_REFUSED)
        return skip_refused(hex);
    if (type != FILE_ENTRY) {
        if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
            s->leftovers++;
            s->leftover_bytes += (uint64_t)st.st_size;
        }
        return CUSPEC_OK;
    }
    int rc = cuspec__entry_read(dir, name, 0, CUSPEC__READ_HEADER, &f, problem, sizeof problem);
    cuspec__entry_file_free(&f);
    if (rc == CUSPEC_ERR_NOT_FOUND)
        return CUSPEC_OK;
    int kind = rc == CUSPEC_OK ? f.kind : 0;
    s->entries[kind]++;
    s->bytes[kind] += (uint64_t)f.st.st_size;
    return CUSPEC_OK;
}

static int count_entries(int dir, const char *name, const char *path, enum file_type type,
                         const char *hex, void *user)
{
    if (type == FILE_REFUSED)
        return skip_refused(hex);
    if (type == FILE_ENTRY)
        ++*(uint64_t *)user;
    return CUSPEC_OK;
}

/* The files in the quarantine folder, if it is one of ours. */
static uint64_t count_quarantined(const struct cuspec__store_config *c)
{
    char dir[CUSPEC__STORE_PATH_MAX], why[1536];
    uint64_t n = 0;
    int q;
    cuspec__store_format(dir, sizeof dir, "%s/" CUSPEC__QUARANTINE_DIR, c->root);
    if (cuspec__store_open_dir(c->root_fd, CUSPEC__QUARANTINE_DIR, 0, 0, dir, &q, why,
                               sizeof why) != CUSPEC_OK)
        return 0;
    DIR *d = fdopendir(q);
    if (d == NULL) {
        close(q);
        return 0;
    }
    for (struct dirent *de; (de = readdir(d)) != NULL;)
        n += quarantine_name(de->d_name);
    closedir(d);
    return n;
}

int cuspec_store_get_stats(cuspec_store_stats *stats)
{
    CUSPEC__RETURN_IF(stats == NULL, CUSPEC_ERR_INVALID, "cuspec_store_get_stats: stats is NULL");
    const struct cuspec__store_config *c = cuspec__store_config_system();
    int status = CUSPEC_OK;
    memset(stats, 0, sizeof *stats);
    cuspec__strlcpy(stats->path, c->root, sizeof stats->path);
    cuspec__strlcpy(stats->system_path, c->system, sizeof stats->system_path);
    stats->max_bytes = c->max_bytes;
    uint64_t *counters[CUSPEC__N_COUNTERS] = {
        &stats->hits,        &stats->misses,    &stats->compiles,      &stats->publishes,
        &stats->bad_entries, &stats->evictions, &stats->write_failures};
    for (int i = 0; i < CUSPEC__N_COUNTERS; i++)
        *counters[i] = atomic_load_explicit(&cuspec__store_counters[i], memory_order_relaxed);
    /* A refused or missing store (warned about when it was opened) or one
     * this user may only read (not warned about: nothing is lost until a
     * call fails to keep something) is reported by `writable` and why, not
     * as a failure: the counters and paths still mean something. */
    if (!c->root_ok) {
        cuspec__strlcpy(stats->why_not_writable, c->problem, sizeof stats->why_not_writable);
    } else {
        stats->writable = faccessat(c->root_fd, ".", W_OK, AT_EACCESS) == 0;
        if (!stats->writable)
            snprintf(stats->why_not_writable, sizeof stats->why_not_writable,
                     "you cannot write in it (%s): calls read its entries and keep nothing new",
                     strerror(errno));
        status = walk(c->root_fd, c->root, 0, tally, stats);
        stats->quarantined = count_quarantined(c);
    }
    if (status == CUSPEC_OK && c->system[0] != '\0')
        status = walk(c->system_fd, c->system, 1, count_entries, &stats->system_entries);
    return status;
}

/* ## List and verify */

struct visit {
    cuspec_store_visit_fn fn;
    void *user;
    int repair;
    uint64_t n_bad;
};

/* Reads the entry `name` in `dir` to `depth` into *e; e->problem says why
 * it is bad. CUSPEC_ERR_NOT_FOUND when it went away meanwhile. */
static int inspect(int dir, const char *name, const char *path, const char *hex,
                   enum cuspec__read_depth depth, cuspec_store_entry *e)
{
    struct cuspec__entry_file f;
    char name_hex[33];
    memset(e, 0, sizeof *e);
    int rc = cuspec__entry_read(dir, name, 0, depth, &f, e->problem, sizeof e->problem);
    cuspec__strlcpy(e->path, path, sizeof e->path);
    e->size = (uint64_t)f.st.st_size;
    e->last_use = (int64_t)f.st.st_mtim.tv_sec;
    if (rc == CUSPEC_OK) {
        size_t key_len = f.key_len < sizeof e->key ? f.key_len : sizeof e->key - 1;
        size_t meta_len = f.meta_len < sizeof e->meta ? f.meta_len : sizeof e->meta - 1;
        memcpy(e->key, f.body, key_len);
        memcpy(e->meta, f.body + f.key_len, meta_len);
        cuspec__hash128_hex(f.body, f.key_len, name_hex);
        if (strcmp(name_hex, hex) != 0)
            snprintf(e->problem, sizeof e->problem,
                     "its name does not match its key: a swapped or renamed file");
        else
            e->kind = f.kind;
    }
    cuspec__entry_file_free(&f);
    return rc == CUSPEC_ERR_NOT_FOUND || rc == CUSPEC_ERR_NOMEM ? rc : CUSPEC_OK;
}

/* A refused fan-out folder as a bad "entry" of the listing. */
static void refused_entry(const char *path, const char *why, cuspec_store_entry *e)
{
    memset(e, 0, sizeof *e);
    cuspec__strlcpy(e->path, path, sizeof e->path);
    cuspec__store_format(e->problem, sizeof e->problem, "refused folder: %.200s", why);
}

static int list_one(int dir, const char *name, const char *path, enum file_type type,
                    const char *hex, void *user)
{
    const struct visit *v = user;
    cuspec_store_entry e;
    if (type == FILE_REFUSED) {
        refused_entry(path, hex, &e);
        return v->fn(&e, v->user);
    }
    if (type != FILE_ENTRY)
        return CUSPEC_OK;
    int rc = inspect(dir, name, path, hex, CUSPEC__READ_KEY, &e);
    if (rc != CUSPEC_OK)
        return rc == CUSPEC_ERR_NOT_FOUND ? CUSPEC_OK : rc;
    return v->fn(&e, v->user);
}

int cuspec_store_list(cuspec_store_visit_fn fn, void *user)
{
    const struct cuspec__store_config *c;
    CUSPEC__RETURN_IF(fn == NULL, CUSPEC_ERR_INVALID, "cuspec_store_list: fn is NULL");
    struct visit v = {fn, user, 0, 0};
    int status = user_store(&c);
    return status == CUSPEC_OK ? walk(c->root_fd, c->root, 0, list_one, &v) : status;
}

static int verify_one(int dir, const char *name, const char *path, enum file_type type,
                      const char *hex, void *user)
{
    struct visit *v = user;
    cuspec_store_entry e;
    uint64_t removed = 0;
    if (type == FILE_REFUSED) {
        /* Not ours to repair: its owner or mode is someone else's doing. */
        v->n_bad++;
        refused_entry(path, hex, &e);
        return v->fn != NULL ? v->fn(&e, v->user) : CUSPEC_OK;
    }
    if (type != FILE_ENTRY)
        return v->repair ? remove_leftover(dir, name, path, type, &removed) : CUSPEC_OK;
    int rc = inspect(dir, name, path, hex, CUSPEC__READ_ALL, &e);
    if (rc != CUSPEC_OK)
        return rc == CUSPEC_ERR_NOT_FOUND ? CUSPEC_OK : rc;
    if (e.problem[0] == '\0')
        return CUSPEC_OK;
    v->n_bad++;
    if (v->repair && (rc = remove_file(dir, name, path, &removed)) != CUSPEC_OK)
        return rc;
    return v->fn != NULL ? v->fn(&e, v->user) : CUSPEC_OK;
}

int cuspec_store_verify(int repair, cuspec_store_visit_fn fn, void *user, uint64_t *n_bad)
{
    const struct cuspec__store_config *c;
    struct visit v = {fn, user, repair, 0};
    uint64_t emptied = 0;
    int status = user_store(&c);
    if (status == CUSPEC_OK)
        status = walk(c->root_fd, c->root, 0, verify_one, &v);
    if (status == CUSPEC_OK && repair)
        status = empty_quarantine(c, &emptied);
    if (n_bad != NULL)
        *n_bad = v.n_bad;
    return status;
}

/* ## Clear and prune */

struct removal {
    unsigned kind_mask;  /* clear: the kinds to remove, 0 for every entry */
    const char *version; /* prune: the NVRTC version that is not stale */
    uint64_t removed;
};

static int clear_one(int dir, const char *name, const char *path, enum file_type type,
                     const char *hex, void *user)
{
    struct removal *r = user;
    struct cuspec__entry_file f;
    char problem[256];
    uint64_t leftovers = 0;
    if (type == FILE_REFUSED)
        return skip_refused(hex);
    if (type != FILE_ENTRY)
        return r->kind_mask == 0 ? remove_leftover(dir, name, path, type, &leftovers) : CUSPEC_OK;
    if (r->kind_mask != 0) {
        int rc = cuspec__entry_read(dir, name, 0, CUSPEC__READ_HEADER, &f, problem, sizeof problem);
        cuspec__entry_file_free(&f);
        if (rc != CUSPEC_OK || !(r->kind_mask & (1u << f.kind)))
            return CUSPEC_OK;
    }
    return remove_file(dir, name, path, &r->removed);
}

int cuspec_store_clear(unsigned kind_mask, uint64_t *removed)
{
    const unsigned kinds =
        1u << CUSPEC_KIND_CUBIN | 1u << CUSPEC_KIND_PTX | 1u << CUSPEC_KIND_TUNING;
    const struct cuspec__store_config *c;
    struct removal r = {kind_mask, NULL, 0};
    uint64_t emptied = 0;
    CUSPEC__RETURN_IF(kind_mask & ~kinds, CUSPEC_ERR_INVALID,
                      "cuspec_store_clear: kind_mask 0x%x has bits of no kind (cubin 0x%x, ptx "
                      "0x%x, tuning 0x%x)",
                      kind_mask, 1u << CUSPEC_KIND_CUBIN, 1u << CUSPEC_KIND_PTX,
                      1u << CUSPEC_KIND_TUNING);
    int status = user_store(&c);
    if (status == CUSPEC_OK)
        status = walk(c->root_fd, c->root, 0, clear_one, &r);
    if (status == CUSPEC_OK && kind_mask == 0) /* everything: the bad entries moved aside too */
        status = empty_quarantine(c, &emptied);
    if (removed != NULL)
        *removed = r.removed;
    return status;
}

/* Whether meta's "nvrtc=" line names another version than `version`; an
 * entry that does not say is kept. */
static int other_nvrtc(const char *meta, const char *version)
{
    const char *value = cuspec__text_find(meta, "nvrtc");
    if (value == NULL)
        return 0;
    size_t len = strcspn(value, "\n");
    return len != strlen(version) || memcmp(value, version, len) != 0;
}

static int prune_stale(int dir, const char *name, const char *path, enum file_type type,
                       const char *hex, void *user)
{
    struct removal *r = user;
    struct cuspec__entry_file f;
    char problem[256];
    if (type == FILE_REFUSED)
        return skip_refused(hex);
    if (type != FILE_ENTRY)
        return CUSPEC_OK;
    int rc = cuspec__entry_read(dir, name, 0, CUSPEC__READ_KEY, &f, problem, sizeof problem);
    int stale = rc == CUSPEC_OK && f.kind != CUSPEC_KIND_TUNING &&
                other_nvrtc((const char *)f.body + f.key_len, r->version);
    cuspec__entry_file_free(&f);
    if (rc == CUSPEC_ERR_NOMEM)
        return rc;
    return stale ? remove_file(dir, name, path, &r->removed) : CUSPEC_OK;
}

int cuspec_store_prune(uint64_t max_bytes, int stale, uint64_t *removed)
{
    const struct cuspec__store_config *c;
    const struct cuspec__nvrtc *nv;
    char version[32];
    struct removal r = {0, version, 0};
    uint64_t evicted = 0;
    int status = user_store(&c);
    if (status == CUSPEC_OK && stale && (status = cuspec__nvrtc(&nv)) == CUSPEC_OK) {
        snprintf(version, sizeof version, "%d.%d", nv->info.major, nv->info.minor);
        status = walk(c->root_fd, c->root, 0, prune_stale, &r);
    }
    if (status == CUSPEC_OK)
        status = cuspec__store_evict(max_bytes != 0 ? max_bytes : c->max_bytes, &evicted, NULL);
    if (removed != NULL)
        *removed = r.removed + evicted;
    return status;
}
