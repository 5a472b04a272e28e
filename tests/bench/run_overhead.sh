#!/usr/bin/env bash
# run_overhead.sh: does watching disturb the workload? The STREAM kernel alone (pinned the
# same way: same CPUs, OMP_PLACES, OMP_PROC_BIND, membind) against the same kernel under
# `streamcard run`, interleaved A B A B in one session; plus the capture latency at
# main_loop_begin that each run records in run.conf (marker read -> every snapshot
# written). A benchmark, not a test: it asserts nothing and is not run by ctest.
#
# usage: tests/bench/run_overhead.sh [--bin DIR] [--threads N] [--array-size N]
#                                    [--iterations N] [--rounds R] [--kernel K]
set -euo pipefail

BIN="$(cd "$(dirname "$0")/../.." && pwd)/build/bin"
THREADS=2 ARRAY_SIZE=40000000 ITERATIONS=30 ROUNDS=7 KERNEL=copy
while [ $# -gt 0 ]; do
    case $1 in
    --bin) BIN=$2; shift 2 ;;
    --threads) THREADS=$2; shift 2 ;;
    --array-size) ARRAY_SIZE=$2; shift 2 ;;
    --iterations) ITERATIONS=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --kernel) KERNEL=$2; shift 2 ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "run_overhead: unknown option $1" >&2; exit 2 ;;
    esac
done
[ -x "$BIN/streamcard" ] && [ -x "$BIN/streamcard-stream" ] || {
    echo "run_overhead: build first (cmake --build build); looked in $BIN" >&2; exit 2; }

CPUS="0-$((THREADS - 1))"
PLACES=$(seq -s, 0 $((THREADS - 1)) | sed 's/\([0-9]*\)/{\1}/g')
WORK=$(mktemp -d /tmp/streamcard-bench.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
ARGS=(--kernel "$KERNEL" --array-size "$ARRAY_SIZE" --iterations "$ITERATIONS" --nt-stores auto)
label=$(tr '[:lower:]' '[:upper:]' <<<"${KERNEL:0:1}")${KERNEL:1}

alone() {
    env OMP_NUM_THREADS="$THREADS" OMP_PLACES="$PLACES" OMP_PROC_BIND=close \
        numactl --membind=0 taskset -c "$CPUS" "$BIN/streamcard-stream" "${ARGS[@]}" |
        awk -v l="$label:" '$1 == l { print $2 }'
}

watched() {
    "$BIN/streamcard" run --workload stream --kernel "$KERNEL" --cpu-list "$CPUS" \
        --threads "$THREADS" --memory-node 0 --array-size "$ARRAY_SIZE" \
        --iterations "$ITERATIONS" --output "$WORK" --quiet >"$WORK/out" 2>/dev/null
    b=$(sed -n 's/^BUNDLE=//p' "$WORK/out")
    rate=$(sed -n 's/^best_rate_MBps=//p' "$b/run.conf")
    lat=$(sed -n 's/^ready_capture_ms=//p' "$b/run.conf")
    rm -rf "$b"
    echo "$rate $lat"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "run_overhead: $KERNEL, $THREADS threads on CPUs $CPUS, array_size $ARRAY_SIZE," \
     "$ITERATIONS iterations, $ROUNDS rounds (alone, watched interleaved)"
: >"$WORK/alone" ; : >"$WORK/watched" ; : >"$WORK/latency"
for r in $(seq 1 "$ROUNDS"); do
    a=$(alone)
    read -r w l <<<"$(watched)"
    echo "$a" >>"$WORK/alone"; echo "$w" >>"$WORK/watched"; echo "$l" >>"$WORK/latency"
    printf '  round %d: alone %10.1f MB/s   watched %10.1f MB/s   capture %6.2f ms\n' "$r" "$a" "$w" "$l"
done
ma=$(median <"$WORK/alone"); mw=$(median <"$WORK/watched")
ba=$(sort -g "$WORK/alone" | tail -n 1); bw=$(sort -g "$WORK/watched" | tail -n 1)
ml=$(median <"$WORK/latency"); xl=$(sort -g "$WORK/latency" | tail -n 1)
echo "median best rate: alone $ma MB/s, watched $mw MB/s, ratio watched/alone $(echo "scale=4; $mw / $ma" | bc)"
echo "best of rounds:   alone $ba MB/s, watched $bw MB/s, ratio watched/alone $(echo "scale=4; $bw / $ba" | bc)"
echo "capture latency at main_loop_begin: median $ml ms, max $xl ms (target: within 20 ms)"
