#!/usr/bin/env bash
# Failed runs are evidence too: a crash, a signal to the wrapper, a timeout and a failed
# validation each give a sealed bundle with verdict failed, a clear error, exit 1; so does a
# run that breaks STREAM's validity rules (an array inside 4x the last-level caches).
BIN=$1 SRC=$2
. "$SRC/tests/lib.sh"
# The interference gate is opened (tests/wrapper/interference.sh tests it): this test
# runs beside others under ctest -j.
ARGS=(--workload stream --kernel copy --cpu-list 0-1 --threads 2 --array-size 100000 --cache-resident accept
      --expect-max-interference 100
      --iterations 5 --output "$WORK/runs" --quiet)

# The kernel crashes (SIGSEGV) inside its main loop.
expect_status 1 env STREAMCARD_FAULT=crash "$BIN/streamcard" run "${ARGS[@]}" --run-name crash
expect_contains "$WORK/err" "ERROR: workload failed"
B=$(bundle_of "$WORK/out")
expect_contains "$B/run.conf" "exit_signal=11"
# The exit gate names the signal (core/gates/gates.c), in the bundle and on stderr.
expect_contains "$B/results.json" "killed by signal 11 (Segmentation fault)"
expect_contains "$WORK/err" "killed by signal 11 (Segmentation fault)"
# The cause line names the crash first, not the phases its end left unmet.
expect_contains "$WORK/err" "streamcard: cause: gate exit_code failed: killed by signal 11 (Segmentation fault); also failed: "
expect_contains "$B/run.conf" "phases_ok=0"
[ -s "$B/threads_at_ready.txt" ] || fail "no snapshot although main_loop_begin was printed"
expect_failed_bundle "$B" exit_code_ok

# Failed validation: one corrupted element.
expect_status 1 env STREAMCARD_FAULT=corrupt "$BIN/streamcard" run "${ARGS[@]}" --run-name bad
B=$(bundle_of "$WORK/out")
expect_contains "$B/stream.log" "Failed Validation"
expect_failed_bundle "$B" validation_ok

# scancel's SIGTERM reaches the wrapper while the kernel hangs in its main loop.
env STREAMCARD_FAULT=hang "$BIN/streamcard" run "${ARGS[@]}" --run-name term \
    >"$WORK/term.out" 2>"$WORK/term.err" &
pid=$!
for _ in $(seq 1 200); do
    ready=$(find "$WORK/runs" -path '*term_*/main_loop.ready' 2>/dev/null | head -n 1)
    [ -n "$ready" ] && break
    sleep 0.05
done
[ -n "$ready" ] || fail "the hanging kernel never reached its main loop"
kill -TERM "$pid"
status=0; wait "$pid" || status=$?
[ "$status" = 1 ] || fail "wrapper exit $status after SIGTERM, expected 1"
B=$(bundle_of "$WORK/term.out")
expect_contains "$B/run.conf" "caller_signal=15"
expect_contains "$B/run.conf" "exit_signal=15"
# A cancelled run's cause is the cancellation.
expect_contains "$WORK/term.err" "streamcard: cause: gate exit_code failed: killed by signal 15 (Terminated), from outside the workload; also failed: "
expect_failed_bundle "$B" exit_code_ok

# --timeout stops a hanging kernel.
expect_status 1 env STREAMCARD_FAULT=hang "$BIN/streamcard" run "${ARGS[@]}" --run-name slow \
    --timeout 1
B=$(bundle_of "$WORK/out")
expect_contains "$B/run.conf" "timed_out=1"
expect_failed_bundle "$B" exit_code_ok

# A card asking for a thread count the kernel cannot honour is refused before running.
expect_status 2 "$BIN/streamcard" run "${ARGS[@]}" --threads 3
expect_contains "$WORK/err" "threads: 3 is more than the 2 CPUs of cpu_list 0-1 (valid: 1-2)"
# STREAM's rule: each array at least 4x the last-level caches of cpu_list (hwloc). A
# 0.8 MiB array is not (every CPU of this century has more cache): the run fails its
# stream_array gate, --dry-run says so first, and the card can accept it on purpose.
SMALL=(--workload stream --kernel copy --cpu-list 0-1 --threads 2 --array-size 100000
       --expect-max-interference 100 --iterations 3 --output "$WORK/runs" --quiet)
expect_status 1 "$BIN/streamcard" run "${SMALL[@]}" --run-name small
expect_contains "$WORK/err" "stream_array    FAIL"
# Only environment gates failed, which their notes explain: nothing of the workload's log.
grep -q "^streamcard: cause: gate stream_array failed: each array 0.8 MiB is below" "$WORK/err" ||
    grep -q "^streamcard: cause: gate stream_array failed: not supported by evidence" "$WORK/err" ||
    fail "the cause is not the stream_array gate: $(grep cause: "$WORK/err")"
if grep -q "workload log line" "$WORK/err"; then fail "a log line as the cause of an array rule: $(grep cause: "$WORK/err")"; fi
B=$(bundle_of "$WORK/out")
expect_contains "$B/run.conf" "stream_array_ok=0"
expect_failed_bundle "$B" stream_array_ok
if [ -s "$B/platform/caches.txt" ]; then
    expect_contains "$B/results.json" "each array 0.8 MiB is below 4 x the"
    expect_status 0 "$BIN/streamcard" run "${SMALL[@]}" --dry-run
    expect_contains "$WORK/err" "warning: array_size: 100000 elements (0.8 MiB per array) is below 4 x the"
    expect_contains "$WORK/err" "or cache_resident: accept for a cache study)"
fi
expect_status 0 "$BIN/streamcard" run "${SMALL[@]}" --cache-resident accept --run-name accepted
B=$(bundle_of "$WORK/out")
expect_contains "$B/results.json" "cache_resident: accept"
expect_contains "$B/card.yaml" "cache_resident: accept"
expect_contains "$B/stream.log" "Clock granularity = "
# In a sweep's table, each failed run's cell says its cause beside its bundle.
printf 'version: 1\nexperiment:\n  workload: stream\n  kernel: copy\n  cpu_list: 0-1\n  threads: 2\n  iterations: 3\n  array_size: [100000, 120000]\n  expect:\n    max_interference_pct: 100\n' >"$WORK/sweep.yaml"
expect_status 1 "$BIN/streamcard" run "$WORK/sweep.yaml" --output "$WORK/sweep" --quiet
table=$(sed -n 's/^SWEEP_TABLE=//p' "$WORK/out")
[ -f "$table" ] || fail "no sweep table: $(cat "$WORK/out")"
grep -q '^| 100000 | failed |.* | [^|]*/stream_copy[^|]* (gate stream_array failed: ' "$table" ||
    fail "the table does not say why the run failed: $(cat "$table")"
# A job that made no bundle: its cause is Slurm's word that it was cancelled, not the
# plugin's earlier notice that the bundle would not be attested; without that word, the
# first error of its output that is not the notice. sbatch is a stand-in here that leaves
# the output such a job leaves (a real refused job: tests/cluster/test_plugin_sweep.sh).
mkdir -p "$WORK/fakebin"
printf '%s\n' '#!/bin/sh' \
    'for a in "$@"; do case $a in --output=*) out=${a#--output=} ;; esac; done' \
    'cp "$FAKE_OUTPUT" "$(printf %s "$out" | sed s/%j/7/)"' 'echo 7' 'exit 1' >"$WORK/fakebin/sbatch"
chmod +x "$WORK/fakebin/sbatch"
NOTICE="error: streamcard: job 7: this node's platform statement is not signed, so its bundle's platform claims are not attested: streamcard: key /etc/streamcard/node.key: no such file"
printf '%s\nslurmstepd: error: *** JOB 7 ON n1 CANCELLED AT 2026-01-01T00:00:00 ***\n' "$NOTICE" >"$WORK/cancelled.out"
printf '%s\nerror: streamcard: card.yaml:4: cpu_list: CPUs 1 are outside the CPUs this job may use on n1\n' \
    "$NOTICE" >"$WORK/refused.out"
expect_status 1 env PATH="$WORK/fakebin:$PATH" FAKE_OUTPUT="$WORK/cancelled.out" \
    "$BIN/streamcard" run "${SMALL[@]}" --submit --output "$WORK/submit-cancelled"
expect_contains "$WORK/out" "job 7 ended with a failure; bundle (none: job 7: Slurm: *** JOB 7 ON n1 CANCELLED AT 2026-01-01T00:00:00 ***)"
expect_status 1 env PATH="$WORK/fakebin:$PATH" FAKE_OUTPUT="$WORK/refused.out" \
    "$BIN/streamcard" run "${SMALL[@]}" --submit --output "$WORK/submit-refused"
expect_contains "$WORK/out" "(none: job 7: job output line 2: error: streamcard: card.yaml:4: cpu_list: CPUs 1 are outside"
echo "ok: failures"
