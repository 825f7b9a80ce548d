#!/bin/sh
# What a store lookup costs in system calls (issue 24: a call's first use
# makes about 10 of them, at about 1 us each on a GPU host), counted with
# strace -c over tests/store_lookups: a process making N+100 lookups less
# one making N, so that its start and the stores' opening cancel out. The
# bounds are today's counts: a change that adds a call to every lookup
# fails here.
. "$top_srcdir/tests/tap.sh"
lookups=$top_builddir/tests/store_lookups
[ -x "$lookups" ] || skip "tests/store_lookups was not built"
command -v strace >/dev/null 2>&1 || skip "no strace to count system calls"
strace -f -c -o /dev/null true 2>/dev/null || skip "strace cannot trace here (ptrace refused)"
plan 9

scratch=$(mktemp -d)
trap 'rm -rf "$scratch" "$tap_out" "$tap_err"' EXIT
unset CUSPEC_CACHE_MAX_BYTES
CUSPEC_CACHE_DIR=$scratch/system "$lookups" put 0 &&
    CUSPEC_CACHE_DIR=$scratch/user CUSPEC_SYSTEM_STORE=$scratch/none "$lookups" put 0
ok $? "store_lookups publishes its entry to a user and a system store"
export CUSPEC_CACHE_DIR="$scratch/user" CUSPEC_SYSTEM_STORE="$scratch/system"
# Every fan-out folder, as in a store that has been used a while: a miss
# then looks in a folder that is there.
for store in user system; do
    for hi in 0 1 2 3 4 5 6 7 8 9 a b c d e f; do
        for lo in 0 1 2 3 4 5 6 7 8 9 a b c d e f; do
            mkdir -p -m 700 "$scratch/$store/v2/$hi$lo"
        done
    done
done

# calls ARGS...: the system calls of `store_lookups ARGS`, all threads; a
# run whose lookups did not give what they should leaves $scratch/failed.
# LeakSanitizer cannot run under ptrace (--enable-sanitizers): no leak
# check there; AddressSanitizer still runs.
calls() {
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
        strace -f -c -o "$scratch/count" "$lookups" "$@" >/dev/null || touch "$scratch/failed"
    awk '$NF == "total" { print $(NF - 2) }' "$scratch/count"
}

# check_calls NAME MAX FIRST N ARGS...: the calls of N lookups more than
# FIRST (`store_lookups ARGS FIRST+N` less `store_lookups ARGS FIRST`), at
# most N times MAX.
check_calls() {
    name=$1 max=$2 first=$3 n=$4
    shift 4
    rm -f "$scratch/failed"
    from=$(calls "$@" "$first") to=$(calls "$@" $((first + n)))
    if [ -e "$scratch/failed" ]; then
        echo "#   store_lookups $*: its lookups did not give what they should"
        ok 1 "$name"
        return
    fi
    echo "# $*: $((to - from)) system calls for $n lookups"
    [ $((to - from)) -le $((max * n)) ]
    ok $? "$name: at most $max system calls"
}

# The user store hits: open, fstat, geteuid, one read, close, and the last
# use when it is a second old.
check_calls "a hit" 6 1 100 hit
# Both stores miss, with their fan-out folders checked already: an openat2
# in each.
check_calls "a miss in both stores" 2 1 100 miss
# Each in a folder not yet checked: an fstatat of it and a geteuid more.
check_calls "a miss in both stores, each in another folder" 6 1 100 spread
# A process's first lookup opens the entries folders too. In a sanitizer
# build AddressSanitizer's allocator maps memory at its first uses (4 mmap
# more in the first hit): those counts are not the library's.
if [ -n "$SAN_FLAGS" ]; then
    ok 0 "# SKIP a process's first hit: AddressSanitizer's allocator makes system calls too"
    ok 0 "# SKIP a process's first miss: AddressSanitizer's allocator makes system calls too"
else
    check_calls "a process's first hit" 10 0 1 hit
    check_calls "a process's first miss in both stores" 12 0 1 miss
fi

# Without openat2 (an old kernel, a seccomp filter that does not know it),
# each lookup goes step by step, as right and dearer: the fan-out folder is
# opened and checked, the entry opened in it.
check_calls "without openat2, a hit" 10 1 100 --no-openat2 hit
check_calls "without openat2, a miss in both stores" 8 1 100 --no-openat2 miss

# The hit set the entry's last use, the clock of eviction: a day-old entry
# is now new.
entry=$(find "$scratch/user/v2" -name '*.entry')
touch -d '1 day ago' "$entry"
"$lookups" hit 1 >/dev/null && [ -n "$(find "$entry" -mmin -1)" ]
ok $? "a hit sets its entry's last use"
done_testing
