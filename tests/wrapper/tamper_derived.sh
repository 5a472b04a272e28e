#!/usr/bin/env bash
# verify recomputes every derived figure from the raw ones: a rate edited consistently in
# stream.log, results.json and run.conf (and re-sealed) still fails, because the log's own
# times and the card's sizes do not give it. STREAM: MB/s from array size, bytes per
# function and the fastest time; ipsearch: queries/s from nq and the fastest search;
# mpi-pingpong: Mbytes/sec from the message size and t[usec].
BIN=$1 SRC=$2
. "$SRC/tests/lib.sh"

# scale_all BUNDLE PYTHON: the python statement edits the log text s and results.json r
# together (every copy of the same figure, the run's record in "runs" too), then run.conf's
# best rate follows; re-sealed.
scale_all() {
    python3 - "$1" "$2" <<'PY'
import json, re, sys
b, code = sys.argv[1], sys.argv[2]
s = open(b + "/stream.log").read(); r = json.load(open(b + "/results.json"))
conf = open(b + "/run.conf").read()
exec(code)
for run in r.get("runs", []):  # one run: its record in "runs" is the top level's, edited too
    if not run.get("dir") and "metrics" in r:
        run["metrics"] = r["metrics"]
open(b + "/stream.log", "w").write(s); json.dump(r, open(b + "/results.json", "w"))
open(b + "/run.conf", "w").write(conf)
PY
    "$BIN/restat" "$1" || fail "restat $1" # the statistics over the runs, as verify recomputes them
    reseal "$1"
}

# --- STREAM: Copy's rate doubled in all three files ---
expect_status 0 "$BIN/streamcard" run --workload stream --kernel copy --cpu-list 0-1 \
    --threads 2 --array-size 200000 --cache-resident accept --iterations 3 --expect-max-interference 100 --output "$WORK/runs" --quiet
S=$(bundle_of "$WORK/out")
expect_status 0 "$BIN/streamcard" verify "$S"
cp -r "$S" "$WORK/stream3"
scale_all "$WORK/stream3" '
m = re.search(r"^Copy:\s+([0-9.]+)", s, re.M); old = m.group(1); new = "%.1f" % (float(old) * 2)
s = s.replace(m.group(0), m.group(0).replace(old, new))
r["metrics"]["best_rate_MBps"] = float(new); r["metrics"]["rates"]["copy"] = float(new)
conf = re.sub(r"^best_rate_MBps=.*$", "best_rate_MBps=" + new, conf, flags=re.M)'
expect_status 1 "$BIN/streamcard" verify "$WORK/stream3"
expect_contains "$WORK/err" "stream.log: Copy "
expect_contains "$WORK/err" "MB over its min time"
expect_not_contains "$WORK/err" "results.json"
expect_not_contains "$WORK/err" "run.conf"

# --- ipsearch: qps doubled in the log's figures, its table and results.json ---
expect_status 0 "$BIN/streamcard" run --workload ipsearch --cpu-list 0-1 --threads 2 \
    --nb 2000 --nq 40 --dim 16 --k 4 --expect-max-interference 100 --output "$WORK/runs" --quiet
I=$(bundle_of "$WORK/out")
expect_status 0 "$BIN/streamcard" verify "$I"
cp -r "$I" "$WORK/ips2"
scale_all "$WORK/ips2" '
m = re.search(r"^qps=([0-9.]+)", s, re.M); old = m.group(1); new = "%.1f" % (float(old) * 2)
s = s.replace("qps=" + old, "qps=" + new)
r["metrics"]["qps"] = float(new)'
expect_status 1 "$BIN/streamcard" verify "$WORK/ips2"
expect_contains "$WORK/err" "stream.log: qps="
expect_contains "$WORK/err" "but nq 40 over wall_seconds"
expect_not_contains "$WORK/err" "results.json"

# --- mpi-pingpong: one size's Mbytes/sec doubled in the log and results.json ---
if ! command -v mpirun >/dev/null; then
    echo "ok: tamper_derived (stream and ipsearch only: mpirun missing)"
    exit 0
fi
expect_status 0 "$BIN/streamcard" run --workload mpi-pingpong --cpu-list 0-1 --min-bytes 1024 \
    --max-bytes 1024 --iterations 20 --expect-max-interference 100 --output "$WORK/runs" --quiet
M=$(bundle_of "$WORK/out")
expect_status 0 "$BIN/streamcard" verify "$M"
cp -r "$M" "$WORK/mpi2"
scale_all "$WORK/mpi2" '
m = re.search(r"^\s*1024\s+\d+\s+[0-9.]+\s+([0-9.]+)\s*$", s, re.M); old = m.group(1)
new = "%.2f" % (float(old) * 2)
s = s.replace(m.group(0), m.group(0).replace(old, new))
for z in r["metrics"]["sizes"]:
    if z["bytes"] == 1024: z["MBps"] = float(new)
r["metrics"]["peak_MBps"] = float(new)
conf = re.sub(r"^best_rate_MBps=.*$", "best_rate_MBps=" + new, conf, flags=re.M)'
expect_status 1 "$BIN/streamcard" verify "$WORK/mpi2"
expect_contains "$WORK/err" "stream.log: 1024 bytes at"
expect_not_contains "$WORK/err" "results.json"
# --- The foreign work: a run's share of other work set (0 -> 55%, or a busy one to 0) in
# results.json, which compare reads to call a side contaminated; interference.txt gives
# another figure. And the record taken out altogether.
for b in "$S" "$M"; do
    n=$(basename "$b")
    cp -r "$b" "$WORK/intf-$n"
    scale_all "$WORK/intf-$n" '
for run in r["runs"]:
    for c in run["interference"]["cpus"]:
        c["share_pct"] = 55.0 if c["share_pct"] < 50 else 0.0
if "interference" in r and r["runs"] and not r["runs"][0].get("dir"):
    r["interference"] = r["runs"][0]["interference"]'
    expect_status 1 "$BIN/streamcard" verify "$WORK/intf-$n"
    expect_contains "$WORK/err" "results.json: interference says cpu "
    expect_contains "$WORK/err" "but the raw records (interference.txt) give cpu "
    cp -r "$b" "$WORK/nointf-$n"
    scale_all "$WORK/nointf-$n" '
for run in r["runs"]:
    run.pop("interference", None)'
    expect_status 1 "$BIN/streamcard" verify "$WORK/nointf-$n"
    expect_contains "$WORK/err" "results.json: interference lists 0 CPUs, but the raw records"
done
echo "ok: tamper_derived"
