#!/bin/sh
# The libFuzzer harness of the store entry reader, tests/fuzz/fuzz_entry.c,
# run briefly (see tests/fuzz/fuzz.sh).
fuzzer=entry
. "$top_srcdir/tests/fuzz/fuzz.sh"
