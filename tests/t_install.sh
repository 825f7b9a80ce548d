#!/bin/sh
# `make install DESTDIR=...` into a temporary folder, then what
# tests/installed.sh checks of an installed tree (make installcheck checks
# the one `make install` put in place).
. "$top_srcdir/tests/tap.sh"
root=$(mktemp -d)
trap 'rm -rf "$root" "$tap_out" "$tap_err"' EXIT
unset MAKEFLAGS MFLAGS
if ! $MAKE -s -C "$top_builddir" install DESTDIR="$root" >"$tap_out" 2>&1; then
    echo "1..1"
    sed 's/^/#   /' "$tap_out"
    echo "not ok 1 - make install DESTDIR=$root"
    exit 1
fi
$SHELL "$top_srcdir/tests/installed.sh" "$root"
