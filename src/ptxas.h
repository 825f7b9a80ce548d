/* ptxas as a child process (ptxas.c): what lets ahead-of-time compiles of
 * several archs make one arch's cubin from the PTX NVRTC made for another
 * (jit.c). Internal. */
#ifndef CUSPEC_PTXAS_H
#define CUSPEC_PTXAS_H

#include <stddef.h>

/* The ptxas that CUSPEC_PTXAS names (an absolute path), once it has said it
 * is CUDA major.minor's, the version of the NVRTC whose PTX it will take
 * (NVRTC's own PTX-to-SASS step is that release's ptxas); NULL when the
 * variable is unset or names no such ptxas. Looked at once a process. */
const char *cuspec__ptxas(int major, int minor);

/* ptxas `path`'s cubin for sm_`arch` of the len bytes of ptx, into *cubin
 * (malloc'd) and *cubin_len. The files it needs live in a folder of their
 * own, made and removed here. CUSPEC_ERR_COMPILE with ptxas's message when
 * it fails. */
int cuspec__ptxas_cubin(const char *path, const char *ptx, size_t len, int arch, char **cubin,
                        size_t *cubin_len);

#endif /* CUSPEC_PTXAS_H */
