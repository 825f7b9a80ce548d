/* Internal declarations shared by the library's files (not installed).
 * Public names are cuspec_*, internal non-static ones cuspec__*. */
#ifndef CUSPEC_INTERNAL_H
#define CUSPEC_INTERNAL_H

#include "config.h"
#include "cuspec.h"

#include <cuda.h>
#include <nvrtc.h>
#include <stdarg.h>
#include <stddef.h>

#if defined(__GNUC__)
#define CUSPEC__PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CUSPEC__PRINTF(f, a)
#endif

/* ## Errors (error.c) */

/* Records `status` with a printf-style detail for cuspec_last_error() and
 * returns `status`, so error paths read `return cuspec__fail(...)`. */
int cuspec__fail(int status, const char *fmt, ...) CUSPEC__PRINTF(2, 3);
int cuspec__vfail(int status, const char *fmt, va_list ap);
/* Prepends "what: " to the current detail (context for a nested failure). */
int cuspec__fail_context(int status, const char *fmt, ...) CUSPEC__PRINTF(2, 3);
void cuspec__clear_error(void);

#define CUSPEC__RETURN_IF(cond, status, ...)                                                       \
    do {                                                                                           \
        if (cond)                                                                                  \
            return cuspec__fail((status), __VA_ARGS__);                                            \
    } while (0)

/* ## CUDA driver (driver.c)
 * Entry points resolved once through cuGetProcAddress at a pinned API
 * version; X(name, required). */
#define CUSPEC__DRIVER_API_VERSION 12000

#define CUSPEC__DRIVER_SYMBOLS(X)                                                                  \
    X(cuInit, 1)                                                                                   \
    X(cuDriverGetVersion, 1)                                                                       \
    X(cuGetErrorName, 1)                                                                           \
    X(cuGetErrorString, 1)                                                                         \
    X(cuDeviceGetCount, 1)                                                                         \
    X(cuDeviceGet, 1)                                                                              \
    X(cuDeviceGetName, 1)                                                                          \
    X(cuDeviceGetAttribute, 1)                                                                     \
    X(cuDeviceTotalMem, 1)                                                                         \
    X(cuDeviceGetUuid, 0)                                                                          \
    X(cuDevicePrimaryCtxRetain, 1)                                                                 \
    X(cuDevicePrimaryCtxRelease, 1)                                                                \
    X(cuCtxPushCurrent, 1)                                                                         \
    X(cuCtxPopCurrent, 1)                                                                          \
    X(cuCtxGetCurrent, 1)                                                                          \
    X(cuCtxGetDevice, 1)                                                                           \
    X(cuCtxSynchronize, 1)                                                                         \
    X(cuModuleLoadDataEx, 1)                                                                       \
    X(cuModuleUnload, 1)                                                                           \
    X(cuModuleGetFunction, 1)                                                                      \
    X(cuLaunchKernel, 1)                                                                           \
    X(cuFuncGetAttribute, 1)                                                                       \
    X(cuOccupancyMaxActiveBlocksPerMultiprocessor, 1)                                              \
    X(cuMemAlloc, 1)                                                                               \
    X(cuMemFree, 1)                                                                                \
    X(cuMemAllocPitch, 1)                                                                          \
    X(cuMemGetInfo, 1)                                                                             \
    X(cuMemcpyHtoD, 1)                                                                             \
    X(cuMemcpyDtoH, 1)                                                                             \
    X(cuMemcpyDtoDAsync, 1)                                                                        \
    X(cuMemsetD8, 1)                                                                               \
    X(cuMemsetD8Async, 1)                                                                          \
    X(cuPointerGetAttribute, 1)                                                                    \
    X(cuStreamCreate, 1)                                                                           \
    X(cuStreamDestroy, 1)                                                                          \
    X(cuStreamSynchronize, 1)                                                                      \
    X(cuStreamIsCapturing, 1)                                                                      \
    X(cuEventCreate, 1)                                                                            \
    X(cuEventDestroy, 1)                                                                           \
    X(cuEventRecord, 1)                                                                            \
    X(cuEventSynchronize, 1)                                                                       \
    X(cuEventElapsedTime, 1)

struct cuspec__driver {
#define CUSPEC__DRIVER_MEMBER(name, required) __typeof__(&name) name;
    CUSPEC__DRIVER_SYMBOLS(CUSPEC__DRIVER_MEMBER)
#undef CUSPEC__DRIVER_MEMBER
    int version;   /* cuDriverGetVersion */
    int no_device; /* cuInit said CUDA_ERROR_NO_DEVICE */
};

/* Opens the driver once; *drv is valid for the life of the process. */
int cuspec__driver(const struct cuspec__driver **drv);
/* CUSPEC_OK for CUDA_SUCCESS, else CUSPEC_ERR_CUDA with a detail naming
 * `what`, the CUresult's name and its text. */
int cuspec__cu_check(CUresult r, const char *what);

/* ## Devices (device.c) */
/* The CUdevice for `ordinal`, with a clear error when it does not exist. */
int cuspec__device_get(int ordinal, CUdevice *dev);

/* ## NVRTC (nvrtc.c) */
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

/* ## Small helpers (error.c) */
/* Copies into a fixed buffer, truncating; always terminates. */
void cuspec__strlcpy(char *dst, const char *src, size_t size);

#endif /* CUSPEC_INTERNAL_H */
