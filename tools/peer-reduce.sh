#!/bin/sh
# peer-reduce.sh [ARGS...]: builds tools/peer-reduce.cu with nvcc against the
# library `make` built (src/.libs/libcuspec.so, src/cuspec.h) and CUB from the
# CUDA toolkit, then runs it with ARGS (see the top of peer-reduce.cu): cuspec
# and CUB's DeviceReduce timed the same way on the same inputs, on GPU 0.
# NVCC (default: nvcc on PATH, else /usr/local/cuda/bin/nvcc) and NVCC_ARCH
# (default: native, the GPU here) choose the compiler and the target.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
lib="$top/src/.libs"
[ -e "$lib/libcuspec.so" ] || { echo "peer-reduce.sh: no $lib/libcuspec.so: run make first" >&2; exit 1; }
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
"$nvcc" -O2 -std=c++17 -arch="${NVCC_ARCH:-native}" -I"$top/src" -o "$bin/peer-reduce" \
    "$top/tools/peer-reduce.cu" -L"$lib" -lcuspec -Xlinker -rpath="$lib" \
    -Xlinker --allow-shlib-undefined
"$bin/peer-reduce" "$@"
