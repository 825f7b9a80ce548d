#!/bin/sh
# The bash completion (completions/cuspec) offers commands, subcommands,
# options and values, and its lists of dtypes, families and lessons are the
# library's.
. "$top_srcdir/tests/tap.sh"
command -v bash >/dev/null || skip "bash is needed"
# The expected lists are in byte order, whatever the locale.
LC_ALL=C
export LC_ALL
plan 10

# complete WORDS...: what the completion offers for the last word.
complete_words() {
    bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _cuspec
             printf "%s\n" "${COMPREPLY[@]}" | sort' sh "$top_srcdir/completions/cuspec" "$CUSPEC" "$@"
}
offers() { # EXPECTED NAME WORDS...
    expected=$1 name=$2
    shift 2
    got=$(complete_words "$@" | tr '\n' ' ')
    [ "$got" = "$expected " ] || echo "#   offered '$got', expected '$expected '"
    [ "$got" = "$expected " ]
    ok $? "$name"
}
offers "--help --version bench cache compile devices help lessons run tune" "commands and --help, --version" ""
offers "tune" "a command's start" "tu"
offers "--list" "an option of tune, from its help" tune --li
offers "--quiet" "--quiet" devices --qu
offers "clear" "cache's subcommands" cache cl
offers "bf16" "dtypes after --dtype" bench transpose --dtype b
offers "transpose" "families after --family" compile --family tr
offers "tuning" "kinds after --kind" cache clear --kind t
offers "reduce reverse" "lesson names" lessons re

tmp=$(mktemp -d)
trap 'rm -rf "$tmp" "$tap_out" "$tap_err"' EXIT
cat >"$tmp/names.c" <<'END'
#include <cuspec.h>
#include <stdio.h>
int main(void)
{
    for (int i = 1; i < 64; i++)
        if (cuspec_dtype_name(i) != NULL)
            printf("dtypes %s\n", cuspec_dtype_name(i));
    for (int i = 0; cuspec_family_name(i) != NULL; i++)
        printf("families %s\n", cuspec_family_name(i));
    cuspec_lesson_info info;
    for (int i = 0; cuspec_lesson_get_info(i, &info) == CUSPEC_OK; i++)
        printf("lessons %s\n", info.name);
    return 0;
}
END
$CC -I"$top_srcdir/src" -o "$tmp/names" "$tmp/names.c" "$LIBCUSPEC" -Wl,-rpath,"$(dirname "$LIBCUSPEC")" &&
    "$tmp/names" >"$tmp/library"
bash -c '. "$1"; for l in dtypes families lessons; do eval "for n in \$_cuspec_$l; do echo \$l \$n; done"; done' \
    sh "$top_srcdir/completions/cuspec" >"$tmp/completion"
sort "$tmp/library" >"$tmp/a"
sort "$tmp/completion" >"$tmp/b"
diff "$tmp/a" "$tmp/b" | sed 's/^/#   /'
cmp -s "$tmp/a" "$tmp/b"
ok $? "the completion's dtypes, families and lessons are the library's"
done_testing
