#!/bin/sh
# bench-latency.sh [CUSPEC]: first-call latency cold (empty store: NVRTC
# compile, publish, load, launch) and warm (a new process hitting the store),
# then the hot dispatch overhead, on GPU 0. The driver's own JIT cache is off
# so nothing is served from outside cuspec.
set -eu
cuspec=${1:-./src/cuspec}
store=$(mktemp -d)
trap 'rm -rf "$store"' EXIT
export CUSPEC_CACHE_DIR="$store" CUDA_CACHE_DISABLE=1
echo "== cold: empty store"
"$cuspec" bench latency
echo "== warm: new process, store filled"
"$cuspec" bench latency
echo "== without NVRTC, empty store: shipped PTX"
rm -rf "${store:?}"/*
CUSPEC_LIBNVRTC=/nonexistent "$cuspec" bench latency
