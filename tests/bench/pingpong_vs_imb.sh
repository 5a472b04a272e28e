#!/usr/bin/env bash
# pingpong_vs_imb.sh: streamcard-pingpong against two anchors: Intel's IMB-MPI1 PingPong
# (mpi-benchmarks, built here from its public source at a pinned commit, never kept in this
# tree) and the plain MPI_Send/MPI_Recv loop (tests/mpi/pingpong_plain.c). Two ranks, the
# same launcher options for all three (so the same transport), interleaved rounds. A
# benchmark, not a test: it asserts nothing and is not run by ctest.
#
# Sizes: 8 bytes (latency: half a round trip, usec) with --lat-iterations round trips, and
# 1 MiB and 4 MiB (bandwidth: bytes / half a round trip, MB = 1e6 B) with --iterations.
# The repetitions are the same for the three: IMB's -iter N with its 40 MiB volume rule
# (min(N, 40 MiB / bytes)), which streamcard and the plain loop follow (floor 10); the
# script prints IMB's #repetitions column. Each tool's figure is its mean over the timed
# round trips (IMB's t[usec]; streamcard's and the plain loop's mean over their batches),
# IMB's bandwidth recomputed as bytes / t[usec] so that MB means the same on every side.
# IMB is run with `-time 60` (its default of 10 s a size could cut the latency loop's
# repetitions on a slow transport) and otherwise its defaults, including its dynamic
# iteration policy and warm-up.
#
# A round runs streamcard, IMB and the plain loop, the order reversed every other round, so
# each pair of tools is measured in both orders; the ratios are per round (pair) and the
# summary gives their median [min-max]: streamcard/IMB, streamcard/plain and plain/IMB (the
# two anchors against each other: how far apart two honest loops are on this machine).
# Latency ratios below 1 and bandwidth ratios above 1 favour the numerator.
# Same transport: every tool runs with btl_base_verbose=1 and the script checks that Open
# MPI's "mca: bml: Using <btl> btl for send to" lines name the same BTL for all three.
#
# IMB-MPI1 is built once per commit into --cache (default ~/.cache/streamcard/bench):
# git clone of --imb-src, checkout of --imb-ref, then `make IMB-MPI1 CC=mpicc CXX=mpicxx`
# (its top Makefile builds src_cpp with TARGET=MPI1 and IMB's own flags, -g -O0 -Wall
# -Wextra -Werror; plus -DOMPI_SKIP_MPICXX, see imb_build).
# The default --imb-ref is the tag IMB-v2021.11, checked to be commit 1a7cada0 (a moved tag
# stops the script). Needs git, make, mpicc, mpicxx (Debian: git make libopenmpi-dev g++).
#
# usage: tests/bench/pingpong_vs_imb.sh [--bin PATH] [--plain PATH] [--rounds R]
#            [--iterations N] [--lat-iterations N] [--mpirun-args "ARGS"]
#            [--imb-src URL|PATH] [--imb-ref TAG|COMMIT] [--cache DIR]
#   --imb-src: where to clone mpi-benchmarks from (default https://github.com/intel/mpi-benchmarks;
#              a local clone or mirror works the same).
#   --mpirun-args: extra launcher options for every tool, e.g. "--mca btl tcp,self".
set -euo pipefail
BENCH_NAME=pingpong_vs_imb
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/pingpong_lib.sh"

pp_defaults
ROUNDS=5
IMB_SRC=https://github.com/intel/mpi-benchmarks
IMB_REF="IMB-v2021.11"
IMB_PINNED=1a7cada09754be3ccf60c2698305a4c020b52e28 # what IMB_REF must resolve to
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/streamcard/bench

while [ $# -gt 0 ]; do
    pp_option "$@" && shift 2 && continue
    case $1 in
    --imb-src) IMB_SRC=$2; shift 2 ;;
    --imb-ref) IMB_REF=$2; IMB_PINNED=""; shift 2 ;;
    --cache) CACHE=$2; shift 2 ;;
    -h | --help) bench_help "$0"; exit 0 ;;
    *) bench_die "$1: unknown option (--bin --plain --rounds --iterations --lat-iterations" \
        "--mpirun-args --imb-src --imb-ref --cache)" ;;
    esac
done
bench_posint "$ROUNDS" "$ITERATIONS" "$LAT_ITERATIONS"
for tool in git make mpicc mpicxx; do
    bench_need $tool "Debian: apt-get install git make libopenmpi-dev g++"
done
pp_launch_setup
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# imb_build: IMB-MPI1 of IMB_REF, built once into the cache; sets IMB and IMB_COMMIT.
imb_build() {
    local work=$TMP/imb-src dir
    git clone --quiet "$IMB_SRC" "$work" >"$TMP/imb-build.log" 2>&1 ||
        bench_die "git clone $IMB_SRC failed: $(tail -2 "$TMP/imb-build.log") (valid: --imb-src URL|PATH of mpi-benchmarks)"
    IMB_COMMIT=$(git -C "$work" rev-parse --verify --quiet "$IMB_REF^{commit}") ||
        bench_die "$IMB_REF: not a tag or commit of $IMB_SRC (valid: --imb-ref TAG|COMMIT)"
    [ -z "$IMB_PINNED" ] || [ "$IMB_COMMIT" = "$IMB_PINNED" ] ||
        bench_die "$IMB_REF is $IMB_COMMIT in $IMB_SRC, not the pinned $IMB_PINNED"
    dir=$CACHE/imb-$IMB_COMMIT
    IMB=$dir/IMB-MPI1
    [ -x "$IMB" ] && return 0
    echo "building IMB-MPI1 ($IMB_REF, $IMB_COMMIT) into $dir" >&2
    git -C "$work" checkout --quiet --detach "$IMB_COMMIT"
    # OMPI_SKIP_MPICXX (MPICH_SKIP_MPICXX): IMB calls MPI's C interface only, and Open MPI
    # 4.1's deprecated C++ header does not compile under IMB's -Wextra -Werror with g++ 12.
    make -C "$work" IMB-MPI1 CC=mpicc CXX=mpicxx CPPFLAGS="-DOMPI_SKIP_MPICXX -DMPICH_SKIP_MPICXX" \
        >>"$TMP/imb-build.log" 2>&1 ||
        bench_die "building IMB-MPI1 failed: $(grep -m2 -i 'error' "$TMP/imb-build.log" || tail -2 "$TMP/imb-build.log")"
    mkdir -p "$dir" && cp "$work/IMB-MPI1" "$IMB.tmp" && mv "$IMB.tmp" "$IMB"
}

# imb ROUND ITERATIONS BYTES...: one IMB-MPI1 PingPong run over those sizes into $DATA
# (means only); its repetitions to $TMP/imb.reps, its BTL to IMB_BTL.
imb() {
    local round=$1 iterations=$2
    shift 2
    printf '%s\n' "$@" >"$TMP/imb.lens"
    "${LAUNCH[@]}" "$IMB" PingPong -msglen "$TMP/imb.lens" -iter "$iterations" -time 60 \
        >"$TMP/imb.out" 2>"$TMP/imb.err" ||
        bench_die "IMB-MPI1 PingPong failed: $(tail -3 "$TMP/imb.out" "$TMP/imb.err")"
    # Its table: "#bytes #repetitions t[usec] Mbytes/sec" under "# Benchmarking PingPong".
    awk '/Benchmarking PingPong/ { on = 1 } on && NF == 4 && $1 ~ /^[0-9]+$/ && $1 > 0' \
        "$TMP/imb.out" >"$TMP/imb.rows"
    [ "$(wc -l <"$TMP/imb.rows")" -eq $# ] ||
        bench_die "IMB-MPI1: expected $# rows of its PingPong table, found: $(cat "$TMP/imb.rows")"
    awk '{ printf "%s %s %.2f\n", $1, $3, $1 / $3 }' "$TMP/imb.rows" | pp_rows "$round" imb
    awk -v r="$round" '{ print r, $1, $2 }' "$TMP/imb.rows" >>"$TMP/imb.reps"
    IMB_BTL=$(pp_btl_of "$TMP/imb.err")
}

# One tool's runs of a round: the latency size, then the bandwidth sizes.
run_tool() {
    local round=$1
    case $2 in
    streamcard)
        pp_streamcard "$round" --min-bytes 8 --max-bytes 8 --iterations "$LAT_ITERATIONS"
        pp_streamcard "$round" --min-bytes $MIB --max-bytes $((4 * MIB)) --iterations "$ITERATIONS"
        # streamcard sweeps powers of two: 2 MiB is measured too and left out here.
        ;;
    imb)
        imb "$round" "$LAT_ITERATIONS" 8
        imb "$round" "$ITERATIONS" $MIB $((4 * MIB))
        ;;
    plain)
        pp_plain "$round" plain written "$LAT_ITERATIONS" 8
        pp_plain "$round" plain written "$ITERATIONS" $MIB $((4 * MIB))
        ;;
    esac
}

imb_build
DATA=$TMP/data
: >"$DATA"
: >"$TMP/imb.reps"
LOAD_BEFORE=$(bench_load)
for round in $(seq 1 "$ROUNDS"); do
    order=$(bench_in_order "$round" streamcard imb plain | paste -sd' ')
    for tool in $order; do
        run_tool "$round" "$tool"
    done
    if [ "$SC_BTL" != "$PLAIN_BTL" ] || [ "$SC_BTL" != "$IMB_BTL" ]; then
        bench_die "round $round: different BTLs: streamcard '$SC_BTL', plain '$PLAIN_BTL', IMB '$IMB_BTL'"
    fi
    echo "round $round of $ROUNDS done ($order)" >&2
done

echo "pingpong_vs_imb: $ROUNDS interleaved rounds (streamcard, IMB, plain; reversed every other round)"
echo "IMB-MPI1 $IMB_REF ($IMB_COMMIT) from $IMB_SRC, $IMB"
echo "IMB #repetitions per size (min-max over the rounds):" \
    "$(awk '{ n = $2 + 0; if (!(n in lo) || $3 < lo[n]) lo[n] = $3; if ($3 > hi[n]) hi[n] = $3 }
        END { for (n in lo) printf "%d B: %d-%d\n", n, lo[n], hi[n] }' "$TMP/imb.reps" |
        sort -n | paste -sd';')"
echo "launcher: ${LAUNCH[*]}"
echo "transport (streamcard's probe): $SC_TRANSPORT"
echo "BML's BTL to the peer, as Open MPI reported it for all three tools: ${SC_BTL:-none (not ob1)}"
bench_machine
echo "load average before: $LOAD_BEFORE, after: $(bench_load)"
echo
echo "medians over the rounds (mean of each run): latency usec at 8 B, bandwidth MB/s"
printf '  %-12s %12s %12s %12s\n' tool lat8B_us bw1MiB_MBps bw4MiB_MBps
for tool in streamcard imb plain; do
    cells=()
    for m in lat8 bw1MiB bw4MiB; do
        # shellcheck disable=SC2046 # one value a round
        read -r med _ _ < <(bench_stats $(pp_value all "$tool" "$m" mean))
        cells+=("$med")
    done
    printf '  %-12s %12s %12s %12s\n' "$tool" "${cells[@]}"
done
echo
echo "ratios of the interleaved pairs, median [min-max] (latency: < 1 favours the first;" \
    "bandwidth: > 1 favours the first)"
for m in lat8 bw1MiB bw4MiB; do
    for pair in "streamcard imb" "streamcard plain" "plain imb"; do
        read -r a b <<<"$pair"
        ratios=()
        for round in $(seq 1 "$ROUNDS"); do
            ratios+=("$(awk -v x="$(pp_value "$round" "$a" "$m" mean)" \
                -v y="$(pp_value "$round" "$b" "$m" mean)" 'BEGIN { printf "%.4f", x / y }')")
        done
        bench_ratio_line "$m $a/$b" "${ratios[@]}"
    done
done
