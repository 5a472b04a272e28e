# shellcheck shell=bash
# workload_cli_lib.sh: what the tests of the workload binaries share
# (tests/kernels/test_stream_cli.sh, test_ipsearch_cli.sh, tests/mpi/test_pingpong_cli.sh):
# a scratch directory $TMP, fail (naming the case and showing the outputs), run and count.
# Source it after setting BIN and CASE.
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# Open MPI 4.1's session directory in the test's own folder: two mpiruns that start at the
# same moment (ctest -j) race to create /tmp/ompi.<host>.<uid>, and the loser fails with
# "A call to mkdir was unable to create the desired directory ... File exists".
export OMPI_MCA_orte_tmpdir_base="$TMP"

fail() {
    echo "FAIL [$CASE]: $*" >&2
    for f in "$TMP"/out "$TMP"/err; do
        [ -s "$f" ] && { echo "--- $f" >&2; cat "$f" >&2; }
    done
    exit 1
}

# run ARGS...: the binary, stdout to $TMP/out, stderr to $TMP/err, status in $RC.
run() {
    "$BIN" "$@" >"$TMP/out" 2>"$TMP/err"
    RC=$?
}

# count TEXT: how many lines of $TMP/out hold TEXT.
count() { grep -c -- "$1" "$TMP/out"; }

# expect_crash ARGS...: with STREAMCARD_FAULT=crash the binary dies of SIGSEGV inside its
# main loop: main_loop_begin printed, main_loop_end never.
expect_crash() {
    STREAMCARD_FAULT=crash OMP_NUM_THREADS=2 run "$@"
    [ "$RC" -eq $((128 + 11)) ] || fail "exit $RC, expected death by SIGSEGV (139)"
    grep -qx 'TRACE_WORKLOAD_PHASE=main_loop_begin' "$TMP/out" || fail "no main_loop_begin"
    if grep -q 'main_loop_end' "$TMP/out"; then fail "main_loop_end after a crash"; fi
}

# expect_hang ARGS...: with STREAMCARD_FAULT=hang the binary stays in its main loop (still
# alive a second after main_loop_begin, which a run of milliseconds is not) until SIGTERM.
expect_hang() {
    local pid
    STREAMCARD_FAULT=hang OMP_NUM_THREADS=2 "$BIN" "$@" >"$TMP/out" 2>"$TMP/err" &
    pid=$!
    for _ in $(seq 1 200); do
        grep -q 'main_loop_begin' "$TMP/out" && break
        sleep 0.1
    done
    grep -qx 'TRACE_WORKLOAD_PHASE=main_loop_begin' "$TMP/out" || { kill -KILL $pid; fail "no main_loop_begin"; }
    sleep 1
    kill -0 $pid 2>/dev/null || fail "exited instead of hanging"
    kill -TERM $pid
    wait $pid
    RC=$?
    [ "$RC" -eq $((128 + 15)) ] || fail "exit $RC, expected death by SIGTERM (143)"
    if grep -q 'main_loop_end' "$TMP/out"; then fail "main_loop_end while hanging"; fi
}
