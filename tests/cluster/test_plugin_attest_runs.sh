#!/usr/bin/env bash
# Signed statements bind what ran (doc/contracts/attestation.md), on the real cluster with a
# fake machine:
# 1. A step whose card leaves the platform unchanged, run inside a job whose batch step holds
#    prefetch off and governor performance: root signs what it read of the step's CPUs (off,
#    performance) beside the node's own state (on, powersave), and verify fails the step's
#    bundle. On its own, such a card's bundle verifies, its readback the node's own.
# 2. A requeued job: each run's restore statement is its own (named for the run, naming its
#    apply statement); the second run's bundle does not verify with the first run's restore.
# 3. The state directory's attest/ stays bounded: with attest_keep=3, after 6 jobs that
#    change the platform, 3 restore statements (the newest) and no apply note are left.
#    (The same bound over 200 jobs, and the scan's own bound, are tests/spank's
#    test_attest_store.c: 200 cluster jobs would take minutes.)
# On the code before, the step's constant "unchanged" verified as attested, and the first
# run's restore (one name per job) was taken for the second run's.
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh" "$@"
# shellcheck source=plugin_lib.sh
source "$(dirname "$0")/plugin_lib.sh"
make_workdir
HOST=$(hostname -s)
msr_sysroot GenuineIntel 6 85 0x1a4 0xdeadbeef00000040
plugin_up allow=prefetch,governor require_exclusive=yes "sysroot=$SYS" "state_dir=$STATE" attest_keep=3
write_card change.yaml '  cpu_list: 0-1' '  threads: 2' '  prefetch: off' '  governor: performance'
write_card same.yaml '  cpu_list: 0-1' '  threads: 2'
write_job job.sh
verify() { as_user "$SC" verify --keys "$TRUSTED" --state-dir "$STATE" "$@"; }

# 1. The unchanged card alone: attested, its readback the node's own.
job=$(submit same.yaml job.sh --exclusive) || fail "sbatch refused same.yaml"
wait_completed "$job"
out=$(verify "$(job_bundle "$job")" 2>&1) || fail "verify of an unchanged card's bundle: $out"
grep -q "platform attested by $HOST" <<<"$out" || fail "not attested: $out"
# Inside a job that changed the platform: a step of its own, with the unchanged card.
{
	printf '#!/bin/bash\n'
	printf 'export SLURM_STREAMCARD_CARD_B64=%q SLURM_STREAMCARD_CARD_SHA256=%q SLURM_STREAMCARD_CARD_NAME=same.yaml\n' \
		"$(base64 -w0 "$WORK/same.yaml")" "$(sha256sum <"$WORK/same.yaml" | cut -d' ' -f1)"
	printf 'unset STREAMCARD_BUNDLE STREAMCARD_CARD STREAMCARD_CARD_SHA256\n'
	printf 'srun -n1 %q run --quiet\n' "$SC"
} >"$WORK/inner.sh"
chown scuser:scuser "$WORK/inner.sh"
job=$(submit change.yaml inner.sh --exclusive) || fail "sbatch refused change.yaml"
wait_completed "$job"
B=$(job_bundle "$job")
cmp -s "$B/card.yaml" "$WORK/same.yaml" || fail "the step's bundle holds another card than same.yaml"
out=$(verify "$B" 2>&1) && fail "verify accepts an unchanged card's step run while prefetch was off: $out"
grep -q "platform_state: the card leaves prefetch and governor unchanged, but root read back prefetch off, governor performance on $HOST's CPUs 0-1, and the node's own are prefetch on, governor powersave (a change held by job $job)" <<<"$out" ||
	fail "not said: $out"
wait_until 10 "the platform restored" restored

# 2. A requeued job: run 1, its restore kept aside; run 2 (scontrol requeue of the finished
#    job), its own restore.
restores() { compgen -G "$STATE/attest/job_${1}_${HOST}*.restore.dsse.json" || true; }
# restored_runs JOB N: JOB has restore statements of N runs (wait_until reruns it).
restored_runs() { (($(restores "$1" | wc -l) >= $2)); }
job=$(submit change.yaml job.sh --exclusive --requeue) || fail "sbatch refused change.yaml"
wait_completed "$job"
wait_until 10 "run 1's restore statement" restored_runs "$job" 1
R1=$(restores "$job")
cp "$R1" "$WORK/run1.restore"
B1=$(job_bundle "$job")
scontrol requeue "$job" || fail "scontrol requeue $job"
# A requeue holds the job back (BeginTime: the credentials' lifetime, 120 s): start it now,
# but in a later second than run 1 ended: slurmd revoked run 1's credential at that second
# and kills a start within it ("Killing non-startable batch job: Job credential revoked",
# seen in a fresh root where the requeued run was allocated 0.9 s after run 1's end).
sleep 2
scontrol update jobid="$job" starttime=now || fail "scontrol update jobid=$job starttime=now"
wait_until 60 "run 2 of job $job" restored_runs "$job" 2
R2=$(restores "$job" | grep -vxF "$R1" | head -n1)
[[ -n $R2 ]] || fail "run 2 has no restore statement of its own: $(restores "$job")"
B2=$(find "$WORK" -maxdepth 1 -name 'stream_copy_*' -newer "$WORK/run1.restore" -type d | head -n1)
[[ -n $B2 && $B2 != "$B1" ]] || fail "no bundle of run 2"
out=$(verify "$B2" 2>&1) || fail "verify of run 2's bundle: $out"
grep -q "restore attested by $HOST" <<<"$out" || fail "run 2's restore is not attested: $out"
# The first run's restore where the second run's is looked for: not taken.
mkdir -p "$WORK/state2/attest"
cp "$WORK/run1.restore" "$WORK/state2/attest/${R2##*/}"
chown -R scuser:scuser "$WORK/state2"
out=$(as_user "$SC" verify --keys "$TRUSTED" --state-dir "$WORK/state2" "$B2" 2>&1) || true
grep -q "restore attested" <<<"$out" && fail "run 2's bundle verifies with run 1's restore: $out"
grep -q "restore not attested on $HOST: .*: it closes another run of the job" <<<"$out" ||
	fail "not said why run 1's restore is not run 2's: $out"

# 3. Bounded: attest_keep=3 (jobs above: 3 that changed the platform, and more now).
for i in 1 2 3; do
	job=$(submit change.yaml job.sh --exclusive) || fail "sbatch refused change.yaml"
	wait_completed "$job"
	wait_until 10 "job $job's restore" restored_runs "$job" 1
done
n=$(find "$STATE/attest" -name 'job_*.restore.dsse.json' | wc -l)
((n == 3)) || fail "$n restore statements kept, attest_keep=3: $(ls "$STATE/attest")"
[[ -n $(restores "$job") ]] || fail "the newest restore statement was removed"
[[ -z $(find "$STATE/attest" -name '*.apply') ]] || fail "apply notes left: $(ls "$STATE/attest")"
echo "PASS $TEST_NAME"
