#!/bin/sh
# Every legal specialization of every family compiles for sm_80 and sm_90.
. "$top_srcdir/tests/tap.sh"
plan 4
store=$(mktemp -d)
trap 'rm -rf "$store" "$tap_out" "$tap_err"' EXIT
export CUSPEC_CACHE_DIR="$store"
for arch in sm_80 sm_90; do
    check_exit 0 "every legal specialization compiles for $arch" \
        "$CUSPEC" compile --all-variants --arch $arch --json
    sed 's/^/# /' "$tap_out"
    [ "$(sed -n 's/.*"total":\([0-9]*\).*/\1/p' "$tap_out")" -gt 1000 ]
    ok $? "the $arch space holds over 1000 specializations"
done
done_testing
