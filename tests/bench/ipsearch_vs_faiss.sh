#!/usr/bin/env bash
# ipsearch_vs_faiss.sh: streamcard-ipsearch against Debian's libfaiss (IndexFlatIP) on the
# same data, and both against OpenBLAS's own sgemm peak, interleaved in one session. A
# benchmark, not a test: it asserts nothing about speed and is not run by ctest.
#
#   streamcard-ipsearch --nb NB --nq NQ --dim DIM --k K --seed SEED   (pool = OpenMP threads,
#       pinned as `streamcard run` pins them: OMP_PLACES={0}:T OMP_PROC_BIND=close)
#   faiss IndexFlatIP.search at its best settings: OMP_WAIT_POLICY=passive, OMP and OpenBLAS
#       threads = T (tests/bench/ipsearch_faiss_driver.cpp, compiled here into a temp dir)
#   OpenBLAS sgemm 2048^3 with T threads: the peak both are measured against (per wall
#       second and per CPU second)
#
# Same data: the driver rebuilds the kernel's vectors with the kernel's generator; the script
# stops unless both report the same database and query checksums. It also says whether both
# found the same top-k ids (results checksum). Each side reports its best search after one
# warm-up; a round runs every side once per thread count; the summary takes medians over the
# rounds. Besides queries/s (wall clock) it reports the CPU seconds one search costs (faiss:
# the whole process; streamcard: its compute threads, whose idle neighbours it shows to use
# ~0 s by default): on a loaded machine wall figures swing with the load, CPU seconds much
# less, so "GFLOP per CPU second / sgemm's GFLOP per CPU second" is the steadier efficiency.
# With --faiss-default, faiss also runs with the default OMP_WAIT_POLICY (the trap: its
# spinning OpenMP threads fight OpenBLAS's threads for the cores).
#
# Needs: g++, libfaiss-dev (apt-get install libfaiss-dev; it pulls a BLAS -dev package),
# a built streamcard-ipsearch. Figures on a shared or virtual machine are noisy: compare
# ratios from one run, and repeat on a quiet machine before quoting them.
#
# usage: tests/bench/ipsearch_vs_faiss.sh [--bin PATH] [--threads "1 2"] [--rounds R]
#            [--iterations N] [--nb N] [--nq N] [--dim N] [--k N] [--seed N] [--faiss-default]
set -euo pipefail

BIN=""
THREADS="1 2"
ROUNDS=3
ITERATIONS=4 # searches per run; the first is a warm-up on both sides
NB=200000 NQ=1000 DIM=128 K=10 SEED=1
FAISS_DEFAULT=0

die() {
    echo "ipsearch_vs_faiss: $*" >&2
    exit 2
}

while [ $# -gt 0 ]; do
    case $1 in
    --bin) BIN=$2; shift 2 ;;
    --threads) THREADS=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --iterations) ITERATIONS=$2; shift 2 ;;
    --nb) NB=$2; shift 2 ;;
    --nq) NQ=$2; shift 2 ;;
    --dim) DIM=$2; shift 2 ;;
    --k) K=$2; shift 2 ;;
    --seed) SEED=$2; shift 2 ;;
    --faiss-default) FAISS_DEFAULT=1; shift ;;
    -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) die "$1: unknown option (--bin --threads --rounds --iterations --nb --nq --dim --k --seed --faiss-default)" ;;
    esac
done

HERE=$(cd "$(dirname "$0")" && pwd)
[ -n "$BIN" ] || BIN="$HERE/../../build/bin/streamcard-ipsearch"
[ -x "$BIN" ] || die "$BIN: not executable (build first, or pass --bin)"
command -v g++ >/dev/null || die "g++: not found (apt-get install g++)"
[ -f /usr/include/faiss/IndexFlat.h ] ||
    die "faiss: /usr/include/faiss/IndexFlat.h not found (apt-get install libfaiss-dev)"
for v in $THREADS $ROUNDS $ITERATIONS $NB $NQ $DIM $K; do
    [[ $v =~ ^[1-9][0-9]*$ ]] || die "$v: not a positive integer"
done
[[ $SEED =~ ^[0-9]+$ ]] || die "--seed $SEED: not a whole number"
[ "$ITERATIONS" -ge 2 ] || die "--iterations $ITERATIONS: at least 2 (one warm-up)"
for t in $THREADS; do
    [ "$t" -le "$(nproc)" ] || die "--threads $t: more than the $(nproc) cpus available"
done

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
DRIVER=$TMP/faiss_driver
g++ -O2 -fopenmp "$HERE/ipsearch_faiss_driver.cpp" -o "$DRIVER" -lfaiss -lblas -llapack \
    2>"$TMP/cc.err" || die "compiling the faiss driver failed: $(tail -3 "$TMP/cc.err")"

# key FILE NAME: the value of the last "NAME=value" word in FILE.
key() { grep -oE "(^| )$2=[^ ]+" "$1" | tail -n 1 | sed 's/.*=//'; }

# ours T: one run pinned like `streamcard run`; prints "qps gflops cpu_seconds".
ours() {
    local t=$1
    env -u OPENBLAS_NUM_THREADS -u OMP_WAIT_POLICY OMP_NUM_THREADS="$t" OMP_PLACES="{0}:$t" \
        OMP_PROC_BIND=close taskset -c "0-$((t - 1))" "$BIN" --nb "$NB" --nq "$NQ" \
        --dim "$DIM" --k "$K" --seed "$SEED" --iterations "$ITERATIONS" >"$TMP/ours.$t" 2>&1 ||
        die "streamcard-ipsearch ($t threads) failed: $(tail -3 "$TMP/ours.$t")"
    grep -q '^Solution Validates' "$TMP/ours.$t" || die "streamcard-ipsearch did not validate"
    echo "$(key "$TMP/ours.$t" qps) $(key "$TMP/ours.$t" gflops)" \
        "$(key "$TMP/ours.$t" total_thread_cpu_seconds)"
}

# faiss T POLICY: one run of the driver (POLICY: passive, or "" for the default).
faiss() {
    local t=$1 policy=$2
    env -u OMP_PLACES -u OMP_PROC_BIND ${policy:+OMP_WAIT_POLICY=$policy} OMP_NUM_THREADS="$t" \
        OPENBLAS_NUM_THREADS="$t" taskset -c "0-$((t - 1))" "$DRIVER" search "$NB" "$NQ" \
        "$DIM" "$K" "$SEED" "$ITERATIONS" >"$TMP/faiss.$t" 2>&1 ||
        die "faiss driver ($t threads) failed: $(tail -3 "$TMP/faiss.$t")"
    echo "$(key "$TMP/faiss.$t" qps) $(key "$TMP/faiss.$t" gflops) $(key "$TMP/faiss.$t" cpu_seconds)"
}

# peak T: OpenBLAS sgemm 2048^3 with T threads, best of 5: "GFLOP/s GFLOP/CPU-second".
peak() {
    env -u OMP_PLACES -u OMP_PROC_BIND OPENBLAS_NUM_THREADS="$1" taskset -c "0-$(($1 - 1))" \
        "$DRIVER" peak 2048 5 >"$TMP/peak.$1" || die "sgemm peak probe failed"
    echo "$(key "$TMP/peak.$1" sgemm_peak_gflops) $(key "$TMP/peak.$1" sgemm_peak_gflops_per_cpu_second)"
}

# median VALUES...
median() {
    printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 }
        END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

echo "ipsearch_vs_faiss: nb=$NB nq=$NQ dim=$DIM k=$K seed=$SEED, threads: $THREADS," \
    "$ROUNDS rounds interleaved, $ITERATIONS searches per run (first is a warm-up), best search each"
echo "faiss: Debian libfaiss-dev $(dpkg-query -W -f='${Version}' libfaiss-dev 2>/dev/null || echo '?')," \
    "IndexFlatIP, OMP_WAIT_POLICY=passive, OMP_NUM_THREADS=OPENBLAS_NUM_THREADS=T"
echo "streamcard BLAS: $("$BIN" --build-info | sed -n 's/^blas_library=//p')" \
    "($("$BIN" --build-info | sed -n 's/^blas_config=//p'))"
echo "faiss BLAS: $(readlink -f "$(ldd "$DRIVER" | sed -n 's/.*libblas\.so\.3 => \([^ ]*\).*/\1/p')")" \
    "(libblas.so.3 through the alternatives)"
echo "machine: $(nproc) cpus, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)," \
    "load $(cut -d' ' -f1-3 /proc/loadavg)"
echo

declare -A OQ OG OC FQ FG FC PK PC FD
SAME_DATA=""
for r in $(seq 1 "$ROUNDS"); do
    for t in $THREADS; do
        read -r oq og oc < <(ours "$t")
        read -r fq fg fc < <(faiss "$t" passive)
        read -r p pc < <(peak "$t")
        for k in database_checksum queries_checksum; do
            [ "$(key "$TMP/faiss.$t" $k)" != "" ] || die "faiss driver printed no $k"
        done
        # The kernel prints "database checksum 0x.., queries checksum 0x.." on its Data line.
        od=$(sed -n 's/.*database checksum \(0x[0-9a-f]*\).*/\1/p' "$TMP/ours.$t")
        oqs=$(sed -n 's/.*queries checksum \(0x[0-9a-f]*\).*/\1/p' "$TMP/ours.$t")
        if [ "$od" != "$(key "$TMP/faiss.$t" database_checksum)" ] ||
            [ "$oqs" != "$(key "$TMP/faiss.$t" queries_checksum)" ]; then
            die "the two sides did not search the same data (checksums differ)"
        fi
        same=no
        [ "$(key "$TMP/ours.$t" results_checksum)" = "$(key "$TMP/faiss.$t" results_checksum)" ] &&
            same=yes
        SAME_DATA+="$same "
        extra=""
        if [ "$FAISS_DEFAULT" = 1 ]; then
            read -r dq _ _ < <(faiss "$t" "")
            FD[$t]+="$dq "
            extra=$(printf ' | faiss default wait policy %8.1f' "$dq")
        fi
        printf 'round %d  %d thread(s): streamcard %8.1f q/s %7.2f GFLOP/s %6.3f CPU s | faiss %8.1f q/s %7.2f GFLOP/s %6.3f CPU s | ratio %.2f | sgemm peak %7.2f GFLOP/s | same ids: %s%s\n' \
            "$r" "$t" "$oq" "$og" "$oc" "$fq" "$fg" "$fc" "$(echo "$oq / $fq" | bc -l)" "$p" \
            "$same" "$extra"
        OQ[$t]+="$oq "
        OG[$t]+="$og "
        OC[$t]+="$oc "
        FC[$t]+="$fc "
        FQ[$t]+="$fq "
        FG[$t]+="$fg "
        PK[$t]+="$p "
        PC[$t]+="$pc "
    done
done

echo
echo "summary (medians over $ROUNDS rounds; efficiency = GFLOP/s / OpenBLAS sgemm peak, same T):"
for t in $THREADS; do
    # shellcheck disable=SC2086
    oq=$(median ${OQ[$t]}) og=$(median ${OG[$t]}) fq=$(median ${FQ[$t]}) fg=$(median ${FG[$t]})
    # shellcheck disable=SC2086
    p=$(median ${PK[$t]})
    printf '  %d thread(s): qps ratio streamcard/faiss = %.2f (%.1f vs %.1f q/s); sgemm efficiency streamcard %.2f, faiss %.2f (peak %.2f GFLOP/s)\n' \
        "$t" "$(echo "$oq / $fq" | bc -l)" "$oq" "$fq" "$(echo "$og / $p" | bc -l)" \
        "$(echo "$fg / $p" | bc -l)" "$p"
    # shellcheck disable=SC2086
    oc=$(median ${OC[$t]}) fc=$(median ${FC[$t]}) pc=$(median ${PC[$t]})
    flop=$(echo "2 * $NB * $NQ * $DIM / 1000000000" | bc -l)
    printf '               CPU seconds per search: streamcard %.3f, faiss %.3f (faiss/streamcard %.2f); GFLOP per CPU second / sgemm'"'"'s (%.2f): streamcard %.2f, faiss %.2f\n' \
        "$oc" "$fc" "$(echo "$fc / $oc" | bc -l)" "$pc" "$(echo "$flop / $oc / $pc" | bc -l)" \
        "$(echo "$flop / $fc / $pc" | bc -l)"
    if [ "$FAISS_DEFAULT" = 1 ]; then
        # shellcheck disable=SC2086
        printf '               faiss with the default OMP_WAIT_POLICY: %.1f q/s (%.2f of passive)\n' \
            "$(median ${FD[$t]})" "$(echo "$(median ${FD[$t]}) / $fq" | bc -l)"
    fi
done
case " $SAME_DATA" in
*" no "*) echo "note: some runs found different top-k ids (exact or near ties ordered differently)" ;;
*) echo "same data and the same top-k ids on both sides in every run" ;;
esac
