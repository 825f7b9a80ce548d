"""The dtype and op tables, read from the library, and dtype lookups."""
import unittest

from fakes import cuspec, _lib

_dtypes = cuspec._dtypes


class Tables(unittest.TestCase):
    def test_every_library_dtype(self):
        names = []
        code = 1
        while _lib.C.cuspec_dtype_name(code):
            names.append(_lib.C.cuspec_dtype_name(code).decode())
            code += 1
        self.assertEqual(list(_dtypes.BY_NAME), names)
        for d in _dtypes.BY_CODE.values():
            self.assertEqual(d.size, _lib.C.cuspec_dtype_size(d.code))

    def test_typestr_and_dlpack(self):
        expected = {
            "f32": ("<f4", (2, 32)), "f64": ("<f8", (2, 64)), "i32": ("<i4", (0, 32)),
            "i64": ("<i8", (0, 64)), "u32": ("<u4", (1, 32)), "u64": ("<u8", (1, 64)),
            "i8": ("|i1", (0, 8)), "u8": ("|u1", (1, 8)), "i16": ("<i2", (0, 16)),
            "u16": ("<u2", (1, 16)), "f16": ("<f2", (2, 16)), "bf16": (None, (4, 16)),
        }
        for name, (typestr, dl) in expected.items():
            d = _dtypes.BY_NAME[name]
            self.assertEqual((d.typestr, d.dlpack), (typestr, dl), name)
            self.assertIs(_dtypes.BY_DLPACK[dl], d)
            if typestr:
                for order in "<=|":
                    self.assertIs(_dtypes.BY_TYPESTR[order + typestr[1:]], d)

    def test_reduce_out_follows_the_library(self):
        for (op, code), out in _dtypes.OUT.items():
            self.assertEqual(_lib.C.cuspec_reduce_out_dtype(op, code), out.code)
        sum_ = _dtypes.OPS["sum"]
        self.assertEqual(_dtypes.OUT[(sum_, _dtypes.BY_NAME["i32"].code)].name, "i64")
        self.assertEqual(_dtypes.OUT[(sum_, _dtypes.BY_NAME["u32"].code)].name, "u64")
        self.assertEqual(_dtypes.OUT[(_dtypes.OPS["max"], _dtypes.BY_NAME["i32"].code)].name,
                         "i32")
        self.assertEqual(_dtypes.OUT[(_dtypes.DOT, _dtypes.BY_NAME["f64"].code)].name, "f64")

    def test_ops(self):
        for code in range(3):
            self.assertEqual(_dtypes.OPS[_lib.C.cuspec_op_name(code).decode()], code)
        self.assertEqual((_dtypes.OPS["argmin"], _dtypes.OPS["argmax"]), (3, 4))
        self.assertIn("f32", _dtypes.taken_by(_dtypes.OPS["sum"]))


class Lookup(unittest.TestCase):
    def test_names(self):
        for spelling, name in [("f32", "f32"), ("<f4", "f32"), ("|u1", "u8"), ("=i8", "i64"),
                               ("torch.float16", "f16"), ("torch.bfloat16", "bf16"),
                               ("torch.uint8", "u8"), ("int16", "i16"), ("float64", "f64")]:
            self.assertEqual(cuspec.dtype(spelling).name, name, spelling)

    def test_numpy_like_dtype(self):
        class NumpyDtype:
            str = "<u4"

            def __str__(self):
                return "uint32"
        self.assertEqual(cuspec.dtype(NumpyDtype()).name, "u32")

    def test_unknown(self):
        for bad in ("f128", "torch.bool", "complex64", "<c8"):
            with self.assertRaises(ValueError) as caught:
                cuspec.dtype(bad)
            self.assertIn("bf16", str(caught.exception))


if __name__ == "__main__":
    unittest.main()
