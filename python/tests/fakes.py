"""Stand-ins for the CPU tests: arrays that expose __cuda_array_interface__
or __dlpack__ with chosen shapes, strides and dtypes (their pointers point
nowhere: nothing reads them), and a Context with no device whose library
functions are the real ones (they fail on its NULL context with the
library's own errors) or recorders of their arguments."""
import os
import sys
import types
from unittest import mock

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import cuspec  # noqa: E402
from cuspec import _dlpack, _dtypes, _lib  # noqa: E402


def with_arg_ops(test):
    """Runs `test` with the dtype table of a library that has argmin and
    argmax (cuspec_reduce_out_dtype gives the input's dtype for the value)."""
    ops = cuspec._dtypes.OPS
    table = {(ops[op], d.code): d for op in ("argmin", "argmax")
             for d in cuspec._dtypes.BY_CODE.values()}
    return mock.patch.dict(cuspec._dtypes.OUT, table)(test)


class FakeCAI:
    """An object with a __cuda_array_interface__ dict."""

    def __init__(self, shape, typestr="<f4", strides=None, ptr=0x7000000, version=3,
                 stream=None, readonly=False, **extra):
        self.__cuda_array_interface__ = dict(
            shape=tuple(shape), typestr=typestr, strides=strides, data=(ptr, readonly),
            version=version, **extra)
        if stream is not None:
            self.__cuda_array_interface__["stream"] = stream


class FakeDLPack:
    """A DLPack producer of made-up CUDA memory; records the stream each
    __dlpack__ call asked for."""

    def __init__(self, shape, dtype="f32", strides=None, ptr=0x7000000, device=(2, 0),
                 takes_stream=True):
        self.shape, self.strides, self.ptr, self.device = tuple(shape), strides, ptr, device
        self.dtype = _dtypes.BY_NAME[dtype]
        self.takes_stream = takes_stream
        self.asked = []

    def __dlpack_device__(self):
        return self.device

    def __dlpack__(self, **kwargs):
        if kwargs and not self.takes_stream:
            raise TypeError("__dlpack__() takes no keyword arguments")
        self.asked.append(kwargs.get("stream"))
        strides = self.strides or cuspec._layout.c_strides(self.shape)
        return _dlpack.make_capsule(self.ptr, self.shape, strides, self.dtype, self.device[1],
                                    self)


class Recorder:
    """A library function that returns 0 and keeps each call's arguments."""

    def __init__(self):
        self.calls = []

    def __call__(self, *args):
        self.calls.append(args)
        return 0


def functions(**replaced):
    """The library's functions with some replaced (None: absent)."""
    f = types.SimpleNamespace(**vars(_lib.C))
    for name, value in replaced.items():
        setattr(f, name, value)
    return f


def detached(functions_=None, device=0):
    """A Context on no device: its library pointer is NULL, and it cannot
    allocate, so calls pass `out`."""
    ctx = cuspec.Context.__new__(cuspec.Context)
    ctx._attach(functions_ or functions(), None, device, None)
    return ctx


class FakeDevice:
    """Stands for _driver.Device: hands out made-up addresses and records
    the allocations, frees and stream orderings asked of it."""

    def __init__(self, ordinal=0):
        self.ordinal = ordinal
        self.next = 0x100000000
        self.log = []

    def alloc(self, nbytes, stream):
        self.next += 1 << 20
        self.log.append(("alloc", self.next, nbytes, stream))
        return self.next

    def free(self, pointer, stream, after=()):
        self.log.append(("free", pointer, stream, tuple(sorted(after))))

    def order(self, first, then):
        if first != then:
            self.log.append(("order", first, then))

    def synchronize(self):
        self.log.append(("synchronize",))
