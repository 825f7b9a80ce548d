# For scripts: the devices, the store, the last launch, and tuning.
from ctypes import byref, c_int, pointer

from . import _dtypes, _structs
from ._errors import InvalidArgument, from_status
from ._lib import C

_text = _structs.text


def _check(rc, what):
    if rc:
        raise from_status(rc, what)


def driver_version():
    """The CUDA driver's version, e.g. 13000 for 13.0."""
    v = c_int()
    _check(C.cuspec_driver_version(byref(v)), "driver_version")
    return v.value


def device_info(ordinal):
    info = _structs.DeviceInfo()
    _check(C.cuspec_device_get_info(ordinal, byref(info)), "device %d" % ordinal)
    return {
        "ordinal": info.ordinal,
        "name": _text(info.name),
        "sm": "sm_%d%d" % (info.sm_major, info.sm_minor),
        "sm_count": info.sm_count,
        "total_mem": info.total_mem,
        "mem_bus_width": info.mem_bus_width,
        "mem_clock_khz": info.mem_clock_khz,
        "peak_bandwidth": info.peak_bandwidth,
        "l2_bytes": info.l2_bytes,
        "max_threads_per_block": info.max_threads_per_block,
        "max_smem_per_block": info.max_smem_per_block,
        "driver_version": info.driver_version,
        "uuid": _text(info.uuid),
    }


def devices():
    """Each CUDA device's facts (a list of dicts; empty without devices).
    NoDriverError, with what was tried, where there is no driver."""
    count = c_int()
    _check(C.cuspec_device_count(byref(count)), "devices")
    return [device_info(i) for i in range(count.value)]


def store_stats():
    """The store's location, what it holds (entries and bytes by kind) and
    this process's counters, as a dict."""
    s = _structs.StoreStats()
    _check(C.cuspec_store_get_stats(byref(s)), "store_stats")
    kinds = {k: C.cuspec_kind_name(k).decode() for k in range(1, _structs.N_KINDS)}
    stats = {name: getattr(s, name) for name, _ in _structs.StoreStats._fields_}
    for name in ("path", "system_path", "why_not_writable"):
        stats[name] = _text(stats[name])
    stats["writable"] = bool(s.writable)
    # [0] of entries and bytes counts the bad entries.
    stats["entries"] = dict({"bad": s.entries[0]}, **{kinds[k]: s.entries[k] for k in kinds})
    stats["bytes"] = dict({"bad": s.bytes[0]}, **{kinds[k]: s.bytes[k] for k in kinds})
    return stats


def last_launch():
    """The kernel behind this thread's last successful operation: where it
    came from (tier), its name, and whether it ran as a fallback for the
    one wanted (see cuspec_last_launch)."""
    info = _structs.LaunchInfo()
    _check(C.cuspec_last_launch(byref(info)), "last_launch")
    tier = C.cuspec_tier_name(info.tier)
    return {"tier": tier.decode() if tier else None, "kernel": _text(info.kernel),
            "fallback": bool(info.fallback), "wanted": _text(info.wanted)}


_OPTIONS = ("budget_s", "max_candidates", "top", "reps", "jobs", "compile_timeout_s")


def tune_on(ctx, op, dtype, n=0, shape=None, ld_in=0, ld_out=0, *, force=False, progress=None,
            **options):
    spec = _structs.TuneSpec()
    spec.dtype = _dtypes.lookup(dtype).code
    if op == "transpose":
        if shape is None or len(shape) != 2:
            raise InvalidArgument("tune('transpose') needs shape=(rows, cols)")
        spec.family = b"transpose"
        spec.rows, spec.cols = shape
        spec.ld_in, spec.ld_out = ld_in, ld_out
    else:
        spec.family = b"reduce"
        spec.op = _dtypes.DOT if op == "dot" else _dtypes.OPS.get(op, -2)
        if spec.op == -2 or op in _dtypes.ARG_OPS:
            raise InvalidArgument("tune: unknown op %r (sum, min, max, dot or transpose)" % op)
        spec.n = n
    opts = _structs.TuneOptions()
    for name, value in options.items():
        if name not in _OPTIONS:
            raise TypeError("tune: unknown option %r (%s, force, progress)" % (
                name, ", ".join(_OPTIONS)))
        setattr(opts, name, value)
    opts.force = bool(force)
    stop = c_int(0)
    opts.stop = pointer(stop)
    failure = []
    if progress is not None:
        def each(p, user):
            # An exception (Ctrl-C included) stops the search; it is raised
            # once cuspec_tune returns.
            try:
                q = p.contents
                progress(q.done, q.total, q.best_gbs, q.elapsed_s,
                         q.what.decode() if q.what else "")
            except BaseException as e:
                failure.append(e)
                stop.value = 1
        opts.progress = _structs.PROGRESS_FN(each)
    result = _structs.TuneResult()
    rc = ctx._c.cuspec_tune(ctx._ptr, byref(spec), byref(opts), byref(result))
    if failure:
        raise failure[0]
    _check(rc, "tune")
    out = {name: getattr(result, name) for name, _ in _structs.TuneResult._fields_}
    out["kernel"], out["params"] = _text(result.kernel), _text(result.params)
    out["stopped"] = bool(result.stopped)
    return out


def tune(op, dtype, n=0, shape=None, ld_in=0, ld_out=0, *, device=0, **options):
    """Times the legal specializations of one operation at one size and
    records the fastest in the store, where later calls in that size bucket
    find it: op "sum", "min", "max" or "dot" with n elements, or
    "transpose" with shape=(rows, cols) (and leading dimensions ld_in,
    ld_out; 0: the row length). Options: budget_s, max_candidates, top,
    reps, jobs, compile_timeout_s, force, and progress(done, total,
    best_gbs, elapsed_s, what). Returns the winner and the counts (a dict
    of cuspec_tune_result's fields)."""
    from ._context import Context
    with Context(device) as ctx:
        return ctx.tune(op, dtype, n, shape, ld_in, ld_out, **options)

