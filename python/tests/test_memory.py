"""cuspec's output arrays on a stand-in device: allocation and free in
stream order, the array interface and DLPack they expose, and the outputs
each operation makes."""
import gc
import unittest

from fakes import FakeCAI, FakeDevice, Recorder, cuspec, detached, functions, with_arg_ops

DeviceArray = cuspec.DeviceArray
_dtypes = cuspec._dtypes
_dlpack = cuspec._dlpack


def array(dev, shape=(3, 4), dtype="f32", stream=0x77):
    return DeviceArray(dev, shape, _dtypes.BY_NAME[dtype], stream)


class Lifetime(unittest.TestCase):
    def test_alloc_and_free_on_the_stream(self):
        dev = FakeDevice()
        a = array(dev, (3, 4), "f64")
        ptr = a.ptr
        self.assertEqual(dev.log, [("alloc", ptr, 96, 0x77)])
        del a
        gc.collect()
        self.assertEqual(dev.log[1:], [("free", ptr, 0x77, ())])

    def test_legacy_stream_spelled_one_way(self):
        self.assertEqual(array(FakeDevice(), stream=0).stream, 1)

    def test_empty_array_allocates_nothing(self):
        dev = FakeDevice()
        a = array(dev, (0, 4))
        self.assertEqual((a.ptr, dev.log), (0, []))
        del a
        self.assertEqual(dev.log, [])

    def test_attributes(self):
        a = array(FakeDevice(1), (3, 4), "i16")
        self.assertEqual((a.shape, a.dtype, a.ndim, a.size, a.nbytes, a.device),
                         ((3, 4), "i16", 2, 12, 24, 1))
        self.assertIn("dtype='i16'", repr(a))


class Interfaces(unittest.TestCase):
    def test_array_interface(self):
        a = array(FakeDevice(), (3, 4), "u8")
        self.assertEqual(a.__cuda_array_interface__, {
            "version": 3, "shape": (3, 4), "typestr": "|u1", "data": (a.ptr, False),
            "strides": None, "stream": 0x77})

    def test_bf16_has_no_array_interface(self):
        a = array(FakeDevice(), (2,), "bf16")
        self.assertFalse(hasattr(a, "__cuda_array_interface__"))
        self.assertEqual(a.__dlpack_device__(), (2, 0))

    def test_dlpack_for_the_consumer_stream(self):
        dev = FakeDevice()
        a = array(dev, (3, 4), "f32", stream=0x77)
        ptr = a.ptr
        capsule = a.__dlpack__(stream=0x99)
        got = _dlpack.parse(capsule, "a")
        self.assertEqual(got[:3], (ptr, (3, 4), (4, 1)))
        self.assertEqual((got[3].name, got[4]), ("f32", 0))
        a.__dlpack__(stream=None)  # the legacy default stream
        a.__dlpack__(stream=-1)  # no ordering asked
        a.__dlpack__(stream=0x77)  # its own stream: nothing to order
        self.assertEqual(dev.log[1:], [("order", 0x77, 0x99), ("order", 0x77, 1)])
        # The free waits for the consumers' streams, after the last reference.
        del a
        gc.collect()
        self.assertEqual(dev.log[-1], ("order", 0x77, 1))  # the capsule still holds it
        del capsule
        gc.collect()
        self.assertEqual(dev.log[-1], ("free", ptr, 0x77, (1, 0x99)))

    def test_dlpack_refusals(self):
        a = array(FakeDevice())
        with self.assertRaises(BufferError):
            a.__dlpack__(copy=True)
        with self.assertRaises(BufferError):
            a.__dlpack__(dl_device=(2, 1))
        a.__dlpack__(dl_device=(2, 0), copy=False, max_version=(1, 0))

    def test_input_on_another_stream_is_waited_for(self):
        dev = FakeDevice()
        a = array(dev, (4,), stream=0x77)
        v = cuspec._arrays.view(a, "x", 0x99)
        self.assertEqual((v.ptr, v.shape, v.stream, v.sync), (a.ptr, (4,), 0x99, 0x77))
        self.assertIsNone(cuspec._arrays.view(a, "x", None).sync)


class Outputs(unittest.TestCase):
    def setUp(self):
        self.dev = FakeDevice()
        self.f = functions(cuspec_reduce=Recorder(), cuspec_transpose_batched=Recorder(),
                           cuspec_dot=Recorder(), cuspec_argreduce=Recorder())
        self.ctx = detached(self.f)
        self.ctx._dev = self.dev

    def test_reduce_makes_its_output(self):
        r = self.ctx.reduce(FakeCAI((10,), "<u4", stream=0x55))
        self.assertIsInstance(r, DeviceArray)
        self.assertEqual((r.shape, r.dtype, r.stream), ((), "u64", 0x55))
        self.assertEqual(self.f.cuspec_reduce.calls[0][5], r.ptr)
        self.assertEqual(self.dev.log, [("alloc", r.ptr, 8, 0x55)])

    @with_arg_ops
    def test_argreduce_makes_values_and_indices(self):
        values, index = self.ctx.reduce(FakeCAI((10,), "<f2"), "argmax", out=(None, None))
        self.assertEqual((values.dtype, index.dtype), ("f16", "i64"))
        self.assertEqual(self.f.cuspec_argreduce.calls[0][5:7], (values.ptr, index.ptr))

    def test_transpose_output_is_contiguous(self):
        r = self.ctx.transpose(FakeCAI((2, 3, 5), "<i8", strides=(320, 80, 8)))
        self.assertEqual((r.shape, r.dtype), ((2, 5, 3), "i64"))
        call = self.f.cuspec_transpose_batched.calls[0]
        self.assertEqual(call[3:], (3, 5, 10, 40, r.ptr, 3, 15, 2, 0))

    def test_dot_output(self):
        r = self.ctx.dot(FakeCAI((4,), "<i4"), FakeCAI((4,), "<i4"))
        self.assertEqual(r.dtype, "i64")

    def test_output_feeds_the_next_call(self):
        t = self.ctx.transpose(FakeCAI((3, 5), "<f4", stream=0x55))
        s = self.ctx.reduce(t)
        self.assertEqual(self.f.cuspec_reduce.calls[0][3:5], (t.ptr, 15))
        self.assertEqual(s.stream, 0x55)

    def test_close_waits_for_the_device(self):
        destroyed = Recorder()
        self.f.cuspec_ctx_destroy = destroyed
        self.ctx._ptr = 0x1234
        with self.ctx:
            pass
        self.assertEqual(self.dev.log, [("synchronize",)])
        self.assertEqual(destroyed.calls, [(0x1234,)])
        self.ctx.close()  # once only
        self.assertEqual(len(destroyed.calls), 1)


if __name__ == "__main__":
    unittest.main()
