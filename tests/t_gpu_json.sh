#!/bin/sh
# GPU: the --json output of the commands that need a GPU (devices, bench,
# run, tune, tune --list) is JSON Lines a JSON parser reads; t_json.sh
# checks the others.
. "$top_srcdir/tests/tap.sh"
check=$top_builddir/tests/jsonl_check
[ -x "$check" ] || skip "tests/jsonl_check was not built"
"$CUSPEC" devices >/dev/null 2>&1 || skip "no usable CUDA driver or device"
plan 23
tmp=$(mktemp -d)
trap 'rm -rf "$tmp" "$tap_out" "$tap_err"' EXIT
export CUSPEC_CACHE_DIR="$tmp/store"

# json NAME LINES CMD...: CMD exits 0 and prints LINES lines of JSON Lines.
json() {
    name=$1 lines=$2
    shift 2
    check_exit 0 "$name exits 0" "$@"
    "$check" <"$tap_out" 2>"$tmp/why"
    rc=$?
    n=$(wc -l <"$tap_out")
    [ "$n" -eq "$lines" ] || rc=1
    [ $rc -eq 0 ] || { sed 's/^/#   /' "$tmp/why" "$tap_out" | head -8; echo "#   $n lines"; }
    ok $rc "$name: $lines lines of JSON"
}
json "devices --json" 1 "$CUSPEC" devices --json
json "bench reduce --json" 3 "$CUSPEC" bench reduce --op sum,max --dtype f32 --n 2^16 --reps 3 --json
json "bench transpose --json" 2 "$CUSPEC" bench transpose --dtype f32 --shape 256x256 --reps 3 --json
json "bench latency --json" 1 "$CUSPEC" bench latency --json
json "run reduce --json" 1 "$CUSPEC" run reduce --n 2^16 --json
json "tune --json" 3 "$CUSPEC" tune reduce --op sum --dtype f32 --n 2^12 --max-candidates 4 --reps 3 --json
json "tune reduce_rows --json" 4 "$CUSPEC" tune reduce_rows --op sum,max --dtype f32 \
    --shape 64x64 --max-candidates 4 --reps 3 --json
grep -q '"op":"sum","rows":64,"cols":64' "$tap_out" &&
    grep -q '"op":"max","rows":64,"cols":64' "$tap_out"
ok $? "and names each op"
json "tune --list --json" 1 "$CUSPEC" tune --list --json
n=$("$check" records <"$tap_out")
[ "$n" -eq 3 ]
ok $? "tune --list --json has the records made ($n)"
json "tune transpose --json" 3 "$CUSPEC" tune transpose --dtype f32 --shape 64x64 \
    --max-candidates 4 --reps 3 --json
grep -q '"family":"transpose","dtype":"f32","op":null,"rows":64,"cols":64' "$tap_out"
ok $? "and gives the transpose no op (null)"
check_exit 0 "tune --quiet prints nothing" \
    "$CUSPEC" tune reduce --op sum --dtype f32 --n 2^12 --max-candidates 4 --reps 3 --quiet
[ ! -s "$tap_out" ] && [ ! -s "$tap_err" ]
ok $? "on stdout or stderr"
done_testing
