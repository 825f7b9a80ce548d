# Runs one libFuzzer harness as a TAP test: sourced by tests/t_fuzz_NAME.sh
# after setting `fuzzer` to NAME. The harness starts from its seed corpus
# (copied: libFuzzer adds what it finds to its first corpus folder) and runs
# for $FUZZ_SECONDS (default 30); a crash, leak or sanitizer report fails
# the test, and the log keeps the report and the input that caused it.
. "$top_srcdir/tests/tap.sh"
[ "$HAVE_FUZZER" = yes ] ||
    skip "configure found no clang that links libFuzzer (FUZZ_CC names one): fuzz_$fuzzer not built"
harness=$top_builddir/tests/fuzz/fuzz_$fuzzer
plan 2
scratch=$(mktemp -d)
trap 'rm -rf "$scratch" "$tap_out" "$tap_err"' EXIT
export CUSPEC_CACHE_DIR="$scratch/store"
mkdir "$scratch/corpus"
cp "$top_srcdir/tests/fuzz/corpus/$fuzzer"/* "$scratch/corpus/" 2>/dev/null
[ -n "$(ls "$scratch/corpus")" ]
ok $? "the seed corpus of $fuzzer is there"
"$harness" -max_total_time="${FUZZ_SECONDS:-30}" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$scratch/" "$scratch/corpus" >"$tap_out" 2>"$tap_err"
status=$?
if [ "$status" -ne 0 ]; then
    echo "#   fuzz_$fuzzer exited $status:"
    sed 's/^/#   /' "$tap_err"
    for crash in "$scratch"/crash-* "$scratch"/leak-* "$scratch"/timeout-* "$scratch"/oom-*; do
        [ -f "$crash" ] || continue
        echo "#   input $(basename "$crash") (base64):"
        base64 "$crash" | sed 's/^/#     /'
    done
fi
runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$tap_err")
[ "$status" -eq 0 ]
ok $? "fuzz_$fuzzer ran ${FUZZ_SECONDS:-30} s with no report (${runs:-?} inputs)"
done_testing
