#!/usr/bin/env bash
# A prefetch on/off sweep through Slurm: `streamcard run CARD --submit` makes one
# sbatch --stream-card job per value; the plugin sets and reads back each value (fake
# Intel MSRs under its sysroot); each run is its own verified bundle, and the sweep's
# table names both values with their verdicts.
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh" "$@"
# shellcheck source=plugin_lib.sh
source "$(dirname "$0")/plugin_lib.sh"
make_workdir
SYS=$WORK/sysroot
make_sysroot "$SYS" GenuineIntel 6 85
for ((cpu = 0; cpu < $(nproc --all); cpu++)); do msr_write "$SYS" "$cpu" 0x1a4 0x40; done
plugin_up allow=prefetch require_exclusive=yes "sysroot=$SYS" "state_dir=$WORK/state"
write_card sweep.yaml '  cpu_list: 0-1' '  threads: 2' '  sweep:' '    prefetch: [on, off]'

as_user env STREAMCARD_KEYS="$TRUSTED" "$SC" run sweep.yaml --submit --output "$WORK/out" >"$WORK/sweep.out" 2>"$WORK/sweep.err" ||
	fail "the sweep failed: $(cat "$WORK/sweep.out" "$WORK/sweep.err")"
table=$(sed -n 's/^SWEEP_TABLE=//p' "$WORK/sweep.out")
[[ -f $table ]] || fail "no sweep table: $(cat "$WORK/sweep.out")"
for value in on off; do
	row=$(grep "^| $value | " "$table") || fail "no row for prefetch=$value in $table"
	[[ $row == *"| ok |"* ]] || fail "prefetch=$value did not pass: $row"
	B=$(awk -F'|' '{gsub(/ /, "", $(NF-1)); print $(NF-1)}' <<<"$row")
	[[ -d $B ]] || fail "row $value names no bundle: $row"
	grep -qx "OBSERVED_STATE=$value" "$B/prefetch/state/state.env" ||
		fail "prefetch=$value was not read back as $value: $(cat "$B/prefetch/state/state.env")"
	grep -qx "  prefetch: $value" "$B/card.yaml" || fail "the run's card.yaml is not the resolved card"
	as_user "$SC" verify --keys "$TRUSTED" "$B" >/dev/null || fail "verify rejects the prefetch=$value bundle"
done
[[ $(msr_read "$SYS" 0 0x1a4) == 0x0000000000000040 ]] || fail "the MSR was not restored after the sweep"

# A governor sweep the same way: each job sets and reads back its governor, and the
# machine's own governor (powersave) is back after the sweep, whose last job set
# performance.
plugin_up allow=prefetch,governor require_exclusive=yes "sysroot=$SYS" "state_dir=$WORK/state"
write_card gov.yaml '  cpu_list: 0-1' '  threads: 2' '  governor: [powersave, performance]'
as_user env STREAMCARD_KEYS="$TRUSTED" "$SC" run gov.yaml --submit --output "$WORK/gov" >"$WORK/gov.out" 2>"$WORK/gov.err" ||
	fail "the governor sweep failed: $(cat "$WORK/gov.out" "$WORK/gov.err")"
table=$(sed -n 's/^SWEEP_TABLE=//p' "$WORK/gov.out")
for value in performance powersave; do
	row=$(grep "^| $value | " "$table") || fail "no row for governor=$value in $table"
	[[ $row == *"| ok |"* ]] || fail "governor=$value did not pass: $row"
	B=$(awk -F'|' '{gsub(/ /, "", $(NF-1)); print $(NF-1)}' <<<"$row")
	grep -qx "OBSERVED_GOVERNOR=$value" "$B/prefetch/state/state.env" ||
		fail "governor=$value was not read back: $(cat "$B/prefetch/state/state.env")"
	as_user "$SC" verify --keys "$TRUSTED" "$B" >/dev/null || fail "verify rejects the governor=$value bundle"
done
for ((cpu = 0; cpu < 2; cpu++)); do
	[[ $(cat "$SYS/sys/devices/system/cpu/cpu$cpu/cpufreq/scaling_governor") == powersave ]] ||
		fail "cpu$cpu's governor was not restored after the sweep"
done

# A value the node's policy refuses: the job makes no bundle, its cause (the refusal) is in
# the table, and the series stops there: the next value is not submitted. --keep-going
# submits every value, each with its cause.
plugin_up allow=governor require_exclusive=yes "sysroot=$SYS" "state_dir=$WORK/state"
write_card refuse.yaml '  cpu_list: 0-1' '  threads: 2' '  sweep:' '    prefetch: [on, off]'
as_user "$SC" run refuse.yaml --submit --output "$WORK/refuse" >"$WORK/refuse.out" 2>"$WORK/refuse.err" &&
	fail "a refused sweep exited 0: $(cat "$WORK/refuse.out")"
table=$(sed -n 's/^SWEEP_TABLE=//p' "$WORK/refuse.out")
[[ -f $table ]] || fail "no sweep table: $(cat "$WORK/refuse.out" "$WORK/refuse.err")"
row=$(grep "^| on | " "$table") || fail "no row for prefetch=on: $(cat "$table")"
[[ $row == *"| no bundle |"*"prefetch=on refused: the node's policy does not let"* ]] ||
	fail "the refusal is not in the table: $row"
row=$(grep "^| off | " "$table") || fail "no row for prefetch=off: $(cat "$table")"
[[ $row == *"| not run |"*"(the series stopped after prefetch=on)"* ]] || fail "prefetch=off: $row"
[[ $(grep -c -- '--stream-card=' "$WORK/refuse.out") == 1 ]] ||
	fail "the series went on after the refusal: $(cat "$WORK/refuse.out")"
grep -q "prefetch=on made no bundle (job [0-9]*: .*refused.*): the series stops here (valid: --keep-going runs every value)" \
	"$WORK/refuse.err" || fail "no line saying the series stopped: $(cat "$WORK/refuse.err")"
as_user "$SC" run refuse.yaml --submit --keep-going --output "$WORK/keep" >"$WORK/keep.out" 2>"$WORK/keep.err" &&
	fail "a refused sweep exited 0"
table=$(sed -n 's/^SWEEP_TABLE=//p' "$WORK/keep.out")
for value in on off; do
	row=$(grep "^| $value | " "$table") || fail "--keep-going: no row for $value"
	[[ $row == *"| no bundle |"*"prefetch=$value refused"* ]] || fail "--keep-going: $value: $row"
done

# A sweep card given to sbatch itself: one job cannot change the platform between runs, and
# the node acts on the card of one run, so sbatch refuses it, naming the way that works
# (--submit), and nothing is queued.
write_job job.sh
before=$(squeue -h | wc -l)
rc=0
as_user sbatch --stream-card=sweep.yaml --exclusive job.sh >"$WORK/sweep-sbatch.out" 2>&1 || rc=$?
((rc != 0)) || fail "sbatch accepted a sweep card"
grep -q "sweep.yaml: --stream-card takes the card of one run, and this one sweeps prefetch (valid: streamcard run sweep.yaml --submit, one job per value)" "$WORK/sweep-sbatch.out" ||
	fail "no clear refusal of the sweep card: $(cat "$WORK/sweep-sbatch.out")"
[[ $(squeue -h | wc -l) == "$before" ]] || fail "a sweep card's job was queued"
echo "PASS $TEST_NAME"
