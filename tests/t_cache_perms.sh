#!/bin/sh
# Store entries this user cannot read: `cache prune` keeps them, as one may
# be a tuning record, which is never evicted by size; a store this user may
# read but not write: `cache stats` says so.  Root reads and writes any
# file, so the store's user here is nobody (needs root and setpriv).
. "$top_srcdir/tests/tap.sh"
store_put=$top_builddir/tests/store_put
[ -x "$store_put" ] || skip "tests/store_put was not built"
[ "$(id -u)" -eq 0 ] || skip "not root: cannot act as another user, whose permissions hold"
command -v setpriv >/dev/null 2>&1 || skip "no setpriv to act as another user"
plan 8

scratch=$(mktemp -d)
trap 'rm -rf "$scratch" "$tap_out" "$tap_err"' EXIT
chmod 755 "$scratch"
mkdir -m 700 "$scratch/store"
chown 65534:65534 "$scratch/store"
export CUSPEC_CACHE_DIR="$scratch/store" CUSPEC_SYSTEM_STORE="$scratch/no-system-store"
unset CUSPEC_CACHE_MAX_BYTES
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }

head -c 5000 /dev/zero | tr '\0' a >"$scratch/small"
chmod 644 "$scratch/small"
as_nobody "$store_put" "kernel one" cubin "$scratch/small" "lowered=_Z3onev" &&
    as_nobody "$store_put" "tuning one" tuning "$scratch/small"
ok $? "store_put fills the store as nobody"
tuning=$(as_nobody "$CUSPEC" cache ls --json | tr '{' '\n' | sed -n 's/.*"path":"\([^"]*\)","kind":"tuning".*/\1/p')
[ -f "$tuning" ]
ok $? "cache ls names the tuning record's file"

chmod 000 "$tuning"
check_exit 0 "prune --max-bytes 1 exits 0" as_nobody "$CUSPEC" cache prune --max-bytes 1
check_grep "$tap_out" 'removed 1 ' "it removes the cubin only"
[ -f "$tuning" ]
ok $? "the tuning record it cannot read is still there"
chmod 600 "$tuning"
check_exit 0 "and reads back whole" as_nobody "$CUSPEC" cache verify

chmod 500 "$scratch/store"
check_exit 0 "cache stats of a store nobody may not write exits 0" as_nobody "$CUSPEC" cache stats
check_grep "$tap_out" '^writable +no: you cannot write in it' "and says why it is not writable"
chmod 700 "$scratch/store"
done_testing
