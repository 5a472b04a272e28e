#!/usr/bin/env bash
# Exclusivity as Slurm knows it. On a partition with OverSubscribe=YES (the local cluster's
# "shared"), scuser2's job runs on the node's CPUs when scuser's prefetch job starts beside
# it (both --oversubscribe, the variables forged so no cli_filter asks for --exclusive):
# the change is refused naming scuser2's job, and nothing is written. Alone, a job that lets
# Slurm share its CPUs is refused too; with --exclusive the change is made. With
# require_exclusive=no, a fake machine whose cpus 0 and 1 are SMT siblings of one core:
# scuser's job on one of them cannot change the core's prefetch register while scuser2's
# job holds the other; on a machine without SMT it can.
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh" "$@"
# shellcheck source=plugin_lib.sh
source "$(dirname "$0")/plugin_lib.sh"
(($(nproc --all) == 2)) || skip "needs a 2-CPU machine (one CPU for each user's job)"
make_workdir
msr_sysroot GenuineIntel 6 85 0x1a4 0x0000000000000040
plugin_up_unfiltered allow=prefetch require_exclusive=yes "sysroot=$SYS" "state_dir=$STATE"
grep -q '^ *TaskPlugin=task/cgroup' "$SLURM_CONF" || skip "needs task/cgroup (job cgroups show the jobs on a node)"
W2=$WORK/scuser2 # scuser2's jobs' working directory (removed with $WORK)
install -d -o scuser2 -g scuser2 "$W2"
write_job job.sh
write_card off.yaml '  cpu_list: 0-1' '  threads: 2' '  prefetch: off'

# other_job SBATCH OPTIONS...: a job of scuser2 sleeping on the node; prints its id.
other_job() {
	local id
	id=$("$LC/as-user" --dir "$CDIR" --user scuser2 --chdir "$W2" -- sbatch --parsable -o /dev/null "$@" --wrap "sleep 120") ||
		fail "scuser2's sbatch failed"
	wait_until 20 "scuser2's job $id to run" is_running "$id"
	echo "$id"
}
untouched() { msrs_are "$SYS" 0x1a4 0x0000000000000040 && no_journal "$STATE"; }

other=$(other_job -p shared --oversubscribe -c 1 --mem=100M)
job=$(forge off.yaml -p shared --oversubscribe -c 2 --mem=200M)
state=$(wait_job "$job")
[[ $state != COMPLETED ]] || fail "the prefetch job ran beside scuser2's job $other"
logged "node busy: job $other of user scuser2 (uid $(id -u scuser2)) holds CPUs on this node" "$WORK/$job.out"
untouched || fail "the refused change wrote to the machine"
scancel "$other"
wait_until 30 "scuser2's job to end" not_in_queue "$other"

job=$(forge off.yaml -p shared --oversubscribe -c 2 --mem=200M)
[[ $(wait_job "$job") != COMPLETED ]] || fail "a job that lets Slurm share its CPUs changed prefetch"
logged "Slurm lets other jobs share it (OverSubscribe=YES" "$WORK/$job.out"
untouched || fail "the refused change wrote to the machine"

job=$(forge off.yaml -p shared --exclusive)
state=$(wait_job "$job")
[[ $state == COMPLETED ]] || fail "the --exclusive job ended $state: $(cat "$WORK/$job.out")"
B=$(job_bundle "$job")
grep -qx "STATE_VALID=1" "$B/prefetch/state/state.env" || fail "prefetch was not changed with --exclusive"
wait_until 15 "the change to be restored" untouched

# require_exclusive=no: SMT siblings. The fake machine's cpus 0 and 1 share a core.
for cpu in 0 1; do echo 0-1 >"$SYS/sys/devices/system/cpu/cpu$cpu/topology/thread_siblings_list"; done
plugin_up_unfiltered allow=prefetch require_exclusive=no "sysroot=$SYS" "state_dir=$STATE"
other=$(other_job -c 1)
their_cpuset() { cat /sys/fs/cgroup/cpuset/slurm_*/uid_"$(id -u scuser2)"/job_"$other"/cpuset.cpus 2>/dev/null; }
wait_until 10 "scuser2's job cgroup" their_cpuset
theirs=$(their_cpuset | head -n1 || true)
[[ $theirs == [01] ]] || fail "cannot tell scuser2's CPU from its cgroup: '$theirs'"
mine=$((1 - theirs))
write_card one.yaml "  cpu_list: $mine" '  threads: 1' '  prefetch: off'
job=$(submit one.yaml job.sh -c 1)
[[ $(wait_job "$job") != COMPLETED ]] || fail "cpu $mine's core was changed while cpu $theirs is scuser2's"
logged "MSR 0x1a4 is one per core on intel-core, and cpu $mine shares it with cpus 0-1, of which $theirs are not this job's" "$WORK/$job.out"
untouched || fail "the refused change wrote to the machine"
# Without SMT (each CPU its own core) the same job may change its own core.
for cpu in 0 1; do echo "$cpu" >"$SYS/sys/devices/system/cpu/cpu$cpu/topology/thread_siblings_list"; done
job=$(submit one.yaml job.sh -c 1)
state=$(wait_job "$job")
[[ $state == COMPLETED ]] || fail "the job on its own core ended $state: $(cat "$WORK/$job.out")"
grep -qx "STATE_VALID=1" "$(job_bundle "$job")/prefetch/state/state.env" || fail "prefetch not changed on its own core"
scancel "$other"
echo "PASS $TEST_NAME"
