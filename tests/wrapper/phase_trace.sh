#!/usr/bin/env bash
# The phase trace of `streamcard run` (STREAMCARD_TIMINGS, doc/contracts/run.md, "Phase
# trace"): every phase of a run is named once, streamcard's own moments in the order they
# happen, the observer's between the fork and the end of its watch, in order (main_loop_end
# read and the workload reaped in either order: a short workload's exit may come first); the trace
# changes nothing in the bundle (the same files, verify passes); unset or empty, no file
# is written; a file that cannot be opened is said in one line and the run goes on.
BIN=$1 SRC=$2
. "$SRC/tests/lib.sh"

RUN=("$BIN/streamcard" run --workload ipsearch --cpu-list 0 --threads 1 --nb 2000 --nq 4
    --dim 32 --k 5 --iterations 2 --expect-max-interference 100 --quiet)

STREAMCARD_TIMINGS="$WORK/trace" expect_status 0 "${RUN[@]}" --output "$WORK/traced"
B=$(bundle_of "$WORK/out")
[ -s "$WORK/trace" ] || fail "STREAMCARD_TIMINGS=$WORK/trace wrote nothing"
"$BIN/streamcard" verify "$B" >"$WORK/verify" 2>&1 || fail "verify rejects the traced run: $(cat "$WORK/verify")"

python3 - "$WORK/trace" <<'PY' || fail "the phase trace is wrong (above); it was: $(cat "$WORK/trace")"
import sys
own = ["start", "card", "card-resolve", "machine-read", "machine-check", "plan",
       "build-info-start", "bundle-create", "run-prepare", "fork", "before.txt", "readback", "caches.txt",
       "build.json", "guardian", "observe-tail", "after.txt", "build-check", "gates",
       "results.json", "run.conf", "seal", "summary", "guardian-stop", "done"]
watch = ["fork", "workload-to-ready", "ready-capture", "main-loop", "workload-exit",
         "observe-tail"]
ends = ["ready-capture", "workload-exit", "observe-tail"]
lines = [l.split() for l in open(sys.argv[1])]
num = lambda w: w.replace(".", "", 1).isdigit()
bad = [l for l in lines if len(l) != 3 or not num(l[0]) or not (num(l[2]) or l[2] == "-")]
if bad:
    sys.exit("lines that are not '<seconds> <phase> <CPU seconds or ->': %s" % bad)
cpu = [float(l[2]) for l in lines if l[2] != "-"]
if cpu != sorted(cpu) or cpu[-1] <= cpu[0]:
    sys.exit("the CPU times do not grow: %s" % cpu)
if [l[1] for l in lines if l[2] == "-"] != ["workload-to-ready", "ready-capture", "main-loop",
                                               "workload-exit"]:
    sys.exit("the observer's moments are not the ones without CPU time")
t = {}
for sec, name, _ in lines:
    if name in t:
        sys.exit("%s named twice" % name)
    t[name] = float(sec)
missing = [n for n in own + watch if n not in t]
if missing:
    sys.exit("phases missing: %s" % missing)
order = [n for _, n, _ in lines if n in own]
if order != [n for n in own if n in order]:
    sys.exit("streamcard's own phases out of order: %s" % order)
for seq in ([n for n in own if n in t], watch[:4] + ["observe-tail"], ends):
    for a, b in zip(seq, seq[1:]):
        if t[b] < t[a]:
            sys.exit("%s (%.6f) ends before %s (%.6f)" % (b, t[b], a, t[a]))
PY

# Untraced, the same files (the trace is no evidence and changes none).
expect_status 0 "${RUN[@]}" --output "$WORK/plain"
P=$(bundle_of "$WORK/out")
(cd "$B" && find . -type f | sort) >"$WORK/traced.files"
(cd "$P" && find . -type f | sort) >"$WORK/plain.files"
diff "$WORK/traced.files" "$WORK/plain.files" >"$WORK/files.diff" ||
    fail "the traced bundle holds other files than the plain one: $(cat "$WORK/files.diff")"

# Empty: no trace, no message.
(cd "$WORK" && STREAMCARD_TIMINGS= expect_status 0 "${RUN[@]}" --output "$WORK/empty")
expect_not_contains "$WORK/err" "STREAMCARD_TIMINGS"

# A path that cannot be opened (a directory): one line, the run goes on and passes.
mkdir "$WORK/dir"
STREAMCARD_TIMINGS="$WORK/dir" expect_status 0 "${RUN[@]}" --output "$WORK/refused"
expect_contains "$WORK/err" "streamcard: STREAMCARD_TIMINGS=$WORK/dir: cannot open it: Is a directory (the run goes on untraced)"
bundle_of "$WORK/out" >/dev/null
echo "ok: phase_trace"
