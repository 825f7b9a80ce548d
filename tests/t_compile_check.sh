#!/bin/sh
# cuspec compile --check: which tier serves each specialization a call can
# choose without a record, with NVRTC absent: shipped PTX in an empty store,
# the user store, an older minor arch's cubin, the system store; what none
# serves is named and exits 1; usage errors.
. "$top_srcdir/tests/tap.sh"
plan 18
store=$(mktemp -d)
trap 'rm -rf "$store" "$tap_out" "$tap_err"' EXIT
export CUSPEC_CACHE_DIR="$store/user" CUSPEC_SYSTEM_STORE="$store/none" CUSPEC_LIBNVRTC=/nonexistent

check_exit 0 "an empty store: every default is served by the shipped PTX" \
    "$CUSPEC" compile --check --arch sm_90
check_grep "$tap_out" '^sm_90: [0-9]* specializations without NVRTC: 0 from the user store, 0 from the system store, [0-9]* from shipped PTX, 0 missing$' "and the summary says so"
total=$(sed -n 's/^sm_90: \([0-9]*\) .*/\1/p' "$tap_out")
check_grep "$tap_out" " $total from shipped PTX" "all $total of them"

check_exit 1 "sm_70, older than the PTX's compute_75: nothing serves it" \
    "$CUSPEC" compile --check --arch sm_70 --family copy
check_grep "$tap_out" '^  missing: cuspec_copy<uint4, 256, 4>$' "and the missing kernel is named"
check_grep "$tap_out" ' 1 missing$' "and counted"

# What NVRTC compiled for sm_80 serves sm_80 and, as cubins run on later
# minor versions of their major, sm_86; not sm_90.
CUSPEC_LIBNVRTC= check_exit 0 "compile the defaults for sm_80" "$CUSPEC" compile --arch sm_80
check_exit 0 "check sm_80" "$CUSPEC" compile --check --arch sm_80 --arch sm_86 --arch sm_90 --json
for arch in 80 86; do
    check_grep "$tap_out" "^{\"arch\":\"sm_$arch\",\"family\":\"all\",\"total\":$total,\"store\":$total,\"system\":0,\"ptx\":0,\"missing\":0," \
        "sm_$arch is served by the user store"
done
check_grep "$tap_out" "\"arch\":\"sm_86\".*\"tier\":\"store\",\"cubin\":\"sm_80\"" "sm_86 by sm_80's cubins"
check_grep "$tap_out" "^{\"arch\":\"sm_90\",.*\"store\":0,\"system\":0,\"ptx\":$total,\"missing\":0," \
    "sm_90 still by the PTX"

# The same folder as the system store, behind an empty user store.
CUSPEC_SYSTEM_STORE="$store/user" CUSPEC_CACHE_DIR="$store/empty" check_exit 0 \
    "a system store" "$CUSPEC" compile --check --arch sm_86
check_grep "$tap_out" " 0 from the user store, $total from the system store, 0 from shipped PTX, 0 missing" \
    "serves every specialization from the system store"

# A damaged entry is no coverage: the check reads what a call would load.
entry=$(find "$store/user/v2" -name '*.entry' | head -1)
printf 'garbage' | dd of="$entry" bs=1 seek=100 conv=notrunc 2>/dev/null
check_exit 0 "a damaged entry" "$CUSPEC" compile --check --arch sm_80
check_grep "$tap_out" " $((total - 1)) from the user store, 0 from the system store, 1 from shipped PTX, 0 missing" \
    "is not counted: the PTX serves that one"

check_exit 2 "--check compiles nothing: no --all-variants" "$CUSPEC" compile --check --all-variants --arch sm_90
check_exit 2 "nor --jobs" "$CUSPEC" compile --check --jobs 2 --arch sm_90
done_testing
