#!/usr/bin/env bash
# Faults under the plugin: a prefetch-off job (fake Intel MSRs) whose kernel crashes
# (STREAMCARD_FAULT=crash, set in the job script and passed on by streamcard run), whose
# kernel is SIGKILLed in its main loop, or whose `streamcard run` is SIGKILLed. In each
# case the MSRs end restored, the bundle's verdict is failed and SHA256SUMS verifies, and
# run.conf and the job's output say what happened.
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh" "$@"
# shellcheck source=plugin_lib.sh
source "$(dirname "$0")/plugin_lib.sh"
make_workdir
msr_sysroot GenuineIntel 6 85 0x1a4 0xdeadbeef00000040

plugin_up allow=prefetch require_exclusive=yes "sysroot=$SYS" "state_dir=$STATE"
write_card card.yaml '  cpu_list: 0-1' '  threads: 2' '  prefetch: off'
write_job crash.sh "export STREAMCARD_FAULT=crash" "$(printf 'exec %q run' "$SC")"
write_job hang.sh "export STREAMCARD_FAULT=hang" "$(printf 'exec %q run' "$SC")"

# after_fault JOBID WHAT: the job failed, the platform is back, the bundle is sealed and
# failed; prints the bundle.
after_fault() {
	local state b
	state=$(wait_job "$1")
	[[ $state != COMPLETED ]] || fail "$2: job $1 COMPLETED: $(cat "$WORK/$1.out")"
	wait_until 15 "$2: the MSRs to be restored" restored
	wait_until 15 "$2: the journal to go" no_journal "$STATE"
	b=$(job_bundle "$1")
	wait_until 15 "$2: the bundle to be sealed" test -s "$b/SHA256SUMS"
	sealed_failed "$b"
	echo "$b"
}

# kernel_pid BUNDLE: the workload's pid, as streamcard run recorded it.
kernel_pid() { sed -n 's/^PID=//p' "$1/capture_guard.env"; }

# (a) The kernel crashes (SIGSEGV) in its main loop.
job=$(submit card.yaml crash.sh --exclusive) || fail "sbatch refused"
B=$(after_fault "$job" crash)
grep -qx "exit_signal=11" "$B/run.conf" || fail "crash: run.conf has no exit_signal=11"
grep -qx "exit_code_ok=0" "$B/run.conf" || fail "crash: the exit-code gate did not fail"
logged "killed by signal 11" "$WORK/$job.out"
logged "ERROR: workload failed" "$WORK/$job.out"
echo "kernel crash: restored; bundle sealed, failed, killed by signal 11" >&2

# (b) The kernel is SIGKILLed in its main loop.
job=$(start_in_main_loop card.yaml hang.sh --exclusive)
B=$(running_bundle "$job")
pid=$(kernel_pid "$B")
[[ -n $pid ]] || fail "kernel SIGKILL: no PID in $B/capture_guard.env"
kill -9 "$pid"
B=$(after_fault "$job" "kernel SIGKILL")
grep -qx "exit_signal=9" "$B/run.conf" || fail "kernel SIGKILL: run.conf has no exit_signal=9"
grep -qx "exit_code_ok=0" "$B/run.conf" || fail "kernel SIGKILL: the exit-code gate did not fail"
logged "killed by signal 9" "$WORK/$job.out"
echo "kernel SIGKILL: restored; bundle sealed, failed, killed by signal 9" >&2

# (c) `streamcard run` (the batch script itself, exec'd) is SIGKILLed: its guardian
# seals the bundle (the plugin's task_exit holds slurmstepd's kill of the step's last
# processes until it is done); the kernel dies with it (PR_SET_PDEATHSIG).
job=$(start_in_main_loop card.yaml hang.sh --exclusive)
B=$(running_bundle "$job")
pid=$(kernel_pid "$B")
wrapper=$(awk '{print $4}' "/proc/$pid/stat")
[[ $(cat "/proc/$wrapper/comm") == streamcard ]] || fail "wrapper SIGKILL: parent of $pid is not streamcard"
kill -9 "$wrapper"
[[ $(after_fault "$job" "wrapper SIGKILL") == "$B" ]] || fail "wrapper SIGKILL: another bundle"
grep -qx "wrapper_killed=1" "$B/run.conf" || fail "wrapper SIGKILL: run.conf has no wrapper_killed=1"
logged "streamcard was killed; sealing" "$WORK/$job.out"
logged "streamcard: job $job: the task was killed by signal 9; its guardian sealed the bundle" \
	"$CDIR/log/slurmd-"*.log
echo "wrapper SIGKILL: restored; bundle sealed by the guardian, failed" >&2
echo "PASS $TEST_NAME"
