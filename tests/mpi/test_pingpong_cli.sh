#!/usr/bin/env bash
# test_pingpong_cli.sh: streamcard-pingpong as the wrapper sees it, two ranks under mpirun
# on this machine: its exit codes, trace lines, IMB table, verdict, JSON, the transport it
# reports under the default selection and with Open MPI forced onto TCP, the test-only
# faults, and the readiness handshake guard. The ofi and ucx cases skip only when Open MPI
# says their PML cannot be selected here. No timing assertions.
#
# usage: test_pingpong_cli.sh BINARY MPIEXEC CASE
# One ctest test per CASE (tests/mpi/CMakeLists.txt). SC_PYTHON3 parses the JSON.
set -u

BIN=$1
MPIEXEC=$2
CASE=$3
PY=${SC_PYTHON3:-python3}
# shellcheck source=../workload_cli_lib.sh
. "$(dirname "$0")/../workload_cli_lib.sh"
# shellcheck source=../netns_lib.sh
. "$(dirname "$0")/../netns_lib.sh"
unset STREAMCARD_FAULT STREAMCARD_READY_FD STREAMCARD_READY_PID
# The transport under test comes from each case, not from the caller's environment.
for v in $(env | sed -n 's/^\(OMPI_MCA_\(pml\|btl\|mtl\)[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$v"; done
# TCP between the two ranks over loopback only: the cluster tests running beside these add
# and remove veth interfaces, and a TCP endpoint bound to one that just vanished fails.
export OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_oob_tcp_if_include=lo
if [ "$(id -u)" -eq 0 ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
SMALL=(--max-bytes 65536 --iterations 50) # 0, 1, 2, ... 65536: 18 sizes

# mpirun2 ARGS...: two ranks on this machine (2 cores may need --oversubscribe).
mpirun2() {
    "$MPIEXEC" -np 2 --oversubscribe "$BIN" "$@" >"$TMP/out" 2>"$TMP/err"
    RC=$?
}

has() { grep -qx -- "$1" "$TMP/out" || fail "no line: $1"; }

# skip_unless_started PML WHAT: after mpirun2 under a forced PML, skips only when the library
# said that PML cannot be selected here (Open MPI's pml_base_select.c: "PML cm cannot be
# selected", a fabric this node lacks); any other failure (a crash, a hang's kill) fails.
skip_unless_started() {
    [ "$RC" -eq 0 ] && return 0
    if grep -q "PML $1 cannot be selected" "$TMP/err" "$TMP/out"; then
        echo "SKIP: $2 cannot be selected here (exit $RC)"
        exit 77
    fi
    fail "$2: exit $RC, and the library did not say PML $1 cannot be selected: $(tail -n 5 "$TMP/err")"
}

# check_good SIZES: a validated run: protocol lines in order, one row per size.
check_good() {
    local sizes=$1
    [ "$RC" -eq 0 ] || fail "exit $RC, expected 0"
    has "Number of Ranks requested = 2"
    has "Number of Ranks counted = 2"
    [ "$(count '^TRACE_RANK_BINDING rank=[01] host=[^ ]* cpu=[0-9]* pid=[0-9]* allowed=[0-9,-]*$')" -eq 2 ] ||
        fail "TRACE_RANK_BINDING lines"
    [ "$(count '^TRACE_TRANSPORT_RANK rank=[01] ')" -eq 2 ] || fail "TRACE_TRANSPORT_RANK lines"
    [ "$(count '^TRACE_TRANSPORT transport=')" -eq 1 ] || fail "TRACE_TRANSPORT line"
    [ "$(count '^TRACE_MPI_LIBRARY rank=[01] name=libmpi loaded=yes sha256=[0-9a-f]\{64\} ')" -eq 2 ] ||
        fail "TRACE_MPI_LIBRARY libmpi lines"
    [ "$(count '^TRACE_PAYLOAD_BYTES rank=[01] netns=[0-9]* sent=[0-9]* ')" -eq 2 ] ||
        fail "TRACE_PAYLOAD_BYTES lines"
    [ "$(count '^TRACE_PAYLOAD_BYTES rank=0 netns=[0-9]* sent=[1-9][0-9]* ')" -eq 1 ] ||
        fail "rank 0 sent no payload" # (the uniband receiver sends only empty acknowledgements)
    # Each rank's own snapshot: its threads (the first one the rank's pid) and its pages.
    local r
    for r in 0 1; do
        grep -Eq "^TRACE_RANK_THREAD rank=$r host=[^ ]+ pid=([0-9]+) tid=\\1 cpu=[0-9]+$" "$TMP/out" ||
            fail "rank $r: no TRACE_RANK_THREAD of its main thread"
        [ "$(count "^TRACE_RANK_NUMA rank=$r host=[^ ]* node=[0-9]* bytes=[0-9]*$")" -ge 1 ] ||
            fail "rank $r: no TRACE_RANK_NUMA line"
    done
    # The selection's lines and each rank's snapshot before the table, the bytes and the
    # decision after the loop.
    local order
    order=$(grep -E -e '^Number of Ranks' -e '^TRACE_' -e '^ +#bytes' -e '^Solution Validates' \
        "$TMP/out" | sed 's/ rank=.*//;s/ = .*//;s/ transport=.*//;s/ (.*//;s/^ *//' |
        sed -E 's/^TRACE_(TRANSPORT_RANK|TRANSPORT_REFUSED|MPI_LIBRARY|MPI_PARAM)$/selection/' |
        sed -E 's/^TRACE_RANK_(THREAD|NUMA)$/TRACE_RANK_SNAPSHOT/' |
        sed -E 's/^TRACE_(PAYLOAD|IFACE)_BYTES$/bytes/' | uniq | tr '\n' '|')
    [ "$order" = "Number of Ranks requested|TRACE_RANK_BINDING|Number of Ranks counted|selection|TRACE_RANK_SNAPSHOT|#bytes #repetitions      t[usec]   Mbytes/sec|TRACE_WORKLOAD_PHASE=main_loop_begin|TRACE_WORKLOAD_PHASE=main_loop_end|bytes|TRACE_TRANSPORT|Solution Validates|" ] ||
        fail "line order: $order"
    grep -q 'Failed Validation' "$TMP/out" && fail "Failed Validation printed"
    grep -Eq '^Solution Validates \(mpi-pingpong: every payload checked, [1-9][0-9]* messages\)$' \
        "$TMP/out" || fail "verdict line"
    local rows
    rows=$(sed -n '/main_loop_begin/,/main_loop_end/p' "$TMP/out" |
        grep -E '^ +[0-9]+ +[0-9]+ +[0-9]+\.[0-9]{2} +[0-9]+\.[0-9]{2}$' | awk '{print $1}' |
        tr '\n' ' ')
    [ "$rows" = "$sizes " ] || fail "table sizes '$rows', expected '$sizes '"
}

# transport_is T CANDIDATES: the run's carrier, and what every rank's selection allowed.
transport_is() {
    grep -q "^TRACE_TRANSPORT transport=$1 " "$TMP/out" ||
        fail "run transport is not $1: $(grep '^TRACE_TRANSPORT ' "$TMP/out")"
    [ "$(count "^TRACE_TRANSPORT_RANK rank=[01] host=[^ ]* candidates=$2 ")" -eq 2 ] ||
        fail "rank candidates are not $2: $(grep '^TRACE_TRANSPORT_RANK' "$TMP/out")"
}


# json_check PATH VALIDATION TRANSPORT KERNEL: results.json parses and says so.
json_check() {
    "$PY" - "$@" <<'EOF' || fail "JSON check failed"
import json, sys
path, validation, transport, kernel = sys.argv[1:5]
with open(path) as f:
    d = json.load(f)
assert d["schema"] == 1 and d["workload"] == "mpi-pingpong", d
assert d["kernel"] == kernel and d["ranks"] == 2, d
m = d["metrics"]
keys = {"bytes", "repetitions", "t_usec", "MBps", "batches", "t_min_usec", "MBps_max"}
assert m["sizes"] and all(set(s) == keys for s in m["sizes"]), m
for s in m["sizes"]:
    assert s["repetitions"] % s["batches"] == 0 and 1 <= s["batches"] <= 10, s
    assert s["t_min_usec"] <= s["t_usec"] * (1 + 1e-9) and s["MBps_max"] >= s["MBps"] * (1 - 1e-9), s
assert [s["bytes"] for s in m["sizes"]][:3] == [0, 1, 2], m["sizes"]
assert m["peak_MBps"] == max(s["MBps"] for s in m["sizes"]) > 0, m
if kernel == "pingpong":
    assert isinstance(m["latency_usec_8B"], float) and m["latency_usec_8B"] > 0, m
else:
    assert m["latency_usec_8B"] is None and d["window"] == 64, d
t = d["transport"]
assert t["transport"] == transport, t["transport"]
assert t["decided"].startswith("rank 0: "), t["decided"]
assert len(t["ranks"]) == 2 and all(transport in r["candidates"] for r in t["ranks"]), t
for key in ("pml", "btl", "mtl", "provider"):
    assert isinstance(t[key], str) and t[key], (key, t)
for r in t["ranks"]:
    assert r["evidence"], r  # the library's own words the verdict rests on
    lib = r["stack"]["libmpi"]
    assert lib["loaded"] == "yes" and len(lib["sha256"]) == 64, lib
    assert lib["version"].startswith("Open MPI"), lib
    b = r["main_loop_bytes"]
    assert (b["payload_sent"] > 0 or r["rank"] == 1) and "lo" in b["interfaces"], b
    assert all(set(p) == {"name", "source", "value"} for p in r["settings"]), r["settings"]
assert len(d["bindings"]) == 2 and d["bindings"][1]["rank"] == 1, d["bindings"]
assert d["validation"] == validation, d["validation"]
assert (d["failed_checks"] == 0) == (validation == "ok"), d
assert d["messages_checked"] > 0, d
EOF
}

case "$CASE" in
shm) # the default selection on one node: shared memory (vader), and the card's shm holds
    mpirun2 "${SMALL[@]}"
    check_good "0 1 2 4 8 16 32 64 128 256 512 1024 2048 4096 8192 16384 32768 65536"
    transport_is shm shm
    grep -q '^TRACE_TRANSPORT transport=shm pml=ob1 btl=vader,self mtl=none provider=none$' \
        "$TMP/out" || fail "TRACE_TRANSPORT details"
    grep -q 'mca: bml: Using vader btl for send to' "$TMP/err" || fail "the library's report"
    # The probe's own verbosity settings are recorded as its own.
    grep -q '^TRACE_MPI_PARAM rank=0 name=btl_base_verbose source=streamcard value=1$' \
        "$TMP/out" || fail "the probe's settings"
    ;;
tcp) # the fallback reproduced: Open MPI forced onto TCP says tcp, and still measures
    OMPI_MCA_btl=tcp,self mpirun2 "${SMALL[@]}" --json "$TMP/r.json"
    check_good "0 1 2 4 8 16 32 64 128 256 512 1024 2048 4096 8192 16384 32768 65536"
    transport_is tcp tcp
    grep -q '^TRACE_TRANSPORT transport=tcp pml=ob1 btl=tcp,self ' "$TMP/out" ||
        fail "TRACE_TRANSPORT details"
    json_check "$TMP/r.json" ok tcp pingpong
    "$PY" -c 'import json,sys; r=json.load(open(sys.argv[1]))["transport"]["ranks"][0]; assert {"name": "btl", "source": "environment", "value": "tcp,self"} in r["settings"] and r["requested"]["btl"] == "tcp,self", r' \
        "$TMP/r.json" || fail "forced selection not recorded"
    grep -q '^TRACE_MPI_PARAM rank=1 name=btl source=environment value=tcp,self$' "$TMP/out" ||
        fail "the setting's line"
    ;;
fallback) # vader loads but loses the selection: only the BML's own report says tcp
    OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_vader_exclusivity=0 mpirun2 "${SMALL[@]}" \
        --json "$TMP/r.json"
    check_good "0 1 2 4 8 16 32 64 128 256 512 1024 2048 4096 8192 16384 32768 65536"
    transport_is tcp tcp
    "$PY" -c 'import json,sys; r=json.load(open(sys.argv[1]))["transport"]["ranks"][0]; assert "vader" in r["btls_open"].split(",") and r["btl"] == "tcp,self", r' \
        "$TMP/r.json" || fail "btls_open/btl"
    ;;
equal) # vader and tcp with one exclusivity: the BML names both; the bytes say shm carried
    own_netns env OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_vader_exclusivity=1024 \
        OMPI_MCA_btl_tcp_exclusivity=1024 \
        "$MPIEXEC" -np 2 --oversubscribe "$BIN" "${SMALL[@]}" >"$TMP/out" 2>"$TMP/err"
    RC=$?
    check_good "0 1 2 4 8 16 32 64 128 256 512 1024 2048 4096 8192 16384 32768 65536"
    transport_is shm tcp,shm
    # ... while a pure tcp run in the same place moves at least its payload over loopback.
    own_netns env OMPI_MCA_btl=self,tcp "$MPIEXEC" -np 2 --oversubscribe "$BIN" "${SMALL[@]}" \
        >"$TMP/out" 2>"$TMP/err"
    "$PY" - "$TMP/out" <<'EOF' || fail "pure tcp: loopback bytes"
import re, sys
text = open(sys.argv[1]).read()
sent = [int(s) for s in re.findall(r"^TRACE_PAYLOAD_BYTES rank=\d netns=\S+ sent=(\d+)", text, re.M)]
lo = [int(t) for t in re.findall(r"^TRACE_IFACE_BYTES rank=0 netns=\S+ iface=lo rx=\d+ tx=(\d+)", text, re.M)]
assert len(sent) == 2 and lo and lo[0] >= 0.9 * sum(sent), (sent, lo)
EOF
    ;;
ofi) # the OFI MTL when this node's libfabric offers a provider it accepts (else skipped)
    OMPI_MCA_pml=cm OMPI_MCA_mtl=ofi mpirun2 --max-bytes 4096 --iterations 20
    skip_unless_started cm "the OFI MTL"
    prov=$(sed -n 's/.*mtl:ofi:prov: \([^; ]*\).*/\1/p' "$TMP/err" | head -n 1)
    [ -n "$prov" ] || fail "no mtl:ofi:prov line from the library"
    transport_is "ofi:$prov" "ofi:$prov"
    grep -q "^TRACE_TRANSPORT transport=ofi:$prov pml=cm btl=none mtl=ofi provider=$prov" \
        "$TMP/out" || fail "TRACE_TRANSPORT details"
    grep -q 'in exclude list' "$TMP/err" && fail "the OFI MTL's chatter was forwarded"
    # cm starts the OFI MTL during selection even when ob1 wins: its provider is not the
    # transport then, though its lines are in the evidence.
    OMPI_MCA_mtl=ofi OMPI_MCA_pml_ob1_priority=100 mpirun2 --max-bytes 64 --iterations 10
    grep -q "mtl:ofi:prov: $prov" "$TMP/err" || fail "ob1 run: the OFI MTL did not start"
    grep -q '^TRACE_TRANSPORT transport=shm pml=ob1 btl=vader,self mtl=none provider=none$' \
        "$TMP/out" || fail "ob1 run: the unused OFI provider was reported"
    ;;
ucx) # pml ucx: UCX's own lanes name the carrier (skipped when pml ucx cannot start here)
    export OMPI_MCA_pml=ucx OMPI_MCA_pml_ucx_tls=any OMPI_MCA_pml_ucx_devices=any
    UCX_TLS=tcp,self mpirun2 --max-bytes 4096 --iterations 20
    skip_unless_started ucx "pml ucx"
    transport_is ucx:tcp ucx:tcp
    grep -q 'UCX  INFO' "$TMP/out" && fail "UCX's INFO lines, asked for by the probe, were forwarded"
    grep -q '^TRACE_MPI_LIBRARY rank=0 name=libucp loaded=yes sha256=[0-9a-f]\{64\} path=[^ ]* version=[0-9]' \
        "$TMP/out" || fail "libucp's line"
    UCX_TLS=sm,self mpirun2 --max-bytes 4096 --iterations 20
    transport_is ucx:sm ucx:sm
    ;;
uniband)
    mpirun2 --kernel uniband --max-bytes 16384 --iterations 20 --json "$TMP/r.json"
    check_good "0 1 2 4 8 16 32 64 128 256 512 1024 2048 4096 8192 16384"
    has "# Benchmarking Uniband (window 64)"
    json_check "$TMP/r.json" ok shm uniband
    ;;
json)
    mpirun2 "${SMALL[@]}" --json "$TMP/r.json"
    check_good "0 1 2 4 8 16 32 64 128 256 512 1024 2048 4096 8192 16384 32768 65536"
    json_check "$TMP/r.json" ok shm pingpong
    # The table and the JSON carry the same rows.
    "$PY" - "$TMP/r.json" "$TMP/out" <<'EOF' || fail "table and JSON differ"
import json, sys
d = json.load(open(sys.argv[1]))
rows = [l.split() for l in open(sys.argv[2]) if l.strip() and l.split()[0].isdigit()]
assert len(rows) == len(d["metrics"]["sizes"])
for r, s in zip(rows, d["metrics"]["sizes"]):
    assert int(r[0]) == s["bytes"] and int(r[1]) == s["repetitions"], (r, s)
    assert abs(float(r[2]) - s["t_usec"]) < 0.006 and abs(float(r[3]) - s["MBps"]) < 0.006, (r, s)
EOF
    ;;
transport-log) # every rank's selection lines in a file, the OFI chatter too
    OMPI_MCA_mtl=ofi OMPI_MCA_mtl_ofi_provider_include=cxi \
        mpirun2 --max-bytes 64 --iterations 10 --transport-log "$TMP/t.log"
    [ "$RC" -eq 0 ] || fail "exit $RC"
    for r in 0 1; do
        grep -q "^# rank $r on [^ ]*: what the MPI library and the fabric libraries said" \
            "$TMP/t.log" || fail "no section of rank $r"
    done
    grep -q 'mca: bml: Using vader btl for send to' "$TMP/t.log" || fail "the BML's lines"
    grep -q 'not in include list' "$TMP/t.log" || fail "the OFI MTL's reasons"
    grep -q 'not in include list' "$TMP/err" && fail "the OFI chatter reached stderr"
    # The reasons as lines, and what became of libfabric: loaded, then unloaded.
    grep -q '^TRACE_TRANSPORT_REFUSED rank=0 subject=ofi why=.*no provider found' "$TMP/out" ||
        fail "no refusal line"
    line=$(grep '^TRACE_MPI_LIBRARY rank=0 name=libfabric ' "$TMP/out")
    path=$(printf '%s\n' "$line" | sed -n 's/.* path=\([^ ]*\) .*/\1/p')
    [ -n "$path" ] || fail "libfabric's path: $line"
    case "$line" in *" loaded=unloaded sha256=$(sha256sum "$path" | cut -d' ' -f1) "*) ;;
    *) fail "libfabric's line: $line" ;; esac
    want=$(fi_info --version 2>/dev/null | sed -n 's/^libfabric: *\([0-9]*\.[0-9]*\).*/\1/p')
    [ -z "$want" ] || case "$line" in *" version=$want") ;; *) fail "version, fi_info: $want: $line" ;; esac
    # A path that cannot be written: one line, exit 1.
    mpirun2 --max-bytes 64 --iterations 10 --transport-log /nonexistent/dir/t.log
    [ "$RC" -eq 1 ] || fail "unwritable --transport-log: exit $RC"
    grep -q '^streamcard-pingpong: --transport-log: ' "$TMP/err" || fail "unwritable: message"
    ;;
repetitions) # fewer repetitions for big messages: min(N, max(10, 40 MiB / bytes))
    mpirun2 --min-bytes 1048576 --max-bytes 8388608 --iterations 1000
    check_good "1048576 2097152 4194304 8388608"
    reps=$(grep -E '^ +[0-9]+ +[0-9]+ ' "$TMP/out" | awk '{print $2}' | tr '\n' ' ')
    [ "$reps" = "40 20 10 10 " ] || fail "repetitions '$reps'"
    ;;
corrupt) # one damaged payload: Failed Validation, non-zero exit, numbers still there
    for kernel in pingpong uniband; do
        STREAMCARD_FAULT=corrupt mpirun2 --kernel "$kernel" --max-bytes 4096 --iterations 20 \
            --json "$TMP/r.json"
        [ "$RC" -ne 0 ] || fail "$kernel: exit 0 with a corrupted payload"
        [ "$(count '^Failed Validation: rank [01] received a 4096-byte message')" -eq 1 ] ||
            fail "$kernel: Failed Validation line"
        grep -q 'Solution Validates' "$TMP/out" && fail "$kernel: Solution Validates printed"
        has "TRACE_WORKLOAD_PHASE=main_loop_end"
        json_check "$TMP/r.json" failed shm "$kernel"
    done
    ;;
pairs-all) # every pair of 4 ranks in 1 pass and 5 in 2: the files of raw figures, medians, rounds
    for n in 4 5; do
        p=$((n - 3))
        "$MPIEXEC" -np "$n" --oversubscribe "$BIN" --pairs all --passes "$p" --min-bytes 8 \
            --max-bytes 1024 --iterations 20 --json "$TMP/r.json" >"$TMP/out" 2>"$TMP/err"
        RC=$?
        [ "$RC" -eq 0 ] || fail "$n ranks: exit $RC: $(cat "$TMP/err")"
        has "Number of Ranks counted = $n"
        has "Solution Validates (mpi-pingpong: every payload checked, $((p * n * (n - 1) / 2 * 8 * 2 * (20 + 2))) messages)"
        [ "$(count '^TRACE_PAYLOAD_BYTES rank=')" -eq "$n" ] || fail "$n ranks: payload lines"
        "$PY" - "$TMP/r.json" "$TMP/out" "$n" "$p" <<'EOF' || fail "$n ranks: the matrix"
import json, statistics, sys
d = json.load(open(sys.argv[1]))
n, passes = int(sys.argv[3]), int(sys.argv[4])
m = d["matrix"]
assert d["ranks"] == n and m["pairs"] == "all" and len(m["nodes"]) == n and m["passes"] == passes
assert m["rounds"] == (n - 1 if n % 2 == 0 else n), m["rounds"]
assert len(m["round_seconds"]) == m["rounds"] * passes, m["round_seconds"]
assert [s["bytes"] for s in m["sizes"]] == [8, 16, 32, 64, 128, 256, 512, 1024]
rows = [l.split() for l in open(sys.argv[2]) if l.strip() and l.split()[0].isdigit()]
for k, s in enumerate(m["sizes"]):
    # the raw figures: one file per size next to the JSON, every pair once a pass, ascending
    assert s["file"] == "matrix/%dB.csv" % s["bytes"], s["file"]
    lines = open(sys.argv[1] + "." + s["file"].replace("/", "-")).read().split("\n")
    assert lines[0] == "# streamcard link matrix: bytes=%d nodes=%d passes=%d" % (
        s["bytes"], n, passes), lines[0]
    assert lines[1] == "pass,a,b,t_usec,MBps" and lines[-1] == "", lines[1]
    pairs = [l.split(",") for l in lines[2:-1]]
    assert [(int(k), int(a), int(b)) for k, a, b, _, _ in pairs] == \
        [(k, i, j) for k in range(passes) for i in range(n) for j in range(i + 1, n)], pairs
    t = [float(p[3]) for p in pairs]
    bw = [float(p[4]) for p in pairs]
    assert all(v > 0 for v in t + bw) and s["pairs"] == len(pairs) == passes * n * (n - 1) // 2
    assert s["t_usec"] == statistics.median(t) and s["MBps"] == statistics.median(bw), s
    med = statistics.median(t)
    row = d["metrics"]["sizes"][k]
    assert abs(med - row["t_usec"]) < 1e-9 * max(1, med), (med, row)
    assert abs(row["MBps"] - s["bytes"] / med) < 1e-9 * max(1, row["MBps"]), row
    assert abs(float(rows[k][2]) - d["metrics"]["sizes"][k]["t_usec"]) < 0.006
EOF
    done
    # One rank cannot make a pair.
    "$MPIEXEC" -np 1 "$BIN" --pairs all --max-bytes 8 >"$TMP/out" 2>"$TMP/err"
    RC=$?
    [ "$RC" -eq 2 ] || fail "1 rank with --pairs all: exit $RC, expected 2"
    grep -q '^streamcard-pingpong: MPI_COMM_WORLD: 1 rank (2 or more with --pairs all' "$TMP/err" ||
        fail "1 rank: message"
    run --pairs some
    [ "$RC" -eq 2 ] || fail "--pairs some: exit $RC"
    ;;
crash)
    STREAMCARD_FAULT=crash mpirun2 "${SMALL[@]}"
    [ "$RC" -ne 0 ] || fail "exit 0 after a crash"
    has "TRACE_WORKLOAD_PHASE=main_loop_begin"
    grep -q 'main_loop_end' "$TMP/out" && fail "main_loop_end after a crash"
    ;;
hang) # rank 0 stops halfway; the launcher is stopped from outside
    STREAMCARD_FAULT=hang timeout -s TERM 20 "$MPIEXEC" -np 2 --oversubscribe "$BIN" \
        "${SMALL[@]}" >"$TMP/out" 2>"$TMP/err"
    RC=$?
    [ "$RC" -eq 124 ] || fail "exit $RC, expected the timeout's 124"
    has "TRACE_WORKLOAD_PHASE=main_loop_begin"
    grep -q 'main_loop_end' "$TMP/out" && fail "main_loop_end in a hung run"
    ;;
ready-fd) # the handshake: skipped where the observer's descriptor is not ours
    # Under mpirun the rank inherits STREAMCARD_READY_FD but not the pipe: skipped, no wait.
    "$PY" - "$MPIEXEC" "$BIN" >"$TMP/out" 2>"$TMP/err" <<'EOF' || fail "observer run"
import os, subprocess, sys
r, w = os.pipe()
os.set_inheritable(r, True)
env = dict(os.environ, STREAMCARD_READY_FD=str(r))
p = subprocess.run([sys.argv[1], "-np", "2", "--oversubscribe", sys.argv[2], "--max-bytes",
                    "1024", "--iterations", "10"], env=env, pass_fds=(r,), stdout=sys.stdout)
sys.exit(p.returncode)
EOF
    grep -Eq '^TRACE_READY_HANDSHAKE rank=0 fd=[0-9]+ used=0 why=not-open$' "$TMP/out" ||
        fail "handshake not skipped under mpirun"
    has "TRACE_WORKLOAD_PHASE=main_loop_end"
    # A process the observer started itself keeps it (a singleton: it then stops at the
    # rank count); one the observer names as another process does not.
    for want in "used=1 why=pipe" "used=0 why=other-process"; do
        "$PY" - "$BIN" "$want" >"$TMP/out" 2>"$TMP/err" <<'EOF'
import os, subprocess, sys
r, w = os.pipe()
os.set_inheritable(r, True)
env = dict(os.environ, STREAMCARD_READY_FD=str(r))
if "other" in sys.argv[2]:
    env["STREAMCARD_READY_PID"] = "1"
subprocess.run([sys.argv[1]], env=env, pass_fds=(r,), stdout=sys.stdout)
EOF
        grep -Eq "^TRACE_READY_HANDSHAKE rank=0 fd=[0-9]+ $want\$" "$TMP/out" ||
            fail "singleton: expected $want"
    done
    ;;
bad-options) # exit 2 and one line naming the option, without a launcher
    while IFS='|' read -r args env_fault want; do
        # shellcheck disable=SC2086
        STREAMCARD_FAULT=$env_fault run $args
        [ "$RC" -eq 2 ] || fail "'$args' (fault '$env_fault'): exit $RC, expected 2"
        [ "$(wc -l <"$TMP/err")" -eq 1 ] || fail "'$args': not one line"
        grep -q -- "^streamcard-pingpong: $want" "$TMP/err" || fail "'$args': message"
        [ ! -s "$TMP/out" ] || fail "'$args': stdout not empty"
    done <<'EOF'
--kernel foo||--kernel: 'foo' is not a kernel (pingpong|uniband)
--max-bytes 2147483648||--max-bytes: 2147483648 is out of range
--max-bytes 1k||--max-bytes: '1k' is not a number
--min-bytes 64 --max-bytes 8||--min-bytes: 64 is above --max-bytes 8
--iterations 0||--iterations: 0 is out of range
--window 8||--window: only the uniband kernel has a window
--kernel uniband --window 0||--window: 0 is out of range
--json||--json: missing value
--frobnicate||--frobnicate: unknown option
extra||extra: unexpected argument
|bogus|STREAMCARD_FAULT: 'bogus' is not a fault
EOF
    # Not two ranks: one line from rank 0, exit 2.
    run --max-bytes 8
    [ "$RC" -eq 2 ] || fail "singleton: exit $RC, expected 2"
    grep -q '^streamcard-pingpong: MPI_COMM_WORLD: 1 rank (exactly 2' "$TMP/err" ||
        fail "singleton message"
    "$MPIEXEC" -np 3 --oversubscribe "$BIN" --max-bytes 8 >"$TMP/out" 2>"$TMP/err"
    RC=$?
    [ "$RC" -eq 2 ] || fail "3 ranks: exit $RC, expected 2"
    [ "$(grep -c '^streamcard-pingpong: MPI_COMM_WORLD: 3 ranks' "$TMP/err")" -eq 1 ] ||
        fail "3 ranks: message"
    ;;
build-info)
    run --build-info
    [ "$RC" -eq 0 ] || fail "exit $RC"
    for key in compiler compiler_version flags mpi_library mpi_standard mpi_flags; do
        grep -q "^$key=." "$TMP/out" || fail "no $key="
    done
    grep -q '^mpi_library=Open MPI' "$TMP/out" || fail "mpi_library"
    ;;
help)
    run --help
    [ "$RC" -eq 0 ] || fail "exit $RC"
    grep -q -- '--kernel pingpong|uniband' "$TMP/out" || fail "help text"
    grep -q 'STREAMCARD_FAULT=corrupt' "$TMP/out" || fail "help: faults"
    ;;
*)
    fail "unknown case"
    ;;
esac
exit 0
