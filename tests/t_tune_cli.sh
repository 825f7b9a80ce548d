#!/bin/sh
# cuspec tune and cuspec run without a GPU: help, usage errors (exit 2), no
# driver (exit 3), and export/import of tuning records, which need no GPU.
. "$top_srcdir/tests/tap.sh"
plan 78
store=$(mktemp -d)
trap 'rm -rf "$store" "$tap_out" "$tap_err"' EXIT
export CUSPEC_CACHE_DIR="$store/cache"

# Help
check_exit 0 "tune --help exits 0" "$CUSPEC" tune --help
check_grep "$tap_out" '^Usage: cuspec tune' "tune --help prints the usage on stdout"
check_grep "$tap_out" 'CPU reference' "tune --help says candidates are checked against the CPU"
check_grep "$tap_out" 'captured in a CUDA graph' "tune --help says how candidates are timed"
check_grep "$tap_out" 'the L2 flushed before each' "and that no launch finds its inputs in the L2"
check_grep "$tap_out" 'Ctrl-C.*130|130.*Ctrl-C' "tune --help tells what Ctrl-C does"
check_grep "$tap_out" 'resume' "tune --help tells that a re-run resumes"
check_grep "$tap_out" 'CUSPEC_CACHE_DIR' "tune --help names the store's variable"
check_grep "$tap_out" '2\^10, 2\^12, \.\.\., 2\^28' "tune --help shows the default suite"
check_exit 0 "help tune exits 0" "$CUSPEC" help tune
check_exit 0 "run --help exits 0" "$CUSPEC" run --help
check_grep "$tap_out" '^Usage: cuspec run reduce' "run --help prints the usage on stdout"
check_grep "$tap_out" "'tuned' when the store holds a tuning" "run --help explains tuned parameters"
check_grep "$tap_out" "'default' \\(the built-in defaults\\)" "run --help explains default parameters"
check_grep "$tap_out" 'ptx \(shipped PTX' "run --help names the tiers"
check_exit 0 "cuspec --help exits 0" "$CUSPEC" --help
check_grep "$tap_out" '^  tune ' "cuspec --help lists tune"
check_grep "$tap_out" '^  run ' "cuspec --help lists run"

# Usage errors: exit 2 before any GPU is looked for.
export CUSPEC_LIBCUDA=/nonexistent/libcuda.so.1
check_exit 2 "an unknown family is a usage error" "$CUSPEC" tune fft
check_grep "$tap_err" "unknown family 'fft'" "and is named"
check_exit 2 "--shape with reduce is a usage error" "$CUSPEC" tune reduce --shape 64x64
check_exit 2 "--n with transpose is a usage error" "$CUSPEC" tune transpose --n 1K
check_exit 2 "a bad --n is a usage error" "$CUSPEC" tune reduce --n 12Q
check_grep "$tap_err" "'12Q' is not an element count" "and the value is named"
check_exit 2 "an unknown dtype is a usage error" "$CUSPEC" tune reduce --dtype f33
check_exit 3 "reduce takes every dtype and argmin/argmax (no driver here)" \
    "$CUSPEC" tune reduce --dtype f16,bf16,i8,u8,i16,u16,u64 --op argmin,argmax,sum
check_exit 2 "an unknown op is a usage error" "$CUSPEC" tune reduce --op prod
check_grep "$tap_err" "unknown op 'prod' \\(sum, min, max, dot, argmin, argmax\\)" \
    "and the ops are named"
check_exit 2 "a bad shape is a usage error" "$CUSPEC" tune transpose --shape 64by64
check_exit 2 "--pitch with reduce is a usage error" "$CUSPEC" tune reduce --pitch 512
check_exit 2 "a --pitch not a multiple of 8 is a usage error" "$CUSPEC" tune transpose --pitch 100
check_grep "$tap_err" "--pitch takes bytes, a multiple of 8" "and says what it takes"
check_exit 2 "a negative --pad is a usage error" "$CUSPEC" tune transpose --pad -1
check_exit 2 "--list with --pad is a usage error" "$CUSPEC" tune --list --pad 4
check_exit 2 "--list with a family is a usage error" "$CUSPEC" tune --list reduce
check_exit 2 "--list with a tuning option is a usage error" "$CUSPEC" tune --list --budget 5
check_exit 2 "--export and --import together are a usage error" \
    "$CUSPEC" tune --export "$store/a" --import "$store/b"
check_exit 2 "a bad --budget is a usage error" "$CUSPEC" tune reduce --budget -3
check_exit 2 "a --reps out of range is a usage error" "$CUSPEC" tune reduce --reps 2
check_grep "$tap_err" "--reps takes a number from 3 to 1000, not '2'" "and says what it takes"
check_exit 2 "--op without a family is a usage error" "$CUSPEC" tune --op sum
check_exit 2 "a second operand is a usage error" "$CUSPEC" tune reduce transpose
check_exit 2 "run with no operation is a usage error" "$CUSPEC" run
check_exit 2 "run --shape with reduce is a usage error" "$CUSPEC" run reduce --shape 8x8
check_exit 2 "run with an unknown dtype is a usage error" "$CUSPEC" run transpose --dtype q7
check_exit 2 "run --pitch with reduce is a usage error" "$CUSPEC" run reduce --pitch 512
check_grep "$tap_err" '--pitch is for transpose' "and names the flag"
check_exit 2 "run --pitch 7 (not a multiple of 8) is a usage error" \
    "$CUSPEC" run transpose --pitch 7
check_exit 2 "run --pad too large for the shape is a usage error" \
    "$CUSPEC" run transpose --dtype f64 --shape 2^62x2 --pad 8
check_grep "$tap_err" 'too large to pad' "and says so"

# No driver: exit 3 with the library's reason.
check_exit 3 "tune without a driver exits 3" "$CUSPEC" tune
check_grep "$tap_err" 'cannot open the CUDA driver.*CUSPEC_LIBCUDA' \
    "and says what was tried and how to fix it"
check_exit 3 "run reduce --n 1K without a driver exits 3" "$CUSPEC" run reduce --n 1K
check_grep "$tap_err" 'cannot open the GPU.*no usable CUDA driver' "and says why"
check_exit 3 "a lower-case suffix is a size too (--n 64k): exit 3, not 2" \
    "$CUSPEC" run reduce --n 64k

# Records travel without a GPU.
check_exit 0 "export --all-devices of an empty store needs no GPU" \
    "$CUSPEC" tune --export "$store/empty.tuning" --all-devices
check_grep "$tap_out" '^exported 0 tuning records' "and says it exported 0 records"
check_grep "$store/empty.tuning" '^cuspec-tuning 1$' "and writes a file in the export format"
check_exit 0 "import of that file succeeds" "$CUSPEC" tune --import "$store/empty.tuning"
check_grep "$tap_out" '^imported 0 tuning records' "and says it imported 0 records"
printf 'this is no tuning export\n\001\002\n' >"$store/garbage"
check_exit 1 "import of a garbage file fails" "$CUSPEC" tune --import "$store/garbage"
check_grep "$tap_err" "cannot import '.*garbage' \\(nothing was imported\\): .*not a cuspec tuning export" \
    "and says that the file is no tuning export"
check_exit 1 "import of a missing file fails" "$CUSPEC" tune --import "$store/missing"
check_grep "$tap_err" "cannot import '.*missing'.*No such file" "and says that the file is missing"
version=$("$CUSPEC" --version | cut -d' ' -f2)
printf 'cuspec-tuning 1\nrecord\ndevice=imported|sm_80|108|1|12080\nlibrary=%s\nformat=1\n%b\n%b\nend' \
    "$version" 'family=reduce\ndtype=f64\nop=2\nbucket=n=2^16\nparams=512 2 2 1 2 0' \
    'kernel=k\nmedian_us=3\ngbs=900' >"$store/one.tuning" # no newline after the last 'end'
mkdir -m 777 "$store/shared"
CUSPEC_CACHE_DIR="$store/shared" check_exit 1 "import into a store it may not use fails" \
    "$CUSPEC" tune --import "$store/one.tuning"
check_grep "$tap_err" "\\(nothing was imported\\): .*the store cannot be used: .*writable by group" \
    "and says that nothing was imported, and why"
CUSPEC_CACHE_DIR="$store/shared" check_exit 1 "export from a store it may not use fails" \
    "$CUSPEC" tune --export "$store/none.tuning" --all-devices
[ ! -e "$store/none.tuning" ]
ok $? "and writes no file"
CUSPEC_CACHE_DIR="$store/imported" check_exit 0 \
    "import of a record whose last line has no newline succeeds" \
    "$CUSPEC" tune --import "$store/one.tuning"
check_grep "$tap_out" '^imported 1 tuning record ' "and says it imported 1 record"
CUSPEC_CACHE_DIR="$store/imported" check_exit 0 "the record is listed" \
    "$CUSPEC" tune --list --all-devices
check_grep "$tap_out" '^ *reduce +f64 +max +n=2\^16 +900 ' "with its spec, bucket and speed"
check_exit 2 "--export followed by an option is a usage error" \
    "$CUSPEC" tune --export --all-devices
check_grep "$tap_err" "--export needs a FILE, not the option '--all-devices'" "and says so"
check_exit 0 "list --all-devices of an empty store needs no GPU" "$CUSPEC" tune --list --all-devices
check_grep "$tap_out" '^No tuning records' "and says there are none"
check_exit 3 "list for a device without a driver exits 3" "$CUSPEC" tune --list
check_grep "$tap_err" 'all-devices' "and points at --all-devices"
done_testing
