#!/bin/sh
# The CLI's help, version, usage errors and exit statuses, and `devices` on a
# machine without a driver.
. "$top_srcdir/tests/tap.sh"
plan 31

check_exit 0 "--help exits 0" "$CUSPEC" --help
check_grep "$tap_out" '^Usage: cuspec' "--help prints usage on stdout"
check_exit 0 "--version exits 0" "$CUSPEC" --version
check_grep "$tap_out" '^cuspec [0-9]+\.[0-9]+\.[0-9]+$' "--version prints the version"
check_exit 0 "help devices exits 0" "$CUSPEC" help devices
check_exit 2 "no command exits 2" "$CUSPEC"
check_exit 2 "unknown command exits 2" "$CUSPEC" frobnicate
check_grep "$tap_err" "unknown command 'frobnicate'" "unknown command is named on stderr"
check_exit 2 "unknown global flag exits 2" "$CUSPEC" --frob
check_exit 0 "help help exits 0" "$CUSPEC" help help
check_exit 2 "a word after help COMMAND exits 2" "$CUSPEC" help cache extra
check_grep "$tap_err" "unexpected 'extra'" "and names the word"
check_exit 2 "a word after --version exits 2" "$CUSPEC" --version extra
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
# Every value of the lists is checked before the GPU is opened, the last too.
check_exit 2 "a bad shape late in the list is a usage error" \
    "$CUSPEC" bench transpose --shape 8192x8192,8191x
check_grep "$tap_err" "'8191x' is not a shape such as 8192x8192" "and names the shape"
check_exit 2 "an empty side is a usage error" "$CUSPEC" bench transpose --shape 0x5
check_exit 2 "an unknown dtype is a usage error" "$CUSPEC" bench transpose --dtype f32,f33
check_grep "$tap_err" "unknown dtype 'f33'" "and names it"
check_exit 2 "an unknown op is a usage error" "$CUSPEC" bench reduce --op sum,foo
check_grep "$tap_err" "unknown op 'foo' \\(sum, min, max, dot, argmin, argmax\\)" \
    "and says which there are"
check_exit 2 "a count too large is a usage error" "$CUSPEC" bench reduce --n 2^20,2^70
check_exit 2 "an empty list is a usage error" "$CUSPEC" bench reduce --n ,
done_testing
