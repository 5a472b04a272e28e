#!/usr/bin/env bash
# The workload's environment (doc/contracts/environment.md): the card's OMP_PROC_BIND reaches
# the OpenMP runtime (its own OMP_DISPLAY_ENV says so), once; variables that would
# contradict the card's CPUs are refused; inherited variables that change performance are
# said after the gate table, in compare and in the report, with what they do on this CPU.
BIN=$1 SRC=$2
. "$SRC/tests/lib.sh"
cd "$WORK"

small_card bind.yaml "" '  env:' '    OMP_PROC_BIND: spread' '    OMP_DISPLAY_ENV: "true"'
expect_status 0 "$BIN/streamcard" run bind.yaml --dry-run
expect_contains "$WORK/out" "OMP_PROC_BIND=spread (the card's)"
expect_status 0 "$BIN/streamcard" run bind.yaml --output "$WORK/runs" --quiet
B=$(bundle_of "$WORK/out")
# What the runtime read, in its own words, and one entry of the name in the environment.
grep -Eq "^ *OMP_PROC_BIND = '(SPREAD|spread)'" "$B/stream.log" ||
    fail "the runtime did not read the card's spread: $(grep PROC_BIND "$B/stream.log")"
[ "$(grep -c '^OMP_PROC_BIND=' "$B/environ_at_ready.txt")" -eq 1 ] ||
    fail "OMP_PROC_BIND given twice: $(cat "$B/environ_at_ready.txt")"
expect_contains "$B/environ_at_ready.txt" "OMP_PROC_BIND=spread"
expect_contains "$B/run.conf" "omp_env=OMP_NUM_THREADS=2 OMP_PLACES={0},{1} OMP_PROC_BIND=spread (the card's)"
expect_status 0 "$BIN/streamcard" verify "$B"

# A card that would bind its threads another way than cpu_list is refused, one line each.
small_card affinity.yaml "" '  env:' '    GOMP_CPU_AFFINITY: "0 1"' '    KMP_AFFINITY: compact'
expect_status 2 "$BIN/streamcard" run affinity.yaml --dry-run
expect_contains "$WORK/err" "env: GOMP_CPU_AFFINITY would contradict the OMP_PLACES streamcard sets from cpu_list"
expect_contains "$WORK/err" "env: KMP_AFFINITY would contradict the OMP_PLACES streamcard sets from cpu_list"
expect_line_count "$WORK/err" 2

# Inherited: said after the gate table, with what it does here; the card's own is not.
small_card plain.yaml "" '  env:' '    OMP_WAIT_POLICY: ACTIVE'
expect_status 0 env OPENBLAS_CORETYPE=Haswell OPENBLAS_NUM_THREADS=3 OMP_WAIT_POLICY=PASSIVE \
    "$BIN/streamcard" run plain.yaml --output "$WORK/runs" --quiet
H=$(bundle_of "$WORK/out")
expect_contains "$WORK/err" "streamcard: inherited environment and library choices that change performance"
expect_contains "$WORK/err" "  OPENBLAS_CORETYPE=Haswell: OpenBLAS's Haswell kernels (AVX2)"
expect_contains "$WORK/err" "  OPENBLAS_NUM_THREADS=3: 3 threads per BLAS call"
expect_not_contains "$WORK/err" "OMP_WAIT_POLICY=" # the card's own
grep -q '^flags.*avx512f' /proc/cpuinfo && expect_contains "$WORK/err" "on a CPU with AVX-512: its widest vectors unused"
expect_status 0 env -u OPENBLAS_CORETYPE -u OPENBLAS_NUM_THREADS -u OMPI_MCA_orte_tmpdir_base \
    "$BIN/streamcard" run plain.yaml \
    --output "$WORK/runs" --quiet
P=$(bundle_of "$WORK/out")
expect_not_contains "$WORK/err" "inherited environment and library choices that change performance"

# compare names them per side; the report shows them in the bundle's section.
"$BIN/streamcard" compare "$P" "$H" >"$WORK/c" 2>&1 || true
expect_contains "$WORK/c" "B inherited environment and library choices that change performance:"
expect_contains "$WORK/c" "    OPENBLAS_CORETYPE=Haswell: OpenBLAS's Haswell kernels (AVX2)"
expect_not_contains "$WORK/c" "A inherited environment"
"$BIN/streamcard" report "$H" -o "$WORK/r.html" >/dev/null 2>&1 || true
expect_contains "$WORK/r.html" "Inherited environment and library choices that change performance"
expect_contains "$WORK/r.html" "OPENBLAS_CORETYPE=Haswell: OpenBLAS"
# The BLAS's own choice: an ipsearch run without OPENBLAS_CORETYPE says when the core type
# OpenBLAS chose is narrower than the CPU (OpenBLAS 0.3.21 on an Emerald Rapids: Prescott,
# SSE3, on AVX-512), and nothing when it is as wide; told by OPENBLAS_CORETYPE, only that
# variable's line speaks.
ip_args=(--workload ipsearch --cpu-list 0 --threads 1 --nb 2000 --nq 64 --iterations 2
         --expect-max-interference 100 --output "$WORK/runs" --quiet)
expect_status 0 env -u OPENBLAS_CORETYPE "$BIN/streamcard" run "${ip_args[@]}"
I=$(bundle_of "$WORK/out")
core=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["blas_corename"])' "$I/build.json")
echo "OpenBLAS chose core type $core on this CPU"
case $core in
Prescott|PRESCOTT)
    if grep -q '^flags.*avx512f' /proc/cpuinfo; then
        expect_contains "$WORK/err" "  blas_core=$core: OpenBLAS's $core kernels (SSE3) on a CPU with AVX-512: its widest vectors unused; chosen by the library itself (it does not know this CPU; OPENBLAS_CORETYPE=SkylakeX would use them)"
        "$BIN/streamcard" report "$I" -o "$WORK/i.html" >/dev/null 2>&1 || true
        expect_contains "$WORK/i.html" "blas_core=$core: OpenBLAS"
    fi ;;
SkylakeX|SKYLAKEX|Cooperlake|COOPERLAKE|SapphireRapids|SAPPHIRERAPIDS)
    expect_not_contains "$WORK/err" "blas_core=" ;;
esac
expect_status 0 env OPENBLAS_CORETYPE=Prescott "$BIN/streamcard" run "${ip_args[@]}"
expect_not_contains "$WORK/err" "blas_core="
expect_contains "$WORK/err" "  OPENBLAS_CORETYPE=Prescott: OpenBLAS's Prescott kernels (SSE3)"
echo PASS
