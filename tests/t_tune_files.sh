#!/bin/sh
# The files cuspec writes and reads outside the store, at paths the user
# gives (no GPU needed): `tune --export` writes through a new file made
# exclusively, so a link planted at a name it could use is never followed,
# and leaves nothing behind when it fails; `tune --import` reads regular
# files only, says what else it was given (a FIFO must not hang it), and
# refuses numbers out of range.
. "$top_srcdir/tests/tap.sh"
plan 38
scratch=$(mktemp -d)
trap 'rm -rf "$scratch" "$tap_out" "$tap_err"' EXIT
export CUSPEC_CACHE_DIR="$scratch/cache" CUSPEC_LIBCUDA=/nonexistent/libcuda.so.1
version=$("$CUSPEC" --version | cut -d' ' -f2)

# record FILE BUCKET: an export of one reduction record in that bucket.
record() {
    printf 'cuspec-tuning 1\nrecord\ndevice=files|sm_80|108|1|12080\nlibrary=%s\nformat=1\n%b\n%b\nend\n' \
        "$version" "family=reduce\\ndtype=f64\\nop=2\\nbucket=$2" \
        'params=512 2 2 1 2 0\nkernel=k\nmedian_us=3\ngbs=900' >"$1"
}
record "$scratch/one.tuning" 'n=2^16'
check_exit 0 "a record is imported" "$CUSPEC" tune --import "$scratch/one.tuning"

# ## Export: links planted where a temporary file could be named.
echo precious >"$scratch/target"
mkdir "$scratch/out"
# export_planted FILE: under `sh -c`, $$ is the pid cuspec runs with after
# exec, so FILE.tmp-PID (the name the export once wrote through, with
# fopen) and the other names a temporary file is commonly given are known.
export_planted() {
    sh -c 'for n in "$1.tmp-$$" "$1.tmp-$(($$ + 1))" "$1.tmp" "$1~" "$1.new"; do
               ln -s "$2" "$n" || exit 99
           done
           exec "$3" tune --export "$1" --all-devices' sh "$1" "$scratch/target" "$CUSPEC"
}
check_exit 0 "export with links at the temporary names succeeds" \
    export_planted "$scratch/out/records.tuning"
[ "$(cat "$scratch/target")" = precious ]
ok $? "and the file the links name is untouched"
[ -f "$scratch/out/records.tuning" ] && [ ! -L "$scratch/out/records.tuning" ]
ok $? "the export is a file of its own"
check_grep "$scratch/out/records.tuning" '^device=files\|sm_80' "and holds the record"
left=$(find "$scratch/out" -type f ! -name records.tuning | wc -l)
[ "$left" -eq 0 ]
ok $? "no temporary file is left ($left)"

ln -s "$scratch/target" "$scratch/out/linked.tuning"
check_exit 0 "export to a link succeeds" \
    "$CUSPEC" tune --export "$scratch/out/linked.tuning" --all-devices
[ "$(cat "$scratch/target")" = precious ]
ok $? "and replaces the link, not the file it names"
[ -f "$scratch/out/linked.tuning" ] && [ ! -L "$scratch/out/linked.tuning" ]
ok $? "with a file of its own"
mode=$(stat -c %a "$scratch/out/records.tuning")
[ "$mode" = "$(printf %o $((0644 & ~$(umask))))" ]
ok $? "an export has mode 0644 less the umask ($mode)"

# Failures leave nothing behind.
mkdir "$scratch/out/folder"
check_exit 1 "export onto a folder fails" \
    "$CUSPEC" tune --export "$scratch/out/folder" --all-devices
check_grep "$tap_err" "cannot export .*folder" "and says so"
mkdir -m 777 "$scratch/shared"
CUSPEC_CACHE_DIR="$scratch/shared" check_exit 1 "export from a store it may not use fails" \
    "$CUSPEC" tune --export "$scratch/out/none.tuning" --all-devices
check_exit 1 "export into a missing folder fails" \
    "$CUSPEC" tune --export "$scratch/missing/x.tuning" --all-devices
check_grep "$tap_err" "No such file" "and says why"
left=$(find "$scratch/out" -name 'folder?*' -o -name 'none.tuning*' | wc -l)
[ "$left" -eq 0 ]
ok $? "failed exports leave no file ($left)"

# ## Import: only regular files, never waited on.
check_exit 1 "import of a folder fails" "$CUSPEC" tune --import "$scratch/out"
check_grep "$tap_err" "it is a directory" "and says it is a folder"
mkfifo "$scratch/fifo"
# Without a writer, opening a FIFO blocks: `timeout` turns a hang into 124.
check_exit 1 "import of a FIFO fails at once" timeout 20 "$CUSPEC" tune --import "$scratch/fifo"
check_grep "$tap_err" "it is a FIFO" "and says it is a FIFO"
check_exit 1 "import of a device fails" "$CUSPEC" tune --import /dev/null
check_grep "$tap_err" "it is a character device" "and says it is a device"
truncate -s 17M "$scratch/big"
check_exit 1 "import of a 17 MiB file fails" "$CUSPEC" tune --import "$scratch/big"
check_grep "$tap_err" "more than 16777216" "and says it is too large"
printf 'cuspec-tuning 1\nrec\000ord\n' >"$scratch/nul"
check_exit 1 "import of a file with a NUL byte fails" "$CUSPEC" tune --import "$scratch/nul"
check_grep "$tap_err" "nul:2: a NUL byte" "and says where"

# ## Numbers out of range: refused, not wrapped (2^32 + 16 read as 16).
record "$scratch/wrap.tuning" 'n=2^4294967312'
check_exit 1 "import of a bucket past an int fails" "$CUSPEC" tune --import "$scratch/wrap.tuning"
check_grep "$tap_err" "bucket 'n=2\\^4294967312' \\(n=2\\^K, K from 0 to 63\\)" "and says why"
record "$scratch/wide.tuning" 'rows=2^13 cols=2^13 align=64'
sed -i 's/family=reduce/family=transpose/; s/dtype=f64/dtype=u8/; s/op=2/op=0/' "$scratch/wide.tuning"
check_exit 1 "import of an alignment past a sector fails" "$CUSPEC" tune --import "$scratch/wide.tuning"
check_grep "$tap_err" "A a power of two up to 32" "and says why"
# The largest reduction buckets are legal (their alignment class was once
# computed as 1 << 63: undefined), and are read back from the store's keys.
record "$scratch/large.tuning" 'n=2^63'
check_exit 0 "import of bucket n=2^63 succeeds" "$CUSPEC" tune --import "$scratch/large.tuning"
check_exit 0 "the records are listed" "$CUSPEC" tune --list --all-devices
check_grep "$tap_out" '^ *reduce +f64 +max +n=2\^63 ' "bucket n=2^63 among them"
# Axis records name the rows' alignment where it is short of 16 bytes: an
# f32 columns record of rows on 4 bytes is kept and listed as such; 16
# bytes of f32 is no class of its own (those records name none).
axis_record() {
    record "$1" "$2"
    sed -i 's/family=reduce/family=reduce_cols/; s/dtype=f64/dtype=f32/; s/op=2/op=0/
            s/params=.*/params=512 1 8 32 0 0/' "$1"
}
axis_record "$scratch/odd.tuning" 'rows=2^12 cols=2^12 align=1'
check_exit 0 "import of an axis record of rows off the vector succeeds" \
    "$CUSPEC" tune --import "$scratch/odd.tuning"
check_exit 0 "the records are listed" "$CUSPEC" tune --list --all-devices
check_grep "$tap_out" '^ *reduce_cols +f32 +sum +rows=2\^12 cols=2\^12 align=1 ' \
    "the axis record among them, with its class"
axis_record "$scratch/vec.tuning" 'rows=2^12 cols=2^12 align=4'
check_exit 1 "import of an axis record of rows on the vector by name fails" \
    "$CUSPEC" tune --import "$scratch/vec.tuning"
check_grep "$tap_err" "fewer than 16 bytes of its dtype" "and says why"
done_testing
