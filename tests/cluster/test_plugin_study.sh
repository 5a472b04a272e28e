#!/usr/bin/env bash
# An ablation study through Slurm: `streamcard run STUDY --submit` makes one
# sbatch --stream-card job per row (the baseline, each step alone, the steps in sequence).
# A governor step runs through the plugin on a fake sysroot: the plugin sets the governor
# for that row's jobs only, reads it back, the bundle records it, the restore after each
# job is attested and the next job starts on the node's own governor; the study's tables,
# its sealed record (verify --keys) and compare --study of the cumulative row follow.
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh" "$@"
# shellcheck source=plugin_lib.sh
source "$(dirname "$0")/plugin_lib.sh"
make_workdir
SYS=$WORK/sysroot STATE=$WORK/state
make_sysroot "$SYS" GenuineIntel 6 85
plugin_up allow=governor require_exclusive=yes "sysroot=$SYS" "state_dir=$STATE"
# governors: the distinct governors of cpus 0 and 1 (the plugin writes them without a newline).
governors() {
	local f g
	for f in "$SYS"/sys/devices/system/cpu/cpu[01]/cpufreq/scaling_governor; do
		read -r g <"$f" || [[ -n $g ]]
		echo "$g"
	done | sort -u | tr '\n' ' '
}
[[ $(governors) == "powersave " ]] || fail "the fake node does not start on powersave: $(governors)"

write_card study.yaml '  cpu_list: 0-1' '  threads: 2' '  runs: 2'
cat >>"$WORK/study.yaml" <<'CARD'
ablation:
  - name: performance governor
    set: { governor: performance }
  - name: one thread
    set: { threads: 1 }
CARD
chown scuser:scuser "$WORK/study.yaml"

as_user env STREAMCARD_KEYS="$TRUSTED" "$SC" run study.yaml --submit --output "$WORK/out" \
	>"$WORK/study.out" 2>"$WORK/study.err" ||
	fail "the study failed: $(cat "$WORK/study.out" "$WORK/study.err")"
# One job per row, in the series' order.
[[ $(grep -c -- '--stream-card=' "$WORK/study.out") == 4 ]] ||
	fail "not one job per row: $(grep -- '--stream-card=' "$WORK/study.out")"
order=$(grep -o -- '--job-name=[^ ]*' "$WORK/study.out" | sed 's/.*_//' | tr '\n' ' ')
[[ $order == "baseline alone-1 alone-2 seq-2 " ]] || fail "the rows ran out of order: $order"
last=$(tail -n 1 "$WORK/study.out")
study=${last#STUDY=}
[[ $last != "$study" && -d $study ]] || fail "the last line is not STUDY=<dir>: $last"

# Both tables, each row ok with its two runs.
for row in "baseline" "alone 1: performance governor" "alone 2: one thread" \
	"seq 1-1: + performance governor" "seq 1-2: + one thread"; do
	grep -Eq "^\| ${row//+/\\+} \| ok \| [0-9.e+-]+ \(2 runs, no interval\) \|" "$WORK/study.out" ||
		fail "no usable row '$row': $(cat "$WORK/study.out")"
done
bundle_row() { grep "^| $1 |" "$WORK/study.out" | head -n 1 | awk -F'|' '{gsub(/ /, "", $(NF-1)); print $(NF-1)}'; }
base=$(bundle_row baseline)
gov=$(bundle_row "alone 1: performance governor")
one=$(bundle_row "alone 2: one thread")
seq=$(bundle_row "seq 1-2: + one thread")

# The governor rows' jobs: set, read back and recorded; the restore attested after each.
for B in "$gov" "$seq"; do
	grep -qx "REQUESTED_GOVERNOR=performance" "$B/prefetch/state/state.env" &&
		grep -qx "OBSERVED_GOVERNOR=performance" "$B/prefetch/state/state.env" &&
		grep -qx "GOVERNOR_VALID=1" "$B/prefetch/state/state.env" ||
		fail "$B: the governor was not set and read back: $(cat "$B/prefetch/state/state.env")"
	grep -qx "  governor: performance" "$B/card.yaml" || fail "$B: the card is not the row's"
	as_user "$SC" verify --keys "$TRUSTED" --state-dir "$STATE" "$B" >"$WORK/v.out" 2>&1 ||
		fail "verify rejects $B: $(cat "$WORK/v.out")"
	grep -q "restore attested by .*: restored at .*, governor powersave" "$WORK/v.out" ||
		fail "$B: the restore after its job is not attested: $(cat "$WORK/v.out")"
done
# The other rows' jobs ask for nothing: the plugin leaves the platform alone (no state of
# its own in the bundle), and their governor is the node's own.
for B in "$base" "$one"; do
	[[ ! -e $B/prefetch/state/state.env ]] ||
		fail "$B: the plugin acted for a row without the step: $(cat "$B/prefetch/state/state.env")"
	grep -qx "  governor: unchanged" "$B/card.yaml" || fail "$B: the card is not the row's"
done
[[ $(governors) == "powersave " ]] || fail "the governor was not restored after the study: $(governors)"
no_journal "$STATE" || fail "a restore journal was left behind"

# The record: sealed, every row recomputed from its (attested) bundle.
as_user "$SC" verify --keys "$TRUSTED" "$study" >"$WORK/vs.out" 2>&1 ||
	fail "verify rejects the study: $(cat "$WORK/vs.out")"
grep -q "study intact" "$WORK/vs.out" || fail "verify STUDY: $(cat "$WORK/vs.out")"
python3 - "$study/study.json" <<'PY' || fail "the rows do not declare their differences: $(cat "$study/study.json")"
import json, sys
rows = {r["label"]: r for r in json.load(open(sys.argv[1]))["rows"]}
assert rows["baseline"]["differs"] == [], rows["baseline"]
assert rows["alone 1: performance governor"]["differs"] == ["governor"]
assert rows["seq 1-2: + one thread"]["differs"] == ["governor", "threads"]
PY
# The cumulative row against the baseline: two variables differ (the governor the plugin
# read back, the threads): refused alone, valid as rows of the study.
as_user env STREAMCARD_KEYS="$TRUSTED" "$SC" compare "$base" "$seq" >"$WORK/c.out" 2>&1 &&
	fail "compare accepted two variables outside the study: $(cat "$WORK/c.out")"
grep -q "controlled variables differ: threads, governor" "$WORK/c.out" || fail "compare: $(cat "$WORK/c.out")"
as_user env STREAMCARD_KEYS="$TRUSTED" "$SC" compare --study "$study" "$base" "$seq" >"$WORK/c.out" 2>&1 ||
	fail "compare --study refused the cumulative row: $(cat "$WORK/c.out")"
grep -q 'study rows "baseline" -> "seq 1-2: + one thread": copy MB/s' "$WORK/c.out" ||
	fail "compare --study: $(cat "$WORK/c.out")"
echo "PASS $TEST_NAME"
