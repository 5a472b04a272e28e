#!/usr/bin/env bash
# The marker library under `streamcard run` (doc/markers.md): contrib/cards/exec-marker.yaml
# runs the example program of ours; its snapshot is taken at its sc_marker_begin (the program
# waited for it, its arrays already in memory), its figure is a metric of the run, verify
# recomputes it from the log and refuses a results.json that claims another. Programs whose
# markers lie (a figure the log contradicts, a figure twice, no begin) fail the right gate,
# and a card that names two ways of marking is refused. The interference gate is opened
# (max_interference_pct: 100): this test runs beside others under ctest -j.
BIN=$(cd "$1" && pwd) SRC=$2
. "$SRC/tests/lib.sh"
SC="$BIN/streamcard"
[ -x "$BIN/streamcard-marker-triad" ] || fail "no streamcard-marker-triad in $BIN"
export PATH="$BIN:$PATH" # the card finds the example program by its name

# The example card, with the gate opened and a shorter loop: 3 arrays of 4M doubles, 32 MB each.
sed -e 's/"4000000", "20"/"4000000", "5"/' -e '/^  threads: 1$/a\  expect:\n    max_interference_pct: 100' \
    "$SRC/contrib/cards/exec-marker.yaml" >"$WORK/marker.yaml"
expect_contains "$WORK/marker.yaml" "max_interference_pct: 100"
expect_status 0 "$SC" run "$WORK/marker.yaml" --dry-run
expect_contains "$WORK/out" "capture:     the program's sc_marker_begin and sc_marker_end (streamcard/marker.h) bound the main loop"
expect_status 0 "$SC" run "$WORK/marker.yaml" --output "$WORK/runs" --quiet
B=$(bundle_of "$WORK/out")
python3 - "$B" <<'PY' || fail "the example's bundle"
import json, re, sys
b = sys.argv[1]
r = json.load(open(b + "/results.json"))
log = open(b + "/stream.log").read().splitlines()
assert r["verdict"] == "ok", r["verdict"]
assert r["capture"].startswith("marker library:"), r["capture"]
# The snapshot was taken at the begin: the program waited for it there (READY_WAIT right
# after its begin line), after it had filled its arrays b and c, 2 x 32 MB (their pages are
# in the snapshot; a, all zeros, the compiler may leave to calloc). A capture at its first
# output, printed before the set-up, sees a few MB.
begin = log.index("TRACE_WORKLOAD_PHASE=main_loop_begin")
assert log[begin + 1].startswith("TRACE_READY_WAIT ms="), log
assert log.index("TRACE_WORKLOAD_PHASE=main_loop_end") > begin
status = open(b + "/workload_status_at_ready.txt").read()
rss_kb = int(re.search(r"^VmRSS:\s+(\d+) kB", status, re.M).group(1))
assert rss_kb >= 60 * 1024, "VmRSS %d kB at the snapshot: before the arrays were filled" % rss_kb
# The figure: the one sc_marker_figure wrote, the same the program printed for a reader.
fig = [l for l in log if l.startswith("TRACE_FIGURE name=triad_rate ")]
assert len(fig) == 1, fig
value = float(re.match(r"TRACE_FIGURE name=triad_rate value=(\S+) unit=MB/s$", fig[0]).group(1))
assert r["metrics"]["triad_rate"] == value, (r["metrics"], value)
printed = [l for l in log if l.startswith("Triad rate: ")]
assert abs(float(printed[0].split()[2]) - value) < 0.001, (printed, value)
assert "sc_marker_begin at log line" in r["notes"]["phases"], r["notes"]["phases"]
PY
expect_status 0 "$SC" verify "$B"
expect_contains "$WORK/out" "streamcard: verify: capture: marker library:"

# A results.json that claims another figure than the log's is refused, even resealed.
claim_other_figure "$B" triad_rate

# Programs that lie, as scripts writing the protocol's lines to STREAMCARD_TRACE_FD.
program() { # program NAME BODY: an executable bash script in $WORK
    printf '#!/bin/bash\n%s\n' "$2" >"$WORK/$1"
    chmod +x "$WORK/$1"
}
card() { # card NAME PROGRAM [MORE]: an exec card with markers: library, MORE under experiment:
    cat >"$WORK/$1.yaml" <<YAML
version: 1
experiment:
  workload: exec
  command: [$2]
  markers: library
  cpu_list: "0"
  threads: 1
  expect:
    max_interference_pct: 100
${3:-}
YAML
}
T='>&"$STREAMCARD_TRACE_FD"'
BEGIN="echo TRACE_WORKLOAD_PHASE=main_loop_begin $T; sleep 0.1; echo TRACE_WORKLOAD_PHASE=main_loop_end $T"
RATE='  metrics:
    - name: rate
      pattern: "^rate: ([0-9]+)$"
      unit: x
      better: higher'

# It prints one rate and reports another through the marker library.
program liar "$BEGIN; echo 'rate: 100'; echo 'TRACE_FIGURE name=rate value=200 unit=x' $T"
card liar "$WORK/liar" "$RATE"
expect_status 1 "$SC" run "$WORK/liar.yaml" --output "$WORK/runs" --quiet
expect_failed_bundle "$(bundle_of "$WORK/out")"
expect_contains "$WORK/err" "figure rate: sc_marker_figure reported 200"
expect_contains "$WORK/err" "but the card's metric rate reads 100 from the log"

# The same figure reported twice.
program twice "$BEGIN; echo 'TRACE_FIGURE name=rate value=1 unit=x' $T; echo 'TRACE_FIGURE name=rate value=2 unit=x' $T"
card twice "$WORK/twice"
expect_status 1 "$SC" run "$WORK/twice.yaml" --output "$WORK/runs" --quiet
expect_contains "$WORK/err" "figure rate: reported twice by sc_marker_figure"

# markers: library, but the program never marks its main loop.
program silent "echo 'no markers here'"
card silent "$WORK/silent"
expect_status 1 "$SC" run "$WORK/silent.yaml" --output "$WORK/runs" --quiet
expect_contains "$WORK/err" "markers: library, but the log has no TRACE_WORKLOAD_PHASE=main_loop_begin line"

# Without markers: library the same program's figure is still a metric, the capture the
# whole process.
program honest "$BEGIN; echo 'TRACE_FIGURE name=rate value=7 unit=x' $T"
card honest "$WORK/honest"
sed -i '/^  markers: library$/d' "$WORK/honest.yaml"
expect_status 0 "$SC" run "$WORK/honest.yaml" --output "$WORK/runs" --quiet
H=$(bundle_of "$WORK/out")
python3 - "$H" <<'PY' || fail "the whole-process run's figure"
import json, sys
r = json.load(open(sys.argv[1] + "/results.json"))
assert r["metrics"] == {"rate": 7}, r["metrics"]
assert r["capture"].startswith("whole process:"), r["capture"]
PY

# A figure the card does not declare has no unit or direction the card gives: compare shows
# it beside the other run's and says plainly that it judges nothing by it.
expect_status 0 "$SC" run "$WORK/honest.yaml" --output "$WORK/runs" --quiet
H2=$(bundle_of "$WORK/out")
"$SC" compare "$H" "$H2" --max-interference 100 >"$WORK/cmp.out" 2>&1 || true
expect_contains "$WORK/cmp.out" "figure rate is not declared in the card (no direction): shown, not judged (valid: declare it under metrics: with from: marker)"
grep -Eq "^  rate +7 +7 +not declared: shown, not judged$" "$WORK/cmp.out" ||
    fail "compare does not show the undeclared figure's values: $(cat "$WORK/cmp.out")"

# Declared by name, from: marker: the figure is a metric in the card's unit and direction,
# judged by compare; reported in another unit, or not at all, it fails the validation gate.
card named "$WORK/honest" '  metrics:
    - {name: rate, from: marker, unit: x, better: higher, primary: true}'
expect_status 0 "$SC" run "$WORK/named.yaml" --output "$WORK/runs" --quiet
N1=$(bundle_of "$WORK/out")
expect_status 0 "$SC" run "$WORK/named.yaml" --output "$WORK/runs" --quiet
N2=$(bundle_of "$WORK/out")
expect_status 0 "$SC" verify "$N1"
"$SC" compare "$N1" "$N2" --max-interference 100 >"$WORK/cmp.out" 2>&1 || true
expect_contains "$WORK/cmp.out" "rate x"
expect_not_contains "$WORK/cmp.out" "not declared"
sed 's/unit: x,/unit: s,/' "$WORK/named.yaml" >"$WORK/unit.yaml"
expect_status 1 "$SC" run "$WORK/unit.yaml" --output "$WORK/runs" --quiet
expect_contains "$WORK/err" "figure rate: sc_marker_figure reported it in x (log line"
expect_contains "$WORK/err" "but the card declares it in s"
sed 's/name: rate,/name: speed,/' "$WORK/named.yaml" >"$WORK/missing.yaml"
expect_status 1 "$SC" run "$WORK/missing.yaml" --output "$WORK/runs" --quiet
expect_contains "$WORK/err" "metric speed: from: marker, but the program reported no figure speed with sc_marker_figure"

# Two ways of marking in one card are refused before anything runs.
card both "$WORK/honest" "  begin_pattern: '^go$'
  end_pattern: '^done$'"
expect_status 2 "$SC" run "$WORK/both.yaml" --output "$WORK/runs" --quiet
expect_contains "$WORK/err" "markers: library with begin_pattern (valid: markers: patterns with the patterns, or library without them)"
card patterns "$WORK/honest"
sed -i 's/^  markers: library$/  markers: patterns/' "$WORK/patterns.yaml"
expect_status 2 "$SC" run "$WORK/patterns.yaml" --output "$WORK/runs" --quiet
expect_contains "$WORK/err" "markers: patterns without begin_pattern and end_pattern (valid: both given, or markers: library | none)"
echo "ok: marker library under streamcard run"
