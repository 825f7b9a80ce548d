"""cuspec from Python: JIT-specialized, autotuned CUDA reductions and
transposes on PyTorch tensors, CuPy arrays and any CUDA array, through
ctypes over libcuspec.

    import cuspec, torch
    x = torch.rand(1 << 20, device="cuda")
    with cuspec.Context() as ctx:
        total = torch.from_dlpack(ctx.reduce(x, op="sum"))
        xt = torch.from_dlpack(ctx.transpose(x.view(1024, 1024)))

The library is found through $CUSPEC_LIBRARY (alone when set), else the
dynamic linker's search for libcuspec.so.2, else the build tree when the
package runs from a checkout. Failures raise cuspec.Error subclasses, one per
library status (cuspec.InvalidArgument, cuspec.NoDriverError, ...), with the
library's detail text.
"""
from ._lib import LibraryNotFound, VersionMismatch
from ._lib import path as library_path
from ._lib import version as library_version
from ._version import __version__
from ._errors import CLASSES as _CLASSES
from ._errors import CuspecWarning, Error, NotInLibrary
from ._dtypes import lookup as dtype
from ._memory import DeviceArray
from ._context import Context
from ._tools import devices, driver_version, last_launch, store_stats, tune

globals().update(_CLASSES)

__all__ = [
    "Context", "DeviceArray", "Error", "NotInLibrary", "CuspecWarning", "LibraryNotFound",
    "VersionMismatch", "devices", "driver_version", "dtype", "last_launch", "library_path",
    "library_version", "store_stats", "tune", "__version__",
] + sorted(_CLASSES)
