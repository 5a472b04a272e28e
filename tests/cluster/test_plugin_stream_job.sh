#!/usr/bin/env bash
# sbatch --stream-card=card.yaml job.sh on the real local cluster, as scuser: the job's
# `streamcard run` (no arguments) finds the card and bundle the plugin prepared, and the
# bundle it seals holds the plugin's files and verifies; a card of runs: 3 runs three times
# into that one bundle.
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh" "$@"
# shellcheck source=plugin_lib.sh
source "$(dirname "$0")/plugin_lib.sh"
plugin_up
make_workdir
write_card card.yaml '  cpu_list: 0' '  threads: 1' '  memory_node: 0'
write_job job.sh

job=$(submit card.yaml job.sh) || fail "sbatch refused a good card"
wait_completed "$job"
B=$(job_bundle "$job")
[[ $B == "$WORK/stream_copy_1thread_"* ]] || fail "bundle $B is not in the job's directory"
cmp "$WORK/card.yaml" "$B/card.yaml" || fail "the bundle's card.yaml is not the card submitted"
[[ -s $B/platform/before.txt ]] || fail "the plugin's platform/before.txt is missing"
grep -q "platform/before.txt" "$B/SHA256SUMS" || fail "the plugin's files are not sealed"
grep -qx "slurm_job_id=$job" "$B/run.conf" || fail "run.conf lacks slurm_job_id=$job"
grep -qx "verdict=ok" "$B/run.conf" || fail "verdict not ok: $(cat "$WORK/$job.out")"
# Everything in the bundle belongs to the job's user: nothing was written as root.
[[ -z $(find "$B" ! -user scuser) ]] || fail "files not owned by scuser: $(find "$B" ! -user scuser)"
as_user "$SC" verify --keys "$TRUSTED" "$B" >/dev/null || fail "streamcard verify rejects the job's bundle"
[[ -s $B/interference.txt ]] || fail "the job's run accounted no interference"

# runs: 3 in one job: three separate runs into the one bundle the plugin prepared, each in
# its own folder with its own log and interference record; the statistics over them.
write_card three.yaml '  cpu_list: 0' '  threads: 1' '  runs: 3'
job=$(submit three.yaml job.sh) || fail "sbatch refused"
state=$(wait_job "$job")
[[ $state == COMPLETED ]] || fail "runs: 3: job $job ended $state: $(cat "$WORK/$job.out")"
B=$(job_bundle "$job")
for i in 1 2 3; do
	[[ -s $B/run-$i/stream.log && -s $B/run-$i/interference.txt ]] ||
		fail "runs: 3: run-$i lacks its log or interference record"
done
grep -qx "runs=3" "$B/run.conf" || fail "runs: 3: run.conf lacks runs=3"
python3 - "$B" <<'PY' || fail "runs: 3: results.json"
import json, sys
r = json.load(open(sys.argv[1] + "/results.json"))
assert len(r["runs"]) == 3 and r["stats"]["copy"]["n"] == 3, r["stats"]
assert r["stats"]["copy"]["ci95"] is None  # fewer than 6 runs: interval unavailable
PY
as_user "$SC" verify --keys "$TRUSTED" "$B" >/dev/null || fail "runs: 3: verify rejects the job's bundle"

# Symlinks planted where the next bundles will be created (every name of the next 20 s,
# pointing into a root-only directory) are never followed: the bundle is made by the job's
# user, as a new directory, and the root-only directory stays empty.
guard=$(mktemp -d /root/streamcard-guard.XXXXXX)
now=$(date +%s)
for ((t = now; t < now + 20; t++)); do
	ln -s "$guard" "$WORK/stream_copy_1thread_$(date -d "@$t" +%Y%m%d_%H%M%S)"
done
job=$(submit card.yaml job.sh) || fail "sbatch refused"
state=$(wait_job "$job")
[[ $state == COMPLETED ]] || { rm -rf "$guard"; fail "job $job ended $state: $(cat "$WORK/$job.out")"; }
B=$(job_bundle "$job")
[[ -d $B && ! -L $B ]] || { rm -rf "$guard"; fail "the bundle $B is not a real directory"; }
leaked=$(find "$guard" -mindepth 1 | head -n 3)
rm -rf "$guard"
[[ -z $leaked ]] || fail "something was written through a planted symlink: $leaked"

# A job that asks too few CPUs for the card fails at its start, naming the fix (without
# the cli_filter, which would have asked for them).
plugin_up_unfiltered
write_card two.yaml '  cpu_list: 0-1' '  threads: 2'
job=$(submit two.yaml job.sh -c 1) || fail "sbatch refused"
state=$(wait_job "$job")
[[ $state != COMPLETED ]] || fail "a job without the card's CPUs completed"
# The user sees it in the job's output (slurmstepd writes it there as the job ends).
logged "cpu_list: CPUs 1 are outside the CPUs this job may use" "$WORK/$job.out"
logged "sbatch --exclusive, or -c 2" "$WORK/$job.out"
echo "PASS $TEST_NAME"
