/* Where the store is, whether it may be used, and how big it may grow: fixed
 * once per process from the environment, when the roots are opened (and
 * checked: store_trust.c) and kept open. Also the process counters. */
#include "store_files.h"
#include "error.h"
#include "store.h"
#include "text.h"

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

void cuspec__store_count_compile(void)
{
    cuspec__store_count(CUSPEC__COMPILES, 1);
}

/* ## Location, trust and size bound */

static pthread_once_t once = PTHREAD_ONCE_INIT;
static struct cuspec__store_config config;

/* Opens a store's root (see store_trust.c) into *fd; 0 and a warning-ready
 * message in `why` when it is refused. */
static int open_root(const char *path, int system, int *fd, char *why, size_t size)
{
    char detail[1280];
    int rc = cuspec__store_open_root(path, system, !system, fd, detail, sizeof detail);
    if (rc == CUSPEC_OK)
        return 1;
    if (system)
        cuspec__store_format(why, size,
                             "the system store folder %s is not used: %s; or set "
                             "CUSPEC_SYSTEM_STORE to another",
                             path, detail);
    else
        cuspec__store_format(why, size,
                             "the store folder %s is not used, so compiled kernels and tuning "
                             "results are not kept: %s; or set CUSPEC_CACHE_DIR to a folder of "
                             "yours",
                             path, detail);
    return 0;
}

/* The user store's folder from the environment into c->root; -1 (with
 * c->problem) when there is none. */
static int locate(struct cuspec__store_config *c)
{
    const char *dir = secure_getenv("CUSPEC_CACHE_DIR"),
               *xdg = secure_getenv("XDG_CACHE_HOME"), *home = secure_getenv("HOME");
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
    } else if (home != NULL && home[0] == '/') {
        n = snprintf(c->root, sizeof c->root, "%s/.cache/cuspec", home);
    } else {
        /* Say what each variable is, not merely that none is "set". */
        char xdg_says[320], home_says[320];
        if (xdg == NULL || xdg[0] == '\0')
            snprintf(xdg_says, sizeof xdg_says, "XDG_CACHE_HOME is %s", xdg ? "empty" : "not set");
        else
            snprintf(xdg_says, sizeof xdg_says,
                     "XDG_CACHE_HOME=%.200s is relative (ignored, as the XDG specification asks)",
                     xdg);
        if (home == NULL || home[0] == '\0')
            snprintf(home_says, sizeof home_says, "HOME is %s", home ? "empty" : "not set");
        else
            snprintf(home_says, sizeof home_says, "HOME=%.200s is relative", home);
        cuspec__store_format(c->problem, sizeof c->problem,
                             "no store folder: CUSPEC_CACHE_DIR is %s, %s and %s, so compiled "
                             "kernels and tuning results are not kept (set CUSPEC_CACHE_DIR)",
                             dir ? "empty" : "not set", xdg_says, home_says);
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
    c->root_fd = -1;
    if (locate(c) == 0)
        c->root_ok = open_root(c->root, 0, &c->root_fd, c->problem, sizeof c->problem);
    if (!c->root_ok)
        cuspec__warn("%s", c->problem);

    const char *max = getenv("CUSPEC_CACHE_MAX_BYTES");
    c->max_bytes = DEFAULT_MAX_BYTES;
    if (max != NULL && max[0] != '\0' &&
        (cuspec_parse_size(max, &c->max_bytes) != CUSPEC_OK ||
         c->max_bytes < CUSPEC__MIN_MAX_BYTES)) {
        c->max_bytes = DEFAULT_MAX_BYTES;
        cuspec__warn("CUSPEC_CACHE_MAX_BYTES=%s is not a size of at least 64K (an integer with an "
                     "optional K, M or G suffix; a smaller bound would evict most kernels at "
                     "every publish); the store is bounded by the default, 1G",
                     max);
    }
}

/* The system store is opened when a lookup first misses the user store (or
 * stats asks): a process whose kernels are all in its user store never
 * resolves that path. */
static pthread_once_t system_once = PTHREAD_ONCE_INIT;

static void init_system(void)
{
    struct cuspec__store_config *c = &config;
    c->system_fd = -1;
    /* secure_getenv: a set-user-ID program using cuspec must not create
     * folders wherever its caller points. */
    const char *sys = secure_getenv("CUSPEC_SYSTEM_STORE");
    char why[1536];
    struct stat st;
    if (sys == NULL || sys[0] == '\0')
        sys = CUSPEC_SYSTEM_STORE_DIR;
    /* No system store is the common case, and not worth a word. */
    if (strlen(sys) >= sizeof c->system - CUSPEC__STORE_TAIL)
        cuspec__warn("the system store path %.80s... is too long (at most %d characters) and is "
                     "not used",
                     sys, CUSPEC__STORE_PATH_MAX - CUSPEC__STORE_TAIL - 1);
    else if (lstat(sys, &st) == 0) {
        if (open_root(sys, 1, &c->system_fd, why, sizeof why))
            cuspec__strlcpy(c->system, sys, sizeof c->system);
        else
            cuspec__warn("%s", why);
    }
}

const struct cuspec__store_config *cuspec__store_config(void)
{
    pthread_once(&once, init);
    return &config;
}

const struct cuspec__store_config *cuspec__store_config_system(void)
{
    pthread_once(&once, init);
    pthread_once(&system_once, init_system);
    return &config;
}
