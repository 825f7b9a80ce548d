#!/bin/sh
# The prebuilt system store that `make` leaves in store/ (configure
# --with-prebuilt-archs): up to date, complete for every arch without NVRTC,
# and installed with modes the store's trust rules accept, whatever the umask.
. "$top_srcdir/tests/tap.sh"
archs=$PREBUILT_ARCHS
[ -n "$archs" ] || skip "configured --with-prebuilt-archs=none: no prebuilt store"
n_archs=$(echo $archs | wc -w)
plan $((3 * n_archs + 10))
tmp=$(mktemp -d)
trap 'rm -rf "$tmp" "$tap_out" "$tap_err"' EXIT
store=$top_builddir/store
# The make run by this test is none of the make running it: no jobserver.
unset MAKEFLAGS MFLAGS

# -o config.h: config.status leaves stamp-h1 newer than an unchanged config.h,
# whose rule then does nothing, but which -q counts as remade.
check_exit 0 "a second make would run nothing: store/.stamp is up to date" \
    $MAKE -q -o config.h -C "$top_builddir" store/.stamp

# found = total for sm_$1 in $tap_out (cuspec compile --json, one arch).
all_found() {
    total=$(sed -n 's/.*"total":\([0-9]*\).*/\1/p' "$tap_out")
    [ "${total:-0}" -gt 0 ] && grep -q "\"arch\":\"sm_$1\".*\"compiled\":0,\"found\":$total,\"failed\":0" "$tap_out"
    status=$?
    [ "$status" -eq 0 ] || sed 's/^/#   /' "$tap_out"
    ok "$status" "sm_$1: all ${total:-0} default specializations found, none compiled"
}

# none WHAT NAME LIST: passes when LIST (lines) is empty, else shows it.
none() {
    [ -z "$3" ] || echo "$3" | sed "s/^/#   $1: /"
    [ -z "$3" ]
    ok $? "$2"
}

# What make ran, again, with NVRTC hidden: nothing may be missing.
: >"$tmp/warnings"
for arch in $archs; do
    CUSPEC_CACHE_DIR=$store CUSPEC_SYSTEM_STORE=$tmp/none CUSPEC_LIBNVRTC=/nonexistent \
        "$CUSPEC" compile --arch "sm_$arch" --json >"$tap_out" 2>>"$tmp/warnings"
    all_found "$arch"
done
none "stderr" "the build's store is used without a warning" "$(cat "$tmp/warnings")"

# With the toolkit's ptxas, sm_120's kernels came from sm_100's PTX.
twins=$(CUSPEC_CACHE_DIR=$store "$CUSPEC" cache ls | grep -c 'ptxas-of=sm_100$')
case " $archs " in
*" 100 "*) case " $archs " in *" 120 "*) pair=yes ;; esac ;;
esac
if [ "${pair:-no}" = yes ]; then [ -z "$PTXAS" ] || [ "$twins" -gt 0 ]; else [ "$twins" -eq 0 ]; fi
ok $? "ptxas made $twins sm_120 cubins of the build's store from sm_100's PTX (ptxas: ${PTXAS:-none})"

# Installed under a umask that would make folders group-writable.
inst=$tmp/cuspec
(umask 002 && $MAKE -s -C "$top_builddir" install-data-local pkgdatadir="$inst") \
    >"$tap_out" 2>"$tap_err"
ok $? "make install-data-local installs the store"
none "not 0755" "every installed folder is 0755" "$(find "$inst" -type d ! -perm 755)"
none "not 0644" "every installed file is 0644" "$(find "$inst" -type f ! -perm 644)"
none "not an entry" "only store/v2's fan-out folders and entries are installed" \
    "$(cd "$inst" && find . ! -path . ! -path ./store ! -path ./store/v2 \
        ! -path './store/v2/??' ! -path './store/v2/??/*.entry')"
built=$(find "$store/v2" -type f -name '*.entry' | wc -l)
installed=$(find "$inst/store/v2" -type f -name '*.entry' | wc -l)
[ "$built" -gt 0 ] && [ "$built" -eq "$installed" ]
ok $? "all $built entries of store/ are installed ($installed)"

# The installed copy as the system store, with an empty user store: trusted
# (a refused folder or entry would be warned about) and complete.
: >"$tmp/warnings"
for arch in $archs; do
    CUSPEC_CACHE_DIR=$tmp/user CUSPEC_SYSTEM_STORE=$inst/store CUSPEC_LIBNVRTC=/nonexistent \
        "$CUSPEC" compile --arch "sm_$arch" --json >"$tap_out" 2>>"$tmp/warnings"
    all_found "$arch"
done
none "stderr" "the installed store is used without a warning" "$(cat "$tmp/warnings")"

# What a packager runs after make install: every arch covered by it alone.
arch_args=$(for arch in $archs; do printf ' --arch sm_%s' "$arch"; done)
CUSPEC_CACHE_DIR=$tmp/user CUSPEC_SYSTEM_STORE=$inst/store CUSPEC_LIBNVRTC=/nonexistent \
    check_exit 0 "cuspec compile --check over the installed store passes" "$CUSPEC" compile --check $arch_args
for arch in $archs; do
    check_grep "$tap_out" "^sm_$arch: [0-9]* specializations without NVRTC: 0 from the user store, [0-9]* from the system store, 0 from shipped PTX, 0 missing\$" \
        "sm_$arch: every specialization from the system store"
done
done_testing
