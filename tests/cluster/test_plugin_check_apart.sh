#!/usr/bin/env bash
# The card check no job's user can take over (doc/contracts/spank.md, "The card on the node"), on
# the real cluster with a fake machine: the check runs as streamcard-check, never as the job's
# user, so a process of the job cannot attach to it with ptrace; a check that forks or
# execs is killed by its sandbox and the job fails with one line, and nothing it started
# outlives it; a record that does not describe the card's bytes (another SHA-256, fewer
# CPUs, prefetch and governor the card does not ask for) is refused, and the machine is left
# alone. The misbehaving checks are sc_test_fake_check (fake_check.c), installed in place of
# the real one, as a user who had taken it over would have it behave; the card's name (the
# job's SLURM_STREAMCARD_CARD_NAME) picks what it does. On the code before the account and
# the sandbox, the attach succeeded, the forked process outlived the job and the forged
# records were applied and signed.
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh" "$@"
# shellcheck source=plugin_lib.sh
source "$(dirname "$0")/plugin_lib.sh"
make_workdir
FAKE=${2:-$REPO/build}/bin/sc_test_fake_check
[[ -x $FAKE ]] || fail "build first: $FAKE is missing"
CHECK=$(dirname "$PLUGIN")/streamcard-card-check
cp "$CHECK" "$WORK/real-check"

msr_sysroot GenuineIntel 6 85 0x1a4 0xdeadbeef00000040
plugin_up allow=prefetch,governor require_exclusive=yes "sysroot=$SYS" "state_dir=$STATE"
CHECK_UID=$(id -u streamcard-check) || fail "up did not make the account streamcard-check"
[[ $(getent passwd streamcard-check | cut -d: -f6,7) == /nonexistent:/usr/sbin/nologin ]] ||
	fail "streamcard-check is not a system account without home and login: $(getent passwd streamcard-check)"
LOG=$(node_log) || fail "no slurmd log of the node"

# escaped: a process a check started is still there (named sc-escaped by fake_check.c: its
# command name after a fork, its argv[0] after an exec), or any process of the account.
escaped() { pgrep -x sc-escaped >/dev/null || pgrep -f '^sc-escaped' >/dev/null || pgrep -u streamcard-check >/dev/null; }
fake_check() { install -m 0755 "$FAKE" "$CHECK"; }
real_check() { install -m 0755 "$WORK/real-check" "$CHECK"; }

# 1. ptrace: a process of the job watches for the check of the job's next step and attaches
#    to it. The check waits 3 s (slow.yaml) so that the attempt is made while it runs.
fake_check
cat >"$WORK/watch.py" <<'PY'
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
PTRACE_SEIZE = 0x4206
mine = f"slurmstepd: [{os.environ['SLURM_JOB_ID']}.".encode()  # this job's steps only
seen = {}
end = time.time() + 20
while time.time() < end and not os.path.exists(sys.argv[1]):
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) in seen:
            continue
        try:
            argv0 = open(f"/proc/{d}/cmdline", "rb").read().split(b"\0")[0]
            if argv0 != b"streamcard-card-check":
                continue
            status = open(f"/proc/{d}/status").read().splitlines()
            uid = [l.split()[1] for l in status if l.startswith("Uid:")][0]
            ppid = [l.split()[1] for l in status if l.startswith("PPid:")][0]
            if not open(f"/proc/{ppid}/cmdline", "rb").read().startswith(mine):
                continue
        except (OSError, IndexError):
            continue
        rc = libc.ptrace(PTRACE_SEIZE, int(d), None, None)
        seen[int(d)] = "attached" if rc == 0 else os.strerror(ctypes.get_errno())
        print(f"check pid {d} uid {uid}: {seen[int(d)]}", flush=True)
    time.sleep(0.01)
PY
write_card slow.yaml '  cpu_list: 0' '  threads: 1'
write_job ptrace.sh "python3 $WORK/watch.py $WORK/watch.stop >$WORK/watch.out 2>&1 &" \
	"sleep 0.5" "srun -n1 true" "touch $WORK/watch.stop" "wait"
chown scuser:scuser "$WORK"/*.py
job=$(forge slow.yaml ptrace.sh) || fail "sbatch refused the job"
state=$(wait_job "$job")
[[ $state == COMPLETED ]] || fail "the ptrace job ended $state: $(cat "$WORK/$job.out")"
[[ -s $WORK/watch.out ]] || fail "the job's watcher never saw the card check of its step: $(cat "$WORK/$job.out")"
grep -q "attached" "$WORK/watch.out" && fail "the job's user attached to the card check: $(cat "$WORK/watch.out")"
grep -q "uid $CHECK_UID: Operation not permitted" "$WORK/watch.out" ||
	fail "the check did not run as streamcard-check (uid $CHECK_UID), or the attach failed otherwise: $(cat "$WORK/watch.out")"
note "the job's watcher: $(tr '\n' ';' <"$WORK/watch.out")"

# 2. A check that forks a process meant to outlive the job, or execs another program: killed
#    by its sandbox, the job fails with one line, and no process of it is left.
for what in fork exec; do
	write_card "$what.yaml" '  cpu_list: 0' '  threads: 1'
	write_job job.sh
	job=$(forge "$what.yaml") || fail "sbatch refused the $what job"
	state=$(wait_job "$job")
	[[ $state != COMPLETED ]] || fail "a check that tried to $what let the job run"
	logged "the card check made a system call its sandbox forbids" "$WORK/$job.out"
	[[ $(grep -c "streamcard: " "$WORK/$job.out") == 1 ]] ||
		fail "the $what job says more or less than one line: $(cat "$WORK/$job.out")"
	if escaped; then fail "a process of the $what check outlived the job: $(ps -eo pid,user,comm,args | grep -e sc-escaped -e streamcard-check | grep -v grep)"; fi
done

# 3. Forged records: the card leaves the platform unchanged and names CPUs 0-1; the record
#    says otherwise. Refused, and the fake machine's registers are untouched.
for forged in forge-settings forge-narrow forge-hash; do
	write_card "$forged.yaml" '  cpu_list: 0-1' '  threads: 2'
	job=$(forge "$forged.yaml" --exclusive) || fail "sbatch refused the $forged job"
	state=$(wait_job "$job")
	[[ $state != COMPLETED ]] || fail "the record of $forged was accepted: $(cat "$WORK/$job.out")"
	case $forged in
	forge-settings) want='prefetch: the node finds no line "prefetch: VALUE" directly under experiment:' ;;
	forge-narrow) want="cpu_list: the card's line says 0-1, but the card as read says 0" ;;
	forge-hash) want="the card check's record is refused: it is for another card" ;;
	esac
	logged "$want" "$WORK/$job.out"
	restored || fail "$forged: the fake machine's prefetch register changed"
done
no_journal "$STATE" || fail "a forged record left a journal"

# 4. The real check again: a card job runs, and nothing of any check is left on the node.
real_check
write_card card.yaml '  cpu_list: 0-1' '  threads: 2' '  prefetch: off'
job=$(submit card.yaml job.sh --exclusive) || fail "sbatch refused the card"
wait_completed "$job"
logged "checked as streamcard-check (uid $CHECK_UID)" "$LOG"
wait_until 10 "the platform restored" restored
if escaped; then fail "a check's process is still running: $(pgrep -a -u streamcard-check)"; fi
echo "PASS $TEST_NAME"
