#!/usr/bin/env bash
# The platform is put back whatever ends the job: scancel during the main loop, kill -9 of
# the step's slurmstepd (then the epilog or the next slurmd start restores), and a second
# job asking for a conflicting setting while the first holds its change is refused.
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh" "$@"
# shellcheck source=plugin_lib.sh
source "$(dirname "$0")/plugin_lib.sh"
make_workdir
SYS=$WORK/sysroot
STATE=$WORK/state
SEED=0xdeadbeef00000040
make_sysroot "$SYS" GenuineIntel 6 85
for ((cpu = 0; cpu < $(nproc --all); cpu++)); do msr_write "$SYS" "$cpu" 0x1a4 "$SEED"; done
restored() { [[ $(msr_read "$SYS" 0 0x1a4) == "$SEED" && $(msr_read "$SYS" 1 0x1a4) == "$SEED" ]]; }
changed() { [[ $(msr_read "$SYS" 0 0x1a4) == 0xdeadbeef0000004f ]]; }
no_journal() { [[ -z $(find "$STATE" -name 'job_*.journal' 2>/dev/null) ]]; }
restored_within() { local i; for ((i = 0; i < $1 * 10; i++)); do restored && return 0; sleep 0.1; done; return 1; }
in_main_loop() { [[ -n $(find "$WORK" -path '*stream_copy_*/main_loop.ready' -newer "$1" 2>/dev/null) ]]; }

plugin_up allow=prefetch require_exclusive=yes "sysroot=$SYS" "state_dir=$STATE"
write_card card.yaml '  cpu_list: 0-1' '  threads: 2' '  prefetch: off'
write_job hang.sh "export STREAMCARD_FAULT=hang" "$(printf 'exec %q run --quiet' "$SC")"

# 1. scancel while the kernel is in its main loop.
touch "$WORK/t1"
job=$(submit card.yaml hang.sh --exclusive) || fail "sbatch refused"
wait_until 30 "job $job in its main loop" in_main_loop "$WORK/t1"
changed || fail "the MSR was not changed during the job"
scancel "$job"
wait_until 30 "job $job to end" has_final_state "$job"
wait_until 15 "the MSRs to be restored after scancel" restored
wait_until 15 "the journal to go" no_journal
B=$(job_bundle "$job")
grep -qx "verdict=failed" "$B/run.conf" || fail "a cancelled run is not marked failed"
(cd "$B" && sha256sum --quiet -c SHA256SUMS) || fail "the cancelled run's bundle is not sealed"
echo "scancel: restored, bundle sealed with verdict failed" >&2

# 2. kill -9 of the batch step's slurmstepd: nobody runs slurm_spank_exit; the job's end
# (epilog) or, failing that, the next slurmd start must restore.
touch "$WORK/t2"
job=$(submit card.yaml hang.sh --exclusive) || fail "sbatch refused"
wait_until 30 "job $job in its main loop" in_main_loop "$WORK/t2"
changed || fail "the MSR was not changed during the second job"
stepd=$(pgrep -f "^slurmstepd: \[$job.batch\]" | head -n1)
[[ -n $stepd ]] || fail "no slurmstepd for $job.batch"
kill -9 "$stepd"
scancel "$job" 2>/dev/null || true
pkill -9 -u scuser -f streamcard-stream 2>/dev/null || true
how="job's end (extern step)"
if ! restored_within 20; then
	how="slurmd restart"
	cluster_down >/dev/null 2>&1 || true
	plugin_up allow=prefetch require_exclusive=yes "sysroot=$SYS" "state_dir=$STATE"
	wait_until 15 "the MSRs to be restored by the next slurmd start" restored
fi
wait_until 15 "the journal to go" no_journal
echo "kill -9 slurmstepd: restored by the $how" >&2

# 2b. A node crash: every slurmstepd of the job and slurmd itself killed -9. Nothing runs
# a SPANK exit; the next slurmd start finds the journal's holders dead and restores.
touch "$WORK/t2b"
job=$(submit card.yaml hang.sh --exclusive) || fail "sbatch refused"
wait_until 30 "job $job in its main loop" in_main_loop "$WORK/t2b"
changed || fail "the MSR was not changed during the crash job"
pkill -9 -f "^slurmstepd: \[$job\." || fail "no slurmstepd of job $job to kill"
kill -9 "$(pid_of "slurmd-$(hostname -s)")"
pkill -9 -u scuser -f streamcard 2>/dev/null || true
sleep 1
changed || fail "something restored the MSRs although every daemon of the node was killed"
[[ -n $(find "$STATE" -name "job_$job.journal") ]] || fail "the journal of job $job is gone"
plugin_up allow=prefetch require_exclusive=yes "sysroot=$SYS" "state_dir=$STATE"
wait_until 15 "the next slurmd start to restore the MSRs" restored
wait_until 15 "the journal to go" no_journal
logged "restore: job $job" "$CDIR/log/slurmd-"*.log
scancel "$job" 2>/dev/null || true
echo "node crash: restored by the next slurmd start" >&2

# 3. A conflicting request while another job holds its change: refused, with the holder.
# (Without the cli_filter, which would give each job the whole node, one after the other.)
plugin_up_unfiltered allow=prefetch require_exclusive=no "sysroot=$SYS" "state_dir=$STATE"
write_card one-off.yaml '  cpu_list: 0' '  threads: 1' '  prefetch: off'
write_card one-on.yaml '  cpu_list: 1' '  threads: 1' '  prefetch: on'
touch "$WORK/t3"
first=$(submit one-off.yaml hang.sh -c 1) || fail "sbatch refused"
wait_until 30 "job $first in its main loop" in_main_loop "$WORK/t3"
second=$(submit one-on.yaml hang.sh -c 1) || fail "sbatch refused"
state=$(wait_job "$second")
[[ $state != COMPLETED ]] || fail "a conflicting platform change was allowed"
logged "node busy: job $first holds prefetch=off" "$WORK/$second.out" "$CDIR/log/slurmd-"*.log
[[ $(msr_read "$SYS" 1 0x1a4) == "$SEED" ]] || fail "the refused job changed cpu1"
scancel "$first"
wait_until 30 "job $first to end" has_final_state "$first"
wait_until 15 "the MSRs to be restored" restored
echo "PASS $TEST_NAME"
