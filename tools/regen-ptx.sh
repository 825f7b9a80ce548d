#!/bin/sh
# regen-ptx.sh NVCC PTX_LIST SRCDIR
# Remakes ptx/: one PTX file per default specialization (as PTX_LIST prints
# them), compiled offline by nvcc for the baseline virtual arch compute_75,
# each headed by its name expression and the hash of the code it came from
# (its template's and its headers', comments aside: a CPU test fails when
# that code changes and this was not re-run). A file whose name, hash and
# nvcc release are already current is kept; a file no default names is
# removed.
set -eu
nvcc=$1 list=$2 srcdir=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$srcdir/ptx"
release=$("$nvcc" --version | grep '^Cuda compilation tools')
"$list" | sort -u | while IFS="$(printf '\t')" read -r template name hash; do
    file=$(printf '%s' "$name" | sed 's/unsigned /u/g; s/long long/ll/g; s/[^A-Za-z0-9]\{1,\}/-/g; s/-$//')
    out=$srcdir/ptx/$file.ptx
    echo "$file.ptx" >>"$tmp/wanted"
    {
        echo "// cuspec shipped PTX, made by tools/regen-ptx.sh with nvcc; do not edit."
        echo "// name: $name"
        echo "// template-hash: $hash"
    } >"$tmp/head"
    if [ -f "$out" ] && head -n 3 "$out" | cmp -s - "$tmp/head" &&
        grep -qxF "// $release" "$out"; then
        continue
    fi
    # Taking the kernel's address in host code makes nvcc instantiate it.
    printf '#include "%s/templates/%s"\nvoid *cuspec_instance = (void *)&%s;\n' \
        "$(cd "$srcdir" && pwd)" "$template" "$name" >"$tmp/k.cu"
    "$nvcc" -ptx -arch=compute_75 -std=c++17 -o "$tmp/k.ptx" "$tmp/k.cu"
    cat "$tmp/head" "$tmp/k.ptx" >"$out"
    echo "ptx/$file.ptx"
done
for f in "$srcdir"/ptx/*.ptx; do
    [ -e "$f" ] || continue
    grep -qxF "$(basename "$f")" "$tmp/wanted" || { rm -f "$f" && echo "removed ${f#"$srcdir"/}"; }
done
