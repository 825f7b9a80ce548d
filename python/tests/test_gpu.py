"""On a GPU, with PyTorch and CuPy: results equal to theirs for every op and
dtype the library has, non-contiguous inputs handled or refused as
documented, stream order kept with the frameworks' own work, outputs taken
without a copy, and the per-call overhead. Each test skips, saying why,
without a GPU or without the framework it compares with."""
import gc
import math
import unittest

from fakes import cuspec

try:
    import torch
except ImportError:
    torch = None
try:
    import cupy
except ImportError:
    cupy = None

_dtypes = cuspec._dtypes
OPS = _dtypes.OPS
SIZES = (0, 1, 1000, (1 << 20) + 3)
ctx = None


def setUpModule():
    global ctx
    try:
        if not cuspec.devices():
            raise unittest.SkipTest("no CUDA device")
    except cuspec.Error as e:
        raise unittest.SkipTest("no GPU: %s" % e)
    ctx = cuspec.Context(0)


def tearDownModule():
    if ctx is not None:
        ctx.close()


def need(module, name):
    return unittest.skipIf(module is None, "%s is not installed" % name)


def supported(op):
    """The library's dtypes that `op` takes (DOT for dot)."""
    return [d.name for d in _dtypes.BY_CODE.values() if (op, d.code) in _dtypes.OUT]


def close_enough(test, got, want, scale, dtype, what, exact=False):
    """Exact for integers and where asked (min, max); sums of floats within
    their accumulation's error, relative to `scale` (the sum of |terms|)."""
    if dtype[0] in "iu" or exact:
        test.assertEqual(got, want, what)
    else:
        tol = {"f64": 1e-12}.get(dtype, 1e-5) * max(scale, 1.0)
        test.assertLessEqual(abs(float(got) - float(want)), tol, what)


if torch is not None:
    TORCH = {name: getattr(torch, t, None) for name, t in [
        ("f32", "float32"), ("f64", "float64"), ("i32", "int32"), ("i64", "int64"),
        ("u32", "uint32"), ("u64", "uint64"), ("i8", "int8"), ("u8", "uint8"),
        ("i16", "int16"), ("u16", "uint16"), ("f16", "float16"), ("bf16", "bfloat16")]}


def torch_input(test, name, n, offset=0):
    """n values of cuspec dtype `name` on the GPU, starting `offset`
    elements into their allocation (a misaligned base), and the same values
    as i64 or f64 for references. Skips where torch lacks the dtype."""
    dt = TORCH.get(name)
    if dt is None:
        test.skipTest("this torch has no %s" % name)
    g = torch.Generator(device="cuda").manual_seed(n)
    if name[0] in "iu":
        lo = 0 if name[0] == "u" else -100
        wide = torch.randint(lo, 100, (n + offset,), device="cuda", generator=g)
    else:
        wide = torch.rand(n + offset, device="cuda", generator=g, dtype=torch.float64) * 2 - 1
    try:
        x = wide.to(dt)[offset:]
    except (RuntimeError, TypeError) as e:
        test.skipTest("torch cannot make %s on CUDA: %s" % (name, e))
    # Integers in [-100, 100) are exact in every dtype; floats as rounded.
    return x, wide[offset:] if name[0] in "iu" else x.to(torch.float64)


def item(r):
    """A scalar result on the host: through the array interface into CuPy
    where it can (every dtype but bf16), else DLPack into torch."""
    if cupy is not None and cuspec.dtype(r.dtype).typestr is not None:
        return cupy.asarray(r).item()
    return torch.from_dlpack(r).to(torch.float64 if r.dtype[0] in "fb" else torch.int64).item()


@need(torch, "PyTorch")
class TorchResults(unittest.TestCase):
    def test_reductions(self):
        for op in ("sum", "min", "max"):
            for name in supported(OPS[op]):
                for n in SIZES:
                    if n == 0 and op != "sum":
                        continue  # test_identities
                    with self.subTest(op=op, dtype=name, n=n):
                        x, ref = torch_input(self, name, n, offset=1)
                        r = ctx.reduce(x, op)
                        self.assertEqual(r.dtype, _dtypes.OUT[(OPS[op], _dtypes.BY_NAME[name]
                                                               .code)].name)
                        want = {"sum": ref.sum, "min": ref.min, "max": ref.max}[op]().item()
                        close_enough(self, item(r), want, ref.abs().sum().item(), name,
                                     "%s of %d %s" % (op, n, name), exact=op != "sum")

    def test_identities(self):
        x = torch.empty(0, device="cuda")
        self.assertEqual(item(ctx.reduce(x, "min")), math.inf)
        self.assertEqual(item(ctx.reduce(x, "max")), -math.inf)

    def test_dot(self):
        for name in supported(_dtypes.DOT):
            for n in SIZES:
                with self.subTest(dtype=name, n=n):
                    a, ra = torch_input(self, name, n)
                    b, rb = torch_input(self, name, n + 1, offset=1)
                    b, rb = b[:n], rb[:n]
                    close_enough(self, item(ctx.dot(a, b)), (ra * rb).sum().item(),
                                 (ra * rb).abs().sum().item(), name, "dot of %d %s" % (n, name))

    def test_argreduce(self):
        if cuspec._lib.C.cuspec_argreduce is None:
            self.skipTest("the library has no cuspec_argreduce")
        for op, ref_op in (("argmin", torch.argmin), ("argmax", torch.argmax)):
            for name in _dtypes.BY_NAME:
                with self.subTest(op=op, dtype=name):
                    x, ref = torch_input(self, name, 100003)
                    values, index = ctx.reduce(x, op, out=(None, None))
                    want = ref_op(ref).item()  # ties: the first index, as cuspec's
                    self.assertEqual(item(index), want)
                    self.assertEqual(item(values), ref[want].item())

    def test_out_given(self):
        x = torch.arange(10, dtype=torch.int32, device="cuda")
        out = torch.empty((), dtype=torch.int64, device="cuda")
        self.assertIs(ctx.reduce(x, out=out), out)
        self.assertEqual(out.item(), 45)
        with self.assertRaisesRegex(cuspec.InvalidArgument, "out has dtype i32; this call "
                                                            "writes i64"):
            ctx.reduce(x, out=torch.empty((), dtype=torch.int32, device="cuda"))
        with self.assertRaisesRegex(cuspec.InvalidArgument, "CPU|cpu"):
            ctx.reduce(torch.ones(4))

    def test_transposes(self):
        for name in ("u8", "f16", "f32", "f64"):
            dt = TORCH[name]
            for rows, cols in ((1, 1), (1, 7), (7, 1), (33, 65), (1000, 1001), (2048, 2048)):
                x = torch.randn(rows, cols, device="cuda").mul(50).to(dt)
                with self.subTest(dtype=name, shape=(rows, cols)):
                    t = torch.from_dlpack(ctx.transpose(x))
                    self.assertTrue(torch.equal(t, x.t()))

    def test_pitched_transpose(self):
        base = torch.randn(100, 130, device="cuda")
        x = base[:, 3:123]  # 100 x 120, rows 130 apart, base 3 elements in
        obase = torch.zeros(120, 111, device="cuda")
        o = obase[:, :100]
        ctx.transpose(x, out=o)
        self.assertTrue(torch.equal(o, x.t()))
        self.assertEqual(obase[:, 100:].abs().sum().item(), 0)  # the padding untouched

    def test_batched_transpose(self):
        x = torch.randn(3, 17, 33, device="cuda")
        self.assertTrue(torch.equal(torch.from_dlpack(ctx.transpose(x)), x.transpose(1, 2)))
        strided = torch.randn(3, 40, 50, device="cuda")[:, :17, :33]
        self.assertTrue(torch.equal(torch.from_dlpack(ctx.transpose(strided)),
                                    strided.transpose(1, 2)))

    def test_axis(self):
        c = cuspec._lib.C
        if None in (c.cuspec_reduce_rows, c.cuspec_reduce_cols, c.cuspec_dot_rows,
                    c.cuspec_dot_cols):
            self.skipTest("the library has no reductions along an axis")
        x = torch.randint(-100, 100, (2, 300, 257), device="cuda", dtype=torch.int32)
        y = torch.randint(-100, 100, (2, 300, 257), device="cuda", dtype=torch.int32)
        pitched = torch.zeros(300, 300, device="cuda", dtype=torch.int32)[:, 5:262]
        pitched.copy_(x[0])
        for axis in (-1, -2):
            for name, a in (("batch", x), ("matrix", x[1]), ("pitched", pitched)):
                with self.subTest(axis=axis, input=name):
                    def got(*args, **kwargs):
                        return torch.from_dlpack(ctx.reduce(a, *args, axis=axis, **kwargs))
                    self.assertTrue(torch.equal(got("sum"), a.sum(dim=axis)))
                    self.assertTrue(torch.equal(got("min"), a.amin(dim=axis)))
                    self.assertTrue(torch.equal(got("max"), a.amax(dim=axis)))
                    self.assertTrue(torch.equal(got("argmin"), a.argmin(dim=axis)))
                    self.assertTrue(torch.equal(got("argmax"), a.argmax(dim=axis)))
            with self.subTest(axis=axis, op="dot"):
                want = (x.long() * y.long()).sum(dim=axis)
                self.assertTrue(torch.equal(torch.from_dlpack(ctx.dot(x, y, axis=axis)), want))


@need(torch, "PyTorch")
class Layouts(unittest.TestCase):
    def test_transposed_view_summed(self):
        x = torch.randint(-9, 9, (300, 200), device="cuda", dtype=torch.int64)
        self.assertEqual(item(ctx.reduce(x.t())), x.sum().item())

    def test_refused(self):
        x = torch.randn(300, 200, device="cuda")
        with self.assertRaisesRegex(ValueError, "not dense"):
            ctx.reduce(x[:, ::2])
        with self.assertRaisesRegex(ValueError, "transposed view"):
            ctx.transpose(x.t())
        if cuspec._lib.C.cuspec_argreduce is not None:
            with self.assertRaisesRegex(ValueError, "not C-contiguous"):
                ctx.reduce(x.t(), "argmin")

    def test_generic_interfaces(self):
        x = torch.arange(1000, dtype=torch.float32, device="cuda")

        class OnlyCAI:
            __cuda_array_interface__ = x.__cuda_array_interface__

        class OnlyDLPack:
            def __dlpack__(self, stream=None):
                return x.__dlpack__(stream=stream)

            def __dlpack_device__(self):
                return x.__dlpack_device__()
        self.assertEqual(item(ctx.reduce(OnlyCAI())), 499500)
        self.assertEqual(item(ctx.reduce(OnlyDLPack())), 499500)


@need(torch, "PyTorch")
class Streams(unittest.TestCase):
    def test_torch_current_stream(self):
        # Without the order, the sum would run during the sleep, before the fill.
        s = torch.cuda.Stream()
        x = torch.zeros(1 << 24, device="cuda")
        torch.cuda.synchronize()
        with torch.cuda.stream(s):
            torch.cuda._sleep(200_000_000)
            x.fill_(2.0)
            r = ctx.reduce(x)
            self.assertEqual(r.stream, s.cuda_stream)
            total = torch.from_dlpack(r).item()
        self.assertEqual(total, 2.0 * (1 << 24))

    def test_explicit_stream(self):
        s = torch.cuda.Stream()
        x = torch.zeros(1 << 24, device="cuda")
        torch.cuda.synchronize()
        with torch.cuda.stream(s):
            torch.cuda._sleep(200_000_000)
            x.fill_(3.0)
        out = torch.empty((), device="cuda")
        ctx.reduce(x, out=out, stream=s)  # ordered on s, from outside its `with`
        s.synchronize()
        self.assertEqual(out.item(), 3.0 * (1 << 24))

    @need(cupy, "CuPy")
    def test_cupy_stream(self):
        s = cupy.cuda.Stream(non_blocking=True)
        with s:
            x = cupy.zeros(1 << 24, dtype=cupy.float64)
            x.fill(5.0)
            r = ctx.reduce(x)  # CuPy's current stream
            self.assertEqual(r.stream, s.ptr)
            self.assertEqual(cupy.asarray(r).item(), 5.0 * (1 << 24))


class ZeroCopy(unittest.TestCase):
    @need(torch, "PyTorch")
    def test_torch_from_dlpack(self):
        x = torch.randn(64, 48, device="cuda")
        r = ctx.transpose(x)
        t = torch.from_dlpack(r)
        self.assertEqual(t.data_ptr(), r.ptr)
        self.assertEqual((tuple(t.shape), t.stride()), ((48, 64), (64, 1)))
        del r
        gc.collect()
        self.assertTrue(torch.equal(t, x.t()))  # the tensor keeps the memory

    @need(torch, "PyTorch")
    def test_bf16_through_dlpack(self):
        x = torch.randn(1000, device="cuda").to(torch.bfloat16)
        r = ctx.transpose(x.view(10, 100))
        self.assertFalse(hasattr(r, "__cuda_array_interface__"))
        self.assertTrue(torch.equal(torch.from_dlpack(r), x.view(10, 100).t()))

    @need(cupy, "CuPy")
    def test_cupy_asarray(self):
        x = cupy.arange(1000, dtype=cupy.int32)
        r = ctx.reduce(x)
        a = cupy.asarray(r)
        self.assertEqual(a.data.ptr, r.ptr)
        self.assertEqual(int(a), 499500)


@need(cupy, "CuPy")
class CupyResults(unittest.TestCase):
    def test_reductions_and_dot(self):
        for op in ("sum", "min", "max", "dot"):
            code = _dtypes.DOT if op == "dot" else OPS[op]
            for name in supported(code):
                d = _dtypes.BY_NAME[name]
                if d.typestr is None:
                    continue  # bf16: CuPy has none (TorchResults covers it)
                for n in SIZES[1:]:
                    with self.subTest(op=op, dtype=name, n=n):
                        rng = cupy.random.default_rng(n)
                        if name[0] in "iu":
                            wide = rng.integers(0 if name[0] == "u" else -100, 100, n)
                        else:
                            wide = rng.random(n) * 2 - 1
                        x = wide.astype(d.typestr)
                        wide = x.astype("i8" if name[0] in "iu" else "f8")
                        if op == "dot":
                            got, terms = ctx.dot(x, x), wide * wide
                            want = terms.sum()
                        else:
                            got, terms = ctx.reduce(x, op), wide
                            want = getattr(wide, op)()
                        close_enough(self, cupy.asarray(got).item(), want.item(),
                                     float(abs(terms).sum()), name, "%s of %d %s" % (op, n, name),
                                     exact=op in ("min", "max"))


if __name__ == "__main__":
    unittest.main()
