# A small TAP helper for shell tests: source it, call `plan N`, then `ok`,
# `check_exit`, `check_grep`; `skip REASON` prints a skip plan and exits 77.
tap_n=0
tap_failed=0

plan() { echo "1..$1"; }

skip() {
    echo "1..0 # SKIP $*"
    exit 77
}

# ok COND-STATUS NAME: records one test point from a status (0 = pass).
ok() {
    tap_n=$((tap_n + 1))
    if [ "$1" -eq 0 ]; then
        echo "ok $tap_n - $2"
    else
        echo "not ok $tap_n - $2"
        tap_failed=$((tap_failed + 1))
    fi
}

# check_exit EXPECTED NAME CMD...: runs CMD (stdout to $tap_out, stderr to
# $tap_err) and checks its exit status, and that no sanitizer reported
# anything (a report may come with the very status a failure test expects).
# On failure the whole stderr goes to the log: a sanitizer's stacks are
# long, and cut short they do not say where.
tap_out=$(mktemp) tap_err=$(mktemp)
trap 'rm -f "$tap_out" "$tap_err"' EXIT
tap_sanitizer='ERROR: (Address|Leak)Sanitizer|runtime error: '
check_exit() {
    expected=$1 name=$2
    shift 2
    "$@" >"$tap_out" 2>"$tap_err" </dev/null
    got=$?
    reported=0
    grep -Eq "$tap_sanitizer" "$tap_err" && reported=1
    if [ "$got" -ne "$expected" ] || [ "$reported" -ne 0 ]; then
        echo "#   $*: exit $got, expected $expected"
        [ "$reported" -eq 0 ] || echo "#   a sanitizer reported an error:"
        sed 's/^/#   stderr: /' "$tap_err"
    fi
    [ "$got" -eq "$expected" ] && [ "$reported" -eq 0 ]
    ok $? "$name"
}

# check_grep FILE PATTERN NAME: FILE ($tap_out / $tap_err) matches PATTERN.
check_grep() {
    if grep -Eq -- "$2" "$1"; then
        ok 0 "$3"
    else
        echo "#   no line matches /$2/ in:"
        sed 's/^/#     /' "$1" | head -10
        ok 1 "$3"
    fi
}

done_testing() { [ "$tap_failed" -eq 0 ]; }
