#!/usr/bin/env bash
# Bring your own program under `sbatch --stream-card` (doc/markers.md): on the real local
# cluster, as scuser, a card of workload: exec runs Debian's dd (no markers: the whole
# process is the main loop, its figure read by a pattern) and our marker-library example
# (markers: library: its sc_marker_begin/end bound the snapshot and the window, its
# sc_marker_figure is a metric). Each job's `streamcard run` (no arguments) seals the
# bundle the plugin prepared; the bundle holds the plugin's files, says how the main loop
# was captured, carries the program's figure, belongs to scuser and verifies with the
# node keys. A program that does not validate fails the job's run, said in its verdict.
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh" "$@"
# shellcheck source=plugin_lib.sh
source "$(dirname "$0")/plugin_lib.sh"
plugin_up
make_workdir
TRIAD=$(dirname "$SC")/streamcard-marker-triad
[[ -x $TRIAD ]] || fail "the staged install has no $TRIAD"

# exec_card NAME LINES...: an exec card on cpu 0, one thread, the interference gate open
# (these jobs run beside other tests).
exec_card() {
	local name=$1
	shift
	{
		printf 'version: 1\nexperiment:\n  workload: exec\n  cpu_list: "0"\n  threads: 1\n'
		printf '%s\n' "$@"
		printf '  expect:\n    max_interference_pct: 100\n'
	} >"$WORK/$name"
	chown scuser:scuser "$WORK/$name"
}
exec_card dd.yaml '  command: [dd, if=/dev/zero, of=/dev/null, bs=1M, count=2048]' \
	'  metrics:' '    - name: seconds' "      pattern: 'copied, ([0-9.e+-]+) s,'" \
	'      unit: s' '      better: lower' '      primary: true' \
	"  validate_pattern: '^2048\\+0 records out\$'" '  env:' '    LC_ALL: C'
exec_card triad.yaml "  command: [$TRIAD, \"2000000\", \"10\"]" '  markers: library' \
	'  metrics:' '    - name: triad_rate' \
	"      pattern: '^TRACE_FIGURE name=triad_rate value=([^ ]+) unit=MB/s\$'" \
	'      unit: MB/s' '      better: higher' '      primary: true' \
	"  validate_pattern: '^Solution Validates'"
write_job job.sh

# job_ok CARD NAME CAPTURE METRIC: the job of CARD completed with a verified bundle named
# exec_NAME..., whose capture starts with CAPTURE and whose results carry METRIC.
job_ok() {
	local job b
	job=$(submit "$1" job.sh) || fail "$1: sbatch refused"
	wait_completed "$job"
	b=$(job_bundle "$job")
	[[ $b == "$WORK/"* ]] || fail "$1: bundle $b is not in the job's directory"
	cmp "$WORK/$1" "$b/card.yaml" || fail "$1: the bundle's card.yaml is not the card submitted"
	grep -q "platform/before.txt" "$b/SHA256SUMS" || fail "$1: the plugin's files are not sealed"
	grep -qx "slurm_job_id=$job" "$b/run.conf" || fail "$1: run.conf lacks slurm_job_id=$job"
	grep -qx "verdict=ok" "$b/run.conf" || fail "$1: verdict not ok: $(cat "$WORK/$job.out")"
	[[ -z $(find "$b" ! -user scuser) ]] || fail "$1: files not owned by scuser: $(find "$b" ! -user scuser)"
	as_user "$SC" verify --keys "$TRUSTED" "$b" >"$WORK/verify.out" 2>&1 ||
		fail "$1: verify rejects the job's bundle: $(cat "$WORK/verify.out")"
	python3 - "$b" "$3" "$4" <<'PY' || fail "$1: results.json"
import json, sys
r = json.load(open(sys.argv[1] + "/results.json"))
assert r["capture"].startswith(sys.argv[2]), r["capture"]
assert r["metrics"][sys.argv[3]] > 0, r["metrics"]
PY
	note "$1: $(grep -E '^capture|^verdict' "$b/run.conf" | tr '\n' ' ')"
	echo "$b"
}
job_ok dd.yaml dd "whole process:" seconds >/dev/null
B=$(job_ok triad.yaml triad "marker library:" triad_rate)
# The marker library's snapshot: taken at sc_marker_begin (the program waited there), after
# the example filled its arrays b and c (2 x 16 MB at 2M elements): their pages are in it.
python3 - "$B" <<'PY' || fail "triad: the snapshot at sc_marker_begin"
import re, sys
log = open(sys.argv[1] + "/stream.log").read().splitlines()
begin = log.index("TRACE_WORKLOAD_PHASE=main_loop_begin")
assert log[begin + 1].startswith("TRACE_READY_WAIT ms="), log
status = open(sys.argv[1] + "/workload_status_at_ready.txt").read()
rss_kb = int(re.search(r"^VmRSS:\s+(\d+) kB", status, re.M).group(1))
assert rss_kb >= 28 * 1024, "VmRSS %d kB at the snapshot" % rss_kb
PY

# A program that does not print its validation line: the run fails, said as such, and
# the job's bundle is still sealed and verifies (a failed run is evidence too).
exec_card bad.yaml '  command: [dd, if=/dev/zero, of=/dev/null, bs=1M, count=16]' \
	'  metrics:' '    - name: seconds' "      pattern: 'copied, ([0-9.e+-]+) s,'" \
	'      unit: s' '      better: lower' "  validate_pattern: '^Solution Validates'" \
	'  env:' '    LC_ALL: C'
job=$(submit bad.yaml job.sh) || fail "bad.yaml: sbatch refused"
state=$(wait_job "$job")
[[ $state != COMPLETED ]] || fail "a program that did not validate: job $job completed"
b=$(job_bundle "$job")
grep -qx "verdict=failed" "$b/run.conf" || fail "bad.yaml: verdict not failed: $(grep verdict "$b/run.conf")"
logged "validation" "$WORK/$job.out"
rc=0
as_user "$SC" verify --keys "$TRUSTED" "$b" >"$WORK/verify.out" 2>&1 || rc=$?
((rc == 1)) || fail "bad.yaml: verify exit $rc (want 1: intact, the run failed): $(cat "$WORK/verify.out")"
grep -q "validation" "$WORK/verify.out" || fail "bad.yaml: verify does not name the validation: $(cat "$WORK/verify.out")"
echo "PASS $TEST_NAME"
