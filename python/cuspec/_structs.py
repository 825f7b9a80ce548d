# ctypes mirrors of the structs of src/cuspec.h that the binding passes to the
# library. tests/py_layout prints the C offsets and sizes, and a test compares
# them with these, so that a field added in C cannot silently shift memory.
import ctypes
from ctypes import c_char, c_char_p, c_double, c_int, c_size_t, c_uint, c_uint64, c_void_p

N_KINDS = 4  # CUSPEC_N_KINDS


class DeviceInfo(ctypes.Structure):
    _fields_ = [
        ("ordinal", c_int),
        ("name", c_char * 256),
        ("sm_major", c_int),
        ("sm_minor", c_int),
        ("sm_count", c_int),
        ("total_mem", c_uint64),
        ("mem_bus_width", c_int),
        ("mem_clock_khz", c_int),
        ("peak_bandwidth", c_double),
        ("l2_bytes", c_int),
        ("max_threads_per_block", c_int),
        ("max_smem_per_block", c_int),
        ("driver_version", c_int),
        ("uuid", c_char * 48),
        ("reserved", c_uint64 * 8),  # cuspec.h: "Structs that grow"
    ]


class StoreStats(ctypes.Structure):
    _fields_ = [
        ("path", c_char * 1024),
        ("system_path", c_char * 1024),
        ("writable", c_int),
        ("why_not_writable", c_char * 1536),
        ("max_bytes", c_uint64),
        ("entries", c_uint64 * N_KINDS),
        ("bytes", c_uint64 * N_KINDS),
        ("system_entries", c_uint64),
        ("leftovers", c_uint64),
        ("leftover_bytes", c_uint64),
        ("quarantined", c_uint64),
        ("hits", c_uint64),
        ("misses", c_uint64),
        ("compiles", c_uint64),
        ("publishes", c_uint64),
        ("bad_entries", c_uint64),
        ("evictions", c_uint64),
        ("write_failures", c_uint64),
        ("reserved", c_uint64 * 8),  # cuspec.h: "Structs that grow"
    ]


class LaunchInfo(ctypes.Structure):
    _fields_ = [
        ("tier", c_int),
        ("kernel", c_char * 256),
        ("fallback", c_int),
        ("wanted", c_char * 256),
        ("reserved", c_uint64 * 8),  # cuspec.h: "Structs that grow"
    ]


class Latency(ctypes.Structure):
    _fields_ = [
        ("first_call_ms", c_double),
        ("first_tier", c_int),
        ("kernel", c_char * 256),
        ("raw_launch_us", c_double),
        ("reduce_call_us", c_double),
        ("copy_call_us", c_double),
        ("reserved", c_uint64 * 8),  # cuspec.h: "Structs that grow"
    ]


class TuneSpec(ctypes.Structure):
    _fields_ = [
        ("family", c_char_p),
        ("op", c_int),
        ("dtype", c_int),
        ("n", c_size_t),
        ("rows", c_size_t),
        ("cols", c_size_t),
        ("ld_in", c_size_t),
        ("ld_out", c_size_t),
        ("reserved", c_uint64 * 8),  # cuspec.h: "Structs that grow"
    ]


class TuneProgress(ctypes.Structure):
    _fields_ = [
        ("done", c_uint),
        ("total", c_uint),
        ("best_gbs", c_double),
        ("elapsed_s", c_double),
        ("what", c_char_p),
    ]


PROGRESS_FN = ctypes.CFUNCTYPE(None, ctypes.POINTER(TuneProgress), c_void_p)


class TuneOptions(ctypes.Structure):
    _fields_ = [
        ("budget_s", c_double),
        ("max_candidates", c_int),
        ("top", c_int),
        ("reps", c_int),
        ("force", c_int),
        ("jobs", c_int),
        ("compile_timeout_s", c_double),
        ("stop", ctypes.POINTER(c_int)),
        ("progress", PROGRESS_FN),
        ("user", c_void_p),
        ("reserved", c_uint64 * 8),  # cuspec.h: "Structs that grow"
    ]


class TuneResult(ctypes.Structure):
    _fields_ = [
        ("kernel", c_char * 256),
        ("params", c_char * 160),
        ("median_us", c_double),
        ("gbs", c_double),
        ("spread", c_double),
        ("default_us", c_double),
        ("default_gbs", c_double),
        ("candidates", c_uint),
        ("timed", c_uint),
        ("reused", c_uint),
        ("failed", c_uint),
        ("stopped", c_int),
        ("reserved", c_uint64 * 8),  # cuspec.h: "Structs that grow"
    ]


class Matrix(ctypes.Structure):
    """cuspec_matrix: the shape of an axis reduction's input."""

    _fields_ = [
        ("rows", c_size_t),
        ("cols", c_size_t),
        ("ld", c_size_t),
        ("batch", c_size_t),
        ("batch_stride", c_size_t),
    ]


# The structs tests/py_layout describes, by their C names.
MIRRORED = {
    "cuspec_matrix": Matrix,
    "cuspec_device_info": DeviceInfo,
    "cuspec_store_stats": StoreStats,
    "cuspec_launch_info": LaunchInfo,
    "cuspec_latency": Latency,
    "cuspec_tune_spec": TuneSpec,
    "cuspec_tune_progress": TuneProgress,
    "cuspec_tune_options": TuneOptions,
    "cuspec_tune_result": TuneResult,
}


def text(field):
    """A char[] field as str."""
    return field.decode("utf-8", "replace")
