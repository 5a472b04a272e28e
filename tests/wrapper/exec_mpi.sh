#!/usr/bin/env bash
# An MPI program we did not write under `workload: exec` with ranks: (doc/contracts/layout.md,
# "MPI programs under exec"): contrib/cards/exec-mpi-marker.yaml runs the example of ours
# (contrib/examples/marker-pingpong.c) as 2 ranks through mpi-pingpong's launcher; the probe
# preloaded into its ranks records the transport (transport.log, run.conf, each rank's
# lines), the `expect: transport: shm` gate holds, and fails when the card's env forces TCP
# (the silent fall-back, as tests/wrapper/bisect_transport.sh makes it); the program's two
# marker figures are metrics verify recomputes; build.json's libraries are the ranks' (the
# MPI library among them), checked by verify; each rank's interference window is its main
# loop where the program marks it (every rank's, inside MPI_Init..MPI_Finalize), else
# MPI_Init..MPI_Finalize, and one rank runs (ranks: 1); a program marked by its output's
# patterns has the observer's window there for the ranks of its host; each rank's interface
# bytes (TRACE_PAYLOAD_BYTES span=) follow the same markers, else MPI_Init..MPI_Finalize;
# `expect: interface: lo` judged by lo's share of every counted interface's bytes (in a
# namespace of its own: shm leaves lo no traffic, TCP forced over lo passes), a forged span
# refused by verify; a card with ranks: and no
# launcher on PATH is refused in one line. The interference gate is opened (max_interference_pct: 100): this
# test runs beside others under ctest -j.
BIN=$(cd "$1" && pwd) SRC=$2
. "$SRC/tests/lib.sh"
. "$SRC/tests/netns_lib.sh"
SC="$BIN/streamcard"
command -v mpirun >/dev/null || { echo "SKIP: mpirun missing (openmpi-bin)"; exit 77; }
[ -x "$BIN/streamcard-marker-pingpong" ] || fail "no streamcard-marker-pingpong in $BIN (MPI found, it is built)"
[ -e "$BIN/libstreamcard-mpiprobe.so" ] || fail "no libstreamcard-mpiprobe.so in $BIN"
# A sanitized build's probe is instrumented: preloaded into mpirun, which is not, the ASan
# runtime does not come first and mpirun stops ("ASan runtime does not come first in initial
# library list"). The sanitizer stage cannot run this test; the other stages do.
if grep -q 'lib[at]san' <<<"$(ldd "$BIN/libstreamcard-mpiprobe.so" 2>/dev/null)"; then
    echo "SKIP: a sanitized build: its instrumented transport probe cannot be preloaded into the uninstrumented mpirun"
    exit 77
fi
export PATH="$BIN:$PATH" # the card finds the example program by its name

sed -e 's/"2000"/"500"/' -e '/^  expect:$/a\    max_interference_pct: 100' \
    "$SRC/contrib/cards/exec-mpi-marker.yaml" >"$WORK/shm.yaml"
expect_contains "$WORK/shm.yaml" "max_interference_pct: 100"
expect_status 0 "$SC" run "$WORK/shm.yaml" --dry-run
expect_contains "$WORK/out" "ranks:       2, rank i on the i-th CPU of cpu_list"
grep -q "^  command:     [^ ]*mpirun -np 2 .*--cpu-list 0,1 .*streamcard-marker-pingpong 500$" "$WORK/out" ||
    fail "the plan does not start the ranks through mpirun: $(grep command: "$WORK/out")"

expect_status 0 "$SC" run "$WORK/shm.yaml" --output "$WORK/runs" --quiet
B=$(bundle_of "$WORK/out")
expect_contains "$B/run.conf" "transport=shm"
expect_contains "$B/run.conf" "transport_ok=1"
grep -q "^transport_rank=rank=1 host=.* fi_info=" "$B/run.conf" || fail "run.conf lacks rank 1's transport"
grep -q "^transport_btl=.*vader\|^transport_btl=.*sm" "$B/run.conf" || fail "run.conf lacks the shm btl"
[ -s "$B/transport.log" ] || fail "no transport.log: the probe's rank 0 did not write what MPI_Init said"
expect_contains "$B/stream.log" "TRACE_RANK_BINDING rank=1"
expect_contains "$B/stream.log" "TRACE_TRANSPORT_RANK rank=1"
expect_contains "$B/stream.log" "TRACE_TRANSPORT transport=shm"
python3 - "$B" <<'PY' || fail "the MPI program's bundle"
import json, re, sys
b = sys.argv[1]
r = json.load(open(b + "/results.json"))
log = open(b + "/stream.log").read().splitlines()
assert r["workload"] == "exec" and r["verdict"] == "ok", (r["workload"], r["verdict"])
assert r["capture"].startswith("marker library:"), r["capture"]
for g in ("thread_count", "binding", "transport", "phases", "validation"):
    assert r["gates"][g], (g, r["gates"][g], r["notes"].get(g))
# Both figures: the ones sc_marker_figure wrote, the same the program printed for a reader.
m = r["metrics"]
for name, unit, printed in (("latency_8B", "us", "Latency: "), ("bw_1MiB", "MB/s", "Bandwidth: ")):
    fig = [l for l in log if l.startswith("TRACE_FIGURE name=%s " % name)]
    assert len(fig) == 1, fig
    value = float(re.match(r"TRACE_FIGURE name=\S+ value=(\S+) unit=(\S+)$", fig[0]).group(1))
    assert m[name] == value and value > 0, (m, name, value)
    said = [l for l in log if l.startswith(printed)]
    assert abs(float(said[0].split()[1]) - value) <= 0.05 * value + 0.001, (said, value)
PY
# Every rank marks the main loop: each rank's interference window is its main loop, and the
# log holds rank 0's marker lines only (one main loop per run).
[ "$(grep -c '^TRACE_WORKLOAD_PHASE=main_loop_begin$' "$B/stream.log")" = 1 ] ||
    fail "not one main_loop_begin line: $(grep -c main_loop_begin "$B/stream.log")"
# bytes_span BUNDLE SPAN RANKS...: each rank's interface bytes cover SPAN (and nothing else).
bytes_span() {
    local b=$1 span=$2 r
    shift 2
    for r in "$@"; do
        grep -q "^TRACE_PAYLOAD_BYTES rank=$r netns=[^ ]* sent=0 uncounted_ifaces=[0-9]* span=$span\$" "$b/stream.log" ||
            fail "rank $r's bytes do not cover $span: $(grep "TRACE_PAYLOAD_BYTES rank=$r" "$b/stream.log")"
    done
    [ "$(grep -c '^TRACE_PAYLOAD_BYTES ' "$b/stream.log")" = $# ] || fail "not $# payload lines in $b"
}
for r in 0 1; do
    grep -q "^TRACE_RANK_WINDOW rank=$r span=main_loop " "$B/stream.log" ||
        fail "rank $r's window is not its main loop: $(grep "TRACE_RANK_WINDOW rank=$r" "$B/stream.log")"
done
bytes_span "$B" main_loop 0 1
expect_status 0 "$SC" verify "$B"

# build.json's libraries are the ones the ranks mapped (the probe's TRACE_RANK_LIBRARY lines),
# the MPI library among them, each hashed; verify refuses a list that leaves one out or names
# one no rank mapped, even resealed.
python3 - "$B" <<'PY' || fail "build.json's libraries are not the ranks'"
import json, re, sys
b = sys.argv[1]
libs = json.load(open(b + "/build.json"))["libraries"]
logged = set(re.findall(r"^TRACE_RANK_LIBRARY host=\S+ ranks=\d+ path=(/.*)$",
                        open(b + "/stream.log").read(), re.M))
assert {l["path"] for l in libs} == logged, ({l["path"] for l in libs} ^ logged)
mpi = [l for l in libs if re.search(r"/libmpi\.so[.0-9]*$", l["path"])]
assert mpi and re.fullmatch(r"[0-9a-f]{64}", mpi[0]["sha256"]), mpi
PY
cp -a "$B" "$WORK/libs_dropped"
python3 - "$WORK/libs_dropped/build.json" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))
d["libraries"] = [l for l in d["libraries"] if not re.search(r"/libmpi\.so", l["path"])]
json.dump(d, open(sys.argv[1], "w"))
PY
reseal "$WORK/libs_dropped"
expect_status 1 "$SC" verify "$WORK/libs_dropped"
grep -q "build.json: no library /.*libmpi.so.*, but stream.log shows the ranks mapped it" "$WORK/err" ||
    fail "verify does not name the MPI library left out: $(cat "$WORK/err")"
cp -a "$B" "$WORK/libs_added"
python3 - "$WORK/libs_added/build.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["libraries"].append({"path": "/opt/other/libmpi.so.12", "sha256": "0" * 64})
json.dump(d, open(sys.argv[1], "w"))
PY
reseal "$WORK/libs_added"
expect_status 1 "$SC" verify "$WORK/libs_added"
expect_contains "$WORK/err" "build.json: library /opt/other/libmpi.so.12, but no rank mapped it"

# The ranks' windows where the program's markers put them: inside MPI_Init..MPI_Finalize,
# inside rank 0's times just before sc_marker_begin and after sc_marker_end, and far shorter
# than MPI_Init..MPI_Finalize (300 ms of ~900). Without markers, and with one rank: the
# window is MPI_Init..MPI_Finalize, and the phases gate says which.
[ -x "$BIN/sc_test_exec_mpi_window" ] || fail "no sc_test_exec_mpi_window in $BIN (MPI found, it is built)"
cat >"$WORK/window.yaml" <<EOF
version: 1
experiment:
  question: "Where are the ranks' interference windows?"
  workload: exec
  command: [$BIN/sc_test_exec_mpi_window, markers]
  markers: library
  ranks: 2
  cpu_list: "0-1"
  validate_pattern: '^Solution Validates'
  expect:
    max_interference_pct: 100
EOF
sed -e 's/, markers\]/, none]/' -e '/markers: library/d' -e 's/ranks: 2/ranks: 1/' \
    -e 's/"0-1"/"0"/' "$WORK/window.yaml" >"$WORK/one.yaml"
expect_contains "$WORK/one.yaml" "ranks: 1"
expect_status 0 "$SC" run "$WORK/window.yaml" --output "$WORK/runs" --quiet
W=$(bundle_of "$WORK/out")
expect_status 0 "$SC" run "$WORK/one.yaml" --output "$WORK/runs" --quiet
O=$(bundle_of "$WORK/out")
python3 - "$W" "$O" <<'PY' || fail "the ranks' interference windows"
import json, re, sys
def windows(b):
    log = open(b + "/stream.log").read()
    spans = {int(m[0]): (m[1], *map(int, m[2:])) for m in re.findall(
        r"^TRACE_RANK_WINDOW rank=(\d+) span=(\S+) begin_ns=(\d+) end_ns=(\d+) "
        r"mpi_init_ns=(\d+) mpi_finalize_ns=(\d+)$", log, re.M)}
    ns = {int(r): int(n) for r, n in re.findall(
        r"^TRACE_INTERFERENCE_WINDOW source=rank(\d+) host=\S+ ns=(\d+) ", log, re.M)}
    outer = [int(x) for x in re.search(r"^loop_outer_ns=(\d+) (\d+)$", log, re.M).groups()]
    return spans, ns, outer, json.load(open(b + "/results.json"))
spans, ns, (before, after), r = windows(sys.argv[1])
assert r["verdict"] == "ok", r["verdict"]
assert sorted(spans) == [0, 1] and sorted(ns) == [0, 1], (spans, ns)
for rank, (span, begin, end, init, fin) in spans.items():
    assert span == "main_loop", (rank, span)
    assert init < begin < end < fin, (rank, init, begin, end, fin)
    assert ns[rank] < 0.6 * (fin - init), (rank, ns[rank], fin - init)
    # the window's own length lies within its stamps (begin_ns before its first /proc
    # reading, end_ns after its last) and holds the loop's 300 ms of sleep: a lower bound the
    # stamps themselves cannot give under load, where a rank may wait tens of ms between its
    # last reading and end_ns (seen: 392 ms of window between stamps 460 ms apart)
    assert 0.9 * 300e6 <= ns[rank] <= end - begin, (rank, ns[rank], end - begin)
assert before <= spans[0][1] and spans[0][2] <= after, (before, spans[0], after)
assert ns[0] <= after - before, (ns[0], after - before)
assert "2 from its main loop's markers" in r["notes"]["phases"], r["notes"]["phases"]
spans, ns, (before, after), r = windows(sys.argv[2])
assert r["verdict"] == "ok", r["verdict"]
assert sorted(spans) == [0], spans
span, begin, end, init, fin = spans[0]
assert span == "mpi_init_to_finalize" and (begin, end) == (init, fin), spans[0]
assert begin < before and after < end and ns[0] > after - before, (spans[0], before, after, ns)
assert "1 from MPI_Init to MPI_Finalize (no markers)" in r["notes"]["phases"], r["notes"]["phases"]
PY
expect_status 0 "$SC" verify "$W"
expect_status 0 "$SC" verify "$O"
bytes_span "$W" main_loop 0 1
bytes_span "$O" mpi_init_to_finalize 0

# A program marked by its output (begin_pattern, end_pattern): the ranks cannot see the log,
# so the observer accounts the card's CPUs of its host over the patterns' window and the gate
# takes it for the ranks there, not their MPI_Init..MPI_Finalize (the ranks' samplers still
# say theirs): the window is far shorter than MPI_Init..MPI_Finalize and about the 300 ms loop,
# the note says which window, and verify recomputes the same.
sed -e 's/, markers\]/, patterns]/' \
    -e "s/^  markers: library$/  begin_pattern: '^main loop begins\$'\n  end_pattern: '^main loop ends\$'/" \
    "$WORK/window.yaml" >"$WORK/patterns.yaml"
expect_contains "$WORK/patterns.yaml" "end_pattern: '^main loop ends\$'"
expect_status 0 "$SC" run "$WORK/patterns.yaml" --output "$WORK/runs" --quiet
P=$(bundle_of "$WORK/out")
python3 - "$P" <<'PY' || fail "the pattern-marked ranks' interference window"
import json, re, sys
b = sys.argv[1]
log, txt = open(b + "/stream.log").read(), open(b + "/interference.txt").read()
r = json.load(open(b + "/results.json"))
assert r["verdict"] == "ok", (r["verdict"], r["notes"])
spans = {int(m[0]): (m[1], int(m[2]), int(m[3])) for m in re.findall(
    r"^TRACE_RANK_WINDOW rank=(\d+) span=(\S+) begin_ns=\d+ end_ns=\d+ "
    r"mpi_init_ns=(\d+) mpi_finalize_ns=(\d+)$", log, re.M)}
assert sorted(spans) == [0, 1], spans
obs = re.findall(r"^TRACE_INTERFERENCE_WINDOW source=observer host=(\S+) ns=(\d+) ", txt, re.M)
assert len(obs) == 1, obs
host, ns = obs[0][0], int(obs[0][1])
cpus = {c["cpu"] for c in r["interference"]["cpus"] if c["source"] == "observer"}
assert cpus == {0, 1}, r["interference"]["cpus"]
before, after = [int(x) for x in re.search(r"^loop_outer_ns=(\d+) (\d+)$", log, re.M).groups()]
for rank, (span, init, fin) in spans.items():
    assert span == "mpi_init_to_finalize", (rank, span)
    assert ns < 0.6 * (fin - init), (rank, ns, fin - init)
    assert init < before and after < fin, (rank, init, before, after, fin)
# the loop sleeps 300 ms between the two lines; the observer reads each through the launcher
assert 0.5 * (after - before) <= ns, (ns, after - before)
note = r["notes"]["interference"]
assert "the ranks' interference windows: 2 from the card's patterns (the observer's on %s)" % host \
    in note, note
PY
expect_status 0 "$SC" verify "$P"
bytes_span "$P" mpi_init_to_finalize 0 1 # the ranks cannot see the patterns' lines
# verify recomputes the shares from the observer's records: cpu 0's, changed and resealed (to
# 100% by steal, or to none when it was already over half), is refused.
cp -a "$P" "$WORK/observer_changed"
python3 - "$WORK/observer_changed" <<'PY'
import json, re, sys
b = sys.argv[1]
r = json.load(open(b + "/results.json"))
share = [c["share_pct"] for c in r["interference"]["cpus"]
         if c["source"] == "observer" and c["cpu"] == 0][0]
txt = open(b + "/interference.txt").read()
cpu0 = r"^(TRACE_INTERFERENCE_CPU source=observer cpu=0 )(.*)$"
if share < 50:
    txt = re.sub(cpu0, lambda m: m[1] + re.sub(r"steal=\d+", "steal=1000", m[2]), txt, flags=re.M)
else:
    txt = re.sub(cpu0, lambda m: m[1] + re.sub(r"(user|system|steal)=\d+", r"\1=0", m[2]),
                 txt, flags=re.M)
    txt = re.sub(r"(source=observer .*run_delay_ns=)\d+", r"\g<1>0", txt)
open(b + "/interference.txt", "w").write(txt)
PY
reseal "$WORK/observer_changed"
expect_status 1 "$SC" verify "$WORK/observer_changed"
expect_contains "$WORK/err" "results.json: interference says cpu 0 had"

# A results.json that claims another latency than the log's is refused, even resealed.
claim_other_figure "$B" latency_8B

# The silent fall-back to TCP (loopback only, so it runs anywhere): the gate fails naming both.
sed '/^  ranks: 2$/a\  env:\n    OMPI_MCA_btl: "tcp,self"\n    OMPI_MCA_btl_tcp_if_include: lo' \
    "$WORK/shm.yaml" >"$WORK/tcp.yaml"
expect_contains "$WORK/tcp.yaml" "OMPI_MCA_btl_tcp_if_include: lo"
expect_status 1 "$SC" run "$WORK/tcp.yaml" --output "$WORK/runs" --quiet
T=$(bundle_of "$WORK/out")
expect_failed_bundle "$T" transport_ok
expect_contains "$WORK/err" "expected transport shm, the data went over tcp"
expect_contains "$T/run.conf" "transport=tcp"

# expect: interface: lo. The program's payload is unknown, so lo must have sent 90% of what
# every counted interface sent over the ranks' windows, here the main loop's markers. Each
# run has a network namespace of its own (only lo; as it is, the machine's, when none can be
# made), so other tests' loopback traffic is not counted. Over shared memory lo carries none
# of the ranks' bytes: whatever it carried is other traffic, said as such (or, when Open MPI
# also offered TCP, the carrier cannot be decided without a payload: no evidence).
sed -e 's/^    transport: shm$/    interface: lo/' "$WORK/shm.yaml" >"$WORK/lo.yaml"
expect_contains "$WORK/lo.yaml" "    interface: lo"
expect_status 1 own_netns "$SC" run "$WORK/lo.yaml" --output "$WORK/runs" --quiet
L=$(bundle_of "$WORK/out")
expect_failed_bundle "$L" transport_ok
grep -qE "expected interface lo, but the ranks' carrier is shm, which a network interface does not carry|not supported by evidence: the ranks' carrier is unknown, so lo's bytes cannot be told from other traffic" "$WORK/err" ||
    fail "lo over shared memory: not refused as other traffic: $(cat "$WORK/err")"
# TCP forced over lo: lo carried it, over the main loop's markers.
sed '/^  ranks: 2$/a\  env:\n    OMPI_MCA_btl: "tcp,self"\n    OMPI_MCA_btl_tcp_if_include: lo' \
    "$WORK/lo.yaml" >"$WORK/tcp_lo.yaml"
expect_contains "$WORK/tcp_lo.yaml" "OMPI_MCA_btl_tcp_if_include: lo"
expect_status 0 own_netns "$SC" run "$WORK/tcp_lo.yaml" --output "$WORK/runs" --quiet
TL=$(bundle_of "$WORK/out")
bytes_span "$TL" main_loop 0 1
grep -q "^transport_ok=1$" "$TL/run.conf" || fail "the transport gate did not pass: $(cat "$WORK/err")"
python3 - "$TL" <<'PY' || fail "lo's share over the main loop"
import json, re, sys
r = json.load(open(sys.argv[1] + "/results.json"))
note = r["notes"]["transport"]
m = re.search(r"interface lo carried (\d+) of the (\d+) bytes the counted interfaces sent "
              r"\(([0-9.]+)%\) over the main loop's markers, the ranks' carrier tcp: \d+ bytes "
              r"through lo", note)
assert m and int(m[1]) > 2**20 and float(m[3]) >= 90, note
PY
expect_status 0 "$SC" verify "$TL"
# A span the protocol does not know, forged into the log and run.conf and resealed: the
# line is malformed and verify says the gates disagree.
cp -a "$TL" "$WORK/span_forged"
sed -i 's/^\(TRACE_PAYLOAD_BYTES rank=1 .*\) span=main_loop$/\1 span=the_good_part/' \
    "$WORK/span_forged/stream.log"
sed -i 's/^\(transport_payload=rank=1 .*\) span=main_loop$/\1 span=the_good_part/' \
    "$WORK/span_forged/run.conf"
expect_contains "$WORK/span_forged/stream.log" "span=the_good_part"
expect_contains "$WORK/span_forged/run.conf" "span=the_good_part"
reseal "$WORK/span_forged"
expect_status 1 "$SC" verify "$WORK/span_forged"
expect_contains "$WORK/err" "disagrees with the raw files (malformed trace line at log line"

# ranks: with no launcher on PATH: refused in one line, nothing run.
sed "s|\[streamcard-marker-pingpong,|[$BIN/streamcard-marker-pingpong,|" "$WORK/shm.yaml" >"$WORK/abs.yaml"
mkdir "$WORK/empty"
expect_status 3 env PATH="$WORK/empty" "$SC" run "$WORK/abs.yaml" --output "$WORK/runs" --quiet
expect_contains "$WORK/err" "streamcard: ranks: no MPI launcher: mpirun is not an executable file on PATH (valid: Open MPI's mpirun on PATH"
[ "$(wc -l <"$WORK/err")" = 1 ] || fail "more than one line for a missing launcher: $(cat "$WORK/err")"
echo "ok: an MPI program under exec, its transport proven"
