#!/usr/bin/env bash
# The plugin refuses a card that does not fit the job's node before it writes anything:
# CPUs outside the job's cpuset, a memory_node the job may not use, a host not in nodes:.
# Each card asks for prefetch off on a node whose policy allows it without --exclusive, so
# a refusal that came after the change would show in the fake MSR files (sysroot): they
# must be untouched afterwards (same values and modification times: the plugin puts the
# originals back at the step's end, so values alone would not show a change made and
# undone), and the journal directory too.
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh" "$@"
# shellcheck source=plugin_lib.sh
source "$(dirname "$0")/plugin_lib.sh"
make_workdir
ncpu=$(nproc --all)
((ncpu >= 2)) || skip "needs 2 CPUs (a job holding one of them)"
reg=0x1a4 seed=0xdeadbeef00000040
sys=$WORK/sysroot state=$WORK/state
make_sysroot "$sys" GenuineIntel 6 85
# A second NUMA node with memory in the fake machine: the job's Mems_allowed (the real
# machine's) does not include it.
mkdir -p "$sys/sys/devices/system/node/node1"
echo 0-1 >"$sys/sys/devices/system/node/has_memory"
grep MemTotal /proc/meminfo | sed 's/^/Node 1 /' >"$sys/sys/devices/system/node/node1/meminfo"
grep -q '^Mems_allowed_list:[[:space:]]*0$' /proc/self/status ||
	skip "this machine's processes may use NUMA nodes other than 0"
for ((cpu = 0; cpu < ncpu; cpu++)); do msr_write "$sys" "$cpu" "$reg" "$seed"; done
# Without the cli_filter a job gets exactly what sbatch asked for.
plugin_up_unfiltered allow=prefetch require_exclusive=no "sysroot=$sys" "state_dir=$state"
write_job job.sh

# platform_stamp: every fake MSR file's and the journal directory's modification time
# (nanoseconds); a write, even one undone later, changes it.
platform_stamp() {
	stat -c '%n %y' "$sys"/dev/cpu/*/msr
	if [[ -d $state ]]; then stat -c '%n %y' "$state"; fi
}

# refused NAME MESSAGE SBATCH_OPTIONS...: the job with card NAME fails with MESSAGE, and
# nothing was written: every MSR file holds its seed and was not modified, no journal.
refused() {
	local card=$1 message=$2 job state_out cpu before
	shift 2
	before=$(platform_stamp)
	job=$(submit "$card" job.sh "$@") || fail "$card: sbatch refused"
	state_out=$(wait_job "$job")
	[[ $state_out != COMPLETED ]] || fail "$card: job $job ran: $(cat "$WORK/$job.out")"
	logged "$message" "$WORK/$job.out" "$CDIR/log/slurmd-"*.log
	for ((cpu = 0; cpu < ncpu; cpu++)); do
		[[ $(msr_read "$sys" "$cpu" "$reg") == "$seed" ]] ||
			fail "$card: cpu$cpu MSR is $(msr_read "$sys" "$cpu" "$reg"), not $seed: the refused card changed it"
	done
	[[ $(platform_stamp) == "$before" ]] ||
		fail "$card: the refused card wrote (and undid) a change: $(diff <(echo "$before") <(platform_stamp))"
	note "$card: refused, nothing written"
}

# With a cpuset cgroup the task knows the job's CPUs before the change; with
# task/affinity alone it is bound only later, so the plugin cannot check and refuses.
write_card cpus.yaml '  cpu_list: 0-1' '  threads: 2' '  prefetch: off'
if grep -q '^ *TaskPlugin=task/cgroup' "$SLURM_CONF"; then
	refused cpus.yaml "are outside the CPUs this job may use" -c 1
else
	refused cpus.yaml "cannot be checked against the job's CPUs before the change" -c 1
fi

write_card mem.yaml '  cpu_list: 0' '  threads: 1' '  memory_node: 1' '  prefetch: off'
refused mem.yaml "memory_node: 1 is outside the memory this job may use" --exclusive

write_card host.yaml '  cpu_list: 0' '  threads: 1' '  nodes: nosuchhost[1-2]' '  prefetch: off'
refused host.yaml "is not in nosuchhost[1-2] (valid: run on those hosts, or change nodes:)" --exclusive

# The same node and policy with a card that fits: the change is made (the refusals above
# were the cards', not the setup's).
write_card fits.yaml '  cpu_list: 0' '  threads: 1' '  prefetch: off'
job=$(submit fits.yaml job.sh --exclusive) || fail "fits.yaml: sbatch refused"
state_out=$(wait_job "$job")
[[ $state_out == COMPLETED ]] || fail "fits.yaml: job $job ended $state_out: $(cat "$WORK/$job.out")"
B=$(job_bundle "$job")
grep -qx "STATE_VALID=1" "$B/prefetch/state/state.env" || fail "fits.yaml: prefetch not applied"
echo "PASS $TEST_NAME"
