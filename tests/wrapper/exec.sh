#!/usr/bin/env bash
# workload: exec (doc/contracts/layout.md, "Workloads as modules", "Bring your own program"): a
# program of Debian's under a card, without a shell. The card's checks and the plan's PATH
# lookup say plainly what is wrong; a run of dd verifies, records dd's SHA-256 and says its
# capture is the whole process; a run of sleep shows its snapshot and the libraries it
# mapped, with their SHA-256; a results.json that claims figures or another capture,
# a program that moves a thread of its own off the card's CPUs, and a program that fails,
# fail. The interference gate is opened (max_interference_pct:
# 100): this test runs beside others under ctest -j; tests/wrapper/interference.sh tests it.
BIN=$(cd "$1" && pwd) SRC=$2
. "$SRC/tests/lib.sh"
SC="$BIN/streamcard"
DD=$(command -v dd) || { echo "skip: no dd"; exit 77; }

card() { # card NAME COMMAND [MORE]: an exec card on CPU 0 running COMMAND (a YAML list),
          # MORE its further lines under experiment:
    cat >"$WORK/$1.yaml" <<EOF
version: 1
experiment:
  workload: exec
  command: $2
  cpu_list: "0"
  threads: 1
  env:
    LC_ALL: C
  expect:
    max_interference_pct: 100
${3:-}
EOF
}

# The example card plans here; a relative path and an unknown name are refused, each in
# one line that says what would be valid, before anything runs.
expect_status 0 "$SC" run "$SRC/contrib/cards/exec-dd.yaml" --dry-run
expect_contains "$WORK/out" "binary:      $DD"
expect_contains "$WORK/out" "capture:     no phase markers: the whole process is the main loop"
expect_contains "$WORK/out" "figures:     1 metric(s) by pattern from the log, validate_pattern"
card relative "[./dd, if=/dev/zero]"
expect_status 2 "$SC" run "$WORK/relative.yaml" --output "$WORK/runs"
expect_contains "$WORK/err" 'command: "./dd" is a relative path (valid: an absolute path, or a name found on PATH such as "dd")'
card unknown "[no-such-program-sc34]"
expect_status 3 "$SC" run "$WORK/unknown.yaml" --output "$WORK/runs"
expect_contains "$WORK/err" 'streamcard: command: "no-such-program-sc34" is not an executable file in any absolute directory of PATH'
[ ! -d "$WORK/runs" ] || [ -z "$(ls -A "$WORK/runs")" ] || fail "a refused program left a bundle"

# dd by its name: found on PATH, run without a shell (the '*' reaches dd as it is).
card dd "[dd, if=/dev/zero, of=/dev/null, bs=64k, count=20000, 'status=*']"
expect_status 1 "$SC" run "$WORK/dd.yaml" --output "$WORK/runs" --quiet
expect_contains "$WORK/runs"/exec_dd_1thread_*/stream.log "dd: invalid status level: '*'"
rm -rf "$WORK/runs"
card dd "[dd, if=/dev/zero, of=/dev/null, bs=64k, count=20000]"
expect_status 0 "$SC" run "$WORK/dd.yaml" --output "$WORK/runs" --quiet
B=$(bundle_of "$WORK/out")
expect_contains "$B/stream.log" "bytes"
# The whole process is the interference window: every scan inside it, none refused.
expect_not_contains "$B/run.conf" "interference.txt (scan)"
python3 - "$B" "$DD" <<'EOF' || fail "results.json or build.json of the exec run"
import hashlib, json, sys
b, dd = sys.argv[1], sys.argv[2]
r = json.load(open(b + "/results.json"))
bj = json.load(open(b + "/build.json"))
assert r["workload"] == "exec" and r["verdict"] == "ok", r["verdict"]
assert r["capture"].startswith("whole process:"), r["capture"]
assert r["metrics"] == {}, r["metrics"]
assert "no phase markers" in r["notes"]["phases"], r["notes"]["phases"]
assert bj["binary"] == dd, bj["binary"]
assert bj["sha256"] == hashlib.sha256(open(dd, "rb").read()).hexdigest(), "sha256"
assert bj["build_info"].startswith("none:"), bj["build_info"]
EOF
expect_status 0 "$SC" verify "$B"
expect_contains "$WORK/out" "streamcard: verify: capture: whole process: the program prints no phase markers"

# The snapshot of a program that runs past 50 ms (sleep: sized by time, not by bytes): its
# threads, affinity, pages and environment, and the libraries it mapped with their SHA-256.
card sleep "[sleep, '0.3']"
expect_status 0 "$SC" run "$WORK/sleep.yaml" --output "$WORK/runs" --quiet
S=$(bundle_of "$WORK/out")
for f in threads_at_ready.txt workload_status_at_ready.txt numa_maps_at_ready.txt \
         environ_at_ready.txt main_loop.ready interference.txt build.json; do
    [ -s "$S/$f" ] || fail "no $f in the bundle of an exec run"
done
grep -q '^Cpus_allowed_list:[[:space:]]*0$' "$S/workload_status_at_ready.txt" ||
    fail "the snapshot of sleep shows another affinity than cpu_list 0"
python3 - "$S" <<'EOF' || fail "build.json's libraries of the exec run"
import hashlib, json, sys
bj = json.load(open(sys.argv[1] + "/build.json"))
libs = {l["path"]: l["sha256"] for l in bj["libraries"]}
libc = [p for p in libs if "/libc.so" in p]
assert libc, "libc is not among sleep's libraries: %s" % sorted(libs)
assert libs[libc[0]] == hashlib.sha256(open(libc[0], "rb").read()).hexdigest(), "libc sha256"
EOF
expect_status 0 "$SC" verify "$S"

# A results.json that claims a figure, or the capture of a workload with markers, resealed.
cp -a "$B" "$WORK/lie1"
python3 - "$WORK/lie1/results.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
r["metrics"] = {"MBps": 9999.0}
json.dump(r, open(sys.argv[1], "w"))
EOF
reseal "$WORK/lie1"
expect_status 1 "$SC" verify "$WORK/lie1"
expect_contains "$WORK/err" "results.json: metric MBps, but stream.log shows no such figure by the card's patterns"
cp -a "$B" "$WORK/lie2"
sed -i 's/"capture":"whole process:[^"]*"/"capture":"phase markers"/; s/"capture": "whole process:[^"]*"/"capture": "phase markers"/' \
    "$WORK/lie2/results.json"
expect_contains "$WORK/lie2/results.json" '"phase markers"'
reseal "$WORK/lie2"
expect_status 1 "$SC" verify "$WORK/lie2"
expect_contains "$WORK/err" "results.json: capture disagrees with the card's workload"

# Figures by pattern: dd's seconds from its one summary line, its "records out" line as its
# own check; verify recomputes the figure from the log, and a results.json that says
# another fails it.
rm -rf "$WORK/runs"
card figures "[dd, if=/dev/zero, of=/dev/null, bs=64k, count=20000]" "  metrics:
    - name: seconds
      pattern: 'copied, ([0-9.e+-]+) s,'
      unit: s
      better: lower
      primary: true
  validate_pattern: '^20000\\+0 records out\$'"
expect_status 0 "$SC" run "$WORK/figures.yaml" --output "$WORK/runs" --quiet
M=$(bundle_of "$WORK/out")
shown=$(sed -n 's/.* copied, \([0-9.e+-]*\) s,.*/\1/p' "$M/stream.log")
[ -n "$shown" ] || fail "dd printed no seconds: $(cat "$M/stream.log")"
python3 - "$M" "$shown" <<'EOF' || fail "results.json does not hold the figure dd printed"
import json, sys
r = json.load(open(sys.argv[1] + "/results.json"))
assert r["metrics"] == {"seconds": float(sys.argv[2])}, r["metrics"]
assert r["runs"][0]["metrics"] == r["metrics"], r["runs"][0]["metrics"]
assert "validate_pattern matched" in r["notes"]["validation"], r["notes"]["validation"]
EOF
expect_status 0 "$SC" verify "$M"
cp -a "$M" "$WORK/lie3"
python3 - "$WORK/lie3/results.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
r["metrics"]["seconds"] = r["runs"][0]["metrics"]["seconds"] = r["metrics"]["seconds"] / 2
json.dump(r, open(sys.argv[1], "w"))
EOF
reseal "$WORK/lie3"
expect_status 1 "$SC" verify "$WORK/lie3"
expect_contains "$WORK/err" "results.json: seconds "
expect_contains "$WORK/err" ", but stream.log shows $shown"

# A pattern that matches twice, and a validate_pattern no line matches, fail the run, said
# plainly (printf, no shell, prints the lines).
rm -rf "$WORK/runs"
card twice "[printf, 'rate=5\\nrate=6\\n']" "  metrics:
    - {name: rate, pattern: 'rate=([0-9]+)', unit: x, better: higher}"
expect_status 1 "$SC" run "$WORK/twice.yaml" --output "$WORK/runs" --quiet
expect_contains "$WORK/err" "Failed gates: validation"
expect_contains "$WORK/err" "metric rate: its pattern matches more than one line of the log (lines 1 and 2; valid: exactly one)"
card unvalidated "[printf, 'rate=5\\n']" "  validate_pattern: 'Solution Validates'"
expect_status 1 "$SC" run "$WORK/unvalidated.yaml" --output "$WORK/runs" --quiet
expect_contains "$WORK/err" "no line of the log matches validate_pattern \"Solution Validates\" (the program's own check)"
V=$(bundle_of "$WORK/out")
expect_status 1 "$SC" verify "$V"
expect_contains "$WORK/err" "the run FAILED its gates: validation"

# The program's own lines as its markers (a program of ours that it never heard of): the
# snapshot and the window at "loop begins", the window's end at "loop ends"; an end_pattern
# that matches nothing after the begin, or a begin_pattern that matches nothing, fail phases.
rm -rf "$WORK/runs"
PH="$BIN/sc_test_exec_phases"
card phases "[$PH, '300']" "  begin_pattern: '^loop begins\$'
  end_pattern: '^loop ends'"
expect_status 0 "$SC" run "$WORK/phases.yaml" --dry-run
expect_contains "$WORK/out" "capture:     the program's lines matching begin_pattern and end_pattern bound the main loop"
expect_status 0 "$SC" run "$WORK/phases.yaml" --output "$WORK/runs" --quiet
H=$(bundle_of "$WORK/out")
expect_contains "$WORK/err" "begin_pattern at log line 2, end_pattern at log line 3"
[ -s "$H/main_loop.ready" ] && [ -s "$H/threads_at_ready.txt" ] || fail "no snapshot at the begin line"
expect_contains "$H/results.json" '"capture":"output markers: the program'
expect_status 0 "$SC" verify "$H"
expect_contains "$WORK/out" "capture: output markers:"
card noend "[$PH, '10']" "  begin_pattern: '^loop begins\$'
  end_pattern: '^never'"
expect_status 1 "$SC" run "$WORK/noend.yaml" --output "$WORK/runs" --quiet
expect_contains "$WORK/err" "begin_pattern at log line 2, but no line after it matches end_pattern"
card nobegin "[$PH, '10']" "  begin_pattern: '^never'
  end_pattern: '^loop ends'"
expect_status 1 "$SC" run "$WORK/nobegin.yaml" --output "$WORK/runs" --quiet
expect_contains "$WORK/err" "no line of the log matches begin_pattern \"^never\": the main loop did not begin"
N=$(bundle_of "$WORK/out")
[ ! -e "$N/main_loop.ready" ] || fail "a snapshot without the begin line"
expect_status 1 "$SC" verify "$N"

# Trace lines a program prints are not evidence of it: a marker does not end its window, a
# binding line does not bind it (printf, no shell, prints them).
rm -rf "$WORK/runs"
card printf "[printf, 'TRACE_WORKLOAD_PHASE=main_loop_end\\nTRACE_THREAD_BINDING thread=0 cpu=1\\n']"
expect_status 0 "$SC" run "$WORK/printf.yaml" --output "$WORK/runs" --quiet
P=$(bundle_of "$WORK/out")
expect_contains "$P/stream.log" "TRACE_WORKLOAD_PHASE=main_loop_end"
expect_contains "$P/results.json" "no phase markers: the whole process is the main loop"
expect_status 0 "$SC" verify "$P"

# A program that moves a thread of its own off the card's CPUs before its main loop begins
# (pthread_setaffinity_np to CPU 1, card cpu_list 0) fails the binding gate, which names the
# thread and the CPU; the same program keeping the thread on CPU 0 holds it. Its second
# thread fails thread_count too (the card's threads: 1), as it should. With markers the
# snapshot is at "loop begins"; without them at its first output, after the move too.
AFF="$BIN/sc_test_exec_affinity"
if [ "$(nproc --all)" -ge 2 ] && taskset -c 1 true 2>/dev/null; then
    rm -rf "$WORK/runs"
    for markers in yes no; do
        more="  begin_pattern: '^loop begins\$'
  end_pattern: '^loop ends\$'"
        [ $markers = yes ] || more=
        card escape "[$AFF, '1', '300']" "$more"
        expect_status 1 "$SC" run "$WORK/escape.yaml" --output "$WORK/runs" --quiet
        E=$(bundle_of "$WORK/out")
        expect_contains "$E/stream.log" "escaper on cpu 1: moved"
        grep -Eq "binding +FAIL snapshot: thread [0-9]+ was on cpu 1, outside cpu_list 0" "$WORK/err" ||
            fail "markers $markers: the binding gate does not name the escaped thread: $(grep binding "$WORK/err")"
        tid=$(awk '$5 == "escaper" { print $2 }' "$E/threads_at_ready.txt")
        [ -n "$tid" ] || fail "no thread escaper in the snapshot: $(cat "$E/threads_at_ready.txt")"
        expect_contains "$WORK/err" "thread $tid was on cpu 1"
        expect_status 1 "$SC" verify "$E"
        expect_contains "$WORK/err" "binding"
        card stay "[$AFF, '0', '300']" "$more"
        expect_status 1 "$SC" run "$WORK/stay.yaml" --output "$WORK/runs" --quiet
        grep -Eq "binding +ok " "$WORK/err" || fail "markers $markers: a thread kept on CPU 0 failed binding: $(grep binding "$WORK/err")"
        expect_contains "$WORK/err" "Failed gates: thread_count"
    done
else
    echo "note: one CPU online: the case of a thread off the card's CPUs is not run"
fi

# A program that fails is a failed run, its exit code the reason; verify agrees.
rm -rf "$WORK/runs"
card false "[false]"
expect_status 1 "$SC" run "$WORK/false.yaml" --output "$WORK/runs" --quiet
expect_contains "$WORK/err" "Failed gates: exit_code"
F=$(bundle_of "$WORK/out")
expect_status 1 "$SC" verify "$F"
expect_contains "$WORK/err" "the run FAILED its gates: exit_code"
echo "ok: exec"
