#!/usr/bin/env bash
# workloads.sh: compare, report and export over ipsearch and mpi-pingpong bundles, not only
# STREAM's: each reads the workload's own figures (queries/s, bandwidth per message size,
# the transport) from real small runs.
#   compare  two ipsearch runs that differ in pool_threads only: a valid comparison with
#            both queries/s; an ipsearch run against an mpi run: refused, naming what differs
#   report   both workloads on one page: the ipsearch figures and the rate of every search,
#            the MPI bandwidth plot
#   export   every unit of the metric registry in its Prometheus family and base unit
#            (queries/s, seconds, bytes/s: qps, thread_seconds; latency_<size>, bw_<size>)
#            and streamcard_transport_info{transport}, parsed as Prometheus text and linted
#            by promtool
BIN=$1 SRC=$2
. "$SRC/tests/lib.sh"
SC="$BIN/streamcard"
command -v mpirun >/dev/null || { echo "SKIP: mpirun missing (openmpi-bin)"; exit 77; }

# ips NAME POOL: a tiny search with POOL request handlers; prints its bundle.
ips() {
    expect_status 0 "$SC" run --workload ipsearch --expect-max-interference 100 --cpu-list 0-1 --threads 2 --nb 3001 --nq 41 \
        --dim 24 --k 5 --pool-threads "$2" --run-name "$1" --output "$WORK/runs" --quiet
    bundle_of "$WORK/out"
}
A=$(ips pool1 1)
B=$(ips pool2 2)
printf 'version: 1\nexperiment:\n  workload: mpi-pingpong\n  cpu_list: 0-1\n  min_bytes: 1\n  max_bytes: 65536\n  iterations: 20\n  expect:\n    max_interference_pct: 100\n' \
    >"$WORK/mpi.yaml"
expect_status 0 "$SC" run "$WORK/mpi.yaml" --run-name mpi --output "$WORK/runs" --quiet
M=$(bundle_of "$WORK/out")

# compare: one independent variable, both figures and the change.
expect_status 0 "$SC" compare "$A" "$B" --independent pool_threads
expect_contains "$WORK/out" "pool_threads"
expect_contains "$WORK/out" "qps queries/s"
# ipsearch reads iterations (the card schema says so): a controlled variable, not n/a.
grep -Eq "^  iterations +3 +3$" "$WORK/out" || fail "compare does not hold ipsearch's iterations"
expect_not_contains "$WORK/out" "MB/s"
grep -Eq "qps|queries/s" "$WORK/out" || fail "compare shows no queries/s: $(cat "$WORK/out")"
grep -Eq "[-+][0-9.]+ ?%" "$WORK/out" || fail "compare shows no change in %: $(cat "$WORK/out")"
# The BLAS core type chosen through an inherited OPENBLAS_CORETYPE: env names it, and the
# core type (a controlled variable of its own) follows it.
H=$(OPENBLAS_CORETYPE=Haswell ips haswell 1)
S=$(OPENBLAS_CORETYPE=Sandybridge ips sandy 1)
expect_status 0 "$SC" compare "$H" "$S"
expect_contains "$WORK/out" "differs: env OPENBLAS_CORETYPE: A Haswell | B Sandybridge"
expect_contains "$WORK/out" "differs: blas_core: A Haswell | B Sandybridge (follows env"
expect_contains "$WORK/out" "single variable env: "
expect_not_contains "$WORK/out" "a repeat"
grep -Eq "^  blas +/" "$WORK/out" || fail "compare shows no BLAS library"

# Different workloads: no valid comparison, and the workload is named among the differences.
expect_status 1 "$SC" compare "$A" "$M"
grep -q "workload" "$WORK/out" "$WORK/err" || fail "compare does not name the workload"

# report: one page, both workloads, the MPI bandwidth plot.
expect_status 0 "$SC" report "$A" "$M" -o "$WORK/report.html"
R=$WORK/report.html
expect_contains "$R" "<h3>Latency and bandwidth per message size</h3>"
expect_contains "$R" "MPI bandwidth vs message size"
grep -Eq "qps|queries/s" "$R" || fail "the report shows no ipsearch figure"
# ipsearch's searches, each one's rate (the first, the warm-up, left out), in queries/s.
expect_contains "$R" "best queries/s"
expect_contains "$R" "search: rate of every repetition"
[ "$(grep -c "<svg" "$R")" -ge 2 ] || fail "the report has fewer than 2 plots"

# export: the workloads' own metrics, labelled, parsed by the Prometheus client.
expect_status 0 "$SC" export --prometheus "$A" "$M"
cp "$WORK/out" "$WORK/metrics.prom"
PY=$(python_with prometheus_client)
[ -n "$PY" ] || { echo "SKIP: no prometheus_client (python3-prometheus-client) to parse it"; exit 77; }
"$PY" - "$WORK/metrics.prom" <<'PY'
import sys
from prometheus_client.parser import text_string_to_metric_families
fams = {f.name: f for f in text_string_to_metric_families(open(sys.argv[1]).read())}
ips, mpi = "pool1", "mpi"  # the cards' run names: the card label
def metric(fam, card, prefix):
    return [s for s in fams[fam].samples
            if s.labels["card"] == card and s.labels["metric"].startswith(prefix)]
# Each in its base unit: queries/s; seconds (from the registry's s and us); bytes/s (from
# MB/s = 10^6 bytes/s).
qps = metric("streamcard_metric_queries_per_second", ips, "qps")
assert len(qps) == 1 and qps[0].value > 0 and qps[0].labels["workload"] == "ipsearch", qps
assert qps[0].labels["better"] == "higher", qps
ts = metric("streamcard_metric_seconds", ips, "thread_seconds")
assert len(ts) == 1 and ts[0].value > 0 and ts[0].labels["better"] == "lower", ts
bw = metric("streamcard_metric_bytes_per_second", mpi, "bw_")
assert {s.labels["metric"] for s in bw} >= {"bw_1B", "bw_64KiB"} and all(s.value > 0 for s in bw), bw
lat = metric("streamcard_metric_seconds", mpi, "latency_")
assert {s.labels["metric"] for s in lat} >= {"latency_1B"}, lat
assert all(s.labels["better"] == "lower" for s in lat), lat
# in seconds: the log's microseconds over 10^6 (a ping-pong on one node takes well under 1 s)
assert all(0 < s.value < 1 for s in lat), lat
tr = [s for s in fams["streamcard_transport_info"].samples if s.labels["card"] == mpi]
assert len(tr) == 1 and tr[0].labels["transport"] == "shm" and tr[0].value == 1, tr
# A search is not a STREAM function, nor an MPI run a STREAM rate.
assert not [s for s in fams["streamcard_metric_bytes_per_second"].samples if s.labels["metric"] == "copy"]
ok = {s.labels["card"]: s.value for s in fams["streamcard_verdict_ok"].samples}
assert ok == {ips: 1, mpi: 1}, ok
PY
# promtool (Debian package prometheus) lints the names, units and help texts.
if command -v promtool >/dev/null; then
    promtool check metrics <"$WORK/metrics.prom" >"$WORK/lint" 2>&1 || fail "promtool: $(cat "$WORK/lint")"
else
    echo "note: no promtool (Debian package prometheus): metrics not linted"
fi
echo "ok: workloads"
