/* Status names and texts (one X-macro list in cuspec.h) and the thread-local
 * detail of the last failure. */
#include "internal.h"

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

const char *cuspec_version(void)
{
    return PACKAGE_VERSION;
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

void cuspec__strlcpy(char *dst, const char *src, size_t size)
{
    if (size == 0)
        return;
    size_t len = strlen(src);
    if (len >= size)
        len = size - 1;
    memcpy(dst, src, len);
    dst[len] = '\0';
}
