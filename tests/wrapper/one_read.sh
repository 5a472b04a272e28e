#!/usr/bin/env bash
# A run's own results read once (doc/contracts/results.md, "The workload's JSON"): streamcard
# run opens each run's run-N.json for reading once, and parses it into one result carried
# through the run (its gates, the runs policy, results.json, run.conf), whether the bundle
# holds one run or several. Counted with strace -f -y; skipped when strace is not installed
# or cannot trace here. Nothing is timed.
BIN=$(cd "$1" && pwd) SRC=$2
. "$SRC/tests/lib.sh"
SC="$BIN/streamcard"
export STREAMCARD_KERNEL_DIR=${STREAMCARD_KERNEL_DIR:-$BIN}
need_strace

# reads NAME RUNS: a traced bundle of RUNS runs must have read each run-N.json once, and no
# other run-N.json (the workload's own writes are not reads).
reads() {
    local name=$1 runs=$2 n counts
    small_card "$WORK/$name.yaml" "" "  runs: $runs"
    # LeakSanitizer cannot run under ptrace (a sanitized build): the opens are this test's.
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
        strace -f -y -e trace=openat -o "$WORK/$name.trace" \
        "$SC" run "$WORK/$name.yaml" --run-name "$name" --output "$WORK/runs" --quiet \
        >"$WORK/out" 2>"$WORK/err" || fail "$name: exit status $?: $(cat "$WORK/err")"
    counts=$(grep -E 'openat\(.*/run-[0-9]+\.json", O_RDONLY' "$WORK/$name.trace" |
        grep -v ' = -1 ' | sed -E 's/.*\/(run-[0-9]+\.json)".*/\1/' | sort | uniq -c)
    for ((n = 1; n <= runs; n++)); do
        grep -qx " *1 run-$n\.json" <<<"$counts" ||
            fail "$name: run-$n.json not read once (count, file): $counts"
    done
    [ "$(echo "$counts" | grep -c .)" -eq "$runs" ] ||
        fail "$name: reads of other files than run-1..$runs.json: $counts"
    echo "$name: each of $runs run-N.json read once"
}

reads one 1
reads four 4
echo "PASS: a run's results read once"
