#!/bin/sh
# GPU: `cuspec devices` lists the real GPU with plausible numbers, and
# `cuspec bench transpose` and `cuspec run` check and time on it.
. "$top_srcdir/tests/tap.sh"
"$CUSPEC" devices --json >"$tap_out" 2>"$tap_err"
rc=$?
[ $rc -eq 3 ] && skip "no CUDA driver or device: $(head -c 200 "$tap_err")"
plan 28
ok $rc "devices --json exits 0"
cat "$tap_out" | sed 's/^/# /'

# Numbers of the first device, pulled out of the JSON by name.
field() { sed -n "s/.*\"$1\":\"\{0,1\}\([^,\"}]*\).*/\1/p" "$tap_out" | head -1; }
sm=$(field sm | sed 's/sm_//')
[ "${sm:-0}" -ge 70 ]
ok $? "compute capability is sm_70 or newer (sm_$sm)"
[ "$(field sm_count)" -ge 1 ]
ok $? "at least one multiprocessor ($(field sm_count))"
[ "$(field memory_bytes)" -ge 1073741824 ]
ok $? "at least 1 GiB of memory ($(field memory_bytes))"
bw=$(field peak_bandwidth_gbs | cut -d. -f1)
[ "${bw:-0}" -ge 100 ] && [ "${bw:-0}" -le 20000 ]
ok $? "peak bandwidth between 100 GB/s and 20 TB/s ($bw GB/s)"
[ "$(field l2_bytes)" -ge 262144 ]
ok $? "L2 at least 256 KiB ($(field l2_bytes))"
[ "$(field driver_version)" -ge 12000 ]
ok $? "driver supports CUDA 12.0 or newer ($(field driver_version))"
"$CUSPEC" devices >"$tap_out" 2>"$tap_err"
grep -q '^GPU 0: ' "$tap_out"
ok $? "the table names GPU 0"

"$CUSPEC" bench transpose --dtype u8,f32 --shape 33x31,1024x1024 --reps 5 --json \
    >"$tap_out" 2>"$tap_err"
ok $? "bench transpose exits 0 (every checked result right)"
sed 's/^/# /' "$tap_out"
[ "$(grep -c '"correct":true' "$tap_out")" -eq 4 ]
ok $? "bench transpose checked four results"
[ "$(grep -c '"ratio_same":[0-9]' "$tap_out")" -eq 4 ]
ok $? "each transpose row gives its ratio to copying the same bytes"

# Reductions against the read ceiling: the f32 sum of 2^28 (1 GiB) timed
# first; each row's x read is its GB/s in the graph (bytes read over
# graph_us) over it. The row's own numbers give that ratio, whatever the
# timings: other tests sharing the GPU (make check -j) moved the sum's row
# against the ceiling by up to 1.23.
"$CUSPEC" bench reduce --op sum,argmax --dtype f32 --n 2^20,2^28 --reps 5 --json \
    >"$tap_out" 2>"$tap_err"
ok $? "bench reduce exits 0 (every checked result right)"
sed 's/^/# /' "$tap_out" "$tap_err"
ceiling=$(sed -n 's/.*"read_ceiling_gbs":\([0-9.]*\).*/\1/p' "$tap_out")
awk -v c="${ceiling:-0}" 'BEGIN { exit !(c >= 100 && c <= 20000) }'
ok $? "the header gives a read ceiling between 100 GB/s and 20 TB/s ($ceiling GB/s)"
[ "$(grep -c '"ratio_read":[0-9]' "$tap_out")" -eq 4 ]
ok $? "each reduction row gives its ratio to the read ceiling"
row=$(grep '"op":"sum","dtype":"f32","n":268435456,' "$tap_out")
own=$(echo "$row" | sed -n 's/.*"ratio_read":\([0-9.]*\).*/\1/p')
us=$(echo "$row" | sed -n 's/.*"graph_us":\([0-9.]*\).*/\1/p')
awk -v r="${own:-0}" -v us="${us:-0}" -v c="${ceiling:-0}" \
    'BEGIN { if (us <= 0 || c <= 0) exit 1; w = 268435456 * 4 / (us * 1000) / c;
             exit !(r - w < 0.002 * w + 0.0002 && w - r < 0.002 * w + 0.0002) }'
ok $? "the sum of 2^28's x read is its bytes over graph_us over the ceiling ($own; $us us, $ceiling GB/s)"
"$CUSPEC" bench reduce --axis cols --shape 4096x4096 --reps 5 >"$tap_out" 2>"$tap_err"
ok $? "bench reduce --axis cols exits 0"
sed 's/^/# /' "$tap_out" "$tap_err"
grep -q "^read ceiling (x read): f32 sum of [0-9]* elements, [0-9]* GB/s in a graph" "$tap_out" &&
    grep -q 'x copy  x read  check' "$tap_out" &&
    grep -Eq '^cols sum +f32 +4096x4096( +[0-9.]+){6} +ok ' "$tap_out"
ok $? "the table says the ceiling and gives the row its x read"

# Pitched: rows of 1000 and 1001 bytes on 512-byte pitches, 8 more bytes.
"$CUSPEC" bench transpose --dtype u8 --shape 1000x1001 --pitch 512 --pad 8 --reps 5 \
    >"$tap_out" 2>"$tap_err"
ok $? "bench transpose --pitch --pad exits 0 (result and padding right)"
sed 's/^/# /' "$tap_out"
grep -q '^u8 *1000x1001 *1032/1032 .* ok ' "$tap_out"
ok $? "the table shows leading dimensions 1032/1032"

# An image's shape on pitches: the input's slices (1080 rows of 2048 bytes)
# and the output's (1920 of 1536) differ in size, so their pools in count.
"$CUSPEC" bench transpose --dtype u8 --shape 1080x1920 --pitch 512 --reps 5 \
    >"$tap_out" 2>"$tap_err"
ok $? "bench transpose of 1080x1920 on 512-byte pitches exits 0"
sed 's/^/# /' "$tap_out" "$tap_err"
grep -q '^u8 *1080x1920 *2048/1536 .* ok ' "$tap_out"
ok $? "the table shows leading dimensions 2048/1536 and a right result"
# cuspec run: one call as a program makes it, checked against the CPU.
"$CUSPEC" run reduce --n 1M --json >"$tap_out" 2>"$tap_err"
ok $? "run reduce exits 0"
sed 's/^/# /' "$tap_out" "$tap_err"
grep -q '"n":1048576,.*"correct":true' "$tap_out"
ok $? "and its result is right"
"$CUSPEC" run transpose --dtype u8 --shape 1080x1920 --pitch 512 --json \
    >"$tap_out" 2>"$tap_err"
ok $? "run transpose --pitch exits 0"
sed 's/^/# /' "$tap_out" "$tap_err"
grep -q '"ld_in":2048,"ld_out":1536,.*"correct":true' "$tap_out"
ok $? "on leading dimensions 2048/1536, with the result and padding right"
"$CUSPEC" run transpose --dtype f32 --shape 1000x1001 --pad 3 >"$tap_out" 2>"$tap_err"
ok $? "run transpose --pad exits 0"
sed 's/^/# /' "$tap_out" "$tap_err"
grep -q '^call .*1000 x 1001, leading dimensions 1004 (in) and 1003 (out)' "$tap_out"
ok $? "the call line names the leading dimensions"
grep -q '^check *ok' "$tap_out"
ok $? "and the check is ok"
done_testing
