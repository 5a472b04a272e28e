#!/usr/bin/env bash
# A study says what did nothing on this machine (doc/contracts/card.md, "Ablation studies"): on a
# node hwloc shows without SMT (HWLOC_SYNTHETIC: two cores of one thread), one_per_core keeps every
# CPU; an OpenMP variable the runtime rejects leaves what it read unchanged (its own
# OMP_DISPLAY_ENV block, which a study's runs turn on); a card's OMP_PROC_BIND does change it.
# The plan says the first before anything runs, and the BLAS the workload will load.
BIN=$1 SRC=$2
. "$SRC/tests/lib.sh"
export HWLOC_SYNTHETIC="core:2 pu:1"
cat >"$WORK/study.yaml" <<'CARD'
version: 1
experiment:
  workload: ipsearch
  cpu_list: 0-1
  threads: 2
  nb: 20000
  nq: 64
  dim: 16
  iterations: 2
  expect:
    max_interference_pct: 100
ablation:
  - name: cores
    set: { one_per_core: on }
  - name: bogus wait
    set: { env: { OMP_WAIT_POLICY: sideways } }
  - name: spread
    set: { env: { OMP_PROC_BIND: spread } }
CARD
expect_status 0 "$BIN/streamcard" run "$WORK/study.yaml" --output "$WORK/runs" --dry-run
expect_contains "$WORK/out" "one_per_core: cpu_list 0-1 -> 0-1 (no effect here: no two of its CPUs share a core, no SMT)"
expect_contains "$WORK/out" "  blas:        default (the system's alternative: /"
expect_status 0 "$BIN/streamcard" run "$WORK/study.yaml" --output "$WORK/runs" --quiet
cp "$WORK/out" "$WORK/study.out"
row() { grep -E "^\| $1 \|" "$WORK/study.out" || fail "no row $1: $(cat "$WORK/study.out")"; }
grep -q "no effect: one_per_core kept every CPU of cpu_list" <<<"$(row "alone 1: cores")" ||
    fail "one_per_core without SMT not said to do nothing: $(row "alone 1: cores")"
grep -q "no effect: the OpenMP runtime read the same settings" <<<"$(row "alone 2: bogus wait")" ||
    fail "a rejected OMP_WAIT_POLICY not said to do nothing: $(row "alone 2: bogus wait")"
grep -q "no effect" <<<"$(row "alone 3: spread")" &&
    fail "OMP_PROC_BIND: spread said to do nothing: $(row "alone 3: spread")"
grep -q "no effect" <<<"$(row "seq 1-3: + spread")" && fail "seq: spread said to do nothing"
# What the runtime read, in the row's own log.
B=$(row "alone 3: spread" | awk -F' [|] ' '{ print $NF }' | sed 's/ |$//')
[ -d "$B" ] || fail "no bundle for the spread row: $B"
grep -Eq "OMP_PROC_BIND = '(SPREAD|spread)'" "$B/stream.log" || fail "the runtime did not read spread"
study=$(sed -n 's/^STUDY=//p' "$WORK/study.out")
expect_status 0 "$BIN/streamcard" verify "$study"
echo PASS
