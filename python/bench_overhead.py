"""The host time a cuspec call costs from Python, against the same call from C.

    python3 python/bench_overhead.py [--device N] [--limit US]

Each row times one way of enqueueing a 256-element f32 sum (a transpose of
64 x 64 for the last rows) as cuspec_bench_latency times its C calls:
batches of 200 calls on one stream, the device synchronized between batches,
the median over 25 batches. The first row is cuspec_bench_latency's own
reduce_call_us (the C call from C), the second the C function called through
ctypes with every argument ready; the rest go through cuspec.Context with
each kind of argument. The overhead is each row less the first. Exits 1 when
the overhead of ctx.reduce(tensor, out=tensor) on PyTorch's current stream
passes --limit (5 us). Rows for PyTorch and CuPy need them installed.
"""
import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import cuspec  # noqa: E402

BATCH, BATCHES = 200, 25
KEY_ROW = "ctx.reduce(torch, out=torch)"


def enqueue_us(call, synchronize):
    times = []
    for _ in range(BATCHES):
        t0 = time.perf_counter()
        for _ in range(BATCH):
            call()
        times.append((time.perf_counter() - t0) / BATCH * 1e6)
        synchronize()
    return statistics.median(times)


def rows(ctx):
    """(name, call) of each way measured."""
    f32 = cuspec.dtype("f32")
    x = cuspec.DeviceArray(ctx._dev, (256,), f32, 0)
    o = cuspec.DeviceArray(ctx._dev, (), f32, 0)
    reduce_c = cuspec._lib.C.cuspec_reduce
    ptr, sum_ = ctx._ptr, cuspec._dtypes.OPS["sum"]
    yield "ctypes: cuspec_reduce, arguments ready", lambda: reduce_c(ptr, sum_, f32.code, x.ptr,
                                                                     256, o.ptr, None)
    yield "ctx.reduce(DeviceArray, out=DeviceArray, stream=0)", lambda: ctx.reduce(
        x, out=o, stream=0)
    yield "ctx.reduce(DeviceArray) -> new DeviceArray", lambda: ctx.reduce(x)
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None:
        tx = torch.rand(256, device="cuda:%d" % ctx.device)
        to = torch.empty((), device=tx.device)
        tm = torch.rand(64, 64, device=tx.device)
        tmo = torch.empty(64, 64, device=tx.device)
        yield KEY_ROW, lambda: ctx.reduce(tx, out=to)
        yield "ctx.reduce(torch) -> new DeviceArray", lambda: ctx.reduce(tx)
        yield "ctx.transpose(torch 64x64, out=torch)", lambda: ctx.transpose(tm, out=tmo)
    try:
        import cupy
    except ImportError:
        cupy = None
    if cupy is not None:
        with cupy.cuda.Device(ctx.device):
            cx = cupy.random.rand(256, dtype=cupy.float32)
            co = cupy.empty((), dtype=cupy.float32)
        yield "ctx.reduce(cupy, out=cupy)", lambda: ctx.reduce(cx, out=co)


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--device", type=int, default=0)
    p.add_argument("--limit", type=float, default=5.0, help="overhead limit in us (default 5)")
    args = p.parse_args(argv)
    with cuspec.Context(args.device) as ctx:
        c_us = ctx.bench_latency()["reduce_call_us"]
        print("%-52s %8s %9s" % ("call (host time to enqueue)", "us", "overhead"))
        print("%-52s %8.2f %9s" % ("C: cuspec_reduce (cuspec_bench_latency)", c_us, "-"))
        measured = {}
        for name, call in rows(ctx):
            call()  # loads the kernel, makes the first output
            us = enqueue_us(call, ctx._dev.synchronize)
            measured[name] = us
            print("%-52s %8.2f %+9.2f" % (name, us, us - c_us))
    if KEY_ROW not in measured:
        print("no PyTorch: the limit is checked on %r only" % KEY_ROW)
        return 0
    overhead = measured[KEY_ROW] - c_us
    verdict = "within" if overhead <= args.limit else "over"
    print("%s: %.2f us over C, %s the %.1f us limit" % (KEY_ROW, overhead, verdict, args.limit))
    return 0 if overhead <= args.limit else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
