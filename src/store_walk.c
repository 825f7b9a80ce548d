/* Walks over the store's folders: size-bound eviction, and the public
 * management calls (stats, list, verify, clear, prune). */
#include "store.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* A temporary file older than this was left by a writer that died: a live
 * publish renames its file within moments of creating it. */
#define TMP_MAX_AGE_S 60

enum file_type { FILE_ENTRY, FILE_TMP };

/* Called for each file of the fan-out folders; `hex` is the key hash an
 * entry's name claims (NULL for temporary files). Non-zero stops the walk. */
typedef int (*walk_fn)(const char *path, enum file_type type, const char *hex, void *user);

static int is_hex(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return 0;
    return 1;
}

/* Visits the entries and temporary files under <store>/v1/; other names are
 * not the store's and are left alone. A store without v1/ is empty. */
static int walk(const char *store, walk_fn fn, void *user)
{
    char top[CUSPEC__STORE_PATH_MAX], sub[CUSPEC__STORE_PATH_MAX], path[CUSPEC__STORE_PATH_MAX];
    char hex[33];
    int status = CUSPEC_OK;
    cuspec__store_format(top, sizeof top, "%s/v1", store);
    DIR *d = opendir(top);
    if (d == NULL)
        return errno == ENOENT ? CUSPEC_OK
                               : cuspec__fail(CUSPEC_ERR_IO, "cannot read the store folder %s: %s",
                                              top, strerror(errno));
    struct dirent *de;
    while (status == CUSPEC_OK && (de = readdir(d)) != NULL) {
        if (strlen(de->d_name) != 2 || !is_hex(de->d_name, 2))
            continue;
        cuspec__store_format(sub, sizeof sub, "%s/%s", top, de->d_name);
        DIR *s = opendir(sub);
        if (s == NULL && (errno == ENOENT || errno == ENOTDIR))
            continue;
        if (s == NULL) {
            status = cuspec__fail(CUSPEC_ERR_IO, "cannot read the store folder %s: %s", sub,
                                  strerror(errno));
            break;
        }
        struct dirent *fe;
        while (status == CUSPEC_OK && (fe = readdir(s)) != NULL) {
            const char *name = fe->d_name;
            size_t n = strlen(name);
            int entry = n == 36 && is_hex(name, 30) && strcmp(name + 30, ".entry") == 0;
            int tmp = n < 64 && strncmp(name, CUSPEC__TMP_PREFIX, strlen(CUSPEC__TMP_PREFIX)) == 0;
            if (!entry && !tmp)
                continue;
            cuspec__store_format(path, sizeof path, "%s/%s", sub, name);
            cuspec__store_format(hex, sizeof hex, "%s%.30s", de->d_name, name);
            status = fn(path, entry ? FILE_ENTRY : FILE_TMP, entry ? hex : NULL, user);
        }
        closedir(s);
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

static int remove_file(const char *path, uint64_t *removed)
{
    /* An empty folder where an entry belongs is as bad as a bad file; one
     * with something in it is not ours to empty. */
    if (unlink(path) == 0 || ((errno == EISDIR || errno == EPERM) && rmdir(path) == 0))
        ++*removed;
    else if (errno != ENOENT) /* gone already: another process removed it */
        return cuspec__fail(CUSPEC_ERR_IO, "cannot remove %s: %s", path, strerror(errno));
    return CUSPEC_OK;
}

/* ## Eviction */

struct lru_item {
    char *path;
    uint64_t size;
    struct timespec last_use;
};

struct lru {
    struct lru_item *items;
    size_t n, cap;
    uint64_t total;
};

static int collect(const char *path, enum file_type type, const char *hex, void *user)
{
    struct lru *l = user;
    struct stat st;
    if (type != FILE_ENTRY || lstat(path, &st) != 0)
        return CUSPEC_OK; /* gone since the folder was read: nothing to evict */
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 256;
        struct lru_item *items = realloc(l->items, cap * sizeof *items);
        if (items == NULL)
            return cuspec__fail(CUSPEC_ERR_NOMEM, "cannot list the store's entries");
        l->items = items;
        l->cap = cap;
    }
    char *copy = strdup(path);
    if (copy == NULL)
        return cuspec__fail(CUSPEC_ERR_NOMEM, "cannot list the store's entries");
    l->items[l->n++] = (struct lru_item){copy, (uint64_t)st.st_size, st.st_mtim};
    l->total += (uint64_t)st.st_size;
    return CUSPEC_OK;
}

static int older_first(const void *a, const void *b)
{
    const struct timespec *x = &((const struct lru_item *)a)->last_use,
                          *y = &((const struct lru_item *)b)->last_use;
    if (x->tv_sec != y->tv_sec)
        return x->tv_sec < y->tv_sec ? -1 : 1;
    return (x->tv_nsec > y->tv_nsec) - (x->tv_nsec < y->tv_nsec);
}

int cuspec__store_evict(uint64_t bound, uint64_t *removed)
{
    const struct cuspec__store_config *c;
    struct lru l = {0};
    uint64_t n_removed = 0, compiled = 0;
    int status = user_store(&c);
    if (status == CUSPEC_OK)
        status = walk(c->root, collect, &l);
    /* The file sizes alone settle the common case: when every entry together
     * fits, no entry needs to be opened to learn its kind. */
    if (status != CUSPEC_OK || l.total <= bound)
        goto done;
    size_t kept = 0;
    for (size_t i = 0; i < l.n; i++) {
        struct cuspec__entry_file f;
        char problem[256];
        int rc =
            cuspec__entry_read(l.items[i].path, CUSPEC__READ_HEADER, &f, problem, sizeof problem);
        cuspec__entry_file_free(&f);
        /* Tuning records are never evicted by size; a bad entry goes with
         * the compiled ones, as it is of no use; one that cannot be read
         * (CUSPEC_ERR_IO: its permissions, say) may be a tuning record, and
         * stays. */
        if (rc == CUSPEC_ERR_NOT_FOUND || rc == CUSPEC_ERR_IO ||
            (rc == CUSPEC_OK && f.kind == CUSPEC_KIND_TUNING)) {
            free(l.items[i].path);
            continue;
        }
        compiled += l.items[i].size;
        l.items[kept++] = l.items[i];
    }
    l.n = kept;
    qsort(l.items, l.n, sizeof *l.items, older_first);
    for (size_t i = 0; i < l.n && compiled > bound && status == CUSPEC_OK; i++) {
        status = remove_file(l.items[i].path, &n_removed);
        compiled -= l.items[i].size;
    }
done:
    for (size_t i = 0; i < l.n; i++)
        free(l.items[i].path);
    free(l.items);
    cuspec__store_count(CUSPEC__EVICTIONS, n_removed);
    if (removed != NULL)
        *removed = n_removed;
    return status;
}

/* ## Stats */

/* Entries by kind; [0] counts the entries whose header is bad. */
static int tally(const char *path, enum file_type type, const char *hex, void *user)
{
    cuspec_store_stats *s = user;
    struct cuspec__entry_file f;
    char problem[256];
    if (type != FILE_ENTRY)
        return CUSPEC_OK;
    int rc = cuspec__entry_read(path, CUSPEC__READ_HEADER, &f, problem, sizeof problem);
    cuspec__entry_file_free(&f);
    if (rc == CUSPEC_ERR_NOT_FOUND)
        return CUSPEC_OK;
    int kind = rc == CUSPEC_OK ? f.kind : 0;
    s->entries[kind]++;
    s->bytes[kind] += (uint64_t)f.st.st_size;
    return CUSPEC_OK;
}

static int count_entries(const char *path, enum file_type type, const char *hex, void *user)
{
    if (type == FILE_ENTRY)
        ++*(uint64_t *)user;
    return CUSPEC_OK;
}

int cuspec_store_get_stats(cuspec_store_stats *stats)
{
    CUSPEC__RETURN_IF(stats == NULL, CUSPEC_ERR_INVALID, "cuspec_store_get_stats: stats is NULL");
    const struct cuspec__store_config *c = cuspec__store_config();
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
        stats->writable = access(c->root, W_OK) == 0;
        if (!stats->writable)
            snprintf(stats->why_not_writable, sizeof stats->why_not_writable,
                     "you cannot write in it (%s): calls read its entries and keep nothing new",
                     strerror(errno));
        status = walk(c->root, tally, stats);
    }
    if (status == CUSPEC_OK && c->system[0] != '\0')
        status = walk(c->system, count_entries, &stats->system_entries);
    return status;
}

/* ## List and verify */

struct visit {
    cuspec_store_visit_fn fn;
    void *user;
    int repair;
    uint64_t n_bad;
};

/* Reads the entry at `path` to `depth` into *e; e->problem says why it is
 * bad. CUSPEC_ERR_NOT_FOUND when it went away meanwhile. */
static int inspect(const char *path, const char *hex, enum cuspec__read_depth depth,
                   cuspec_store_entry *e)
{
    struct cuspec__entry_file f;
    char name_hex[33];
    memset(e, 0, sizeof *e);
    int rc = cuspec__entry_read(path, depth, &f, e->problem, sizeof e->problem);
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

static int list_one(const char *path, enum file_type type, const char *hex, void *user)
{
    const struct visit *v = user;
    cuspec_store_entry e;
    if (type != FILE_ENTRY)
        return CUSPEC_OK;
    int rc = inspect(path, hex, CUSPEC__READ_KEY, &e);
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
    return status == CUSPEC_OK ? walk(c->root, list_one, &v) : status;
}

static int verify_one(const char *path, enum file_type type, const char *hex, void *user)
{
    struct visit *v = user;
    struct stat st;
    cuspec_store_entry e;
    uint64_t removed = 0;
    if (type == FILE_TMP) {
        if (v->repair && lstat(path, &st) == 0 && time(NULL) - st.st_mtime > TMP_MAX_AGE_S)
            return remove_file(path, &removed);
        return CUSPEC_OK;
    }
    int rc = inspect(path, hex, CUSPEC__READ_ALL, &e);
    if (rc != CUSPEC_OK)
        return rc == CUSPEC_ERR_NOT_FOUND ? CUSPEC_OK : rc;
    if (e.problem[0] == '\0')
        return CUSPEC_OK;
    v->n_bad++;
    if (v->repair && (rc = remove_file(path, &removed)) != CUSPEC_OK)
        return rc;
    return v->fn != NULL ? v->fn(&e, v->user) : CUSPEC_OK;
}

/* Empties <store>/quarantine/: what get moved aside has served its purpose
 * once someone chose to repair. */
static int empty_quarantine(const char *store)
{
    char dir[CUSPEC__STORE_PATH_MAX], path[CUSPEC__STORE_PATH_MAX];
    uint64_t removed = 0;
    int status = CUSPEC_OK;
    cuspec__store_format(dir, sizeof dir, "%s/quarantine", store);
    DIR *d = opendir(dir);
    if (d == NULL)
        return errno == ENOENT
                   ? CUSPEC_OK
                   : cuspec__fail(CUSPEC_ERR_IO, "cannot read %s: %s", dir, strerror(errno));
    struct dirent *de;
    while (status == CUSPEC_OK && (de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.' || strlen(dir) + strlen(de->d_name) + 2 > sizeof path)
            continue;
        cuspec__store_format(path, sizeof path, "%s/%s", dir, de->d_name);
        status = remove_file(path, &removed);
    }
    closedir(d);
    return status;
}

int cuspec_store_verify(int repair, cuspec_store_visit_fn fn, void *user, uint64_t *n_bad)
{
    const struct cuspec__store_config *c;
    struct visit v = {fn, user, repair, 0};
    int status = user_store(&c);
    if (status == CUSPEC_OK)
        status = walk(c->root, verify_one, &v);
    if (status == CUSPEC_OK && repair)
        status = empty_quarantine(c->root);
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

static int clear_one(const char *path, enum file_type type, const char *hex, void *user)
{
    struct removal *r = user;
    struct cuspec__entry_file f;
    char problem[256];
    if (type != FILE_ENTRY)
        return CUSPEC_OK;
    if (r->kind_mask != 0) {
        int rc = cuspec__entry_read(path, CUSPEC__READ_HEADER, &f, problem, sizeof problem);
        cuspec__entry_file_free(&f);
        if (rc != CUSPEC_OK || !(r->kind_mask & (1u << f.kind)))
            return CUSPEC_OK;
    }
    return remove_file(path, &r->removed);
}

int cuspec_store_clear(unsigned kind_mask, uint64_t *removed)
{
    const unsigned kinds =
        1u << CUSPEC_KIND_CUBIN | 1u << CUSPEC_KIND_PTX | 1u << CUSPEC_KIND_TUNING;
    const struct cuspec__store_config *c;
    struct removal r = {kind_mask, NULL, 0};
    CUSPEC__RETURN_IF(kind_mask & ~kinds, CUSPEC_ERR_INVALID,
                      "cuspec_store_clear: kind_mask 0x%x has bits of no kind (cubin 0x%x, ptx "
                      "0x%x, tuning 0x%x)",
                      kind_mask, 1u << CUSPEC_KIND_CUBIN, 1u << CUSPEC_KIND_PTX,
                      1u << CUSPEC_KIND_TUNING);
    int status = user_store(&c);
    if (status == CUSPEC_OK)
        status = walk(c->root, clear_one, &r);
    if (status == CUSPEC_OK && kind_mask == 0)
        status = empty_quarantine(c->root); /* everything: the bad entries moved aside too */
    if (removed != NULL)
        *removed = r.removed;
    return status;
}

/* Whether meta's "nvrtc=" line names another version than `version`; an
 * entry that does not say is kept. */
static int other_nvrtc(const char *meta, const char *version)
{
    static const char tag[] = "nvrtc=";
    for (const char *line = meta; *line != '\0';) {
        const char *end = strchr(line, '\n');
        size_t len = end != NULL ? (size_t)(end - line) : strlen(line);
        if (len >= sizeof tag - 1 && memcmp(line, tag, sizeof tag - 1) == 0) {
            const char *value = line + sizeof tag - 1;
            size_t value_len = len - (sizeof tag - 1);
            return value_len != strlen(version) || memcmp(value, version, value_len) != 0;
        }
        line += len + (end != NULL);
    }
    return 0;
}

static int prune_stale(const char *path, enum file_type type, const char *hex, void *user)
{
    struct removal *r = user;
    struct cuspec__entry_file f;
    char problem[256];
    if (type != FILE_ENTRY)
        return CUSPEC_OK;
    int rc = cuspec__entry_read(path, CUSPEC__READ_KEY, &f, problem, sizeof problem);
    int stale = rc == CUSPEC_OK && f.kind != CUSPEC_KIND_TUNING &&
                other_nvrtc((const char *)f.body + f.key_len, r->version);
    cuspec__entry_file_free(&f);
    if (rc == CUSPEC_ERR_NOMEM)
        return rc;
    return stale ? remove_file(path, &r->removed) : CUSPEC_OK;
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
        status = walk(c->root, prune_stale, &r);
    }
    if (status == CUSPEC_OK)
        status = cuspec__store_evict(max_bytes != 0 ? max_bytes : c->max_bytes, &evicted);
    if (removed != NULL)
        *removed = r.removed + evicted;
    return status;
}
