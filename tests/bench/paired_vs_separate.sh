#!/usr/bin/env bash
# paired_vs_separate.sh: how often each design's verdict is right on this host. Three
# questions about one ipsearch card (cpu 0, one thread): A against A, and nb 10% and 3%
# larger on B (qps ratio 1/1.10 = 0.909 and 1/1.03 = 0.971: the search scans nb vectors).
# Each question is asked --trials times in two designs:
#   paired    streamcard run A --against B, runs: --pairs pairs, compare PAIR;
#   separate  streamcard run A, then streamcard run B (runs: --pairs each, back to back),
#             compare A B;
# and, with --auto, once more paired with runs: auto (runs_ci_pct 1, runs_max 30) for the 3%
# effect. Per design: how often each verdict came out (the interval's, read with the
# contamination limit at 100%: the card opens its gate; how many were contaminated at the
# default 5% is a column of its own), how often the 95% interval held the true ratio
# (coverage), how often it lay wholly below 1 (an effect found, whatever the noise bound),
# and the median width of the intervals. --drift adds a busy loop on cpu0 that comes and
# goes every 3 s during every trial (a host that moves under the runs).
# A benchmark, not a test: it asserts nothing and is not run by ctest.
#
# usage: tests/bench/paired_vs_separate.sh [--bin DIR] [--trials N] [--pairs R] [--auto]
#                                          [--drift] [--nb N] [--nq N] [--tmp DIR]
set -euo pipefail

BIN="$(cd "$(dirname "$0")/../.." && pwd)/build/bin"
TRIALS=20 PAIRS=6 AUTO=0 DRIFT=0 NB=20000 NQ=400 TMP=/tmp
while [ $# -gt 0 ]; do
    case $1 in
    --bin) BIN=$2; shift 2 ;;
    --trials) TRIALS=$2; shift 2 ;;
    --pairs) PAIRS=$2; shift 2 ;;
    --auto) AUTO=1; shift ;;
    --drift) DRIFT=1; shift ;;
    --nb) NB=$2; shift 2 ;;
    --nq) NQ=$2; shift 2 ;;
    --tmp) TMP=$2; shift 2 ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    *) echo "paired_vs_separate: unknown option $1" >&2; exit 2 ;;
    esac
done
[ -x "$BIN/streamcard" ] && [ -x "$BIN/streamcard-ipsearch" ] || {
    echo "paired_vs_separate: build first (cmake --build build); looked in $BIN" >&2; exit 2; }
SC="$BIN/streamcard"
export STREAMCARD_KERNEL_DIR=$BIN
WORK=$(mktemp -d "$TMP/streamcard-bench.XXXXXX")
. "$(dirname "$0")/../load_lib.sh"
trap 'drift_stop; rm -rf "$WORK"' EXIT
start_drift() { [ "$DRIFT" = 0 ] || drift_start "$WORK" 0 3 3; }

card() { # card FILE NB RUNS [LINE...]
    local file=$1 nb=$2 runs=$3
    shift 3
    {
        printf 'version: 1\nexperiment:\n  workload: ipsearch\n  cpu_list: 0\n  threads: 1\n'
        printf '  nb: %s\n  nq: %s\n  dim: 64\n  iterations: 5\n  runs: %s\n' "$nb" "$NQ" "$runs"
        [ "$runs" != auto ] || printf '  runs_ci_pct: 1\n'
        printf '  expect:\n    max_interference_pct: 100\n'
        [ $# -eq 0 ] || printf '%s\n' "$@"
    } >"$file"
}
nb_of() { awk -v n="$NB" -v f="$1" 'BEGIN { printf "%d\n", n * f + 0.5 }'; }

# result FILE: "<verdict>|<low>|<high>|<ratio>" of compare's first result line
result() {
    python3 - "$1" <<'PY'
import re, sys
for line in open(sys.argv[1]):
    m = re.match(r"^[^ ].*: qps queries/s [0-9.]+ -> [0-9.]+ \([-+0-9.]+%\): B/A ([0-9.]+), "
                 r"(?:95% interval \[([0-9.]+), ([0-9.]+)\]|interval unavailable[^:]*): (.*)$", line)
    if m:
        print("%s|%s|%s|%s" % (m.group(4), m.group(2) or "", m.group(3) or "", m.group(1)))
        break
PY
}

RESULTS="$WORK/results.txt"
: >"$RESULTS"
# trial QUESTION DESIGN FACTOR RUNS: one trial, one line into RESULTS:
# question|design|verdict|low|high|ratio|default-limit verdict
trial() {
    local q=$1 design=$2 factor=$3 runs=$4 out="$WORK/t" a b p
    rm -rf "$out" && mkdir -p "$out"
    card "$WORK/a.yaml" "$NB" "$runs"
    card "$WORK/b.yaml" "$(nb_of "$factor")" "$runs"
    start_drift
    if [ "$design" = separate ]; then
        a=$("$SC" run "$WORK/a.yaml" --output "$out" --quiet 2>>"$WORK/runs.err" |
            sed -n 's/^BUNDLE=//p' | tail -1 || true)
        b=$("$SC" run "$WORK/b.yaml" --output "$out" --quiet 2>>"$WORK/runs.err" |
            sed -n 's/^BUNDLE=//p' | tail -1 || true)
        drift_stop
        local named=()
        [ "$factor" = 1.00 ] || named=(--independent nb)
        "$SC" compare "$a" "$b" "${named[@]}" --max-interference 100 >"$WORK/c100" 2>&1 || true
        "$SC" compare "$a" "$b" "${named[@]}" >"$WORK/c5" 2>&1 || true
    else
        p=$("$SC" run "$WORK/a.yaml" --against "$WORK/b.yaml" --output "$out" --quiet \
            2>>"$WORK/runs.err" | sed -n 's/^PAIR=//p' || true)
        drift_stop
        "$SC" compare "$p" --max-interference 100 >"$WORK/c100" 2>&1 || true
        "$SC" compare "$p" >"$WORK/c5" 2>&1 || true
    fi
    local r100 r5
    r100=$(result "$WORK/c100")
    r5=$(result "$WORK/c5" | cut -d'|' -f1)
    echo "$q|$design|${r100:-no result|||}|${r5:-no result}" >>"$RESULTS"
    tail -n 1 "$RESULTS" >&2
}

start=$(date +%s)
echo "paired_vs_separate: $TRIALS trials a question and design, $PAIRS runs a side; drift $DRIFT; $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
for t in $(seq 1 "$TRIALS"); do
    for q in "A/A:1.00" "+10%:1.10" "+3%:1.03"; do
        for design in paired separate; do
            trial "${q%%:*}" "$design" "${q##*:}" "$PAIRS"
        done
    done
    [ "$AUTO" = 0 ] || trial "+3%" "paired, runs: auto" 1.03 auto
done
minutes=$(( ($(date +%s) - start + 59) / 60 ))

python3 - "$RESULTS" "$TRIALS" "$PAIRS" "$minutes" "$DRIFT" <<'PY'
import statistics, sys
rows = [l.rstrip("\n").split("|") for l in open(sys.argv[1]) if l.strip()]
truth = {"A/A": 1.0, "+10%": 1 / 1.10, "+3%": 1 / 1.03}
verdicts = ["B faster", "B slower", "no detectable difference", "too noisy to tell",
            "drifting host: use --against"]
print("%s trials a question and design, %s runs (pairs) a side, %s min%s" %
      (sys.argv[2], sys.argv[3], sys.argv[4], ", busy loop on cpu0 3 s on / 3 s off" if sys.argv[5] == "1" else ""))
print()
print("| question (true B/A) | design | n | B faster | B slower | no detectable difference | too noisy | drifting host | other | contaminated at 5% | coverage | below 1 | median width |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
keys = []
for r in rows:
    if (r[0], r[1]) not in keys:
        keys.append((r[0], r[1]))
for q, d in keys:
    rs = [r for r in rows if r[0] == q and r[1] == d]
    n = len(rs)
    count = lambda v: sum(1 for r in rs if r[2] == v)
    other = n - sum(count(v) for v in verdicts)
    with_ci = [r for r in rs if r[3] and r[4]]
    cover = sum(1 for r in with_ci if float(r[3]) <= truth[q] <= float(r[4]))
    below = sum(1 for r in with_ci if float(r[4]) < 1)
    width = statistics.median([float(r[4]) - float(r[3]) for r in with_ci]) if with_ci else float("nan")
    contaminated = sum(1 for r in rs if r[6] == "contaminated")
    print("| %s (%.3f) | %s | %d | %d | %d | %d | %d | %d | %d | %d | %d/%d | %d | %.3f |" %
          (q, truth[q], d, n, count("B faster"), count("B slower"), count(verdicts[2]),
           count(verdicts[3]), count(verdicts[4]), other, contaminated, cover, len(with_ci),
           below, width))
PY
