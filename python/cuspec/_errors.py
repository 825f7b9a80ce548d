# Exceptions by status: one class per cuspec_status, named from the library's
# own list (cuspec_status_name), each carrying cuspec_last_error's detail.
import ctypes
import warnings

from ._lib import C, path, version


class Error(RuntimeError):
    """A cuspec failure. `status` is the library's status code, `status_name`
    its enumerator ("CUSPEC_ERR_INVALID"), `detail` the library's text."""

    status = None
    status_name = None

    def __init__(self, message):
        super().__init__(message)
        self.detail = message


class NotInLibrary(Error, NotImplementedError):
    """The operation needs a function this libcuspec does not have."""


# Names people expect where the generic rule (ERR_NO_DRIVER -> NoDriverError)
# would read badly, and the built-in errors they also are.
_NAMES = {
    "CUSPEC_ERR_INVALID": ("InvalidArgument", (ValueError,)),
    "CUSPEC_ERR_NOMEM": ("HostMemoryError", (MemoryError,)),
}

# Status codes are 0 and small negative numbers; a scan past the last one
# finds any the library adds.
_LOWEST_STATUS = -255


def _class_name(status_name):
    words = status_name[len("CUSPEC_ERR_"):].split("_")
    return "".join(w.capitalize() for w in words) + "Error"


def _make_classes():
    by_status, by_name = {}, {}
    for status in range(-1, _LOWEST_STATUS - 1, -1):
        raw = C.cuspec_status_name(status)
        if raw is None:
            continue
        status_name = raw.decode()
        name, bases = _NAMES.get(status_name, (_class_name(status_name), ()))
        doc = "cuspec status %s (%d): %s." % (
            status_name, status, C.cuspec_strerror(status).decode())
        cls = type(name, (Error,) + bases, {"status": status, "status_name": status_name,
                                            "__doc__": doc, "__module__": "cuspec"})
        by_status[status] = cls
        by_name[name] = cls
    return by_status, by_name


BY_STATUS, CLASSES = _make_classes()
InvalidArgument = CLASSES["InvalidArgument"]
NoDriverError = CLASSES["NoDriverError"]
CudaError = CLASSES["CudaError"]


def from_status(status, what=None):
    """The exception for a failed call: its class by status, its message the
    library's detail (or the status's sentence when the detail is empty)."""
    detail = C.cuspec_last_error().decode("utf-8", "replace")
    if not detail:
        detail = C.cuspec_strerror(status).decode()
    if what:
        detail = "%s: %s" % (what, detail)
    return BY_STATUS.get(status, Error)(detail)


def not_in_library(function, needed_for):
    return NotInLibrary(
        "%s needs %s, which the library %s (version %s) does not have" % (
            needed_for, function, path, version))


class CuspecWarning(UserWarning):
    """A condition the library reports without failing (a store that cannot
    be written, a bad entry quarantined)."""


def _warn(message, user):
    warnings.warn(message.decode("utf-8", "replace"), CuspecWarning, stacklevel=2)


# Kept referenced: the library holds the pointer for the life of the process.
_WARNING_FN = ctypes.CFUNCTYPE(None, ctypes.c_char_p, ctypes.c_void_p)(_warn)
C.cuspec_set_warning_handler(ctypes.cast(_WARNING_FN, ctypes.c_void_p), None)
