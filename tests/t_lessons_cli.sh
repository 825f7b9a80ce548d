#!/bin/sh
# cuspec lessons without a GPU: --list and help, every command-line error
# (exit 2, naming what is wrong, before any GPU is looked for), no driver
# (exit 3, as bench says it), and the lessons' kernels compiled by NVRTC for
# sm_75 and sm_90.
. "$top_srcdir/tests/tap.sh"
plan 30

check_exit 0 "help lessons exits 0" "$CUSPEC" help lessons
check_grep "$tap_out" 'no bank conflicts \(the tile padded to 33 columns\)' \
    "and teaches what each step changes"
check_exit 0 "lessons --help exits 0" "$CUSPEC" lessons --help
check_exit 0 "--list exits 0 with no GPU" "$CUSPEC" lessons --list
check_grep "$tap_out" '^transpose +the matrix transpose, step by step$' "--list names each lesson"
check_grep "$tap_out" '--size: matrix side \(f32\), 32 to 16384, a multiple of 32; default 4096' \
    "and its sizes"
[ "$(grep -c '^[a-z]' "$tap_out")" -eq 6 ]
ok $? "--list lists six lessons"
check_exit 2 "--list with a name is a usage error" "$CUSPEC" lessons --list dot

export CUSPEC_LIBCUDA=/nonexistent/libcuda.so.1
check_exit 2 "an unknown lesson is a usage error" "$CUSPEC" lessons transpose transpos
check_grep "$tap_err" "unknown lesson 'transpos' \(transpose, reduce, coalescing, reverse, memory, dot\)" \
    "and the error lists the lessons"
check_exit 2 "a size out of range is a usage error" "$CUSPEC" lessons transpose --size 100
check_grep "$tap_err" "transpose takes a size \(matrix side \(f32\)\) from 32 to 16384, a multiple of 32, not 100" \
    "and gives the range"
check_exit 2 "a size for all that one lesson refuses is a usage error" "$CUSPEC" lessons --size 4096
check_grep "$tap_err" "memory takes a size" "and names that lesson"
check_exit 2 "a malformed size is a usage error" "$CUSPEC" lessons --size reduce=12Q
check_grep "$tap_err" "--size takes \[NAME=\]N, N a count such as 4096 or 2\^24, not 'reduce=12Q'" \
    "and names it"
check_exit 2 "--size for an unknown lesson is a usage error" "$CUSPEC" lessons --size fft=4096
check_exit 2 "--size for a lesson not run is a usage error" "$CUSPEC" lessons dot --size reduce=2^20
check_exit 2 "an unknown option is a usage error" "$CUSPEC" lessons --frob
check_exit 2 "a bad --device is a usage error" "$CUSPEC" lessons --device x

dir=$(mktemp -d)
trap 'chmod -R u+w "$dir"; rm -rf "$dir" "$tap_out" "$tap_err"' EXIT
: >"$dir/file"
check_exit 2 "--plot naming a file is a usage error" "$CUSPEC" lessons dot --plot "$dir/file"
check_grep "$tap_err" "--plot $dir/file: not a folder" "and says so"
check_exit 2 "--csv in a folder that does not exist is a usage error" \
    "$CUSPEC" lessons dot --csv "$dir/no/such"
check_grep "$tap_err" "--csv $dir/no/such: cannot make that folder" "and says so"

# With no driver, the folders given are made, then the GPU is looked for.
check_exit 3 "no driver exits 3" "$CUSPEC" lessons dot --csv "$dir/csv" --size dot=2^20
check_grep "$tap_err" "^cuspec: cannot open the GPU: no usable CUDA driver" "with bench's message"
[ -d "$dir/csv" ] && [ -z "$(ls -A "$dir/csv")" ]
ok $? "and nothing is written"
unset CUSPEC_LIBCUDA

# The kernels compile with NVRTC for the oldest and a current arch.
export CUSPEC_CACHE_DIR="$dir/store"
check_exit 0 "the lessons' kernels compile for sm_75 and sm_90" \
    "$CUSPEC" compile --family lessons --arch sm_75 --arch sm_90 --json
check_grep "$tap_out" '"arch":"sm_75","family":"lessons","total":22,"compiled":22,"found":0,"failed":0' \
    "all 22 for sm_75"
check_grep "$tap_out" '"arch":"sm_90","family":"lessons","total":22,"compiled":22,"found":0,"failed":0' \
    "all 22 for sm_90"
done_testing
