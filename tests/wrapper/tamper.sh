#!/usr/bin/env bash
# streamcard verify trusts nothing recorded: edited, missing or added files fail it, and
# so does a run.conf re-sealed to claim more than the raw files show.
BIN=$1 SRC=$2
. "$SRC/tests/lib.sh"

# run NAME [env...]: a fresh small run, its bundle path on stdout. The interference gate is
# opened (tests/wrapper/interference.sh tests it): this test runs beside others.
run() {
    local name=$1; shift
    env "$@" "$BIN/streamcard" run --workload stream --kernel copy --cpu-list 0-1 --threads 2 \
        --expect-max-interference 100 --array-size 100000 --cache-resident accept --iterations 3 --run-name "$name" --output "$WORK/runs" --quiet \
        >"$WORK/run.out" 2>"$WORK/run.err" || true
    bundle_of "$WORK/run.out"
}

B=$(run edited)
echo "Copy: 999999.0 0.1 0.1 0.1" >>"$B/stream.log"
expect_status 1 "$BIN/streamcard" verify "$B"
expect_contains "$WORK/err" "stream.log: edited"

B=$(run missing)
rm "$B/threads_at_ready.txt"
expect_status 1 "$BIN/streamcard" verify "$B"
expect_contains "$WORK/err" "threads_at_ready.txt: missing"

B=$(run added)
echo extra >"$B/notes.txt"
expect_status 1 "$BIN/streamcard" verify "$B"
expect_contains "$WORK/err" "notes.txt: added after sealing"

# An edit beside a nest of empty directories too deep to list: the nest fails verify, or
# the edit would go unchecked.
B=$(run nested)
echo "edited after sealing" >>"$B/numastat_at_ready.txt"
mkdir -p "$B/a/b/c/d/e/f/g/h/i/j/k"
expect_status 1 "$BIN/streamcard" verify "$B"
expect_contains "$WORK/err" "the bundle's directories nest too deep to be checked"

# A failed run whose run.conf and results.json are forged to say ok, then re-sealed:
# the hashes match, but the raw log still shows the failed validation.
B=$(run forged STREAMCARD_FAULT=corrupt)
expect_contains "$B/run.conf" "validation_ok=0"
sed -i 's/^validation_ok=0$/validation_ok=1/; s/^verdict=failed$/verdict=ok/' "$B/run.conf"
reseal "$B"
expect_status 1 "$BIN/streamcard" verify "$B"
expect_contains "$WORK/err" "run.conf claims validation_ok=1 but the raw files show 0"
expect_contains "$WORK/err" "run.conf claims verdict=ok but the raw files show failed"

# A forged figure: results.json raised above what the log's table shows.
B=$(run figure)
python3 - "$B/results.json" <<'PY'
import json, sys
p = sys.argv[1]; r = json.load(open(p)); r["metrics"]["best_rate_MBps"] *= 2
json.dump(r, open(p, "w"))
PY
reseal "$B"
expect_status 1 "$BIN/streamcard" verify "$B"
expect_contains "$WORK/err" "results.json: best rate"

# A forged capture latency: run.conf's ready_wait_ms is not the log's TRACE_READY_WAIT.
B=$(run latency)
sed -i 's/^ready_wait_ms=.*/ready_wait_ms=0.001/' "$B/run.conf"
reseal "$B"
expect_status 1 "$BIN/streamcard" verify "$B"
expect_contains "$WORK/err" "run.conf: ready_wait_ms=0.001, but stream.log shows another TRACE_READY_WAIT"

# A forged repetition: the per-repetition times no longer give the table's slowest time.
B=$(run reps)
python3 - "$B/results.json" <<'PY'
import json, sys
p = sys.argv[1]; r = json.load(open(p)); r["metrics"]["rep_seconds"]["copy"][-1] *= 10
json.dump(r, open(p, "w"))
PY
reseal "$B"
expect_status 1 "$BIN/streamcard" verify "$B"
expect_contains "$WORK/err" "results.json: rep_seconds.copy gives min"

# A changed card: the hash in run.conf no longer matches.
B=$(run card)
sed -i 's/threads: 2/threads: 1/' "$B/card.yaml"
reseal "$B"
expect_status 1 "$BIN/streamcard" verify "$B"
expect_contains "$WORK/err" "card_sha256"
echo "ok: tamper"
