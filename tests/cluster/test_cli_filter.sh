#!/usr/bin/env bash
# contrib/slurm/cli_filter.lua on the real local cluster (up installs it by default), with
# the plugin loaded, as scuser: a plain `sbatch --stream-card=card.yaml job.sh` gets the
# card's CPUs and its `streamcard run` passes; a card that changes prefetch gets the whole
# node; an explicit -c 1 is kept (and said so); a bad card, a missing streamcard command and
# a submission without --stream-card are left alone; a cpu_list no node of the partition
# has is refused at submission. Last, with `up --cli-filter no` the
# same plain submission gets one CPU: what the checks above see is the filter's doing.
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh" "$@"
# shellcheck source=plugin_lib.sh
source "$(dirname "$0")/plugin_lib.sh"
# shellcheck disable=SC2119 # the plugin without arguments
plugin_up
make_workdir
if [[ ! -r $CDIR/etc/cli_filter.lua ]] || ! grep -qx 'CliFilterPlugins=cli_filter/lua' "$SLURM_CONF"; then
	fail "up did not install the cli_filter"
fi
grep -qxF "STREAMCARD_BIN_DEFAULT = \"$SC\"" "$CDIR/etc/cli_filter.lua" ||
	fail "the installed cli_filter does not call $SC: $(grep -m1 STREAMCARD_BIN_DEFAULT "$CDIR/etc/cli_filter.lua")"

# job_field JOBID FIELD: one field of `scontrol show job` (the job record stays MinJobAge).
job_field() { scontrol -o show job "$1" | grep -o " $2=[^ ]*" | cut -d= -f2-; }
# sbatch_as_user NAME SBATCH ARGS...: submits as scuser, stderr to $WORK/NAME.err; prints
# the job id (fails the test when sbatch does).
sbatch_as_user() {
	local name=$1
	shift
	as_user sbatch --parsable -o "%j.out" "$@" 2>"$WORK/$name.err" ||
		fail "sbatch $* failed: $(cat "$WORK/$name.err")"
}
filter_lines() { grep -c '^streamcard cli_filter: ' "$WORK/$1.err" || true; }

write_card two.yaml '  cpu_list: 0-1' '  threads: 2' '  memory_node: 0'
write_job job.sh 'grep Cpus_allowed_list: /proc/self/status' "$(printf '%q run --quiet' "$SC")"

# 1. No -c: the filter asks for the card's two CPUs; the job runs on CPUs 0-1 and passes.
job=$(sbatch_as_user plain --stream-card=two.yaml job.sh)
grep -qx 'streamcard cli_filter: two.yaml (cpu_list 0-1): added --cpus-per-task=2 --ntasks=1' \
	"$WORK/plain.err" || fail "the filter did not say what it added: $(cat "$WORK/plain.err")"
state=$(wait_job "$job")
[[ $state == COMPLETED ]] || fail "job $job ended $state: $(cat "$WORK/$job.out")"
[[ $(job_field "$job" NumCPUs) == 2 && $(job_field "$job" CPUs/Task) == 2 ]] ||
	fail "job $job did not get 2 CPUs: $(scontrol -o show job "$job")"
grep -qxP 'Cpus_allowed_list:\t0-1' "$WORK/$job.out" || fail "job $job is not on CPUs 0-1: $(cat "$WORK/$job.out")"
B=$(job_bundle "$job")
grep -qx "verdict=ok" "$B/run.conf" || fail "verdict not ok: $(cat "$WORK/$job.out")"

# 2. A card changing prefetch gets the whole node (held: the plugin's policy is not what
# is tested here, the job's request is).
write_card pf.yaml '  cpu_list: 0-1' '  threads: 2' '  prefetch: off'
job=$(sbatch_as_user pf --hold --stream-card=pf.yaml job.sh)
[[ $(job_field "$job" OverSubscribe) == NO ]] ||
	fail "a prefetch card did not get an exclusive node: $(scontrol -o show job "$job")"
[[ $(job_field "$job" CPUs/Task) == 2 ]] || fail "prefetch card: CPUs/Task is not 2: $(scontrol -o show job "$job")"
grep -q 'changes node-wide settings: added --cpus-per-task=2 --ntasks=1 --exclusive$' "$WORK/pf.err" ||
	fail "the filter did not say it added --exclusive: $(cat "$WORK/pf.err")"
scancel "$job"

# 3. The user's -c 1 is kept and the filter says so; the plugin then refuses the job at
# its start, naming the fix.
job=$(sbatch_as_user explicit -c 1 --stream-card=two.yaml job.sh)
grep -qx 'streamcard cli_filter: two.yaml (cpu_list 0-1) needs 2 CPUs; keeping your -c 1 (1 CPU per node): the plugin refuses the run unless it gets them (use -c 2 or --exclusive)' \
	"$WORK/explicit.err" || fail "no line about the kept -c 1: $(cat "$WORK/explicit.err")"
[[ $(filter_lines explicit) == 1 ]] || fail "more than one filter line: $(cat "$WORK/explicit.err")"
[[ $(job_field "$job" CPUs/Task) == 1 ]] || fail "the user's -c 1 was changed: $(scontrol -o show job "$job")"
state=$(wait_job "$job")
[[ $state != COMPLETED ]] || fail "a job without the card's CPUs completed"
logged "sbatch --exclusive, or -c 2" "$WORK/$job.out" # written by slurmstepd as the job ends
# The same in the script (#SBATCH -c 1): also the user's choice.
write_job job1.sh '#SBATCH -c 1' 'true'
job=$(sbatch_as_user sbatch_c1 --hold --stream-card=two.yaml job1.sh)
[[ $(job_field "$job" CPUs/Task) == 1 ]] || fail "#SBATCH -c 1 was changed: $(scontrol -o show job "$job")"
grep -q 'keeping your -c 1' "$WORK/sbatch_c1.err" || fail "no line about #SBATCH -c 1: $(cat "$WORK/sbatch_c1.err")"
scancel "$job"

# 4. Without --stream-card: no change, not a word.
job=$(sbatch_as_user none --hold job.sh)
[[ ! -s $WORK/none.err ]] || fail "the filter spoke for a job without a card: $(cat "$WORK/none.err")"
[[ $(job_field "$job" CPUs/Task) == 1 && $(job_field "$job" OverSubscribe) != NO ]] ||
	fail "a job without a card was changed: $(scontrol -o show job "$job")"
scancel "$job"

# 5. A bad card: the filter is quiet, the plugin refuses it with the card's message (once).
write_card bad.yaml '  cpu_list: 0-1' '  threads: 9'
rc=0
as_user sbatch --stream-card=bad.yaml job.sh >/dev/null 2>"$WORK/bad.err" || rc=$?
((rc != 0)) || fail "sbatch accepted a bad card"
[[ $(filter_lines bad) == 0 ]] || fail "the filter spoke about a bad card: $(cat "$WORK/bad.err")"
[[ $(grep -c 'threads: 9 is more than the 2 CPUs' "$WORK/bad.err") == 1 ]] ||
	fail "the card's message is not there exactly once: $(cat "$WORK/bad.err")"

# 6. No streamcard command: one line, and the submission goes on unchanged (the plugin
# still checks the card).
rc=0
job=$(as_user --env STREAMCARD_BIN=/nonexistent/streamcard sbatch --parsable --hold \
	--stream-card=two.yaml job.sh 2>"$WORK/nobin.err") || rc=$?
((rc == 0)) || fail "a missing streamcard command failed the submission: $(cat "$WORK/nobin.err")"
if ! grep -qx 'streamcard cli_filter: /nonexistent/streamcard not found: .*' "$WORK/nobin.err" ||
	[[ $(filter_lines nobin) != 1 ]]; then
	fail "not one line about the missing command: $(cat "$WORK/nobin.err")"
fi
[[ $(job_field "$job" CPUs/Task) == 1 ]] || fail "changed without a streamcard command: $(scontrol -o show job "$job")"
scancel "$job"

# 7. A cpu_list that no node of the partition has: refused at submission (the job could
# never start and would pend forever), nothing queued, the reason in one line.
most=$(sinfo -h -N -o '%c' | sort -n | tail -n 1)
write_card far.yaml "  cpu_list: $most-$((most + 1))" '  threads: 2'
rc=0
as_user sbatch --parsable --stream-card=far.yaml job.sh >"$WORK/far.out" 2>"$WORK/far.err" || rc=$?
((rc != 0)) || fail "sbatch queued a job whose cpu_list no node has: $(cat "$WORK/far.out")"
[[ ! -s $WORK/far.out ]] || fail "a job id was printed: $(cat "$WORK/far.out")"
grep -q "^streamcard cli_filter: far.yaml: cpu_list $most-$((most + 1)) names CPU $((most + 1)), but no node of partition [^ ]* has more than $most CPU" \
	"$WORK/far.err" || fail "no line saying why: $(cat "$WORK/far.err")"
grep -q "(valid: a cpu_list within 0-$((most - 1)))" "$WORK/far.err" || fail "no valid range: $(cat "$WORK/far.err")"
# A partition named on the command line is the one looked at.
part=$(sinfo -h -o '%P' | head -n 1 | tr -d '*')
rc=0
as_user sbatch --parsable -p "$part" --stream-card=far.yaml job.sh >/dev/null 2>"$WORK/farp.err" || rc=$?
((rc != 0)) || fail "sbatch -p $part queued the job"
grep -q "no node of partition $part has" "$WORK/farp.err" || fail "-p $part: $(cat "$WORK/farp.err")"

# 8. Control: without the filter the plain submission gets sbatch's one CPU.
cluster_up --plugin "$PLUGIN" --cli-filter no
if [[ -e $CDIR/etc/cli_filter.lua ]] || grep -q CliFilterPlugins "$SLURM_CONF"; then
	fail "up --cli-filter no left the filter installed"
fi
job=$(sbatch_as_user off --hold --stream-card=two.yaml job.sh)
[[ $(filter_lines off) == 0 && $(job_field "$job" CPUs/Task) == 1 ]] ||
	fail "without the filter: $(cat "$WORK/off.err") $(scontrol -o show job "$job")"
scancel "$job"
echo "PASS $TEST_NAME"
