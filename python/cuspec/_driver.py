# The few CUDA driver calls the binding makes itself: stream-ordered
# allocation of outputs, and events to order one stream after another. The
# driver is the one the library opens ($CUSPEC_LIBCUDA, else libcuda.so.1),
# loaded only when a Context is made (so the package imports without one).
import ctypes
import os
import threading
from ctypes import POINTER, byref, c_char_p, c_int, c_size_t, c_uint, c_uint64, c_void_p

from ._errors import CudaError, NoDriverError

_CU = c_void_p  # CUcontext, CUstream, CUevent
_PROTOTYPES = {
    "cuGetErrorName": [c_int, POINTER(c_char_p)],
    "cuDeviceGet": [POINTER(c_int), c_int],
    "cuDevicePrimaryCtxRetain": [POINTER(_CU), c_int],
    "cuDevicePrimaryCtxRelease_v2": [c_int],
    "cuCtxGetCurrent": [POINTER(_CU)],
    "cuCtxPushCurrent_v2": [_CU],
    "cuCtxPopCurrent_v2": [POINTER(_CU)],
    "cuCtxSynchronize": [],
    "cuMemAllocAsync": [POINTER(c_uint64), c_size_t, _CU],
    "cuMemFreeAsync": [c_uint64, _CU],
    "cuEventCreate": [POINTER(_CU), c_uint],
    "cuEventRecord": [_CU, _CU],
    "cuEventDestroy_v2": [_CU],
    "cuStreamWaitEvent": [_CU, _CU, c_uint],
}
_EVENT_DISABLE_TIMING = 2  # CU_EVENT_DISABLE_TIMING

_lock = threading.Lock()
_api = None


class _Api:
    def __init__(self, lib):
        for name, argtypes in _PROTOTYPES.items():
            f = getattr(lib, name)
            f.restype, f.argtypes = c_int, argtypes
            setattr(self, name, f)


def api():
    """The driver's functions, opened once; NoDriverError when it cannot be."""
    global _api
    with _lock:
        if _api is None:
            path = os.environ.get("CUSPEC_LIBCUDA") or "libcuda.so.1"
            try:
                _api = _Api(ctypes.CDLL(path))
            except (OSError, AttributeError) as e:
                raise NoDriverError("cannot use the CUDA driver %s for cuspec's outputs: %s" % (
                    path, e)) from None
        return _api


def check(result, what):
    if result != 0:
        name = c_char_p()
        api().cuGetErrorName(result, byref(name))
        raise CudaError("%s failed: %s (%d)" % (
            what, name.value.decode() if name.value else "unknown CUresult", result))


class Device:
    """One device's primary context, retained while any of its arrays lives,
    and the stream-ordered memory of cuspec's outputs on it."""

    def __init__(self, ordinal):
        self.context = None
        self.api = api()
        self.ordinal = ordinal
        dev, cu = c_int(), _CU()
        check(self.api.cuDeviceGet(byref(dev), ordinal), "cuDeviceGet")
        check(self.api.cuDevicePrimaryCtxRetain(byref(cu), dev), "cuDevicePrimaryCtxRetain")
        self._dev, self.context = dev.value, cu.value

    def __del__(self):
        if self.context is not None:
            try:
                self.api.cuDevicePrimaryCtxRelease_v2(self._dev)
            except Exception:  # a finalizer cannot raise; the process is likely ending
                pass

    def enter(self):
        """Makes the primary context current for a call (streams 0, 1 and 2
        mean the current context's); True when it had to be pushed."""
        cur = _CU()
        self.api.cuCtxGetCurrent(byref(cur))
        if cur.value == self.context:
            return False
        check(self.api.cuCtxPushCurrent_v2(self.context), "cuCtxPushCurrent")
        return True

    def leave(self, pushed):
        if pushed:
            self.api.cuCtxPopCurrent_v2(byref(_CU()))

    def alloc(self, nbytes, stream):
        """nbytes of device memory, ordered on `stream` (a handle)."""
        pointer = c_uint64()
        pushed = self.enter()
        try:
            check(self.api.cuMemAllocAsync(byref(pointer), nbytes, stream), "cuMemAllocAsync")
        finally:
            self.leave(pushed)
        return pointer.value

    def free(self, pointer, stream, after=()):
        """Frees in order on `stream`, after the work queued now on each
        stream of `after` too."""
        pushed = self.enter()
        try:
            for other in after:
                self.order(other, stream)
            check(self.api.cuMemFreeAsync(pointer, stream), "cuMemFreeAsync")
        finally:
            self.leave(pushed)

    def order(self, first, then):
        """Work queued on stream `then` from now on waits for the work queued
        on stream `first` so far."""
        if first == then:
            return
        event = _CU()
        pushed = self.enter()
        try:
            check(self.api.cuEventCreate(byref(event), _EVENT_DISABLE_TIMING), "cuEventCreate")
            check(self.api.cuEventRecord(event, first), "cuEventRecord")
            check(self.api.cuStreamWaitEvent(then, event, 0), "cuStreamWaitEvent")
        finally:
            if event.value:
                self.api.cuEventDestroy_v2(event)
            self.leave(pushed)

    def synchronize(self):
        pushed = self.enter()
        try:
            check(self.api.cuCtxSynchronize(), "cuCtxSynchronize")
        finally:
            self.leave(pushed)
