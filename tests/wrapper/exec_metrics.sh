#!/usr/bin/env bash
# An exec card's metrics: are metrics of the registry for its bundles (doc/contracts/layout.md,
# "Figures of a program"): the run's statistics, compare, classify and export name them with
# the card's unit and judge them in the card's direction, the primary one by default; two
# bundles whose cards declare them differently are refused, naming the difference. The
# program is printf, told the figure to print, six runs a side (an interval needs six).
# Interference is not judged here (--max-interference 100): printf lives for a millisecond,
# so any neighbour under ctest -j is a large share of it; tests/wrapper/interference.sh
# tests that gate.
BIN=$(cd "$1" && pwd) SRC=$2
. "$SRC/tests/lib.sh"
SC="$BIN/streamcard"
command -v printf >/dev/null || { echo "skip: no printf"; exit 77; }

# card NAME FIGURE UNIT BETTER [METRIC]: printf prints "rate=FIGURE MB"; the card reads it
# as METRIC (default rate) in UNIT, BETTER is better, primary; seconds=0.5 beside it.
card() {
    cat >"$WORK/$1.yaml" <<EOF
version: 1
experiment:
  workload: exec
  command: [printf, 'rate=%s MB\nseconds=0.5\n', '$2']
  cpu_list: "0"
  threads: 1
  runs: 6
  env:
    LC_ALL: C
  metrics:
    - {name: elapsed, pattern: '^seconds=([0-9.]+)', unit: s, better: lower}
    - {name: ${5:-rate}, pattern: 'rate=([0-9.]+) MB', unit: '$3', better: $4, primary: true}
  expect:
    max_interference_pct: 100
EOF
}
run() { # run NAME: runs card NAME into its own directory; prints the bundle
    expect_status 0 "$SC" run "$WORK/$1.yaml" --output "$WORK/runs-$1" --quiet
    bundle_of "$WORK/out"
}

card hi100 100 GB/s higher
card hi80 80 GB/s higher
A=$(run hi100) B=$(run hi80)
python3 - "$A" <<'EOF' || fail "results.json's statistics of the card's metrics"
import json, sys
s = json.load(open(sys.argv[1] + "/results.json"))["stats"]
assert s["rate"]["unit"] == "GB/s" and s["rate"]["better"] == "higher", s["rate"]
assert s["rate"]["values"] == [100.0] * 6, s["rate"]["values"]
assert s["elapsed"]["unit"] == "s" and s["elapsed"]["better"] == "lower", s["elapsed"]
EOF

# The program's arguments are a controlled variable (the card's table: command is a variable):
# A and B differ in the figure printf is told to print, and compare names that as the one
# variable that differs; classify, which judges a run against the same experiment, skips B
# unless the difference is allowed.
expect_status 0 "$SC" compare "$A" "$B" --max-interference 100
grep -E "command" "$WORK/out" | grep -F "100" | grep -Fq "80" ||
    fail "compare does not show the commands that differ: $(cat "$WORK/out")"
expect_status 125 "$SC" classify "$B" --baseline "$A" --max-interference 100
expect_contains "$WORK/out" "command"
# better: higher: B's lower figure is B slower, by the primary metric (not elapsed).
expect_status 0 "$SC" compare "$A" "$B" --max-interference 100
expect_contains "$WORK/out" "rate GB/s 100.0 -> 80.000 (-20.0%): B/A 0.800, 95% interval [0.800, 0.800]: B slower"
expect_not_contains "$WORK/out" "elapsed s 0.500"
expect_status 0 "$SC" compare "$A" "$B" --max-interference 100 --metric elapsed,rate
expect_contains "$WORK/out" "elapsed s 0.500 -> 0.500"
expect_status 2 "$SC" compare "$A" "$B" --metric nope
expect_contains "$WORK/err" "--metric nope: not a metric (valid: copy, scale, add, triad, qps, thread_seconds, latency_<size>, bw_<size> with a size like 8B, 64KiB, 1MiB; the card's own: elapsed, rate;"
expect_status 1 "$SC" classify "$B" --baseline "$A" --max-interference 100 --allow command
expect_contains "$WORK/out" "bad: $(basename "$B"): rate GB/s 80.000 against the baseline's 100.0 (-20.0%)"
expect_status 0 "$SC" classify "$A" --baseline "$B" --max-interference 100 --allow command

# better: lower: the same figures are B faster, and a good run for classify.
card lo100 100 GB/s lower
card lo80 80 GB/s lower
LA=$(run lo100) LB=$(run lo80)
expect_status 0 "$SC" compare "$LA" "$LB" --max-interference 100
expect_contains "$WORK/out" "rate GB/s 100.0 -> 80.000 (-20.0%): B/A 0.800, 95% interval [0.800, 0.800]: B faster"
expect_status 0 "$SC" classify "$LB" --baseline "$LA" --max-interference 100 --allow command
expect_contains "$WORK/out" "good: $(basename "$LB")"
expect_status 1 "$SC" classify "$LA" --baseline "$LB" --max-interference 100 --allow command

# Cards that declare the metric differently cannot be compared: a unit, a direction, a name.
card unit80 80 MB/s higher
card name80 80 GB/s higher speed
U=$(run unit80) N=$(run name80)
expect_status 1 "$SC" compare "$A" "$U" --max-interference 100
expect_contains "$WORK/err" "streamcard: compare: refused: the cards declare different metrics: metric rate: unit GB/s in A, MB/s in B"
expect_not_contains "$WORK/out" "B slower"
expect_status 1 "$SC" compare "$A" "$LB" --max-interference 100
expect_contains "$WORK/err" "metric rate: better higher in A, lower in B"
expect_status 1 "$SC" compare "$N" "$A" --max-interference 100
expect_contains "$WORK/err" "metric speed: declared by A's card, not by B's"
expect_status 125 "$SC" classify "$U" --baseline "$A" --max-interference 100 --allow command
expect_contains "$WORK/out" "its card and the baseline's declare different metrics: metric rate: unit GB/s in A, MB/s in B"

# export: a unit of the registry's in its family (s: seconds), another as the card says it.
expect_status 0 "$SC" export --prometheus "$B"
grep -Eq '^streamcard_metric_value\{.*workload="exec".*metric="rate",unit="GB/s",better="higher"\} 80$' "$WORK/out" ||
    fail "export lacks the card's rate: $(grep -i rate "$WORK/out")"
grep -Eq '^streamcard_metric_seconds\{.*metric="elapsed",better="lower"\} 0.5$' "$WORK/out" ||
    fail "export lacks the card's elapsed in seconds: $(grep -i elapsed "$WORK/out")"
grep -Eq '^streamcard_metric_runs\{.*metric="rate"\} 6$' "$WORK/out" || fail "export lacks the runs of rate"

# report: the card's primary metric in the comparison, --metric among the card's names.
expect_status 0 "$SC" report "$A" "$B" -o "$WORK/r.html" --max-interference 100
expect_contains "$WORK/r.html" "rate GB/s (change vs A)"
expect_status 0 "$SC" report "$A" "$B" -o "$WORK/r.html" --metric elapsed
expect_contains "$WORK/r.html" "elapsed s (change vs A)"
expect_status 2 "$SC" report "$A" -o "$WORK/r2.html" --metric nope
expect_contains "$WORK/err" "--metric nope: not a metric"
[ ! -e "$WORK/r2.html" ] || fail "report wrote a page for a metric no card declares"

# The card check: a name or a unit too long for the registry is refused before a run.
card long 1 "$(printf 'u%.0s' {1..30})" higher
expect_status 2 "$SC" run "$WORK/long.yaml" --dry-run
expect_contains "$WORK/err" "metrics: rate: its unit is longer than 23 bytes"
# A paired run of two cards whose metrics: differ is refused before anything runs: side B is
# made of A's card, so B's own declarations would otherwise be dropped unsaid. The same card
# twice is an A/A pair (its plan prints).
card pa 100 GB/s higher
card pb 100 MB/s higher
expect_status 2 "$SC" run "$WORK/pa.yaml" --against "$WORK/pb.yaml" --dry-run
expect_contains "$WORK/err" "declares other metrics than $WORK/pa.yaml: metric rate: unit GB/s in A, MB/s in B (valid: cards whose metrics: have the same names, units, directions and primary)"
sed 's/, primary: true//' "$WORK/pa.yaml" >"$WORK/pc.yaml"
expect_status 2 "$SC" run "$WORK/pa.yaml" --against "$WORK/pc.yaml" --dry-run
expect_contains "$WORK/err" "metric rate: primary: true in A, not in B"
expect_status 0 "$SC" run "$WORK/pa.yaml" --against "$WORK/pa.yaml" --dry-run
echo "ok: exec_metrics"
