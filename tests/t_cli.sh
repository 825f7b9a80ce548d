#!/bin/sh
# The CLI's help, version, usage errors and exit statuses, and `devices` on a
# machine without a driver.
. "$top_srcdir/tests/tap.sh"
plan 66

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

# A mistyped word is named, with the nearest that would do.
check_exit 2 "a mistyped command exits 2" "$CUSPEC" tunee
check_grep "$tap_err" "^cuspec: unknown command 'tunee'; did you mean 'tune'\?$" "and the nearest is suggested"
check_exit 2 "a mistyped global option exits 2" "$CUSPEC" --verison
check_grep "$tap_err" "unknown option '--verison'; did you mean '--version'\?" "and is suggested"
check_exit 2 "help of a mistyped command exits 2" "$CUSPEC" help tun
check_grep "$tap_err" "unknown command 'tun'; did you mean 'tune'\?" "and the command it begins wins"
check_exit 2 "a mistyped option exits 2" "$CUSPEC" tune --lisst
check_grep "$tap_err" "^cuspec tune: unknown option '--lisst'; did you mean '--list'\?$" \
    "and the command's option is suggested"
check_exit 2 "a mistyped option with a value exits 2" "$CUSPEC" bench reduce --dtpye=f32
check_grep "$tap_err" "unknown option '--dtpye'; did you mean '--dtype'\?" "and it is named without the value"
check_exit 2 "an option without its value exits 2" "$CUSPEC" bench reduce --dtype
check_grep "$tap_err" "^cuspec bench: --dtype needs a value$" "and says so"
check_exit 2 "a mistyped cache subcommand exits 2" "$CUSPEC" cache clera
check_grep "$tap_err" "unknown subcommand 'clera'; did you mean 'clear'\?" "and is suggested"
check_exit 2 "a mistyped dtype exits 2" "$CUSPEC" bench reduce --dtype f33
check_grep "$tap_err" "unknown dtype 'f33'; did you mean 'f32'\?" "and is suggested"
check_exit 2 "a word far from every command" "$CUSPEC" xyzzy
! grep -q 'did you mean' "$tap_err"
ok $? "gets no suggestion"

# Sizes and counts: one syntax for every option that takes one.
check_exit 2 "--reps 2^10 is read as 1024 (over 1000)" "$CUSPEC" bench reduce --reps 2^10
check_grep "$tap_err" "--reps takes a number from 3 to 1000, not '2\^10'" "and refused as such"
check_exit 2 "--max-candidates 1M is read as 2^20 (over 10^6)" "$CUSPEC" tune --max-candidates 1M
export CUSPEC_CACHE_DIR="$(mktemp -d)/store"
for size in 64k 64K 2^16 65536; do
    check_exit 0 "cache prune --max-bytes $size" "$CUSPEC" cache prune --max-bytes "$size" --json
    check_grep "$tap_out" '"max_bytes":65536' "reads $size as 65536"
done

# --quiet: nothing on stdout but --json output, nothing on stderr but errors.
check_exit 0 "cache stats --quiet exits 0" "$CUSPEC" cache stats --quiet
[ ! -s "$tap_out" ] && [ ! -s "$tap_err" ]
ok $? "and prints nothing"
check_exit 0 "-q before the command, with --json" "$CUSPEC" -q cache stats --json
check_grep "$tap_out" '^\{"path":' "prints the JSON"
check_exit 2 "--quiet keeps usage errors" "$CUSPEC" --quiet cache stats --frob
check_grep "$tap_err" "unknown option '--frob'" "on stderr"
rm -rf "$(dirname "$CUSPEC_CACHE_DIR")"
done_testing
