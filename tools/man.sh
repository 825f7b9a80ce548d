#!/bin/sh
# Writes the man page cuspec(1) from the help texts: help2man reads
# `cuspec --help` and `--version`, and each command's help (`cuspec help
# COMMAND`) becomes a subsection of COMMANDS, as printed.
# Usage: tools/man.sh HELP2MAN CUSPEC OUTPUT
set -eu
help2man=$1 cuspec=$2 out=$3
include=$out.h2m
{
    echo '[COMMANDS]'
    "$cuspec" --help | sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p' |
        grep -vx help | while read -r command; do
            echo ".SS $command"
            echo '.nf'
            # roff: a backslash is \e, a line starting with . or ' is escaped
            "$cuspec" help "$command" | sed "s/\\\\/\\\\e/g; s/^\\([.']\\)/\\\\\\&\\1/"
            echo '.fi'
        done
    echo '[FILES]'
    echo "\$HOME/.cache/cuspec (or \$XDG_CACHE_HOME/cuspec, or \$CUSPEC_CACHE_DIR): the store of"
    echo "compiled kernels and tuning records; the system store, read-only, under the"
    echo "package's data folder (\$CUSPEC_SYSTEM_STORE)."
    echo '[SEE ALSO]'
    echo "The README of the package (installed in its documentation folder) documents the"
    echo "library, cuspec.h, and deployment."
} >"$include"
# shellcheck disable=SC2086 # HELP2MAN may be a command with arguments (missing)
$help2man --no-info --no-discard-stderr --section=1 \
    --name='JIT-specialized, autotuned CUDA reductions and transposes' \
    --include="$include" --output="$out.tmp" "$cuspec"
rm -f "$include"
mv "$out.tmp" "$out"
