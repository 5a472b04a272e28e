#!/usr/bin/env bash
# The platform is put back whatever ends the job: scancel during the main loop, kill -9 of
# the step's slurmstepd (then the job's end or the next slurmd start restores), for an
# Intel Skylake-SP and an AMD Zen 4 identity; a node crash; and a second job asking for a
# conflicting setting while the first holds its change is refused.
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh" "$@"
# shellcheck source=plugin_lib.sh
source "$(dirname "$0")/plugin_lib.sh"
make_workdir
restored_within() { local i; for ((i = 0; i < $1 * 10; i++)); do restored && return 0; sleep 0.1; done; return 1; }
write_card card.yaml '  cpu_list: 0-1' '  threads: 2' '  prefetch: off'
write_job hang.sh "export STREAMCARD_FAULT=hang" "$(printf 'exec %q run --quiet' "$SC")"

# restore_cases VENDOR FAMILY MODEL REG SEED OFF: scancel and kill -9 of slurmstepd during
# a prefetch-off job on that identity (OFF: the register while prefetch is off).
restore_cases() {
	local vendor=$1 off=$6 job stepd wrapper B how
	msr_sysroot "$1" "$2" "$3" "$4" "$5"
	plugin_up allow=prefetch require_exclusive=yes "sysroot=$SYS" "state_dir=$STATE"

	# 1. scancel while the kernel is in its main loop.
	job=$(start_in_main_loop card.yaml hang.sh --exclusive)
	msrs_are "$SYS" "$REG" "$off" || fail "$vendor: the MSRs were not $off during the job"
	scancel "$job"
	wait_until 30 "job $job to end" has_final_state "$job"
	wait_until 15 "$vendor: the MSRs to be restored after scancel" restored
	wait_until 15 "the journal to go" no_journal "$STATE"
	B=$(job_bundle "$job")
	sealed_failed "$B"
	grep -qx "caller_signal=15" "$B/run.conf" || fail "$vendor: scancel's SIGTERM is not in run.conf"
	logged "ERROR: workload failed" "$WORK/$job.out"
	echo "$vendor scancel: restored, bundle sealed with verdict failed (caller_signal=15)" >&2

	# 2. kill -9 of the batch step's slurmstepd: nobody runs its slurm_spank_exit; the job's
	# end (the extern step) must restore. The
	# orphaned streamcard run is then stopped as scancel would (SIGTERM) and seals.
	job=$(start_in_main_loop card.yaml hang.sh --exclusive)
	msrs_are "$SYS" "$REG" "$off" || fail "$vendor: the MSRs were not $off during the job"
	B=$(running_bundle "$job")
	wrapper=$(awk '{print $4}' "/proc/$(sed -n 's/^PID=//p' "$B/capture_guard.env")/stat")
	stepd=$(batch_stepd "$job")
	[[ -n $stepd ]] || fail "no slurmstepd for $job.batch"
	kill -9 "$stepd"
	scancel "$job" 2>/dev/null || true
	# With PrologFlags=Contain (this cluster) the job's extern step restores at its end; the
	# slurmd restart is case 2b's.
	restored_within 20 || fail "$vendor: the job's end (extern step) did not restore the MSRs"
	wait_until 15 "the journal to go" no_journal "$STATE"
	grep -h "\[$job\.extern\] streamcard: " "$CDIR/log/slurmd-"*.log |
		grep -q "restore: job $job: originals read back as journaled" ||
		fail "$vendor: slurmd's log does not show the extern step's restore of job $job"
	local run_end="ended with the job"
	if [[ -d /proc/$wrapper ]]; then
		run_end="outlived its slurmstepd, stopped with SIGTERM"
		kill -TERM "$wrapper"
	fi
	wait_until 15 "$vendor: the bundle of the killed step to be sealed" test -s "$B/SHA256SUMS"
	sealed_failed "$B"
	logged "ERROR: workload failed" "$WORK/$job.out"
	kill_job_procs "$job"
	echo "$vendor kill -9 slurmstepd: restored by the job's end (extern step); streamcard run $run_end;" \
		"bundle sealed, failed" >&2
}
restore_cases GenuineIntel 6 85 0x1a4 0xdeadbeef00000040 0xdeadbeef0000004f
restore_cases AuthenticAMD 25 17 0xc0000108 0x1000000000000040 0x100000000000006f

# 2b. A node crash: every slurmstepd of the job and slurmd itself killed -9. Nothing runs
# a SPANK exit; the next slurmd start finds the journal's holders dead and restores.
msr_sysroot GenuineIntel 6 85 0x1a4 0xdeadbeef00000040
plugin_up allow=prefetch require_exclusive=yes "sysroot=$SYS" "state_dir=$STATE"
job=$(start_in_main_loop card.yaml hang.sh --exclusive)
msrs_are "$SYS" "$REG" 0xdeadbeef0000004f || fail "the MSR was not changed during the crash job"
pkill -9 -f "^slurmstepd: \[$job\." || fail "no slurmstepd of job $job to kill"
kill -9 "$(pid_of "slurmd-$(hostname -s)")"
kill_job_procs "$job"
sleep 1
msrs_are "$SYS" "$REG" 0xdeadbeef0000004f ||
	fail "something restored the MSRs although every daemon of the node was killed"
[[ -n $(find "$STATE" -name "job_$job.journal") ]] || fail "the journal of job $job is gone"
plugin_up allow=prefetch require_exclusive=yes "sysroot=$SYS" "state_dir=$STATE"
wait_until 15 "the next slurmd start to restore the MSRs" restored
wait_until 15 "the journal to go" no_journal "$STATE"
logged "restore: job $job" "$CDIR/log/slurmd-"*.log
scancel "$job" 2>/dev/null || true
echo "node crash: restored by the next slurmd start" >&2

# 3. A conflicting request while another job holds its change: refused, with the holder.
# (Without the cli_filter, which would give each job the whole node, one after the other.)
plugin_up_unfiltered allow=prefetch require_exclusive=no "sysroot=$SYS" "state_dir=$STATE"
write_card one-off.yaml '  cpu_list: 0' '  threads: 1' '  prefetch: off'
write_card one-on.yaml '  cpu_list: 1' '  threads: 1' '  prefetch: on'
first=$(start_in_main_loop one-off.yaml hang.sh -c 1)
second=$(submit one-on.yaml hang.sh -c 1) || fail "sbatch refused"
state=$(wait_job "$second")
[[ $state != COMPLETED ]] || fail "a conflicting platform change was allowed"
logged "node busy: job $first holds prefetch=off" "$WORK/$second.out" "$CDIR/log/slurmd-"*.log
[[ $(msr_read "$SYS" 1 0x1a4) == "$SEED" ]] || fail "the refused job changed cpu1"
scancel "$first"
wait_until 30 "job $first to end" has_final_state "$first"
wait_until 15 "the MSRs to be restored" restored
echo "PASS $TEST_NAME"
