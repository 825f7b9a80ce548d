/* The library's version, as the build gives it (configure.ac). */
#include "error.h"

/* cuspec.h's version macros are written by hand: they must be configure's. */
#if CUSPEC_VERSION_NUMBER != CUSPEC__CONFIGURE_VERSION_NUMBER
#error "CUSPEC_VERSION_MAJOR/MINOR/PATCH in src/cuspec.h are not configure.ac's version: set them to it"
#endif

const char *cuspec_version(void)
{
    return PACKAGE_VERSION;
}
