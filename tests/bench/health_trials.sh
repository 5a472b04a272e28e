#!/usr/bin/env bash
# health_trials.sh [BUILD_DIR]: `streamcard health` trials on NODES (default 8) namespaced
# nodes of the local cluster (contrib/local-cluster/up --nodes N), as an admin would use it
# (doc/contracts/analysis.md, "Link matrix"):
#   - the README's link card (linkcheck.yaml: 8 B to 1 MiB, 200 iterations) once on the
#     healthy partition: its wall time (the target: under a minute on 8 local nodes);
#   - TRIALS (default 5) checks of the healthy partition: no drain and no link line;
#   - TRIALS checks with scn3's eth0 throttled (tbf): scn3 drained, nothing else named;
#   - TRIALS checks with the link scn1 -> scn2 slowed (htb, a u32 filter on scn2's
#     address): that link named, no node drained.
# The shaped checks use a smaller card (8 B to 64 KiB, 20 iterations, outlier_min_pct 80,
# as tests/cluster/test_plugin_linkmatrix.sh: 4 Mbit/s through the README card's 1 MiB x 200
# would take an hour). Suspects (what some passes name and not all) are counted apart: they
# are the noise guard's "re-test", not findings. Prints one line per check and a summary:
#   healthy 5/5 clean; node scn3 drained 5/5 (nothing else 5/5); link scn1-scn2 named 5/5 ...
# Exit 0 when every trial went as said, 1 otherwise, 77 without root, Slurm or Open MPI.
# Needs a quiet machine for the timing: it prints the load average before it starts.
# shellcheck disable=SC2154 # WORK, CDIR, SC come from the sourced cluster libraries
REPO=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-$REPO/build}
set -- "$REPO" "$BUILD"
# shellcheck source=../cluster/common.sh
source "$REPO/tests/cluster/common.sh" "$@"
# shellcheck source=../cluster/plugin_lib.sh
source "$REPO/tests/cluster/plugin_lib.sh"
NODES=${NODES:-8}
TRIALS=${TRIALS:-5}
command -v mpirun >/dev/null || skip "Open MPI missing (openmpi-bin)"
command -v tc >/dev/null || skip "needs tc (package iproute2)"
((NODES >= 4)) || fail "NODES=$NODES: health needs 4 nodes or more"
make_workdir
TAG=sc$CTLD_PORT
in_node() { local node=$1; shift; nsenter --net="/run/netns/$TAG-$node" -- "$@"; }
test_cleanup() {
	local n
	for ((n = 1; n <= NODES; n++)); do
		[[ -e /run/netns/$TAG-scn$n ]] && in_node "scn$n" tc qdisc del dev eth0 root 2>/dev/null
	done
	return 0
}
# card NAME MAX_BYTES ITERATIONS [MIN_PCT]: a pairs: all card over the NODES nodes.
card() {
	{
		printf 'version: 1\nexperiment:\n  workload: mpi-pingpong\n  cpu_list: 0\n'
		printf '  nodes: scn[1-%d]\n  pairs: all\n  min_bytes: 8\n  max_bytes: %s\n' "$NODES" "$2"
		printf '  iterations: %s\n' "$3"
		[[ -z ${4:-} ]] || printf '  outlier_min_pct: %s\n' "$4"
		# The nodes are one machine: every rank on its cpu 0; ranks that yield while they
		# wait let the others run; the interference gate open (the nodes share the CPUs).
		printf '  env:\n    OMPI_MCA_mpi_yield_when_idle: "1"\n'
		printf '  expect:\n    transport: tcp\n    max_interference_pct: 100\n'
	} >"$WORK/$1"
	chown scuser:scuser "$WORK/$1"
}
card linkcheck.yaml 1048576 200
card shaped.yaml 65536 20 80
write_job job.sh

echo "health_trials: $NODES nodes, $TRIALS trials each; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
cluster_up --nodes "$NODES" --plugin "$PLUGIN" --plugin-args "$(key_arg)"
srun --mpi=list 2>&1 | grep pmix >/dev/null || skip "Slurm's mpi/pmix plugin missing"
addr_of() { awk -v n="$1" '$1 == n {print $2}' "$CDIR/etc/nodes"; }

# check CARD: one check job; prints its bundle, and its wall time into $WORK/elapsed.
check() {
	local job state start
	start=$(date +%s.%N)
	job=$(submit "$1" job.sh -N"$NODES" --ntasks-per-node=1) || fail "sbatch refused $1"
	wait_until 1200 "job $job to end" has_final_state "$job"
	state=$(final_state "$job")
	awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f\n", e - s }' >"$WORK/elapsed"
	[[ $state == COMPLETED ]] || fail "job $job ended $state: $(cat "$WORK/$job.out")"
	job_bundle "$job"
}

# health_of BUNDLE: health's lines into $WORK/health.out (exit 1 is "something named").
health_of() {
	local rc=0
	as_user "$SC" health "$1" >"$WORK/health.out" 2>"$WORK/health.err" || rc=$?
	((rc <= 1)) || fail "health exit $rc: $(cat "$WORK/health.err")"
}
# named: the drain and link lines (what an admin acts on); suspects: the re-test lines.
named() { grep -E '^(drain|link) ' "$WORK/health.out" || true; }
suspects() { grep -c '^suspect ' "$WORK/health.out" || true; }

b=$(check linkcheck.yaml)
default_s=$(cat "$WORK/elapsed")
health_of "$b"
echo "default card (README's linkcheck.yaml) on $NODES nodes: ${default_s} s from sbatch to the job's end; named: $(named | wc -l), suspects: $(suspects)"

# trials KIND EXPECT SETUP...: TRIALS checks with the tc commands SETUP applied to the node
# named by the first of them ("scnK: tc args"); EXPECT the named lines' starts, "" for none.
ok_healthy=0 ok_node=0 ok_link=0 sus_total=0
trial() {
	local kind=$1 expect=$2 node=$3
	shift 3
	local cmd
	for cmd in "$@"; do
		# shellcheck disable=SC2086 # one tc command, split into its words
		in_node "$node" tc $cmd || fail "$kind: tc $cmd"
	done
	local b
	b=$(check shaped.yaml)
	((${#@} == 0)) || in_node "$node" tc qdisc del dev eth0 root
	health_of "$b"
	local got sus
	got=$(named | cut -d: -f1 | sort | tr '\n' ',' | sed 's/,$//')
	sus=$(suspects)
	sus_total=$((sus_total + sus))
	echo "  $kind: $(cat "$WORK/elapsed") s; named [${got}] (want [${expect}]); suspects $sus"
	[[ $got == "$expect" ]]
}
for ((t = 1; t <= TRIALS; t++)); do
	trial healthy "" scn1 && ok_healthy=$((ok_healthy + 1))
done
for ((t = 1; t <= TRIALS; t++)); do
	trial "node scn3 at 4 Mbit/s" "drain scn3" scn3 \
		"qdisc add dev eth0 root tbf rate 4mbit burst 16kb latency 400ms" &&
		ok_node=$((ok_node + 1))
done
for ((t = 1; t <= TRIALS; t++)); do
	trial "link scn1-scn2 at 4 Mbit/s" "link scn1 scn2" scn1 \
		"qdisc add dev eth0 root handle 1: htb default 20" \
		"class add dev eth0 parent 1: classid 1:10 htb rate 4mbit burst 16kb" \
		"class add dev eth0 parent 1: classid 1:20 htb rate 10gbit" \
		"filter add dev eth0 parent 1: protocol ip prio 1 u32 match ip dst $(addr_of scn2)/32 flowid 1:10" &&
		ok_link=$((ok_link + 1))
done
echo "summary: $NODES nodes; default card ${default_s} s; healthy clean $ok_healthy/$TRIALS;" \
	"node scn3 drained alone $ok_node/$TRIALS; link scn1-scn2 named alone $ok_link/$TRIALS;" \
	"suspects (re-test) in all shaped and healthy checks: $sus_total"
((ok_healthy == TRIALS && ok_node == TRIALS && ok_link == TRIALS))
