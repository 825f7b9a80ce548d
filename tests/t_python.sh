#!/bin/sh
# The Python package's tests (python/tests: plain unittest, TAP from
# python/tests/tap.py) over the library just built. GPU tests among them
# skip, each with its reason, where there is no GPU, PyTorch or CuPy.
. "$top_srcdir/tests/tap.sh"
python=${PYTHON:-python3}
command -v "$python" >/dev/null 2>&1 || skip "no $python: the Python package is not tested"
"$python" -c 'import sys; sys.exit(sys.version_info < (3, 8))' || skip "$python is older than 3.8"
builddir=$(cd "$top_builddir" && pwd)
[ -f "$builddir/src/.libs/libcuspec.so" ] || skip "no shared library was built (--disable-shared)"
# The soname the package loads must be the one built.
soname=$(sed -n 's/^SONAME = "\(.*\)"$/\1/p' "$top_srcdir/python/cuspec/_lib.py")
lib=$builddir/src/.libs/$soname
if [ -z "$soname" ] || [ ! -f "$lib" ]; then
    echo "1..1"
    echo "not ok 1 - python/cuspec/_lib.py loads '$soname', which this build did not make:" \
        "$(cd "$builddir/src/.libs" && ls libcuspec.so.*)"
    exit 1
fi
grep -q libasan "$lib" && skip "the library is built with sanitizers, whose runtime Python does not load"
# The library just built, whatever else is installed (the test of the
# package's own lookup runs without this).
CUSPEC_LIBRARY=$lib
export CUSPEC_LIBRARY
PY_LAYOUT=$builddir/tests/py_layout
export PY_LAYOUT
exec "$python" "$top_srcdir/python/tests/tap.py"
