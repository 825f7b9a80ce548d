#!/bin/sh
# --json output, of every command that has it and runs without a GPU, is
# JSON Lines that a JSON parser reads (jansson, which refuses bytes that are
# not UTF-8), with lists as arrays, [] when empty, also when a path is not
# UTF-8.
. "$top_srcdir/tests/tap.sh"
check=$top_builddir/tests/jsonl_check
[ -x "$check" ] || skip "tests/jsonl_check was not built"
plan 27

tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp"; rm -rf "$tmp" "$tap_out" "$tap_err"' EXIT
# A store whose path holds a byte that is no UTF-8 (\377).
export CUSPEC_CACHE_DIR="$tmp/$(printf 'store-\377')"
export CUSPEC_SYSTEM_STORE="$tmp/none" CUSPEC_LIBCUDA=/nonexistent/libcuda.so.1

# json NAME KEY COUNT CMD...: CMD exits 0 and prints JSON Lines; with KEY,
# the array KEY of its first object holds COUNT elements.
json() {
    name=$1 key=$2 count=$3
    shift 3
    check_exit 0 "$name exits 0" "$@"
    got=$("$check" $key <"$tap_out" 2>"$tmp/why")
    rc=$?
    [ -z "$key" ] || [ "$got" = "$count" ] || rc=1
    [ $rc -eq 0 ] || { sed 's/^/#   /' "$tmp/why" "$tap_out" | head -5; echo "#   got '$got'"; }
    ok $rc "$name: JSON Lines${key:+, $key holding $count}"
}
json "cache ls --json of an empty store" entries 0 "$CUSPEC" cache ls --json
json "cache stats --json, the path not UTF-8" "" "" "$CUSPEC" cache stats --json
check_grep "$tap_out" '"path":"[^"]*store-\?"' "the path's byte shows as '?'"
json "cache verify --json" bad 0 "$CUSPEC" cache verify --json
json "cache clear --json" "" "" "$CUSPEC" cache clear --json
json "cache prune --json" "" "" "$CUSPEC" cache prune --json
json "tune --list --all-devices --json with no records" records 0 \
    "$CUSPEC" tune --list --all-devices --json
check_grep "$tap_out" '^\{"records":\[\]\}$' "an empty list is []"
json "tune --export --all-devices --json to a path not UTF-8" "" "" \
    "$CUSPEC" tune --export "$tmp/$(printf 'x\377.txt')" --all-devices --json
check_grep "$tap_out" '^\{"exported":0,"path":"[^"]*x\?\.txt"\}$' "the export's path shows as '?'"
json "tune --import --json" "" "" "$CUSPEC" tune --import "$tmp/$(printf 'x\377.txt')" --json
json "compile --check --json" "" "" "$CUSPEC" compile --check --arch sm_90 --family copy --json
lines=$(wc -l <"$tap_out")
[ "$lines" -eq 1 ]
ok $? "compile --check --json for one arch is one line ($lines)"
json "compile --check --json for two archs" "" "" \
    "$CUSPEC" compile --check --arch sm_80 --arch sm_90 --family copy --json
lines=$(wc -l <"$tap_out")
[ "$lines" -eq 2 ]
ok $? "one line per arch ($lines)"
# Nothing but JSON on stdout, even where a warning is due (a store that
# cannot be written): warnings go to stderr.
chmod 500 "$CUSPEC_CACHE_DIR"
json "cache stats --json of a store that cannot be written" "" "" "$CUSPEC" cache stats --json
done_testing
