#!/usr/bin/env bash
# compare --study: two rows of one study may differ in what their steps declare (a
# cumulative row differs from the baseline in several variables), and in nothing else.
# Without the record the same pair is refused as before; a record edited (re-sealed or not)
# is not trusted; a record moved away from its bundles says so once; a record that names a
# bundle of another study (re-sealed, its figures and comparisons made to agree) passes
# verify, yet compare still finds the undeclared difference in the bundles themselves.
BIN=$1 SRC=$2
. "$SRC/tests/lib.sh"

cat >"$WORK/study.yaml" <<'CARD'
version: 1
experiment:
  workload: stream
  kernel: triad
  cpu_list: 0-1
  threads: 2
  array_size: 200000
  iterations: 5
  cache_resident: accept
  runs: 2
  env:
    OMP_WAIT_POLICY: ACTIVE
  expect:
    max_interference_pct: 100
ablation:
  - name: one thread
    set: { threads: 1 }
  - name: passive wait
    set: { env: { OMP_WAIT_POLICY: PASSIVE } }
CARD
expect_status 0 "$BIN/streamcard" run "$WORK/study.yaml" --output "$WORK/runs" --quiet
cp "$WORK/out" "$WORK/s1.out"
study=$(sed -n 's/^STUDY=//p' "$WORK/s1.out")
[ -d "$study" ] || fail "no STUDY= directory: $(cat "$WORK/s1.out")"
bundle_row() { grep "^| $2 |" "$1" | head -n 1 | awk -F'|' '{gsub(/ /, "", $(NF-1)); print $(NF-1)}'; }
base=$(bundle_row "$WORK/s1.out" baseline)
one=$(bundle_row "$WORK/s1.out" "alone 1: one thread")
passive=$(bundle_row "$WORK/s1.out" "alone 2: passive wait")
seq=$(bundle_row "$WORK/s1.out" "seq 1-2: + passive wait")
for b in "$base" "$one" "$passive" "$seq"; do [ -d "$b" ] || fail "a row names no bundle: $b"; done

# Outside the study: the cumulative row differs in two variables, an invalid comparison.
expect_status 1 "$BIN/streamcard" compare "$base" "$seq"
expect_contains "$WORK/err" "the comparison is invalid: 2 controlled variables differ: threads, env (OMP_WAIT_POLICY)"
expect_not_contains "$WORK/out" "triad MB/s"

# Inside it: both differences are what row seq 1-2 declares.
expect_status 0 "$BIN/streamcard" compare --study "$study" "$base" "$seq"
expect_contains "$WORK/out" 'study rows: A "baseline", B "seq 1-2: + passive wait"; declared differences: threads, env.OMP_WAIT_POLICY'
expect_contains "$WORK/out" 'study rows "baseline" -> "seq 1-2: + passive wait": triad MB/s'
# Two steps alone: each differs from the other in what either declares.
expect_status 0 "$BIN/streamcard" compare --study "$study" "$one" "$passive"
expect_contains "$WORK/out" 'study rows "alone 1: one thread" -> "alone 2: passive wait": triad'
# One row against itself is a repeat.
expect_status 0 "$BIN/streamcard" compare --study "$study" "$seq" "$seq"
expect_status 2 "$BIN/streamcard" compare --study "$study" --independent threads "$base" "$seq"
expect_contains "$WORK/err" "--independent and --study: one or the other"
expect_status 2 "$BIN/streamcard" compare --study "$base" "$base" "$seq"
expect_contains "$WORK/err" "not a study record that can be opened"

# Edited afterwards (beside its bundles): verify names the one file, compare trusts nothing.
cp -r "$study" "$WORK/runs/edited"
sed -i 's/passive wait/active wait/' "$WORK/runs/edited/table.md"
expect_status 1 "$BIN/streamcard" verify "$WORK/runs/edited"
expect_contains "$WORK/err" "table.md"
expect_contains "$WORK/err" "study FAILED (1 problem)"
expect_status 1 "$BIN/streamcard" compare --study "$WORK/runs/edited" "$base" "$seq"
expect_contains "$WORK/err" "the study record does not verify (1 problem): its declared differences are not trusted"
expect_not_contains "$WORK/out" "triad MB/s"

# Declarations edited and re-sealed: held to the study's card.yaml, they fail.
cp -r "$study" "$WORK/runs/declared"
python3 - "$WORK/runs/declared/study.json" <<'PY'
import json, sys
p = sys.argv[1]; r = json.load(open(p))
row = [x for x in r["rows"] if x["label"] == "seq 1-2: + passive wait"][0]
row["differs"] = ["threads"]
json.dump(r, open(p, "w"))
PY
(cd "$WORK/runs/declared" && sha256sum card.yaml study.json table.md >SHA256SUMS)
expect_status 1 "$BIN/streamcard" verify "$WORK/runs/declared"
expect_contains "$WORK/err" "row 4: its label, steps or declared differences are not what the study's card.yaml gives row 4 (seq 1-2: + passive wait)"
expect_status 1 "$BIN/streamcard" compare --study "$WORK/runs/declared" "$base" "$seq"
expect_contains "$WORK/err" "its declared differences are not trusted"

# Moved away from its bundles: one line says so, not one per row and figure.
cp -r "$study" "$WORK/away"
expect_status 1 "$BIN/streamcard" verify "$WORK/away"
expect_contains "$WORK/err" "none of the 4 bundles the study names is in $WORK (valid: the record beside the bundles it names)"
expect_contains "$WORK/err" "study FAILED (1 problem)"

# A second study of the same card under an inherited variable the runtimes read: its
# bundles are none of the first study's rows.
expect_status 0 env OMP_MAX_ACTIVE_LEVELS=1 "$BIN/streamcard" run "$WORK/study.yaml" --output "$WORK/runs" --quiet
cp "$WORK/out" "$WORK/s2.out"
study2=$(sed -n 's/^STUDY=//p' "$WORK/s2.out")
seq2=$(bundle_row "$WORK/s2.out" "seq 1-2: + passive wait")
[ "$study2" != "$study" ] && [ -d "$seq2" ] || fail "no second study: $(cat "$WORK/s2.out")"
expect_status 1 "$BIN/streamcard" compare --study "$study" "$base" "$seq2"
expect_contains "$WORK/err" "not a bundle of the study"
# The first record made to name it (its figures copied, its comparisons recomputed, re-sealed):
# verify cannot tell, the
# declarations still match the card; compare finds the variable no row declares.
cp -r "$study" "$WORK/runs/forged"
python3 - "$WORK/runs/forged/study.json" "$study2/study.json" <<'PY'
import json, sys
p = sys.argv[1]; r = json.load(open(p)); other = json.load(open(sys.argv[2]))
label = "seq 1-2: + passive wait"
mine = [x for x in r["rows"] if x["label"] == label][0]
theirs = [x for x in other["rows"] if x["label"] == label][0]
for k in ("bundle", "verdict", "runs", "median", "ci_low", "ci_high"):
    if k in theirs: mine[k] = theirs[k]
# Its comparisons as verify recomputes them from the bundles (2 runs a side: the ratio is
# the Hodges-Lehmann estimate, no interval, "unconfirmed"; worse beyond the 5% bound).
import math, os
runs = os.path.dirname(os.path.dirname(p))
def values(row):
    return json.load(open(os.path.join(runs, row["bundle"], "results.json")))["stats"]["triad"]["values"]
def median(v):
    v = sorted(v); n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2
def cmp(a, b):
    change = 100 * (median(b) - median(a)) / median(a)
    ratio = math.exp(median([math.log(y) - math.log(x) for x in a for y in b]))
    return {"change_pct": change, "ratio": ratio, "verdict": "unconfirmed", "worse": -change > 5}
by = {x["label"]: x for x in r["rows"]}
mine["vs_baseline"] = cmp(values(by["baseline"]), values(mine))
mine["vs_previous"] = cmp(values(by["alone 1: one thread"]), values(mine))
json.dump(r, open(p, "w"))
PY
(cd "$WORK/runs/forged" && sha256sum card.yaml study.json table.md >SHA256SUMS)
expect_status 0 "$BIN/streamcard" verify "$WORK/runs/forged"
expect_status 1 "$BIN/streamcard" compare --study "$WORK/runs/forged" "$base" "$seq2"
expect_contains "$WORK/err" 'besides what the study declares for rows "baseline" and "seq 1-2: + passive wait" (threads, env.OMP_WAIT_POLICY), env OMP_MAX_ACTIVE_LEVELS differs'
expect_not_contains "$WORK/out" "triad MB/s"
echo "ok: study_compare"
