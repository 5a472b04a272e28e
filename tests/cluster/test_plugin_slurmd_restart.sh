#!/usr/bin/env bash
# slurmd restarted (not crashed) while a prefetch-off job (fake Intel MSRs) is in its main
# loop: the new slurmd's start leaves the job's change alone (its holder, the step's
# slurmstepd, lives), the job completes with verdict ok, the platform is restored at its
# end and the journal is gone. The kernel is stopped (SIGSTOP) across the restart so that
# it is still in its main loop whatever the machine's speed, then continued.
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh" "$@"
# shellcheck source=plugin_lib.sh
source "$(dirname "$0")/plugin_lib.sh"
make_workdir
msr_sysroot GenuineIntel 6 85 0x1a4 0xdeadbeef00000040
ARGS=(allow=prefetch require_exclusive=yes "sysroot=$SYS" "state_dir=$STATE")
plugin_up "${ARGS[@]}"
# A main loop of a few seconds: 2000 copies of 16 MB.
write_card card.yaml '  cpu_list: 0-1' '  threads: 2' '  prefetch: off'
sed -i 's/^  iterations: 5$/  iterations: 2000/' "$WORK/card.yaml"
write_job job.sh

job=$(start_in_main_loop card.yaml job.sh --exclusive)
B=$(running_bundle "$job")
kernel=$(sed -n 's/^PID=//p' "$B/capture_guard.env")
kill -STOP "$kernel"
grep -q main_loop_end "$B/stream.log" && fail "the kernel left its main loop before it was stopped"
msrs_are "$SYS" 0x1a4 0xdeadbeef0000004f || fail "the MSRs were not changed during the job"

slurmd=$(pid_of "slurmd-$(hostname -s)")
log_offset=$(stat -c %s "$CDIR/log/slurmd-$(hostname -s).log")
kill -TERM "$slurmd"
wait_until 30 "slurmd to stop" bash -c "! kill -0 $slurmd 2>/dev/null"
plugin_up "${ARGS[@]}"
[[ $(pid_of "slurmd-$(hostname -s)") != "$slurmd" ]] || fail "slurmd was not restarted"
wait_until 10 "the new slurmd's restore pass in its log" bash -c \
	"tail -c +$((log_offset + 1)) '$CDIR/log/slurmd-$(hostname -s).log' | grep 'restore: job $job: 1 of 1 holder(s) alive, left alone' >/dev/null"
msrs_are "$SYS" 0x1a4 0xdeadbeef0000004f || fail "the slurmd restart restored the MSRs under a running job"
[[ -n $(find "$STATE" -name "job_$job.journal") ]] || fail "the slurmd restart removed the running job's journal"
is_running "$job" || fail "job $job is not running after the slurmd restart"

kill -CONT "$kernel"
state=$(wait_job "$job")
[[ $state == COMPLETED ]] || fail "job $job ended $state: $(cat "$WORK/$job.out")"
wait_until 15 "the MSRs to be restored at the job's end" restored
wait_until 15 "the journal to go" no_journal "$STATE"
[[ $(job_bundle "$job") == "$B" ]] || fail "the job printed another bundle"
grep -qx "verdict=ok" "$B/run.conf" || fail "verdict not ok: $(cat "$WORK/$job.out")"
grep -qx "platform_state_ok=1" "$B/run.conf" || fail "platform gate not ok"
(cd "$B" && sha256sum --quiet -c SHA256SUMS) || fail "the bundle is not sealed"
echo "slurmd restart mid-job: change kept, job ok, restored at its end, journal gone" >&2
echo "PASS $TEST_NAME"
