#!/usr/bin/env bash
# test_ipsearch_bundle_faults.sh: what an ipsearch run through `streamcard run` records when
# it goes wrong.
#   corrupt   a wrong top-k (test-only STREAMCARD_FAULT=corrupt) fails the validation gate:
#             failed verdict, exit 1, `ERROR: workload failed`, and still a sealed bundle
#   spin      a card that sets OMP_WAIT_POLICY=active (the trap of the faiss report: the idle
#             OpenMP team spins beside the search) still validates, and the bundle shows why
#             it is slow: the variable, the team's CPU time and the warning naming the cause
#
# usage: test_ipsearch_bundle_faults.sh BIN_DIR SRC_DIR CASE
BIN=$1 SRC=$2 CASE=$3
. "$SRC/tests/lib.sh"

# card NB POLICY POOL: a search on both cpus, POOL request handlers, OpenMP wait POLICY.
card() {
    cat >"$WORK/card.yaml" <<CARD
version: 1
experiment:
  question: "ipsearch under a fault: what does the bundle say?"
  workload: ipsearch
  cpu_list: 0-1
  threads: 2
  nb: $1
  nq: 64
  dim: 32
  k: 5
  pool_threads: $3
  expect:
    max_interference_pct: 100
  env:
    OMP_WAIT_POLICY: $2
CARD
}
cd "$WORK" || exit 1

case $CASE in
corrupt)
    card 3001 passive 1
    STREAMCARD_FAULT=corrupt expect_status 1 "$BIN/streamcard" run card.yaml \
        --output "$WORK/runs" --quiet
    expect_contains "$WORK/err" "ERROR: workload failed"
    B=$(bundle_of "$WORK/out")
    # Hashed, failed on validation, and verify finds it intact but refuses the run.
    expect_failed_bundle "$B" validation_ok
    expect_contains "$B/run.conf" "thread_binding_ok=1" # the other gates still judged
    expect_contains "$B/stream.log" "Failed Validation"
    ;;
spin)
    # Large enough that the search lasts ~0.3 s, so a spinning team shows in CPU time. Two
    # handlers of one thread each: no handler starts an OpenMP team of its own, so libgomp
    # never counts more threads than cpus. With more, an idle thread that docks late (a busy
    # machine delays it) spins only a moment before it sleeps, and nothing would show.
    card 200000 active 2
    expect_status 0 "$BIN/streamcard" run card.yaml --output "$WORK/runs" --quiet
    B=$(bundle_of "$WORK/out")
    expect_status 0 "$BIN/streamcard" verify "$B"
    L=$B/stream.log
    expect_contains "$L" "env: OMP_WAIT_POLICY=active"
    expect_contains "$L" "warning: the main OpenMP team, idle during the search, used"
    python3 - "$B" <<'PY' || fail "results.json does not show the spinning team"
import json, sys
e = json.load(open(sys.argv[1] + "/results.json"))["evidence"]
assert e["env"]["OMP_WAIT_POLICY"] == "active", e["env"]
PY
    main_team=$(sed -n 's/^cpu_seconds: compute=[0-9.]* main_team=\([0-9.]*\) .*/\1/p' "$L")
    [ -n "$main_team" ] || fail "stream.log has no cpu_seconds line"
    awk -v t="$main_team" 'BEGIN { exit !(t > 0.01) }' ||
        fail "the spinning team's CPU time ($main_team s) is not recorded"
    ;;
*) fail "unknown case $CASE" ;;
esac
