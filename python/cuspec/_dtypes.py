# Element types and operations, read from the library: its dtype names
# ("f32", "bf16", ...) give each type's typestr and DLPack code, and
# cuspec_reduce_out_dtype which (op, dtype) pairs it takes and what they write.
import re

from ._lib import C

# DLPack type codes (dlpack.h: kDLInt, kDLUInt, kDLFloat, kDLBfloat) and the
# array interface's kind letters, by the letters of cuspec's names.
_DLPACK_CODE = {"i": 0, "u": 1, "f": 2, "bf": 4}
_TYPESTR_KIND = {"i": "i", "u": "u", "f": "f"}  # bf16 has no typestr
_FRAMEWORK_KIND = {"int": "i", "uint": "u", "float": "f", "bfloat": "bf"}


class DType:
    """One of the library's element types."""

    __slots__ = ("code", "name", "size", "typestr", "dlpack")

    def __init__(self, code, name, size):
        kind, bits = re.fullmatch(r"(bf|[fiu])(\d+)", name).groups()
        self.code, self.name, self.size = code, name, size
        letter = _TYPESTR_KIND.get(kind)
        self.typestr = None if letter is None else ("|" if size == 1 else "<") + letter + str(size)
        self.dlpack = (_DLPACK_CODE[kind], int(bits))

    def __repr__(self):
        return "cuspec.dtype(%r)" % self.name


def _read_dtypes():
    found, code = {}, 1
    while C.cuspec_dtype_name(code) is not None:  # codes run from 1 without gaps
        found[code] = DType(code, C.cuspec_dtype_name(code).decode(), C.cuspec_dtype_size(code))
        code += 1
    return found


BY_CODE = _read_dtypes()
BY_NAME = {d.name: d for d in BY_CODE.values()}
# '<f4' and '=f4' name one type on a little-endian machine, as '|i1' and '<i1'.
BY_TYPESTR = {}
for _d in BY_CODE.values():
    if _d.typestr is not None:
        for _order in "<=|":
            BY_TYPESTR[_order + _d.typestr[1:]] = _d
BY_DLPACK = {d.dlpack: d for d in BY_CODE.values()}
I64 = BY_NAME["i64"]


def from_framework_name(name):
    """The type a framework names "float32", "bfloat16", "uint8" (torch's
    str(dtype) without "torch."), or None."""
    m = re.fullmatch(r"(int|uint|float|bfloat)(\d+)", name)
    if m is None:
        return None
    kind, bits = m.groups()
    return BY_NAME.get(_FRAMEWORK_KIND[kind] + bits)


def lookup(dtype):
    """A DType from a cuspec name ("f32"), a typestr ("<f4"), a DType or a
    framework dtype (torch.float32, numpy.dtype('float32'))."""
    if isinstance(dtype, DType):
        return dtype
    text = str(dtype)
    found = BY_NAME.get(text) or BY_TYPESTR.get(text) or BY_TYPESTR.get(getattr(dtype, "str", ""))
    if found is None:
        found = from_framework_name(text.rpartition(".")[2])
    if found is None:
        raise ValueError("unknown dtype %r (cuspec's: %s)" % (dtype, ", ".join(BY_NAME)))
    return found


# Operations: the library's names (cuspec_op_name), and argmin/argmax by
# their codes in cuspec.h (CUSPEC_ARGMIN, CUSPEC_ARGMAX) where it does not
# name them yet. DOT is cuspec_reduce_out_dtype's code for cuspec_dot.
OPS = {"argmin": 3, "argmax": 4}
_code = 0
while C.cuspec_op_name(_code) is not None:
    OPS[C.cuspec_op_name(_code).decode()] = _code
    _code += 1
ARG_OPS = frozenset(("argmin", "argmax"))
DOT = -1

# (op code, dtype code) -> the DType the reduction writes, for the pairs the
# library takes; DOT for cuspec_dot.
OUT = {}
for _op in list(OPS.values()) + [DOT]:
    for _d in BY_CODE.values():
        _out = C.cuspec_reduce_out_dtype(_op, _d.code)
        if _out:
            OUT[(_op, _d.code)] = BY_CODE[_out]


def taken_by(op_code):
    """The names of the dtypes an op takes, for error messages."""
    return ", ".join(d.name for d in BY_CODE.values() if (op_code, d.code) in OUT) or "none"
