/* Helpers of the store's tests: a scratch folder per run, scenarios in child
 * processes (the store's location is read once per process, from the
 * environment), warnings recorded, and small file surgery. Header-only, for
 * one test program each; include after store.h and tap.h. */
#ifndef CUSPEC_STORE_TEST_H
#define CUSPEC_STORE_TEST_H

#include "store_files.h"
#include "hash.h"
#include "store.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char base[512];     /* this run's scratch folder */
static char scenario[640]; /* the store of the running scenario: <base>/<name> */

/* The warnings the library sent in this process, one per line. */
static int n_warnings;
static char warnings[16384];

static inline void record_warning(const char *message, void *user)
{
    size_t len = strlen(warnings);
    n_warnings++;
    snprintf(warnings + len, sizeof warnings - len, "%s\n", message);
}

/* Waits for `pid`; 1 when it exited with status 0. */
static inline int child_ok(pid_t pid)
{
    int st = 0;
    return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* Runs fn in a child whose user store is <base>/<name>, with no system store
 * and the default bound (fn may set other variables before its first store
 * call). The child's checks print their own diagnostics; its exit status
 * carries pass/fail. */
struct store_scenario {
    const char *name;
    void (*fn)(void);
};

static inline void store_scenario(void *arg)
{
    const struct store_scenario *s = arg;
    snprintf(scenario, sizeof scenario, "%s/%s", base, s->name);
    setenv("CUSPEC_CACHE_DIR", scenario, 1);
    setenv("CUSPEC_SYSTEM_STORE", "/nonexistent/cuspec-system-store", 1);
    unsetenv("CUSPEC_CACHE_MAX_BYTES");
    cuspec_set_warning_handler(record_warning, NULL);
    s->fn();
}

static inline void in_child(const char *name, void (*fn)(void))
{
    struct store_scenario s = {name, fn};
    tap_in_child(store_scenario, &s);
}

/* <base>/<rel> in buf. */
static inline const char *in_base(char *buf, size_t size, const char *rel)
{
    if (snprintf(buf, size, "%s/%s", base, rel) >= (int)size)
        TAP_FAIL("path too long: %s/%s", base, rel);
    return buf;
}

/* The entry file of `key` in `store`. */
static inline const char *entry_path(const char *store, const char *key, char *buf, size_t size)
{
    char hex[33];
    cuspec__hash128_hex(key, strlen(key), hex);
    if (snprintf(buf, size, "%s/" CUSPEC__ENTRIES_DIR "/%.2s/%s.entry", store, hex, hex + 2) >= (int)size)
        TAP_FAIL("path too long: %s", store);
    return buf;
}

/* Deterministic payload bytes: byte i of stream `seed`. */
static inline unsigned char pattern(size_t i, unsigned seed)
{
    return (unsigned char)(((uint64_t)i * 2654435761u + seed * 40503u) >> 13);
}

static inline unsigned char *make_payload(size_t len, unsigned seed)
{
    unsigned char *p = malloc(len ? len : 1);
    for (size_t i = 0; i < len; i++)
        p[i] = pattern(i, seed);
    return p;
}

static inline int same_payload(const struct cuspec__entry *e, size_t len, unsigned seed)
{
    if (e->len != len)
        return 0;
    for (size_t i = 0; i < len; i++)
        if (((const unsigned char *)e->payload)[i] != pattern(i, seed))
            return 0;
    return 1;
}

static inline void put(const char *key, int kind, size_t len, unsigned seed)
{
    unsigned char *p = make_payload(len, seed);
    CHECK_INT_EQ(cuspec__store_put(key, kind, "lowered=_Z4testv\nnvrtc=13.0\n", p, len), CUSPEC_OK);
    free(p);
}

/* Whether `key` loads with exactly the bytes of put(key, kind, len, seed). */
static inline int loads(const char *key, int kind, size_t len, unsigned seed)
{
    struct cuspec__entry e;
    int tier = 0;
    int ok = cuspec__store_get(key, kind, &e, &tier) == CUSPEC_OK && same_payload(&e, len, seed);
    cuspec__entry_free(&e);
    return ok;
}

static inline cuspec_store_stats stats(void)
{
    cuspec_store_stats s;
    CHECK_INT_EQ(cuspec_store_get_stats(&s), CUSPEC_OK);
    return s;
}

/* The number of names in `dir` that start with `prefix` ("" for all but
 * . and ..). */
static inline int count_names(const char *dir, const char *prefix)
{
    int n = 0;
    DIR *d = opendir(dir);
    struct dirent *de;
    while (d != NULL && (de = readdir(d)) != NULL)
        n += strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0 &&
             strncmp(de->d_name, prefix, strlen(prefix)) == 0;
    if (d != NULL)
        closedir(d);
    return n;
}

/* The number of files under <store>/v<format>/ whose names start with `prefix`. */
static inline int count_in_store(const char *store, const char *prefix)
{
    char top[1024], sub[1300];
    int n = 0;
    snprintf(top, sizeof top, "%s/" CUSPEC__ENTRIES_DIR, store);
    DIR *d = opendir(top);
    struct dirent *de;
    while (d != NULL && (de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        snprintf(sub, sizeof sub, "%s/%s", top, de->d_name);
        n += count_names(sub, prefix);
    }
    if (d != NULL)
        closedir(d);
    return n;
}

static inline off_t file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? st.st_size : -1;
}

/* Flips the bits of the byte at `off` (from the end when negative). */
static inline void flip_byte(const char *path, long off)
{
    int fd = open(path, O_RDWR);
    unsigned char c = 0;
    if (off < 0)
        off += (long)file_size(path);
    CHECK(fd >= 0 && pread(fd, &c, 1, off) == 1);
    c ^= 0xff;
    CHECK(pwrite(fd, &c, 1, off) == 1);
    close(fd);
}

static inline void write_at(const char *path, long off, const void *data, size_t len)
{
    int fd = open(path, O_RDWR);
    CHECK(fd >= 0 && pwrite(fd, data, len, off) == (ssize_t)len);
    close(fd);
}

static inline void write_file(const char *path, const void *data, size_t len)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    CHECK(fd >= 0 && write(fd, data, len) == (ssize_t)len);
    close(fd);
}

static inline void copy_file(const char *from, const char *to)
{
    char buf[65536];
    int in = open(from, O_RDONLY);
    ssize_t n = in >= 0 ? read(in, buf, sizeof buf) : -1;
    CHECK(n > 0 && n < (ssize_t)sizeof buf);
    write_file(to, buf, (size_t)n);
    close(in);
}

/* Sets a file's mtime, the store's clock of last use, to `age_s` seconds
 * ago. */
static inline void set_age(const char *path, long age_s)
{
    struct timespec t[2] = {{0, UTIME_OMIT}, {time(NULL) - age_s, 0}};
    CHECK(utimensat(AT_FDCWD, path, t, 0) == 0);
}

/* Creates the scratch folder, runs the tests, and removes the folder when
 * they all passed (it is kept for a look otherwise). */
static inline int store_test_main(const struct tap_test *tests, size_t n)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(base, sizeof base, "%s/cuspec-test.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (mkdtemp(base) == NULL) {
        printf("Bail out! cannot create a scratch folder under %s\n", base);
        return 1;
    }
    /* Reachable by a test acting as another user (t_store_trust). */
    chmod(base, 0755);
    int rc = tap_run(tests, n);
    if (rc == 0)
        tap_remove_tree(base, 0);
    else
        printf("# the stores are kept in %s\n", base);
    return rc;
}

#endif
