# DLPack through ctypes: reading the DLManagedTensor of a producer's capsule,
# and making capsules of cuspec's own arrays (dlpack.h's legacy, unversioned
# layout, which every consumer takes).
import ctypes
from ctypes import POINTER, c_char_p, c_int, c_int32, c_int64, c_uint8, c_uint16, c_uint64, c_void_p

from . import _dtypes
from ._errors import InvalidArgument

CUDA, CUDA_MANAGED = 2, 13  # kDLCUDA, kDLCUDAManaged: memory kernels can read


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", c_int32), ("device_id", c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", c_uint8), ("bits", c_uint8), ("lanes", c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", c_void_p),
        ("device", DLDevice),
        ("ndim", c_int32),
        ("dtype", DLDataType),
        ("shape", POINTER(c_int64)),
        ("strides", POINTER(c_int64)),  # elements; NULL: compact row-major
        ("byte_offset", c_uint64),
    ]


DELETER = ctypes.CFUNCTYPE(None, c_void_p)


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", c_void_p), ("deleter", DELETER)]


NAME = b"dltensor"
USED_NAME = b"used_dltensor"  # what a consumer renames a capsule it took to

_api = ctypes.pythonapi
# The capsule as an object (a producer's) and as a raw PyObject * (in the
# destructor, where the capsule is being freed and must not be referenced).
_get_pointer = ctypes.PYFUNCTYPE(c_void_p, ctypes.py_object, c_char_p)(("PyCapsule_GetPointer", _api))
_get_pointer_raw = ctypes.PYFUNCTYPE(c_void_p, c_void_p, c_char_p)(("PyCapsule_GetPointer", _api))
_is_valid = ctypes.PYFUNCTYPE(c_int, ctypes.py_object, c_char_p)(("PyCapsule_IsValid", _api))
_is_valid_raw = ctypes.PYFUNCTYPE(c_int, c_void_p, c_char_p)(("PyCapsule_IsValid", _api))
_capsule_new = ctypes.PYFUNCTYPE(ctypes.py_object, c_void_p, c_char_p, c_void_p)(
    ("PyCapsule_New", _api))


def parse(capsule, what):
    """(pointer, shape, strides in elements or None, DType, device ordinal)
    of a producer's "dltensor" capsule, which stays the producer's."""
    if not _is_valid(capsule, NAME):
        raise InvalidArgument("%s's __dlpack__ did not return a %r capsule" % (what, NAME.decode()))
    t = ctypes.cast(_get_pointer(capsule, NAME), POINTER(DLManagedTensor)).contents.dl_tensor
    if t.device.device_type not in (CUDA, CUDA_MANAGED):
        raise InvalidArgument("%s is not in CUDA device memory (DLPack device type %d)" % (
            what, t.device.device_type))
    dt = t.dtype
    dtype = _dtypes.BY_DLPACK.get((dt.code, dt.bits))
    if dtype is None or dt.lanes != 1:
        raise InvalidArgument("%s has DLPack dtype (code %d, %d bits, %d lanes), which cuspec "
                              "does not take (%s)" % (what, dt.code, dt.bits, dt.lanes,
                                                     ", ".join(_dtypes.BY_NAME)))
    shape = tuple(t.shape[i] for i in range(t.ndim))
    strides = tuple(t.strides[i] for i in range(t.ndim)) if t.strides else None
    return (t.data or 0) + t.byte_offset, shape, strides, dtype, t.device.device_id


# Exported tensors alive in a consumer's hands: address -> what must live
# until its deleter runs (the struct, its shape and strides, the array).
_live = {}


def _delete(address):
    _live.pop(address, None)


def _destroy_capsule(capsule):
    # A capsule nobody consumed still holds its tensor: let it go.
    if _is_valid_raw(capsule, NAME):
        _delete(_get_pointer_raw(capsule, NAME))


_DELETER = DELETER(_delete)
_DESTRUCTOR = ctypes.CFUNCTYPE(None, c_void_p)(_destroy_capsule)
_DESTRUCTOR_ADDRESS = ctypes.cast(_DESTRUCTOR, c_void_p).value


def make_capsule(pointer, shape, strides, dtype, device, owner):
    """A "dltensor" capsule of CUDA memory at `pointer` on device ordinal
    `device` (strides in elements), which keeps `owner` alive until the
    consumer's deleter call or, if none consumes it, the capsule's end."""
    m = DLManagedTensor()
    ndim = len(shape)
    shape_array = (c_int64 * ndim)(*shape)
    strides_array = (c_int64 * ndim)(*strides)
    t = m.dl_tensor
    t.data = pointer or None
    t.device = DLDevice(CUDA, device)
    t.ndim = ndim
    t.dtype = DLDataType(dtype.dlpack[0], dtype.dlpack[1], 1)
    t.shape = ctypes.cast(shape_array, POINTER(c_int64))
    t.strides = ctypes.cast(strides_array, POINTER(c_int64))
    t.byte_offset = 0
    m.deleter = _DELETER
    address = ctypes.addressof(m)
    _live[address] = (m, shape_array, strides_array, owner)
    return _capsule_new(address, NAME, _DESTRUCTOR_ADDRESS)
