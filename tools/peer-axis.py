#!/usr/bin/env python3
"""PyTorch's side of tools/peer-axis.sh: torch.sum(x, dim) and torch.argmax(x, dim)
of f32 matrices, one result per row (dim=1, "rows") or per column (dim=0, "cols"),
timed as peer-axis.cu times cuspec and CUB: inputs rotated through a pool of at
least 256 MB, calls captured in a CUDA graph, device time per call. Writes lines
"SHAPE AXIS OP US" to stdout; without torch or a GPU it writes nothing."""
import sys

try:
    import torch
except ImportError:
    sys.exit(0)
if not torch.cuda.is_available():
    sys.exit(0)

POOL_BYTES = 256 << 20
shapes = sys.argv[1] if len(sys.argv) > 1 else "8192x8192,4096x4096,65536x1024,1048576x32,32x1048576"


def graph_us(fn, pool, calls, reps=3):
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):  # warm-up outside the graph (allocator, kernels)
        for i in range(3):
            fn(pool[i % len(pool)])
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for i in range(calls):
            fn(pool[i % len(pool)])
    g.replay()
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    for _ in range(reps):
        g.replay()
    b.record()
    b.synchronize()
    return a.elapsed_time(b) * 1e3 / (calls * reps)


for shape in shapes.split(","):
    rows, cols = (int(x) for x in shape.split("x"))
    bytes_ = rows * cols * 4
    n = max(2, -(-POOL_BYTES // bytes_))
    pool = [torch.rand(rows, cols, device="cuda") * 2 - 1 for _ in range(n)]
    calls = max(20, n)
    for axis, dim in (("rows", 1), ("cols", 0)):
        for op, fn in (("sum", lambda x, d=dim: torch.sum(x, d)),
                       ("argmax", lambda x, d=dim: torch.argmax(x, d))):
            print(f"{shape} {axis} {op} {graph_us(fn, pool, calls):.3f}", flush=True)
    del pool
    torch.cuda.empty_cache()
