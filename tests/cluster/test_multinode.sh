#!/usr/bin/env bash
# Several nodes on one machine (up --nodes 2): each slurmd in its own network and UTS
# namespace, so that ranks on different nodes talk over the cluster's veths and bridge.
# Checks: both nodes idle, each slurmd in its namespace with its hostname, a second up
# changes nothing; srun -N2 runs one task per node; a TCP connection between the nodes
# goes over the veths (bridge port counters); an Open MPI program launched with
# srun --mpi=pmix exchanges messages between the nodes over the tcp BTL (not shared
# memory); --nodes 1 removes the network again; down after a crash (daemons killed, a job
# running) still removes every namespace and link and the job's processes.
# shellcheck source=common.sh disable=SC2119 # cluster_up takes up options, not ours
source "$(dirname "$0")/common.sh" "$@"

for cmd in ip nsenter unshare python3; do
	command -v "$cmd" >/dev/null || skip "needs $cmd (packages iproute2, util-linux, python3)"
done
unshare --net --uts true 2>/dev/null || skip "cannot make network/UTS namespaces here"
command -v mpicc >/dev/null || skip "needs mpicc (packages openmpi-bin, libopenmpi-dev)"

TAG=sc$CTLD_PORT # the names up gives this cluster's namespaces and link (lib.sh: lc_net_vars)
HEAD_LINK=$TAG-head
SWITCH_NS=$TAG-switch

# our_netns: the network namespaces of this cluster that exist now.
our_netns() { ip netns list | awk '{print $1}' | grep "^$TAG-" || true; }
# bridge_bytes PORT rx|tx: byte counter of a port of the cluster's bridge. A port's RX is
# what the node behind it sent, its TX what the node received.
bridge_bytes() {
	ip -n "$SWITCH_NS" -j -s link show dev "$1" |
		python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["stats64"][sys.argv[1]]["bytes"])' "$2"
}
# in_netns PID NETNS: process PID runs in network namespace NETNS.
in_netns() { [[ $(stat -Lc %d:%i "/proc/$1/ns/net") == $(stat -Lc %d:%i "/run/netns/$2") ]]; }
node_states() { sinfo -h -N -p debug -o '%N %T' | sort | tr '\n' ' '; }

cluster_down --purge >/dev/null 2>&1 || true

# ------------------------------------------------------------ up --nodes 2: both idle
start=$(date +%s%N)
cluster_up --nodes 2
note "cold up --nodes 2 took $((($(date +%s%N) - start) / 1000000)) ms"
[[ $(node_states) == "scn1 idle scn2 idle " ]] || fail "nodes not both idle: $(node_states)"
mapfile -t table <"$CDIR/etc/nodes" # NAME ADDRESS PORT NETNS
((${#table[@]} == 2)) || fail "etc/nodes has ${#table[@]} lines, expected 2"
read -r n1 a1 _ ns1 <<<"${table[0]}"
read -r n2 a2 _ ns2 <<<"${table[1]}"
[[ $n1 == scn1 && $n2 == scn2 && $ns1 == "$TAG-scn1" && $ns2 == "$TAG-scn2" ]] ||
	fail "unexpected node table: ${table[*]}"
[[ $(our_netns | sort | tr '\n' ' ') == "$TAG-scn1 $TAG-scn2 $TAG-switch " ]] ||
	fail "namespaces: $(our_netns | tr '\n' ' ')"
ip -4 -o addr show dev "$HEAD_LINK" | grep " inet ${a1%.*}.1/24 " >/dev/null || fail "$HEAD_LINK lacks ${a1%.*}.1/24"
grep -q "^SlurmctldHost=.*(${a1%.*}.1)\$" "$SLURM_CONF" || fail "slurmctld not at the head address"
declare -A slurmd_pid=()
for n in scn1 scn2; do
	slurmd_pid[$n]=$(pid_of "slurmd-$n")
	in_netns "${slurmd_pid[$n]}" "$TAG-$n" || fail "slurmd-$n is not in network namespace $TAG-$n"
	h=$(nsenter -t "${slurmd_pid[$n]}" --uts hostname) || fail "cannot read slurmd-$n's hostname"
	[[ $h == "$n" ]] || fail "slurmd-$n's hostname is '$h'"
done
ctld=$(pid_of slurmctld)

# Idempotent: same options, same daemons, same network.
ns_id=$(stat -Lc %i "/run/netns/$ns1")
cluster_up --nodes 2
[[ $(pid_of slurmctld) == "$ctld" && $(pid_of slurmd-scn1) == "${slurmd_pid[scn1]}" &&
	$(pid_of slurmd-scn2) == "${slurmd_pid[scn2]}" ]] || fail "a second up --nodes 2 restarted daemons"
[[ $(stat -Lc %i "/run/netns/$ns1") == "$ns_id" ]] || fail "a second up --nodes 2 remade the network"

# ------------------------------------------------------------------ srun across nodes
make_workdir
out=$(as_user srun -N2 -n2 hostname | sort | tr '\n' ' ') || fail "srun -N2 -n2 hostname failed"
[[ $out == "scn1 scn2 " ]] || fail "srun -N2 -n2 hostname printed '$out'"
# Each task is in its node's namespaces (network and UTS), not the host's.
# shellcheck disable=SC2016 # expanded by the task's shell
out=$(as_user srun -N2 -n2 sh -c 'echo "$SLURMD_NODENAME $(hostname) $(readlink /proc/self/ns/net)"' | sort)
while read -r node host ns; do
	[[ $host == "$node" ]] || fail "a task on $node has hostname $host"
	[[ $ns == "net:[$(stat -Lc %i "/run/netns/$TAG-$node")]" ]] || fail "a task on $node is in $ns, not in $TAG-$node"
done <<<"$out"

# --------------------------------------------- TCP between the nodes, over the veths
# Task 0 (scn1) listens on its node address, task 1 (scn2) connects and sends 2 MB.
cat >"$WORK/tcp.py" <<'PY'
import os, socket, sys, time
addr, port, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
me = socket.gethostname()
if os.environ["SLURM_PROCID"] == "0":
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind((addr, port))
    srv.listen(1)
    srv.settimeout(30)
    conn, peer = srv.accept()
    got = 0
    while True:
        chunk = conn.recv(1 << 16)
        if not chunk:
            break
        got += len(chunk)
    print(f"server {me} {conn.getsockname()[0]} received {got} from {peer[0]}", flush=True)
else:
    for _ in range(300):  # until the server listens
        try:
            conn = socket.create_connection((addr, port), timeout=5)
            break
        except OSError:
            time.sleep(0.1)
    else:
        sys.exit(f"client {me}: cannot connect to {addr}:{port}")
    conn.sendall(b"x" * size)
    print(f"client {me} {conn.getsockname()[0]} sent {size} to {addr}", flush=True)
    conn.close()
PY
chown scuser:scuser "$WORK/tcp.py"
size=2000000
rx2=$(bridge_bytes scn2 rx) tx1=$(bridge_bytes scn1 tx)
out=$(as_user srun -N2 -n2 python3 tcp.py "$a1" 5555 "$size") || fail "the TCP test failed: $out"
note "TCP: $(tr '\n' ';' <<<"$out")"
grep -qx "server scn1 $a1 received $size from $a2" <<<"$out" || fail "server side: $out"
grep -qx "client scn2 $a2 sent $size to $a1" <<<"$out" || fail "client side: $out"
# The bytes went from scn2's eth0 over the bridge into scn1's eth0.
d_rx2=$(($(bridge_bytes scn2 rx) - rx2)) d_tx1=$(($(bridge_bytes scn1 tx) - tx1))
note "bridge port scn2 received $d_rx2 bytes from scn2, port scn1 sent $d_tx1 bytes to scn1"
((d_rx2 >= size && d_tx1 >= size)) || fail "the $size bytes did not cross the bridge ($d_rx2, $d_tx1)"

# ------------------------------------------------- Open MPI across the nodes (pmix)
mpis=$(as_user srun --mpi=list 2>&1) || fail "srun --mpi=list failed: $mpis"
grep -qw pmix <<<"$mpis" || skip "Slurm has no mpi/pmix plugin (package slurm-wlm-basic-plugins; it loads libpmix.so from libpmix-dev)"
cat >"$WORK/hello.c" <<'C'
/* Each rank prints its host; rank 0 sends its host name and a patterned buffer to rank 1,
 * which checks it and answers with its own host name. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int main(int argc, char **argv)
{
	char me[MPI_MAX_PROCESSOR_NAME] = "", peer[MPI_MAX_PROCESSOR_NAME] = "";
	int rank, size, len, ok = 1;
	long n = argc > 1 ? atol(argv[1]) : 1024, i;
	unsigned char *buf;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Get_processor_name(me, &len);
	printf("hello from rank %d of %d on %s\n", rank, size, me);
	fflush(stdout);
	if (!(buf = malloc(n)))
		MPI_Abort(MPI_COMM_WORLD, 2);
	if (rank == 0) {
		for (i = 0; i < n; i++)
			buf[i] = (unsigned char)(i * 7 + 1);
		MPI_Send(me, sizeof me, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
		MPI_Send(buf, (int)n, MPI_BYTE, 1, 2, MPI_COMM_WORLD);
		MPI_Recv(peer, sizeof peer, MPI_CHAR, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		printf("rank 0 on %s: rank 1 answered from %s\n", me, peer);
	} else if (rank == 1) {
		memset(buf, 0, n);
		MPI_Recv(peer, sizeof peer, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Recv(buf, (int)n, MPI_BYTE, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		for (i = 0; i < n; i++)
			if (buf[i] != (unsigned char)(i * 7 + 1))
				ok = 0;
		MPI_Send(me, sizeof me, MPI_CHAR, 0, 3, MPI_COMM_WORLD);
		printf("rank 1 on %s: %ld bytes from rank 0 on %s %s\n", me, n, peer, ok ? "intact" : "CORRUPT");
	}
	fflush(stdout);
	free(buf);
	MPI_Finalize();
	return ok ? 0 : 1;
}
C
mpicc -O2 -o "$WORK/hello" "$WORK/hello.c" || fail "mpicc failed"
chown scuser:scuser "$WORK/hello"
size=4000000
sent1=$(bridge_bytes scn1 rx) # what scn1 (rank 0) sent into the bridge
# btl_base_verbose shows which BTL carries the messages to which address.
out=$(as_user --env OMPI_MCA_btl_base_verbose=100 srun -N2 -n2 --mpi=pmix ./hello "$size" 2>&1) ||
	fail "srun --mpi=pmix ./hello failed: $out"
d_sent1=$(($(bridge_bytes scn1 rx) - sent1))
grep '^hello\|^rank\|Using .* btl for send\|path from' <<<"$out" >&2
grep -qx 'hello from rank 0 of 2 on scn1' <<<"$out" || fail "rank 0 did not run on scn1"
grep -qx 'hello from rank 1 of 2 on scn2' <<<"$out" || fail "rank 1 did not run on scn2"
grep -qx "rank 1 on scn2: $size bytes from rank 0 on scn1 intact" <<<"$out" || fail "the message did not arrive intact"
grep -qx 'rank 0 on scn1: rank 1 answered from scn2' <<<"$out" || fail "the answer did not arrive"
# The transport: the tcp BTL, between the node addresses; never shared memory (vader).
grep -q "\[scn1:[0-9]*\] mca: bml: Using tcp btl for send to .* on node scn2" <<<"$out" ||
	fail "rank 0 did not use the tcp BTL to reach scn2"
grep -q "\[scn2:[0-9]*\] mca: bml: Using tcp btl for send to .* on node scn1" <<<"$out" ||
	fail "rank 1 did not use the tcp BTL to reach scn1"
grep -qF "[scn1:" <<<"$(grep -F "path from $a1 to $a2" <<<"$out")" ||
	fail "the tcp BTL of rank 0 did not connect $a1 to $a2"
grep -qF "[scn2:" <<<"$(grep -F "path from $a2 to $a1" <<<"$out")" ||
	fail "the tcp BTL of rank 1 did not connect $a2 to $a1"
if grep -q 'Using \(vader\|sm\) btl' <<<"$out"; then fail "shared memory used between the nodes"; fi
note "MPI: scn1 (rank 0) sent $d_sent1 bytes into the bridge"
((d_sent1 >= size)) || fail "the MPI message did not cross the bridge (scn1 sent $d_sent1 bytes)"

# -------------------------------------------- --nodes 1 again: the network goes away
cluster_up
[[ -z $(our_netns) ]] || fail "up --nodes 1 left namespaces: $(our_netns | tr '\n' ' ')"
! ip link show dev "$HEAD_LINK" >/dev/null 2>&1 || fail "up --nodes 1 left $HEAD_LINK"
[[ $(sinfo -h -N -p debug -o '%N %T') == "$(hostname -s) idle" ]] || fail "one node not idle: $(node_states)"
grep -q '^SlurmctldHost=.*(127.0.0.1)$' "$SLURM_CONF" || fail "one node: slurmctld not at 127.0.0.1"

# --------------------------------------- down after a crash removes the network too
cluster_up --nodes 2
[[ $(node_states) == "scn1 idle scn2 idle " ]] || fail "nodes not idle after up --nodes 2 again"
marker=sc-mn-$$-$RANDOM
printf '#!/bin/bash\nsrun -N2 -n2 bash -c %q\n' "exec -a $marker sleep 300" >"$WORK/sleepers.sh"
chown scuser:scuser "$WORK/sleepers.sh"
job=$(as_user sbatch --parsable -N2 -n2 sleepers.sh) || fail "sbatch -N2 failed"
two_sleepers() { [[ $(pgrep -c -u scuser -f "^$marker 300\$") == 2 ]]; }
wait_until 30 "job $job's two sleepers" two_sleepers
for p in $(pgrep -u scuser -f "^$marker 300\$"); do
	in_netns "$p" "$TAG-scn1" || in_netns "$p" "$TAG-scn2" || fail "sleeper $p is in no node namespace"
done
# The crash: every Slurm daemon dies at once, nothing is cleaned up.
kill -KILL "$(pid_of slurmctld)" "$(pid_of slurmd-scn1)" "$(pid_of slurmd-scn2)"
sleep 0.5
start=$(date +%s%N)
cluster_down || fail "down after the crash failed"
note "down after the crash took $((($(date +%s%N) - start) / 1000000)) ms"
[[ -z $(our_netns) ]] || fail "down left namespaces: $(our_netns | tr '\n' ' ')"
! ip link show dev "$HEAD_LINK" >/dev/null 2>&1 || fail "down left link $HEAD_LINK"
! ip -o link show | grep "streamcard-local-cluster:$CDIR\$" >/dev/null || fail "down left a marked link"
[[ ! -e $CDIR/run/network ]] || fail "down left run/network"
if pgrep -u scuser -f "^$marker 300\$" >/dev/null; then fail "the job's processes survived down"; fi
cluster_down || fail "a second down failed"
echo "PASS $TEST_NAME"
