# Which memory layouts the library can take as they are. Reductions read one
# run of memory; transposes and axis reductions read row-major matrices whose
# rows may be apart (a leading dimension) and a batch of them at a stride.
# Anything else is refused with the reason: cuspec never copies behind the
# caller's back.
from ._errors import InvalidArgument

_COPY_HINT = "pass a contiguous copy (x.contiguous() in PyTorch, cupy.ascontiguousarray in CuPy)"


def count(shape):
    n = 1
    for extent in shape:
        n *= extent
    return n


def c_strides(shape):
    """The strides (elements) of a C-contiguous array of `shape`."""
    strides, step = [], 1
    for extent in reversed(shape):
        strides.append(step)
        step *= extent
    return tuple(strides[::-1])


def _significant(v):
    # Extent-1 axes have no meaningful stride (PyTorch gives them any).
    strides = v.strides if v.strides is not None else c_strides(v.shape)
    return [(s, e) for s, e in zip(strides, v.shape) if e != 1]


def same_layout(a, b):
    """a and b (of one shape) put each element at the same offset."""
    return _significant(a) == _significant(b)


def is_contiguous(v):
    """C order, one run of memory."""
    if v.strides is None:
        return True
    step = 1
    for stride, extent in reversed(_significant(v)):
        if stride != step:
            return False
        step *= extent
    return True


def run_length(v, what, ordered):
    """The element count of a reduction's input: it must be one run of
    memory, in C order when the result depends on the order (argmin and
    argmax give C-order indices); sum, min and max take any dense layout,
    e.g. a transposed view of a contiguous matrix."""
    n = count(v.shape)
    if v.strides is None or n == 0 or is_contiguous(v):
        return n
    if not ordered:
        step = 1
        for stride, extent in sorted(_significant(v)):
            if stride != step:
                break
            step *= extent
        else:
            return n
    raise InvalidArgument("%s is not %s (shape %r, strides %r in elements): cuspec reduces one "
                          "run of memory; %s" % (what, "C-contiguous" if ordered else "dense",
                                                 v.shape, v.strides, _COPY_HINT))


def matrix(v, what):
    """(batch, rows, cols, ld, batch_stride) of a 2-D matrix or a 3-D batch
    of them, row-major with unit stride along a row."""
    nd = len(v.shape)
    if nd not in (2, 3):
        raise InvalidArgument("%s has %d dimensions: cuspec takes a matrix (2-D) or a batch of "
                              "matrices (3-D)" % (what, nd))
    shape = v.shape if nd == 3 else (1,) + tuple(v.shape)
    batch, rows, cols = shape
    if v.strides is None:
        return batch, rows, cols, cols, rows * cols if batch > 1 else 0
    strides = v.strides if nd == 3 else (0,) + tuple(v.strides)
    batch_stride, ld, unit = strides
    if cols > 1 and unit != 1:
        kind = "a transposed view" if rows > 1 and ld == 1 else "not row-major"
        raise InvalidArgument("%s is %s (strides %r in elements): cuspec reads rows with unit "
                              "stride; %s" % (what, kind, tuple(v.strides), _COPY_HINT))
    if rows == 1:
        ld = cols  # one row: its leading dimension is never used
    if ld < cols:
        raise InvalidArgument("%s's rows overlap (row stride %d < %d columns, strides %r in "
                              "elements); %s" % (what, ld, cols, tuple(v.strides), _COPY_HINT))
    if batch == 1:
        batch_stride = 0  # one matrix: its stride is never used
    elif batch_stride < 0:
        raise InvalidArgument("%s's batch stride %d is negative; %s" % (what, batch_stride,
                                                                        _COPY_HINT))
    return batch, rows, cols, ld, batch_stride
