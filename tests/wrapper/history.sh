#!/usr/bin/env bash
# streamcard history: real bundles added once each (by digest), a tampered one refused with
# why, a failed one kept without figures; show as a table, CSV and JSON; a text file,
# another application's SQLite file and a corrupt store refused with one line and left
# byte for byte as they were; two `history add` of the same bundles at once; synthetic
# histories (tests/wrapper/history_synth.c, through the same write as add) of 200 bundles:
# a 10% step at bundle 120 found within +-3 bundles as a new confirmed change (exit 1)
# naming what differs, then old (exit 0), and no change point in 20 flat histories of the
# same noise; the JUnit report; the page's trend drawn with its change point, checked in
# the DOM headless Chromium builds and in its screenshot (the plot spans the window).
BIN=$(cd "$1" && pwd) SRC=$2
. "$SRC/tests/lib.sh"
. "$SRC/tests/wrapper/analysis_lib.sh"
. "$SRC/tests/wrapper/screenshot_lib.sh"
SC="$BIN/streamcard"
DB="$WORK/h.db"

count_bundles() { python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("select count(*) from bundle").fetchone()[0])' "$1"; }

base=$(small_run base)
thr1=$(small_run thr1 -- --threads 1)
failed=$(small_run failed STREAMCARD_FAULT=corrupt)
tampered=$(copy_bundle "$base" tampered)
printf ' ' >>"$tampered/results.json"

expect_status 0 "$SC" history add --db "$DB" "$base" "$thr1"
expect_contains "$WORK/out" "added $base"
expect_contains "$WORK/err" "2 added, 0 there already, 0 refused"
expect_status 0 "$SC" history add --db "$DB" "$base" "$thr1"
expect_contains "$WORK/err" "0 added, 2 there already, 0 refused"
expect_status 1 "$SC" history add --db "$DB" "$tampered"
expect_contains "$WORK/err" "refused: "
expect_contains "$WORK/err" "results.json"
expect_status 0 "$SC" history add --db "$DB" "$failed"
expect_contains "$WORK/out" "failed gates, no figures: failed gates: validation"
[ "$(count_bundles "$DB")" = 3 ] || fail "expected 3 bundles in the store"

# show: both real bundles (the failed one has no figure), by card and by variable.
expect_status 0 "$SC" history show --db "$DB" --card base
expect_contains "$WORK/out" "base on "
expect_contains "$WORK/out" "$(basename "$base")"
expect_not_contains "$WORK/out" "$(basename "$failed")"
expect_status 0 "$SC" history show --db "$DB" --var threads=1 --csv
python3 - "$WORK/out" "$(basename "$thr1")" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert [r["bundle"] for r in rows] == [sys.argv[2]], rows
assert rows[0]["metric"] == "copy" and float(rows[0]["median"]) > 0, rows
PY
expect_status 0 "$SC" history show --db "$DB" --json --metric copy
python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); assert {x["card"] for x in s} == {"base","thr1"}, s' "$WORK/out" ||
    fail "show --json"
expect_status 2 "$SC" history show --db "$DB" --metric nope
expect_status 2 "$SC" history show --db "$DB" "$base"
expect_contains "$WORK/err" "takes no bundle"

# Files that are not ours: refused with one line, never written.
printf 'my notes\n' >"$WORK/notes.txt"
python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute("create table t(x)"); c.execute("insert into t values(1)"); c.commit()' "$WORK/other.db"
cp "$DB" "$WORK/corrupt.db"
python3 - "$WORK/corrupt.db" <<'PY'
import sys
f = open(sys.argv[1], "r+b")
page = int.from_bytes(f.read(18)[16:18], "big")
for p in range(1, 4):          # the b-tree pages after the first: garbage
    f.seek(page * p)
    f.write(b"\xa5" * 64)
PY
for f in notes.txt other.db corrupt.db; do
    before=$(sha256sum "$WORK/$f")
    for cmd in "add --db $WORK/$f $base" "show --db $WORK/$f" "check --db $WORK/$f"; do
        # shellcheck disable=SC2086
        expect_status 3 "$SC" history $cmd
        [ "$(wc -l <"$WORK/err")" -le 2 ] || fail "$f: more than one line: $(cat "$WORK/err")"
    done
    [ "$(sha256sum "$WORK/$f")" = "$before" ] || fail "$f was changed"
    [ ! -e "$WORK/$f-wal" ] || [ "$f" = corrupt.db ] || fail "$f got a WAL file"
done
expect_status 3 "$SC" history show --db "$WORK/notes.txt"
expect_contains "$WORK/err" "not a streamcard history: not a SQLite database; left as it is"
expect_status 3 "$SC" history show --db "$WORK/other.db"
expect_contains "$WORK/err" "a SQLite database of another application"
expect_status 3 "$SC" history show --db "$WORK/corrupt.db"
grep -q "corrupt\|malformed" "$WORK/err" || fail "corrupt store: $(cat "$WORK/err")"

# Two writers at once, the same bundles: each bundle once, neither fails.
for round in 1 2 3; do
    rm -f "$WORK/c.db"*
    "$SC" history add --db "$WORK/c.db" "$base" "$thr1" "$failed" >"$WORK/a.out" 2>"$WORK/a.err" &
    a=$!
    "$SC" history add --db "$WORK/c.db" "$failed" "$thr1" "$base" >"$WORK/b.out" 2>"$WORK/b.err" &
    b=$!
    wait $a || fail "round $round: the first writer failed: $(cat "$WORK/a.err")"
    wait $b || fail "round $round: the second writer failed: $(cat "$WORK/b.err")"
    [ "$(count_bundles "$WORK/c.db")" = 3 ] || fail "round $round: $(count_bundles "$WORK/c.db") bundles"
    [ "$(cat "$WORK/a.out" "$WORK/b.out" | grep -c '^added')" = 3 ] || fail "round $round: added twice"
done

# Two writers making one new history, 100 times: the second may find the first between its
# schema and its switch to WAL (SQLite then answers "database is locked" at once, without
# waiting; before the fix about 1 round in 40 failed so).
for round in $(seq 1 100); do
    rm -f "$WORK/n.db"*
    "$SC" history add --db "$WORK/n.db" "$base" >/dev/null 2>"$WORK/a.err" &
    a=$!
    "$SC" history add --db "$WORK/n.db" "$base" >/dev/null 2>"$WORK/b.err" &
    b=$!
    wait $a || fail "new history, round $round: the first writer failed: $(cat "$WORK/a.err")"
    wait $b || fail "new history, round $round: the second writer failed: $(cat "$WORK/b.err")"
done
[ "$(count_bundles "$WORK/n.db")" = 1 ] || fail "new history: $(count_bundles "$WORK/n.db") bundles"

# A 10% step at bundle 120 of 200 under 5% noise: one new confirmed change within +-3,
# naming the binary that changed; then it is old. --no-record leaves it new.
S="$BIN/history_synth"
for seed in 1 2 3 4 5; do
    rm -f "$WORK/s.db"*
    "$S" "$WORK/s.db" 200 --step 120 0.9 --seed "$seed" || fail "history_synth"
    expect_status 1 "$SC" history check --db "$WORK/s.db" --no-record
    expect_status 1 "$SC" history check --db "$WORK/s.db" --junit "$WORK/j.xml"
    expect_line_count "$WORK/out" 1
    expect_contains "$WORK/out" "NEW synthetic node1 copy: confirmed at "
    expect_contains "$WORK/out" "slower"
    expect_contains "$WORK/out" ": binary_sha256"
    at=$(sed -n 's/.*and synthetic_\([0-9]*\) (first of.*/\1/p' "$WORK/out")
    [ $((10#$at)) -ge 117 ] && [ $((10#$at)) -le 123 ] || fail "seed $seed: change at $at, the step is at 120"
    python3 - "$WORK/j.xml" <<'PY' || fail "junit"
import sys, xml.etree.ElementTree as ET
s = ET.parse(sys.argv[1]).getroot().find("testsuite")
assert s.get("tests") == "1" and s.get("failures") == "1", s.attrib
assert s.find("testcase/failure").get("message") == "a new confirmed change point"
PY
    expect_status 0 "$SC" history check --db "$WORK/s.db"
    [ ! -s "$WORK/out" ] || fail "a remembered change was reported again: $(cat "$WORK/out")"
done
# The JUnit report is written whole, never through a link: refused before the check.
ln -s "$WORK/elsewhere.xml" "$WORK/link.xml"
expect_status 3 "$SC" history check --db "$WORK/s.db" --junit "$WORK/link.xml"
expect_contains "$WORK/err" "--junit $WORK/link.xml: a symlink, not written"
[ ! -e "$WORK/elsewhere.xml" ] || fail "written through a link"
cp "$WORK/s.db" "$WORK/step.db"
# The same noise without a step, 20 histories: the false alarms are counted (0 expected: the
# level is 0.001 per series).
alarms=0
for seed in $(seq 101 120); do
    rm -f "$WORK/f.db"*
    "$S" "$WORK/f.db" 200 --seed "$seed" || fail "history_synth"
    "$SC" history check --db "$WORK/f.db" >"$WORK/out" 2>"$WORK/err"
    case $? in 0) ;; 1 | 4) alarms=$((alarms + 1)) ;; *) fail "check: $(cat "$WORK/err")" ;; esac
done
echo "flat histories: $alarms false alarms in 20"
[ "$alarms" = 0 ] || fail "$alarms false alarms in 20 flat histories"

# The page: one trend, its 200 points and the change point, labelled; nothing external.
expect_status 0 "$SC" history report --db "$WORK/step.db" -o "$WORK/page.html"
for bad in "<script" " src=" " href=" "url(" "@import" "<link" "<iframe"; do
    expect_not_contains "$WORK/page.html" "$bad"
done
chromium=$(command -v chromium || command -v chromium-browser || true)
[ -n "$chromium" ] || { echo "skip: no chromium for the DOM and screenshot checks"; exit 77; }
timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --disable-background-networking \
    --disable-component-update --no-first-run --disable-sync --user-data-dir="$WORK/profile" \
    --dump-dom "file://$WORK/page.html" >"$WORK/dom.html" 2>"$WORK/chromium.err" ||
    fail "chromium --dump-dom: $(tail -3 "$WORK/chromium.err")"
python3 - "$WORK/dom.html" <<'PY' || fail "the DOM of the page"
import sys
from html.parser import HTMLParser
class P(HTMLParser):
    def __init__(s):
        super().__init__(); s.stack = []; s.svgs = []; s.texts = []; s.cls = {}
    def handle_starttag(s, tag, a):
        a = dict(a); s.stack.append((tag, a.get("class", "")))
        for c in a.get("class", "").split():
            s.cls[(tag, c)] = s.cls.get((tag, c), 0) + 1
        if tag == "svg": s.svgs.append(a)
    def handle_endtag(s, tag):
        while s.stack and s.stack.pop()[0] != tag: pass
    def handle_data(s, d):
        if s.stack and s.stack[-1][0] == "text": s.texts.append((s.stack[-1][1], d))
p = P(); p.feed(open(sys.argv[1]).read())
assert len(p.svgs) == 1 and "trend" in p.svgs[0]["class"] and p.svgs[0]["viewbox"], p.svgs
assert p.cls.get(("circle", "pt")) == 200, p.cls
assert p.cls.get(("path", "cp")) == 1 and p.cls.get(("path", "confirmed")) == 1, p.cls
labels = [d for c, d in p.texts if "cplabel" in c]
assert len(labels) == 1 and labels[0].startswith("confirmed: slower x0."), labels
assert 0.85 < float(labels[0].split("x")[1]) < 0.95, labels
axis = [d for c, d in p.texts if c == "axis"]
assert "MB/s" in axis and any(d.startswith("bundles, oldest to newest: 2026-01-01") for d in axis), axis
assert any(c == "ttl" and d.startswith("synthetic node1 copy (MB/s, higher is better)") for c, d in p.texts)
assert sum(1 for c, d in p.texts if c == "tick") == 3
print("dom: 1 trend, 200 points, 1 confirmed change point, labelled")
PY
# Drawn across the window: at 1400 px (half scale: 700), the newest point lies right of 600.
timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --disable-background-networking \
    --disable-component-update --no-first-run --disable-sync --user-data-dir="$WORK/profile" \
    --force-device-scale-factor=0.5 --window-size=1400,900 --screenshot="$WORK/page.png" \
    "file://$WORK/page.html" >"$WORK/chromium.out" 2>&1 || fail "chromium screenshot"
read -r n width right < <(PNG_EXTENT=1 png_pixels "$WORK/page.png" 3182ce | sed -n 2p)
echo "screenshot: $n point pixels, rightmost at $right of $width"
[ "$n" -gt 200 ] || fail "no points drawn"
[ "$right" -gt $((width * 6 / 7)) ] || fail "the plot does not span the window ($right of $width)"
echo "ok: history"
