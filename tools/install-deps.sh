#!/bin/sh
# Installs what building and testing cuspec need on Debian or Ubuntu (apt),
# as root or through sudo. The CUDA toolkit is not among them: it comes from
# NVIDIA's packages (see README.md, Requirements).
set -eu
if [ "$(id -u)" -eq 0 ]; then
    as_root=
elif command -v sudo >/dev/null 2>&1; then
    as_root=sudo
else
    echo "tools/install-deps.sh: run it as root, or install sudo" >&2
    exit 1
fi
# build: compiler, autotools, pkg-config, xxHash's headers, jansson, help2man
#   (the man page); tests: cmake (the installed CMake package), clang with
#   its runtime libraries (the fuzz tests).
packages="build-essential autoconf automake libtool pkg-config binutils
libxxhash-dev libjansson-dev help2man cmake clang libclang-rt-dev"
$as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
# shellcheck disable=SC2086 # one word per package
$as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $packages
