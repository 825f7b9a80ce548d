/* The library's version, as the build gives it (configure.ac). */
#include "error.h"

const char *cuspec_version(void)
{
    return PACKAGE_VERSION;
}
