#!/usr/bin/env bash
# interference_cost.sh: what does the interference accounting cost? The same STREAM card
# under `streamcard run` with the accounting on and off (interference_accounting), each a
# run R times, interleaved on/off/on/off in one session; prints each side's median rate,
# the ratio off/on (Hodges-Lehmann, as `streamcard compare` computes it), and the sampler's
# own CPU time as a share of the main loop that every bundle records
# (cost_pct). A benchmark, not a test: it asserts nothing and is not run by ctest.
#
# usage: tests/bench/interference_cost.sh [--bin DIR] [--array-size N] [--iterations N]
#                                         [--runs R] [--kernel K]
set -euo pipefail

BIN="$(cd "$(dirname "$0")/../.." && pwd)/build/bin"
ARRAY_SIZE=20000000 ITERATIONS=20 RUNS=6 KERNEL=triad
while [ $# -gt 0 ]; do
    case $1 in
    --bin) BIN=$2; shift 2 ;;
    --array-size) ARRAY_SIZE=$2; shift 2 ;;
    --iterations) ITERATIONS=$2; shift 2 ;;
    --runs) RUNS=$2; shift 2 ;;
    --kernel) KERNEL=$2; shift 2 ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "interference_cost: unknown option $1" >&2; exit 2 ;;
    esac
done
[ -x "$BIN/streamcard" ] || { echo "interference_cost: build first; looked in $BIN" >&2; exit 2; }
WORK=$(mktemp -d /tmp/streamcard-bench.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
export STREAMCARD_KERNEL_DIR=${STREAMCARD_KERNEL_DIR:-$BIN}

# The runs of the two sides alternate (RUNS rounds) so that a drift of the host falls on both.
side() { # side on|off ROUND: one run (the gate opened: this measures, it does not judge)
    local open=()
    [ "$1" = on ] && open=(--expect-max-interference 100)
    "$BIN/streamcard" run --workload stream --kernel "$KERNEL" --cpu-list 0-1 --threads 2 \
        --array-size "$ARRAY_SIZE" --iterations "$ITERATIONS" "${open[@]}" \
        --interference-accounting "$1" --run-name "$1_$2" --output "$WORK/$1" --quiet 2>/dev/null |
        sed -n 's/^BUNDLE=//p'
}
for ((r = 1; r <= RUNS; r++)); do
    side on "$r" >/dev/null
    side off "$r" >/dev/null
done
python3 - "$WORK" "$KERNEL" <<'PY'
import glob, json, math, statistics, sys
work, kernel = sys.argv[1], sys.argv[2]
def load(side):
    out = []
    for b in sorted(glob.glob(work + "/" + side + "/*/results.json")):
        out.append(json.load(open(b)))
    return out
on, off = load("on"), load("off")
rate = lambda r: r["metrics"]["rates"][kernel]
a, b = [rate(r) for r in on], [rate(r) for r in off]
print("%s MB/s  accounting on: median %.1f over %d runs; off: median %.1f over %d runs"
      % (kernel, statistics.median(a), len(a), statistics.median(b), len(b)))
d = sorted(math.log(y) - math.log(x) for x in a for y in b)
print("off/on (Hodges-Lehmann): %.4f" % math.exp(statistics.median(d)))
cost = [s["cost_pct"] for r in on for s in r["interference"]["samplers"]]
loops = [s["window_s"] for r in on for s in r["interference"]["samplers"]]
print("sampler cost over the main loop: median %.3f%%, max %.3f%% (loops %.1f-%.1f s)"
      % (statistics.median(cost), max(cost), min(loops), max(loops)))
PY
