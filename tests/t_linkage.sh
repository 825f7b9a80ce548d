#!/bin/sh
# The library and the CLI do not link libcuda or NVRTC (both are opened at
# run time), and the library exports only cuspec_* symbols.
. "$top_srcdir/tests/tap.sh"
command -v readelf >/dev/null && command -v nm >/dev/null || skip "readelf and nm (binutils) are needed"
[ -f "$LIBCUSPEC" ] || skip "no shared library was built (--disable-shared)"
plan 5

# The CLI may be a libtool wrapper script; the real binary is in .libs/.
cli=$(dirname "$CUSPEC")/.libs/$(basename "$CUSPEC")
[ -f "$cli" ] || cli=$CUSPEC

readelf -d "$LIBCUSPEC" | grep NEEDED >"$tap_out"
! grep -Eq 'libcuda|libnvrtc' "$tap_out"
ok $? "libcuspec.so has no NEEDED libcuda or libnvrtc"
readelf -d "$cli" | grep NEEDED >"$tap_out"
! grep -Eq 'libcuda|libnvrtc' "$tap_out"
ok $? "cuspec has no NEEDED libcuda or libnvrtc"

nm -D --defined-only "$LIBCUSPEC" | awk '{print $NF}' >"$tap_out"
grep -q '^cuspec_device_count$' "$tap_out"
ok $? "cuspec_device_count is exported"
grep -q '^cuspec_parse_size$' "$tap_out"
ok $? "cuspec_parse_size, which the CLI reads its sizes with, is exported"
grep -v '^cuspec_' "$tap_out" >"$tap_err"
[ ! -s "$tap_err" ] || sed 's/^/#   unexpected export: /' "$tap_err"
[ ! -s "$tap_err" ]
ok $? "only cuspec_* symbols are exported"
done_testing
