#!/bin/sh
# Reductions along an axis on the command line, without a GPU: the usage
# errors of --axis and of the axis families, and their kernels for sm_75
# served by the shipped PTX (t_axis.c compiles a sample of them for sm_75,
# t_compile.sh every family's for sm_90).
. "$top_srcdir/tests/tap.sh"
plan 16
store=$(mktemp -d)
trap 'rm -rf "$store" "$tap_out" "$tap_err"' EXIT
export CUSPEC_CACHE_DIR="$store"

check_exit 2 "bench --axis takes rows or cols" "$CUSPEC" bench reduce --axis diag
check_grep "$tap_err" 'axis takes rows or cols' "and says so"
check_exit 2 "bench --axis with --n is refused" "$CUSPEC" bench reduce --axis cols --n 2^20
check_grep "$tap_err" '\-\-axis takes \-\-shape' "and points at --shape"
check_exit 2 "an axis reduction of an unknown dtype is refused" \
    "$CUSPEC" bench reduce --axis rows --op argmax --dtype f8
check_grep "$tap_err" "unknown dtype 'f8'" "and names it"
check_exit 2 "an unknown op is refused" "$CUSPEC" run reduce --axis rows --op median
check_grep "$tap_err" 'unknown op .*argmin, argmax' "and lists the ops"
check_exit 2 "tune reduce_cols takes no --n" "$CUSPEC" tune reduce_cols --n 1000
check_exit 2 "tune knows no reduce_diag" "$CUSPEC" tune reduce_diag
check_grep "$tap_err" 'reduce_rows, reduce_cols' "and lists the axis families"
check_exit 0 "compile --check: shipped PTX serves the rows kernels on sm_75" \
    "$CUSPEC" compile --family reduce_rows --arch sm_75 --check --json
# a rows kernel of 4 items per dtype and op but the halves' dots (70), one
# of 2 items (26: every op of halves and bfloat16s, every dtype's dot,
# argmin/argmax of f32 and f64), a rows_block kernel per dtype and op (72)
# and a second for sums, dots, min and max of 4-byte elements (12), and a
# rows_split kernel per dtype and op (72) and for argmin/argmax a second,
# of blocks of 128 (24), and a rows_flat kernel per op but dot of f32, i32
# and u32 (15)
check_grep "$tap_out" '"total":291,.*"ptx":291,"missing":0' "the rows kernels: 291"
check_grep "$tap_out" '"kernel":"cuspec_reduce_rows<cuspec_bf16, 4, 256, 8, 4>"' \
    "bf16 argmax among them"
check_grep "$tap_out" '"kernel":"cuspec_reduce_rows_block<cuspec_bf16, 4, 128, 8, 2>"' \
    "and its rows_block kernel"
check_grep "$tap_out" '"kernel":"cuspec_reduce_rows_split<cuspec_bf16, 4, 256, 8, 4>"' \
    "and its rows_split kernel"
