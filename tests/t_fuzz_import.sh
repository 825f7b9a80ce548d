#!/bin/sh
# The libFuzzer harness of the tuning export parser, tests/fuzz/fuzz_import.c,
# run briefly (see tests/fuzz/fuzz.sh).
fuzzer=import
. "$top_srcdir/tests/fuzz/fuzz.sh"
