"""The driver calls the binding makes itself, on a stand-in driver: the
primary context made current only when it is not, allocation and free on
the stream, event ordering, and CUresults as CudaError."""
import ctypes
import unittest

from fakes import cuspec

_driver = cuspec._driver
PRIMARY = 0xC0


def plain(value):
    return value.value if isinstance(value, ctypes._SimpleCData) else value


class FakeApi:
    """Driver functions as Python callables: out-parameters arrive as
    ctypes byref() objects (their ._obj is written); each call is logged."""

    def __init__(self, current=PRIMARY, fail=None):
        self.current, self.fail, self.log = current, fail or {}, []

    def __getattr__(self, name):
        def call(*args):
            handler = getattr(type(self), "_" + name, None)
            if handler is not None:
                handler(self, *args)
            self.log.append((name,) + tuple(plain(getattr(a, "_obj", a)) for a in args))
            return self.fail.get(name, 0)
        return call

    def _cuGetErrorName(self, result, name):
        name._obj.value = b"CUDA_ERROR_OUT_OF_MEMORY"

    def _cuDeviceGet(self, dev, ordinal):
        dev._obj.value = 10 + ordinal

    def _cuDevicePrimaryCtxRetain(self, cu, dev):
        cu._obj.value = PRIMARY

    def _cuCtxGetCurrent(self, cu):
        cu._obj.value = self.current

    def _cuMemAllocAsync(self, pointer, size, stream):
        pointer._obj.value = 0x7000

    def _cuEventCreate(self, event, flags):
        event._obj.value = 0xE0


class Driver(unittest.TestCase):
    def setUp(self):
        self.saved = _driver._api
        self.addCleanup(setattr, _driver, "_api", self.saved)

    def device(self, **kwargs):
        _driver._api = FakeApi(**kwargs)
        return _driver.Device(1)

    def names(self, dev):
        return [entry[0] for entry in dev.api.log]

    def test_retains_and_releases_the_primary_context(self):
        dev = self.device()
        self.assertEqual((dev.context, dev.ordinal), (PRIMARY, 1))
        api = dev.api
        del dev
        self.assertEqual(api.log[-1], ("cuDevicePrimaryCtxRelease_v2", 11))

    def test_alloc_with_the_context_current(self):
        dev = self.device()
        self.assertEqual(dev.alloc(64, 0x77), 0x7000)
        self.assertEqual(self.names(dev)[-2:], ["cuCtxGetCurrent", "cuMemAllocAsync"])
        self.assertEqual(dev.api.log[-1][2:], (64, 0x77))

    def test_pushes_where_another_context_is_current(self):
        dev = self.device(current=None)
        dev.alloc(64, 0x77)
        self.assertEqual(self.names(dev)[-4:], ["cuCtxGetCurrent", "cuCtxPushCurrent_v2",
                                                "cuMemAllocAsync", "cuCtxPopCurrent_v2"])

    def test_free_after_the_consumers(self):
        dev = self.device()
        dev.free(0x7000, 0x77, after=(0x99,))
        self.assertEqual([e for e in dev.api.log if e[0] != "cuCtxGetCurrent"][-5:], [
            ("cuEventCreate", 0xE0, 2), ("cuEventRecord", 0xE0, 0x99),
            ("cuStreamWaitEvent", 0x77, 0xE0, 0), ("cuEventDestroy_v2", 0xE0),
            ("cuMemFreeAsync", 0x7000, 0x77)])

    def test_same_stream_needs_no_event(self):
        dev = self.device()
        dev.order(0x77, 0x77)
        self.assertNotIn("cuEventCreate", self.names(dev))

    def test_cuda_error(self):
        dev = self.device(fail={"cuMemAllocAsync": 2})
        with self.assertRaises(cuspec.CudaError) as caught:
            dev.alloc(64, 0)
        self.assertEqual(str(caught.exception),
                         "cuMemAllocAsync failed: CUDA_ERROR_OUT_OF_MEMORY (2)")

    def test_no_driver(self):
        _driver._api = None
        import os
        saved = os.environ.get("CUSPEC_LIBCUDA")
        os.environ["CUSPEC_LIBCUDA"] = "/nonexistent/libcuda.so.1"
        try:
            with self.assertRaisesRegex(cuspec.NoDriverError, "/nonexistent/libcuda.so.1"):
                _driver.api()
        finally:
            if saved is None:
                del os.environ["CUSPEC_LIBCUDA"]
            else:
                os.environ["CUSPEC_LIBCUDA"] = saved


if __name__ == "__main__":
    unittest.main()
