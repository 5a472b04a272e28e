#!/usr/bin/env bash
# streamcard-node state: shows a node's journals (a healthy one with its holders, a damaged
# one as DAMAGED) and the damaged ones set aside; --clear restores the fake machine's MSRs
# from them and removes them (the damaged one set aside); the exit status says whether a
# change is journaled. Usage: node_tool.sh BUILD_DIR (needs root; 77 otherwise).
set -euo pipefail
TOOL=$1/bin/streamcard-node
((EUID == 0)) || { echo "SKIP: needs root"; exit 77; }
W=$(mktemp -d /tmp/sc-node-tool.XXXXXX)
trap 'rm -rf "$W"' EXIT
fail() { echo "FAIL node_tool: $*" >&2; exit 1; }

# A fake 4-CPU Intel node; cpus 0-1 have prefetch off (0x4f), as a job left them.
S=$W/sys
mkdir -p "$S/proc" "$S/sys/devices/system/cpu" "$W/state"
printf 'processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 85\n\n' >"$S/proc/cpuinfo"
echo 0-3 >"$S/sys/devices/system/cpu/online"
python3 - "$S" <<'PY'
import os, struct, sys
for cpu in range(4):
    os.makedirs(f"{sys.argv[1]}/dev/cpu/{cpu}", exist_ok=True)
    with open(f"{sys.argv[1]}/dev/cpu/{cpu}/msr", "wb") as f:
        f.seek(0x1a4); f.write(struct.pack("<Q", 0x4f if cpu < 2 else 0x40))
PY
chmod 0700 "$W/state"
msr() { od -An -t x8 -j $((0x1a4)) -N 8 "$S/dev/cpu/$1/msr" | tr -d ' '; }
cat >"$W/state/job_41.journal" <<J
version=1
job=41
prefetch=off
governor=unchanged
cpus=0
arch=intel-core
msr=0 0x1a4 0xf 0x40
holder=999999 5
end=1
J
printf 'version=1\njob=42\nprefetch=off\ngovernor=unchanged\ncpus=1\nmsr=1 0x1a4 0xf 0x40\n\x01garbage\n' >"$W/state/job_42.journal"

# A job of a large node with a long, sparse CPU list and no holder left: the list is cut,
# the line still says so (it was written past the end of its buffer).
printf 'version=1\njob=43\nprefetch=off\ngovernor=unchanged\ncpus=%s\narch=intel-core\nend=1\n' \
	"$(seq -s, 0 2 1998)" >"$W/state/job_43.journal"
rc=0
out=$("$TOOL" state --state-dir "$W/state" --sysroot "$S") || rc=$?
grep -q '^job 43: prefetch=off governor=unchanged cpus=0,2,4,[0-9,]*\.\.\. arch=intel-core, 0 register(s), 0 governor(s); no holder$' <<<"$out" ||
	fail "job 43's long CPU list: $out"
rm "$W/state/job_43.journal"

rc=0
out=$("$TOOL" state --state-dir "$W/state" --sysroot "$S") || rc=$?
((rc == 1)) || fail "state with journals exited $rc, not 1: $out"
grep -q '^job 41: prefetch=off governor=unchanged cpus=0 arch=intel-core, 1 register(s), 0 governor(s); holder 999999 dead$' <<<"$out" ||
	fail "job 41 not shown: $out"
grep -q '^job 42: DAMAGED (journal .*job_42.journal is corrupt: line 7: malformed: ?garbage): 1 register(s) and 0 governor(s) readable; no holder$' <<<"$out" ||
	fail "job 42 not shown as damaged: $out"
[[ $(msr 0) == 000000000000004f ]] || fail "state changed the machine"

rc=0
"$TOOL" state --clear --job 41 --state-dir "$W/state" --sysroot "$S" >"$W/clear41" || rc=$?
((rc == 0)) || fail "--clear --job 41 exited $rc: $(cat "$W/clear41")"
[[ $(msr 0) == 0000000000000040 && $(msr 1) == 000000000000004f ]] || fail "--job 41 restored the wrong cpus"
[[ ! -e $W/state/job_41.journal && -e $W/state/job_42.journal ]] || fail "--job 41 removed the wrong journal"

"$TOOL" state --clear --state-dir "$W/state" --sysroot "$S" >"$W/clear" || fail "--clear failed: $(cat "$W/clear")"
[[ $(msr 1) == 0000000000000040 ]] || fail "the damaged journal's readable record was not restored"
grep -q "restored what could be read (1 register(s), 0 governor(s)), the file kept as $W/state/damaged_job_42.journal." "$W/clear" ||
	fail "no line for the damaged journal: $(cat "$W/clear")"
out=$("$TOOL" state --state-dir "$W/state" --sysroot "$S") || fail "state after --clear exited $?: $out"
grep -q "^no platform change is journaled in $W/state$" <<<"$out" || fail "journals left: $out"
grep -q '^damaged journal set aside: damaged_job_42.journal.[0-9]*T[0-9]*Z$' <<<"$out" || fail "the damaged one is not listed: $out"

rc=0
"$TOOL" state --job 1 --state-dir "$W/state" >/dev/null 2>&1 || rc=$?
((rc == 2)) || fail "--job without --clear exited $rc, not 2"
rc=0
setpriv --reuid=65534 --regid=65534 --clear-groups "$TOOL" state --state-dir "$W/state" >/dev/null 2>"$W/user.err" || rc=$?
if ((rc != 3)) && ! grep -q '^streamcard-node' "$W/user.err"; then
	# The tool never started as nobody: a clone in a 0700 folder run through qemu-user's
	# binfmt interpreter (the arm64 stage), which opens the program as that user.
	echo "note: the tool could not be started as nobody here: $(head -n 1 "$W/user.err")"
else
	((rc == 3)) || fail "a user was not refused (exit $rc): $(cat "$W/user.err")"
	grep -q "must run as root" "$W/user.err" || fail "the refusal does not say why: $(cat "$W/user.err")"
fi
echo "PASS node_tool"
