#!/bin/sh
# peer-axis.sh [SHAPES]: reductions along an axis, cuspec against CUB's
# segmented reduce and (where it is installed) PyTorch, on GPU 0, timed the
# same way (tools/peer-axis.cu says how). Run from a built tree on a machine
# with nvcc: SHAPES as "8192x8192,1048576x32" (default the issue's five).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
shapes=${1:-8192x8192,4096x4096,65536x1024,1048576x32,32x1048576}
nvcc=${NVCC:-nvcc}
command -v "$nvcc" >/dev/null || nvcc=/usr/local/cuda/bin/nvcc
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$nvcc" -O2 -std=c++17 --extended-lambda -arch=native -I"$top/src" -o "$work/peer-axis" \
    "$top/tools/peer-axis.cu" -L"$top/src/.libs" -lcuspec -Xlinker -rpath="$top/src/.libs"
python3 "$top/tools/peer-axis.py" "$shapes" >"$work/torch.txt" || : >"$work/torch.txt"
[ -s "$work/torch.txt" ] || echo "(no PyTorch with CUDA here: CUB alone as the peer)"
"$work/peer-axis" --shapes "$shapes" --torch "$work/torch.txt"
