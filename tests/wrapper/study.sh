#!/usr/bin/env bash
# An ablation study on ipsearch: a baseline and six steps (pool = threads, passive wait, a
# BLAS build, one hardware thread per physical core, an inherited variable removed, and a
# deliberately bad step: ten times the queries), each
# alone and in sequence, runs: 6 interleaved (baseline, step 1, ... then again); both
# tables give every row's median with its 95% interval and the changes with verdicts; the
# bad step is flagged; the study record is sealed, verify accepts it and rejects it once
# edited, even re-sealed.
BIN=$1 SRC=$2
. "$SRC/tests/lib.sh"
# A study judges thread time; in a sanitizer build the instrumented kernel's own checks, not
# the search, take it (the bad step measured B/A 1.05 there): there the study runs on a
# smaller database (within a few minutes) and everything is checked but the verdict that
# the bad step is slower (timing: asserted only in the plain build).
NB=100000 TIMED=1
# (ldd's whole output read first: grep -q would close the pipe early, and with pipefail the
# SIGPIPE it gives ldd would make the test miss the sanitizer build.)
if [[ $(ldd "$BIN/streamcard-ipsearch" 2>/dev/null) == *libasan* ]]; then
    echo "sanitizer build: the bad step's verdict is not asserted"
    NB=20000 TIMED=0
fi
. "$SRC/tests/wrapper/screenshot_lib.sh"

# Inherited by every run, removed by step 3 (unset:): the runtimes' variables are recorded
# in environ_at_ready.txt, so the bundle shows whether the workload had it.
export OMP_MAX_ACTIVE_LEVELS=1
# This VM has no SMT: hwloc is shown a node whose CPUs 0 and 1 are one core's two threads,
# so one_per_core has something to drop.
export HWLOC_SYNTHETIC="core:1 pu:2"
cat >"$WORK/study.yaml" <<CARD
version: 1
metric: thread_seconds
experiment:
  workload: ipsearch
  cpu_list: 0-1
  threads: 2
  pool_threads: 4
  nb: $NB
  nq: 40
  dim: 16
  k: 5
  iterations: 2
  runs: 6
  env:
    OMP_WAIT_POLICY: ACTIVE
  expect:
    max_interference_pct: 100
ablation:
  - name: pool = threads
    set: { pool_threads: 2 }
  - name: passive wait
    set: { env: { OMP_WAIT_POLICY: PASSIVE } }
  - name: serial BLAS
    set: { blas: openblas-serial }
  - name: one per core
    set: { one_per_core: on, threads: 1 }
  - name: no inherited levels
    unset: [OMP_MAX_ACTIVE_LEVELS]
  - name: ten times the queries
    set: { nq: 400 }
CARD
# Through sbatch a job gets its card as YAML, without unset: refused before anything runs.
expect_status 2 "$BIN/streamcard" run "$WORK/study.yaml" --output "$WORK/runs" --submit --dry-run
expect_contains "$WORK/err" "ablation: unset: OMP_MAX_ACTIVE_LEVELS: a job cannot start without"
# The dry run shows the 12 rows and writes nothing.
expect_status 0 "$BIN/streamcard" run "$WORK/study.yaml" --output "$WORK/runs" --dry-run
expect_contains "$WORK/out" "--- run 12 of 12: step=seq 1-6: + ten times the queries"
[ ! -e "$WORK/runs" ] || fail "a dry study wrote files"
# one_per_core without threads: the layout and its derived name follow the kept CPU.
printf 'version: 1\nexperiment:\n  workload: ipsearch\n  cpu_list: 0-1\n  one_per_core: on\n' >"$WORK/opc.yaml"
expect_status 0 "$BIN/streamcard" run "$WORK/opc.yaml" --output "$WORK/opc" --dry-run
expect_contains "$WORK/out" "output:      $WORK/opc/ipsearch_1thread_1pool_YYYYMMDD_HHMMSS"
expect_contains "$WORK/out" "pool_threads 1 (default layout)"

expect_status 0 "$BIN/streamcard" run "$WORK/study.yaml" --output "$WORK/runs" --quiet
cp "$WORK/out" "$WORK/study.out"

# Interleaved: the 12 rows once each, then each again.
order=$(grep -E '^--- run [0-9]+ of 12' "$WORK/study.out" | head -n 13 | cut -d: -f1 | tr '\n' '/')
[ "$order" = "$(for i in $(seq 12) 1; do printf -- '--- run %d of 12/' "$i"; done)" ] ||
    fail "the rows do not interleave: $order"
# STUDY= comes last.
last=$(tail -n 1 "$WORK/study.out")
study=${last#STUDY=}
[ "$last" != "$study" ] && [ -d "$study" ] || fail "the last line is not STUDY=<dir>: $last"

# Both tables, every usable row with its interval over 6 runs.
expect_contains "$WORK/study.out" "Each step alone, against the baseline (thread_seconds, s, lower is better"
expect_contains "$WORK/study.out" "| row | verdict | thread_seconds s | vs baseline | vs previous | measured | flag | bundle |"
for row in "baseline" "alone 1: pool = threads" "alone 2: passive wait" "alone 3: serial BLAS" \
    "alone 4: one per core" "alone 5: no inherited levels" "alone 6: ten times the queries" \
    "seq 1-1: + pool = threads" "seq 1-2: + passive wait" "seq 1-3: + serial BLAS" \
    "seq 1-4: + one per core" "seq 1-5: + no inherited levels" "seq 1-6: + ten times the queries"; do
    re=$(sed 's/[+]/\\+/g' <<<"$row")
    grep -Eq "^\| $re \| ok \| [0-9.e-]+ \[[0-9.e-]+, [0-9.e-]+\] \(6 runs\) \|" "$WORK/study.out" ||
        fail "no row '$row' with a 6-run interval: $(cat "$WORK/study.out")"
done
# The bad step: ten times the work is slower beyond any noise, alone and in sequence.
[ "$TIMED" = 0 ] ||
grep -Eq '^\| alone 6: ten times the queries \| ok \| .*B/A [0-9.]+ \[[0-9.]+, [0-9.]+\]: B slower \| [^|]* \| WORSE \|' "$WORK/study.out" ||
    fail "the bad step is not flagged: $(grep 'alone 6' "$WORK/study.out")"
[ "$TIMED" = 0 ] || grep -Eq '^\| seq 1-6: .*: B slower \| [^|]* \| WORSE \|' "$WORK/study.out" ||
    fail "the bad step in sequence is not flagged: $(grep 'seq 1-6' "$WORK/study.out")"

# Each row's bundle holds what the row says: the baseline inherited the variable and
# waits actively, step 3's run starts without it, step 2's waits passively.
bundle_row() { grep "^| $1 |" "$WORK/study.out" | head -n 1 | awk -F'|' '{gsub(/ /, "", $(NF-1)); print $(NF-1)}'; }
base=$(bundle_row baseline)
expect_contains "$base/run-1/environ_at_ready.txt" "OMP_MAX_ACTIVE_LEVELS=1"
expect_contains "$base/run-1/environ_at_ready.txt" "OMP_WAIT_POLICY=ACTIVE"
expect_not_contains "$(bundle_row "alone 5: no inherited levels")/run-1/environ_at_ready.txt" "OMP_MAX_ACTIVE_LEVELS"
grep -q '"blas_library": *"[^"]*/openblas-serial/' "$(bundle_row "alone 3: serial BLAS")/build.json" ||
    fail "the serial BLAS step did not load openblas-serial"
opc=$(bundle_row "alone 4: one per core")
expect_contains "$opc/card.yaml" "cpu_list: 0"
expect_contains "$opc/run.conf" "one_per_core=cpu_list 0-1 -> 0 "
expect_contains "$(bundle_row "alone 2: passive wait")/run-1/environ_at_ready.txt" "OMP_WAIT_POLICY=PASSIVE"
expect_contains "$(bundle_row "seq 1-2: + passive wait")/card.yaml" "pool_threads: 2"

# The record: sealed, its rows declare their intended differences, verify accepts it.
for f in study.json table.md card.yaml SHA256SUMS; do [ -f "$study/$f" ] || fail "no $f in $study"; done
python3 - "$study/study.json" "$TIMED" <<'PY' || fail "study.json does not declare the rows"
import json, sys
r = json.load(open(sys.argv[1])); timed = sys.argv[2] == "1"
assert r["metric"] == "thread_seconds" and r["better"] == "lower"
rows = {x["label"]: x for x in r["rows"]}
assert len(r["rows"]) == 12
seq = rows["seq 1-6: + ten times the queries"]
assert seq["differs"] == ["pool_threads", "env.OMP_WAIT_POLICY", "blas", "one_per_core", "threads",
                          "env.OMP_MAX_ACTIVE_LEVELS", "nq"], seq
assert (seq["vs_baseline"]["worse"] or not timed) and seq["runs"] == 6 and seq["ci_low"] <= seq["median"] <= seq["ci_high"]
PY
expect_status 0 "$BIN/streamcard" verify "$study"
expect_contains "$WORK/out" "study intact"

# Edited afterwards (beside its bundles): the sums catch it, and only the edited file is a
# problem; edited and re-sealed: the rows recomputed from the bundles catch it.
cp -r "$study" "$WORK/runs/edited"
sed -i 's/^# streamcard study: /# an edited study: /' "$WORK/runs/edited/table.md"
! cmp -s "$study/table.md" "$WORK/runs/edited/table.md" || fail "the edit changed nothing"
expect_status 1 "$BIN/streamcard" verify --junit "$WORK/v.xml" "$study" "$WORK/runs/edited"
expect_contains "$WORK/err" "table.md"
expect_contains "$WORK/err" "study FAILED (1 problem)"
# The JUnit report: the study that holds passes, the edited one fails saying why.
python3 - "$WORK/v.xml" "$WORK/err" <<'PY' || fail "verify --junit of studies"
import sys, xml.etree.ElementTree as ET
cases = ET.parse(sys.argv[1]).getroot().findall("testsuite/testcase")
assert len(cases) == 2 and cases[0].find("failure") is None, cases
msg = cases[1].find("failure").get("message")
assert msg.startswith("study FAILED (1 problem): ") and "table.md" in msg, msg
assert msg[len("study FAILED (1 problem): "):] in open(sys.argv[2]).read(), msg
PY
rm -rf "$WORK/runs/edited"
cp -r "$study" "$WORK/runs/edited"
python3 - "$WORK/runs/edited/study.json" <<'PY'
import json, sys
p = sys.argv[1]; r = json.load(open(p))
r["rows"][4]["median"] = r["rows"][0]["median"]
json.dump(r, open(p, "w"))
PY
(cd "$WORK/runs/edited" && sha256sum card.yaml study.json table.md >SHA256SUMS)
expect_status 1 "$BIN/streamcard" verify "$WORK/runs/edited"
expect_contains "$WORK/err" "row 5: "
expect_contains "$WORK/err" "recorded median"

# The report page draws the study: a bar per row with its interval's whiskers, the baseline
# line, alone and in sequence side by side; an edited record is REFUSED, with no bars.
expect_status 0 "$BIN/streamcard" report "$study" -o "$WORK/study.html"
expect_contains "$WORK/study.html" "Each step alone (thread_seconds)"
expect_contains "$WORK/study.html" "The steps in sequence (thread_seconds)"
[ "$(grep -o 'class="whisker"' "$WORK/study.html" | wc -l)" = 14 ] || fail "not one whisker per bar"
[ "$(grep -o 'class="ref"' "$WORK/study.html" | wc -l)" = 2 ] || fail "no baseline line"
[ "$TIMED" = 0 ] || [ "$(grep -o 'class="bar worse"' "$WORK/study.html" | wc -l)" -ge 2 ] || fail "the bad step is not drawn as worse"
expect_status 1 "$BIN/streamcard" report "$WORK/runs/edited" -o "$WORK/edited.html"
expect_contains "$WORK/edited.html" "REFUSED"
expect_not_contains "$WORK/edited.html" "<svg"
shoot "$WORK/study.html" "$WORK/study.png" 1400
mapfile -t px < <(png_pixels "$WORK/study.png" 3182ce e53e3e)
echo "screenshot: ${px[0]} dark pixels, ${px[1]} bar pixels, ${px[2]} worse-bar pixels"
[ "${px[0]}" -gt 3000 ] || fail "the study page looks blank"
# The bad step takes ten times the others' time: their bars are short, but drawn.
[ "${px[1]}" -gt 0 ] && [ $((px[1] + px[2])) -gt 500 ] || fail "no bars rendered"
[ "$TIMED" = 0 ] || [ "${px[2]}" -gt 100 ] || fail "the worse step's bars are not rendered"
# A bundle the record names, edited: the study fails too.
cp -r "$study" "$WORK/runs/named"
echo "x" >>"$base/run-1/stream.log"
expect_status 1 "$BIN/streamcard" verify "$WORK/runs/named"
expect_contains "$WORK/err" "row 1: "
echo "ok: study"
