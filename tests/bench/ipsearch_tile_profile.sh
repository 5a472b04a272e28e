#!/usr/bin/env bash
# ipsearch_tile_profile.sh: where streamcard-ipsearch's sgemm path spends its time, per
# tile size, queries per sgemm call and top-k filter variant (the portable one and the
# widest this CPU runs): one thread, pinned to cpu 0, searching nq queries over the whole
# database as the kernel does, with the thread's CPU clock read around every sgemm call and
# every filter pass (tests/bench/ipsearch_tile_profile.c). The combinations are interleaved
# round by round in one process; minima and medians over the rounds. A benchmark, not a
# test: it asserts nothing about speed and is not run by ctest. Every combination must
# find the same ids (the "ids" column).
#
# usage: tests/bench/ipsearch_tile_profile.sh [--build DIR] [--nqs "256 1000"]
#            [--tiles 64,128,256,512,1024] [--per-call 0] [--rounds R] [--nb N] [--dim N]
#            [--k N] [--seed N]
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../.." && pwd)
BUILD=$SRC/build
NQS="256 1000"
TILES=64,128,256,512,1024
PER_CALL=0
ROUNDS=7
NB=200000 DIM=128 K=10 SEED=1

die() {
    echo "ipsearch_tile_profile: $*" >&2
    exit 2
}

while [ $# -gt 0 ]; do
    case $1 in
    --build) BUILD=$2; shift 2 ;;
    --nqs) NQS=$2; shift 2 ;;
    --tiles) TILES=$2; shift 2 ;;
    --per-call) PER_CALL=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --nb) NB=$2; shift 2 ;;
    --dim) DIM=$2; shift 2 ;;
    --k) K=$2; shift 2 ;;
    --seed) SEED=$2; shift 2 ;;
    -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) die "$1: unknown option (--build --nqs --tiles --per-call --rounds --nb --dim --k --seed)" ;;
    esac
done

for lib in libsc_ipsearch_engine.a libsc_kernel_support.a; do
    [ -f "$BUILD/lib/$lib" ] || die "$BUILD/lib/$lib: missing (build first, or pass --build)"
done
command -v cc >/dev/null || die "cc: not found (apt-get install gcc)"
for v in $NQS $ROUNDS $NB $DIM $K; do
    [[ $v =~ ^[1-9][0-9]*$ ]] || die "$v: not a positive integer"
done
[[ $TILES =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] || die "--tiles $TILES: not a comma list of KiB"
[[ $PER_CALL =~ ^[0-9]+(,[0-9]+)*$ ]] || die "--per-call $PER_CALL: not a comma list of counts"
[[ $SEED =~ ^[0-9]+$ ]] || die "--seed $SEED: not a whole number"

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
cc -O2 -fopenmp -I"$SRC/kernels" "$HERE/ipsearch_tile_profile.c" \
    "$BUILD/lib/libsc_ipsearch_engine.a" "$BUILD/lib/libsc_kernel_support.a" -lopenblas -lm \
    -ldl -lpthread -o "$TMP/profile" 2>"$TMP/cc.err" ||
    die "compiling the profile failed: $(tail -3 "$TMP/cc.err")"

echo "ipsearch_tile_profile: one thread on cpu 0, L2 $(getconf LEVEL2_CACHE_SIZE 2>/dev/null || echo ?) bytes," \
    "load $(cut -d' ' -f1-3 /proc/loadavg)"
for nq in $NQS; do
    env -u OPENBLAS_NUM_THREADS OMP_NUM_THREADS=1 taskset -c 0 "$TMP/profile" profile "$NB" "$nq" \
        "$DIM" "$K" "$SEED" "$ROUNDS" "$TILES" "$PER_CALL" || die "profile at nq $nq failed"
done
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
