# What an argument is: any object with __cuda_array_interface__ or
# __dlpack__, read into a View (pointer, shape, strides, dtype, device) and
# the stream its framework would have the work on. PyTorch tensors, CuPy
# arrays and cuspec's own are read from their attributes directly: building
# their interface dicts would cost more than the C call.
import sys

from . import _dlpack, _dtypes
from ._errors import InvalidArgument
from ._memory import LEGACY_STREAM, DeviceArray


class View:
    """An argument as the library sees it. `strides` are in elements (None:
    C-contiguous); `device` is None where the interface does not say;
    `stream` is the call's stream; `sync` a stream the producer asks the
    call to wait for (array interface v3), or None; `keep` must live
    through the call (a DLPack capsule)."""

    __slots__ = ("ptr", "shape", "strides", "dtype", "device", "stream", "sync", "readonly",
                 "keep", "owner")

    def __init__(self, ptr, shape, strides, dtype, device, stream, sync=None, readonly=False,
                 keep=None, owner=None):
        self.ptr, self.shape, self.strides, self.dtype = ptr, shape, strides, dtype
        self.device, self.stream, self.sync, self.readonly, self.keep = (
            device, stream, sync, readonly, keep)
        self.owner = owner  # the object whose life keeps `stream` alive, where one does


def stream_handle(stream):
    """A CUstream handle from an int, a torch.cuda.Stream (.cuda_stream), a
    cupy.cuda.Stream (.ptr) or an object with __cuda_stream__."""
    if type(stream) is int and stream >= 0:
        return stream
    for attribute in ("cuda_stream", "ptr"):
        h = getattr(stream, attribute, None)
        if type(h) is int:
            return h
    protocol = getattr(stream, "__cuda_stream__", None)
    if protocol is not None:
        return protocol()[1]
    raise TypeError("stream %r is neither a stream handle (a non-negative int) nor a stream "
                    "object (torch.cuda.Stream, cupy.cuda.Stream, __cuda_stream__)" % (stream,))


def same_stream(a, b):
    # 0 and 1 both name the legacy default stream.
    return (a or LEGACY_STREAM) == (b or LEGACY_STREAM)


def elements(strides, size, what):
    """Byte strides in elements; an error where one is not a whole number."""
    if any(s % size for s in strides):
        raise InvalidArgument("%s's strides %r (bytes) are not multiples of its %d-byte elements" %
                              (what, tuple(strides), size))
    return tuple(s // size for s in strides)


def _unknown_dtype(what, described):
    return InvalidArgument("%s has dtype %s, which cuspec does not take (cuspec's: %s)" % (
        what, described, ", ".join(_dtypes.BY_NAME)))


# ## PyTorch

_TORCH_DTYPES = {}


def _torch_dtype(dtype, what):
    found = _TORCH_DTYPES.get(dtype)
    if found is None:
        found = _dtypes.from_framework_name(str(dtype).rpartition(".")[2])
        if found is None:
            raise _unknown_dtype(what, dtype)
        _TORCH_DTYPES[dtype] = found
    return found


def _torch_stream(torch):
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)  # an int, without a Stream object
    if raw is not None:
        return raw
    return lambda device: torch.cuda.current_stream(device).cuda_stream


def _torch_parser(torch):
    current_stream = _torch_stream(torch)
    strided = torch.strided

    def parse(x, what, stream):
        if not x.is_cuda:
            raise InvalidArgument("%s is a torch tensor on %s: cuspec takes CUDA tensors" % (
                what, x.device))
        if x.layout is not strided:
            raise InvalidArgument("%s is a %s torch tensor: cuspec takes strided ones" % (
                what, x.layout))
        device = x.get_device()
        if stream is None:
            stream = current_stream(device)
        # One call tells a contiguous tensor (most are) from one whose
        # strides must be read and checked.
        return View(x.data_ptr(), tuple(x.shape), None if x.is_contiguous() else x.stride(),
                    _torch_dtype(x.dtype, what), device, stream)

    return parse


# ## CuPy


def _cupy_parser(cupy):
    current_stream = cupy.cuda.get_current_stream

    def parse(x, what, stream):
        dtype = _dtypes.BY_TYPESTR.get(x.dtype.str)
        if dtype is None:
            raise _unknown_dtype(what, x.dtype)
        # As its array interface (version 3) would: work on another stream
        # than CuPy's current one waits for it.
        cur = current_stream()
        current, sync, owner = cur.ptr, None, None
        if stream is None:
            # CuPy destroys a stream with its object: outputs on it keep it.
            stream, owner = current, cur
        elif not same_stream(stream, current):
            sync = current
        return View(x.data.ptr, x.shape, elements(x.strides, dtype.size, what), dtype,
                    x.data.device_id, stream, sync, owner=owner)

    return parse


# ## cuspec's own arrays


def _own(x, what, stream):
    sync = None
    if stream is None:
        stream = x.stream
    elif not same_stream(stream, x.stream):
        sync = x.stream
    return View(x.ptr, x.shape, None, x._dtype, x.device, stream, sync)


# ## Any other: the array interface, else DLPack


def from_interface(d, what, stream):
    """A View of a __cuda_array_interface__ dict (versions 0 to 3)."""
    if d.get("mask") is not None:
        raise InvalidArgument("%s has a mask: cuspec takes unmasked arrays" % what)
    typestr = d["typestr"]
    dtype = _dtypes.BY_TYPESTR.get(typestr)
    if dtype is None:
        if typestr[:1] == ">" and _dtypes.BY_TYPESTR.get("<" + typestr[1:]):
            raise InvalidArgument("%s is big-endian (%r): cuspec takes little-endian data" % (
                what, typestr))
        raise _unknown_dtype(what, repr(typestr))
    ptr, readonly = d["data"]
    strides = d.get("strides")
    if strides is not None:
        strides = elements(strides, dtype.size, what)
    producer = d.get("stream") if d.get("version", 0) >= 3 else None
    sync = None
    if stream is None:
        stream = producer or 0
    elif producer is not None and not same_stream(stream, producer):
        sync = producer
    return View(ptr or 0, tuple(d["shape"]), strides, dtype, None, stream, sync, bool(readonly))


def from_dlpack(x, what, stream):
    device_type, _ = x.__dlpack_device__()
    if device_type not in (_dlpack.CUDA, _dlpack.CUDA_MANAGED):
        raise InvalidArgument("%s is not in CUDA device memory (DLPack device type %d)" % (
            what, device_type))
    # The protocol spells the legacy default stream 1 (0 is not allowed).
    asked = stream or LEGACY_STREAM
    try:
        capsule = x.__dlpack__(stream=asked)
    except TypeError:  # a producer older than the stream argument
        capsule = x.__dlpack__()
    ptr, shape, strides, dtype, device = _dlpack.parse(capsule, what)
    return View(ptr, shape, strides, dtype, device, asked if stream is None else stream,
                keep=capsule)


def _generic(x, what, stream):
    d = getattr(x, "__cuda_array_interface__", None)
    if d is not None:
        return from_interface(d, what, stream)
    if hasattr(x, "__dlpack__"):
        return from_dlpack(x, what, stream)
    raise TypeError("%s (a %s) is not a CUDA array: it has neither __cuda_array_interface__ nor "
                    "__dlpack__" % (what, type(x).__name__))


def _choose(kind):
    if kind is DeviceArray:
        return _own
    torch = sys.modules.get("torch")
    if torch is not None and issubclass(kind, torch.Tensor):
        return _torch_parser(torch)
    cupy = sys.modules.get("cupy")
    if cupy is not None and issubclass(kind, cupy.ndarray):
        return _cupy_parser(cupy)
    return _generic


# type -> its parser, chosen once per type.
parsers = {}


def parser_for(kind):
    return parsers.setdefault(kind, _choose(kind))


def view(x, what, stream):
    """A View of argument `x` (named `what` in errors) for a call on `stream`
    (a handle), or on its framework's current stream when None."""
    return (parsers.get(type(x)) or parser_for(type(x)))(x, what, stream)
