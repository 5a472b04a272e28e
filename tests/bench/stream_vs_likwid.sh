#!/usr/bin/env bash
# stream_vs_likwid.sh: streamcard-stream against two anchors, likwid-bench and a STREAM probe
# with non-temporal stores written apart from the workload (tests/kernels/stream_nt_probe.c),
# on the same cpus and the same bytes, in interleaved rounds. A benchmark, not a test: it
# asserts nothing and is not run by ctest.
#
#   copy:  streamcard-stream --kernel copy   vs  likwid-bench -t copy_mem_avx   (2 streams)
#                                            vs  stream_nt_probe copy
#   triad: streamcard-stream --kernel triad  vs  likwid-bench -t stream_mem_avx (3 streams)
#                                            vs  stream_nt_probe triad
#
# Working set: streamcard and the probe use three arrays of N doubles (copy touches two of
# them, triad all three). likwid-bench's -w size is the total of all the benchmark's
# streams (kB = 1000 bytes) and it splits each stream evenly over its threads, truncating to
# its loop stride; so its size is streams * N * 8 bytes and N is rounded to a multiple of
# 125 (whole kB) and of 16 * threads (the stride of copy_mem_avx per thread). The script
# checks likwid's own "Vector length" and "Size (Byte)" lines and stops if the bytes do not
# match exactly.
#
# Bytes: the three tools count each element's loads and stores once: copy 16 B/element
# (8 load + 8 store), triad 24 B/element (16 load + 8 store); none counts write-allocate
# traffic, and with streaming stores (all three) there is none. MB = 1e6 bytes everywhere.
# Rates: likwid-bench's MByte/s is its data volume over its whole run (an average over its
# iterations); streamcard's and the probe's best rate use the fastest repetition (STREAM's
# rule) and their avg rate the mean time, so against likwid the avg is the like-for-like
# ratio (the best one is printed too).
#
# Pinning: streamcard and the probe run with OMP_NUM_THREADS=T, OMP_PLACES={0}:T,
# OMP_PROC_BIND=close under taskset; likwid-bench on the first T hwthreads of socket 0
# (-w S0:...:T). The script checks each tool's own report that thread t ran on cpu t.
# First touch: streamcard and the probe let each thread write its own share first; likwid-bench
# 5.2 lets the domain's first thread initialise the whole stream: the same pages on a machine
# with one NUMA node (the VM measured), not on a multi-node socket.
#
# A round runs streamcard, likwid-bench and the probe for copy, then for triad, the order of
# the tools reversed every other round, so each pair is measured in both orders. Per round
# (pair) the ratios streamcard/likwid, streamcard/probe and probe/likwid (the anchors against
# each other); the summary gives their median [min-max] over the rounds, the machine (CPU
# model, ISA) and the load before and after.
#
# likwid-bench is Debian's package likwid (5.2.2 in Debian 12); it needs no MSR access for
# these kernels. Without it, say --anchors probe.
#
# usage: tests/bench/stream_vs_likwid.sh [--bin PATH] [--probe PATH] [--threads N]
#            [--array-size N] [--rounds R] [--iterations N] [--anchors likwid,probe]
set -euo pipefail
BENCH_NAME=stream_vs_likwid
. "$(dirname "$0")/lib.sh"

BIN=$BENCH_SRC/build/bin/streamcard-stream
PROBE=$BENCH_SRC/build/bin/stream_nt_probe
THREADS=2
ARRAY_SIZE=62500000 # 3 x 500 MB = 1.5 GB, far beyond the caches
ROUNDS=5
ITERATIONS=50 # about as long as likwid-bench's default minimum of 1 s per run
ANCHORS=likwid,probe

while [ $# -gt 0 ]; do
    case $1 in
    --bin) BIN=$2; shift 2 ;;
    --probe) PROBE=$2; shift 2 ;;
    --threads) THREADS=$2; shift 2 ;;
    --array-size) ARRAY_SIZE=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --iterations) ITERATIONS=$2; shift 2 ;;
    --anchors) ANCHORS=$2; shift 2 ;;
    -h | --help) bench_help "$0"; exit 0 ;;
    *) bench_die "$1: unknown option (--bin --probe --threads --array-size --rounds" \
        "--iterations --anchors)" ;;
    esac
done

[ -x "$BIN" ] || bench_die "$BIN: not executable (build first, or pass --bin)"
TOOLS=(streamcard)
for a in ${ANCHORS//,/ }; do
    case $a in
    likwid) bench_need likwid-bench "Debian 12: apt-get install likwid; or --anchors probe" ;;
    probe) [ -x "$PROBE" ] || bench_die "$PROBE: not executable (built with the tests; or pass --probe)" ;;
    *) bench_die "--anchors $ANCHORS: $a is no anchor (valid: likwid, probe, or likwid,probe)" ;;
    esac
    TOOLS+=("$a")
done
[ ${#TOOLS[@]} -gt 1 ] || bench_die "--anchors '$ANCHORS': none given (valid: likwid, probe, or likwid,probe)"
bench_posint "$THREADS" "$ARRAY_SIZE" "$ROUNDS" "$ITERATIONS"
[ "$ITERATIONS" -ge 2 ] || bench_die "--iterations $ITERATIONS: the first is a warm-up (valid: 2 or more)"
[ "$THREADS" -le "$(nproc)" ] || bench_die "--threads $THREADS: more than the $(nproc) cpus available"
bench_need bc "Debian: apt-get install bc"

# N: a whole number of kB for every stream count, and whole strides per likwid thread.
gcd() { local a=$1 b=$2; while [ "$b" -ne 0 ]; do set -- "$b" $((a % b)); a=$1; b=$2; done; echo "$a"; }
STEP=$((16 * THREADS))
STEP=$((STEP * 125 / $(gcd $STEP 125)))
N=$((ARRAY_SIZE / STEP * STEP))
[ "$N" -gt 0 ] || bench_die "--array-size $ARRAY_SIZE: below one step of $STEP elements"
LAST=$((THREADS - 1))
CPUS="0-$LAST"
WANT_CPUS=$(for t in $(seq 0 $LAST); do printf '%d:%d ' "$t" "$t"; done)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# pinned CMD...: CMD with the threads streamcard run gives a card's cpus 0..THREADS-1.
pinned() {
    OMP_NUM_THREADS=$THREADS OMP_PROC_BIND=close OMP_PLACES="{0}:$THREADS" \
        taskset -c "$CPUS" "$@"
}

# streamcard KERNEL LABEL BYTES_PER_ELEMENT: one pinned run; prints "best_MBps avg_MBps".
streamcard() {
    local kernel=$1 label=$2 bytes_per_element=$3 cpus
    pinned "$BIN" --kernel "$kernel" --array-size "$N" --iterations "$ITERATIONS" \
        --nt-stores auto >"$TMP/sc.out" 2>&1 ||
        bench_die "streamcard-stream --kernel $kernel failed: $(tail -3 "$TMP/sc.out")"
    cpus=$(sed -n 's/^TRACE_THREAD_BINDING thread=\([0-9]*\) cpu=\([0-9]*\)$/\1:\2/p' \
        "$TMP/sc.out" | sort -n | tr '\n' ' ')
    [ "$cpus" = "$WANT_CPUS" ] || bench_die "streamcard threads not on cpus $CPUS: $cpus"
    awk -v label="$label:" -v bytes="$(echo "$bytes_per_element * $N" | bc)" \
        '$1 == label { printf "%.1f %.1f\n", $2, 1e-6 * bytes / $3 }' "$TMP/sc.out"
}

# probe KERNEL: one pinned run of the probe; prints "best_MBps avg_MBps".
probe() {
    local cpus
    pinned "$PROBE" "$1" "$N" "$ITERATIONS" >"$TMP/probe.out" 2>&1 ||
        bench_die "stream_nt_probe $1 failed: $(tail -3 "$TMP/probe.out")"
    cpus=$(sed -n 's/^cpu \([0-9]*\) \([0-9]*\)$/\1:\2/p' "$TMP/probe.out" | sort -n | tr '\n' ' ')
    [ "$cpus" = "$WANT_CPUS" ] || bench_die "probe threads not on cpus $CPUS: $cpus"
    awk '$1 == "best_MBps" { b = $2 } $1 == "avg_MBps" { a = $2 } END { print b, a }' \
        "$TMP/probe.out"
}

# likwid TEST STREAMS: one run on the first THREADS hwthreads of S0; prints its MByte/s
# (twice: it has one rate, an average).
likwid() {
    local test=$1 streams=$2 kb len size hw
    kb=$((streams * N * 8 / 1000))
    likwid-bench -t "$test" -w "S0:${kb}kB:$THREADS" >"$TMP/lw.out" 2>&1 ||
        bench_die "likwid-bench -t $test failed: $(tail -3 "$TMP/lw.out")"
    len=$(sed -n 's/^Allocate:.*Vector length \([0-9]*\)\/.*/\1/p' "$TMP/lw.out" | sort -u)
    size=$(awk -F'\t+' '/^Size \(Byte\):/ { print $2 }' "$TMP/lw.out")
    if [ "$len" != "$N" ] || [ "$size" != "$((streams * N * 8))" ]; then
        bench_die "likwid-bench $test: vector length '$len' / size '$size', expected $N / $((streams * N * 8))"
    fi
    hw=$(sed -n 's/^Group: 0 Thread \([0-9]*\) .*running on hwthread \([0-9]*\) .*/\1:\2/p' \
        "$TMP/lw.out" | sort -n | tr '\n' ' ')
    [ "$hw" = "$WANT_CPUS" ] || bench_die "likwid-bench threads not on cpus $CPUS: $hw"
    awk -F'\t+' '/^MByte\/s:/ { print $2, $2 }' "$TMP/lw.out"
}

# run_tool TOOL KERNEL: "best avg" of one run.
run_tool() {
    case $1.$2 in
    streamcard.copy) streamcard copy Copy 16 ;;
    streamcard.triad) streamcard triad Triad 24 ;;
    probe.*) probe "$2" ;;
    likwid.copy) likwid copy_mem_avx 2 ;;
    likwid.triad) likwid stream_mem_avx 3 ;;
    esac
}

echo "stream_vs_likwid: $THREADS threads on cpus $CPUS, N = $N doubles per array" \
    "($((N * 8 / 1000000)) MB; 3 arrays = $((3 * N * 8 / 1000000)) MB), $ROUNDS interleaved rounds" \
    "of ${TOOLS[*]} (reversed every other round), --iterations $ITERATIONS"
echo "bytes: copy 16 B/element, triad 24 B/element, counted alike by every tool; MB = 1e6 B"
[[ " ${TOOLS[*]} " != *" likwid "* ]] ||
    echo "likwid-bench $(likwid-bench -v 2>&1 | sed -n 's/.*likwid-bench -- Version \([0-9.]*\).*/\1/p' | head -1):" \
        "copy_mem_avx S0:$((2 * N * 8 / 1000))kB, stream_mem_avx S0:$((3 * N * 8 / 1000))kB;" \
        "vector length $N checked"
bench_machine
LOAD_BEFORE=$(bench_load)
echo

# RES[tool.kernel.round] = "best avg"
declare -A RES
for r in $(seq 1 "$ROUNDS"); do
    for k in copy triad; do
        line="round $r $k:"
        for t in $(bench_in_order "$r" "${TOOLS[@]}"); do
            RES[$t.$k.$r]=$(run_tool "$t" "$k")
            line+=" $t $(echo "${RES[$t.$k.$r]}" | awk '{ printf "%.1f/%.1f", $1, $2 }')"
        done
        echo "$line (best/avg MB/s)"
    done
done
echo "streamcard stores: $(sed -n 's/^Stores: //p' "$TMP/sc.out")"
[[ " ${TOOLS[*]} " != *" probe "* ]] || echo "probe stores: $(sed -n 's/^stores //p' "$TMP/probe.out")"
echo "load average before: $LOAD_BEFORE, after: $(bench_load)"
echo

# ratios NUM.STAT DEN.STAT KERNEL: the per-round ratios (stat 1 best, 2 avg).
ratios() {
    local r num den
    for r in $(seq 1 "$ROUNDS"); do
        num=$(echo "${RES[${1%.*}.$3.$r]}" | cut -d' ' -f"${1##*.}")
        den=$(echo "${RES[${2%.*}.$3.$r]}" | cut -d' ' -f"${2##*.}")
        awk -v x="$num" -v y="$den" 'BEGIN { printf "%.4f\n", x / y }'
    done
}
# name TOOL.STAT: "tool best" or "tool avg".
name() {
    case $1 in *.1) echo "${1%.*} best" ;; *) echo "${1%.*} avg" ;; esac
}
echo "medians over the rounds (MB/s): best, avg"
for k in copy triad; do
    for t in "${TOOLS[@]}"; do
        # shellcheck disable=SC2046 # one value a round
        read -r b _ _ < <(bench_stats $(for r in $(seq 1 "$ROUNDS"); do echo "${RES[$t.$k.$r]% *}"; done))
        # shellcheck disable=SC2046
        read -r a _ _ < <(bench_stats $(for r in $(seq 1 "$ROUNDS"); do echo "${RES[$t.$k.$r]#* }"; done))
        printf '  %-6s %-11s %12s %12s\n' "$k" "$t" "$b" "$a"
    done
done
echo
echo "ratios of the interleaved pairs, median [min-max] (> 1: the first is faster)"
for k in copy triad; do
    for pair in "streamcard.2 likwid.2" "streamcard.1 likwid.2" "streamcard.1 probe.1" \
        "streamcard.2 probe.2" "probe.2 likwid.2"; do
        read -r a b <<<"$pair"
        [[ " ${TOOLS[*]} " == *" ${a%.*} "* && " ${TOOLS[*]} " == *" ${b%.*} "* ]] || continue
        # shellcheck disable=SC2046 # one ratio a round
        bench_ratio_line "$k $(name "$a") / $(name "$b")" $(ratios "$a" "$b" "$k")
    done
done
