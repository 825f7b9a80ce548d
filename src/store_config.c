/* Where the store is, whether it may be used, and how big it may grow: fixed
 * once per process from the environment. Also the process counters. */
#include "store.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEFAULT_MAX_BYTES (1ull << 30)

_Atomic uint64_t cuspec__store_counters[CUSPEC__N_COUNTERS];

void cuspec__store_format(char *buf, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, size, fmt, ap);
    va_end(ap);
}

const char *cuspec_kind_name(int kind)
{
    switch (kind) {
    case CUSPEC_KIND_CUBIN:
        return "cubin";
    case CUSPEC_KIND_PTX:
        return "ptx";
    case CUSPEC_KIND_TUNING:
        return "tuning";
    }
    return "unknown";
}

void cuspec__store_count_compile(void)
{
    cuspec__store_count(CUSPEC__COMPILES, 1);
}

/* ## Location, trust and size bound */

static pthread_once_t once = PTHREAD_ONCE_INIT;
static struct cuspec__store_config config;

/* Creates `path` and its missing parents, each 0700 (as XDG asks of
 * ~/.cache). */
static int make_folders(const char *path)
{
    char buf[CUSPEC__STORE_PATH_MAX];
    cuspec__strlcpy(buf, path, sizeof buf);
    for (char *p = buf + 1;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char c = *p;
        *p = '\0';
        if (mkdir(buf, 0700) != 0 && errno != EEXIST)
            return -1;
        if (c == '\0')
            return 0;
        *p = c;
    }
}

/* Loading a cubin runs its code, so a store folder is used only when nobody
 * else can put files in it: the user store must be ours, the system store
 * ours or root's, and neither writable by group or others. */
static int trusted(const char *path, int system, char *why, size_t size)
{
    const char *what = system ? "system store" : "store";
    struct stat st;
    unsigned me = (unsigned)geteuid();
    if (stat(path, &st) != 0) {
        snprintf(why, size, "cannot use the %s folder %s: %s", what, path, strerror(errno));
        return 0;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(why, size, "the %s path %s is not a folder and is not used", what, path);
        return 0;
    }
    if (st.st_uid != me && !(system && st.st_uid == 0)) {
        snprintf(why, size,
                 "the %s folder %s is owned by uid %u, not by you (uid %u), and is not used: "
                 "loading a cubin runs its code (fix: chown %u %s, or set %s to a folder of yours)",
                 what, path, (unsigned)st.st_uid, me, me, path,
                 system ? "CUSPEC_SYSTEM_STORE" : "CUSPEC_CACHE_DIR");
        return 0;
    }
    if (st.st_mode & (S_IWGRP | S_IWOTH)) {
        snprintf(why, size,
                 "the %s folder %s is writable by group or others (mode %03o) and is not used: "
                 "loading a cubin runs its code (fix: chmod %s %s)",
                 what, path, (unsigned)(st.st_mode & 0777), system ? "go-w" : "700", path);
        return 0;
    }
    return 1;
}

/* A byte count with an optional K, M or G suffix (powers of 1024); 0 when it
 * is one, -1 when it is not. Zero is refused: it would disable the cache
 * through the back door. */
static int parse_size(const char *s, uint64_t *out)
{
    if (*s < '0' || *s > '9')
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    int shift = 0;
    switch (*end) {
    case 'K':
    case 'k':
        shift = 10;
        break;
    case 'M':
    case 'm':
        shift = 20;
        break;
    case 'G':
    case 'g':
        shift = 30;
        break;
    }
    if (shift != 0)
        end++;
    if (errno != 0 || *end != '\0' || v == 0 || v > (UINT64_MAX >> shift))
        return -1;
    *out = (uint64_t)v << shift;
    return 0;
}

/* The user store's folder from the environment into c->root; -1 (with
 * c->problem) when there is none. */
static int locate(struct cuspec__store_config *c)
{
    const char *dir = getenv("CUSPEC_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME"),
               *home = getenv("HOME");
    char cwd[CUSPEC__STORE_PATH_MAX];
    int n;
    if (dir != NULL && dir[0] == '/') {
        n = snprintf(c->root, sizeof c->root, "%s", dir);
    } else if (dir != NULL && dir[0] != '\0') {
        /* Made absolute now: a later chdir must not move the store. */
        if (getcwd(cwd, sizeof cwd) == NULL) {
            cuspec__store_format(
                c->problem, sizeof c->problem,
                "CUSPEC_CACHE_DIR=%s is relative and the current folder is unknown (%s)", dir,
                strerror(errno));
            return -1;
        }
        n = snprintf(c->root, sizeof c->root, "%s/%s", cwd, dir);
    } else if (xdg != NULL && xdg[0] == '/') { /* XDG: a relative value is ignored */
        n = snprintf(c->root, sizeof c->root, "%s/cuspec", xdg);
    } else if (home != NULL && home[0] != '\0') {
        n = snprintf(c->root, sizeof c->root, "%s/.cache/cuspec", home);
    } else {
        cuspec__store_format(
            c->problem, sizeof c->problem,
            "no store folder: none of CUSPEC_CACHE_DIR, XDG_CACHE_HOME and HOME is set, so "
            "compiled kernels are not cached (set CUSPEC_CACHE_DIR)");
        return -1;
    }
    if (n < 0 || (size_t)n >= sizeof c->root - CUSPEC__STORE_TAIL) {
        cuspec__store_format(c->problem, sizeof c->problem,
                             "the store path %.80s... is too long (at most %d characters); set "
                             "CUSPEC_CACHE_DIR to a shorter one",
                             c->root, CUSPEC__STORE_PATH_MAX - CUSPEC__STORE_TAIL - 1);
        c->root[0] = '\0';
        return -1;
    }
    return 0;
}

static void init(void)
{
    struct cuspec__store_config *c = &config;
    if (locate(c) == 0) {
        if (make_folders(c->root) != 0)
            cuspec__store_format(
                c->problem, sizeof c->problem,
                "cannot create the store folder %s: %s; compiled kernels are not cached (set "
                "CUSPEC_CACHE_DIR to a folder you can write)",
                c->root, strerror(errno));
        else
            c->root_ok = trusted(c->root, 0, c->problem, sizeof c->problem);
    }
    if (!c->root_ok)
        cuspec__warn("%s", c->problem);

    const char *sys = getenv("CUSPEC_SYSTEM_STORE");
    char why[1536];
    struct stat st;
    if (sys == NULL || sys[0] == '\0')
        sys = CUSPEC_SYSTEM_STORE_DIR;
    /* No system store is the common case, and not worth a word. */
    if (strlen(sys) < sizeof c->system - CUSPEC__STORE_TAIL && stat(sys, &st) == 0) {
        if (trusted(sys, 1, why, sizeof why))
            cuspec__strlcpy(c->system, sys, sizeof c->system);
        else
            cuspec__warn("%s", why);
    }

    const char *max = getenv("CUSPEC_CACHE_MAX_BYTES");
    c->max_bytes = DEFAULT_MAX_BYTES;
    if (max != NULL && max[0] != '\0' && parse_size(max, &c->max_bytes) != 0) {
        c->max_bytes = DEFAULT_MAX_BYTES;
        cuspec__warn("CUSPEC_CACHE_MAX_BYTES=%s is not a size (a positive integer with an optional "
                     "K, M or G suffix); the store is bounded by the default, 1G",
                     max);
    }
}

const struct cuspec__store_config *cuspec__store_config(void)
{
    pthread_once(&once, init);
    return &config;
}
