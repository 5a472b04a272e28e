#!/usr/bin/env bash
# streamcard verify re-checks every workload's figures from the raw stream.log, not only
# STREAM's: a results.json or run.conf figure of an ipsearch or mpi-pingpong run that the
# log does not show fails verify, naming the file and the figure, even when re-sealed.
BIN=$1 SRC=$2
. "$SRC/tests/lib.sh"

# forged ORIG NAME PYTHON: a re-sealed copy of bundle ORIG whose results.json the python
# statement changed (r is the parsed results.json); its path on stdout.
forged() {
    local copy="$WORK/forged/$2"
    mkdir -p "$WORK/forged" && cp -r "$1" "$copy"
    python3 - "$copy/results.json" "$3" <<'PY'
import json, sys
p = sys.argv[1]; r = json.load(open(p)); exec(sys.argv[2]); json.dump(r, open(p, "w"))
PY
    reseal "$copy"
    echo "$copy"
}

# expect_forgery_caught BUNDLE TEXT: verify fails, naming what was forged.
expect_forgery_caught() {
    expect_status 1 "$BIN/streamcard" verify "$1"
    expect_contains "$WORK/err" "$2"
}

# --- ipsearch: qps, recall@k, GFLOP/s, wall and thread time ---
cat >"$WORK/ips.yaml" <<'CARD'
version: 1
experiment:
  workload: ipsearch
  cpu_list: 0-1
  threads: 2
  nb: 2000
  nq: 40
  dim: 16
  k: 4
  expect:
    max_interference_pct: 100
CARD
expect_status 0 "$BIN/streamcard" run "$WORK/ips.yaml" --output "$WORK/runs" --quiet
IPS=$(bundle_of "$WORK/out")
expect_status 0 "$BIN/streamcard" verify "$IPS"
for key in qps recall_at_k gflops wall_seconds total_thread_seconds avg_wall_seconds; do
    B=$(forged "$IPS" "ips-$key" "r['metrics']['$key'] = r['metrics']['$key'] * 2 + 1")
    expect_forgery_caught "$B" "results.json: $key "
    expect_contains "$WORK/err" "but stream.log shows $key="
done
# Every search's time: a slower one than the log's slowest, or one search too few.
B=$(forged "$IPS" ips-reps "r['metrics']['rep_seconds']['search'][-1] *= 10")
expect_forgery_caught "$B" "results.json: rep_seconds.search gives min"
B=$(forged "$IPS" ips-reps-short "r['metrics']['rep_seconds']['search'].pop()")
expect_forgery_caught "$B" "results.json: rep_seconds.search has 2 repetitions, but the card ran 3"
# A figure the log never printed.
B=$(forged "$IPS" ips-new "r['metrics']['p99_latency_s'] = 0.001")
expect_forgery_caught "$B" "results.json: p99_latency_s 0.001, but stream.log shows no p99_latency_s figure"
# The log edited instead: results.json no longer matches it (and the hash no longer holds).
cp -r "$IPS" "$WORK/ips-log"
sed -i 's/^qps=[0-9.]*/qps=1.0/' "$WORK/ips-log/stream.log"
reseal "$WORK/ips-log"
expect_forgery_caught "$WORK/ips-log" "but stream.log shows qps=1"

# --- mpi-pingpong: bandwidth per size, latency, run.conf's rate and transport ---
if ! command -v mpirun >/dev/null; then
    echo "ok: tamper_workloads (ipsearch only: mpirun missing)"
    exit 0
fi
printf 'version: 1\nexperiment:\n  workload: mpi-pingpong\n  cpu_list: 0-1\n  min_bytes: 1\n  max_bytes: 4096\n  iterations: 20\n  expect:\n    max_interference_pct: 100\n' \
    >"$WORK/mpi.yaml"
expect_status 0 "$BIN/streamcard" run "$WORK/mpi.yaml" --output "$WORK/runs" --quiet
MPI=$(bundle_of "$WORK/out")
expect_status 0 "$BIN/streamcard" verify "$MPI"
B=$(forged "$MPI" mpi-mbps "r['metrics']['sizes'][3]['MBps'] += 5")
expect_forgery_caught "$B" "results.json: 8 bytes: MBps"
B=$(forged "$MPI" mpi-tusec "r['metrics']['sizes'][-1]['t_usec'] /= 2")
expect_forgery_caught "$B" "results.json: 4096 bytes: t_usec"
B=$(forged "$MPI" mpi-latency "r['metrics']['latency_usec_8B'] /= 3")
expect_forgery_caught "$B" "results.json: latency: latency_usec_8B"
B=$(forged "$MPI" mpi-size "r['metrics']['sizes'].append({'bytes': 1 << 20, 'MBps': 1e5})")
expect_forgery_caught "$B" "results.json: a 1048576-byte size, but stream.log's table has no such row"
# run.conf: a higher rate, a different transport component.
cp -r "$MPI" "$WORK/mpi-rate"
sed -i 's/^best_rate_MBps=.*/best_rate_MBps=99999.0/' "$WORK/mpi-rate/run.conf"
reseal "$WORK/mpi-rate"
expect_forgery_caught "$WORK/mpi-rate" "run.conf: best_rate_MBps=99999.0, but stream.log shows"
cp -r "$MPI" "$WORK/mpi-btl"
sed -i 's/^transport_btl=.*/transport_btl=ofi,self/' "$WORK/mpi-btl/run.conf"
reseal "$WORK/mpi-btl"
expect_forgery_caught "$WORK/mpi-btl" 'run.conf: "transport_btl=ofi,self", but stream.log does not show it'
expect_contains "$WORK/err" 'run.conf: no line "transport_btl='
echo "ok: tamper_workloads"
