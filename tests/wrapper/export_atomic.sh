#!/usr/bin/env bash
# export -o under concurrent writers: two exports to one textfile at once, many times, and
# the file is always a whole export (`promtool check metrics` clean: node_exporter drops the
# whole textfile otherwise), whichever writer renamed last; no temporary file is left. One
# writer slowed (strace delays its first write by 3 s, once the other has started) is the
# case that broke the shared FILE.tmp: the other truncated and renamed it under the slow one,
# which then wrote into the live file. A symlink at the target is refused with one line and
# nothing is written through it (report -o too). The file gets the mode a new file gets
# (0666 less the umask), so node_exporter's user can read it. Skipped (77) without promtool
# (Debian package prometheus), after the symlink checks; the slowed writer needs strace.
BIN=$(cd "$1" && pwd) SRC=$2
. "$SRC/tests/lib.sh"
. "$SRC/tests/wrapper/analysis_lib.sh"
SC="$BIN/streamcard"
umask 022

base=$(small_run base)
other=$(small_run other -- --kernel triad)
failed=$(small_run failed STREAMCARD_FAULT=corrupt)
DIR=$WORK/textfile
PROM=$DIR/streamcard.prom
mkdir -p "$DIR"

# 1. A symlink at the target: refused, one line, nothing written through it.
ln -s "$WORK/elsewhere.prom" "$PROM"
expect_status 3 "$SC" export --prometheus -o "$PROM" "$base"
expect_line_count "$WORK/err" 1
expect_contains "$WORK/err" "streamcard: export: $PROM: a symlink, not written (valid: a regular file or a new name)"
[ ! -e "$WORK/elsewhere.prom" ] || fail "export wrote through the symlink"
[ -L "$PROM" ] || fail "the symlink was replaced"
expect_status 3 "$SC" report "$base" -o "$PROM"
expect_contains "$WORK/err" "streamcard: report: $PROM: a symlink, not written"
[ ! -e "$WORK/elsewhere.prom" ] || fail "report wrote through the symlink"
rm "$PROM"
# A target in a folder that is not there: refused, nothing left anywhere.
expect_status 3 "$SC" export --prometheus -o "$WORK/nodir/streamcard.prom" "$base"
expect_contains "$WORK/err" "cannot make a temporary file in $WORK/nodir"

expect_status 0 "$SC" export --prometheus -o "$PROM" "$base"
[ "$(stat -c %a "$PROM")" = 644 ] || fail "mode $(stat -c %a "$PROM"), not 644 under umask 022"
if ! command -v promtool >/dev/null; then
    echo "skip: no promtool (Debian package prometheus) to check the exports"
    exit 77
fi
# lint FILE WHAT: promtool finds nothing to say about FILE.
lint() {
    promtool check metrics <"$1" >"$WORK/lint" 2>&1 || fail "$2: promtool: $(cat "$WORK/lint")"
    [ ! -s "$WORK/lint" ] || fail "$2: promtool complains: $(cat "$WORK/lint")"
}
# settled: the folder holds the textfile and nothing else (no temporary file left over).
settled() {
    local left
    left=$(ls -A "$DIR")
    [ "$left" = streamcard.prom ] || fail "$1: the folder holds: $left"
}
lint "$PROM" "one export"

# 2. Two writers at once, 20 times: a short export and a longer one, started together; a
# reader copies the live file while they write. Each copy and the file after are whole.
for i in $(seq 20); do
    "$SC" export --prometheus -o "$PROM" "$base" 2>"$WORK/w1.err" & w1=$!
    "$SC" export --prometheus -o "$PROM" "$base" "$other" "$failed" 2>"$WORK/w2.err" & w2=$!
    n=0
    while kill -0 "$w1" 2>/dev/null || kill -0 "$w2" 2>/dev/null; do
        cp "$PROM" "$WORK/seen.$((n++ % 4))" 2>/dev/null || true
    done
    wait "$w1" || fail "pair $i: the first writer failed: $(cat "$WORK/w1.err")"
    wait "$w2" || fail "pair $i: the second writer failed: $(cat "$WORK/w2.err")"
    for s in "$WORK"/seen.*; do [ ! -e "$s" ] || lint "$s" "pair $i: a reader's copy"; done
    rm -f "$WORK"/seen.*
    lint "$PROM" "pair $i"
    settled "pair $i"
done

# 3. One writer slowed: its first write waits 3 s (strace), and the other writer starts once
# the slow one has made its temporary file, and ends before the slow one writes. 5 times.
if ! command -v strace >/dev/null; then
    echo "skip: no strace to slow one writer (contrib/install-deps installs it)"
    exit 77
fi
# LeakSanitizer cannot run under ptrace: the slowed writer (only) goes without it in the
# sanitizer build; the other writers keep it.
for i in $(seq 5); do
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -qq -f -o /dev/null -e trace=write -e inject=write:delay_enter=3000000:when=1 \
        "$SC" export --prometheus -o "$PROM" "$base" 2>"$WORK/slow.err" & slow=$!
    for _ in $(seq 200); do # until the slow writer's temporary file is there (at most 20 s)
        [ "$(ls -A "$DIR" | grep -vcx streamcard.prom)" = 0 ] || break
        sleep 0.1
    done
    [ "$(ls -A "$DIR" | grep -vcx streamcard.prom)" != 0 ] || fail "slowed $i: no temporary file"
    expect_status 0 "$SC" export --prometheus -o "$PROM" "$base" "$other" "$failed"
    lint "$PROM" "slowed $i: the fast writer's file"
    status=0
    wait "$slow" || status=$?
    lint "$PROM" "slowed $i: the file after both"
    [ "$status" = 0 ] || fail "slowed $i: the slow writer failed: $(cat "$WORK/slow.err")"
    expect_not_contains "$PROM" 'card="other"' # the slow writer renamed last: its export
    settled "slowed $i"
done
echo "ok: export_atomic"
