#!/usr/bin/env bash
# down stops exactly the daemons up started (and their jobs), keeps the directory for
# post-mortem, is harmless when repeated, and --purge removes the directory.
# shellcheck source=common.sh disable=SC2119 # cluster_up takes up options, not ours
source "$(dirname "$0")/common.sh" "$@"
node=$(hostname -s)
cluster_up
make_workdir

marker=sc-down-$$-$RANDOM
job=$(submit_sleeper "$marker") || fail "sbatch failed"
wait_until 30 "job $job to run" is_running "$job"
pids=("$(pid_of munged)" "$(pid_of slurmctld)" "$(pid_of "slurmd-$node")")
# slurmctld's helper (slurmscriptd) must go with it.
read -r -a helpers <<<"$(pgrep -P "$(pid_of slurmctld)" | tr '\n' ' ')"
pids+=("${helpers[@]}")

cluster_down || fail "down failed"
for p in "${pids[@]}"; do
	if pid_running "$p"; then fail "daemon $p ($(cat "/proc/$p/comm" 2>/dev/null)) still running after down"; fi
done
for p in $(pgrep -x slurmstepd || true); do
	cmdline=$(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null) || continue
	if pid_running "$p" && [[ $cmdline == *"[$job."* ]]; then
		fail "slurmstepd $p of job $job survived down"
	fi
done
if sleeper_alive "$marker"; then fail "the job's process survived down"; fi
[[ -s $CDIR/log/slurmctld.log && -f $CDIR/log/jobcomp.log ]] || fail "down did not keep the logs"
[[ $(final_state "$job") == CANCELLED ]] || fail "job $job ended '$(final_state "$job")', expected CANCELLED"

cluster_down || fail "a second down failed"
cluster_down --purge || fail "down --purge failed"
[[ ! -e $CDIR ]] || fail "down --purge left $CDIR"
echo "PASS $TEST_NAME"
