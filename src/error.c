/* Status names and texts (one X-macro list in cuspec.h) and the thread-local
 * detail of the last failure. */
#include "error.h"
#include "hash.h"

#include <stdio.h>
#include <string.h>

#define DETAIL_SIZE 16384 /* room for an NVRTC log excerpt */

static _Thread_local char detail[DETAIL_SIZE];

const char *cuspec_strerror(int status)
{
    switch (status) {
#define CASE(name, value, text)                                                                    \
    case CUSPEC_##name:                                                                            \
        return text;
        CUSPEC_STATUS_MAP(CASE)
#undef CASE
    }
    return "unknown status";
}

const char *cuspec_status_name(int status)
{
    switch (status) {
#define CASE(name, value, text)                                                                    \
    case CUSPEC_##name:                                                                            \
        return "CUSPEC_" #name;
        CUSPEC_STATUS_MAP(CASE)
#undef CASE
    }
    return NULL;
}

const char *cuspec_last_error(void)
{
    return detail;
}

int cuspec__vfail(int status, const char *fmt, va_list ap)
{
    vsnprintf(detail, sizeof detail, fmt, ap);
    return status;
}

int cuspec__fail(int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cuspec__vfail(status, fmt, ap);
    va_end(ap);
    return status;
}

int cuspec__fail_context(int status, const char *fmt, ...)
{
    char inner[DETAIL_SIZE];
    memcpy(inner, detail, sizeof inner);
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    if (len >= 0 && (size_t)len < sizeof detail)
        snprintf(detail + len, sizeof detail - (size_t)len, ": %s", inner);
    return status;
}

void cuspec__clear_error(void)
{
    detail[0] = '\0';
}

/* ## Warnings: once per distinct message, to the installed handler. */

#include <pthread.h>

static pthread_mutex_t warn_lock = PTHREAD_MUTEX_INITIALIZER;
static cuspec_warning_fn warn_fn;
static void *warn_user;
static uint64_t warned[256]; /* hashes of messages already sent */
static size_t n_warned;

void cuspec_set_warning_handler(cuspec_warning_fn fn, void *user)
{
    pthread_mutex_lock(&warn_lock);
    warn_fn = fn;
    warn_user = user;
    pthread_mutex_unlock(&warn_lock);
}

void cuspec__warn(const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    uint64_t h = cuspec__hash64(msg, strlen(msg));

    pthread_mutex_lock(&warn_lock);
    int seen = 0;
    for (size_t i = 0; i < n_warned && !seen; i++)
        seen = warned[i] == h;
    if (!seen && n_warned < sizeof warned / sizeof *warned)
        warned[n_warned++] = h;
    if (!seen && warn_fn != NULL)
        warn_fn(msg, warn_user);
    pthread_mutex_unlock(&warn_lock);
}
