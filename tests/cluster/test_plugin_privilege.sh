#!/usr/bin/env bash
# What the plugin writes as root, audited: during a job that turns prefetch off and sets
# the governor, the only files of the fake machine (sysroot) that differ are the MSR device
# files of the card's CPUs, and in them only the allowlisted register's masked bits, and
# those CPUs' scaling_governor; afterwards nothing differs. The card is parsed on the node
# by the card check as its own account, streamcard-check (slurmd's log says which uid),
# neither root nor the job's user, and nothing root-owned
# appears where the user controls the path (the job's directory and its bundle). Card
# strings that could reach a path, a format string or a shell are refused at submission.
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh" "$@"
# shellcheck source=plugin_lib.sh
source "$(dirname "$0")/plugin_lib.sh"
make_workdir
SYS=$WORK/sysroot
make_sysroot "$SYS" GenuineIntel 6 85
ncpu=$(nproc --all)
for ((cpu = 0; cpu < ncpu; cpu++)); do
	msr_write "$SYS" "$cpu" 0x1a4 0x00000000000000f0 # bits outside the mask must survive
	msr_write "$SYS" "$cpu" 0x10 0x1122334455667788  # another register must stay untouched
done
cp -a "$SYS" "$WORK/before"
plugin_up allow=prefetch,governor require_exclusive=yes "sysroot=$SYS" "state_dir=$WORK/state"
write_card card.yaml '  cpu_list: 0' '  threads: 1' '  prefetch: off' '  governor: performance'
# The job copies the fake machine while the change holds (as the user: the files are readable).
write_job job.sh "cp -r $SYS $WORK/during" "$(printf 'exec %q run --quiet' "$SC")"
marker=$WORK/.before-jobs
touch "$marker"
LOG=$(node_log) || fail "no slurmd log of the node"
log_start=$(stat -c %s "$LOG")
logged_here() { tail -c +$((log_start + 1)) "$LOG" | grep -F -- "$1" >/dev/null; }
job=$(submit card.yaml job.sh --exclusive) || fail "sbatch refused"
state=$(wait_job "$job")
[[ $state == COMPLETED ]] || fail "job $job ended $state: $(cat "$WORK/$job.out")"
# The card's YAML was parsed by the check as streamcard-check, never by root or scuser.
checked="streamcard: card card.yaml (SHA-256 $(sha256sum "$WORK/card.yaml" | cut -c1-12)...) checked as streamcard-check (uid $(id -u streamcard-check))"
wait_until 10 "slurmd's log to say: $checked" logged_here "$checked"
# Root wrote nothing where the user controls the path: everything new in the job's
# directory (the output, the bundle, the copy the job made) is scuser's.
rootfiles=$(find "$WORK" -newer "$marker" -user root -not -path "$WORK/state*" -not -path "$SYS*" -print)
[[ -z $rootfiles ]] || fail "root-owned files where the user controls the path: $rootfiles"
[[ -n $(find "$(job_bundle "$job")" -user scuser -name SHA256SUMS) ]] || fail "the bundle is not scuser's"

python3 - "$WORK/before" "$WORK/during" "$ncpu" <<'PY' || fail "a write outside the allowlist"
import os, sys
before, during, ncpu = sys.argv[1], sys.argv[2], int(sys.argv[3])
allowed = {"dev/cpu/0/msr", "sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"}
def tree(top):
    return {os.path.relpath(os.path.join(r, f), top) for r, _, fs in os.walk(top) for f in fs}
added = tree(during) - tree(before)
assert not added, f"files created in the fake machine: {sorted(added)}"
changed = []
for root, _, files in os.walk(before):
    for f in files:
        rel = os.path.relpath(os.path.join(root, f), before)
        a = open(os.path.join(before, rel), "rb").read()
        b = open(os.path.join(during, rel), "rb").read()
        if a != b:
            changed.append((rel, a, b))
for rel, a, b in changed:
    assert rel in allowed, f"{rel} changed, which is not the card's CPU's MSR or governor"
    if rel.endswith("msr"):
        a, b = a.ljust(len(b), b"\0"), b.ljust(len(a), b"\0")
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        assert all(0x1a4 <= i < 0x1a4 + 8 for i in diff), f"bytes {diff} changed outside 0x1a4"
        old = int.from_bytes(a[0x1a4:0x1a4 + 8], "little")
        new = int.from_bytes(b[0x1a4:0x1a4 + 8], "little")
        assert (old ^ new) & ~0xF == 0, f"bits outside the mask changed: {old:#x} -> {new:#x}"
        assert new == old | 0xF, f"prefetch off not written: {new:#x}"
    else:
        assert b.strip() == b"performance", b
assert {c[0] for c in changed} == allowed, f"expected changes missing: {[c[0] for c in changed]}"
print("audit: only", sorted(allowed), "changed, within the allowlist")
PY
# After the job: every file as before (a governor file compared as the kernel shows it:
# the value, whatever whitespace was written).
same_as_before() {
	diff -r -x scaling_governor "$WORK/before" "$SYS" >/dev/null &&
		[[ $(cat "$SYS/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor") == \
			$(cat "$WORK/before/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor") ]]
}
wait_until 15 "the fake machine to be as before the job" same_as_before

# Card strings never become a path, a format string or a shell word.
for bad in '  run_name: "../../etc/x"' '  run_name: "%n%n%s"' '  governor: "../../../etc/passwd"' \
	'  governor: "$(touch /tmp/pwned)"' $'  env:\n    "$(touch /tmp/pwned)": x' \
	$'  env:\n    "LD_PRELOAD=/tmp/x.so": x'; do
	write_card evil.yaml '  cpu_list: 0' "$bad"
	rc=0
	as_user sbatch --stream-card=evil.yaml job.sh >"$WORK/evil.out" 2>&1 || rc=$?
	((rc != 0)) || fail "sbatch accepted $bad"
	grep -Eq "is not a valid name|is not a variable name" "$WORK/evil.out" ||
		fail "no clear refusal for $bad: $(cat "$WORK/evil.out")"
done
[[ ! -e /tmp/pwned ]] || fail "a card string reached a shell"

# The submit-side check skipped: a user sets the variables that carry the card to the job
# by hand (no --stream-card). The node, as root, decodes and checks the card in memory, and
# refuses it with the same message; nothing of the fake machine changes.
cp -a "$SYS" "$WORK/before-forged"
write_card forged.yaml '  cpu_list: 0' '  threads: 1' '  prefetch: off' \
	'  governor: "../../../../etc/passwd"'
job=$(forge forged.yaml --exclusive) || fail "sbatch refused the forged job itself"
state=$(wait_job "$job")
[[ $state != COMPLETED ]] || fail "a forged card with a path for a governor ran"
logged 'is not a valid name' "$WORK/$job.out"
write_card forged2.yaml '  cpu_list: 0' '  threads: 1' '  prefetch: off'
job=$(FORGE_SHA=0000000000000000000000000000000000000000000000000000000000000000 forge forged2.yaml --exclusive) ||
	fail "sbatch refused the forged job itself"
state=$(wait_job "$job")
[[ $state != COMPLETED ]] || fail "a card whose SHA-256 does not match ran"
logged 'does not match its SHA-256' "$WORK/$job.out"
diff -r "$WORK/before-forged" "$SYS" >/dev/null || fail "a forged card changed the fake machine"
echo "PASS $TEST_NAME"
