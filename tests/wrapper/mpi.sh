#!/usr/bin/env bash
# mpi-pingpong through `streamcard run` (mpirun, two ranks on this node): the transport is
# recorded and proven; the silent fallback to TCP, reproduced, fails the card's
# `expect: transport: shm` gate with a message naming both, its figures kept but marked
# not usable; a corrupted payload fails validation; a minimum rate is enforced.
BIN=$1 SRC=$2
. "$SRC/tests/lib.sh"
command -v mpirun >/dev/null || { echo "SKIP: mpirun missing (openmpi-bin)"; exit 77; }
# Every card opens the interference gate (max_interference_pct: 100): this test runs beside
# others under ctest -j; tests/wrapper/interference.sh tests the gate, a rank's too.
card() { # card NAME [extra lines]
    local name=$1 line expect=0; shift
    { printf 'version: 1\nexperiment:\n  workload: mpi-pingpong\n  cpu_list: 0-1\n'
      printf '  min_bytes: 1\n  max_bytes: 65536\n  iterations: 50\n'
      for line in "$@"; do
          printf '%s\n' "$line"
          [ "$line" != "  expect:" ] || { expect=1; printf '    max_interference_pct: 100\n'; }
      done
      [ $expect = 1 ] || printf '  expect:\n    max_interference_pct: 100\n'; } >"$WORK/$name"
}

card shm.yaml '  expect:' '    transport: shm'
expect_status 0 "$BIN/streamcard" run "$WORK/shm.yaml" --output "$WORK/runs" --quiet
B=$(bundle_of "$WORK/out")
expect_contains "$B/run.conf" "transport=shm"
expect_contains "$B/run.conf" "transport_ok=1"
# The transport's components and each rank's view of it, and the workload's sizes.
grep -qx "transport_pml=[a-z0-9]*" "$B/run.conf" || fail "run.conf lacks transport_pml"
grep -q "^transport_btl=.*vader\|^transport_btl=.*sm" "$B/run.conf" || fail "run.conf lacks the shm btl"
grep -q "^transport_rank=rank=1 host=.* fi_info=" "$B/run.conf" || fail "run.conf lacks rank 1's transport"
for kv in kernel=pingpong min_bytes=1 max_bytes=65536 iterations=50 ranks=2; do
    grep -qx "$kv" "$B/run.conf" || fail "run.conf lacks $kv"
done
expect_contains "$B/stream.log" "TRACE_RANK_BINDING rank=1"
expect_contains "$B/stream.log" "#bytes #repetitions"
python3 - "$B/results.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["workload"] == "mpi-pingpong" and r["verdict"] == "ok", r
assert r["transport"]["transport"] == "shm", r["transport"]
sizes = r["metrics"]["sizes"]
assert len(sizes) >= 10 and sizes[-1]["bytes"] == 65536 and all(s["MBps"] > 0 for s in sizes[1:])
assert r["gates"]["thread_count"] and r["gates"]["binding"] and r["gates"]["transport"], r["gates"]
# Per-rank bindings and the validation counts are kept beside the metrics.
assert [b["rank"] for b in r["bindings"]] == [0, 1], r["bindings"]
assert all(b["host"] and b["cpu"] in (0, 1) and b["allowed"] for b in r["bindings"]), r["bindings"]
assert r["validation"] == "ok" and r["messages_checked"] > 0 and r["failed_checks"] == 0, r
PY
expect_status 0 "$BIN/streamcard" verify "$B"

# The fallback, reproduced: Open MPI forced onto TCP while the card expects shared memory.
# (loopback only: the cluster tests beside this one add and remove network interfaces)
card tcp.yaml '  expect:' '    transport: shm' '  env:' '    OMPI_MCA_btl: "tcp,self"' \
    '    OMPI_MCA_btl_tcp_if_include: lo'
expect_status 1 "$BIN/streamcard" run "$WORK/tcp.yaml" --output "$WORK/runs" --quiet
expect_contains "$WORK/err" "expected transport shm, the data went over tcp"
expect_contains "$WORK/err" "ERROR: workload failed"
B=$(bundle_of "$WORK/out")
expect_contains "$B/run.conf" "transport=tcp"
expect_contains "$B/run.conf" "verdict=failed"
python3 - "$B/results.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["verdict"] == "failed" and r["gates"]["transport"] is False, r["gates"]
assert r["metrics"]["sizes"][-1]["MBps"] > 0, "the figures must stay in the bundle"
PY
"$BIN/streamcard" verify "$B" >"$WORK/v" 2>&1 && fail "verify accepted the TCP fallback"
expect_contains "$WORK/v" "FAILED its gates: transport"

# A corrupted payload.
card bad.yaml
expect_status 1 env STREAMCARD_FAULT=corrupt "$BIN/streamcard" run "$WORK/bad.yaml" --output "$WORK/runs" --quiet
B=$(bundle_of "$WORK/out")
expect_contains "$B/stream.log" "Failed Validation"
expect_contains "$B/run.conf" "validation_ok=0"

# A health check's minimum rate.
card slow.yaml '  expect:' '    min_rate_MBps: 100000000'
expect_status 1 "$BIN/streamcard" run "$WORK/slow.yaml" --output "$WORK/runs" --quiet
expect_contains "$WORK/err" "is below the card's minimum 100000000.0"

# The windowed unidirectional mode, with the card's window, through streamcard run.
card uni.yaml '  kernel: uniband' '  window: 8' '  expect:' '    transport: shm'
expect_status 0 "$BIN/streamcard" run "$WORK/uni.yaml" --output "$WORK/runs" --quiet
B=$(bundle_of "$WORK/out")
for kv in kernel=uniband window=8; do
    grep -qx "$kv" "$B/run.conf" || fail "run.conf lacks $kv"
done
grep -A1 -x "command_arg=--window" "$B/run.conf" | grep -qx "command_arg=8" ||
    fail "the kernel was not given the window: $(grep command_arg "$B/run.conf")"
expect_contains "$B/stream.log" "#bytes #repetitions"
expect_status 0 "$BIN/streamcard" verify "$B"

# memory_node is not a key for MPI ranks (their pages are not observed).
card mem.yaml '  memory_node: 0'
expect_status 2 "$BIN/streamcard" run "$WORK/mem.yaml" --dry-run
expect_contains "$WORK/err" "memory_node: not used by workload mpi-pingpong"
echo "ok: mpi"
