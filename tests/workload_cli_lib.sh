# shellcheck shell=bash
# workload_cli_lib.sh: what the tests of the workload binaries share
# (tests/kernels/test_stream_cli.sh, test_ipsearch_cli.sh, tests/mpi/test_pingpong_cli.sh):
# a scratch directory $TMP, fail (naming the case and showing the outputs), run and count.
# Source it after setting BIN and CASE.
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

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
