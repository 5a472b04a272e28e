#!/usr/bin/env bash
# A paired run through Slurm, as scuser: sbatch --stream-card of a card with a top-level
# against: runs both sides in the one job, taking turns, into the bundle the plugin
# prepared, which then holds the pair (a/, b/, pair.json) and verifies; `streamcard run A
# --against B --submit` submits the same pair as one job; and a pair card that changes the
# platform is refused at sbatch, before anything runs.
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh" "$@"
# shellcheck source=plugin_lib.sh
source "$(dirname "$0")/plugin_lib.sh"
plugin_up
make_workdir
# pair_card NAME [LINE...]: a small STREAM card of 3 pairs, each LINE added at the top level
# (the interference gate opened: these jobs run beside other tests under ctest -j).
pair_card() {
	local name=$1
	shift
	{
		printf 'version: 1\nexperiment:\n  workload: stream\n  kernel: copy\n  cpu_list: 0\n'
		printf '  threads: 1\n  array_size: 1000000\n  iterations: 5\n  runs: 3\n'
		printf '  cache_resident: accept\n  expect:\n    max_interference_pct: 100\n'
		printf '%s\n' "$@"
	} >"$WORK/$name"
	chown scuser:scuser "$WORK/$name"
}
pair_card pair.yaml 'against:' '  array_size: 1200000'
write_job job.sh

job=$(submit pair.yaml job.sh) || fail "sbatch refused a pair card"
wait_completed "$job"
P=$(job_bundle "$job")
[[ $P == "$WORK/stream_copy_1thread_"* ]] || fail "the pair $P is not the job's bundle"
grep -q "^PAIR=$P\$" "$WORK/$job.out" || fail "the job printed no PAIR=$P: $(cat "$WORK/$job.out")"
cmp "$WORK/pair.yaml" "$P/card.yaml" || fail "the pair's card.yaml is not the card submitted"
for f in a/run-3/stream.log b/run-3/stream.log pair.json platform/before.txt; do
	[[ -s $P/$f ]] || fail "the job's pair lacks $f"
done
grep -q '"variable":"array_size"' <(tr -d ' \n' <"$P/pair.json") || fail "pair.json: $(cat "$P/pair.json")"
[[ -z $(find "$P" ! -user scuser) ]] || fail "files not owned by scuser: $(find "$P" ! -user scuser)"
as_user "$SC" verify --keys "$TRUSTED" "$P" >"$WORK/verify.out" 2>&1 ||
	fail "verify rejects the job's pair: $(cat "$WORK/verify.out")"
grep -q "3 pairs in the order seed" "$WORK/verify.out" || fail "verify: $(cat "$WORK/verify.out")"

# The command form through sbatch: one job for the pair.
pair_card a.yaml
pair_card b.yaml
sed -i 's/array_size: 1000000/array_size: 1200000/' "$WORK/b.yaml"
as_user "$SC" run a.yaml --against b.yaml --submit --output "$WORK/cmd" >"$WORK/cmd.out" 2>"$WORK/cmd.err" ||
	fail "run --against --submit failed: $(cat "$WORK/cmd.out" "$WORK/cmd.err" "$WORK"/cmd/*.out)"
[[ $(grep -c 'sbatch --parsable --wait' "$WORK/cmd.out") == 1 ]] || fail "not one job: $(cat "$WORK/cmd.out")"
P2=$(sed -n 's/.*; bundle \(.*\)$/\1/p' "$WORK/cmd.out" | tail -n1)
[[ -d $P2/a && -d $P2/b ]] || fail "the submitted pair made no pair: $(cat "$WORK/cmd.out")"
as_user "$SC" verify --keys "$TRUSTED" "$P2" >/dev/null || fail "verify rejects the submitted pair"

# A pair card that changes the platform: refused by sbatch's card check.
pair_card plat.yaml 'against: {}'
sed -i 's/^  threads: 1$/  threads: 1\n  prefetch: off/' "$WORK/plat.yaml"
submit plat.yaml job.sh >"$WORK/plat.out" 2>&1 && fail "sbatch accepted a pair card that changes the platform"
grep -q "against: a pair's sides are bundles of their own" "$WORK/plat.out" ||
	fail "no clear refusal: $(cat "$WORK/plat.out")"
echo "ok: plugin_pair"
