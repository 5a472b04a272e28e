#!/usr/bin/env bash
# run_breakdown.sh: where does the time `streamcard run` adds go? R watched ipsearch runs
# (default card, small sizes: the fixed cost shows) under strace, which stops only at the
# process calls (execve, clone, wait4, poll, exit_group; --seccomp-bpf: nothing else is slowed),
# and once under perf (cpu-clock, every process it starts). Per run, from the timestamps:
#   launch   streamcard's execve -> the workload's execve (plan, bundle, build.json, guardian)
#   handshake the workload's wait at main_loop_begin (ready_wait_ms of its run.conf: the
#            observer's snapshots and the interference window's first sample)
#   tail     the workload's exit -> streamcard's exit (platform/after.txt, gates, results,
#            run.conf, SHA256SUMS)
#   build-info  the --build-info child's execve -> exit, and how long streamcard waited for it
# then the medians, and perf's CPU time per process and library (where the CPU goes).
# --tmp DIR: where the bundles go (default /tmp; a tmpfs takes the file system's cost out).
# A benchmark, not a test: it asserts nothing and is not run by ctest.
#
# usage: tests/bench/run_breakdown.sh [--bin DIR] [--threads N] [--rounds R] [--nb N] [--nq N]
#                                     [--tmp DIR] [--no-perf]
set -euo pipefail

BIN="$(cd "$(dirname "$0")/../.." && pwd)/build/bin"
THREADS=2 ROUNDS=7 NB=1000 NQ=1 PERF=1 TMP=/tmp
while [ $# -gt 0 ]; do
    case $1 in
    --bin) BIN=$2; shift 2 ;;
    --threads) THREADS=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --nb) NB=$2; shift 2 ;;
    --nq) NQ=$2; shift 2 ;;
    --no-perf) PERF=0; shift ;;
    --tmp) TMP=$2; shift 2 ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "run_breakdown: unknown option $1" >&2; exit 2 ;;
    esac
done
[ -x "$BIN/streamcard" ] && [ -x "$BIN/streamcard-ipsearch" ] || {
    echo "run_breakdown: build first (cmake --build build); looked in $BIN" >&2; exit 2; }
command -v strace >/dev/null || { echo "run_breakdown: needs strace" >&2; exit 2; }

WORK=$(mktemp -d "$TMP/streamcard-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
CPUS="0-$((THREADS - 1))"
RUN=("$BIN/streamcard" run --workload ipsearch --cpu-list "$CPUS" --threads "$THREADS"
    --nb "$NB" --nq "$NQ" --dim 128 --k 10 --iterations 3 --quiet)

echo "run_breakdown: ipsearch nb=$NB nq=$NQ, $THREADS threads on CPUs $CPUS, $ROUNDS runs;" \
    "load: $(cut -d' ' -f1-3 /proc/loadavg)"
"${RUN[@]}" --output "$WORK/warm" >/dev/null 2>&1 || true # fills the hash cache
for r in $(seq 1 "$ROUNDS"); do
    strace -f -ttt --seccomp-bpf -e trace=execve,clone,clone3,vfork,fork,wait4,poll,exit_group \
        -o "$WORK/trace.$r" "${RUN[@]}" --output "$WORK/runs.$r" >"$WORK/out.$r" 2>/dev/null || true
    b=$(sed -n 's/^BUNDLE=//p' "$WORK/out.$r")
    sed -n 's/^ready_wait_ms=//p' "$b/run.conf" >"$WORK/wait.$r"
done

python3 - "$WORK" "$ROUNDS" "$BIN/streamcard-ipsearch" <<'PY'
import re, statistics, sys
work, rounds, kernel = sys.argv[1], int(sys.argv[2]), sys.argv[3]
line_re = re.compile(r'^(\d+)\s+(\d+\.\d+)\s+(.*)$')
rows = []
for r in range(1, rounds + 1):
    ev = []
    for line in open(f"{work}/trace.{r}"):
        m = line_re.match(line)
        if m:
            ev.append((int(m.group(1)), float(m.group(2)), m.group(3)))
    main = ev[0][0]
    t0 = next(t for p, t, s in ev if p == main and s.startswith("execve("))
    t_end = max(t for p, t, s in ev if p == main and s.startswith("exit_group("))
    execs = [(p, t, s) for p, t, s in ev if s.startswith("execve(") and kernel in s.split(",")[0]]
    info = next(((p, t) for p, t, s in execs if "--build-info" in s), None)
    work_exec = next(((p, t) for p, t, s in execs if "--build-info" not in s), None)
    if not work_exec:
        continue
    wp, wt = work_exec
    w_exit = next(t for p, t, s in ev if p == wp and s.startswith("exit_group("))
    row = {"launch": (wt - t0) * 1e3, "workload": (w_exit - wt) * 1e3,
           "tail": (t_end - w_exit) * 1e3, "total": (t_end - t0) * 1e3}
    try:
        row["handshake"] = float(open(f"{work}/wait.{r}").read().strip())
    except ValueError:
        row["handshake"] = float("nan")
    if info:
        ip, it = info
        iexit = next(t for p, t, s in ev if p == ip and s.startswith("exit_group("))
        row["build-info"] = (iexit - it) * 1e3
        # streamcard's wait for its answer: from its first poll of the child's pipe to the
        # wait4 that reaped it (both before the workload starts)
        reaped = [t for p, t, s in ev if p == main and t < wt and
                  ((s.startswith(f"wait4({ip},") and "<unfinished" not in s) or
                   (s.startswith("<... wait4 resumed>") and f"= {ip}" in s))]
        polls = [t for p, t, s in ev if p == main and it <= t < wt and s.startswith("poll(")]
        row["waited for build-info"] = (reaped[0] - polls[0]) * 1e3 \
            if reaped and polls else float("nan")
    rows.append(row)
keys = ["total", "launch", "build-info", "waited for build-info", "workload", "handshake", "tail"]
print(f"{'phase (ms)':24s} {'median':>9s} {'min':>9s} {'max':>9s}   ({len(rows)} runs)")
for k in keys:
    v = [r[k] for r in rows if k in r and r[k] == r[k]]
    if v:
        print(f"{k:24s} {statistics.median(v):9.2f} {min(v):9.2f} {max(v):9.2f}")
PY

if [ "$PERF" = 1 ] && command -v perf >/dev/null; then
    # -N -B: perf's build-id cache hard-links every library it saw, which changes their
    # ctime and so empties streamcard's hash cache.
    echo "CPU per process and library (perf, cpu-clock, one run; ms = samples at 10 kHz / 10):"
    perf record -q -N -B -e cpu-clock -F 10000 -o "$WORK/perf.data" -- \
        "${RUN[@]}" --output "$WORK/perf" >/dev/null 2>&1 || true
    perf report -i "$WORK/perf.data" --stdio --sort comm,dso -F overhead,sample,comm,dso 2>/dev/null |
        awk '/^#/ || NF == 0 { next } { $2 = sprintf("%8.1f ms", $2 / 10); print "  " $0 }' | head -25
fi
