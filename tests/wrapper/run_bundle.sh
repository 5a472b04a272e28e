#!/usr/bin/env bash
# A small real run produces a complete bundle that sha256sum -c and streamcard verify
# accept; the bundle holds every file of the layout in doc/contracts/bundle.md ("The evidence
# bundle") and the card as given; with runs: 3 each run has its own folder and results.json every
# run's figures and their statistics. The cards open the interference gate
# (max_interference_pct: 100): this test runs beside others under ctest -j, and the gate
# itself is tested by tests/wrapper/interference.sh; its records are still checked here.
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
  expect:
    max_interference_pct: 100
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
         interference.txt SHA256SUMS; do
    [ -s "$B/$f" ] || fail "bundle lacks $f"
done
cmp "$WORK/card.yaml" "$B/card.yaml" || fail "card.yaml is not the card as submitted"
# numastat as numastat prints it (the machine's counters per node, /sys), and per node in
# the platform before and after.
expect_contains "$B/numastat_at_ready.txt" "node numa_hit numa_miss numa_foreign"
grep -Eq '^node0 [0-9]+ [0-9]+ ' "$B/numastat_at_ready.txt" || fail "numastat: no node0 row"
expect_contains "$B/platform/before.txt" "node0.numa_hit="
expect_contains "$B/platform/after.txt" "node0.numa_miss="
(cd "$B" && sha256sum --quiet -c SHA256SUMS) || fail "sha256sum -c rejects the bundle"
expect_status 0 "$BIN/streamcard" verify "$B"
expect_contains "$WORK/out" "verdict ok"
# run.conf ends with the verdicts; the card's hash and the capture latency are recorded.
tail -n 1 "$B/run.conf" | grep -x 'verdict=ok' >/dev/null || fail "run.conf does not end with verdict=ok"
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
assert r["schema"] == 2 and r["workload"] == "stream" and r["kernel"] == "copy", r
assert r["verdict"] == "ok", r
for g in ("thread_count", "phases", "binding", "validation", "exit_code", "memory_node"):
    assert r["gates"][g] is True, (g, r["gates"])
assert r["gates"]["platform_state"] is None and r["notes"]["platform_state"]
assert r["metrics"]["best_rate_MBps"] > 0
# one run: its object in "runs" holds the same figures; "stats" has one value and no interval
assert len(r["runs"]) == 1 and r["runs"][0]["dir"] == "", r["runs"]
assert r["runs"][0]["metrics"]["best_rate_MBps"] == r["metrics"]["best_rate_MBps"]
assert r["stats"]["copy"]["n"] == 1 and r["stats"]["copy"]["ci95"] is None, r["stats"]
assert r["runs_policy"] == {"requested": 1, "done": 1, "stopped": "runs: 1 done"}, r["runs_policy"]
# the interference record: both CPUs of cpu_list, the two workload threads pinned
i = r["interference"]
assert sorted(c["cpu"] for c in i["cpus"]) == [0, 1], i
assert sorted(t["allowed"] for t in i["tasks"] if t["comm"].startswith("streamcard-str")) == \
    ["0", "1"], i["tasks"]
assert i["samplers"][0]["source"] == "observer" and i["samplers"][0]["cost_pct"] >= 0, i
build = json.load(open(b + "/build.json"))
assert build["sha256"] == hashlib.sha256(open(build["binary"], "rb").read()).hexdigest()
assert "omp" in build["openmp_runtime"], build
# What the binary was built from: the compiler's file by its hash, the sources' digest.
assert build["compiler_path"].startswith("/"), build
assert build["compiler_sha256"] == hashlib.sha256(open(build["compiler_path"], "rb").read()).hexdigest()
assert len(build["source_sha256"]) == 64 and int(build["source_files"]) > 0, build
assert build["source_git_dirty"] in ("yes", "no", "unknown"), build
PY
# Each thread's CPU at ready is in the card's list.
awk 'NR > 1 && ($3 < 0 || $3 > 1) { exit 1 }' "$B/threads_at_ready.txt" || fail "thread off 0-1"
grep -q '^TRACE_INTERFERENCE_WINDOW source=observer ' "$B/interference.txt" || fail "no window"

# runs: 3: three processes, each with its own log and evidence under run-<i>/, one bundle.
expect_status 0 "$BIN/streamcard" run card.yaml --runs 3 --output "$WORK/runs3" --quiet
B3=$(bundle_of "$WORK/out")
for i in 1 2 3; do
    for f in stream.log run.conf interference.txt threads_at_ready.txt main_loop.ready; do
        [ -s "$B3/run-$i/$f" ] || fail "runs: 3: run-$i lacks $f"
    done
done
[ ! -e "$B3/run-4" ] && [ ! -e "$B3/stream.log" ] || fail "runs: 3: more than three runs"
expect_contains "$B3/run.conf" "runs=3"
expect_contains "$B3/run.conf" "runs_stopped=runs: 3 done"
expect_contains "$B3/run-2/run.conf" "run=2"
expect_status 0 "$BIN/streamcard" verify "$B3"
python3 - "$B3" <<'PY'
import json, statistics, sys
r = json.load(open(sys.argv[1] + "/results.json"))
assert r["schema"] == 2 and "metrics" not in r, r.keys()
assert [x["dir"] for x in r["runs"]] == ["run-1", "run-2", "run-3"], r["runs"]
vals = [x["metrics"]["rates"]["copy"] for x in r["runs"]]
s = r["stats"]["copy"]
assert s["values"] == vals and s["median"] == statistics.median(vals), (s, vals)
assert s["ci95"] is None, s  # fewer than 6 runs: interval unavailable
PY
echo "ok: run bundle"
