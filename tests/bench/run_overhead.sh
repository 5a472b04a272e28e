#!/usr/bin/env bash
# run_overhead.sh: what does `streamcard run` add to a workload, and where does each of its
# milliseconds go? For each workload at its smallest sensible card (stream: Copy, 2M
# elements, 10 iterations; ipsearch: nb=1000 nq=1 dim=128 k=10, 3 iterations; mpi-pingpong:
# 2 ranks, 1 B to 1 KiB, 100 iterations) the kernel binary alone, started with the
# plan's own command (`streamcard run --dry-run`: same arguments, same launcher), the same
# environment (OMP_NUM_THREADS, OMP_PLACES, OMP_PROC_BIND) and the same binding (CPU
# affinity, and for STREAM the strict membind, set in the child before the exec, as the
# observer does: no taskset or numactl process in between), against the same card under
# `streamcard run`, in interleaved pairs whose order alternates (A B, B A, ...), after one
# watched run that fills the hash and answer caches (shown apart: the cost of a first run
# with a new binary; the caches are the bench's own, XDG_CACHE_HOME in its folder, which
# nothing else fills or evicts, and a run with --cache-home DIR uses DIR). Per workload: the wall and CPU time (user + system of every process)
# of each side, median [min-max], and the difference per pair, taken apart by the watched
# run's phase trace into streamcard's own phases (before the fork, after the workload: no
# workload noise enters them) and the workload's longer time watched (the rest); then where the watched
# run's time goes, from its phase trace (STREAMCARD_TIMINGS, doc/contracts/run.md, "Phase
# trace"): the phases before the workload, the first files written while it starts, the
# workload's own phases as the observer saw them (and its wait at main_loop_begin as the
# workload measured it, ready_wait_ms; the snapshots' time, ready_capture; for MPI the CPU
# time of the ranks' own interference samplers, from their records in stream.log), and the
# phases after it; then the workload's own phases alone and watched side by side (alone:
# when its main_loop_begin and main_loop_end lines arrived, and its end; watched: the
# observer's moments from the fork), which says what watching adds inside the workload
# (for MPI, mpirun's start-up and end are most of it). The load is printed
# before and after each workload: on a shared machine the figures are noisy, and the
# workload's own time swings by more than the overhead: use many rounds (15 by default).
# --tmp DIR puts the bundles and the kernel's own results there (default /tmp; /dev/shm
# takes the file system's cost out).
# --rates: the older question instead, does watching disturb the workload? STREAM's best
# rate alone and watched (--array-size, --iterations, --kernel), and the capture latency
# at main_loop_begin that each run records in run.conf.
# A benchmark, not a test: it asserts nothing and is not run by ctest.
#
# usage: tests/bench/run_overhead.sh [--bin DIR] [--workload all|stream|ipsearch|mpi]
#                                    [--rounds R] [--threads N] [--tmp DIR] [--cache-home DIR]
#        tests/bench/run_overhead.sh --rates [--bin DIR] [--threads N] [--array-size N]
#                                    [--iterations N] [--kernel K] [--rounds R]
set -euo pipefail

BIN="$(cd "$(dirname "$0")/../.." && pwd)/build/bin"
THREADS=2 ROUNDS=15 WORKLOAD=all TMP=/tmp RATES=0 CACHE_HOME=
ARRAY_SIZE=40000000 ITERATIONS=30 KERNEL=copy
while [ $# -gt 0 ]; do
    case $1 in
    --bin) BIN=$2; shift 2 ;;
    --threads) THREADS=$2; shift 2 ;;
    --rounds) ROUNDS=$2; shift 2 ;;
    --workload) WORKLOAD=$2; shift 2 ;;
    --tmp) TMP=$2; shift 2 ;;
    --rates) RATES=1; shift ;;
    --cache-home) CACHE_HOME=$2; shift 2 ;;
    --array-size) ARRAY_SIZE=$2; shift 2 ;;
    --iterations) ITERATIONS=$2; shift 2 ;;
    --kernel) KERNEL=$2; shift 2 ;;
    -h|--help) sed -n '2,38p' "$0"; exit 0 ;;
    *) echo "run_overhead: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done
[ -x "$BIN/streamcard" ] && [ -x "$BIN/streamcard-stream" ] && [ -x "$BIN/streamcard-ipsearch" ] || {
    echo "run_overhead: build first (cmake --build build); looked in $BIN" >&2; exit 2; }
case $WORKLOAD in all | stream | ipsearch | mpi) ;;
*) echo "run_overhead: --workload $WORKLOAD (valid: all, stream, ipsearch, mpi)" >&2; exit 2 ;;
esac

CPUS="0-$((THREADS - 1))"
WORK=$(mktemp -d "$TMP/streamcard-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export XDG_CACHE_HOME=${CACHE_HOME:-$WORK/cache}

if [ "$RATES" = 1 ]; then
    PLACES=$(seq -s, 0 $((THREADS - 1)) | sed 's/\([0-9]*\)/{\1}/g')
    ARGS=(--kernel "$KERNEL" --array-size "$ARRAY_SIZE" --iterations "$ITERATIONS" --nt-stores auto)
    label=$(tr '[:lower:]' '[:upper:]' <<<"${KERNEL:0:1}")${KERNEL:1}
    median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
    echo "run_overhead --rates: $KERNEL, $THREADS threads on CPUs $CPUS, array_size $ARRAY_SIZE," \
        "$ITERATIONS iterations, $ROUNDS rounds (alone, watched interleaved)"
    : >"$WORK/alone"; : >"$WORK/watched"; : >"$WORK/latency"
    for r in $(seq 1 "$ROUNDS"); do
        a=$(env OMP_NUM_THREADS="$THREADS" OMP_PLACES="$PLACES" OMP_PROC_BIND=close \
            numactl --membind=0 taskset -c "$CPUS" "$BIN/streamcard-stream" "${ARGS[@]}" |
            awk -v l="$label:" '$1 == l { print $2 }')
        "$BIN/streamcard" run --workload stream --kernel "$KERNEL" --cpu-list "$CPUS" \
            --threads "$THREADS" --memory-node 0 --array-size "$ARRAY_SIZE" \
            --iterations "$ITERATIONS" --output "$WORK" --quiet >"$WORK/out" 2>/dev/null || true
        b=$(sed -n 's/^BUNDLE=//p' "$WORK/out")
        w=$(sed -n 's/^best_rate_MBps=//p' "$b/run.conf")
        l=$(sed -n 's/^ready_capture_ms=//p' "$b/run.conf")
        rm -rf "$b"
        echo "$a" >>"$WORK/alone"; echo "$w" >>"$WORK/watched"; echo "$l" >>"$WORK/latency"
        printf '  round %d: alone %10.1f MB/s   watched %10.1f MB/s   capture %6.2f ms\n' "$r" "$a" "$w" "$l"
    done
    ma=$(median <"$WORK/alone"); mw=$(median <"$WORK/watched")
    echo "median best rate: alone $ma MB/s, watched $mw MB/s, ratio watched/alone $(echo "scale=4; $mw / $ma" | bc)"
    echo "capture latency at main_loop_begin: median $(median <"$WORK/latency") ms," \
        "max $(sort -g "$WORK/latency" | tail -n 1) ms (target: within 20 ms)"
    exit 0
fi

[ "$WORKLOAD" != mpi ] || command -v mpirun >/dev/null || {
    echo "run_overhead: --workload mpi needs mpirun (Open MPI)" >&2; exit 2; }

# Not exec: the trap above removes the bench's folder (its bundles) when Python ends.
python3 - "$BIN" "$WORKLOAD" "$ROUNDS" "$THREADS" "$CPUS" "$WORK" <<'PY'
import ctypes, os, resource, shutil, statistics, subprocess, sys, time

BIN, WHICH, ROUNDS, THREADS, CPUS, WORK = sys.argv[1:7]
ROUNDS, THREADS = int(ROUNDS), int(THREADS)
CPU_SET = set(range(THREADS))
SC = os.path.join(BIN, "streamcard")

# The smallest sensible card of each workload, as `streamcard run` flags.
CARDS = {
    "stream": ["--workload", "stream", "--kernel", "copy", "--cpu-list", CPUS, "--threads",
               str(THREADS), "--memory-node", "0", "--array-size", "2000000", "--iterations", "10",
               "--cache-resident", "accept"],
    "ipsearch": ["--workload", "ipsearch", "--cpu-list", CPUS, "--threads", str(THREADS),
                 "--nb", "1000", "--nq", "1", "--dim", "128", "--k", "10", "--iterations", "3"],
    "mpi": ["--workload", "mpi-pingpong", "--kernel", "pingpong", "--cpu-list", "0-1",
            "--min-bytes", "1", "--max-bytes", "1024", "--iterations", "100"],
}
MEMBIND = {"stream": 0}

# The watched run's phases, each the time from the previous mark of streamcard's own
# thread to this one (doc/contracts/run.md, "Phase trace"), with what it holds.
OWN = [
    ("start", "exec -> main: the loader, libraries, their constructors"),
    ("card", "options and card parsed, card rules"),
    ("card-resolve", "one_per_core, array_size auto"),
    ("machine-read", "the machine under /sys, the card's machine rules"),
    ("hwloc-topology", "hwloc topology load (STREAM's caches)"),
    ("hwloc-remembered", "STREAM's caches from the answer cache (no topology)"),
    ("machine-check", "the caches' rule, remembered probe"),
    ("plan", "the plan: binary, argv, environment"),
    ("build-info-start", "--build-info: the answer cache (or the child started)"),
    ("bundle-create", "bundle directory, temporary directory"),
    ("run-prepare", "stream.log, run paths"),
    ("fork", "fork of the workload (exec follows in the child)"),
    ("before.txt", "card.yaml, platform/before.txt  [workload starting]"),
    ("readback", "prefetch registers (root)        [workload starting]"),
    ("caches.txt", "platform/caches.txt             [workload starting]"),
    ("build.json", "build.json (hash cache)         [workload starting]"),
    ("guardian", "guardian fork                    [workload starting]"),
    ("observe-tail", "the workload, watched: see below, then the last samples"),
    ("after.txt", "platform/after.txt"),
    ("build-check", "remembered --build-info checked"),
    ("gates", "the run's files read, its gates"),
    ("results.json", "results.json (and mpi_stack)"),
    ("run.conf", "run.conf"),
    ("seal", "SHA256SUMS"),
    ("summary", "the summary printed"),
    ("guardian-stop", "guardian reaped (told at the seal)"),
    ("done", "the series' end, freed"),
    ("exit", "exit -> reaped by the caller"),
]
WATCH = [  # the observer's moments, from the fork
    ("fork", "workload-to-ready", "exec, start-up, data, up to main_loop_begin"),
    ("workload-to-ready", "ready-capture", "snapshots at main_loop_begin, then released"),
    ("ready-capture", "main-loop", "main loop (to main_loop_end)"),
    ("main-loop", "workload-exit", "main_loop_end -> exit, reaped"),
]


def plan_command(w):
    """The workload's command as the plan has it (--dry-run), with its own output files."""
    out = subprocess.run([SC, "run", *CARDS[w], "--dry-run", "--output", WORK],
                         capture_output=True, text=True)
    line = next((l for l in out.stdout.splitlines() if l.startswith("  command:")), None)
    if out.returncode != 0 or not line:
        sys.exit("run_overhead: no plan for %s: %s" % (w, out.stderr.strip()))
    argv = line.split()[1:]
    argv += ["--json", os.path.join(WORK, "alone.json")]
    if w == "mpi":
        argv += ["--transport-log", os.path.join(WORK, "alone-transport.log")]
    return argv


def alone_env(w):
    env = {k: v for k, v in os.environ.items() if k not in (
        "OMP_NUM_THREADS", "OMP_PLACES", "OMP_PROC_BIND", "GOMP_CPU_AFFINITY", "KMP_AFFINITY")}
    env.update(OMP_NUM_THREADS=str(THREADS), OMP_PROC_BIND="close",
               OMP_PLACES=",".join("{%d}" % c for c in sorted(CPU_SET)))
    if w == "mpi" and os.geteuid() == 0:
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    return env


LIBC = ctypes.CDLL(None, use_errno=True)


def binder(w):
    """The binding the observer sets between fork and exec: affinity, strict membind."""
    node = MEMBIND.get(w)

    def bind():
        os.sched_setaffinity(0, CPU_SET)
        if node is not None:
            mask = ctypes.c_ulong(1 << node)
            # set_mempolicy(MPOL_BIND, nodemask, maxnode): x86-64 syscall 238
            if LIBC.syscall(238, 2, ctypes.byref(mask), 65) != 0:
                os._exit(126)
    return bind


PHASE = "TRACE_WORKLOAD_PHASE="


def timed(argv, env, preexec=None):
    """(wall ms, CPU ms of every process waited for, exit status, t0 and t1 in ns, its
    output, and the moments (ns) its main_loop_begin and main_loop_end lines arrived)."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic_ns()
    p = subprocess.Popen(argv, env=env, preexec_fn=preexec, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL)
    lines, seen = [], {}
    for raw in p.stdout:  # read as it comes: when the workload's phase lines arrive
        line = raw.decode(errors="replace")
        if line.startswith(PHASE):
            seen.setdefault(line[len(PHASE):].strip(), time.monotonic_ns())
        lines.append(line)
    p.wait()
    t1 = time.monotonic_ns()
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return (t1 - t0) / 1e6, cpu * 1e3, p.returncode, t0, t1, "".join(lines), seen


def rank_samplers(bundle):
    """The MPI ranks' interference samplers (their TRACE_INTERFERENCE_WINDOW lines in
    stream.log): (their CPU ms, all ranks; their window ms, the longest), or None."""
    cpu, window, any_ = 0.0, 0.0, False
    try:
        log = open(os.path.join(bundle, "stream.log"), errors="replace")
    except OSError:
        return None
    for line in log:
        if line.startswith("TRACE_INTERFERENCE_WINDOW source=rank"):
            kv = dict(w.split("=", 1) for w in line.split()[1:] if "=" in w)
            cpu += int(kv.get("sampler_cpu_ns", 0)) / 1e6
            window = max(window, int(kv.get("ns", 0)) / 1e6)
            any_ = True
    return (cpu, window) if any_ else None


def watched(w):
    trace = os.path.join(WORK, "timings")
    outdir = os.path.join(WORK, "runs")
    if os.path.exists(trace):
        os.unlink(trace)
    env = dict(os.environ, STREAMCARD_TIMINGS=trace)
    wall, cpu, rc, t0, t1, out, _ = timed([SC, "run", *CARDS[w], "--output", outdir, "--quiet"],
                                          env)
    if rc not in (0, 1):
        sys.exit("run_overhead: streamcard run of %s failed (exit %d)" % (w, rc))
    marks, cpus = {"exec": t0 / 1e9, "exit": t1 / 1e9}, {"exec": 0.0}
    for line in open(trace) if os.path.exists(trace) else []:  # an older build: none
        t, name, c = line.split()
        marks.setdefault(name, float(t))
        if c != "-":
            cpus.setdefault(name, float(c))
    bundle = next((l[7:] for l in out.splitlines() if l.startswith("BUNDLE=")), None)
    wait, capture, gates = None, None, []
    for line in open(os.path.join(bundle, "run.conf")) if bundle else []:
        key, _, value = line.strip().partition("=")
        if key.endswith("_ok") and value == "0":
            gates.append(key[:-3])
        try:
            if key == "ready_wait_ms":
                wait = float(value)
            elif key == "ready_capture_ms":
                capture = float(value)
        except ValueError:
            pass
    samplers = rank_samplers(bundle) if bundle else None
    # Kept until the bench ends: deleting each run's ~20 files at once makes the next run's
    # files dearer on an ext4 without a journal (its allocator skips inodes deleted in the
    # last 30-330 s), a cost no user who keeps the bundles pays.
    if bundle:
        kept = os.path.join(WORK, "kept")
        os.rename(bundle, os.path.join(kept, str(len(os.listdir(kept)))))
    return wall, cpu, rc, marks, wait, cpus, capture, samplers, gates


def alone(w, argv):
    """(wall ms, CPU ms, {phase: ms from the start to its line's arrival, "exit": the end})."""
    wall, cpu, rc, t0, t1, _, seen = timed(argv, alone_env(w), binder(w))
    if rc != 0:
        sys.exit("run_overhead: %s alone failed (exit %d): %s" % (w, rc, " ".join(argv)))
    moments = {k: (v - t0) / 1e6 for k, v in seen.items()}
    moments["exit"] = (t1 - t0) / 1e6
    return wall, cpu, moments


def side_by_side(w, alone_moments, runs):
    """The workload's own phases alone and watched (ms, median [min - max]): the moments its
    phase lines arrived alone against the observer's from the fork (the watched side's
    start), so that what watching adds inside the workload shows where it is."""
    def wa(a, b):
        return [(x[3][b] - x[3][a]) * 1e3 for x in runs if a in x[3] and b in x[3]]

    def a(p, q):
        return [m[q] - m.get(p, 0.0) for m in alone_moments if q in m and (p is None or p in m)]

    mpi = w == "mpi"
    rows = [("to main_loop_begin", a(None, "main_loop_begin"), wa("fork", "workload-to-ready"),
             "start-up, MPI_Init, the probe, the ranks' samplers begin" if mpi else
             "start-up, data"),
            ("main loop", a("main_loop_begin", "main_loop_end"),
             wa("workload-to-ready", "main-loop"), "watched: the ready snapshots and release"),
            ("end -> exit", a("main_loop_end", "exit"), wa("main-loop", "workload-exit"),
             "the ranks' samplers end, results, MPI_Finalize, exit" if mpi else
             "results, exit")]
    print("  the workload alone and watched (ms from its start, by its phase lines; watched: "
          "the observer's moments from the fork):")
    for name, al, wa, what in rows:
        if al and wa:
            print("    %-18s alone %s   watched %s   %+7.2f  %s" %
                  (name, span(al), span(wa), statistics.median(wa) - statistics.median(al), what))


OWN_NAMES = [n for n, _ in OWN]


def prev_mark(m, name):
    """The mark of streamcard's own thread right before name in this run (m: its marks), in
    time: the order the phases took (hwloc-remembered comes while the workload starts, after
    readback), not the order of OWN. None when name is not in m."""
    if name not in m:
        return None
    earlier = [p for p in OWN_NAMES + ["exec"] if p != name and p in m and m[p] <= m[name]]
    return max(earlier, key=lambda p: m[p]) if earlier else None


def at(runs, name):
    """When the phase name typically ends (median s from exec), to print the phases in order."""
    v = [x[3][name] - x[3]["exec"] for x in runs if name in x[3]]
    return statistics.median(v) if v else float("inf")


def span(v):
    return "%7.2f [%7.2f - %7.2f]" % (statistics.median(v), min(v), max(v)) if v else "      -"


def load():
    return " ".join(open("/proc/loadavg").read().split()[:3])


def one(w):
    argv = plan_command(w)
    print("run_overhead: %s, %s; %d pairs (order alternating); load %s" %
          (w, " ".join(CARDS[w][1:]), ROUNDS, load()))
    alone(w, argv)  # the page cache warm for both sides
    fw, fc = watched(w)[:2]
    print("  first watched run (caches as found): %.2f ms wall, %.2f ms CPU" % (fw, fc))
    A, W, AC, WC, D, DC, runs, failed, AM = [], [], [], [], [], [], [], 0, []
    failed_gates = {}  # gate: how many watched runs failed it
    for r in range(ROUNDS):
        if r % 2 == 0:
            a, ac, am = alone(w, argv)
            x = watched(w)
        else:
            x = watched(w)
            a, ac, am = alone(w, argv)
        A.append(a); AC.append(ac); AM.append(am); W.append(x[0]); WC.append(x[1])
        D.append(x[0] - a); DC.append(x[1] - ac); runs.append(x)
        failed += x[2] == 1
        for g in x[8] if x[2] == 1 else []:
            failed_gates[g] = failed_gates.get(g, 0) + 1
    print("  %-9s wall ms %s   CPU ms %s" % ("alone", span(A), span(AC)))
    print("  %-9s wall ms %s   CPU ms %s%s" % ("watched", span(W), span(WC),
          "  (%d with a failed gate, %s: they went through every step)" %
          (failed, ", ".join("%s %d" % kv for kv in sorted(failed_gates.items())))
          if failed else ""))
    print("  %-9s wall ms %s   CPU ms %s   (per pair; target: at most 10 ms wall)" %
          ("added", span(D), span(DC)))
    # The pair's difference taken apart by the watched run's own trace: streamcard's phases
    # before the fork and after the workload was reaped (its own time, which no workload
    # noise enters), and the rest: how much longer the workload took from the fork to its
    # reaping than the alone run of its pair (contention with streamcard's work while it
    # runs, the handshake at main_loop_begin, and the workload's own swing).
    own_wall, inside = [], []
    for a, x in zip(A, runs):
        m = x[3]
        if "fork" in m and "workload-exit" in m:
            own_wall.append(((m["fork"] - m["exec"]) + (m["exit"] - m["workload-exit"])) * 1e3)
            inside.append((m["workload-exit"] - m["fork"]) * 1e3 - a)
    if own_wall:
        print("  %-9s wall ms %s   streamcard's own phases: before the fork and after the "
              "workload (phase trace)" % ("  = own", span(own_wall)))
        print("  %-9s wall ms %s   the workload's longer time watched: fork -> reaped, less "
              "its pair's alone run" % ("  + inside", span(inside)))
    print("  where the watched run's time goes (ms, median [min - max] of %d runs; the CPU"
          " time of streamcard's own process in each phase, median):" % ROUNDS)
    for name, what in sorted(OWN, key=lambda o: at(runs, o[0])):
        v, c = [], []
        for _, _, _, m, _, cp, _, _, _ in runs:
            prev = prev_mark(m, name)
            if prev:
                v.append((m[name] - m[prev]) * 1e3)
            if prev and name in cp and prev in cp:
                c.append((cp[name] - cp[prev]) * 1e3)
        if v:
            print("    %-16s %s  CPU %6s  %s" % (name, span(v), "%.2f" % statistics.median(c)
                                                if c else "-", what))
        if name == "observe-tail":
            for a_, b_, what_ in WATCH:
                v = [(x[3][b_] - x[3][a_]) * 1e3 for x in runs if a_ in x[3] and b_ in x[3]]
                if v:
                    print("      %-14s %s  %s" % (b_, span(v), what_))
            v = [x[4] for x in runs if x[4] is not None]
            if v:
                print("      %-14s %s  the workload's wait at main_loop_begin (its own clock)"
                      % ("ready_wait_ms", span(v)))
            v = [x[6] for x in runs if x[6] is not None]
            if v:
                print("      %-14s %s  the snapshots at main_loop_begin (run.conf)" %
                      ("ready_capture", span(v)))
            v = [x[7] for x in runs if x[7] is not None]
            if v:
                print("      %-14s %s  CPU of the MPI ranks' interference samplers (all ranks;"
                      " their begin and end samples), window %s" %
                      ("rank samplers", span([c for c, _ in v]), span([n for _, n in v]).strip()))
            v = [(x[3]["observe-tail"] - x[3]["workload-exit"]) * 1e3 for x in runs
                 if "workload-exit" in x[3] and "observe-tail" in x[3]]
            if v:
                print("      %-14s %s  reaped -> the observer's last sample written" %
                      ("tail", span(v)))
    ms = [x[3] for x in runs]
    before = [(m["fork"] - m["exec"]) * 1e3 for m in ms if "fork" in m]
    under = [(m["workload-exit"] - m["fork"]) * 1e3 for m in ms if "workload-exit" in m]
    after = [(m["exit"] - m["workload-exit"]) * 1e3 for m in ms if "workload-exit" in m]
    own_cpu = [x[5]["done"] * 1e3 for x in runs if "done" in x[5]]
    print("  in short: before the fork %s; fork -> workload reaped %s (alone, whole: %s);"
          " after %s; streamcard's own process used %s ms CPU" %
          (span(before).strip(), span(under).strip(), span(A).strip(), span(after).strip(),
           span(own_cpu).strip()))
    side_by_side(w, AM, runs)
    print("  load after: %s" % load())
    return (w, statistics.median(D), min(D), max(D), statistics.median(DC),
            statistics.median(own_wall) if own_wall else None)


os.makedirs(os.path.join(WORK, "kept"), exist_ok=True)
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
            if l.startswith("model name")), "unknown CPU")
print("run_overhead: %s, %d CPUs; bundles in %s" % (cpu, os.cpu_count(), WORK))
rows = [one(w) for w in (["stream", "ipsearch", "mpi"] if WHICH == "all" else [WHICH])]
print("streamcard run adds (wall ms per pair, median [min - max]; CPU ms median; its own"
      " phases' wall ms, median; load now %s):" % load())
for w, med, lo, hi, cmed, own in rows:
    print("  %-9s %7.2f [%7.2f - %7.2f]   CPU %7.2f   own %6s   %s" %
          (w, med, lo, hi, cmed, "%.2f" % own if own is not None else "-",
           "<= 10 ms" if med <= 10 else "ABOVE 10 ms"))
PY
