#!/usr/bin/env bash
# A bad card is refused by sbatch itself with the card's one-line messages, and nothing is
# queued; a card the user cannot read (root-only) is refused without its content leaking.
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh" "$@"
# shellcheck source=plugin_lib.sh
source "$(dirname "$0")/plugin_lib.sh"
plugin_up
make_workdir
write_card bad.yaml '  cpu_list: 0-1' '  threads: 17' '  thread: 2' '  msr_register: 0x1a4'
write_job job.sh
before=$(squeue -h | wc -l)

rc=0
as_user sbatch --stream-card=bad.yaml job.sh >"$WORK/out" 2>"$WORK/err" || rc=$?
((rc != 0)) || fail "sbatch accepted a bad card"
grep -q "bad.yaml:8: threads: 17 is more than the 2 CPUs of cpu_list 0-1 (valid: 1-2)" "$WORK/err" ||
	fail "no threads message: $(cat "$WORK/err")"
grep -q 'bad.yaml:9: unknown key "thread" (did you mean threads?)' "$WORK/err" ||
	fail "no unknown-key message: $(cat "$WORK/err")"
# A user cannot name a register: there is no such key.
grep -q 'bad.yaml:10: unknown key "msr_register"' "$WORK/err" || fail "register key accepted"
[[ $(squeue -h | wc -l) == "$before" ]] || fail "a job was queued"
! tail -c +$((JOBCOMP_OFFSET + 1)) "$CDIR/log/jobcomp.log" 2>/dev/null | grep "JobName=job.sh" >/dev/null ||
	fail "a job ran"

# A root-only file as the card: refused as unreadable, its content nowhere.
secret=$(mktemp /root/streamcard-secret.XXXXXX)
echo "version: 1 # TOPSECRET-$$" >"$secret"
chmod 0600 "$secret"
rc=0
as_user sbatch --stream-card="$secret" job.sh >"$WORK/out" 2>"$WORK/err" || rc=$?
((rc != 0)) || { rm -f "$secret"; fail "sbatch accepted an unreadable card"; }
grep -q "cannot read the card: Permission denied" "$WORK/err" || {
	rm -f "$secret"
	fail "no permission message: $(cat "$WORK/err")"
}
leak=$(grep -rl "TOPSECRET-$$" "$WORK" "$CDIR/log" 2>/dev/null || true)
rm -f "$secret"
[[ -z $leak ]] || fail "the secret appeared in $leak"
echo "PASS $TEST_NAME"
