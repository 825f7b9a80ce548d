/* The library's version, as the build gives it (configure.ac). */
#include "error.h"

/* cuspec.h's version macros are written by hand: they must be configure's. */
#if CUSPEC_VERSION_NUMBER != CUSPEC__CONFIGURE_VERSION_NUMBER
#error "src/cuspec.h: CUSPEC_VERSION_MAJOR/MINOR/PATCH differ from configure.ac's version"
#endif

const char *cuspec_version(void)
{
    return PACKAGE_VERSION;
}
