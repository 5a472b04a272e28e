#!/usr/bin/env bash
# Sites without PrologFlags=Contain have no extern step, so nothing at the job's end would
# put back what a killed slurmstepd left changed. up --no-contain loads the opt-in
# companion spank_streamcard_epilog.so, whose job epilog restores it: kill -9 of the batch
# step's slurmstepd during a prefetch-off job (fake Intel MSRs), then the job's end.
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh" "$@"
# shellcheck source=plugin_lib.sh
source "$(dirname "$0")/plugin_lib.sh"
EPILOG_PLUGIN=$(dirname "$PLUGIN")/spank_streamcard_epilog.so
[[ -r $EPILOG_PLUGIN ]] || fail "build first: $EPILOG_PLUGIN is missing"
make_workdir
msr_sysroot GenuineIntel 6 85 0x1a4 0xdeadbeef00000040
# epilog_logged TEXT: slurmd's log has TEXT in a line of the job epilog plugin (each line
# is "streamcard: job epilog: <timestamp> <what was done>").
epilog_logged() {
	logged "$1" "$CDIR/log/slurmd-"*.log
	grep -F -- "$1" "$CDIR/log/slurmd-"*.log | grep "streamcard: job epilog: " >/dev/null ||
		fail "\"$1\" was logged, but not by the job epilog"
}

cluster_up --plugin "$PLUGIN" --no-contain \
	--plugin-args "allow=prefetch require_exclusive=yes sysroot=$SYS state_dir=$STATE"
grep -q '^PrologFlags=Alloc$' "$CDIR/etc/slurm.conf" || fail "up --no-contain left Contain in"
grep -qE "^required $(readlink -f "$EPILOG_PLUGIN") .*state_dir=$STATE( |$)" "$CDIR/etc/plugstack.conf" ||
	fail "up --no-contain did not load the epilog plugin: $(cat "$CDIR/etc/plugstack.conf")"
write_card card.yaml '  cpu_list: 0-1' '  threads: 2' '  prefetch: off'
write_job hang.sh "export STREAMCARD_FAULT=hang" "$(printf 'exec %q run --quiet' "$SC")"

# 1. A job that ends normally: its step restores; the epilog finds nothing left.
write_job ok.sh
job=$(submit card.yaml ok.sh --exclusive) || fail "sbatch refused"
[[ $(wait_job "$job") == COMPLETED ]] || fail "job $job failed: $(cat "$WORK/$job.out")"
restored || fail "the MSRs were not restored after a normal job"
epilog_logged "restore: job $job: no journal, nothing to restore"
grep -qx "verdict=ok" "$(job_bundle "$job")/run.conf" || fail "the normal job's verdict is not ok"
echo "normal job: restored by its step; the job epilog found nothing left" >&2

# 2. kill -9 of the batch step's slurmstepd: no slurm_spank_exit runs, no extern step
# exists; the job epilog restores at the job's end.
job=$(start_in_main_loop card.yaml hang.sh --exclusive)
msrs_are "$SYS" 0x1a4 0xdeadbeef0000004f || fail "the MSRs were not changed during the job"
stepd=$(batch_stepd "$job")
[[ -n $stepd ]] || fail "no slurmstepd for $job.batch"
kill -9 "$stepd"
pgrep -f "^slurmstepd: \[$job\.extern\]" >/dev/null && fail "an extern step runs without Contain"
sleep 1
restored && fail "something restored the MSRs before the job ended (test would prove nothing)"
scancel "$job"
wait_until 30 "job $job to end" has_final_state "$job"
wait_until 30 "the job epilog to restore the MSRs" restored
wait_until 15 "the journal to go" no_journal "$STATE"
epilog_logged "restore: job $job is over: restoring its journal"
epilog_logged "restore: job $job cpu 1 reg 0x1a4 mask 0xf: 0xdeadbeef0000004f -> $SEED"
epilog_logged "restore: job $job: originals read back as journaled; journal removed"
kill_job_procs "$job"
echo "kill -9 slurmstepd without Contain: restored by the job epilog" >&2
echo "PASS $TEST_NAME"
