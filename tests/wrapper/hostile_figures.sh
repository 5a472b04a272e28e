#!/usr/bin/env bash
# Hostile figures: one rule for every figure a bundle holds, finite numbers only, and no run
# left out of the statistics. The attack: a bundle of 12 runs whose honest classify is skip
# (its interval straddles the tolerance) gets its 4 slowest runs' rates set to Infinity (JSON
# allows it, json-c reads it; the statistics skip what is not finite) and its statistics
# re-derived, re-sealed: with only its 8 fast runs left it would classify good. verify must
# refuse it, naming the number, and classify must skip it. The same for NaN and a number
# that overflows (1e999), a run's figure removed (null: the sample count below the run
# count), and the stats' own numbers.
BIN=$(cd "$1" && pwd) SRC=$2
. "$SRC/tests/lib.sh"
. "$SRC/tests/wrapper/analysis_lib.sh"
SC="$BIN/streamcard"
TWELVE=(-- --runs 12)

# The baseline at 10000 MB/s +-1%; B's 8 fast runs at its level and 4 slow ones 25% below.
base=$(small_run base "${TWELVE[@]}")
set_rate "$base" 10000,10100,9900,10050,9950,10020,10010,9990,10080,9920,10030,9970
honest=$(small_run honest "${TWELVE[@]}")
set_rate "$honest" 10000,10100,9900,10050,7500,10020,7600,9990,7550,9920,7450,9970
expect_status 0 "$SC" verify "$honest"
expect_status 125 "$SC" classify "$honest" --baseline "$base"
expect_contains "$WORK/out" "skip: honest"

# edit_runs SRC NAME PYTHON: a copy of SRC whose results.json runs are edited by PYTHON (r:
# the document, runs: its runs, inf and nan at hand), its statistics then re-derived as
# verify recomputes them (restat) and re-sealed; prints the copy.
edit_runs() {
    local b
    b=$(copy_bundle "$1" "$2")
    python3 - "$b/results.json" "$3" <<'PY'
import json, sys
p, code = sys.argv[1], sys.argv[2]
r = json.load(open(p)); runs = r["runs"]; inf = float("inf"); nan = float("nan")
exec(code)
json.dump(r, open(p, "w"))  # allow_nan: Infinity, -Infinity and NaN as JavaScript writes them
PY
    "$BIN/restat" "$b" || fail "restat $b"
    reseal "$b"
    echo "$b"
}
slowest='sorted(range(len(runs)), key=lambda i: runs[i]["metrics"]["rates"]["copy"])[:4]'

# 1. The 4 slowest runs made infinitely fast: refused, never classified good.
picked=$(edit_runs "$honest" picked "
for i in $slowest:
    runs[i]['metrics']['rates']['copy'] = runs[i]['metrics']['best_rate_MBps'] = inf")
grep -q 'Infinity' "$picked/results.json" || fail "the forger's results.json holds no Infinity"
expect_status 1 "$SC" verify "$picked"
expect_contains "$WORK/err" "results.json: runs["
expect_contains "$WORK/err" "is Infinity, not a finite number"
expect_status 125 "$SC" classify "$picked" --baseline "$base"
expect_contains "$WORK/out" "skip: picked"
expect_not_contains "$WORK/out" "good"
expect_status 1 "$SC" compare "$base" "$picked"
expect_contains "$WORK/err" "refused"

# 2. NaN, -Infinity, and a number that overflows to Infinity when read (written as 1e999).
for case in "nan|NaN" "-inf|-Infinity" "1e999|Infinity"; do
    value=${case%%|*} shown=${case#*|}
    b=$(edit_runs "$honest" "odd_${shown}" "runs[0]['metrics']['rates']['copy'] = float('$value')")
    if [ "$value" = 1e999 ]; then # Python writes Infinity: the forger writes 1e999
        sed -i 's/"copy": *Infinity/"copy": 1e999/' "$b/results.json"
        grep -q '"copy": 1e999' "$b/results.json" || fail "no 1e999 written"
        reseal "$b"
    fi
    expect_status 1 "$SC" verify "$b"
    expect_contains "$WORK/err" "results.json: runs[0].metrics.rates.copy is $shown, not a finite number"
done

# 3. A run's figure removed (null, as for a figure the workload could not measure), the
# statistics re-derived over the 11 left: a sample count below the run count.
dropped=$(edit_runs "$honest" dropped "
for i in $slowest[:1]:
    runs[i]['metrics']['rates']['copy'] = None
    runs[i]['metrics']['best_rate_MBps'] = None")
expect_status 1 "$SC" verify "$dropped"
expect_contains "$WORK/err" "results.json: copy has 11 values over 12 runs: a run's figure is missing or not a finite number"
expect_status 125 "$SC" classify "$dropped" --baseline "$base"

# 4. Infinity in the statistics alone (the runs honest): refused as well.
b=$(copy_bundle "$honest" stats_inf)
python3 - "$b/results.json" <<'PY'
import json, sys
p = sys.argv[1]; r = json.load(open(p))
r["stats"]["copy"]["max"] = float("inf")
json.dump(r, open(p, "w"))
PY
reseal "$b"
expect_status 1 "$SC" verify "$b"
expect_contains "$WORK/err" "results.json: stats.copy.max is Infinity, not a finite number"
echo "ok: hostile_figures"
