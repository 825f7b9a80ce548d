#!/bin/sh
# The library's interface (version-info, exported symbols, public structs'
# sizes and members) is the one src/cuspec.abi records, and the version
# macros of cuspec.h are configure's version.
. "$top_srcdir/tests/tap.sh"
command -v nm >/dev/null || skip "nm (binutils) is needed"
[ -f "$LIBCUSPEC" ] || skip "no shared library was built (--disable-shared)"
plan 6

abi() { $SHELL "$top_srcdir/tools/abi-list.sh" "$@"; }
check_exit 0 "the interface is the one src/cuspec.abi records" \
    abi check "$top_srcdir/src/cuspec.abi" "$CUSPEC_LT_VERSION" "$LIBCUSPEC" "$top_srcdir/src/cuspec.h" "$CC"
[ -s "$tap_out" ] && sed 's/^/#   /' "$tap_out"

# A list whose interface lacks a symbol and whose struct is smaller, under
# the same version-info: the check must ask for the bump that a removal
# needs (a new soname), and update must refuse to write it.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp" "$tap_out" "$tap_err"' EXIT
abi print /dev/null "$CUSPEC_LT_VERSION" "$LIBCUSPEC" "$top_srcdir/src/cuspec.h" "$CC" |
    sed '/^symbol cuspec_version$/d; s/^symbol cuspec_strerror$/symbol cuspec_gone/;
         s/^\(struct cuspec_launch_info\) .*/\1 8/' >"$tmp/list"
IFS=: read -r c _ a <<END
$CUSPEC_LT_VERSION
END
abi update "$tmp/list" "$CUSPEC_LT_VERSION" "$LIBCUSPEC" "$top_srcdir/src/cuspec.h" "$CC" >"$tap_out"
grep -q "Set CUSPEC_LT_VERSION in configure.ac to $((c + 1)):0:0 (from $CUSPEC_LT_VERSION)" "$tap_out" &&
    grep -q 'symbol cuspec_gone' "$tap_out" && grep -q "run 'make abi-list'" "$tap_out" &&
    grep -q 'cuspec_gone' "$tmp/list"
ok $? "a removed symbol and a changed struct under the old version-info are refused, asking for $((c + 1)):0:0"
abi update "$tmp/list" "$((c + 1)):0:$((a + 1))" "$LIBCUSPEC" "$top_srcdir/src/cuspec.h" "$CC" >"$tap_out"
[ $? -ne 0 ] && grep -q "to $((c + 1)):0:0" "$tap_out"
ok $? "an addition's bump ($((c + 1)):0:$((a + 1))) does not cover a removal"

# A list from before a symbol was added and a field was taken from a
# struct's reserved space (the same size): an addition, current + 1 and
# age + 1, which update records.
abi print /dev/null "$CUSPEC_LT_VERSION" "$LIBCUSPEC" "$top_srcdir/src/cuspec.h" "$CC" |
    sed '/^symbol cuspec_version$/d; /^member cuspec_launch_info char wanted\[256\]$/d;
         s/^\(member cuspec_launch_info uint64_t reserved\)\[8\]$/\1[40]/' >"$tmp/list"
abi update "$tmp/list" "$CUSPEC_LT_VERSION" "$LIBCUSPEC" "$top_srcdir/src/cuspec.h" "$CC" >"$tap_out"
grep -q "to $((c + 1)):0:$((a + 1)) (from $CUSPEC_LT_VERSION)" "$tap_out"
ok $? "an added symbol and a field taken from reserved space ask for $((c + 1)):0:$((a + 1))"
abi update "$tmp/list" "$((c + 1)):0:$((a + 1))" "$LIBCUSPEC" "$top_srcdir/src/cuspec.h" "$CC" >"$tap_out" &&
    grep -q "^version-info $((c + 1)):0:$((a + 1))$" "$tmp/list" && grep -q '^symbol cuspec_version$' "$tmp/list"
ok $? "which update then records"

# CUSPEC_VERSION_* of the header, as a client sees them, against cuspec_version().
cat >"$tmp/v.c" <<'END'
#include <cuspec.h>
#include <stdio.h>
#include <string.h>
int main(void)
{
    char header[32];
    snprintf(header, sizeof header, "%d.%d.%d", CUSPEC_VERSION_MAJOR, CUSPEC_VERSION_MINOR,
             CUSPEC_VERSION_PATCH);
    printf("%s %d %s\n", header, CUSPEC_VERSION_NUMBER, cuspec_version());
    return strcmp(header, cuspec_version()) != 0 ||
           CUSPEC_VERSION_NUMBER != (CUSPEC_VERSION_MAJOR * 10000 + CUSPEC_VERSION_MINOR * 100 +
                                     CUSPEC_VERSION_PATCH);
}
END
$CC -I"$top_srcdir/src" -o "$tmp/v" "$tmp/v.c" "$LIBCUSPEC" -Wl,-rpath,"$(dirname "$LIBCUSPEC")" 2>"$tap_err" &&
    "$tmp/v" >"$tap_out"
rc=$?
sed 's/^/#   /' "$tap_out" "$tap_err"
ok $rc "cuspec.h's CUSPEC_VERSION_* and CUSPEC_VERSION_NUMBER are the library's version"
done_testing
