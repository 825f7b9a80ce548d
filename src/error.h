/* Errors and warnings (error.c): the thread-local detail behind
 * cuspec_last_error(), and the warning handler. Every header of the library
 * includes this one first, and it config.h first: config.h picks the system
 * interfaces. Public names are cuspec_*, internal non-static ones cuspec__*. */
#ifndef CUSPEC_ERROR_H
#define CUSPEC_ERROR_H

#include "config.h"
#include "cuspec.h"

#include <stdarg.h>
#include <stddef.h>

#if defined(__GNUC__)
#define CUSPEC__PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CUSPEC__PRINTF(f, a)
#endif


/* Records `status` with a printf-style detail for cuspec_last_error() and
 * returns `status`, so error paths read `return cuspec__fail(...)`. */
int cuspec__fail(int status, const char *fmt, ...) CUSPEC__PRINTF(2, 3);
int cuspec__vfail(int status, const char *fmt, va_list ap);
/* Prepends "what: " to the current detail (context for a nested failure). */
int cuspec__fail_context(int status, const char *fmt, ...) CUSPEC__PRINTF(2, 3);
void cuspec__clear_error(void);
/* Sends a warning to the handler set by cuspec_set_warning_handler, once per
 * distinct message per process. Never changes the last-error detail. */
void cuspec__warn(const char *fmt, ...) CUSPEC__PRINTF(1, 2);

#define CUSPEC__RETURN_IF(cond, status, ...)                                                       \
    do {                                                                                           \
        if (cond)                                                                                  \
            return cuspec__fail((status), __VA_ARGS__);                                            \
    } while (0)

/* CUSPEC_ERR_INVALID unless the reserved space of the public struct `what`
 * that the caller filled (*p) is zero (cuspec.h, "Structs that grow"). */
#define CUSPEC__RETURN_IF_RESERVED(p, what)                                                        \
    do {                                                                                           \
        for (size_t i_ = 0; i_ < sizeof(p)->reserved / sizeof *(p)->reserved; i_++)                \
            CUSPEC__RETURN_IF((p)->reserved[i_] != 0, CUSPEC_ERR_INVALID,                          \
                              "%s: reserved is not zero: zero the struct before setting its "     \
                              "fields (= {0}, or memset)",                                         \
                              what);                                                               \
    } while (0)

#endif /* CUSPEC_ERROR_H */
