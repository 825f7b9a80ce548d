# The arrays cuspec makes for results: stream-ordered device memory that
# PyTorch, CuPy and any other consumer take without a copy, through
# __cuda_array_interface__ (version 3) or __dlpack__.
from . import _dlpack, _layout

LEGACY_STREAM = 1  # CU_STREAM_LEGACY, the handle the interfaces write for stream 0


class DeviceArray:
    """A C-contiguous array in CUDA device memory that cuspec allocated.

    The memory is allocated and freed in order on `stream` (cuMemAllocAsync,
    cuMemFreeAsync), freed when the last reference goes: the array's, or a
    consumer's that took it through __dlpack__, whose stream the free then
    waits for too. A consumer that uses it on yet another stream keeps a
    reference until that work is done (as with torch's record_stream)."""

    __slots__ = ("ptr", "shape", "_dtype", "device", "stream", "_dev", "_consumers",
                 "_stream_owner")

    def __init__(self, dev, shape, dtype, stream, stream_owner=None):
        # Handles 0 and 1 both name the legacy default stream: one spelling.
        # stream_owner (a CuPy or torch stream object) lives as long as the
        # array, so that the free is not queued on a destroyed stream.
        self._dev, self.shape, self._dtype = dev, shape, dtype
        self._stream_owner = stream_owner
        self.stream = stream or LEGACY_STREAM
        self.device = dev.ordinal
        self._consumers = None
        nbytes = dtype.size * _layout.count(shape)
        self.ptr = 0  # set only once allocated, for __del__
        if nbytes:
            self.ptr = dev.alloc(nbytes, self.stream)

    def __del__(self):
        if self.ptr:
            try:
                self._dev.free(self.ptr, self.stream, self._consumers or ())
            except Exception:  # a finalizer cannot raise; the process is likely ending
                pass

    @property
    def dtype(self):
        """cuspec's name of the element type: "f32", "i64", "bf16", ..."""
        return self._dtype.name

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        return _layout.count(self.shape)

    @property
    def nbytes(self):
        return self.size * self._dtype.size

    @property
    def __cuda_array_interface__(self):
        if self._dtype.typestr is None:
            # No typestr names it: AttributeError makes consumers use __dlpack__.
            raise AttributeError("%s has no array-interface typestr; use __dlpack__" %
                                 self._dtype.name)
        return {
            "version": 3,
            "shape": self.shape,
            "typestr": self._dtype.typestr,
            "data": (self.ptr, False),
            "strides": None,
            "stream": self.stream,
        }

    def __dlpack_device__(self):
        return (_dlpack.CUDA, self.device)

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """A DLPack capsule of this memory, made ready for the consumer's
        `stream` (None: the legacy default stream; -1: no ordering). Always
        the unversioned capsule, which the protocol lets a producer give
        whatever `max_version` asks."""
        if copy:
            raise BufferError("cuspec arrays are exported without a copy (copy=True asked)")
        if dl_device is not None and tuple(dl_device) != self.__dlpack_device__():
            raise BufferError("this array is on %r, not %r" % (self.__dlpack_device__(),
                                                               tuple(dl_device)))
        if stream is None or stream == 0:
            stream = LEGACY_STREAM
        if stream != -1:
            self._dev.order(self.stream, stream)
            if stream != self.stream:
                self._consumers = (self._consumers or frozenset()) | {stream}
        return _dlpack.make_capsule(self.ptr, self.shape, _layout.c_strides(self.shape), self._dtype,
                                    self.device, self)

    def __repr__(self):
        return "cuspec.DeviceArray(shape=%r, dtype=%r, device=%d, ptr=0x%x)" % (
            self.shape, self._dtype.name, self.device, self.ptr)
