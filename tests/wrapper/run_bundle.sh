#!/usr/bin/env bash
# A small real run produces a complete bundle that sha256sum -c and streamcard verify
# accept; the bundle holds every file of the layout in doc/design.md ("The evidence bundle")
# and the card as given.
BIN=$1 SRC=$2
. "$SRC/tests/lib.sh"

cat >"$WORK/card.yaml" <<'CARD'
version: 1
experiment:
  question: "Copy on 2 threads: does the bundle hold together?"
  workload: stream
  kernel: copy
  cpu_list: 0-1
  threads: 2
  memory_node: 0
  array_size: 2000000
  cache_resident: accept
  iterations: 4
  env:
    OMP_WAIT_POLICY: passive
  controlled_variables:
    - "the build in this tree"
CARD
cd "$WORK"
expect_status 0 "$BIN/streamcard" run card.yaml --output "$WORK/runs" --quiet
B=$(bundle_of "$WORK/out")
case "$B" in "$WORK/runs/stream_copy_2thread_"*) ;; *) fail "bundle path $B";; esac
for f in run.conf card.yaml capture_guard.env stream.log main_loop.ready workload_status.txt \
         workload_status_at_ready.txt threads_at_ready.txt numa_maps_at_ready.txt \
         numastat_at_ready.txt build.json results.json platform/before.txt platform/after.txt \
         SHA256SUMS; do
    [ -s "$B/$f" ] || fail "bundle lacks $f"
done
cmp "$WORK/card.yaml" "$B/card.yaml" || fail "card.yaml is not the card as submitted"
(cd "$B" && sha256sum --quiet -c SHA256SUMS) || fail "sha256sum -c rejects the bundle"
expect_status 0 "$BIN/streamcard" verify "$B"
expect_contains "$WORK/out" "verdict ok"
# run.conf ends with the verdicts; the card's hash and the capture latency are recorded.
tail -n 1 "$B/run.conf" | grep -qx 'verdict=ok' || fail "run.conf does not end with verdict=ok"
expect_contains "$B/run.conf" "thread_binding_ok=1"
expect_contains "$B/run.conf" "validation_ok=1"
expect_contains "$B/run.conf" "memory_node_ok=1"
expect_contains "$B/run.conf" "card_sha256=$(sha256sum <"$WORK/card.yaml" | cut -d' ' -f1)"
grep -Eq '^ready_capture_ms=[0-9]+\.[0-9]+$' "$B/run.conf" || fail "no ready_capture_ms"
# The same latency as the workload saw it: from writing the marker to being released.
grep -Eq '^TRACE_READY_WAIT ms=[0-9]+\.[0-9]{3}$' "$B/stream.log" || fail "no TRACE_READY_WAIT"
waited=$(sed -n 's/^TRACE_READY_WAIT ms=//p' "$B/stream.log")
grep -qx "ready_wait_ms=$waited" "$B/run.conf" || fail "run.conf's ready_wait_ms is not the log's $waited"
expect_contains "$B/run.conf" "env=OMP_WAIT_POLICY=passive"
expect_contains "$B/stream.log" "Solution Validates (Copy-only single kernel contract)"
# results.json follows the schema; build.json names the binary by its hash.
python3 - "$B" <<'PY'
import hashlib, json, sys
b = sys.argv[1]
r = json.load(open(b + "/results.json"))
assert r["schema"] == 1 and r["workload"] == "stream" and r["kernel"] == "copy", r
assert r["verdict"] == "ok", r
for g in ("thread_count", "phases", "binding", "validation", "exit_code", "memory_node"):
    assert r["gates"][g] is True, (g, r["gates"])
assert r["gates"]["platform_state"] is None and r["notes"]["platform_state"]
assert r["metrics"]["best_rate_MBps"] > 0
build = json.load(open(b + "/build.json"))
assert build["sha256"] == hashlib.sha256(open(build["binary"], "rb").read()).hexdigest()
assert "omp" in build["openmp_runtime"], build
PY
# Each thread's CPU at ready is in the card's list.
awk 'NR > 1 && ($3 < 0 || $3 > 1) { exit 1 }' "$B/threads_at_ready.txt" || fail "thread off 0-1"
echo "ok: run bundle"
