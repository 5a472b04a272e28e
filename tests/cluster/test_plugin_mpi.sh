#!/usr/bin/env bash
# mpi-pingpong under Slurm: `streamcard run` in a --stream-card job launches the ranks with
# `srun --mpi=pmix`. Two ranks on one node go over shared memory; on two nodes (slurmds in
# their own network namespaces) over TCP, each node's view (host, cpu, transport) in the
# bundle; the card's expected transport is checked against what Open MPI reported. A card
# changing prefetch is applied, checked and recorded on each of the two nodes.
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh" "$@"
# shellcheck source=plugin_lib.sh
source "$(dirname "$0")/plugin_lib.sh"
command -v mpirun >/dev/null || skip "Open MPI missing (openmpi-bin)"
make_workdir
mpi_card() { # mpi_card NAME CPU_LIST TRANSPORT [lines]
	local name=$1 cpus=$2 transport=$3
	shift 3
	{
		printf 'version: 1\nexperiment:\n  workload: mpi-pingpong\n  cpu_list: %s\n' "$cpus"
		printf '  max_bytes: 65536\n  iterations: 50\n  expect:\n    transport: %s\n' "$transport"
		# The interference gate opened: the job runs beside other tests under ctest -j.
		printf '    max_interference_pct: 100\n'
		printf '%s\n' "$@"
	} >"$WORK/$name"
	chown scuser:scuser "$WORK/$name"
}
write_job job.sh

# job_field JOBID FIELD: one field of `scontrol show job`.
job_field() { scontrol -o show job "$1" | grep -o " $2=[^ ]*" | cut -d= -f2-; }

# One node: both ranks over shared memory. A plain `sbatch --stream-card` (the cli_filter
# on): the filter asks for the card's ranks as tasks of one CPU each, which the ranks'
# srun step inside the job then uses.
plugin_up
srun --mpi=list 2>&1 | grep pmix >/dev/null || skip "Slurm's mpi/pmix plugin missing"
mpi_card one.yaml 0-1 shm
job=$(submit one.yaml job.sh 2>"$WORK/one.err") || fail "sbatch refused: $(cat "$WORK/one.err")"
grep -qx 'streamcard cli_filter: one.yaml (cpu_list 0-1, 2 ranks): added --ntasks=2' "$WORK/one.err" ||
	fail "the filter did not ask for the ranks as tasks: $(cat "$WORK/one.err")"
[[ $(job_field "$job" NumTasks) == 2 && $(job_field "$job" CPUs/Task) == 1 ]] ||
	fail "one node: not 2 tasks of 1 CPU: $(scontrol -o show job "$job")"
state=$(wait_job "$job")
[[ $state == COMPLETED ]] || fail "one node: job $job ended $state: $(cat "$WORK/$job.out")"
B=$(job_bundle "$job")
grep -qx "transport=shm" "$B/run.conf" || fail "one node: transport not shm"
grep -q "^command=.*/srun$" "$B/run.conf" && grep -qx "command_arg=--mpi=pmix" "$B/run.conf" ||
	fail "the ranks were not launched with srun --mpi=pmix"
as_user "$SC" verify --keys "$TRUSTED" "$B" >/dev/null || fail "one node: verify rejects the bundle"

# Too few CPUs asked for by hand (the filter keeps the user's -n 1 -c 1): the node refuses
# the card naming the request that gives an MPI card its CPUs, its ranks as tasks.
job=$(submit one.yaml job.sh -n 1 -c 1 2>/dev/null) || fail "sbatch refused -n 1 -c 1"
state=$(wait_job "$job")
[[ $state != COMPLETED ]] || fail "an MPI card with one CPU completed: $(scontrol -o show job "$job") $(cat "$WORK/$job.out")"
logged "ask Slurm for the card's CPUs: sbatch --exclusive, or -n 2)" "$WORK/$job.out"

# Two nodes in their own network namespaces: over TCP, one rank per node; the filter asks
# for one task on each of two nodes.
cluster_up --nodes 2 --plugin "$PLUGIN" --plugin-args "$(key_arg)"
mpi_card two.yaml 0 tcp '  nodes: scn[1-2]'
job=$(submit two.yaml job.sh 2>"$WORK/two.err") || fail "sbatch refused: $(cat "$WORK/two.err")"
grep -qx 'streamcard cli_filter: two.yaml (cpu_list 0, 2 ranks): added --ntasks=2 --ntasks-per-node=1' \
	"$WORK/two.err" || fail "the filter did not ask for a rank on each node: $(cat "$WORK/two.err")"
nodes=$(job_field "$job" NumNodes)
[[ ${nodes%%-*} == 2 && $(job_field "$job" NumTasks) == 2 ]] ||
	fail "two nodes: not 2 tasks on 2 nodes: $(scontrol -o show job "$job")"
state=$(wait_job "$job")
[[ $state == COMPLETED ]] || fail "two nodes: job $job ended $state: $(cat "$WORK/$job.out")"
B=$(job_bundle "$job")
grep -qx "transport=tcp" "$B/run.conf" || fail "two nodes: transport not tcp"
for host in scn1 scn2; do
	grep -q "TRACE_RANK_BINDING rank=[01] host=$host cpu=0" "$B/stream.log" ||
		fail "no rank on $host in the bundle"
	grep -q "TRACE_TRANSPORT_RANK rank=[01] host=$host candidates=tcp " "$B/stream.log" ||
		fail "no transport view of $host in the bundle"
done
# Each rank accounted the interference on its own CPU, on its own node.
for r in 0 1; do
	grep -q "^TRACE_INTERFERENCE_CPU source=rank$r cpu=0 " "$B/stream.log" ||
		fail "rank $r did not account its CPU: $(grep TRACE_INTERFERENCE "$B/stream.log" | head -n 5)"
done
python3 - "$B" <<'PY' || fail "two nodes: results.json lacks both ranks' interference"
import json, sys
r = json.load(open(sys.argv[1] + "/results.json"))
sources = sorted(c["source"] for c in r["interference"]["cpus"])
assert sources == ["rank0", "rank1"], sources
PY
# Each node's rank counts its own namespace's interfaces: the payload went over a NIC.
grep -q "^TRACE_IFACE_BYTES rank=1 netns=[0-9]* iface=[^l][^ ]* rx=[1-9]" "$B/stream.log" ||
	fail "no NIC of rank 1's node moved the data: $(grep TRACE_IFACE_BYTES "$B/stream.log")"
as_user "$SC" verify --keys "$TRUSTED" "$B" >/dev/null || fail "two nodes: verify rejects the bundle"

# Prefetch off on both nodes (a fake machine under the sysroot, one for both nodes: they
# share this machine's files): the card's ranks' step applies and checks the card on every
# node and records each node's platform under its name, read back valid.
reg=0x1a4 seed=0xdeadbeef00000040
sys=$WORK/sysroot
make_sysroot "$sys" GenuineIntel 6 85
for ((cpu = 0; cpu < $(nproc --all); cpu++)); do msr_write "$sys" "$cpu" "$reg" "$seed"; done
cluster_up --nodes 2 --plugin "$PLUGIN" --plugin-args "allow=prefetch require_exclusive=yes sysroot=$sys state_dir=$WORK/state $(key_arg)"
mpi_card off.yaml 0 tcp '  nodes: scn[1-2]' '  prefetch: off'
job=$(submit off.yaml job.sh -N2 --ntasks-per-node=1 --exclusive) || fail "sbatch refused"
state=$(wait_job "$job")
[[ $state == COMPLETED ]] || fail "prefetch off: job $job ended $state: $(cat "$WORK/$job.out" "$WORK"/mpi_*/stream.log)"
B=$(job_bundle "$job")
for host in scn1 scn2; do
	[[ -s $B/platform/$host/before.txt ]] || fail "no platform record of $host in the bundle"
	grep -qx "OBSERVED_STATE=off" "$B/prefetch/state/$host/state.env" &&
		grep -qx "STATE_VALID=1" "$B/prefetch/state/$host/state.env" ||
		fail "no valid prefetch readback of $host: $(cat "$B/prefetch/state/$host/state.env" 2>&1)"
done
grep -qx "platform_state_ok=1" "$B/run.conf" || fail "prefetch off: platform gate not ok"
as_user "$SC" verify --keys "$TRUSTED" "$B" >"$WORK/verify.out" || fail "prefetch off: verify rejects the bundle"
# Each node signed its own statement with its own key (key=.../%n/node.key).
for host in scn1 scn2; do
	grep -q "platform attested by $host key [0-9a-f]\{64\}" "$WORK/verify.out" ||
		fail "verify does not say $host is attested: $(cat "$WORK/verify.out")"
done
# A statement from another node's key: scn2's, passed off as scn1's.
S=$WORK/swapped
cp -r "$B" "$S"
cp "$S/attest/apply_scn2.dsse.json" "$S/attest/apply_scn1.dsse.json"
reseal "$S"
out=$("$SC" verify --keys "$TRUSTED" "$S" 2>&1) && fail "verify accepts scn2's statement as scn1's"
grep -q "attest/apply_scn1.dsse.json: the apply statement of node scn2, not the apply of scn1" <<<"$out" ||
	fail "the swapped statement is not named: $out"
[[ $(msr_read "$sys" 0 "$reg") == "$seed" ]] || fail "prefetch not restored after the job"
# The gate held because every node read back off; without scn2's record it cannot hold.
grep -q 'read back: prefetch off, governor unchanged, on every node' "$B/results.json" ||
	fail "the platform gate does not say every node: $(grep -A2 platform_state "$B/results.json")"
F=$WORK/forged
cp -r "$B" "$F"
rm "$F/prefetch/state/scn2/state.env" "$F/attest/apply_scn2.dsse.json"
reseal "$F"
out=$("$SC" verify --keys "$TRUSTED" "$F" 2>&1) && fail "verify accepts a bundle without scn2's readback"
grep -q "rank 1 ran on scn2, which has no prefetch/state/scn2/state.env readback" <<<"$out" ||
	fail "verify does not name scn2's missing readback: $out"

# The same card expecting shared memory across nodes fails its transport gate.
mpi_card wrong.yaml 0 shm '  nodes: scn[1-2]'
job=$(submit wrong.yaml job.sh -N2 --ntasks-per-node=1) || fail "sbatch refused"
wait_job "$job" >/dev/null
grep -q "expected transport shm, the data went over tcp" "$WORK/$job.out" ||
	fail "no transport message: $(cat "$WORK/$job.out")"
echo "PASS $TEST_NAME"
