#!/bin/sh
# The CLI's help, version, usage errors and exit statuses, and `devices` on a
# machine without a driver.
. "$top_srcdir/tests/tap.sh"
plan 18

check_exit 0 "--help exits 0" "$CUSPEC" --help
check_grep "$tap_out" '^Usage: cuspec' "--help prints usage on stdout"
check_exit 0 "--version exits 0" "$CUSPEC" --version
check_grep "$tap_out" '^cuspec [0-9]+\.[0-9]+\.[0-9]+$' "--version prints the version"
check_exit 0 "help devices exits 0" "$CUSPEC" help devices
check_exit 2 "no command exits 2" "$CUSPEC"
check_exit 2 "unknown command exits 2" "$CUSPEC" frobnicate
check_grep "$tap_err" "unknown command 'frobnicate'" "unknown command is named on stderr"
check_exit 2 "unknown global flag exits 2" "$CUSPEC" --frob
check_exit 2 "unknown devices flag exits 2" "$CUSPEC" devices --frob
CUSPEC_LIBCUDA=/nonexistent/libcuda.so.1 check_exit 3 "devices without a driver exits 3" \
    "$CUSPEC" devices
check_grep "$tap_err" 'cannot open the CUDA driver /nonexistent/libcuda.so.1.*CUSPEC_LIBCUDA' \
    "devices without a driver says what was tried and how to fix it"

# bench: usage errors come before any GPU is looked for.
export CUSPEC_LIBCUDA=/nonexistent/libcuda.so.1
check_exit 0 "bench --help exits 0" "$CUSPEC" bench --help
check_grep "$tap_out" 'rounded up to a multiple of B bytes' "bench --help explains --pitch"
check_exit 2 "a --pitch not a multiple of 8 is a usage error" "$CUSPEC" bench transpose --pitch 12
check_grep "$tap_err" "--pitch takes bytes, a multiple of 8 up to 1048576, not '12'" \
    "and names the value"
check_exit 2 "--pad with reduce is a usage error" "$CUSPEC" bench reduce --pad 3
check_exit 2 "a negative --pad is a usage error" "$CUSPEC" bench transpose --pad -1
done_testing
