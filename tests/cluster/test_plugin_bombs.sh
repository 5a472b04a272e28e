#!/usr/bin/env bash
# Cards made to cost far more than their size (aliases repeated in a sweep and in a list,
# deep nesting, huge values, thousands of keys, more than 64 KiB) are refused within a
# bounded cost. Through sbatch --stream-card: by sbatch itself, one line each, nothing
# queued. With the card's variables forged (plain sbatch, no submit-side check): on the
# node, where the card check runs as the user and root reads only its record: each job
# fails at once with the card's one line, its root processes use under 1 s of CPU and at
# most 50 MB more memory than a job with a plain bad card, slurmd's log grows by less than
# 10 KB, and the node is idle after. (On the code before the card check, the thousands of
# keys made slurmstepd spend minutes of CPU, gigabytes of memory and hundreds of MB of log.)
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh" "$@"
# shellcheck source=plugin_lib.sh
source "$(dirname "$0")/plugin_lib.sh"
plugin_up
make_workdir
write_job job.sh
python3 - "$WORK" <<'PY'
import os, sys
out = sys.argv[1]
head = "version: 1\nexperiment:\n  workload: stream\n  cpu_list: 0\n"
def fill(prefix, item, suffix, limit=65536 - 64):
    return prefix + item * ((limit - len(prefix) - len(suffix)) // len(item)) + suffix
big = "x" * 2000
cards = {
    # one anchored value as every value of a sweep
    "alias-sweep": fill(head + f"  question: &q {big}\n  kernel: [", "*q, ", "*q]\n"),
    # a long anchored text repeated in a list, times a sweep of 100 values
    "alias-lists": fill(head + f"  question: &q {big}\n  threads: ["
                        + ", ".join(str(i) for i in range(1, 101)) + "]\n  controlled_variables: [",
                        "*q, ", "*q]\n"),
    "deep-nesting": head + "  controlled_variables: " + "[" * 30000 + "]" * 30000 + "\n",
    "huge-scalars": head + '  question: "' + "q" * 30000 + '"\n  run_name: "' + "n" * 30000 + '"\n',
    "many-keys": fill(head + "  env:\n", "    A: x\n", ""),
    "oversized": head + "  question: |\n" + ("    " + "z" * 75 + "\n") * 1100,  # 88 KB
    "plain-bad": head + "  threads: 3\n",  # the baseline: a card refused for a plain reason
}
for name, text in cards.items():
    with open(os.path.join(out, name + ".yaml"), "w") as f:
        f.write(text)
PY
chown scuser:scuser "$WORK"/*.yaml
declare -A expect=(
	[alias-sweep]="anchors (&) and aliases (*) are not allowed in a card"
	[alias-lists]="anchors (&) and aliases (*) are not allowed in a card"
	[deep-nesting]="mappings and lists nested deeper than 8 levels"
	[huge-scalars]="is longer than a card allows (valid: at most 4096 bytes)"
	[many-keys]="more than 256 entries in one mapping (valid: at most 256)"
	[oversized]="larger than a card may hold"
	[plain-bad]="threads: 3 is more than the 1 CPUs of cpu_list 0"
)
bombs=(alias-sweep alias-lists deep-nesting huge-scalars many-keys)

# Through sbatch --stream-card: refused at submission, one line, nothing queued.
before=$(squeue -h | wc -l)
for b in "${bombs[@]}" oversized; do
	rc=0
	as_user sbatch --stream-card="$b.yaml" job.sh >"$WORK/$b.sbatch" 2>&1 || rc=$?
	((rc != 0)) || fail "$b: sbatch accepted it"
	if [[ $b == oversized ]]; then
		grep -q "cannot read the card: larger than 64 KiB" "$WORK/$b.sbatch" || fail "$b: $(cat "$WORK/$b.sbatch")"
	else
		grep -qF "${expect[$b]}" "$WORK/$b.sbatch" || fail "$b: no clear refusal: $(head -c 2000 "$WORK/$b.sbatch")"
	fi
	(($(wc -l <"$WORK/$b.sbatch") <= 5)) || fail "$b: sbatch said $(wc -l <"$WORK/$b.sbatch") lines"
done
[[ $(squeue -h | wc -l) == "$before" ]] || fail "a bomb's job was queued"

# With the variables forged: measured on the node. The job is held until the watcher runs.
LOG=$(node_log) || fail "no slurmd log of the node"
cost() { # cost CARD: submits, watches, prints "<state> <root_cpu> <peak_mb> <ended> <log bytes> <seen>"
	local card=$1 job size0 size1 line
	job=$(forge "$card.yaml" -H) || fail "$card: sbatch refused the forged job itself"
	size0=$(stat -c %s "$LOG")
	job_cost "$job" 60 "$WORK/$card.ready" >"$WORK/$card.cost" &
	local watcher=$!
	wait_until 10 "the watcher of $card" test -e "$WORK/$card.ready"
	scontrol release "$job"
	wait "$watcher"
	line=$(cat "$WORK/$card.cost")
	wait_until 20 "job $job to end" has_final_state "$job"
	logged "${expect[$card]}" "$WORK/$job.out"
	sleep 1 # slurmd writes its log asynchronously
	size1=$(stat -c %s "$LOG")
	eval "$line"
	echo "$(final_state "$job") $root_cpu $peak_mb $ended $((size1 - size0)) $seen"
}
# measure CARD: cost CARD into state cpu mb ended grew, again when the job's processes
# came and went between two looks of the watcher (a busy machine), at most three times.
measure() {
	local try
	for try in 1 2 3; do
		read -r state cpu mb ended grew seen < <(cost "$1")
		[[ $seen == 1 ]] && return 0
		note "$1: try $try: the job's slurmstepd ended before the watcher saw it; measuring again"
	done
	fail "$1: the job's slurmstepd was never seen alive in 3 jobs"
}
measure plain-bad
base_cpu=$cpu base_mb=$mb base_log=$grew
[[ $state != COMPLETED && $ended == 1 ]] || fail "the baseline job: $state, ended=$ended"
note "baseline (a plain bad card): root CPU ${base_cpu} s, peak ${base_mb} MB, log +${base_log} bytes"
for b in "${bombs[@]}" oversized; do
	measure "$b"
	note "$b: $state, root CPU ${cpu} s, peak ${mb} MB, log +${grew} bytes"
	[[ $state != COMPLETED ]] || fail "$b: the job ran"
	((ended == 1)) || fail "$b: the job's slurmstepd did not end within 60 s"
	python3 -c "import sys; sys.exit(not (float('$cpu') < 1.0))" || fail "$b: root used ${cpu} s of CPU"
	python3 -c "import sys; sys.exit(not (float('$mb') < float('$base_mb') + 50))" ||
		fail "$b: peak ${mb} MB, baseline ${base_mb} MB"
	((grew < 10240)) || fail "$b: slurmd's log grew by $grew bytes"
	wait_until 15 "the node to be idle after $b" node_idle
done
echo "PASS $TEST_NAME"
