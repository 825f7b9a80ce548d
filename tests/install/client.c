/* A client of the installed cuspec, built by tests/t_install.sh and `make
 * installcheck` with pkg-config and with CMake: the header it was built with
 * must be the library it runs with, which needs no GPU to say so. */
#include <cuspec.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
    char header[32];
    int count = 0;
    snprintf(header, sizeof header, "%d.%d.%d", CUSPEC_VERSION_MAJOR, CUSPEC_VERSION_MINOR,
             CUSPEC_VERSION_PATCH);
    int rc = cuspec_device_count(&count);
    printf("cuspec %s (header %s): %d GPUs (%s)\n", cuspec_version(), header, count,
           cuspec_status_name(rc));
    return strcmp(header, cuspec_version()) == 0 ? 0 : 1;
}
