"""Finding the library, its version, and the errors without a driver."""
import ctypes
import os
import subprocess
import sys
import tempfile
import unittest

from fakes import cuspec, _lib

PACKAGE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
SOURCE_ROOT = os.path.dirname(os.path.abspath(PACKAGE_DIR))


def run_python(code, **env):
    """Runs `code` in a fresh interpreter over this package, with the
    environment changed by `env` (None: removed)."""
    environ = dict(os.environ, PYTHONPATH=PACKAGE_DIR)
    for name, value in env.items():
        if value is None:
            environ.pop(name, None)
        else:
            environ[name] = value
    return subprocess.run([sys.executable, "-c", code], env=environ, capture_output=True,
                          text=True, timeout=60)


def have_driver():
    try:
        ctypes.CDLL(os.environ.get("CUSPEC_LIBCUDA") or "libcuda.so.1")
        return True
    except OSError:
        return False


class Lookup(unittest.TestCase):
    def test_build_tree_is_the_last_candidate_in_a_checkout(self):
        tried = _lib.candidates({})
        self.assertEqual(tried[0], ("the dynamic linker's search", "libcuspec.so.2"))
        self.assertEqual(tried[-1], ("the build tree",
                                     os.path.join(SOURCE_ROOT, "src", ".libs", "libcuspec.so.2")))

    def test_environment_alone_when_set(self):
        self.assertEqual(_lib.candidates({"CUSPEC_LIBRARY": "/x/libcuspec.so.2"}),
                         [("CUSPEC_LIBRARY=/x/libcuspec.so.2", "/x/libcuspec.so.2")])

    def test_loads_from_the_build_tree(self):
        built = os.path.join(SOURCE_ROOT, "src", ".libs", "libcuspec.so.2")
        if not os.path.exists(built):
            self.skipTest("no library in this source tree's src/.libs (a VPATH build)")
        # With no CUSPEC_LIBRARY and nothing installed, the build tree's is opened.
        r = run_python("import cuspec; print(cuspec.library_path)", CUSPEC_LIBRARY=None,
                       LD_LIBRARY_PATH=None)
        self.assertEqual(r.returncode, 0, r.stderr)
        loaded = r.stdout.strip()
        if loaded != built and not loaded.startswith(SOURCE_ROOT):
            self.skipTest("the dynamic linker found an installed %s first" % loaded)
        self.assertEqual(loaded, built)

    def test_none_loads_lists_every_path_tried(self):
        with self.assertRaises(cuspec.LibraryNotFound) as caught:
            _lib.open_first([("first", "/nonexistent/a.so"), ("second", "/nonexistent/b.so")])
        message = str(caught.exception)
        self.assertIn("/nonexistent/a.so (first)", message)
        self.assertIn("/nonexistent/b.so (second)", message)
        self.assertIn("CUSPEC_LIBRARY", message)
        self.assertIsInstance(caught.exception, ImportError)

    def test_a_wrong_cuspec_library_is_an_import_error_naming_it(self):
        r = run_python("import cuspec", CUSPEC_LIBRARY="/nonexistent/libcuspec.so.2")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("LibraryNotFound", r.stderr)
        self.assertIn("/nonexistent/libcuspec.so.2 (CUSPEC_LIBRARY=", r.stderr)


class Version(unittest.TestCase):
    def test_package_and_library_agree(self):
        self.assertEqual(cuspec.__version__, cuspec.library_version)
        self.assertRegex(cuspec.__version__, r"^\d+\.\d+\.\d+$")

    def test_package_is_configure_version(self):
        configure = os.path.join(SOURCE_ROOT, "configure.ac")
        with open(configure) as f:
            self.assertIn("AC_INIT([cuspec], [%s]" % cuspec.__version__, f.read())

    def test_mismatch_names_both(self):
        with self.assertRaises(cuspec.VersionMismatch) as caught:
            _lib.check_version("0.1.0", "0.2.0", "/lib/libcuspec.so.2")
        message = str(caught.exception)
        for part in ("0.1.0", "0.2.0", "/lib/libcuspec.so.2"):
            self.assertIn(part, message)
        _lib.check_version("0.2.0", "0.2.0", "/lib/libcuspec.so.2")  # no error


class Errors(unittest.TestCase):
    def test_one_class_per_status(self):
        statuses = [s for s in range(-1, -256, -1) if _lib.C.cuspec_status_name(s)]
        self.assertGreaterEqual(len(statuses), 13)
        for s in statuses:
            cls = cuspec._errors.BY_STATUS[s]
            self.assertEqual(cls.status, s)
            self.assertEqual(cls.status_name, _lib.C.cuspec_status_name(s).decode())
            self.assertTrue(issubclass(cls, cuspec.Error))
            self.assertIs(getattr(cuspec, cls.__name__), cls)

    def test_names(self):
        self.assertEqual(cuspec.NoDriverError.status_name, "CUSPEC_ERR_NO_DRIVER")
        self.assertEqual(cuspec.InvalidArgument.status_name, "CUSPEC_ERR_INVALID")
        self.assertTrue(issubclass(cuspec.InvalidArgument, ValueError))
        self.assertEqual(cuspec.DriverTooOldError.status, -4)
        self.assertTrue(issubclass(cuspec.NotInLibrary, NotImplementedError))

    def test_library_detail_is_the_message(self):
        # The library's own check of a NULL context, through the real prototypes.
        rc = _lib.C.cuspec_reduce(None, 0, 1, 0, 0, 0, None)
        e = cuspec._errors.from_status(rc, "reduce")
        self.assertIsInstance(e, cuspec.InvalidArgument)
        self.assertEqual(str(e), "reduce: cuspec_reduce: ctx is NULL")


class NoDriver(unittest.TestCase):
    def setUp(self):
        if have_driver():
            self.skipTest("this machine has a CUDA driver")

    def test_context_says_what_was_tried(self):
        with self.assertRaises(cuspec.NoDriverError) as caught:
            cuspec.Context(0)
        self.assertIn("libcuda.so.1", str(caught.exception))
        self.assertIn("install the NVIDIA driver", str(caught.exception))

    def test_devices(self):
        with self.assertRaises(cuspec.NoDriverError):
            cuspec.devices()

    def test_cuspec_libcuda_is_named(self):
        r = run_python("import cuspec\ntry:\n cuspec.Context()\nexcept cuspec.NoDriverError as e:"
                       "\n print('caught', e)", CUSPEC_LIBCUDA="/nonexistent/libcuda.so.1")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("caught cuspec.Context(device=0): cannot open the CUDA driver "
                      "/nonexistent/libcuda.so.1", r.stdout)


class Store(unittest.TestCase):
    def test_stats_name_the_store(self):
        with tempfile.TemporaryDirectory() as store:
            r = run_python("import cuspec; s = cuspec.store_stats(); print(s['path']); "
                           "print(sorted(s['entries']))", CUSPEC_CACHE_DIR=store)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.splitlines(), [store, "['bad', 'cubin', 'ptx', 'tuning']"])


if __name__ == "__main__":
    unittest.main()
