#!/bin/sh
# quiet.sh PROGRAM: the sanitizer build's report does not reach a program's stderr when
# every leak is suppressed (tests compare stderr line by line; LeakSanitizer's
# "Suppressions used:" table must not depend on whether a suppressed leak happened).
# PROGRAM is suppressed_leak: it leaks only suppressed blocks.
set -u
prog=$1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() {
    echo "FAIL: $*" >&2
    exit 1
}
# With the table asked for (the environment wins over defaults.c), it is there: the
# leaks are found and suppressed, so the check below can fail.
LSAN_OPTIONS=print_suppressions=1 "$prog" >"$tmp/out" 2>"$tmp/err" ||
    fail "exit $? with print_suppressions=1: $(cat "$tmp/err")"
grep -q 'Suppressions used' "$tmp/err" ||
    fail "LeakSanitizer found no suppressed leak, so this test proves nothing: $(cat "$tmp/err")"
# With the build's defaults: exit 0, the program's own output, nothing on stderr.
env -u LSAN_OPTIONS -u ASAN_OPTIONS "$prog" >"$tmp/out" 2>"$tmp/err" || fail "exit $?: $(cat "$tmp/err")"
[ "$(cat "$tmp/out")" = leaked ] || fail "stdout: $(cat "$tmp/out")"
[ ! -s "$tmp/err" ] || fail "stderr is not empty: $(cat "$tmp/err")"
echo "ok: suppressed leaks leave stderr alone"
