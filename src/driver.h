/* The CUDA driver, opened at run time (driver.c). */
#ifndef CUSPEC_DRIVER_H
#define CUSPEC_DRIVER_H

#include "error.h"

#include <cuda.h>

/*
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
    X(cuModuleGetGlobal, 0)                                                                        \
    X(cuFuncGetModule, 0)                                                                          \
    X(cuLaunchKernel, 1)                                                                           \
    X(cuLaunchKernelEx, 0)                                                                         \
    X(cuFuncGetAttribute, 1)                                                                       \
    X(cuFuncSetAttribute, 0)                                                                       \
    X(cuOccupancyMaxActiveBlocksPerMultiprocessor, 1)                                              \
    X(cuMemAlloc, 1)                                                                               \
    X(cuMemFree, 1)                                                                                \
    X(cuMemAllocPitch, 1)                                                                          \
    X(cuMemGetInfo, 1)                                                                             \
    X(cuMemcpyHtoD, 1)                                                                             \
    X(cuMemHostAlloc, 1)                                                                           \
    X(cuMemHostGetDevicePointer, 1)                                                                \
    X(cuMemFreeHost, 1)                                                                            \
    X(cuMemcpyDtoH, 1)                                                                             \
    X(cuMemcpyDtoDAsync, 1)                                                                        \
    X(cuMemsetD8, 1)                                                                               \
    X(cuMemsetD8Async, 1)                                                                          \
    X(cuMemsetD32Async, 1)                                                                         \
    X(cuDeviceGetDefaultMemPool, 1)                                                                \
    X(cuMemAllocFromPoolAsync, 1)                                                                  \
    X(cuMemFreeAsync, 1)                                                                           \
    X(cuPointerGetAttribute, 1)                                                                    \
    X(cuStreamCreate, 1)                                                                           \
    X(cuStreamDestroy, 1)                                                                          \
    X(cuStreamSynchronize, 1)                                                                      \
    X(cuStreamIsCapturing, 1)                                                                      \
    X(cuStreamGetId, 1)                                                                            \
    X(cuThreadExchangeStreamCaptureMode, 1)                                                        \
    X(cuEventCreate, 1)                                                                            \
    X(cuEventDestroy, 1)                                                                           \
    X(cuEventRecord, 1)                                                                            \
    X(cuEventQuery, 1)                                                                             \
    X(cuEventSynchronize, 1)                                                                       \
    X(cuEventElapsedTime, 1)                                                                       \
    X(cuStreamBeginCapture, 1)                                                                     \
    X(cuStreamEndCapture, 1)                                                                       \
    X(cuGraphInstantiateWithFlags, 1)                                                              \
    X(cuGraphLaunch, 1)                                                                            \
    X(cuGraphExecDestroy, 1)                                                                       \
    X(cuGraphDestroy, 1)                                                                           \
    X(cuGraphAddMemAllocNode, 1)                                                                   \
    X(cuGraphAddMemFreeNode, 1)                                                                    \
    X(cuUserObjectCreate, 1)                                                                       \
    X(cuGraphRetainUserObject, 1)

/* Entry points at API 12.3 (resolved at that version; NULL from an older
 * driver): the capture graph's dependencies, with edge data. */
#define CUSPEC__DRIVER_API_VERSION_12_3 12030
#define CUSPEC__DRIVER_SYMBOLS_12_3(X) X(cuStreamGetCaptureInfo, 0)

struct cuspec__driver {
#define CUSPEC__DRIVER_MEMBER(name, required) __typeof__(&name) name;
    CUSPEC__DRIVER_SYMBOLS(CUSPEC__DRIVER_MEMBER)
    CUSPEC__DRIVER_SYMBOLS_12_3(CUSPEC__DRIVER_MEMBER)
#undef CUSPEC__DRIVER_MEMBER
    int version;   /* cuDriverGetVersion */
    int no_device; /* cuInit said CUDA_ERROR_NO_DEVICE */
};

/* Opens the driver once; *drv is valid for the life of the process. */
int cuspec__driver(const struct cuspec__driver **drv);
/* CUSPEC_OK for CUDA_SUCCESS, else CUSPEC_ERR_CUDA with a detail naming
 * `what`, the CUresult's name and its text. */
int cuspec__cu_check(CUresult r, const char *what);

#endif /* CUSPEC_DRIVER_H */
