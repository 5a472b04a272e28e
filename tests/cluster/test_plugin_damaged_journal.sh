#!/usr/bin/env bash
# A journal cannot lock a node. The state directory holds a damaged journal (job 7: garbage
# after one readable record, no live holder) and a journal with a 700-byte cpus= line (job
# 8, its step dead; the old reader took lines of at most 512 bytes). The next platform job
# runs: both are restored first (the damaged one as far as it reads, then set aside as
# damaged_job_7.journal.<time>, said in one line), the job's change is made and read back,
# and everything is back as it was after it.
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh" "$@"
# shellcheck source=plugin_lib.sh
source "$(dirname "$0")/plugin_lib.sh"
make_workdir
msr_sysroot GenuineIntel 6 85 0x1a4 0x0000000000000040
install -d -m 0700 "$STATE"
# slurmd starts first (it restores journals left without a live step: not this test's path).
plugin_up allow=prefetch require_exclusive=yes "sysroot=$SYS" "state_dir=$STATE"
# Jobs 7 and 8 left prefetch off on cpus 1 and 0.
msr_write "$SYS" 0 0x1a4 0x4f
msr_write "$SYS" 1 0x1a4 0x4f
printf 'version=1\njob=7\nprefetch=off\ngovernor=unchanged\ncpus=1\nmsr=1 0x1a4 0xf 0x40\n\x01\x02garbage\n' \
	>"$STATE/job_7.journal"
long=$(seq -s, 0 2 380)
printf 'version=1\njob=8\nprefetch=off\ngovernor=unchanged\ncpus=%s\narch=intel-core\nmsr=0 0x1a4 0xf 0x40\nholder=999999 5\nend=1\n' \
	"$long" >"$STATE/job_8.journal"
((${#long} > 512)) || fail "the cpus= line is not long"
LOG=$(node_log) || fail "no slurmd log of the node"
log_start=$(stat -c %s "$LOG")
write_card off.yaml '  cpu_list: 0-1' '  threads: 2' '  prefetch: off'
write_job job.sh
job=$(submit off.yaml job.sh) || fail "sbatch refused"
state=$(wait_job "$job")
[[ $state == COMPLETED ]] || fail "the damaged journal kept the job from running ($state): $(cat "$WORK/$job.out")"
B=$(job_bundle "$job")
grep -qx "STATE_VALID=1" "$B/prefetch/state/state.env" || fail "prefetch not applied: $(cat "$B/prefetch/state/state.env")"
grep -q "restore: job 8 cpu 0 reg 0x1a4" "$B/prefetch/control.log" || fail "job 8's journal was not restored first"
[[ ! -e $STATE/job_7.journal && ! -e $STATE/job_8.journal ]] || fail "journals left: $(ls "$STATE")"
ls "$STATE"/damaged_job_7.journal.*Z >/dev/null 2>&1 || fail "the damaged journal was not kept aside: $(ls "$STATE")"
logged "job_7.journal is corrupt: line 7: malformed: ??garbage; restored what could be read (1 register(s), 0 governor(s)), the file kept as $STATE/damaged_job_7.journal." "$LOG"
said=$(tail -c +$((log_start + 1)) "$LOG" | grep -c "job_7.journal is corrupt" || true)
((said == 1)) || fail "the damaged journal was reported $said times"
wait_until 15 "the machine as it was" restored
# And the next job too.
job=$(submit off.yaml job.sh) || fail "sbatch refused the second job"
[[ $(wait_job "$job") == COMPLETED ]] || fail "the second job did not run: $(cat "$WORK/$job.out")"
wait_until 15 "the machine as it was" restored
echo "PASS $TEST_NAME"
