#!/usr/bin/env bash
# scuser cancels its running job: it ends CANCELLED and its processes are gone.
# shellcheck source=common.sh disable=SC2119 # cluster_up takes up options, not ours
source "$(dirname "$0")/common.sh" "$@"
cluster_up
make_workdir

marker=sc-scancel-$$-$RANDOM
job=$(submit_sleeper "$marker") || fail "sbatch failed"
wait_until 30 "job $job to run" is_running "$job"
wait_until 10 "the job's sleep process" sleeper_alive "$marker"

as_user scancel "$job" || fail "scancel $job failed"
wait_until 30 "job $job to leave the queue" not_in_queue "$job"
wait_until 10 "job $job completion record" has_final_state "$job"
[[ $(final_state "$job") == CANCELLED ]] || fail "job $job ended $(final_state "$job"), not CANCELLED"
wait_until 10 "the job's processes to be gone" sleeper_gone "$marker"
echo "PASS $TEST_NAME"
