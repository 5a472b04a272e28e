#!/usr/bin/env bash
# Padded logs: records beyond what the run can have produced are refused where they start,
# not parsed in full (doc/contracts/limits.md, "Bounded work"). A real small run (kernel
# copy, 2 CPUs, 3 repetitions), re-sealed after each edit as a forger would: a million
# padding lines (60 MiB), the STREAM table row of the one function a thousand times, an IMB
# table in a STREAM log, interference records for a CPU the card does not have and more task
# records than a sampler writes, rep_seconds longer than the repetitions. verify names the line and
# what it exceeds; report and export end with the bundle refused; and (plain build) verify
# holds at most one copy of the log in memory, with no timing asserted.
BIN=$(cd "$1" && pwd) SRC=$2
. "$SRC/tests/lib.sh"
. "$SRC/tests/wrapper/analysis_lib.sh"
SC="$BIN/streamcard"

base=$(small_run base)
expect_status 0 "$SC" verify "$base"

# edited NAME PYTHON: a copy of the base bundle whose files PYTHON edits (b: its path),
# re-sealed; prints the copy.
edited() {
    local b
    b=$(copy_bundle "$base" "$1")
    python3 - "$b" "$2" <<'PY'
import json, re, sys
b, code = sys.argv[1], sys.argv[2]
def append(rel, text):
    open(b + "/" + rel, "a").write(text)
exec(code)
PY
    reseal "$b"
    echo "$b"
}

# 1. A million padding lines: refused at the first line past the card's bound.
padded=$(edited padded '
append("stream.log", "".join("padding line %07d: nothing the workload prints, nor could it\n" % i for i in range(1000000)))')
[ "$(stat -c %s "$padded/stream.log")" -gt $((50 * 1048576)) ] || fail "the padded log is small"
/usr/bin/time -o "$WORK/rss" -f %M "$SC" verify "$padded" >"$WORK/out" 2>"$WORK/err" &&
    fail "a padded log verified"
expect_contains "$WORK/err" "stream.log: line 16897: more than 16896 lines, more than a run of the card prints (valid: what a run of the card prints; not read further)"
expect_contains "$WORK/err" "run.conf claims evidence_ok=1 but the raw files show 0"
if [[ $(ldd "$SC" 2>/dev/null) != *libasan* ]]; then
    log_kb=$(($(stat -c %s "$padded/stream.log") / 1024)) rss=$(tail -n 1 "$WORK/rss")
    [ "$rss" -lt $((log_kb + 48 * 1024)) ] ||
        fail "verify held $rss KB for a $log_kb KB log: more than one copy of it"
fi
expect_status 1 "$SC" report "$padded" -o "$WORK/padded.html"
expect_contains "$WORK/padded.html" "REFUSED"
expect_status 0 "$SC" export --prometheus "$padded"
expect_contains "$WORK/out" "streamcard_bundle_intact{"
expect_not_contains "$WORK/out" "streamcard_metric_bytes_per_second{"

# 2. The table row of the card's one function (copy) a thousand times.
rows=$(edited rows '
log = open(b + "/stream.log").read()
row = re.search(r"(?m)^Copy:.*\n", log).group(0)
open(b + "/stream.log", "w").write(log.replace(row, row * 1000, 1))')
expect_status 1 "$SC" verify "$rows"
expect_contains "$WORK/err" "more STREAM table rows than the 1 function the card's kernel runs"

# 3. An IMB table in a STREAM log: no message size is the card's.
imb=$(edited imb '
append("stream.log", "#bytes #repetitions t[usec] Mbytes/sec\n8 1000 1.00 8.00\n")')
expect_status 1 "$SC" verify "$imb"
expect_contains "$WORK/err" "more IMB table rows than the card's 0 message sizes"

# 4. Interference records: a CPU the card does not have (cpu_list 0-1), and more task
# records than a sampler writes.
cpu=$(edited cpu '
append("interference.txt", "TRACE_INTERFERENCE_CPU source=observer cpu=7 user=0 nice=0 system=0 idle=0 iowait=0 irq=0 softirq=0 steal=0\n")')
expect_status 1 "$SC" verify "$cpu"
expect_contains "$WORK/err" "more CPU records than the 2 CPUs its samplers account"
tasks=$(edited tasks '
append("interference.txt", "".join("TRACE_INTERFERENCE_TASK source=observer tid=%d pid=1 exec_ns=0 run_delay_ns=0 nvcsw=0 allowed=0-1 comm=pad\n" % (100000 + i) for i in range(5000)))')
expect_status 1 "$SC" verify "$tasks"
expect_contains "$WORK/err" "more task records than 4096 per sampler"

# 5. More repetition times than the card's repetitions (refused before this change too).
reps=$(edited reps '
r = json.load(open(b + "/results.json"))
for m in [r["metrics"], r["runs"][0]["metrics"]]:
    m["rep_seconds"]["copy"] += [1e-5] * 100000
json.dump(r, open(b + "/results.json", "w"))')
expect_status 1 "$SC" verify "$reps"
expect_contains "$WORK/err" "rep_seconds.copy has 100003 repetitions, but the card ran 3"
expect_status 1 "$SC" report "$reps" -o "$WORK/reps.html"
[ "$(grep -o '<circle ' "$WORK/reps.html" | wc -l)" -lt 100 ] || fail "the report drew the padded repetitions"
echo "ok: hostile_logs"
