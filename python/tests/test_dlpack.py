"""DLPack: capsules read field by field, the producer asked for the call's
stream, and cuspec's own capsules freed exactly once, consumed or not."""
import ctypes
import gc
import unittest
import weakref

from fakes import FakeDLPack, cuspec

_dlpack = cuspec._dlpack
view = cuspec._arrays.view


class Owner:
    pass


class Reading(unittest.TestCase):
    def test_round_trip(self):
        for dtype in cuspec._dtypes.BY_NAME:
            x = FakeDLPack((3, 5), dtype, strides=(8, 1), ptr=0x5000, device=(2, 1))
            v = view(x, "x", None)
            self.assertEqual((v.ptr, v.shape, v.strides, v.dtype.name, v.device),
                             (0x5000, (3, 5), (8, 1), dtype, 1))

    def test_null_strides_and_byte_offset(self):
        owner = Owner()
        capsule = _dlpack.make_capsule(0x5000, (4,), (1,), cuspec._dtypes.BY_NAME["f32"], 0,
                                       owner)
        t = ctypes.cast(_dlpack._get_pointer(capsule, _dlpack.NAME),
                        ctypes.POINTER(_dlpack.DLManagedTensor)).contents.dl_tensor
        t.strides = None
        t.byte_offset = 64
        ptr, shape, strides, dtype, device = _dlpack.parse(capsule, "x")
        self.assertEqual((ptr, shape, strides), (0x5000 + 64, (4,), None))

    def test_refusals(self):
        cases = [
            ({"device": (1, 0)}, "not in CUDA device memory \\(DLPack device type 1\\)"),
            ({"device": (3, 0)}, "DLPack device type 3"),
        ]
        for kwargs, message in cases:
            with self.assertRaisesRegex(cuspec.InvalidArgument, message):
                view(FakeDLPack((2,), **kwargs), "x", None)

    def test_dtypes_refused(self):
        owner = Owner()
        for code, bits, lanes in [(6, 8, 1), (5, 64, 1), (2, 32, 4)]:  # bool, complex, vector
            capsule = _dlpack.make_capsule(0x5000, (4,), (1,), cuspec._dtypes.BY_NAME["f32"], 0,
                                           owner)
            t = ctypes.cast(_dlpack._get_pointer(capsule, _dlpack.NAME),
                            ctypes.POINTER(_dlpack.DLManagedTensor)).contents.dl_tensor
            t.dtype = _dlpack.DLDataType(code, bits, lanes)
            with self.assertRaisesRegex(cuspec.InvalidArgument, "code %d, %d bits, %d lanes" % (
                    code, bits, lanes)):
                _dlpack.parse(capsule, "x")

    def test_not_a_dltensor_capsule(self):
        class Liar:
            def __dlpack_device__(self):
                return (2, 0)

            def __dlpack__(self, stream=None):
                return object()
        with self.assertRaisesRegex(cuspec.InvalidArgument, "did not return a 'dltensor'"):
            view(Liar(), "x", None)

    def test_stream_asked_of_the_producer(self):
        x = FakeDLPack((2,))
        self.assertEqual(view(x, "x", None).stream, 1)  # the protocol's legacy stream
        view(x, "x", 0)
        view(x, "x", 0xABC)
        self.assertEqual(x.asked, [1, 1, 0xABC])
        self.assertEqual(view(x, "x", 0).stream, 0)

    def test_producer_without_a_stream_argument(self):
        x = FakeDLPack((2,), takes_stream=False)
        self.assertEqual(view(x, "x", 0xABC).stream, 0xABC)
        self.assertEqual(x.asked, [None])


class Lifetime(unittest.TestCase):
    def _capsule(self):
        owner = Owner()
        capsule = _dlpack.make_capsule(0x5000, (2, 3), (3, 1), cuspec._dtypes.BY_NAME["f32"], 0,
                                       owner)
        return capsule, weakref.ref(owner)

    def test_unconsumed_capsule_lets_go(self):
        live = len(_dlpack._live)
        capsule, owner = self._capsule()
        self.assertEqual(len(_dlpack._live), live + 1)
        del capsule
        gc.collect()
        self.assertIsNone(owner())
        self.assertEqual(len(_dlpack._live), live)

    def test_consumer_deleter_once(self):
        live = len(_dlpack._live)
        capsule, owner = self._capsule()
        # What a consumer does: take the pointer, rename, call the deleter later.
        address = _dlpack._get_pointer(capsule, _dlpack.NAME)
        set_name = ctypes.pythonapi.PyCapsule_SetName
        set_name.argtypes = [ctypes.py_object, ctypes.c_char_p]
        self.assertEqual(set_name(capsule, _dlpack.USED_NAME), 0)
        del capsule
        gc.collect()
        self.assertIsNotNone(owner())  # the consumer holds it
        managed = _dlpack.DLManagedTensor.from_address(address)
        self.assertEqual(managed.dl_tensor.shape[1], 3)
        managed.deleter(address)
        self.assertIsNone(owner())
        self.assertEqual(len(_dlpack._live), live)


if __name__ == "__main__":
    unittest.main()
