#!/usr/bin/env bash
# A batch job submitted by scuser runs as scuser, writes its output file (owned by scuser)
# in its working directory, gets only the cpu it asked for, and completes.
# shellcheck source=common.sh disable=SC2119 # cluster_up takes up options, not ours
source "$(dirname "$0")/common.sh" "$@"
cluster_up
make_workdir

cat >"$WORK/job.sh" <<'JOB'
#!/bin/bash
#SBATCH --job-name=sc-test --ntasks=1 --cpus-per-task=1
echo "user=$(id -un)"
echo "cpus=$(grep Cpus_allowed_list /proc/self/status | cut -f2)"
echo "nproc=$(nproc)"
JOB
chown scuser:scuser "$WORK/job.sh"

job=$(as_user sbatch --parsable job.sh) || fail "sbatch failed"
[[ $job =~ ^[0-9]+$ ]] || fail "sbatch --parsable printed '$job'"
wait_until 30 "job $job to finish" has_final_state "$job"
[[ $(final_state "$job") == COMPLETED ]] || fail "job $job ended $(final_state "$job")"

out=$WORK/slurm-$job.out
[[ -f $out ]] || fail "no output file $out"
[[ $(stat -c %U "$out") == scuser ]] || fail "$out owned by $(stat -c %U "$out"), not scuser"
grep -qx 'user=scuser' "$out" || fail "job did not run as scuser: $(cat "$out")"
# cons_tres with CR_Core: one cpu asked, one core (its hardware threads) granted.
threads=$(/usr/sbin/slurmd -C | sed -n 1p | grep -o 'ThreadsPerCore=[0-9]*' | cut -d= -f2)
nproc=$(sed -n 's/^nproc=//p' "$out")
[[ $nproc == "$threads" ]] || fail "job saw $nproc cpus, expected one core ($threads threads): $(cat "$out")"
echo "PASS $TEST_NAME"
