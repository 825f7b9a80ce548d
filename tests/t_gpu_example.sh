#!/bin/sh
# examples/reduce_transpose, which make check compiles, runs right on a GPU.
. "$top_srcdir/tests/tap.sh"
example=$top_builddir/examples/reduce_transpose
[ -x "$example" ] || skip "the example was not built: configure found no libcuda to link"
"$CUSPEC" devices >/dev/null 2>&1 || skip "no usable CUDA driver or device"
"$example" >"$tap_out" 2>"$tap_err"
rc=$?
[ "$rc" -eq 77 ] && skip "the example found no usable GPU: $(cat "$tap_err")"
plan 3
sed 's/^/#   /' "$tap_out" "$tap_err"
ok $rc "the example exits 0"
check_grep "$tap_out" '^sum of 60000 floats: ([0-9]+)\.0 \(expected \1\.0\)$' "it prints the sum, equal to the host's"
check_grep "$tap_out" '^transpose 300x200: 0 of 60000 elements wrong$' "and a right transpose"
done_testing
