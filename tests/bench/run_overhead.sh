#!/usr/bin/env bash
# run_overhead.sh: does watching disturb the workload, and what does it add? The kernel
# alone (pinned the same way: same CPUs, OMP_PLACES, OMP_PROC_BIND, membind for STREAM)
# against the same kernel under `streamcard run`, interleaved A B A B in one session.
#   --workload stream (default): the best rates, and the capture latency at main_loop_begin
#       that each run records in run.conf (marker read -> every snapshot written);
#   --workload ipsearch: the wall time streamcard adds to an ipsearch run (default card, no
#       pool_threads), from the shell's clock around each command, after one watched run
#       that fills the hash cache (shown apart: the cost of a first run with a new binary or
#       library): per pair watched - alone, and the difference of the fastest runs of each
#       side (on a loaded machine the workload's own time swings by more than the overhead:
#       keep it small, --nb 1000 --nq 1 by default, and use many rounds).
# --tmp DIR puts the bundles and the kernel's own results there (default /tmp): on a
# tmpfs, what creating a bundle's files costs on the disk's file system drops out.
# A benchmark, not a test: it asserts nothing and is not run by ctest.
#
# usage: tests/bench/run_overhead.sh [--bin DIR] [--threads N] [--array-size N]
#                                    [--iterations N] [--rounds R] [--kernel K]
#                                    [--workload stream|ipsearch] [--nb N] [--nq N] [--tmp DIR]
set -euo pipefail

BIN="$(cd "$(dirname "$0")/../.." && pwd)/build/bin"
THREADS=2 ARRAY_SIZE=40000000 ITERATIONS=30 ROUNDS=7 KERNEL=copy WORKLOAD=stream NB=1000 NQ=1
TMP=/tmp
while [ $# -gt 0 ]; do
    case $1 in
    --bin) BIN=$2; shift 2 ;;
    --threads) THREADS=$2; shift 2 ;;
    --array-size) ARRAY_SIZE=$2; shift 2 ;;
    --iterations) ITERATIONS=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --kernel) KERNEL=$2; shift 2 ;;
    --workload) WORKLOAD=$2; shift 2 ;;
    --nb) NB=$2; shift 2 ;;
    --nq) NQ=$2; shift 2 ;;
    --tmp) TMP=$2; shift 2 ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    *) echo "run_overhead: unknown option $1" >&2; exit 2 ;;
    esac
done
[ -x "$BIN/streamcard" ] && [ -x "$BIN/streamcard-stream" ] && [ -x "$BIN/streamcard-ipsearch" ] || {
    echo "run_overhead: build first (cmake --build build); looked in $BIN" >&2; exit 2; }
case $WORKLOAD in stream | ipsearch) ;; *) echo "run_overhead: --workload stream|ipsearch" >&2; exit 2 ;; esac

CPUS="0-$((THREADS - 1))"
PLACES=$(seq -s, 0 $((THREADS - 1)) | sed 's/\([0-9]*\)/{\1}/g')
WORK=$(mktemp -d "$TMP/streamcard-bench.XXXXXX")
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

# ms [--gated] CMD...: "wall_ms cpu_ms [gate-failed]" of CMD (output discarded): its wall
# time, and the CPU time (user + system) of it and every process it waited for. With
# --gated (CMD is `streamcard run`), exit status 1 is a failed gate (on a busy machine,
# mostly the interference gate): the run went through every step, so its time counts and
# the round says so; any other failure stops.
ms() {
    python3 - "$@" <<'PY' || { echo "run_overhead: failed: $*" >&2; exit 1; }
import resource, subprocess, sys, time
gated = sys.argv[1] == "--gated"
cmd = sys.argv[2:] if gated else sys.argv[1:]
r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
t0 = time.perf_counter()
rc = subprocess.call(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
t1 = time.perf_counter()
r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
print("%.2f %.2f %s" % ((t1 - t0) * 1e3, cpu * 1e3, "gate-failed" if gated and rc == 1 else ""))
sys.exit(0 if rc == 0 or (gated and rc == 1) else rc)
PY
}

if [ "$WORKLOAD" = ipsearch ]; then
    IARGS=(--nb "$NB" --nq "$NQ" --dim 128 --k 10 --iterations 3)
    ips_alone() {
        ms env OMP_NUM_THREADS="$THREADS" OMP_PLACES="$PLACES" OMP_PROC_BIND=close \
            taskset -c "$CPUS" "$BIN/streamcard-ipsearch" "${IARGS[@]}" --json "$WORK/alone.json"
    }
    ips_watched() {
        ms --gated "$BIN/streamcard" run --workload ipsearch --cpu-list "$CPUS" --threads "$THREADS" \
            "${IARGS[@]}" --output "$WORK/runs" --quiet
        rm -rf "$WORK/runs"
    }
    echo "run_overhead: ipsearch nb=$NB nq=$NQ dim=128 k=10, $THREADS threads on CPUs $CPUS," \
        "$ROUNDS rounds (alone, watched interleaved) in $TMP; load $(cut -d' ' -f1-3 /proc/loadavg);" \
        "caches: ${XDG_CACHE_HOME:-$HOME/.cache}/streamcard"
    read -r w wc _ <<<"$(ips_watched)"
    echo "  first watched run (hash cache as found): $w ms wall, $wc ms CPU"
    for f in over alone watched cover calone cwatched; do : >"$WORK/$f"; done
    for r in $(seq 1 "$ROUNDS"); do
        read -r a ac _ <<<"$(ips_alone)"
        read -r w wc gate <<<"$(ips_watched)"
        o=$(echo "$w - $a" | bc) co=$(echo "$wc - $ac" | bc)
        echo "$o" >>"$WORK/over"; echo "$a" >>"$WORK/alone"; echo "$w" >>"$WORK/watched"
        echo "$co" >>"$WORK/cover"; echo "$ac" >>"$WORK/calone"; echo "$wc" >>"$WORK/cwatched"
        printf '  round %d: alone %8.2f ms (CPU %7.2f)   watched %8.2f ms (CPU %7.2f)   streamcard adds %7.2f ms (CPU %6.2f)%s\n' \
            "$r" "$a" "$ac" "$w" "$wc" "$o" "$co" "${gate:+  (a gate failed: busy machine)}"
    done
    first() { sort -g "$WORK/$1" | head -n 1; }
    echo "streamcard run adds, wall: median of the pairs $(median <"$WORK/over") ms" \
        "(min $(first over), max $(sort -g "$WORK/over" | tail -n 1));" \
        "fastest watched - fastest alone $(echo "$(first watched) - $(first alone)" | bc) ms" \
        "($ROUNDS pairs; target: at most 10 ms)"
    echo "streamcard run adds, CPU (every process, user + system; what the wall figure is on" \
        "an idle machine, less what runs in parallel): median of the pairs $(median <"$WORK/cover") ms," \
        "least watched - least alone $(echo "$(first cwatched) - $(first calone)" | bc) ms"
    exit 0
fi

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
