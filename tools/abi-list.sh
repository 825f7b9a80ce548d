#!/bin/sh
# The library's interface as a list: its libtool version-info, the symbols
# libcuspec.so exports, and each public struct's size and member declarations.
# The committed list (src/cuspec.abi) is compared with the build's by
# tests/t_abi.sh and rewritten by `make abi-list`, which refuses to record a
# changed interface under a version-info that does not say so (the rule is in
# README.md, "Versions and the ABI").
#
# Usage: tools/abi-list.sh print|check|update LIST VERSION_INFO LIBRARY HEADER CC
#   print   the build's list on stdout
#   check   0 when LIST is the build's; else say what changed and what to do
#   update  write the build's list to LIST, if the version-info allows it
set -u
mode=$1 list=$2 version_info=$3 library=$4 header=$(cd "$(dirname "$5")" && pwd)/${5##*/} cc=$6
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# The public structs, each as one line: "NAME member;member;...". The
# preprocessed header has no comments; its text is joined into one line and
# cut at each "typedef struct cuspec_x {".
structs() {
    { $cc -E -P -x c "$header" | tr '\n\t' '  ' && echo; } |
        sed 's/typedef struct /\n&/g' |
        sed -n 's/^typedef struct \(cuspec_[a-z0-9_]*\) *{\(.*\)} *\1 *;.*/\1 \2/p' |
        sed 's/  */ /g; s/ *; */;/g; s/ *\([][(),*]\) */\1/g'
}

print() {
    echo "# The interface of libcuspec: \`make abi-list\` writes this file (see README.md,"
    echo "# \"Versions and the ABI\"), tests/t_abi.sh compares the build with it."
    echo "# Struct sizes are those of $(uname -m)."
    echo "version-info $version_info"
    nm -D --defined-only "$library" | awk '$NF ~ /^cuspec_/ {print "symbol " $NF}' | LC_ALL=C sort
    structs >"$tmp/structs" || return 1
    {
        echo '#include <stdio.h>'
        echo "#include \"$header\""
        echo 'int main(void) {'
        while read -r name members; do
            printf 'printf("struct %s %%zu\\n", sizeof(%s));\n' "$name" "$name"
            echo "$members" | tr ';' '\n' | while read -r m; do
                [ -n "$m" ] && echo "puts(\"member $name $m\");"
            done
        done <"$tmp/structs"
        echo 'return 0; }'
    } >"$tmp/sizes.c"
    $cc -o "$tmp/sizes" "$tmp/sizes.c" && "$tmp/sizes"
}

print >"$tmp/new" || { echo "tools/abi-list.sh: cannot list the interface" >&2; exit 1; }
if [ "$mode" = print ]; then
    cat "$tmp/new"
    exit 0
fi

# Only the interface: no comments, no version-info; sizes only for this arch.
interface() {
    arch=$(sed -n 's/^# Struct sizes are those of \(.*\)\.$/\1/p' "$1")
    grep -v '^#\|^version-info ' "$1" |
        if [ "$arch" = "$(uname -m)" ]; then cat; else grep -v '^struct '; fi
}
old_version=$(sed -n 's/^version-info //p' "$list" 2>/dev/null)
interface "$tmp/new" >"$tmp/new.i"
interface "$list" >"$tmp/old.i" 2>/dev/null || : >"$tmp/old.i"

# Compatible: symbols and members only added, sizes unchanged, and an old
# struct's members (its reserved space aside) still first and in order.
LC_ALL=C sort "$tmp/old.i" >"$tmp/old.s"
LC_ALL=C sort "$tmp/new.i" >"$tmp/new.s"
compatible=yes
LC_ALL=C comm -23 "$tmp/old.s" "$tmp/new.s" | grep -v '^member [a-z0-9_]* .* reserved\[' >"$tmp/gone"
[ -s "$tmp/gone" ] && compatible=no
sed -n 's/^struct \([a-z0-9_]*\) .*/\1/p' "$tmp/old.i" >"$tmp/names"
while read -r s; do
    grep "^member $s " "$tmp/old.i" | grep -v ' reserved\[' >"$tmp/o"
    grep "^member $s " "$tmp/new.i" | grep -v ' reserved\[' | head -n "$(wc -l <"$tmp/o")" >"$tmp/n"
    cmp -s "$tmp/o" "$tmp/n" || compatible=no
done <"$tmp/names"

describe() {
    echo "  removed or changed (callers built before break):"
    sed 's/^/    - /' "$tmp/gone"
    echo "  added:"
    LC_ALL=C comm -13 "$tmp/old.s" "$tmp/new.s" | sed 's/^/    + /'
}

# The version-info a change needs, from the list's (current:revision:age).
IFS=: read -r c _ a <<EOF
${old_version:-0:0:0}
EOF
if [ "$compatible" = yes ]; then
    want="$((c + 1)):0:$((a + 1))"
    why="an addition: current + 1, revision 0, age + 1"
else
    want="$((c + 1)):0:0"
    why="callers built before break: current + 1, revision 0, age 0 (a new soname)"
fi
IFS=: read -r nc nr na <<EOF
$version_info
EOF
bumped=no
if [ "$nc" -gt "$c" ] && [ "$nr" -eq 0 ]; then
    if [ "$compatible" = yes ] && [ $((nc - na)) -eq $((c - a)) ]; then bumped=yes; fi
    if [ "$compatible" = no ] && [ $((nc - na)) -gt $((c - a)) ]; then bumped=yes; fi
fi

if cmp -s "$tmp/old.i" "$tmp/new.i"; then
    if [ "$mode" = check ] && [ "$old_version" != "$version_info" ]; then
        echo "configure.ac's version-info is $version_info, $list's $old_version: run 'make abi-list'"
        exit 1
    fi
elif [ "$bumped" = no ]; then
    echo "The library's interface changed ($why) but its version-info did not say so:"
    describe
    echo "Set CUSPEC_LT_VERSION in configure.ac to $want (from $old_version), add the change"
    echo "to NEWS, then run 'make abi-list' to record the new interface in $list."
    exit 1
elif [ "$mode" = check ]; then
    echo "The interface changed and configure.ac's version-info ($version_info) says so;"
    echo "run 'make abi-list' to record it in $list:"
    describe
    exit 1
fi
if [ "$mode" = update ]; then
    cp "$tmp/new" "$list" && echo "wrote $list (version-info $version_info)"
fi
exit 0
