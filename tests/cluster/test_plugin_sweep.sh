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

as_user "$SC" run sweep.yaml --submit --output "$WORK/out" >"$WORK/sweep.out" 2>"$WORK/sweep.err" ||
	fail "the sweep failed: $(cat "$WORK/sweep.out" "$WORK/sweep.err")"
table=$(sed -n 's/^SWEEP_TABLE=//p' "$WORK/sweep.out")
[[ -f $table ]] || fail "no sweep table: $(cat "$WORK/sweep.out")"
for value in on off; do
	row=$(grep "^| $value | " "$table") || fail "no row for prefetch=$value in $table"
	[[ $row == *"| ok |"* ]] || fail "prefetch=$value did not pass: $row"
	B=$(awk -F'|' '{gsub(/ /, "", $6); print $6}' <<<"$row")
	[[ -d $B ]] || fail "row $value names no bundle: $row"
	grep -qx "OBSERVED_STATE=$value" "$B/prefetch/state/state.env" ||
		fail "prefetch=$value was not read back as $value: $(cat "$B/prefetch/state/state.env")"
	grep -qx "  prefetch: $value" "$B/card.yaml" || fail "the run's card.yaml is not the resolved card"
	as_user "$SC" verify "$B" >/dev/null || fail "verify rejects the prefetch=$value bundle"
done
[[ $(msr_read "$SYS" 0 0x1a4) == 0x0000000000000040 ]] || fail "the MSR was not restored after the sweep"
echo "PASS $TEST_NAME"
