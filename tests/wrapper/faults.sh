#!/usr/bin/env bash
# Fault injection around a run: the kernel killed, streamcard itself killed, an output
# directory that is read-only, too small, or fills up during the run, and a bundle
# removed during the run. In every case the verdict is never ok, whatever evidence was
# written is hashed, and the error says what happened. The filesystem cases mount tmpfs:
# where that is not possible (not root, no CAP_SYS_ADMIN) the test exits 77 after the
# others, and ctest reports it as skipped (SKIP_RETURN_CODE): they did not run.
BIN=$1 SRC=$2
. "$SRC/tests/lib.sh"
# The interference gate is opened (tests/wrapper/interference.sh tests it): this test
# runs beside others under ctest -j.
ARGS=(--workload stream --kernel copy --cpu-list 0-1 --threads 2 --array-size 100000 --cache-resident accept
      --expect-max-interference 100
      --iterations 5 --quiet)
MOUNTS=()
cleanup_mounts() { for m in "${MOUNTS[@]}"; do umount "$m" 2>/dev/null || true; done; }
trap 'cleanup_mounts; rm -rf "$WORK"' EXIT

# start_hanging NAME DIR: a run whose kernel hangs in its main loop; waits for the loop.
start_hanging() {
    env STREAMCARD_FAULT=hang "$BIN/streamcard" run "${ARGS[@]}" --run-name "$1" --output "$2" \
        >"$WORK/$1.out" 2>"$WORK/$1.err" &
    PID=$!
    READY=
    for _ in $(seq 1 200); do
        READY=$(find "$2" -path "*$1_*/main_loop.ready" 2>/dev/null | head -n 1 || true)
        [ -n "$READY" ] && break
        sleep 0.05
    done
    [ -n "$READY" ] || fail "$1: the hanging kernel never reached its main loop: $(cat "$WORK/$1.err")"
    B=$(dirname "$READY")
}
# expect_exit PID N WHAT: the background run PID ended with status N (wait, not in a subshell).
expect_exit() { local s=0; wait "$1" || s=$?; [ "$s" = "$2" ] || fail "$3: exit status $s, expected $2"; }
# 1. The kernel is killed (SIGKILL) in its main loop.
start_hanging killed "$WORK/runs"
kill -9 "$(sed -n 's/^PID=//p' "$B/capture_guard.env")"
expect_exit "$PID" 1 "after the kernel's SIGKILL"
grep -qx "exit_signal=9" "$B/run.conf" || fail "exit_signal=9 not recorded"
grep -q "ERROR: workload failed" "$WORK/killed.err" || fail "no ERROR line"
# The exit gate names the signal (core/gates/gates.c), in the bundle and on stderr.
expect_contains "$B/results.json" "killed by signal 9 (Killed)"
expect_contains "$WORK/killed.err" "killed by signal 9 (Killed)"
expect_failed_bundle "$B"
echo "kernel SIGKILL: failed, sealed" >&2

# 2. streamcard itself is killed (SIGKILL): its guardian seals what was written.
start_hanging wrapper "$WORK/runs"
kill -9 "$PID"
wait "$PID" 2>/dev/null || true
for _ in $(seq 1 100); do [ -s "$B/SHA256SUMS" ] && break; sleep 0.05; done
[ -s "$B/SHA256SUMS" ] || fail "the guardian did not seal the bundle"
sleep 0.2
grep -qx "wrapper_killed=1" "$B/run.conf" || fail "wrapper_killed not recorded"
grep -q "streamcard was killed before the workload ended" "$B/results.json" ||
    fail "the exit gate does not say what happened"
expect_failed_bundle "$B"
echo "streamcard SIGKILL: guardian sealed, failed" >&2

# 3. The bundle directory is removed during the run.
start_hanging removed "$WORK/runs"
rm -rf "$B"
kill -TERM "$PID"
expect_exit "$PID" 1 "when the bundle was removed"
grep -q "was removed during the run" "$WORK/removed.err" || fail "no message: $(cat "$WORK/removed.err")"
grep -q "ERROR: workload failed" "$WORK/removed.err" || fail "no ERROR line"
echo "bundle removed during the run: failed, said so" >&2

probe="$WORK/mount-probe"
mkdir "$probe"
if [ "$(id -u)" -ne 0 ] || ! mount -t tmpfs -o size=1m tmpfs "$probe" 2>/dev/null; then
    echo "skipped: faults 4-6 (read-only, small, full output directory): mounting" \
        "tmpfs needs root with CAP_SYS_ADMIN; cases 1-3 passed" >&2
    exit 77
fi
umount "$probe"
mnt() { mkdir -p "$WORK/$1"; mount -t tmpfs -o "$2" tmpfs "$WORK/$1"; MOUNTS+=("$WORK/$1"); }

# 4. A read-only output directory: refused before anything runs.
mnt ro ro,size=8m
expect_status 3 "$BIN/streamcard" run "${ARGS[@]}" --output "$WORK/ro"
expect_contains "$WORK/err" "Read-only file system"
[ -z "$(ls -A "$WORK/ro")" ] || fail "something was written to the read-only directory"

# 5. An output directory without room for a bundle: refused before anything runs.
mnt tiny size=1m
expect_status 3 "$BIN/streamcard" run "${ARGS[@]}" --output "$WORK/tiny"
expect_contains "$WORK/err" "KiB free, a bundle needs at least"
[ -z "$(ls -A "$WORK/tiny")" ] || fail "something was written to the full directory"

# 6. The output directory fills up during the run: the reserved verdict and hashes are
# still written, the evidence gate says what was lost.
mnt full size=8m
start_hanging full "$WORK/full"
dd if=/dev/zero of="$WORK/full/filler" bs=64k >/dev/null 2>&1 || true
kill -TERM "$PID"
expect_exit "$PID" 1 "when the disk filled"
grep -q "writes into the bundle failed" "$WORK/full.err" || fail "no message: $(cat "$WORK/full.err")"
grep -qx "evidence_ok=0" "$B/run.conf" || fail "the evidence gate did not fail"
grep -q "No space left on device" "$B/run.conf" || fail "run.conf does not name the cause"
expect_failed_bundle "$B"
echo "disk full during the run: reserved files written, evidence gate failed, sealed" >&2

echo "ok: faults"
