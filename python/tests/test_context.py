"""Context's operations on a detached context (no device): every argument
error found before the library is called, the library's own errors coming
back as exceptions, and the arguments each call passes to the library."""
import unittest
from unittest import mock

from fakes import FakeCAI, FakeDLPack, Recorder, cuspec, detached, functions, with_arg_ops

_structs = cuspec._structs
OPS = cuspec._dtypes.OPS
CODE = {name: d.code for name, d in cuspec._dtypes.BY_NAME.items()}



def out(dtype="<f4", shape=(), **kw):
    return FakeCAI(shape, dtype, ptr=0x9000000, **kw)


class Reduce(unittest.TestCase):
    def setUp(self):
        self.reduce = Recorder()
        self.ctx = detached(functions(cuspec_reduce=self.reduce))

    def test_arguments(self):
        o = out("<i8")
        r = self.ctx.reduce(FakeCAI((4, 5), "<i4", ptr=0x1000, stream=0x77), "sum", out=o)
        self.assertIs(r, o)
        self.assertEqual(self.reduce.calls, [(None, OPS["sum"], CODE["i32"], 0x1000, 20,
                                              0x9000000, 0x77)])

    def test_explicit_stream_object(self):
        class Stream:
            cuda_stream = 0x55
        self.ctx.reduce(FakeCAI((4,), "<f4"), "max", out=out(), stream=Stream())
        self.assertEqual(self.reduce.calls[0][-1], 0x55)

    def test_dense_transposed_view_is_taken_for_sum(self):
        self.ctx.reduce(FakeCAI((5, 4), "<f4", strides=(4, 20)), "min", out=out())
        self.assertEqual(self.reduce.calls[0][4], 20)

    def test_out_of_shape_one(self):
        self.ctx.reduce(FakeCAI((4,), "<f4"), out=out(shape=(1,)))
        self.assertEqual(len(self.reduce.calls), 1)

    def test_errors(self):
        x = FakeCAI((4,), "<f4")
        cases = [
            (dict(x=x, op="mean", out=out()), "unknown op 'mean'"),
            (dict(x=x, out=out("<f8")), "out has dtype f64; this call writes f32"),
            (dict(x=FakeCAI((4,), "<i4"), out=out("<i4")), "out has dtype i32; this call "
                                                           "writes i64"),
            (dict(x=x, out=out(shape=(2,))), r"out has shape \(2,\); this call writes \(\)"),
            (dict(x=x, out=out(readonly=True)), "out is read-only"),
            (dict(x=FakeCAI((8,), "<f4", strides=(8,)), out=out()), "x is not dense"),
            (dict(x=FakeDLPack((4,), device=(2, 1)), out=out()),
             "x is on device 1, this context on device 0"),
        ]
        for kwargs, message in cases:
            with self.subTest(message=message):
                with self.assertRaisesRegex(cuspec.InvalidArgument, message):
                    self.ctx.reduce(**kwargs)
        self.assertEqual(self.reduce.calls, [])

    def test_dtype_the_op_does_not_take(self):
        taken = cuspec._dtypes.taken_by(OPS["sum"])
        for d in cuspec._dtypes.BY_CODE.values():
            if (OPS["sum"], d.code) not in cuspec._dtypes.OUT:
                with self.assertRaises(cuspec.InvalidArgument) as caught:
                    self.ctx.reduce(FakeDLPack((4,), d.name), out=out())
                self.assertEqual(str(caught.exception), "reduce(op='sum') does not take %s (it "
                                                        "takes %s)" % (d.name, taken))

    def test_library_error(self):
        ctx = detached()  # the real functions, on a NULL context
        with self.assertRaises(cuspec.InvalidArgument) as caught:
            ctx.reduce(FakeCAI((4,), "<f4"), out=out())
        self.assertEqual(str(caught.exception), "reduce(op='sum'): cuspec_reduce: ctx is NULL")


class ArgReduce(unittest.TestCase):
    def test_missing_from_the_library(self):
        ctx = detached(functions(cuspec_argreduce=None))
        with self.assertRaises(NotImplementedError) as caught:
            ctx.reduce(FakeCAI((4,), "<f4"), "argmin", out=out("<i8"))
        self.assertIsInstance(caught.exception, cuspec.NotInLibrary)
        self.assertIn("reduce(op='argmin') needs cuspec_argreduce, which the library", str(
            caught.exception))

    @with_arg_ops
    def test_index_alone_or_both(self):
        arg = Recorder()
        ctx = detached(functions(cuspec_argreduce=arg))
        index = out("<i8")
        self.assertIs(ctx.reduce(FakeCAI((6,), "<u2", ptr=0x1000), "argmax", out=index), index)
        values = FakeCAI((), "<u2", ptr=0x8000000)
        pair = ctx.reduce(FakeCAI((6,), "<u2", ptr=0x1000), "argmin", out=(values, index))
        self.assertEqual(pair, (values, index))
        self.assertEqual(arg.calls, [
            (None, OPS["argmax"], CODE["u16"], 0x1000, 6, 0, 0x9000000, 0),
            (None, OPS["argmin"], CODE["u16"], 0x1000, 6, 0x8000000, 0x9000000, 0)])

    @with_arg_ops
    def test_order_matters(self):
        ctx = detached(functions(cuspec_argreduce=Recorder()))
        with self.assertRaisesRegex(cuspec.InvalidArgument, "x is not C-contiguous"):
            ctx.reduce(FakeCAI((5, 4), "<f4", strides=(4, 20)), "argmin", out=out("<i8"))
        with self.assertRaisesRegex(cuspec.InvalidArgument, "out has dtype f32; this call writes "
                                                            "i64"):
            ctx.reduce(FakeCAI((4,), "<f4"), "argmin", out=out())
        with self.assertRaisesRegex(cuspec.InvalidArgument, "pair"):
            ctx.reduce(FakeCAI((4,), "<f4"), "argmin", out=(out(), out(), out()))


class Axis(unittest.TestCase):
    def test_missing_from_the_library(self):
        ctx = detached(functions(cuspec_reduce_rows=None, cuspec_reduce_cols=None))
        with self.assertRaisesRegex(cuspec.NotInLibrary, "reduce\\(axis=1\\) needs "
                                                         "cuspec_reduce_rows"):
            ctx.reduce(FakeCAI((3, 4), "<f4"), axis=1, out=out(shape=(3,)))

    @with_arg_ops
    def test_rows_and_columns(self):
        rows, cols = Recorder(), Recorder()
        ctx = detached(functions(cuspec_reduce_rows=rows, cuspec_reduce_cols=cols))
        x = FakeCAI((3, 4), "<f4", strides=(40, 4), ptr=0x1000)
        ctx.reduce(x, "sum", axis=-1, out=out(shape=(3,)))
        ctx.reduce(x, "max", axis=0, out=out(shape=(4,)))
        batch = FakeCAI((2, 3, 4), "<i4", strides=(160, 40, 4), ptr=0x1000)
        ctx.reduce(batch, "argmin", axis=1, out=out("<i8", shape=(2, 4)))

        def matrix(call):
            m = call[4]._obj
            return tuple(getattr(m, f) for f, _ in _structs.Matrix._fields_)
        self.assertEqual([(c[1], c[2], c[3], matrix(c), c[5], c[6]) for c in rows.calls], [
            (OPS["sum"], CODE["f32"], 0x1000, (3, 4, 10, 1, 0), 0x9000000, 0)])
        self.assertEqual([(c[1], matrix(c), c[5], c[6]) for c in cols.calls], [
            (OPS["max"], (3, 4, 10, 1, 0), 0x9000000, 0),
            (OPS["argmin"], (3, 4, 10, 2, 40), 0, 0x9000000)])

    def test_errors(self):
        ctx = detached(functions(cuspec_reduce_rows=Recorder(), cuspec_reduce_cols=Recorder()))
        with self.assertRaisesRegex(cuspec.InvalidArgument, "axis 0 of a 3-D array"):
            ctx.reduce(FakeCAI((2, 3, 4), "<f4"), axis=0, out=out(shape=(3, 4)))
        with self.assertRaisesRegex(cuspec.InvalidArgument, r"out has shape \(4,\); this call "
                                                            r"writes \(3,\)"):
            ctx.reduce(FakeCAI((3, 4), "<f4"), axis=1, out=out(shape=(4,)))
        with self.assertRaisesRegex(cuspec.InvalidArgument, "transposed view"):
            ctx.reduce(FakeCAI((3, 4), "<f4", strides=(4, 12)), axis=1, out=out(shape=(3,)))

    def test_one_dimension_is_the_whole_array(self):
        reduce = Recorder()
        ctx = detached(functions(cuspec_reduce=reduce, cuspec_reduce_rows=None))
        ctx.reduce(FakeCAI((4,), "<f4"), axis=0, out=out())
        self.assertEqual(reduce.calls[0][4], 4)


class ArgDtypes(unittest.TestCase):
    def test_a_dtype_the_library_does_not_take(self):
        ctx = detached(functions(cuspec_argreduce=Recorder()))
        # A library whose argmin takes f32 alone (cuspec's takes every dtype).
        with mock.patch.dict(cuspec._dtypes.OUT, {(OPS["argmin"], CODE["f32"]):
                                                  cuspec._dtypes.BY_NAME["f32"]}, clear=True):
            with self.assertRaisesRegex(cuspec.InvalidArgument, r"reduce\(op='argmin'\) does not "
                                                                r"take i8 \(it takes f32\)"):
                ctx.reduce(FakeCAI((4,), "|i1"), "argmin", out=out("<i8"))


class Dot(unittest.TestCase):
    def test_arguments(self):
        dot = Recorder()
        ctx = detached(functions(cuspec_dot=dot))
        ctx.dot(FakeCAI((8,), "<f8", ptr=0x1000, stream=0x66), FakeCAI((8,), "<f8", ptr=0x2000),
                out=out("<f8"))
        self.assertEqual(dot.calls, [(None, CODE["f64"], 0x1000, 0x2000, 8, 0x9000000, 0x66)])

    def test_errors(self):
        ctx = detached(functions(cuspec_dot=Recorder()))
        a = FakeCAI((8,), "<f4")
        cases = [
            ((a, FakeCAI((8,), "<f8")), "a is f32 but b is f64"),
            ((a, FakeCAI((4, 2), "<f4")), r"a has shape \(8,\) but b \(4, 2\)"),
            ((FakeCAI((2, 4), "<f4"), FakeCAI((2, 4), "<f4", strides=(4, 8))),
             "laid out differently"),
        ]
        for args, message in cases:
            with self.subTest(message=message):
                with self.assertRaisesRegex(cuspec.InvalidArgument, message):
                    ctx.dot(*args, out=out())

    def test_axis(self):
        rows, cols = Recorder(), Recorder()
        ctx = detached(functions(cuspec_dot_rows=rows, cuspec_dot_cols=cols))
        a = FakeCAI((3, 4), "<f4", strides=(40, 4), ptr=0x1000)
        b = FakeCAI((3, 4), "<f4", strides=(40, 4), ptr=0x2000)
        ctx.dot(a, b, axis=1, out=out(shape=(3,)))
        ctx.dot(a, b, axis=-2, out=out(shape=(4,)))
        self.assertEqual([(c[1:4], tuple(getattr(c[4]._obj, f) for f, _ in
                                         _structs.Matrix._fields_), c[5]) for c in
                          rows.calls + cols.calls],
                         [((CODE["f32"], 0x1000, 0x2000), (3, 4, 10, 1, 0), 0x9000000)] * 2)
        with self.assertRaisesRegex(cuspec.InvalidArgument, "one shape for both"):
            ctx.dot(a, FakeCAI((3, 4), "<f4"), axis=1, out=out(shape=(3,)))
        missing = detached(functions(cuspec_dot_rows=None))
        with self.assertRaisesRegex(cuspec.NotInLibrary, "dot\\(axis=1\\) needs cuspec_dot_rows"):
            missing.dot(a, b, axis=1, out=out(shape=(3,)))

    def test_library_error(self):
        with self.assertRaisesRegex(cuspec.InvalidArgument, "^dot: cuspec_dot: ctx is NULL$"):
            detached().dot(FakeCAI((8,), "<f4"), FakeCAI((8,), "<f4"), out=out())


class Transpose(unittest.TestCase):
    def setUp(self):
        self.t = Recorder()
        self.ctx = detached(functions(cuspec_transpose_batched=self.t))

    def test_leading_dimensions(self):
        x = FakeCAI((3, 5), "<u2", strides=(16, 2), ptr=0x1000)
        o = FakeCAI((5, 3), "<u2", strides=(8, 2), ptr=0x9000000)
        self.assertIs(self.ctx.transpose(x, out=o), o)
        self.assertEqual(self.t.calls, [(None, CODE["u16"], 0x1000, 3, 5, 8, 0, 0x9000000, 4, 0,
                                         1, 0)])

    def test_batch(self):
        x = FakeCAI((2, 3, 5), "<f8", ptr=0x1000)
        self.ctx.transpose(x, out=FakeCAI((2, 5, 3), "<f8", ptr=0x9000000), stream=7)
        self.assertEqual(self.t.calls, [(None, CODE["f64"], 0x1000, 3, 5, 5, 15, 0x9000000, 3, 15,
                                         2, 7)])

    def test_errors(self):
        cases = [
            ((FakeCAI((3, 5), "<f4", strides=(4, 12)), FakeCAI((5, 3), "<f4")),
             "x is a transposed view"),
            ((FakeCAI((3, 5), "<f4"), FakeCAI((3, 5), "<f4")),
             r"out has shape \(3, 5\); this call writes \(5, 3\)"),
            ((FakeCAI((3, 5), "<f4"), FakeCAI((5, 3), "<i4")),
             "out has dtype i32; this call writes f32"),
            ((FakeCAI((3, 5), "<f4"), FakeCAI((5, 3), "<f4", strides=(4, 20))),
             "out is a transposed view"),
            ((FakeCAI((15,), "<f4"), FakeCAI((15,), "<f4")), "x has 1 dimensions"),
        ]
        for (x, o), message in cases:
            with self.subTest(message=message):
                with self.assertRaisesRegex(cuspec.InvalidArgument, message):
                    self.ctx.transpose(x, out=o)
        self.assertEqual(self.t.calls, [])

    def test_library_error(self):
        # The library's own check of its context, through the real prototype.
        with self.assertRaisesRegex(cuspec.InvalidArgument, "^transpose: cuspec_transpose: "
                                                            "ctx is NULL$"):
            detached().transpose(FakeCAI((3, 5), "<f4"), out=FakeCAI((5, 3), "<f4"))


if __name__ == "__main__":
    unittest.main()
