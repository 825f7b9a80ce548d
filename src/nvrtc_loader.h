/* NVRTC, opened at run time when a compile needs it (nvrtc.c). */
#ifndef CUSPEC_NVRTC_LOADER_H
#define CUSPEC_NVRTC_LOADER_H

#include "error.h"

#include <nvrtc.h>

#define CUSPEC__NVRTC_SYMBOLS(X)                                                                   \
    X(nvrtcVersion)                                                                                \
    X(nvrtcGetErrorString)                                                                         \
    X(nvrtcGetNumSupportedArchs)                                                                   \
    X(nvrtcGetSupportedArchs)                                                                      \
    X(nvrtcCreateProgram)                                                                          \
    X(nvrtcDestroyProgram)                                                                         \
    X(nvrtcAddNameExpression)                                                                      \
    X(nvrtcCompileProgram)                                                                         \
    X(nvrtcGetLoweredName)                                                                         \
    X(nvrtcGetProgramLogSize)                                                                      \
    X(nvrtcGetProgramLog)                                                                          \
    X(nvrtcGetPTXSize)                                                                             \
    X(nvrtcGetPTX)                                                                                 \
    X(nvrtcGetCUBINSize)                                                                           \
    X(nvrtcGetCUBIN)

struct cuspec__nvrtc {
#define CUSPEC__NVRTC_MEMBER(name) __typeof__(&name) name;
    CUSPEC__NVRTC_SYMBOLS(CUSPEC__NVRTC_MEMBER)
#undef CUSPEC__NVRTC_MEMBER
    cuspec_nvrtc_info info;
};

/* Opens NVRTC once (lazily); *nv is valid for the life of the process. */
int cuspec__nvrtc(const struct cuspec__nvrtc **nv);

#endif /* CUSPEC_NVRTC_LOADER_H */
