# cuspec.Context: one device, and the operations on arrays. Each call reads
# its arguments (_arrays), checks what the library cannot express (_layout),
# finds or makes its output, and makes one C call; the C library checks the
# rest (alignment, the device of a pointer) and its errors come back as
# exceptions with its text.
from ctypes import byref, c_void_p

from . import _driver, _dtypes, _layout, _structs
from ._arrays import parser_for, parsers, stream_handle
from ._errors import InvalidArgument, from_status, not_in_library
from ._lib import C
from ._memory import DeviceArray

_OPS = _dtypes.OPS
_OUT = _dtypes.OUT
_ARG_OPS = _dtypes.ARG_OPS
_I64 = _dtypes.I64


def _out_dtype(op_code, dtype, what):
    """The DType `what` writes for `dtype`; InvalidArgument naming the
    dtypes it takes where the library does not take this one."""
    found = _OUT.get((op_code, dtype.code))
    if found is None:
        raise InvalidArgument("%s does not take %s (it takes %s)" % (
            what, dtype.name, _dtypes.taken_by(op_code)))
    return found


def _unknown_op(op):
    return InvalidArgument("unknown op %r (cuspec's: %s)" % (op, ", ".join(_OPS)))


def _owner(stream, v):
    """What keeps the call's stream alive while an output allocated on it
    lives: the stream object the caller named, or the framework's current
    stream that an input came from."""
    return stream if stream is not None and type(stream) is not int else v.owner


class Context:
    """A device for cuspec: its kernels, tuning records and the reductions'
    scratch. It shares the device's primary context with PyTorch, CuPy and
    the CUDA runtime, so their pointers work as they are. Thread-safe. Use
    it as a context manager, or call close() (which waits for the device)."""

    def __init__(self, device=0):
        ptr = c_void_p()
        rc = C.cuspec_ctx_create(byref(ptr), device)
        if rc:
            raise from_status(rc, "cuspec.Context(device=%d)" % device)
        try:
            dev = _driver.Device(device)
        except BaseException:
            C.cuspec_ctx_destroy(ptr)
            raise
        self._attach(C, ptr.value, device, dev)

    def _attach(self, functions, ptr, device, dev):
        # `functions` holds the library's functions (tests give stand-ins);
        # `dev` allocates outputs and orders streams.
        self._c, self._ptr, self.device, self._dev = functions, ptr, device, dev

    def close(self):
        """Waits for the device's work, then frees what the context holds."""
        if self._ptr is not None:
            self._dev.synchronize()
            self._c.cuspec_ctx_destroy(self._ptr)
            self._ptr = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        if getattr(self, "_ptr", None) is not None:
            try:
                self.close()
            except Exception:  # a finalizer cannot raise
                pass

    @property
    def info(self):
        """The device's facts, as cuspec.devices() gives them."""
        from ._tools import device_info
        return device_info(self.device)

    # ## Arguments and outputs

    def _input(self, x, what, stream):
        v = (parsers.get(type(x)) or parser_for(type(x)))(x, what, stream)
        if v.device is not None and v.device != self.device:
            raise InvalidArgument("%s is on device %d, this context on device %d" % (
                what, v.device, self.device))
        if v.sync is not None:
            self._dev.order(v.sync, v.stream)
        return v

    def _out_view(self, out, what, shape, dtype, stream):
        o = self._input(out, what, stream)
        if o.dtype is not dtype:
            raise InvalidArgument("%s has dtype %s; this call writes %s" % (what, o.dtype.name,
                                                                             dtype.name))
        if o.readonly:
            raise InvalidArgument("%s is read-only" % what)
        if tuple(o.shape) != shape and (shape or _layout.count(o.shape) != 1):
            raise InvalidArgument("%s has shape %r; this call writes %r" % (what, tuple(o.shape),
                                                                            shape))
        return o

    def _output(self, out, what, shape, dtype, stream, owner=None):
        """(the result to return, its pointer): `out` when given, checked,
        else a new DeviceArray. Outputs other than a transpose's are
        contiguous."""
        if out is None:
            a = DeviceArray(self._dev, shape, dtype, stream, owner)
            return a, a.ptr
        o = self._out_view(out, what, shape, dtype, stream)
        if not _layout.is_contiguous(o):
            raise InvalidArgument("%s is not contiguous (strides %r in elements): cuspec writes "
                                  "its results as one run of memory" % (what, tuple(o.strides)))
        return out, o.ptr

    def _arg_outputs(self, out, shape, dtype, stream, owner=None):
        """argmin/argmax: the index (i64) alone, or with `out` a pair
        (values, indices), both (either may be None: made here)."""
        if isinstance(out, tuple):
            if len(out) != 2:
                raise InvalidArgument("out for argmin/argmax is an index array or a pair "
                                      "(values, indices), not %d arrays" % len(out))
            values, value_ptr = self._output(out[0], "out[0] (values)", shape, dtype, stream,
                                             owner)
            indices, index_ptr = self._output(out[1], "out[1] (indices)", shape, _I64, stream,
                                              owner)
            return (values, indices), value_ptr, index_ptr
        indices, index_ptr = self._output(out, "out", shape, _I64, stream, owner)
        return indices, 0, index_ptr

    def _check(self, rc, what):
        if rc:
            raise from_status(rc, what)

    # ## Operations

    def reduce(self, x, op="sum", out=None, stream=None, axis=None):
        """op ("sum", "min", "max", "argmin", "argmax") over all of x, or
        along `axis` of a matrix (2-D) or batch of matrices (3-D): axis -1
        gives one result per row, -2 one per column.

        Sums of integers write 64 bits (i32 -> i64), of f16/bf16 f32; min
        and max write x's dtype; argmin/argmax the index (i64: C order, or
        along the axis), or with out=(values, indices) both. The result is
        written into `out` when given (dtype and shape checked) and
        returned, else into a new DeviceArray. `stream`: a torch/cupy stream
        or a handle; by default the current stream of x's framework (else
        the legacy default)."""
        code = _OPS.get(op)
        if code is None:
            raise _unknown_op(op)
        v = self._input(x, "x", None if stream is None else stream_handle(stream))
        s, owner = v.stream, _owner(stream, v)
        if axis is not None and not (len(v.shape) == 1 and axis in (0, -1)):
            return self._reduce_axis(v, op, code, axis, out, s, owner)
        if op in _ARG_OPS:
            argreduce = self._c.cuspec_argreduce
            if argreduce is None:
                raise not_in_library("cuspec_argreduce", "reduce(op=%r)" % op)
            value_dtype = _out_dtype(code, v.dtype, "reduce(op=%r)" % op)
            n = _layout.run_length(v, "x", True)
            result, value_ptr, index_ptr = self._arg_outputs(out, (), value_dtype, s, owner)
            self._check(argreduce(self._ptr, code, v.dtype.code, v.ptr, n, value_ptr, index_ptr,
                                  s), "reduce(op=%r)" % op)
            return result
        out_dtype = _OUT.get((code, v.dtype.code)) or _out_dtype(code, v.dtype, "reduce(op=%r)" %
                                                                 op)
        n = _layout.run_length(v, "x", False)
        result, out_ptr = self._output(out, "out", (), out_dtype, s, owner)
        rc = self._c.cuspec_reduce(self._ptr, code, v.dtype.code, v.ptr, n, out_ptr, s)
        if rc:
            raise from_status(rc, "reduce(op=%r)" % op)
        return result

    def _axis(self, v, axis, family):
        """The library function of `family` ("cuspec_reduce", "cuspec_dot")
        for `axis` of v, its results' shape, and v's matrix shape."""
        nd = len(v.shape)
        batch, rows, cols, ld, batch_stride = _layout.matrix(v, "x" if family == "cuspec_reduce"
                                                             else "a")
        along = axis + nd if type(axis) is int and axis < 0 else axis
        if along == nd - 1:
            name, extent = family + "_rows", rows
        elif along == nd - 2:
            name, extent = family + "_cols", cols
        else:
            raise InvalidArgument("axis %r of a %d-D array: cuspec reduces along the last axis "
                                  "(one result per row) or the one before (one per column)" % (
                                      axis, nd))
        f = getattr(self._c, name)
        if f is None:
            raise not_in_library(name, "%s(axis=%r)" % (family[len("cuspec_"):], axis))
        shape = (batch, extent) if nd == 3 else (extent,)
        return f, shape, _structs.Matrix(rows, cols, ld, batch, batch_stride)

    def _reduce_axis(self, v, op, code, axis, out, s, owner):
        f, shape, m = self._axis(v, axis, "cuspec_reduce")
        what = "reduce(op=%r, axis=%r)" % (op, axis)
        out_dtype = _out_dtype(code, v.dtype, what)
        if op in _ARG_OPS:
            result, value_ptr, index_ptr = self._arg_outputs(out, shape, out_dtype, s, owner)
        else:
            result, value_ptr = self._output(out, "out", shape, out_dtype, s, owner)
            index_ptr = 0
        self._check(f(self._ptr, code, v.dtype.code, v.ptr, byref(m), value_ptr, index_ptr, s),
                    what)
        return result

    def dot(self, a, b, out=None, stream=None, axis=None):
        """sum(a * b) over all elements (fused multiply-add for floats), or
        along `axis` as reduce's: a and b of one dtype, shape and layout.
        Integer dots write 64 bits, f16/bf16 f32. `out` and `stream` as for
        reduce."""
        va = self._input(a, "a", None if stream is None else stream_handle(stream))
        s, owner = va.stream, _owner(stream, va)
        vb = self._input(b, "b", s)
        if vb.dtype is not va.dtype:
            raise InvalidArgument("a is %s but b is %s: dot takes one dtype" % (va.dtype.name,
                                                                               vb.dtype.name))
        if tuple(va.shape) != tuple(vb.shape):
            raise InvalidArgument("a has shape %r but b %r: dot takes equal shapes" % (
                tuple(va.shape), tuple(vb.shape)))
        what = "dot" if axis is None else "dot(axis=%r)" % axis
        out_dtype = _out_dtype(_dtypes.DOT, va.dtype, what)
        if axis is not None and not (len(va.shape) == 1 and axis in (0, -1)):
            f, shape, m = self._axis(va, axis, "cuspec_dot")
            if _layout.matrix(vb, "b") != _layout.matrix(va, "a"):
                raise InvalidArgument("a (strides %r) and b (strides %r) are laid out "
                                      "differently: the library takes one shape for both" % (
                                          va.strides, vb.strides))
            result, out_ptr = self._output(out, "out", shape, out_dtype, s, owner)
            self._check(f(self._ptr, va.dtype.code, va.ptr, vb.ptr, byref(m), out_ptr, s), what)
            return result
        n = _layout.run_length(va, "a", False)
        _layout.run_length(vb, "b", False)
        if n and not _layout.same_layout(va, vb):
            raise InvalidArgument("a (strides %r) and b (strides %r) are laid out differently: "
                                  "dot pairs their memory element by element" % (va.strides,
                                                                                 vb.strides))
        result, out_ptr = self._output(out, "out", (), out_dtype, s, owner)
        self._check(self._c.cuspec_dot(self._ptr, va.dtype.code, va.ptr, vb.ptr, n, out_ptr, s),
                    what)
        return result

    def transpose(self, x, out=None, stream=None):
        """x^T of a rows x cols matrix (2-D), or of each matrix of a batch
        (3-D: batch x rows x cols -> batch x cols x rows). x's rows may be
        apart (a leading dimension: a slice x[:, :cols] of a wider matrix),
        and so may out's; each row must have unit stride. Any dtype of 1, 2,
        4 or 8 bytes. `out` and `stream` as for reduce."""
        v = self._input(x, "x", None if stream is None else stream_handle(stream))
        s = v.stream
        batch, rows, cols, ld_in, stride_in = _layout.matrix(v, "x")
        shape = (batch, cols, rows) if len(v.shape) == 3 else (cols, rows)
        if out is None:
            result = DeviceArray(self._dev, shape, v.dtype, s, _owner(stream, v))
            out_ptr, ld_out, stride_out = result.ptr, rows, rows * cols
        else:
            o = self._out_view(out, "out", shape, v.dtype, s)
            result, out_ptr = out, o.ptr
            _, _, _, ld_out, stride_out = _layout.matrix(o, "out")
        self._check(self._c.cuspec_transpose_batched(
            self._ptr, v.dtype.code, v.ptr, rows, cols, ld_in, stride_in, out_ptr, ld_out,
            stride_out, batch, s), "transpose")
        return result

    # ## Tuning and measuring

    def tune(self, op, dtype, n=0, shape=None, ld_in=0, ld_out=0, **options):
        """Tunes one operation at one size on this device and records the
        fastest in the store (see cuspec.tune)."""
        from ._tools import tune_on
        return tune_on(self, op, dtype, n, shape, ld_in, ld_out, **options)

    def bench_latency(self):
        """cuspec_bench_latency: the first call's time and the host's cost of
        enqueueing a raw launch, a cuspec_copy and a cuspec_reduce (us)."""
        lat = _structs.Latency()
        self._check(self._c.cuspec_bench_latency(self._ptr, byref(lat)), "bench_latency")
        return {
            "first_call_ms": lat.first_call_ms,
            "first_tier": lat.first_tier,
            "kernel": _structs.text(lat.kernel),
            "raw_launch_us": lat.raw_launch_us,
            "reduce_call_us": lat.reduce_call_us,
            "copy_call_us": lat.copy_call_us,
        }

