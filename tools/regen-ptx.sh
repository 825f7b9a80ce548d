#!/bin/sh
# regen-ptx.sh NVCC PTX_LIST SRCDIR
# Remakes ptx/: one PTX file per default specialization (as PTX_LIST prints
# them), compiled offline by nvcc for the baseline virtual arch compute_75,
# each headed by its name expression and the hash of the code it came from
# (its template's and its headers', comments aside: a CPU test fails when
# that code changes and this was not re-run).
set -eu
nvcc=$1 list=$2 srcdir=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rm -f "$srcdir"/ptx/*.ptx
mkdir -p "$srcdir/ptx"
"$list" | sort -u | while IFS="$(printf '\t')" read -r template name hash; do
    file=$(printf '%s' "$name" | sed 's/unsigned /u/g; s/long long/ll/g; s/[^A-Za-z0-9]\{1,\}/-/g; s/-$//')
    # Taking the kernel's address in host code makes nvcc instantiate it.
    printf '#include "%s/templates/%s"\nvoid *cuspec_instance = (void *)&%s;\n' \
        "$(cd "$srcdir" && pwd)" "$template" "$name" >"$tmp/k.cu"
    "$nvcc" -ptx -arch=compute_75 -std=c++17 -o "$tmp/k.ptx" "$tmp/k.cu"
    {
        echo "// cuspec shipped PTX, made by tools/regen-ptx.sh with nvcc; do not edit."
        echo "// name: $name"
        echo "// template-hash: $hash"
        cat "$tmp/k.ptx"
    } >"$srcdir/ptx/$file.ptx"
    echo "ptx/$file.ptx"
done
