#!/usr/bin/env bash
# A rank pushed onto another network (up --nodes 2 --second-net): each node has eth0 on the
# cluster's network and eth1 on a second one, its own bridge and subnet. A card that forces
# Open MPI's TCP traffic onto eth1 (its env: btl_tcp_if_include) and expects eth0 fails its
# transport gate, the bundle saying how many bytes went through eth1 and through eth0; the
# same forcing with `expect: interface: eth1` passes, and so does a card forced onto eth0
# that expects eth0. (Unforced, the tcp BTL spreads over both NICs, so no one interface
# is bound to carry 90%.) down removes the second network with the first.
# shellcheck source=common.sh disable=SC2119 # cluster_down takes down options, not ours
source "$(dirname "$0")/common.sh" "$@"
# shellcheck source=plugin_lib.sh
source "$(dirname "$0")/plugin_lib.sh"
command -v mpirun >/dev/null || skip "Open MPI missing (openmpi-bin)"
unshare --net --uts true 2>/dev/null || skip "cannot make network/UTS namespaces here"
make_workdir
TAG=sc$CTLD_PORT
# card NAME NIC EXPECTED: the ping-pong over TCP between scn1 and scn2, forced onto NIC,
# expecting EXPECTED to carry the payload.
card() {
	{
		printf 'version: 1\nexperiment:\n  workload: mpi-pingpong\n  cpu_list: 0\n'
		printf '  nodes: scn[1-2]\n  max_bytes: 65536\n  iterations: 50\n'
		printf '  env:\n    OMPI_MCA_btl: "tcp,self"\n    OMPI_MCA_btl_tcp_if_include: %s\n' "$2"
		# The interference gate opened: the job runs beside other tests under ctest -j.
		printf '  expect:\n    transport: tcp\n    interface: %s\n    max_interference_pct: 100\n' "$3"
	} >"$WORK/$1"
	chown scuser:scuser "$WORK/$1"
}
write_job job.sh

cluster_up --nodes 2 --second-net --plugin "$PLUGIN" --plugin-args "$(key_arg)"
srun --mpi=list 2>&1 | grep pmix >/dev/null || skip "Slurm's mpi/pmix plugin missing"
# Each node: eth0 on the first subnet, eth1 on the second, same last octet.
while read -r name addr _port ns; do
	ip -n "$ns" -4 -o addr show dev eth0 | grep " inet $addr/24 " >/dev/null || fail "$name: eth0 lacks $addr"
	a2=10.214.${addr#10.213.}
	ip -n "$ns" -4 -o addr show dev eth1 | grep " inet $a2/24 " >/dev/null ||
		fail "$name: eth1 lacks $a2: $(ip -n "$ns" -4 -o addr show)"
	ip -n "$TAG-switch" -o link show dev "$name-eth1" | grep " master br1 " >/dev/null ||
		fail "$name's eth1 is not on the second bridge"
done <"$CDIR/etc/nodes"
# A second up with the same options keeps the network.
ns_id=$(stat -Lc %i "/run/netns/$TAG-scn1")
cluster_up --nodes 2 --second-net --plugin "$PLUGIN" --plugin-args "$(key_arg)"
[[ $(stat -Lc %i "/run/netns/$TAG-scn1") == "$ns_id" ]] || fail "a second up --second-net remade the network"

# run CARD: the job; prints its final state, then its bundle.
run() {
	local job state
	job=$(submit "$1" job.sh -N2 --ntasks-per-node=1) || fail "$1: sbatch refused"
	state=$(wait_job "$job")
	echo "$state $(job_bundle "$job") $job"
}
# bytes BUNDLE: per rank, "rank payload eth0_tx eth1_tx" from results.json.
bytes() {
	python3 - "$1/results.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for rank in r["transport"]["ranks"]:
    b = rank["main_loop_bytes"]
    ifs = b["interfaces"]
    print(rank["rank"], b["payload_sent"], ifs.get("eth0", {}).get("tx", 0), ifs.get("eth1", {}).get("tx", 0))
PY
}

# Forced onto eth1, expecting eth0: the gate fails, naming the bytes of each.
card forced.yaml eth1 eth0
read -r state B job <<<"$(run forced.yaml)"
[[ $state != COMPLETED ]] || fail "forced onto eth1, the card expecting eth0 passed: $(cat "$WORK/$job.out")"
grep -q "expected interface eth0 to carry 90% of the [0-9]* payload bytes, it sent [0-9]*: .*[0-9]* through eth1" "$WORK/$job.out" ||
	fail "the failure does not name the bytes: $(grep -i interface "$WORK/$job.out")"
note "forced onto eth1: $(grep -o 'expected interface eth0.*' "$WORK/$job.out" | head -n1)"
grep -qx "verdict=failed" "$B/run.conf" || fail "the bundle is not marked failed"
as_user "$SC" verify --keys "$TRUSTED" "$B" >"$WORK/verify.out" 2>&1 && fail "verify accepted the run"
grep -q "FAILED its gates: transport" "$WORK/verify.out" || fail "verify: $(cat "$WORK/verify.out")"
while read -r rank payload eth0 eth1; do
	((payload > 0 && eth1 >= payload)) || fail "rank $rank: eth1 sent $eth1 for a payload of $payload"
	((eth0 * 10 < payload)) || fail "rank $rank: eth0 sent $eth0 for a payload of $payload"
done < <(bytes "$B")

# The same forcing, expecting eth1: passes, and verify agrees.
card eth1.yaml eth1 eth1
read -r state B job <<<"$(run eth1.yaml)"
[[ $state == COMPLETED ]] || fail "eth1 expected and used: job $job ended $state: $(cat "$WORK/$job.out")"
grep -q "interface eth1 carried the [0-9]* payload bytes" "$WORK/$job.out" "$B/run.conf" ||
	fail "no note of eth1 carrying the payload: $(grep -i interface "$WORK/$job.out")"
as_user "$SC" verify --keys "$TRUSTED" "$B" >/dev/null || fail "verify rejects the eth1 run"

# Forced onto eth0, expecting eth0: passes; eth1 carried nothing of it.
card eth0.yaml eth0 eth0
read -r state B job <<<"$(run eth0.yaml)"
[[ $state == COMPLETED ]] || fail "eth0 expected and used: job $job ended $state: $(cat "$WORK/$job.out")"
while read -r rank payload eth0 eth1; do
	((eth0 >= payload && eth1 * 10 < payload)) || fail "rank $rank: eth0 $eth0, eth1 $eth1, payload $payload"
done < <(bytes "$B")

# down removes both networks: no namespace of this cluster is left, no bridge port.
cluster_down >/dev/null 2>&1 || fail "down failed"
left=$(ip netns list | awk '{print $1}' | grep "^$TAG-" || true)
[[ -z $left ]] || fail "down left network namespaces: $left"
! ip -o link show | grep "$TAG-" >/dev/null || fail "down left links: $(ip -o link show | grep "$TAG-")"
echo "PASS $TEST_NAME"
