"""Reading arguments: the CUDA array interface with chosen shapes, strides,
dtypes and streams; stream objects; objects that are no arrays."""
import unittest

from fakes import FakeCAI, cuspec

view = cuspec._arrays.view
stream_handle = cuspec._arrays.stream_handle


class ArrayInterface(unittest.TestCase):
    def test_contiguous(self):
        v = view(FakeCAI((3, 4), "<i2", ptr=0x1234), "x", None)
        self.assertEqual((v.ptr, v.shape, v.strides, v.dtype.name), (0x1234, (3, 4), None, "i16"))
        self.assertIsNone(v.device)

    def test_byte_strides_become_elements(self):
        v = view(FakeCAI((3, 4), "<f8", strides=(80, 8)), "x", None)
        self.assertEqual(v.strides, (10, 1))
        self.assertEqual(view(FakeCAI((5,), "|u1", strides=(3,)), "x", None).strides, (3,))

    def test_strides_that_split_elements(self):
        with self.assertRaises(cuspec.InvalidArgument) as caught:
            view(FakeCAI((3, 4), "<f4", strides=(18, 4)), "x", None)
        self.assertIn("not multiples of its 4-byte elements", str(caught.exception))

    def test_every_typestr_of_the_library(self):
        for d in cuspec._dtypes.BY_CODE.values():
            if d.typestr:
                self.assertIs(view(FakeCAI((2,), d.typestr), "x", None).dtype, d)

    def test_unknown_and_big_endian(self):
        with self.assertRaisesRegex(cuspec.InvalidArgument, r"'<c8', which cuspec does not take"):
            view(FakeCAI((2,), "<c8"), "x", None)
        with self.assertRaisesRegex(cuspec.InvalidArgument, "big-endian"):
            view(FakeCAI((2,), ">f4"), "x", None)
        with self.assertRaisesRegex(cuspec.InvalidArgument, "does not take"):
            view(FakeCAI((2,), "|b1"), "x", None)

    def test_mask_refused(self):
        with self.assertRaisesRegex(cuspec.InvalidArgument, "mask"):
            view(FakeCAI((2,), mask=FakeCAI((2,), "|b1")), "x", None)

    def test_read_only_is_seen(self):
        self.assertTrue(view(FakeCAI((2,), readonly=True), "x", None).readonly)
        self.assertFalse(view(FakeCAI((2,)), "x", None).readonly)

    def test_null_pointer_of_an_empty_array(self):
        self.assertEqual(view(FakeCAI((0,), ptr=None), "x", None).ptr, 0)


class Streams(unittest.TestCase):
    def test_producer_stream_is_the_default(self):
        v = view(FakeCAI((2,), stream=0xABC), "x", None)
        self.assertEqual((v.stream, v.sync), (0xABC, None))

    def test_without_a_stream_the_legacy_default(self):
        self.assertEqual(view(FakeCAI((2,)), "x", None).stream, 0)
        # Before version 3 the interface had no stream: one there means nothing.
        self.assertEqual(view(FakeCAI((2,), version=2, stream=0xABC), "x", None).stream, 0)

    def test_another_stream_waits_for_the_producer(self):
        v = view(FakeCAI((2,), stream=0xABC), "x", 0xDEF)
        self.assertEqual((v.stream, v.sync), (0xDEF, 0xABC))
        # 0 and 1 are both the legacy default stream: nothing to wait for.
        self.assertIsNone(view(FakeCAI((2,), stream=1), "x", 0).sync)

    def test_stream_objects(self):
        class TorchStream:
            cuda_stream = 0x1111

        class CupyStream:
            ptr = 0x2222

        class ProtocolStream:
            def __cuda_stream__(self):
                return (0, 0x3333)
        self.assertEqual(stream_handle(TorchStream()), 0x1111)
        self.assertEqual(stream_handle(CupyStream()), 0x2222)
        self.assertEqual(stream_handle(ProtocolStream()), 0x3333)
        self.assertEqual(stream_handle(0), 0)
        self.assertEqual(stream_handle(0x4444), 0x4444)
        for bad in (-1, "0", 1.5, object()):
            with self.assertRaises(TypeError):
                stream_handle(bad)


class NotArrays(unittest.TestCase):
    def test_plain_objects(self):
        for bad in ([1.0, 2.0], 3, b"bytes"):
            with self.assertRaisesRegex(TypeError, "neither __cuda_array_interface__ nor "
                                                   "__dlpack__"):
                view(bad, "x", None)


if __name__ == "__main__":
    unittest.main()
