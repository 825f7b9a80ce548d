#!/bin/sh
# Checks an installed cuspec as its users meet it: the files are there; the
# installed cuspec runs (without LD_LIBRARY_PATH where it was installed for
# good, and with a run path to a library folder the loader does not search);
# a client builds and runs with `pkg-config --cflags --libs cuspec` and with
# CMake's find_package(cuspec CONFIG), whose version file refuses a newer
# version; the example builds both ways and runs where a GPU is.
#
# Usage: tests/installed.sh DESTDIR (empty: the tree `make install` put in
# place, as `make installcheck` checks it). Environment: top_srcdir,
# top_builddir, MAKE, CC (exported: CMake takes it too; with a sanitizer
# build's flags, which its clients need); the install folders come
# from `make install-dirs`.
. "$top_srcdir/tests/tap.sh"
D=$1
unset MAKEFLAGS MFLAGS
eval "$($MAKE -s -C "$top_builddir" install-dirs)" || exit 1
# shellcheck disable=SC2154 # prefix, bindir, ...: set by install-dirs
plan 16

tmp=$(mktemp -d)
trap 'rm -rf "$tmp" "$tap_out" "$tap_err"' EXIT
missing=
for f in "$bindir/cuspec" "$libdir/libcuspec.so" "$includedir/cuspec.h" \
    "$libdir/pkgconfig/cuspec.pc" "$libdir/cmake/cuspec/cuspecConfig.cmake" \
    "$libdir/cmake/cuspec/cuspecConfigVersion.cmake" "$mandir/man1/cuspec.1" \
    "$bashcompletiondir/cuspec" "$docdir/LICENSE" "$docdir/NEWS"; do
    [ -f "$D$f" ] || missing="$missing $D$f"
done
[ -z "$missing" ] || echo "#   missing:$missing"
[ -z "$missing" ]
ok $? "the library, header, pkg-config and CMake files, man page, completion and licence are installed"

# The loader's own folders (libtool's list): elsewhere cuspec needs a run path.
system_dirs=$(sed -n 's/^sys_lib_dlsearch_path_spec="\(.*\)"$/\1/p' "$top_builddir/libtool")
case " $system_dirs " in
*" $libdir "*) needs_rpath=no ;;
*) needs_rpath=yes ;;
esac
readelf -d "$D$bindir/cuspec" | grep -E 'R(UN)?PATH' >"$tap_out"
if [ "$needs_rpath" = yes ]; then
    grep -q -e "\[$libdir[]:]" -e ":$libdir[]:]" "$tap_out"
    ok $? "the installed cuspec has a run path to $libdir, which the loader does not search"
else
    ok 0 "# SKIP $libdir is one of the loader's folders: no run path needed"
fi
if [ -z "$D" ]; then
    check_exit 0 "the installed cuspec runs without LD_LIBRARY_PATH" \
        env -u LD_LIBRARY_PATH "$bindir/cuspec" --version
else
    check_exit 0 "the cuspec installed in DESTDIR runs with its library" \
        env LD_LIBRARY_PATH="$D$libdir" "$D$bindir/cuspec" --version
fi
check_grep "$tap_out" "^cuspec $version\$" "and says its version"
if command -v man >/dev/null; then
    check_exit 0 "its man page formats" man -l "$D$mandir/man1/cuspec.1"
else
    grep '^\.' "$D$mandir/man1/cuspec.1" >"$tap_out"
    ok $? "its man page has roff requests (no man here to format it)"
fi
check_grep "$D$mandir/man1/cuspec.1" "cuspec cache clear" "and holds the commands' help"

# pkg-config: a DESTDIR tree is a sysroot to it.
export PKG_CONFIG_LIBDIR="$D$libdir/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$D"
check_exit 0 "pkg-config --modversion cuspec" pkg-config --modversion cuspec
check_grep "$tap_out" "^$version\$" "is the version"
flags=$(pkg-config --cflags --libs cuspec)
# shellcheck disable=SC2086 # the flags are words
check_exit 0 "a client builds with pkg-config --cflags --libs cuspec ($flags)" \
    $CC -o "$tmp/client-pc" "$top_srcdir/tests/install/client.c" $flags -Wl,-rpath,"$D$libdir"
check_exit 0 "and runs" "$tmp/client-pc"

# CMake: find_package(cuspec VERSION CONFIG) and the target cuspec::cuspec.
if command -v cmake >/dev/null; then
    cmake_client() {
        cmake -S "$top_srcdir/tests/install" -B "$tmp/$1" -DCMAKE_PREFIX_PATH="$D$prefix" \
            -DCUSPEC_WANT="$2" && cmake --build "$tmp/$1"
    }
    check_exit 0 "a client builds with CMake's find_package(cuspec $version CONFIG)" \
        cmake_client cm "$version"
    check_exit 0 "and runs" "$tmp/cm/client"
    check_exit 1 "find_package(cuspec 99.0 CONFIG) is refused by the version file" \
        cmake_client cm99 99.0
else
    for t in "builds with CMake" "runs" "refuses a newer version"; do
        ok 0 "# SKIP no cmake: a client $t"
    done
fi

# The example: the driver API from the toolkit (its stub libcuda links it).
cuda_flags="-I$cuda_dir/include -L$cuda_libdir/stubs -lcuda"
# shellcheck disable=SC2086 # the flags are words
check_exit 0 "the example builds with pkg-config and the toolkit's libcuda" \
    $CC -o "$tmp/example" "$top_srcdir/examples/reduce_transpose.c" $flags $cuda_flags \
    -Wl,-rpath,"$D$libdir"
if command -v cmake >/dev/null && command -v "$cuda_dir/bin/nvcc" >/dev/null; then
    check_exit 0 "the example builds with CMake (cuspec::cuspec, CUDA::cuda_driver)" \
        sh -c 'cmake -S "$1/examples" -B "$2/ex" -DCMAKE_PREFIX_PATH="$3" \
                  -DCUDAToolkit_ROOT="$4" && cmake --build "$2/ex"' \
        sh "$top_srcdir" "$tmp" "$D$prefix" "$cuda_dir"
else
    ok 0 "# SKIP no cmake or no nvcc in $cuda_dir/bin: CMake's FindCUDAToolkit needs both"
fi
if LD_LIBRARY_PATH="$D$libdir" "$D$bindir/cuspec" devices >/dev/null 2>&1; then
    check_exit 0 "the example runs on the GPU: the sum and the transpose are right" "$tmp/example"
    sed 's/^/#   /' "$tap_out"
else
    ok 0 "# SKIP no GPU: the example is built, not run"
fi
done_testing
