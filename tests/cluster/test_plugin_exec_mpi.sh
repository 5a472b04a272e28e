#!/usr/bin/env bash
# An MPI program we did not write, marked by its output's patterns, under `sbatch
# --stream-card` (doc/markers.md): the job's `streamcard run` starts the ranks with srun, so
# they are slurmstepd's children, not the observer's. The observer adopts each rank of its
# host by its TRACE_RANK_BINDING line (when the rank's environment names it) and accounts the
# card's CPUs over the patterns' window with the ranks as the job's own; ranks of other hosts
# keep their own windows. One node: both ranks judged on the observer's window. Two nodes
# (slurmds in their own network and UTS namespaces): scn1's rank on the observer's window,
# scn2's on its own, the gate's note saying which. Both bundles verify with the node keys.
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh" "$@"
# shellcheck source=plugin_lib.sh
source "$(dirname "$0")/plugin_lib.sh"
command -v mpirun >/dev/null || skip "Open MPI missing (openmpi-bin)"
make_workdir
PINGPONG=$(dirname "$SC")/streamcard-marker-pingpong
[[ -x $PINGPONG ]] || skip "the staged install has no $PINGPONG (built only with MPI)"

# exec_mpi_card NAME CPU_LIST TRANSPORT [lines]: the marker example as 2 ranks, its main loop
# bounded by the lines it prints around it, the interference gate open (other tests run).
exec_mpi_card() {
	local name=$1 cpus=$2 transport=$3
	shift 3
	{
		printf 'version: 1\nexperiment:\n  workload: exec\n'
		printf '  command: [%s, "2000"]\n  ranks: 2\n  cpu_list: "%s"\n' "$PINGPONG" "$cpus"
		printf "  begin_pattern: '^marker-pingpong: 2 ranks'\n  end_pattern: '^Latency: '\n"
		printf "  validate_pattern: '^Solution Validates'\n"
		printf '%s\n' "$@"
		printf '  expect:\n    transport: %s\n    max_interference_pct: 100\n' "$transport"
	} >"$WORK/$name"
	chown scuser:scuser "$WORK/$name"
}
write_job job.sh

# windows_ok BUNDLE ADOPTED NOTE: the observer's records hold a task of each rank in ADOPTED
# (ranks by number, from their binding lines) and of no other rank; the gate's note says NOTE.
windows_ok() {
	python3 - "$@" <<'PY'
import json, re, sys
b, adopted, want = sys.argv[1], {int(r) for r in sys.argv[2].split(",") if r}, sys.argv[3]
log, txt = open(b + "/stream.log").read(), open(b + "/interference.txt").read()
r = json.load(open(b + "/results.json"))
assert r["verdict"] == "ok", (r["verdict"], r["notes"])
pids = {int(m[0]): int(m[1]) for m in re.findall(
    r"^TRACE_RANK_BINDING rank=(\d+) host=\S+ cpu=\d+ pid=(\d+) ", log, re.M)}
assert sorted(pids) == [0, 1], pids
own = {int(p) for p in re.findall(r"^TRACE_INTERFERENCE_TASK source=observer tid=\d+ pid=(\d+) ",
                                  txt, re.M)}
seen = {rank for rank, pid in pids.items() if pid in own}
assert seen == adopted, ("ranks among the observer's tasks", seen, "want", adopted, pids, own)
assert len(re.findall(r"^TRACE_INTERFERENCE_WINDOW source=observer ", txt, re.M)) == 1, txt
note = r["notes"]["interference"]
assert want in note, note
PY
}

plugin_up
srun --mpi=list 2>&1 | grep pmix >/dev/null || skip "Slurm's mpi/pmix plugin missing"
host=$(hostname)
exec_mpi_card one.yaml 0-1 shm
job=$(submit one.yaml job.sh) || fail "one node: sbatch refused"
wait_completed "$job"
B=$(job_bundle "$job")
grep -q "^command=.*/srun$" "$B/run.conf" || fail "one node: the ranks were not started by srun"
windows_ok "$B" 0,1 "the ranks' interference windows: 2 from the card's patterns (the observer's on $host)" ||
	fail "one node: the observer's window over srun's ranks"
as_user "$SC" verify --keys "$TRUSTED" "$B" >"$WORK/verify.out" 2>&1 ||
	fail "one node: verify rejects the bundle: $(cat "$WORK/verify.out")"

# Two nodes: rank 0 on scn1 (the batch step's node, the observer's), rank 1 on scn2.
cluster_up --nodes 2 --plugin "$PLUGIN" --plugin-args "$(key_arg)"
exec_mpi_card two.yaml 0 tcp '  nodes: scn[1-2]'
job=$(submit two.yaml job.sh) || fail "two nodes: sbatch refused"
wait_completed "$job"
B=$(job_bundle "$job")
grep -q "TRACE_RANK_BINDING rank=0 host=scn1 " "$B/stream.log" &&
	grep -q "TRACE_RANK_BINDING rank=1 host=scn2 " "$B/stream.log" ||
	fail "two nodes: not rank 0 on scn1 and rank 1 on scn2: $(grep TRACE_RANK_BINDING "$B/stream.log")"
windows_ok "$B" 0 "the ranks' interference windows: 1 from the card's patterns (the observer's on scn1), 1 from their own (other hosts)" ||
	fail "two nodes: the mixed windows"
as_user "$SC" verify --keys "$TRUSTED" "$B" >"$WORK/verify.out" 2>&1 ||
	fail "two nodes: verify rejects the bundle: $(cat "$WORK/verify.out")"
echo "PASS $TEST_NAME"
