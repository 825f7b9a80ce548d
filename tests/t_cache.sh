#!/bin/sh
# `cuspec cache`: stats, ls, verify, clear and prune over a store filled with
# tests/store_put (no compiler needed), their --json output, a refused store,
# and usage errors.
. "$top_srcdir/tests/tap.sh"
store_put=$top_builddir/tests/store_put
[ -x "$store_put" ] || skip "tests/store_put was not built"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch" "$tap_out" "$tap_err"' EXIT
CUSPEC_CACHE_DIR=$scratch/store
CUSPEC_SYSTEM_STORE=$scratch/no-system-store
export CUSPEC_CACHE_DIR CUSPEC_SYSTEM_STORE
unset CUSPEC_CACHE_MAX_BYTES
plan 76

# Payloads of known bytes: a flipped byte is then sure to change.
head -c 5000 /dev/zero | tr '\0' a >"$scratch/small"
head -c 100000 /dev/zero | tr '\0' b >"$scratch/big"
meta=$(printf 'lowered=_Z3onev\nnvrtc=13.0')

check_exit 0 "stats on an empty store exits 0" "$CUSPEC" cache stats
check_grep "$tap_out" "^store +$scratch/store\$" "stats names the store"
check_grep "$tap_out" '^writable +yes' "stats says the store is writable"
check_grep "$tap_out" '^size bound +1\.0 GiB' "stats shows the default bound"

"$store_put" "kernel one" cubin "$scratch/small" "$meta" &&
    "$store_put" "kernel two" ptx "$scratch/small" "nvrtc=13.0" &&
    "$store_put" "tuning one" tuning "$scratch/small"
ok $? "store_put fills the store"

check_exit 0 "stats exits 0" "$CUSPEC" cache stats
check_grep "$tap_out" '^cubin +1 +5\.0 KiB$' "stats counts the cubin and its bytes"
check_grep "$tap_out" '^tuning +1 ' "stats counts the tuning record"
check_exit 0 "stats --json exits 0" "$CUSPEC" cache stats --json
check_grep "$tap_out" '"cubin":\{"entries":1,"bytes":5[0-9]{3}\}' "stats --json has counts by kind"
check_grep "$tap_out" '"max_bytes":1073741824' "stats --json has the bound"
check_grep "$tap_out" '"process":\{"hits":0,' "stats --json has the process counters"

# A temporary file of a writer killed mid-publish: counted until removed.
fan=$(dirname "$(find "$CUSPEC_CACHE_DIR" -name '*.entry' | head -1)")
printf 'half' >"$fan/.tmp-1-0123" && touch -d '1 hour ago' "$fan/.tmp-1-0123"
check_exit 0 "stats with a leftover temporary file exits 0" "$CUSPEC" cache stats
check_grep "$tap_out" '^leftovers +1 temporary or lock files \(4 B\)' "and counts it"
check_exit 0 "verify --repair removes it" "$CUSPEC" cache verify --repair
[ ! -e "$fan/.tmp-1-0123" ]
ok $? "and it is gone"

# A new folder's name is made durable (fsync of the folder holding it)
# before an entry is put in it.
if command -v strace >/dev/null 2>&1; then
    # (LeakSanitizer cannot work under ptrace: off for this one run.)
    strace -f -o "$scratch/trace" -e trace=mkdirat,mkdir,fsync \
        env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
        CUSPEC_CACHE_DIR="$scratch/fresh" "$store_put" "kernel one" cubin "$scratch/small"
    # mkdirat(FD, "name", 0700) = 0 must be followed by fsync(FD).
    awk '{ sub(/^[0-9]+ +/, "") }
         made != "" { if ($0 !~ "^fsync\\(" made "\\) += 0") bad++; made = "" }
         /^mkdirat\(/ && / = 0$/ { made = $0; sub(/^mkdirat\(/, "", made); sub(/,.*/, "", made); n++ }
         END { exit !(n >= 2 && bad == 0) }' "$scratch/trace"
    ok $? "each new folder of the store is followed by an fsync of its parent"
else
    echo "ok $((tap_n + 1)) - each new folder of the store is followed by an fsync # SKIP no strace"
    tap_n=$((tap_n + 1))
fi

check_exit 0 "ls exits 0" "$CUSPEC" cache ls
check_grep "$tap_out" '^ +key +kernel one$' "ls shows the keys"
check_grep "$tap_out" '^ +meta +lowered=_Z3onev$' "ls shows the meta as it is"
check_grep "$tap_out" '^3 entries$' "ls counts the entries"
check_exit 0 "ls --kind ptx exits 0" "$CUSPEC" cache ls --kind ptx
check_grep "$tap_out" '^1 ptx entry$' "ls --kind ptx shows one entry"
! grep -q 'kernel one' "$tap_out"
ok $? "ls --kind ptx leaves the cubin out"
check_exit 0 "ls --json exits 0" "$CUSPEC" cache ls --json
check_grep "$tap_out" '^\{"entries":\[\{"path":"' "ls --json is a list of entries"
check_grep "$tap_out" '"key":"kernel one","meta":"lowered=_Z3onev\\nnvrtc=13.0","problem":null' \
    "ls --json has key, meta and problem"

check_exit 0 "verify on a clean store exits 0" "$CUSPEC" cache verify
check_grep "$tap_out" '^every entry is good$' "verify says the store is clean"
cubin=$("$CUSPEC" cache ls --kind cubin | awk 'NR == 1 { print $NF }')
printf X | dd of="$cubin" bs=1 seek=100 conv=notrunc 2>/dev/null
check_exit 1 "verify on a corrupted store exits 1" "$CUSPEC" cache verify
check_grep "$tap_out" 'checksum mismatch' "verify says what is wrong"
check_grep "$tap_out" "^BAD .*$cubin\$" "verify names the bad file"
check_grep "$tap_out" '^1 bad entry; ' "verify counts the bad entries"
check_exit 1 "verify --json on a corrupted store exits 1" "$CUSPEC" cache verify --json
check_grep "$tap_out" '"n_bad":1,"repaired":false' "verify --json counts the bad entries"
check_exit 0 "verify --repair exits 0" "$CUSPEC" cache verify --repair
check_grep "$tap_out" '^1 bad entry, removed$' "verify --repair says it removed the entry"
check_exit 0 "verify after the repair exits 0" "$CUSPEC" cache verify
[ ! -e "$cubin" ]
ok $? "the bad entry's file is gone"

check_exit 0 "clear --kind tuning exits 0" "$CUSPEC" cache clear --kind tuning
check_grep "$tap_out" '^removed 1 entry \(1 tuning\)$' "clear says what it removed"
"$store_put" "a tuning record" tuning "$scratch/small"
ok $? "store_put publishes a tuning record"
check_exit 0 "clear --yes exits 0" "$CUSPEC" cache clear --yes
check_grep "$tap_out" '^removed 1 entry \(0 cubin, 1 ptx\)$' \
    "clear without --kind removes the compiled kernels"
check_exit 0 "stats --json after it exits 0" "$CUSPEC" cache stats --json
check_grep "$tap_out" '"ptx":\{"entries":0,.*"tuning":\{"entries":1,' \
    "and the tuning record is kept"
check_exit 0 "clear --all exits 0" "$CUSPEC" cache clear --all --json
check_grep "$tap_out" '^\{"removed":\{"cubin":0,"ptx":0,"tuning":1,"bad":0\}\}$' \
    "clear --all removes the tuning record too"
check_exit 0 "stats --json after clear exits 0" "$CUSPEC" cache stats --json
check_grep "$tap_out" '"cubin":\{"entries":0,.*"ptx":\{"entries":0,.*"tuning":\{"entries":0,' \
    "the store is empty after clear"

for i in 1 2 3 4 5; do
    "$store_put" "big $i" cubin "$scratch/big" || break
done
ok $? "store_put publishes five 100 KB entries"
check_exit 0 "prune --max-bytes 250K exits 0" "$CUSPEC" cache prune --max-bytes 250K
check_grep "$tap_out" '^removed 3 entries; compiled entries take 195\.[0-9] KiB of 250\.0 KiB$' \
    "prune removes the least recently used down to the bound"
check_exit 0 "prune --json exits 0" "$CUSPEC" cache prune --max-bytes 100K --json
check_grep "$tap_out" '^\{"removed":1,"compiled_bytes":[0-9]+,"max_bytes":102400\}$' \
    "prune --json says what it removed"
"$CUSPEC" cache ls | grep -q 'big 5$'
ok $? "the most recently used entry is kept"

check_exit 2 "cache without a subcommand exits 2" "$CUSPEC" cache
check_exit 2 "an unknown subcommand exits 2" "$CUSPEC" cache frob
check_grep "$tap_err" "unknown subcommand 'frob'" "the unknown subcommand is named"
check_exit 2 "an unknown option exits 2" "$CUSPEC" cache stats --frob
check_exit 2 "another subcommand's option exits 2" "$CUSPEC" cache stats --repair
check_exit 2 "an unknown kind exits 2" "$CUSPEC" cache ls --kind elf
check_exit 2 "a bad size exits 2" "$CUSPEC" cache prune --max-bytes 12X
check_exit 2 "an option without its value exits 2" "$CUSPEC" cache ls --kind
check_exit 0 "cache verify --help exits 0" "$CUSPEC" cache verify --help
check_grep "$tap_out" '^Usage: cuspec cache stats' "the help shows the usage"

mkdir -m 0770 "$scratch/shared"
check_exit 1 "ls on a group-writable store exits 1" \
    env CUSPEC_CACHE_DIR="$scratch/shared" "$CUSPEC" cache ls
check_grep "$tap_err" "^cuspec: warning: the store folder $scratch/shared is not used.*: $scratch/shared is writable by group.*fix: chmod go-w" \
    "a refused store is warned about on stderr, with the fix"

# An empty folder where an entry belongs: bad, and repair removes it.
"$store_put" "kernel three" cubin "$scratch/small" "$meta"
entry=$("$CUSPEC" cache ls --json | tr '{' '\n' | sed -n 's/.*"path":"\([^"]*\)".*"key":"kernel three".*/\1/p')
rm -f "$entry" && mkdir "$entry"
check_exit 1 "verify finds a folder where an entry belongs" "$CUSPEC" cache verify
check_grep "$tap_out" 'not a regular file' "and says what is wrong"
check_exit 0 "verify --repair removes it" "$CUSPEC" cache verify --repair
check_exit 0 "and verify then finds nothing bad" "$CUSPEC" cache verify

# clear --all removes what lookups moved aside too.
# What cuspec did not put there (a name of another form) is left alone.
q=$CUSPEC_CACHE_DIR/quarantine
mkdir -p "$q" && : >"$q/0123456789abcdef0123456789abcd.entry-0123456789abcdef" && : >"$q/notes.txt"
check_exit 0 "clear --all exits 0" "$CUSPEC" cache clear --all
[ "$(ls -A "$q")" = notes.txt ]
ok $? "and empties the quarantine of what cuspec moved there"

# JSON is UTF-8: a key with other bytes keeps its characters, and each byte
# that is none shows as '?'.
"$store_put" "$(printf 'caf\303\251 \377 key')" cubin "$scratch/small"
check_exit 0 "ls --json of a key that is not UTF-8 exits 0" "$CUSPEC" cache ls --json
check_grep "$tap_out" "$(printf '"key":"caf\303\251 [?] key"')" "and shows its other bytes as '?'"
done_testing
