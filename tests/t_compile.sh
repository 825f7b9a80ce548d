#!/bin/sh
# cuspec compile: defaults into an empty store, found on a second run, eight
# processes compiling the same empty store at once, no NVRTC, usage errors.
# One family's defaults (transpose: 25 kernels) stand for all here: the build
# compiles every family's for each prebuilt arch (store/, sm_90 among the
# defaults) and fails if one fails, and make check-all compiles every
# legal specialization.
. "$top_srcdir/tests/tap.sh"
plan 25
store=$(mktemp -d)
trap 'rm -rf "$store" "$tap_out" "$tap_err"' EXIT
export CUSPEC_CACHE_DIR="$store/a"

check_exit 0 "compile the defaults for sm_90" "$CUSPEC" compile --arch sm_90 --family transpose --json
check_grep "$tap_out" '"failed":0' "no default failed to compile"
total=$(sed -n 's/.*"total":\([0-9]*\).*/\1/p' "$tap_out")
check_exit 0 "compile them again" "$CUSPEC" compile --arch sm_90 --family transpose --json
check_grep "$tap_out" "\"compiled\":0,\"found\":$total," "the second run finds all $total in the store"

# Eight processes on one empty store: all succeed, each kernel is compiled
# once (the others wait for it: a lock per key), nothing bad is left.
export CUSPEC_CACHE_DIR="$store/b"
pids=""
for i in 1 2 3 4 5 6 7 8; do
    "$CUSPEC" compile --arch sm_90 --family transpose --jobs 1 --json >"$store/out$i" 2>"$store/err$i" &
    pids="$pids $!"
done
failed=0
for p in $pids; do wait "$p" || failed=$((failed + 1)); done
[ "$failed" -eq 0 ] || cat "$store"/out* "$store"/err* | sed 's/^/#   /'
ok "$failed" "8 processes compiling the same empty store all succeed"
compiled=$(cat "$store"/out? | sed -n 's/.*"compiled":\([0-9]*\).*/\1/p' | awk '{n += $1} END {print n + 0}')
family_total=$(sed -n 's/.*"total":\([0-9]*\).*/\1/p' "$store/out1")
[ "$compiled" -eq "$family_total" ]
ok $? "and compile each of the $family_total kernels once between them ($compiled compiles)"
check_exit 0 "verify finds nothing bad after them" "$CUSPEC" cache verify

# Without NVRTC: an empty store cannot be filled, a warm one needs nothing.
export CUSPEC_CACHE_DIR="$store/c"
CUSPEC_LIBNVRTC=/nonexistent check_exit 1 "compile without NVRTC fails" \
    "$CUSPEC" compile --arch sm_90 --family copy
check_grep "$tap_err" 'NVRTC not found.*CUSPEC_LIBNVRTC' "and says NVRTC is missing and how to point at it"
export CUSPEC_CACHE_DIR="$store/a"
CUSPEC_LIBNVRTC=/nonexistent check_exit 0 "a warm store needs no NVRTC" \
    "$CUSPEC" compile --arch sm_90 --family transpose

# A store that cannot keep what is compiled: compile fails and says why.
mkdir -m 777 "$store/shared"
CUSPEC_CACHE_DIR="$store/shared" check_exit 1 "compile into a store it may not use fails" \
    "$CUSPEC" compile --arch sm_90 --family copy
check_grep "$tap_err" 'the store cannot be used: .*writable by group or others' "and says why"
check_grep "$tap_out" '0 compiled, 0 found, 1 failed' "and counts the specialization as failed"
mkdir -m 700 "$store/blocked"
: >"$store/blocked/v2" # a file where the entries' folder belongs
CUSPEC_CACHE_DIR="$store/blocked" check_exit 1 "compile into a store it cannot write fails" \
    "$CUSPEC" compile --arch sm_90 --family copy
check_grep "$tap_err" 'cannot publish to the store' "and says so"
check_grep "$tap_out" '0 compiled, 0 found, 1 failed' "and counts the specialization as failed"

# A FIFO where an entry belongs hangs no command: it is refused and replaced.
export CUSPEC_CACHE_DIR="$store/a"
entry=$(find "$store/a/v2" -name '*.entry' | head -1)
rm -f "$entry" && mkfifo "$entry"
check_exit 1 "cache verify with a FIFO for an entry finds it bad, without hanging" \
    timeout 20 "$CUSPEC" cache verify
check_grep "$tap_out" 'not a regular file' "and says why"
check_exit 0 "cache ls and stats do not hang on it" \
    sh -c 'timeout 20 "$CUSPEC" cache ls >/dev/null && timeout 20 "$CUSPEC" cache stats'
check_exit 0 "compile does not hang on it, and replaces it" \
    timeout 60 "$CUSPEC" compile --arch sm_90 --family transpose
[ -f "$entry" ] && [ ! -p "$entry" ]
ok $? "the entry is a regular file again"

check_exit 2 "a bad --arch is a usage error" "$CUSPEC" compile --arch sm_x
check_exit 2 "a --jobs that is not a number is a usage error" "$CUSPEC" compile --jobs 4x
check_exit 2 "an unknown family is a usage error" "$CUSPEC" compile --arch sm_90 --family fft
CUSPEC_LIBCUDA=/nonexistent check_exit 2 "no GPU and no --arch is a usage error" "$CUSPEC" compile
done_testing
