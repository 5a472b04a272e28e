#!/usr/bin/env bash
# stream_vs_likwid.sh: streamcard-stream against likwid-bench, on the same cpus and the same
# bytes, interleaved in one session. A benchmark, not a test: it asserts nothing and is not
# run by ctest.
#
#   copy:  streamcard-stream --kernel copy   vs  likwid-bench -t copy_mem_avx   (2 streams)
#   triad: streamcard-stream --kernel triad  vs  likwid-bench -t stream_mem_avx (3 streams)
#
# Working set: streamcard uses three arrays of N doubles (copy touches two of them, triad
# all three). likwid-bench's -w size is the total of all the benchmark's streams (kB = 1000
# bytes) and it splits each stream evenly over its threads, truncating to its loop stride;
# so its size is streams * N * 8 bytes and N is rounded to a multiple of 125 (whole kB) and
# of 16 * threads (the stride of copy_mem_avx per thread). The script checks likwid's own
# "Vector length" and "Size (Byte)" lines and stops if the bytes do not match exactly.
#
# Bytes: both tools count each element's loads and stores once: copy 16 B/element (8 load +
# 8 store), triad 24 B/element (16 load + 8 store); neither counts write-allocate traffic,
# and with streaming stores (both sides) there is none. MB = 1e6 bytes on both sides.
# Rates: likwid-bench's MByte/s is its data volume over its whole run (an average over its
# iterations); streamcard's Best Rate uses the fastest repetition (STREAM's rule), so the
# script also shows streamcard's average-time rate for an average-vs-average comparison.
# Summary: the best of the rounds for each (as asked) and the median of the rounds, which a
# single burst of bandwidth on a shared host cannot move.
#
# usage: tests/bench/stream_vs_likwid.sh [--bin PATH] [--threads N] [--array-size N]
#                                        [--rounds R] [--iterations N]
set -euo pipefail

BIN=""
THREADS=2
ARRAY_SIZE=62500000 # 3 x 500 MB = 1.5 GB, far beyond the caches
ROUNDS=5
ITERATIONS=50 # about as long as likwid-bench's default minimum of 1 s per run

die() {
    echo "stream_vs_likwid: $*" >&2
    exit 2
}

while [ $# -gt 0 ]; do
    case $1 in
    --bin) BIN=$2; shift 2 ;;
    --threads) THREADS=$2; shift 2 ;;
    --array-size) ARRAY_SIZE=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --iterations) ITERATIONS=$2; shift 2 ;;
    -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) die "$1: unknown option (--bin --threads --array-size --rounds --iterations)" ;;
    esac
done

if [ -z "$BIN" ]; then
    BIN="$(cd "$(dirname "$0")/../.." && pwd)/build/bin/streamcard-stream"
fi
[ -x "$BIN" ] || die "$BIN: not executable (build first, or pass --bin)"
command -v likwid-bench >/dev/null || die "likwid-bench: not found (install likwid)"
for v in "$THREADS" "$ARRAY_SIZE" "$ROUNDS" "$ITERATIONS"; do
    [[ $v =~ ^[1-9][0-9]*$ ]] || die "$v: not a positive integer"
done
[ "$THREADS" -le "$(nproc)" ] || die "--threads $THREADS: more than the $(nproc) cpus available"

# N: a whole number of kB for every stream count, and whole strides per likwid thread.
gcd() { local a=$1 b=$2; while [ "$b" -ne 0 ]; do set -- "$b" $((a % b)); a=$1; b=$2; done; echo "$a"; }
STEP=$((16 * THREADS))
STEP=$((STEP * 125 / $(gcd $STEP 125)))
N=$((ARRAY_SIZE / STEP * STEP))
[ "$N" -gt 0 ] || die "--array-size $ARRAY_SIZE: below one step of $STEP elements"
LAST=$((THREADS - 1))
CPUS="0-$LAST"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# streamcard KERNEL LABEL: one pinned run; prints "best_MBps avg_MBps".
streamcard() {
    local kernel=$1 label=$2 bytes_per_element=$3
    OMP_NUM_THREADS=$THREADS OMP_PROC_BIND=close OMP_PLACES="{0}:$THREADS" \
        taskset -c "$CPUS" "$BIN" --kernel "$kernel" --array-size "$N" \
        --iterations "$ITERATIONS" --nt-stores auto >"$TMP/sc.out" 2>&1 ||
        die "streamcard-stream --kernel $kernel failed: $(tail -3 "$TMP/sc.out")"
    # Threads must sit on cpus 0..THREADS-1, one each.
    local cpus
    cpus=$(sed -n 's/^TRACE_THREAD_BINDING thread=\([0-9]*\) cpu=\([0-9]*\)$/\1:\2/p' \
        "$TMP/sc.out" | sort -n | tr '\n' ' ')
    [ "$cpus" = "$(for t in $(seq 0 $LAST); do printf '%d:%d ' "$t" "$t"; done)" ] ||
        die "streamcard threads not on cpus $CPUS: $cpus"
    awk -v label="$label:" -v bytes="$(echo "$bytes_per_element * $N" | bc)" \
        '$1 == label { printf "%.1f %.1f\n", $2, 1e-6 * bytes / $3 }' "$TMP/sc.out"
}

# likwid TEST STREAMS: one run on the first THREADS hwthreads of S0; prints MByte/s.
likwid() {
    local test=$1 streams=$2
    local kb=$((streams * N * 8 / 1000))
    likwid-bench -t "$test" -w "S0:${kb}kB:$THREADS" >"$TMP/lw.out" 2>&1 ||
        die "likwid-bench -t $test failed: $(tail -3 "$TMP/lw.out")"
    local len size hw
    len=$(sed -n 's/^Allocate:.*Vector length \([0-9]*\)\/.*/\1/p' "$TMP/lw.out" | sort -u)
    size=$(awk -F'\t+' '/^Size \(Byte\):/ { print $2 }' "$TMP/lw.out")
    if [ "$len" != "$N" ] || [ "$size" != "$((streams * N * 8))" ]; then
        die "likwid-bench $test: vector length '$len' / size '$size', expected $N / $((streams * N * 8))"
    fi
    hw=$(sed -n 's/^Group: 0 Thread \([0-9]*\) .*running on hwthread \([0-9]*\) .*/\1:\2/p' \
        "$TMP/lw.out" | sort -n | tr '\n' ' ')
    [ "$hw" = "$(for t in $(seq 0 $LAST); do printf '%d:%d ' "$t" "$t"; done)" ] ||
        die "likwid-bench threads not on cpus $CPUS: $hw"
    awk -F'\t+' '/^MByte\/s:/ { print $2 }' "$TMP/lw.out"
}

# stat best|median VALUES...: the largest, or the median, of the values.
stat() {
    local how=$1
    shift
    printf '%s\n' "$@" | sort -g | awk -v how="$how" '{ v[NR] = $1 }
        END { if (how == "best") print v[NR];
              else print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

echo "stream_vs_likwid: $THREADS threads on cpus $CPUS, N = $N doubles per array" \
    "($((N * 8 / 1000000)) MB; streamcard allocates 3 arrays = $((3 * N * 8 / 1000000)) MB)," \
    "$ROUNDS rounds interleaved, streamcard --iterations $ITERATIONS"
echo "bytes: copy 16 B/element (8 load + 8 store), triad 24 B/element (16 load + 8 store)," \
    "counted alike by both tools; no write-allocate counted (streaming stores: none happens); MB = 1e6 B"
echo "likwid-bench -w sizes: copy_mem_avx S0:$((2 * N * 8 / 1000))kB (2 streams)," \
    "stream_mem_avx S0:$((3 * N * 8 / 1000))kB (3 streams); vector length per stream = $N checked"
echo "rates: streamcard best = fastest repetition (STREAM), avg = bytes / average time;" \
    "likwid = data volume / run time"
echo

declare -A SC_BEST SC_AVG LW # space-separated values per kernel, one per round
for r in $(seq 1 "$ROUNDS"); do
    for k in copy triad; do
        if [ $k = copy ]; then
            read -r b a < <(streamcard copy Copy 16)
            l=$(likwid copy_mem_avx 2)
            name=copy_mem_avx
        else
            read -r b a < <(streamcard triad Triad 24)
            l=$(likwid stream_mem_avx 3)
            name=stream_mem_avx
        fi
        printf 'round %d  %-5s: streamcard best %9.1f avg %9.1f MB/s | likwid %-14s %9.1f MB/s\n' \
            "$r" "$k" "$b" "$a" "$name" "$l"
        SC_BEST[$k]+="$b "
        SC_AVG[$k]+="$a "
        LW[$k]+="$l "
    done
done

echo
echo "streamcard stores: $(sed -n 's/^Stores: //p' "$TMP/sc.out")"
for how in best median; do
    echo "$how of $ROUNDS rounds (MB/s):"
    printf '  %-6s %16s %16s %12s %18s %17s\n' kernel streamcard_best streamcard_avg likwid \
        ratio_best/likwid ratio_avg/likwid
    for k in copy triad; do
        # shellcheck disable=SC2086 # the lists are meant to split
        b=$(stat $how ${SC_BEST[$k]}) a=$(stat $how ${SC_AVG[$k]}) l=$(stat $how ${LW[$k]})
        printf '  %-6s %16.1f %16.1f %12.1f %18.3f %17.3f\n' "$k" "$b" "$a" "$l" \
            "$(echo "$b / $l" | bc -l)" "$(echo "$a / $l" | bc -l)"
    done
done
