#!/usr/bin/env bash
# marker_cost.sh: what the marker library (streamcard/marker.h, doc/markers.md) costs.
#   1. One call (tests/marker/marker_bench.c: sc_marker_figure and sc_marker_end, N each), in
#      ns per call: without STREAMCARD_TRACE_FD (the calls do nothing: what an instrumented
#      program pays outside streamcard) and with it naming /dev/null (formatting the line
#      and one write(2); a pipe the observer drains costs about the same per write).
#   2. `streamcard run` of the example card (contrib/cards/exec-marker.yaml's program, on
#      CPU 0) against the program alone (taskset -c 0), wall time from the shell's clock.
# Each pair is run interleaved (A B A B ...), R rounds; the script prints every pair's ratio
# and the medians side by side. A benchmark, not a test: it asserts only that each side ran,
# and on a loaded machine (1-minute load above half the CPUs) it says its numbers are noisy.
#
# usage: tests/bench/marker_cost.sh [--bin DIR] [--rounds R] [--calls N] [--n ELEMS]
#                                   [--reps REPS]
set -euo pipefail

BIN="$(cd "$(dirname "$0")/../.." && pwd)/build/bin"
SRC="$(cd "$(dirname "$0")/../.." && pwd)"
ROUNDS=5 CALLS=200000 N=4000000 REPS=10
while [ $# -gt 0 ]; do
    case $1 in
    --bin) BIN=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --calls) CALLS=$2; shift 2 ;;
    --n) N=$2; shift 2 ;;
    --reps) REPS=$2; shift 2 ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) echo "marker_cost: unknown option $1 (valid: --bin --rounds --calls --n --reps)" >&2; exit 2 ;;
    esac
done
for p in streamcard streamcard-marker-triad marker_bench; do
    [ -x "$BIN/$p" ] || { echo "marker_cost: no $BIN/$p: build first (cmake --build build)" >&2; exit 2; }
done
WORK=$(mktemp -d /tmp/streamcard-bench.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

load_warning() {
    local load cpus
    load=$(cut -d' ' -f1 /proc/loadavg)
    cpus=$(nproc)
    if python3 -c "import sys; sys.exit(0 if $load > $cpus / 2 else 1)"; then
        echo "WARNING: 1-minute load $load on $cpus CPUs: other work shares the CPUs, the numbers below are noisy"
    fi
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# wall_ms CMD...: the wall time of CMD in ms (output discarded; exit 1 of streamcard run is a
# failed gate, mostly interference on a busy machine: the run still went through every step).
wall_ms() {
    python3 - "$@" <<'PY' || { echo "marker_cost: failed: $*" >&2; exit 1; }
import subprocess, sys, time
t0 = time.perf_counter()
rc = subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print("%.2f" % ((time.perf_counter() - t0) * 1e3))
sys.exit(0 if rc in (0, 1) and (rc == 0 or sys.argv[1].endswith("streamcard")) else rc)
PY
}

echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cpus"
load_warning

# 1. One call.
echo
echo "1. one marker call, ns per call ($CALLS calls each; interleaved, $ROUNDS rounds)"
printf '%5s %14s %14s %14s %14s %9s\n' round figure_off figure_on end_off end_on on/off
for r in $(seq 1 "$ROUNDS"); do
    off=$(env -u STREAMCARD_TRACE_FD taskset -c 0 "$BIN/marker_bench" "$CALLS")
    on=$(STREAMCARD_TRACE_FD=3 taskset -c 0 "$BIN/marker_bench" "$CALLS" 3>/dev/null)
    fo=${off#figure_ns=}; fo=${fo%% *}; eo=${off##*end_ns=}
    fn=${on#figure_ns=}; fn=${fn%% *}; en=${on##*end_ns=}
    ratio=$(python3 -c "print('%.1f' % ($fn / max($fo, 0.1)))")
    printf '%5s %14s %14s %14s %14s %9s\n' "$r" "$fo" "$fn" "$eo" "$en" "x$ratio"
    echo "$fo $fn $eo $en" >>"$WORK/calls"
done
printf '%5s %14s %14s %14s %14s\n' median "$(cut -d' ' -f1 "$WORK/calls" | median)" \
    "$(cut -d' ' -f2 "$WORK/calls" | median)" "$(cut -d' ' -f3 "$WORK/calls" | median)" \
    "$(cut -d' ' -f4 "$WORK/calls" | median)"

# 2. streamcard run against the program alone.
sed -e "s/\"4000000\", \"20\"/\"$N\", \"$REPS\"/" -e '/^  threads: 1$/a\  expect:\n    max_interference_pct: 100' \
    "$SRC/contrib/cards/exec-marker.yaml" >"$WORK/card.yaml"
grep -q "\"$N\", \"$REPS\"" "$WORK/card.yaml" || { echo "marker_cost: the example card's command changed: $SRC/contrib/cards/exec-marker.yaml" >&2; exit 1; }
export PATH="$BIN:$PATH"
echo
echo "2. the example program ($N elements, $REPS repetitions) alone vs under streamcard run, wall ms"
printf '%5s %12s %12s %9s\n' round alone watched ratio
for r in $(seq 1 "$ROUNDS"); do
    a=$(wall_ms taskset -c 0 "$BIN/streamcard-marker-triad" "$N" "$REPS")
    w=$(wall_ms "$BIN/streamcard" run "$WORK/card.yaml" --output "$WORK/runs" --quiet)
    rm -rf "$WORK/runs"
    ratio=$(python3 -c "print('%.2f' % ($w / $a))")
    printf '%5s %12s %12s %9s\n' "$r" "$a" "$w" "x$ratio"
    echo "$a $w $ratio" >>"$WORK/runs.txt"
done
printf '%5s %12s %12s %9s\n' median "$(cut -d' ' -f1 "$WORK/runs.txt" | median)" \
    "$(cut -d' ' -f2 "$WORK/runs.txt" | median)" "x$(cut -d' ' -f3 "$WORK/runs.txt" | median)"
load_warning
