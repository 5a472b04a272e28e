#!/usr/bin/env bash
# ipsearch_vs_scan.sh: streamcard-ipsearch against a reference single-pass scan written for
# this benchmark, at small and large batches, and against OpenBLAS's own sgemm on the same
# shapes at large ones, interleaved in one session. A benchmark, not a test: it asserts
# nothing about speed and is not run by ctest.
#
#   streamcard-ipsearch --nb NB --nq NQ --dim DIM --k K --seed SEED   as the default card
#       runs it (no pool_threads: the kernel's default layout and search path), pinned as
#       `streamcard run` pins it: OMP_PLACES={0}:T OMP_PROC_BIND=close, taskset 0..T-1;
#       with --simd V also --search-simd V (e.g. avx2-fma: the AVX2 path on an AVX-512
#       machine; the default is the widest variant the CPU runs)
#   the reference scan (tests/bench/ipsearch_scan_ref.c, compiled here with -O3
#       -march=native against the built kernel libraries, which give it the data): every
#       thread a slice of rows, every query dotted with a row while it is in L1, compiler-
#       vectorised dot products, a threshold test before the top-k; pinned the same way
#   at nq >= 256, OpenBLAS sgemm on the search's own shapes with the same data and T
#       threads, no top-k (the reference's gemm mode): the whole nq x nb score matrix in one
#       call with OpenBLAS's threads, and the kernel's own tile calls, one BLAS thread per
#       OpenMP thread; the better of the two is the sgemm peak the search is measured
#       against (inner dimension dim = 128: each score is one short dot product, so sgemm
#       runs below its square-matrix rate here, C written and operands packed per 128
#       multiply-adds)
#   OpenBLAS sgemm 2048^3 with T threads (the reference's peak mode): the machine's sgemm
#       ceiling, shown beside it
#   the database read once by T threads, only summed (the reference's read mode): the
#       memory ceiling of any scan, against which the small batches' database GB/s is put
#
# A pair is one run of each side, back to back, the order alternating between rounds; each
# side reports its best search after one warm-up. The summary gives, per batch size and
# thread count, medians over the rounds with their spread (min-max over the pairs) of:
#   ipsearch / reference, queries per second;
#   the same per CPU second: the reference's CPU seconds for one search (its threads' scan
#       and merge) over ipsearch's (its compute threads'): steadier on a loaded machine,
#       blind to what waiting for a cpu costs;
#   for nq <= 16, the database bytes ipsearch reads per second over the read bandwidth;
#   for nq >= 256, ipsearch's GFLOP/s over the same-shape sgemm peak of the same round,
#       per wall and per CPU second (its compute threads' against sgemm's whole process);
#       the share of ipsearch's CPU time its sgemm calls alone take (the tile calls' CPU
#       seconds over ipsearch's: the rest is top-k, merge and the pool; equal to the per
#       CPU second ratio when the tile calls are the better sgemm); and the same GFLOP/s
#       over the 2048^3 ceiling.
# The 1-minute load average after each pair is printed with it and summarised at the end.
# Both sides must report the same data checksums (the script stops otherwise), and it says
# whether they found the same top-k ids. Needs: cc, a built tree (streamcard-ipsearch and
# build/lib's kernel libraries), libopenblas-dev. Figures on a shared or virtual machine are
# noisy: run at a quiet moment, and compare ratios from one run.
#
# usage: tests/bench/ipsearch_vs_scan.sh [--build DIR] [--threads "1 2"] [--nqs "1 4 16 64 256 1000"]
#            [--rounds R] [--nb N] [--dim N] [--k N] [--seed N] [--simd auto|scalar|avx2-fma|avx512f]
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
BUILD=$SRC/build
THREADS="1 2"
NQS="1 4 16 64 256 1000"
ROUNDS=7
NB=200000 DIM=128 K=10 SEED=1
SIMD=auto

die() {
    echo "ipsearch_vs_scan: $*" >&2
    exit 2
}

while [ $# -gt 0 ]; do
    case $1 in
    --build) BUILD=$2; shift 2 ;;
    --threads) THREADS=$2; shift 2 ;;
    --nqs) NQS=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --nb) NB=$2; shift 2 ;;
    --dim) DIM=$2; shift 2 ;;
    --k) K=$2; shift 2 ;;
    --seed) SEED=$2; shift 2 ;;
    --simd) SIMD=$2; shift 2 ;;
    -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) die "$1: unknown option (--build --threads --nqs --rounds --nb --dim --k --seed --simd)" ;;
    esac
done

BIN=$BUILD/bin/streamcard-ipsearch
[ -x "$BIN" ] || die "$BIN: not executable (build first: cmake --build build, or pass --build)"
for lib in libsc_ipsearch_engine.a libsc_kernel_support.a; do
    [ -f "$BUILD/lib/$lib" ] || die "$BUILD/lib/$lib: missing (build first)"
done
command -v cc >/dev/null || die "cc: not found (apt-get install gcc)"
for v in $THREADS $NQS $ROUNDS $NB $DIM $K; do
    [[ $v =~ ^[1-9][0-9]*$ ]] || die "$v: not a positive integer"
done
[[ $SEED =~ ^[0-9]+$ ]] || die "--seed $SEED: not a whole number"
[ "$ROUNDS" -ge 5 ] || die "--rounds $ROUNDS: at least 5 pairs make a spread worth quoting"
for t in $THREADS; do
    [ "$t" -le "$(nproc)" ] || die "--threads $t: more than the $(nproc) cpus available"
done

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# The kernel refuses a variant this CPU does not run, with the list of those it does.
"$BIN" --search-simd "$SIMD" --help >/dev/null 2>"$TMP/simd.err" || die "--simd $SIMD: $(cat "$TMP/simd.err")"
REF=$TMP/scan_ref
cc -O3 -march=native -fopenmp -I"$SRC/kernels" "$HERE/ipsearch_scan_ref.c" \
    "$BUILD/lib/libsc_ipsearch_engine.a" "$BUILD/lib/libsc_kernel_support.a" -lopenblas -lm \
    -ldl -lpthread -o "$REF" 2>"$TMP/cc.err" ||
    die "compiling the reference scan failed: $(tail -3 "$TMP/cc.err")"

# key FILE NAME: the value of the last "NAME=value" word in FILE.
key() { grep -oE "(^| )$2=[^ ]+" "$1" | tail -n 1 | sed 's/.*=//'; }

# Searches per run: enough for a steady best at small batches; at large ones ipsearch and
# the same-shape sgemm both get 8 tries (the first a warm-up for either), as a neighbour's
# burst on a shared machine costs one try, not the pair; the reference scan, slow there and
# not the measure of these batches, gets 4.
iterations() { if [ "$1" -le 16 ]; then echo 21; elif [ "$1" -le 64 ]; then echo 11; else echo 8; fi; }
ref_iterations() { if [ "$1" -le 64 ]; then iterations "$1"; else echo 4; fi; }

# pinned T CMD...: run CMD as `streamcard run` pins a card's T threads.
pinned() {
    local t=$1
    shift
    env -u OPENBLAS_NUM_THREADS -u OMP_WAIT_POLICY OMP_NUM_THREADS="$t" OMP_PLACES="{0}:$t" \
        OMP_PROC_BIND=close taskset -c "0-$((t - 1))" "$@"
}

# ours T NQ: prints "qps gflops path cpu_seconds".
ours() {
    local out=$TMP/ours.$1.$2
    pinned "$1" "$BIN" --nb "$NB" --nq "$2" --dim "$DIM" --k "$K" --seed "$SEED" \
        --search-simd "$SIMD" --iterations "$(iterations "$2")" >"$out" 2>&1 ||
        die "streamcard-ipsearch ($1 threads, nq $2) failed: $(tail -3 "$out")"
    grep -q '^Solution Validates' "$out" || die "streamcard-ipsearch did not validate"
    echo "$(key "$out" qps) $(key "$out" gflops) $(key "$out" search_path)/$(key "$out" search_simd)/$(key "$out" search_layout)" \
        "$(key "$out" total_thread_cpu_seconds)"
}

# ref T NQ: prints "qps cpu_seconds".
ref() {
    local out=$TMP/ref.$1.$2
    pinned "$1" "$REF" search "$NB" "$2" "$DIM" "$K" "$SEED" "$(ref_iterations "$2")" >"$out" 2>&1 ||
        die "reference scan ($1 threads, nq $2) failed: $(tail -3 "$out")"
    echo "$(key "$out" qps) $(key "$out" cpu_seconds)"
}

# gemm T NQ: OpenBLAS sgemm on the search's shapes, no top-k: "GFLOP/s GFLOP/CPU-second
# tile_cpu_seconds", the better of the whole call and the tile calls.
gemm() {
    local out=$TMP/gemm.$1.$2
    env -u OMP_PLACES -u OMP_PROC_BIND OPENBLAS_NUM_THREADS="$1" OMP_NUM_THREADS="$1" \
        taskset -c "0-$(($1 - 1))" "$REF" gemm "$NB" "$2" "$DIM" "$K" "$SEED" 7 >"$out" 2>&1 ||
        die "same-shape sgemm probe ($1 threads, nq $2) failed: $(tail -3 "$out")"
    awk -F= '$1 == "sgemm_whole_gflops" { w = $2 } $1 == "sgemm_tiles_gflops" { t = $2 }
        $1 == "sgemm_whole_gflops_per_cpu_second" { wc = $2 }
        $1 == "sgemm_tiles_gflops_per_cpu_second" { tc = $2 } $1 == "sgemm_tiles_cpu_seconds" { c = $2 }
        END { printf "%s %s %s\n", (w > t ? w : t), (wc > tc ? wc : tc), c }' "$out"
}

# peak T: OpenBLAS sgemm 2048^3 with T threads, best of 5: "GFLOP/s GFLOP/CPU-second".
peak() {
    env -u OMP_PLACES -u OMP_PROC_BIND OPENBLAS_NUM_THREADS="$1" taskset -c "0-$(($1 - 1))" \
        "$REF" peak 2048 5 >"$TMP/peak.$1" 2>&1 || die "sgemm peak probe failed"
    echo "$(key "$TMP/peak.$1" sgemm_peak_gflops) $(key "$TMP/peak.$1" sgemm_peak_gflops_per_cpu_second)"
}

# readbw T: the database read once by T threads, best of 11, GB/s.
readbw() {
    pinned "$1" "$REF" read "$NB" "$DIM" "$SEED" 11 >"$TMP/read.$1" 2>&1 ||
        die "read bandwidth probe failed: $(tail -3 "$TMP/read.$1")"
    key "$TMP/read.$1" read_GBps
}

# stats VALUES...: "median min max".
stats() {
    printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 }
        END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
              printf "%.3f %.3f %.3f\n", m, v[1], v[NR] }'
}

echo "ipsearch_vs_scan: nb=$NB dim=$DIM k=$K seed=$SEED, nq: $NQS, threads: $THREADS," \
    "$ROUNDS interleaved pairs per point, best search of each run"
echo "ipsearch: $BIN (default layout and path, --search-simd $SIMD), BLAS $("$BIN" --build-info | sed -n 's/^blas_library=//p')"
echo "reference: ipsearch_scan_ref.c, $(cc --version | head -1), -O3 -march=native -fopenmp"
echo "machine: $(nproc) cpus, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)," \
    "load $(cut -d' ' -f1-3 /proc/loadavg)"
echo

LOADS=""
declare -A RATIO OQ RQ WAY SAME EFF PK MEM RB CEFF CRATIO GP SHARE CEIL
for r in $(seq 1 "$ROUNDS"); do
    for t in $THREADS; do
        read -r p _ < <(peak "$t")
        rb=$(readbw "$t")
        PK[$t]+="$p "
        RB[$t]+="$rb "
        for nq in $NQS; do
            # The same-shape sgemm (nq >= 256) runs right next to ipsearch either way.
            sg="0 0 0"
            if [ $((r % 2)) -eq 1 ]; then
                read -r oq og path oc < <(ours "$t" "$nq")
                [ "$nq" -ge 256 ] && sg=$(gemm "$t" "$nq")
                read -r rq rc < <(ref "$t" "$nq")
            else
                read -r rq rc < <(ref "$t" "$nq")
                [ "$nq" -ge 256 ] && sg=$(gemm "$t" "$nq")
                read -r oq og path oc < <(ours "$t" "$nq")
            fi
            read -r gp gpc gcpu <<<"$sg"
            o=$TMP/ours.$t.$nq f=$TMP/ref.$t.$nq
            [ "$(sed -n 's/.*database checksum \(0x[0-9a-f]*\).*/\1/p' "$o")" = "$(key "$f" database_checksum)" ] &&
                [ "$(sed -n 's/.*queries checksum \(0x[0-9a-f]*\).*/\1/p' "$o")" = "$(key "$f" queries_checksum)" ] ||
                die "the two sides did not search the same data (checksums differ)"
            same=no
            [ "$(key "$o" results_checksum)" = "$(key "$f" results_checksum)" ] && same=yes
            ratio=$(echo "$oq / $rq" | bc -l)
            # The same per CPU second: the reference's CPU seconds of one search over ours.
            cratio=$(echo "$rc / $oc" | bc -l)
            eff=0 ceff=0 share=0 ceil=$(echo "$og / $p" | bc -l)
            if [ "$nq" -ge 256 ]; then
                eff=$(echo "$og / $gp" | bc -l)
                # GFLOP per CPU second of the compute threads against sgemm's: steadier than
                # wall clock on a loaded machine, which takes cpus from either side.
                ceff=$(echo "2 * $NB * $nq * $DIM / 1000000000 / $oc / $gpc" | bc -l)
                share=$(echo "$gcpu / $oc" | bc -l)
            fi
            mem=$(echo "$NB * $DIM * 4 * $oq / $nq / 1000000000 / $rb" | bc -l)
            RATIO[$t.$nq]+="$ratio "
            CRATIO[$t.$nq]+="$cratio "
            EFF[$t.$nq]+="$eff "
            GP[$t.$nq]+="$gp "
            SHARE[$t.$nq]+="$share "
            CEIL[$t.$nq]+="$ceil "
            MEM[$t.$nq]+="$mem "
            CEFF[$t.$nq]+="$ceff "
            OQ[$t.$nq]+="$oq "
            RQ[$t.$nq]+="$rq "
            WAY[$t.$nq]=$path
            SAME[$t.$nq]+="$same "
            load=$(cut -d' ' -f1 /proc/loadavg)
            LOADS+="$load "
            printf 'round %d  T=%d nq=%-5d ipsearch %9.1f q/s (%s)  scan %9.1f q/s  ratio %.3f (per CPU s %.3f) | %.3f of read %.1f GB/s | %7.2f GFLOP/s = %.3f of same-shape sgemm %.2f (per CPU s %.3f; sgemm share %.3f), %.3f of 2048^3 %.2f  same ids: %s  load %s\n' \
                "$r" "$t" "$nq" "$oq" "$path" "$rq" "$ratio" "$cratio" "$mem" "$rb" "$og" "$eff" "$gp" "$ceff" "$share" "$ceil" "$p" "$same" "$load"
        done
    done
done

echo
echo "summary: medians over $ROUNDS interleaved pairs, [min-max] over the pairs"
printf '%-5s %-2s %12s %12s  %-24s %-24s %-24s %-46s %-24s %-24s %-26s %s\n' nq T "ipsearch q/s" \
    "scan q/s" "ipsearch/scan" "same, per CPU second" "of read bandwidth" \
    "ipsearch/same-shape sgemm (wall; per CPU s)" "sgemm share of its CPU" "of sgemm 2048^3 (wall)" \
    "path/layout" "same ids"
for t in $THREADS; do
    for nq in $NQS; do
        # shellcheck disable=SC2086
        read -r rm rlo rhi < <(stats ${RATIO[$t.$nq]})
        # shellcheck disable=SC2086
        read -r xm xlo xhi < <(stats ${CRATIO[$t.$nq]})
        # shellcheck disable=SC2086
        read -r em elo ehi < <(stats ${EFF[$t.$nq]})
        # shellcheck disable=SC2086
        read -r mm mlo mhi < <(stats ${MEM[$t.$nq]})
        # shellcheck disable=SC2086
        read -r cm clo chi < <(stats ${CEFF[$t.$nq]})
        # shellcheck disable=SC2086
        read -r sm slo shi < <(stats ${SHARE[$t.$nq]})
        # shellcheck disable=SC2086
        read -r lm llo lhi < <(stats ${CEIL[$t.$nq]})
        # shellcheck disable=SC2086
        read -r oq _ _ < <(stats ${OQ[$t.$nq]})
        # shellcheck disable=SC2086
        read -r rq _ _ < <(stats ${RQ[$t.$nq]})
        eff="-" mem="-" share="-" ceil="-"
        if [ "$nq" -ge 256 ]; then
            eff=$(printf '%.3f [%.3f-%.3f] cpu %.3f [%.3f-%.3f]' "$em" "$elo" "$ehi" "$cm" "$clo" "$chi")
            share=$(printf '%.3f [%.3f-%.3f]' "$sm" "$slo" "$shi")
            ceil=$(printf '%.3f [%.3f-%.3f]' "$lm" "$llo" "$lhi")
        fi
        [ "$nq" -le 16 ] && mem=$(printf '%.3f [%.3f-%.3f]' "$mm" "$mlo" "$mhi")
        same=yes
        case " ${SAME[$t.$nq]}" in *" no "*) same="no (some pairs)" ;; esac
        printf '%-5d %-2d %12.1f %12.1f  %-24s %-24s %-24s %-46s %-24s %-24s %-26s %s\n' "$nq" "$t" \
            "$oq" "$rq" "$(printf '%.3f [%.3f-%.3f]' "$rm" "$rlo" "$rhi")" \
            "$(printf '%.3f [%.3f-%.3f]' "$xm" "$xlo" "$xhi")" "$mem" "$eff" "$share" "$ceil" \
            "${WAY[$t.$nq]}" "$same"
    done
done
for t in $THREADS; do
    # shellcheck disable=SC2086
    read -r pm plo phi < <(stats ${PK[$t]})
    # shellcheck disable=SC2086
    read -r bm blo bhi < <(stats ${RB[$t]})
    printf 'sgemm 2048^3, %d thread(s): %.2f GFLOP/s [%.2f-%.2f]; database read: %.2f GB/s [%.2f-%.2f]\n' \
        "$t" "$pm" "$plo" "$phi" "$bm" "$blo" "$bhi"
    for nq in $NQS; do
        [ "$nq" -ge 256 ] || continue
        # shellcheck disable=SC2086
        read -r gm glo ghi < <(stats ${GP[$t.$nq]})
        printf 'same-shape sgemm, %d thread(s), nq %d: %.2f GFLOP/s [%.2f-%.2f]\n' "$t" "$nq" "$gm" "$glo" "$ghi"
    done
done
# shellcheck disable=SC2086
read -r lm llo lhi < <(stats $LOADS)
printf 'load (1-minute average after each pair): %.2f [%.2f-%.2f] on %d cpus; at the end: %s\n' \
    "$lm" "$llo" "$lhi" "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)"
