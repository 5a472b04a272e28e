#!/usr/bin/env bash
# The link matrix on four namespaced nodes (up --nodes 4): a --stream-card job with
# pairs: all starts one rank per node and measures every node pair in 3 rounds; the bundle
# holds the 4 x 4 matrices and verifies. One node rate-limited with tc (tbf on its eth0) is
# named by `streamcard health` as the node to drain, and none of its pairs as a link; one
# slow link (htb on scn1's eth0, a u32 filter on scn2's address) is named as the link
# scn1-scn2 and neither node is drained. The bytes each rank's namespace sent went through
# its eth0. The nodes share this machine's CPUs (every rank on cpu 0), which makes even
# healthy pairs slow and noisy: the shaping (4 Mbit/s) makes its pairs ~10x slower still in
# bandwidth, and the card's outlier_min_pct is 80. The latency at 8 bytes is left out of
# the checks: tbf and htb do not delay small messages, and here it measures the scheduler
# of one shared CPU (pairs from 0.6 to 1.5 ms in one run), which health may well call a
# slow link; the bandwidth reasons are checked exactly.
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh" "$@"
# shellcheck source=plugin_lib.sh
source "$(dirname "$0")/plugin_lib.sh"
command -v mpirun >/dev/null || skip "Open MPI missing (openmpi-bin)"
command -v tc >/dev/null || skip "needs tc (package iproute2)"
unshare --net --uts true 2>/dev/null || skip "cannot make network/UTS namespaces here"
make_workdir
TAG=sc$CTLD_PORT
in_node() { local node=$1; shift; nsenter --net="/run/netns/$TAG-$node" -- "$@"; }
test_cleanup() {
	local n
	for n in scn1 scn2 scn3 scn4; do
		[[ -e /run/netns/$TAG-$n ]] && in_node "$n" tc qdisc del dev eth0 root 2>/dev/null
	done
	return 0
}
{
	printf 'version: 1\nexperiment:\n  workload: mpi-pingpong\n  cpu_list: 0\n'
	printf '  nodes: scn[1-4]\n  pairs: all\n  min_bytes: 8\n  max_bytes: 65536\n'
	printf '  iterations: 20\n  outlier_min_pct: 80\n'
	# The four nodes are one machine: every rank is bound to its cpu 0. Ranks that yield
	# while they wait let the others run.
	printf '  env:\n    OMPI_MCA_mpi_yield_when_idle: "1"\n'
	# The interference gate opened: the job runs beside other tests under ctest -j.
	printf '  expect:\n    transport: tcp\n    max_interference_pct: 100\n'
} >"$WORK/matrix.yaml"
chown scuser:scuser "$WORK/matrix.yaml"
write_job job.sh

cluster_up --nodes 4 --plugin "$PLUGIN" --plugin-args "$(key_arg)"
srun --mpi=list 2>&1 | grep pmix >/dev/null || skip "Slurm's mpi/pmix plugin missing"
addr_of() { awk -v n="$1" '$1 == n {print $2}' "$CDIR/etc/nodes"; }

# run_matrix WHAT: the job, its bundle verified and its matrix checked; prints the bundle.
run_matrix() {
	local job state b start
	start=$(date +%s)
	job=$(submit matrix.yaml job.sh -N4 --ntasks-per-node=1) || fail "$1: sbatch refused"
	state=$(wait_job "$job")
	[[ $state == COMPLETED ]] || fail "$1: job $job ended $state: $(cat "$WORK/$job.out")"
	b=$(job_bundle "$job")
	as_user "$SC" verify --keys "$TRUSTED" "$b" >/dev/null || fail "$1: verify rejects $b"
	python3 - "$b" "$1" <<'PY' >&2 || fail "$1: the matrix"
import json, sys
r = json.load(open(sys.argv[1] + "/results.json"))
m = r["matrix"]
assert sorted(m["nodes"]) == ["scn1", "scn2", "scn3", "scn4"], m["nodes"]
P = m["passes"]  # the card's passes (default 3): the whole schedule P times
assert m["rounds"] == 3 and len(m["round_seconds"]) == 3 * P and P == 3, (m["rounds"], P)
def grid(s):  # the size's raw figures (matrix/<bytes>B.csv): per pair the median MB/s of its passes
    seen = {}
    for line in open(sys.argv[1] + "/" + s["file"]).read().split("\n")[2:-1]:
        k, a, b, _, bw = line.split(",")
        seen.setdefault((int(a), int(b)), []).append(float(bw))
    g = [[None] * 4 for _ in range(4)]
    for (a, b), v in seen.items():
        assert len(v) == P, (a, b, v)
        g[a][b] = g[b][a] = sorted(v)[P // 2]
    return g
for s in m["sizes"]:
    g = grid(s)
    assert s["pairs"] == 6 * P and all(g[i][j] for i in range(4) for j in range(4) if i != j), g
print("%s: rounds %s s, in all %.2f s; bw_64KiB:" % (sys.argv[2], ", ".join(
    "%.2f" % t for t in m["round_seconds"]), m["total_seconds"]))
for name, row in zip(m["nodes"], grid(m["sizes"][-1])):
    print("  %s %s" % (name, " ".join("%8.1f" % v if v else "       -" for v in row)))
# Each rank's namespace sent at least its payload through eth0, nothing through another NIC.
for rank in r["transport"]["ranks"]:
    b = rank["main_loop_bytes"]
    assert b["interfaces"]["eth0"]["tx"] >= b["payload_sent"] > 0, (rank["rank"], b)
PY
	note "$1: job took $(($(date +%s) - start)) s"
	echo "$b"
}

# shaped WHAT NODE NAMED TC...: the matrix measured while NODE's eth0 is shaped by the tc
# commands TC (each one string of tc's arguments), the shaping removed again; then health
# must name NAMED (the start of its line: "drain scn3: ", "link scn1 scn2: ") for the
# bandwidth, and nothing else for it. When health names it only as a suspect ("suspect
# scn3: ...: re-test": the passes did not all agree, as a pass beside another test under
# ctest -j may not), the matrix is measured once more, as health asks; the second must
# name it.
shaped() {
	local what=$1 node=$2 named=$3 cmd b try who
	shift 3
	for try in 1 2; do
		for cmd in "$@"; do
			# shellcheck disable=SC2086 # one tc command, split into its words
			in_node "$node" tc $cmd || fail "$what: tc $cmd"
		done
		b=$(run_matrix "$what")
		in_node "$node" tc qdisc del dev eth0 root
		as_user "$SC" health "$b" >"$WORK/health.out" 2>&1 && fail "$what: health found nothing: $(cat "$WORK/health.out")"
		note "health: $(cat "$WORK/health.out")"
		grep -q "^$named.*bw_64KiB " "$WORK/health.out" && break
		[[ $try == 1 ]] && grep -q "^suspect ${named#drain }re-test: .*bw_64KiB " "$WORK/health.out" ||
			fail "$what: ${named%: } not named: $(cat "$WORK/health.out")"
		who=${named%: }
		note "$what: health named ${who#drain } only a suspect (re-test): measured again, as it asks"
	done
	# Nothing else is to drain or named as a link; a suspect (what some passes name and
	# not all: re-test) is the noise guard speaking, not a finding.
	if grep "bw_64KiB" "$WORK/health.out" | grep -v "^$named" | grep -v "^suspect " >/dev/null; then
		fail "$what: more than ${named%: } named for its bandwidth: $(cat "$WORK/health.out")"
	fi
}

# One node slowed: every pair of scn3's is slow; scn3 is to drain, no link is named.
shaped "node scn3 at 4 Mbit/s" scn3 "drain scn3: " \
	"qdisc add dev eth0 root tbf rate 4mbit burst 16kb latency 400ms"
# One link slowed: scn1 -> scn2 only (htb, u32 on scn2's address); the link is named.
shaped "link scn1-scn2 at 4 Mbit/s" scn1 "link scn1 scn2: " \
	"qdisc add dev eth0 root handle 1: htb default 20" \
	"class add dev eth0 parent 1: classid 1:10 htb rate 4mbit burst 16kb" \
	"class add dev eth0 parent 1: classid 1:20 htb rate 10gbit" \
	"filter add dev eth0 parent 1: protocol ip prio 1 u32 match ip dst $(addr_of scn2)/32 flowid 1:10"
echo "PASS $TEST_NAME"
