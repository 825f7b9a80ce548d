"""The ctypes mirrors of the library's structs have its layout: sizes and
every field's offset, as tests/py_layout (compiled against cuspec.h) prints."""
import ctypes
import os
import subprocess
import unittest

from fakes import cuspec

_structs = cuspec._structs


class Layout(unittest.TestCase):
    def setUp(self):
        program = os.environ.get("PY_LAYOUT")
        if not program or not os.path.exists(program):
            self.skipTest("PY_LAYOUT does not name the built tests/py_layout (make check sets it)")
        self.c = dict(line.rsplit(" ", 1) for line in
                      subprocess.run([program], capture_output=True, text=True,
                                     check=True).stdout.splitlines())

    def test_every_mirror_matches(self):
        self.assertEqual(sorted(k for k in self.c if "." not in k), sorted(_structs.MIRRORED))
        for c_name, mirror in _structs.MIRRORED.items():
            with self.subTest(struct=c_name):
                self.assertEqual(int(self.c[c_name]), ctypes.sizeof(mirror))
                for field, _ in mirror._fields_:
                    self.assertEqual(int(self.c["%s.%s" % (c_name, field)]),
                                     getattr(mirror, field).offset, field)


if __name__ == "__main__":
    unittest.main()
