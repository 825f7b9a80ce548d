#!/bin/sh
# One PTX, several archs' cubins (jit.c): with CUSPEC_PTXAS naming the
# toolkit's ptxas, `cuspec compile` for several archs hands a kernel's PTX
# to ptxas for each arch NVRTC makes the same PTX for, and those cubins hold
# the same code as NVRTC's own; an arch the template tells apart is left to
# NVRTC; a ptxas of another release, one that fails and a relative path
# change nothing but the time.
. "$top_srcdir/tests/tap.sh"
[ -n "$PTXAS" ] || skip "configure found no ptxas"
command -v readelf >/dev/null || skip "readelf (binutils) is needed"
plan 22
tmp=$(mktemp -d)
trap 'rm -rf "$tmp" "$tap_out" "$tap_err"' EXIT

# twins STORE ARCH: how many of STORE's entries ptxas made from sm_ARCH's PTX.
twins() {
    CUSPEC_CACHE_DIR=$1 "$CUSPEC" cache ls | grep -c "ptxas-of=sm_$2\$"
}

# code ENTRY: the cubin of a store entry (layout: src/store_entry.c), every
# section but ptxas's note on itself, as readelf dumps them.
code() {
    set -- "$1" $(od -An -tu4 -j16 -N8 "$1") $(od -An -tu8 -j24 -N8 "$1")
    tail -c +$((41 + $2 + $3)) "$1" | head -c "$4" >"$tmp/cubin"
    readelf -S -W "$tmp/cubin" 2>/dev/null | sed -n 's/^ *\[ *[0-9]*\] \([^ ][^ ]*\) .*/\1/p' |
        grep -vx '.note.nv.tkinfo' | while read -r section; do
            readelf -x "$section" "$tmp/cubin" 2>/dev/null
        done
}

# sm_100 and sm_120: NVRTC 13 makes the same PTX for both. More threads than
# kernels of a template: the others wait while one settles the pair.
CUSPEC_CACHE_DIR=$tmp/a CUSPEC_PTXAS=$PTXAS check_exit 0 \
    "compile the lessons for sm_100 and sm_120 with CUSPEC_PTXAS" \
    "$CUSPEC" compile --family lessons --arch sm_100 --arch sm_120 --jobs 8 --json
check_grep "$tap_out" '"arch":"sm_120".*"failed":0' "none failed"
total=$(sed -n 's/.*"arch":"sm_120".*"total":\([0-9]*\).*/\1/p' "$tap_out")
n=$(twins "$tmp/a" 100)
[ "${total:-0}" -gt 0 ] && [ "$n" -ge $((total / 2)) ]
ok $? "ptxas made $n of the ${total:-0} sm_120 cubins from the sm_100 PTX"
check_grep "$tap_out" "\"arch\":\"sm_120\".*\"by_ptxas\":$n}" "and the report counts them"

CUSPEC_CACHE_DIR=$tmp/b check_exit 0 "compile them for sm_120 without it" \
    "$CUSPEC" compile --family lessons --arch sm_120
[ "$(twins "$tmp/b" 100)" -eq 0 ]
ok $? "then NVRTC made them all"
checked=0 differ=0
for entry in $(grep -rl 'ptxas-of=sm_100' "$tmp/a/v2"); do
    code "$entry" >"$tmp/made"
    code "$tmp/b/${entry#"$tmp/a/"}" >"$tmp/own"
    checked=$((checked + 1))
    if ! grep -q "section '.text" "$tmp/made" || ! cmp -s "$tmp/made" "$tmp/own"; then
        differ=$((differ + 1))
        echo "#   ${entry#"$tmp/a/"}: not the code of NVRTC's own cubin"
    fi
done
[ "$checked" -eq "$n" ] && [ "$differ" -eq 0 ]
ok $? "each holds the code of NVRTC's own sm_120 cubin ($checked compared, $differ differ)"

# sm_75 and sm_80: the lessons never test the arch; copy.cuh tells sm_80
# from sm_90 (prior_grid.cuh's dependent launch from 900).
CUSPEC_CACHE_DIR=$tmp/c CUSPEC_PTXAS=$PTXAS check_exit 0 "compile the lessons for sm_75 and sm_80" \
    "$CUSPEC" compile --family lessons --arch sm_75 --arch sm_80 --jobs 8
[ "${total:-0}" -gt 0 ] && [ "$(twins "$tmp/c" 75)" -ge $((total / 2)) ]
ok $? "ptxas made most sm_80 cubins from the sm_75 PTX ($(twins "$tmp/c" 75))"
CUSPEC_CACHE_DIR=$tmp/d CUSPEC_PTXAS=$PTXAS check_exit 0 "compile copy for sm_80 and sm_90" \
    "$CUSPEC" compile --family copy --arch sm_80 --arch sm_90
[ "$(twins "$tmp/d" 80)" -eq 0 ]
ok $? "NVRTC made the sm_90 copy kernel: its template tests the arch between them"

# Fakes: another release's ptxas; one of the right release that fails,
# and one that also leaves a cubin (some other kernel's) where its output
# goes; a relative path. Each notes that it was asked for a cubin.
release=$("$PTXAS" --version | grep -o 'release [0-9]*\.[0-9]*')
fake() { # fake NAME BANNER THEN
    printf '#!/bin/sh\n[ "$1" = --version ] && { echo "Cuda compilation tools, %s, V0"; exit 0; }\n: >"%s"\n%s\nexit 1\n' \
        "$2" "$tmp/$1-ran" "$3" >"$tmp/$1"
    chmod 755 "$tmp/$1"
}
fake old-ptxas "release 1.0" ""
fake bad-ptxas "$release" ""
fake liar-ptxas "$release" "cp '$tmp/cubin' \"\$3\""
for how in "$tmp/old-ptxas:another release's" "$tmp/bad-ptxas:a failing" \
    "$tmp/liar-ptxas:a failing (that leaves a cubin)" "ptxas:a relative"; do
    store=$tmp/store-$(echo "$how" | cut -d: -f2 | tr -c 'a-z\n' '-')
    CUSPEC_CACHE_DIR=$store CUSPEC_PTXAS=${how%%:*} check_exit 0 \
        "with ${how#*:} ptxas, the lessons still compile for sm_75 and sm_80" \
        "$CUSPEC" compile --family lessons --arch sm_75 --arch sm_80
    [ "$(twins "$store" 75)" -eq 0 ]
    ok $? "and NVRTC made them all"
done
[ ! -f "$tmp/old-ptxas-ran" ] && [ -f "$tmp/bad-ptxas-ran" ] && [ -f "$tmp/liar-ptxas-ran" ]
ok $? "another release's ptxas was never asked for a cubin, the failing ones were"

# A host that ignores SIGCHLD (perl sets that and keeps it across exec;
# perl-base is essential in Debian): ptxas's exit status is lost, so no
# ptxas is used.
rm -f "$tmp/liar-ptxas-ran"
CUSPEC_CACHE_DIR=$tmp/chld CUSPEC_PTXAS=$tmp/liar-ptxas check_exit 0 \
    "with SIGCHLD ignored, the lessons still compile for sm_75 and sm_80" \
    perl -e '$SIG{CHLD} = "IGNORE"; exec @ARGV or exit 127' \
    "$CUSPEC" compile --family lessons --arch sm_75 --arch sm_80
[ "$(twins "$tmp/chld" 75)" -eq 0 ] && [ ! -f "$tmp/liar-ptxas-ran" ]
ok $? "and NVRTC made them all: a ptxas whose exit status cannot be had is not used"
done_testing
