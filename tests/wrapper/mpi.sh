#!/usr/bin/env bash
# mpi-pingpong through `streamcard run` (mpirun, two ranks on this node): the transport is
# recorded and proven; the silent fallback to TCP, reproduced, fails the card's
# `expect: transport: shm` gate with a message naming both, its figures kept but marked
# not usable; a corrupted payload fails validation; a minimum rate is enforced.
BIN=$1 SRC=$2
. "$SRC/tests/lib.sh"
command -v mpirun >/dev/null || { echo "SKIP: mpirun missing (openmpi-bin)"; exit 77; }
card() { # card NAME [extra lines]
    local name=$1; shift
    { printf 'version: 1\nexperiment:\n  workload: mpi-pingpong\n  cpu_list: 0-1\n'
      printf '  min_bytes: 1\n  max_bytes: 65536\n  iterations: 50\n'
      printf '%s\n' "$@"; } >"$WORK/$name"
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

# The evidence comes from the ranks, not from mpirun: each rank's threads (and the CPU each
# last ran on) and its memory per NUMA node, under the pids the ranks reported.
card ev.yaml '  expect:' '    max_latency_us: 100000' '    min_rate_MBps: 0.001' \
    '    at_bytes: 64'
expect_status 0 "$BIN/streamcard" run "$WORK/ev.yaml" --output "$WORK/runs" --quiet
B=$(bundle_of "$WORK/out")
for r in 0 1; do
    pid=$(sed -n "s/^TRACE_RANK_BINDING rank=$r host=[^ ]* cpu=[0-9]* pid=\([0-9]*\) .*/\1/p" "$B/stream.log")
    [ -n "$pid" ] || fail "no TRACE_RANK_BINDING for rank $r"
    grep -Eq "^TRACE_RANK_THREAD rank=$r host=[^ ]+ pid=$pid tid=$pid cpu=[01]$" "$B/stream.log" ||
        fail "rank $r's own snapshot is missing: $(grep TRACE_RANK "$B/stream.log")"
    grep -Eq "^TRACE_RANK_NUMA rank=$r host=[^ ]+ node=[0-9]+ bytes=[1-9][0-9]*$" "$B/stream.log" ||
        fail "rank $r's NUMA pages are missing"
done
launcher=$(awk 'NR == 2 {print $1}' "$B/threads_at_ready.txt")
grep -q "^TRACE_RANK_THREAD .* pid=$launcher " "$B/stream.log" &&
    fail "the launcher (pid $launcher) was taken for a rank"
expect_contains "$B/results.json" "2 ranks, each on its own CPU of 0-1; their "
# The card's round trips per size, and the rule that reduces them for big messages, said.
expect_contains "$B/stream.log" "# repetitions per size: the card's 50 up to 838860 bytes; above, min(50, max(10, 41943040 / bytes))"
expect_contains "$B/results.json" '"kept_up_to_bytes":838860'
# max_latency at the smallest size and min_rate at at_bytes (not the peak).
expect_contains "$B/run.conf" "max_latency_ok=1"
expect_contains "$B/results.json" "at 1 bytes <= 100000.00 us"
expect_contains "$B/results.json" "MB/s at 64 bytes >= 0.0 MB/s"
card lat.yaml '  expect:' '    max_latency_us: 0.0001'
expect_status 1 "$BIN/streamcard" run "$WORK/lat.yaml" --output "$WORK/runs" --quiet
expect_contains "$WORK/err" "at 1 bytes is above the card's maximum 0.00 us"
card at.yaml '  expect:' '    min_rate_MBps: 1000000' '    at_bytes: 64'
expect_status 1 "$BIN/streamcard" run "$WORK/at.yaml" --output "$WORK/runs" --quiet
expect_contains "$WORK/err" "MB/s at 64 bytes is below the card's minimum 1000000.0 MB/s"
card atbad.yaml '  expect:' '    min_rate_MBps: 1' '    at_bytes: 131072'
expect_status 2 "$BIN/streamcard" run "$WORK/atbad.yaml" --dry-run
expect_contains "$WORK/err" "at_bytes: 131072 is not a message size of the run (valid: 1-65536)"
card latuni.yaml '  kernel: uniband' '  expect:' '    max_latency_us: 10'
expect_status 2 "$BIN/streamcard" run "$WORK/latuni.yaml" --dry-run
expect_contains "$WORK/err" "max_latency_us: only the pingpong kernel measures a latency"
# Latency at the smallest size and bandwidth at every size are the figures compared.
expect_status 0 "$BIN/streamcard" compare "$B" "$B"
expect_contains "$WORK/out" "(a repeat): latency_1B us "
expect_contains "$WORK/out" "(a repeat): bw_64KiB MB/s "
expect_status 0 "$BIN/streamcard" classify "$B" --baseline "$B" --metric latency_1B
expect_contains "$WORK/out" "good: "
expect_contains "$WORK/out" "latency_1B us = "

# An MPI start-up failure (no transport between the ranks): even with --quiet, the cause
# is said in one line, not only the gates it failed.
card nobtl.yaml '  env:' '    OMPI_MCA_btl: self' '    OMPI_MCA_pml: ob1'
expect_status 1 "$BIN/streamcard" run "$WORK/nobtl.yaml" --output "$WORK/runs" --quiet
grep -Eq '^streamcard: cause: .+ \(stream\.log line [0-9]+\)$' "$WORK/err" ||
    fail "no cause line: $(cat "$WORK/err")"

# memory_node is not a key for MPI ranks (their pages are not observed).
card mem.yaml '  memory_node: 0'
expect_status 2 "$BIN/streamcard" run "$WORK/mem.yaml" --dry-run
expect_contains "$WORK/err" "memory_node: not used by workload mpi-pingpong"
echo "ok: mpi"
