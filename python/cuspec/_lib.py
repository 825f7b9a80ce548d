# Finding and opening libcuspec, and the prototypes of the functions the
# binding calls, set once at import so that no call converts more than it must.
import ctypes
import os
from ctypes import POINTER, c_char_p, c_int, c_size_t, c_uint64, c_void_p

from . import _structs
from ._version import __version__

SONAME = "libcuspec.so.2"
ENV = "CUSPEC_LIBRARY"


class LibraryNotFound(ImportError):
    """No libcuspec could be opened; the message lists every path tried."""


class VersionMismatch(ImportError):
    """The library opened is not the version this package was made for."""


def checkout_library():
    """The build tree's library when this package runs from a checkout of
    cuspec (python/cuspec inside the source tree), else None."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if not os.path.isfile(os.path.join(root, "src", "cuspec.h")):
        return None
    return os.path.join(root, "src", ".libs", SONAME)


def candidates(environ=os.environ):
    """What to try, in order: $CUSPEC_LIBRARY alone when set (a wrong path is
    an error, not a reason to load another library), else the dynamic
    linker's search for the soname, then the build tree of a checkout."""
    chosen = environ.get(ENV)
    if chosen:
        return [(ENV + "=" + chosen, chosen)]
    found = [("the dynamic linker's search", SONAME)]
    tree = checkout_library()
    if tree is not None:
        found.append(("the build tree", tree))
    return found


def open_first(tried):
    """Opens the first of (description, path) that loads; LibraryNotFound
    naming each one and why it failed when none does."""
    failures = []
    for what, path in tried:
        try:
            return ctypes.CDLL(path)
        except OSError as e:
            failures.append("  %s (%s): %s" % (path, what, e))
    raise LibraryNotFound(
        "cuspec: cannot open libcuspec; tried:\n%s\nbuild it (make) in a checkout, install it "
        "(make install), or set %s to its path" % ("\n".join(failures), ENV)
    )


class _DlInfo(ctypes.Structure):
    _fields_ = [("fname", c_char_p), ("fbase", c_void_p), ("sname", c_char_p), ("saddr", c_void_p)]


def file_of(function):
    """The file a loaded function comes from (dladdr), or "" if unknown."""
    info = _DlInfo()
    dladdr = ctypes.CDLL(None).dladdr
    dladdr.argtypes = [c_void_p, POINTER(_DlInfo)]
    if dladdr(ctypes.cast(function, c_void_p), ctypes.byref(info)) == 0 or not info.fname:
        return ""
    return os.path.abspath(info.fname.decode())


def check_version(library, package, path):
    if library != package:
        raise VersionMismatch(
            "cuspec: the Python package is version %s but the library %s is version %s; "
            "install the matching pair (or set %s)" % (package, path, library, ENV)
        )


_ctx = c_void_p
_ptr = c_uint64  # cuspec_devptr
_stream = c_void_p

# name: (restype, argtypes). Every function of the public API the binding uses.
PROTOTYPES = {
    "cuspec_version": (c_char_p, []),
    "cuspec_strerror": (c_char_p, [c_int]),
    "cuspec_status_name": (c_char_p, [c_int]),
    "cuspec_last_error": (c_char_p, []),
    "cuspec_driver_version": (c_int, [POINTER(c_int)]),
    "cuspec_device_count": (c_int, [POINTER(c_int)]),
    "cuspec_device_get_info": (c_int, [c_int, POINTER(_structs.DeviceInfo)]),
    "cuspec_set_warning_handler": (None, [c_void_p, c_void_p]),
    "cuspec_store_get_stats": (c_int, [POINTER(_structs.StoreStats)]),
    "cuspec_kind_name": (c_char_p, [c_int]),
    "cuspec_dtype_size": (c_size_t, [c_int]),
    "cuspec_dtype_name": (c_char_p, [c_int]),
    "cuspec_op_name": (c_char_p, [c_int]),
    "cuspec_reduce_out_dtype": (c_int, [c_int, c_int]),
    "cuspec_tier_name": (c_char_p, [c_int]),
    "cuspec_ctx_create": (c_int, [POINTER(_ctx), c_int]),
    "cuspec_ctx_destroy": (None, [_ctx]),
    "cuspec_last_launch": (c_int, [POINTER(_structs.LaunchInfo)]),
    "cuspec_reduce": (c_int, [_ctx, c_int, c_int, _ptr, c_size_t, _ptr, _stream]),
    "cuspec_dot": (c_int, [_ctx, c_int, _ptr, _ptr, c_size_t, _ptr, _stream]),
    "cuspec_transpose_batched": (
        c_int,
        [_ctx, c_int, _ptr, c_size_t, c_size_t, c_size_t, c_size_t, _ptr, c_size_t, c_size_t,
         c_size_t, _stream],
    ),
    "cuspec_bench_latency": (c_int, [_ctx, POINTER(_structs.Latency)]),
    "cuspec_tune": (
        c_int,
        [_ctx, POINTER(_structs.TuneSpec), POINTER(_structs.TuneOptions),
         POINTER(_structs.TuneResult)],
    ),
}

# Functions being added to the library (argmin/argmax, and the reductions
# along an axis with their cuspec_matrix shape): used where the library has
# them (feature-detected), else a NotInLibrary error.
OPTIONAL = {
    "cuspec_argreduce": (c_int, [_ctx, c_int, c_int, _ptr, c_size_t, _ptr, _ptr, _stream]),
    "cuspec_reduce_rows": (c_int, [_ctx, c_int, c_int, _ptr, POINTER(_structs.Matrix), _ptr, _ptr,
                                   _stream]),
    "cuspec_reduce_cols": (c_int, [_ctx, c_int, c_int, _ptr, POINTER(_structs.Matrix), _ptr, _ptr,
                                   _stream]),
    "cuspec_dot_rows": (c_int, [_ctx, c_int, _ptr, _ptr, POINTER(_structs.Matrix), _ptr, _stream]),
    "cuspec_dot_cols": (c_int, [_ctx, c_int, _ptr, _ptr, POINTER(_structs.Matrix), _ptr, _stream]),
}


class Functions:
    """The library's functions with their prototypes, as attributes; an
    optional one the library lacks is None."""

    def __init__(self, lib):
        for name, (restype, argtypes) in PROTOTYPES.items():
            f = getattr(lib, name)
            f.restype, f.argtypes = restype, argtypes
            setattr(self, name, f)
        for name, (restype, argtypes) in OPTIONAL.items():
            f = getattr(lib, name, None)
            if f is not None:
                f.restype, f.argtypes = restype, argtypes
            setattr(self, name, f)


lib = open_first(candidates())
C = Functions(lib)
path = file_of(C.cuspec_version)
version = C.cuspec_version().decode()
check_version(version, __version__, path)
