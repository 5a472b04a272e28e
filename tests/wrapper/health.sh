#!/usr/bin/env bash
# streamcard health over link matrices: a real pairs: all run of two ranks on this host
# (verified, its matrix read; two nodes: cannot judge), then copies of it whose matrix a
# forger replaced and resealed, so the answer is known: a slow node named to drain (and
# none of its pairs as links), one slow link between two healthy nodes named as that link
# (neither node drained), a healthy partition (exit 0, nothing printed), the card's
# outlier_min_pct above an effect (not named), the report's heatmaps; no matrix, a malformed one, and a tampered
# bundle refused. The judgement itself is unit-tested (core.linkmatrix); a partition with
# real slow links is tests/cluster's.
BIN=$1 SRC=$2
. "$SRC/tests/lib.sh"
command -v mpirun >/dev/null || { echo "SKIP: mpirun missing (openmpi-bin)"; exit 77; }

printf 'version: 1\nexperiment:\n  workload: mpi-pingpong\n  cpu_list: 0-1\n  pairs: all\n  ranks: 2\n  min_bytes: 8\n  max_bytes: 1024\n  iterations: 20\n  expect:\n    max_interference_pct: 100\n' >"$WORK/pairs.yaml"
mkdir -p "$WORK/runs"
expect_status 0 "$BIN/streamcard" run "$WORK/pairs.yaml" --output "$WORK/runs" --quiet
B=$(bundle_of "$WORK/out")
case "$B" in */mpi_pingpong_allpairs_*) ;; *) fail "run name: $B" ;; esac
# Its two ranks ran on this one host: a matrix of one node named twice is not judged.
expect_status 2 "$BIN/streamcard" health "$B"
expect_contains "$WORK/err" "nodes: \"$(hostname)\" is named twice (valid: one rank per node, each node once)"
[ ! -s "$WORK/out" ] || fail "one host twice, yet lines: $(cat "$WORK/out")"

# forge NAME SPEC [FROM]: a copy of bundle FROM (default B) made a run of 5 ranks on hosts
# n1..n5 (forge_ranks.py: the evidence of each rank where verify looks) whose matrix is those
# 5 nodes at 1000 MB/s and 5 us with a +-3% wobble, edited by SPEC ("node:2" every pair of n3
# at 300 MB/s and 20 us, "link:0:3" the pair n1-n4 at 350 MB/s and 15 us, "healthy",
# "small:0:3" n1-n4 10% slower, "dead:2" no figure of n3, "holes" the pairs n1-n2, n1-n4
# and n2-n5 without figures, "invented" the nodes named cn101..cn105, "four" the node n5
# left out of the matrix, "other" a healthy run on hosts m1..m5), resealed. Prints its path.
forge() {
    local dst="$WORK/runs/$1"
    cp -r "${3:-$B}" "$dst"
    local hosts=n1,n2,n3,n4,n5
    [ "$2" != other ] || hosts=m1,m2,m3,m4,m5
    python3 "$SRC/tests/wrapper/forge_ranks.py" "$dst" "$hosts"
    python3 - "$dst" "$2" <<'PY'
import glob, json, os, statistics, sys
path, spec = sys.argv[1], sys.argv[2].split(":")
legacy = spec[0] == "legacy"  # the grids in results.json, as bundles before the files
spec = spec[1:] if legacy else spec
r = json.load(open(path + "/results.json"))
n = 5
def grid(base, slow_value, effect):
    g = [[None if i == j else base * (1 + 0.03 * (((i * 7 + j * 7 + i * j) % 5) - 2) / 2)
          for j in range(n)] for i in range(n)]
    for i in range(n):
        for j in range(n):
            if i == j:
                continue
            hit = (spec[0] in ("node", "once") and int(spec[1]) in (i, j)) or \
                  (spec[0] in ("link", "small") and {i, j} == {int(spec[1]), int(spec[2])})
            if hit:
                g[i][j] = effect(g[i][j]) if spec[0] == "small" else slow_value
            if (spec[0] == "dead" and int(spec[1]) in (i, j)) or \
               (spec[0] == "holes" and {i, j} in ({0, 1}, {0, 3}, {1, 4})):
                g[i][j] = None
    if spec[0] == "four":
        g = [row[:4] for row in g[:4]]
    return g
PASSES = 3
def as_file(s, t, bw, t1, bw1):
    # matrix/<bytes>B.csv as the workload writes it (PASSES passes, each a little apart;
    # pass 1 from t1/bw1), and the summaries from what it holds
    m = len(t)
    rows = []
    for k in range(PASSES):
        tk, bk = (t1, bw1) if k == 1 else (t, bw)
        rows += [(k, a, b, float("%.9g" % (tk[a][b] * (1 + 0.005 * (k - 1)))),
                  float("%.9g" % (bk[a][b] * (1 - 0.005 * (k - 1)))))
                 for a in range(m) for b in range(a + 1, m) if tk[a][b] is not None]
    with open("%s/matrix/%dB.csv" % (path, s), "w") as f:
        f.write("# streamcard link matrix: bytes=%d nodes=%d passes=%d\npass,a,b,t_usec,MBps\n"
                % (s, m, PASSES))
        for k, a, b, x, y in rows:
            f.write("%d,%d,%d,%.9g,%.9g\n" % (k, a, b, x, y))
    return {"bytes": s, "file": "matrix/%dB.csv" % s, "pairs": len(rows),
            "t_usec": statistics.median(x for _, _, _, x, _ in rows),
            "MBps": statistics.median(y for _, _, _, _, y in rows)}
for old in glob.glob(path + "/matrix/*.csv"):
    os.unlink(old)
sizes = []
for s in r["matrix"]["sizes"]:
    slow = spec[0] in ("node", "once")
    t = grid(5.0, 20.0 if slow else 15.0, lambda v: v * 1.1)
    bw = grid(1000.0, 300.0 if slow else 350.0, lambda v: v * 0.9)
    if spec[0] == "once":  # n<k> slow in the second pass only
        t1, bw1 = t, bw
        spec[0] = "healthy"
        t, bw = grid(5.0, 0, None), grid(1000.0, 0, None)
        spec[0] = "once"
    else:
        t1, bw1 = t, bw
    sizes.append({"bytes": s["bytes"], "t_usec": t, "MBps": bw} if legacy else
                 as_file(s["bytes"], t, bw, t1, bw1))
names = ["%s%d" % ({"invented": "cn10", "other": "m"}.get(spec[0], "n"), i + 1)
         for i in range(4 if spec[0] == "four" else n)]
r["matrix"] = {"pairs": "all", "nodes": names, "rounds": 5, "passes": 1 if legacy else PASSES,
               "round_seconds": [0.1] * 5, "total_seconds": 0.5, "sizes": sizes}
if spec[0] == "none":
    del r["matrix"]
if spec[0] == "short" and legacy:
    r["matrix"]["sizes"][0]["MBps"][2] = r["matrix"]["sizes"][0]["MBps"][2][:3]
if spec[0] == "short" and not legacy:  # a pair listed twice
    with open(path + "/matrix/8B.csv", "a") as f:
        f.write("0,0,1,5,1000\n")
if spec[0] == "summary":  # a median that its file does not give
    r["matrix"]["sizes"][-1]["MBps"] *= 1.5
json.dump(r, open(path + "/results.json", "w"), indent=2)
PY
    reseal "$dst"
    echo "$dst"
}

N=$(forge node node:2)
expect_status 1 "$BIN/streamcard" health "$N"
expect_line_count "$WORK/out" 1
grep -Eq '^drain n3: latency_8B 20 us \(median of its pairs\), 29[0-9]% worse than the nodes. median 5(\.[0-9]+)? us \(named in 3 of 3 passes and their medians: confidence >= 87\.5%\); bw_1KiB 300 MB/s \(median of its pairs\), 70% worse than the nodes. median 99[0-9](\.[0-9]+)? MB/s \(named in 3 of 3 passes and their medians: confidence >= 87\.5%\) \[node\]$' "$WORK/out" ||
    fail "node line: $(cat "$WORK/out")"

# The report draws the matrix: a heatmap per metric, each pair's figure in its cell.
expect_status 0 "$BIN/streamcard" report "$N" -o "$WORK/r.html"
expect_contains "$WORK/r.html" "<h3>Link matrix</h3>"
expect_contains "$WORK/r.html" "Bandwidth per node pair: bw_1KiB (higher is better)"
expect_contains "$WORK/r.html" "Latency per node pair: latency_8B (lower is better)"
expect_contains "$WORK/r.html" "<title>n3 - n1: 300 MB/s</title>"
expect_contains "$WORK/r.html" "<title>n2 - n2: not measured</title>"

# The passes vote: a node slow in one pass of three, fine in the others and in the pairs'
# medians, is a suspect to re-test, not a node to drain.
ONCE=$(forge once once:2)
expect_status 1 "$BIN/streamcard" health "$ONCE"
expect_line_count "$WORK/out" 1
grep -Eq '^suspect n3: re-test: latency_8B [0-9.]+ us \(median of its pairs\), [0-9]+% worse than the nodes. median [0-9.]+ us \(named in 1 of 3 passes, not in their medians\); bw_1KiB .* \(named in 1 of 3 passes, not in their medians\) \[once\]$' "$WORK/out" ||
    fail "one pass's node: $(cat "$WORK/out")"

L=$(forge link link:0:3)
expect_status 1 "$BIN/streamcard" health "$L"
expect_line_count "$WORK/out" 1
grep -Eq '^link n1 n4: latency_8B 15 us, [12][09][0-9]% worse than the [45](\.[0-9]+)? us the two reach with the other nodes \(named in 3 of 3 passes and their medians: confidence >= 87\.5%\); bw_1KiB 350 MB/s, 6[0-9]% worse than the 9[0-9][0-9](\.[0-9]+)? MB/s the two reach with the other nodes \(named in 3 of 3 passes and their medians: confidence >= 87\.5%\) \[link\]$' "$WORK/out" ||
    fail "link line: $(cat "$WORK/out")"

H=$(forge healthy healthy)
expect_status 0 "$BIN/streamcard" health "$H"
[ ! -s "$WORK/out" ] || fail "healthy, yet lines: $(cat "$WORK/out")"
# Several bundles: the worst status, every bundle's lines.
expect_status 1 "$BIN/streamcard" health "$H" "$N" "$L"
expect_line_count "$WORK/out" 2

# --guard: checks of one partition at different times. What every bundle names is to drain
# (or a link); what one names and the others do not is a suspect to re-test, not a drain.
N2=$(forge node2 node:2)
N3=$(forge node3 node:2)
H2=$(forge healthy2 healthy)
expect_status 1 "$BIN/streamcard" health --guard "$N" "$N2" "$N3"
expect_line_count "$WORK/out" 1
grep -Eq '^drain n3: latency_8B 20 us .*; bw_1KiB 300 MB/s .* \[all 3 bundles\]$' "$WORK/out" ||
    fail "guarded drain: $(cat "$WORK/out")"
expect_status 1 "$BIN/streamcard" health --guard "$N" "$H" "$H2"
expect_line_count "$WORK/out" 1
grep -Eq '^suspect n3: re-test: held in 1 of 3 bundles, a suspect in 0, first node: latency_8B 20 us' "$WORK/out" ||
    fail "guarded suspect: $(cat "$WORK/out")"
expect_status 1 "$BIN/streamcard" health --guard "$H" "$L" "$H2"
expect_contains "$WORK/out" "suspect link n1 n4: re-test: held in 1 of 3 bundles, a suspect in 0, first link: "
expect_status 0 "$BIN/streamcard" health --guard "$H" "$H2"
[ ! -s "$WORK/out" ] || fail "guarded healthy, yet lines: $(cat "$WORK/out")"
OT=$(forge other other)
expect_status 2 "$BIN/streamcard" health --guard "$H" "$OT"
expect_contains "$WORK/err" "--guard: other measured other nodes than healthy (valid: bundles of one partition"
expect_status 2 "$BIN/streamcard" health --guard "$H"
expect_contains "$WORK/err" "--guard: 1 bundle judged (valid: 2 or more of one partition"

# A 10% slower link: not named at the default floor (20%), named by a card whose
# outlier_min_pct is 5.
S=$(forge small small:0:3)
expect_status 0 "$BIN/streamcard" health "$S"
sed 's/^  pairs: all$/  pairs: all\n  outlier_min_pct: 5/' "$WORK/pairs.yaml" >"$WORK/pairs5.yaml"
expect_status 0 "$BIN/streamcard" run "$WORK/pairs5.yaml" --output "$WORK/runs" --quiet
S5=$(forge small5 small:0:3 "$(bundle_of "$WORK/out")")
expect_status 1 "$BIN/streamcard" health "$S5"
expect_contains "$WORK/out" "link n1 n4: latency_8B"

# Tied to its evidence: a matrix whose nodes are not the hosts the ranks ran on, or that
# leaves a rank's host out, is refused by verify and not judged.
I=$(forge invented invented)
expect_status 1 "$BIN/streamcard" health "$I"
expect_contains "$WORK/err" 'matrix node 0 is "cn101", but rank 0 ran on "n1" (TRACE_RANK_BINDING)'
[ ! -s "$WORK/out" ] || fail "invented nodes judged: $(cat "$WORK/out")"
expect_status 1 "$BIN/streamcard" verify "$I"
F=$(forge four four)
expect_status 1 "$BIN/streamcard" health "$F"
expect_contains "$WORK/err" "matrix has 4 nodes, but stream.log binds 5 ranks"
# A node without a figure is named to check, not passed over; the other four are judged.
D=$(forge dead dead:2)
expect_status 1 "$BIN/streamcard" health "$D"
expect_line_count "$WORK/out" 1
expect_contains "$WORK/out" "check n3: no measurement: check node (none of its 4 pairs has a figure) [dead]"
# Pairs the schedule planned but without figures: each named with its round.
O=$(forge holes holes)
expect_status 1 "$BIN/streamcard" health "$O"
expect_line_count "$WORK/out" 3
expect_contains "$WORK/out" "missing n1 n2: no figure, though the schedule planned the pair (round "
expect_contains "$WORK/out" "missing n1 n4: no figure"
expect_contains "$WORK/out" "missing n2 n5: no figure"

X=$(forge none none)
expect_status 2 "$BIN/streamcard" health "$X"
expect_contains "$WORK/err" "no link matrix (valid: a bundle of mpi-pingpong with pairs: all)"
# The raw figures are one file per size (matrix/<bytes>B.csv): a malformed one, or
# summaries its figures do not give, are refused by verify.
M=$(forge short short)
expect_status 1 "$BIN/streamcard" health "$M"
expect_contains "$WORK/err" 'results.json: matrix: matrix/8B.csv: line 33 is not "pass,a,b,t_usec,MBps"'
M=$(forge summary summary)
expect_status 1 "$BIN/streamcard" health "$M"
expect_contains "$WORK/err" "results.json: matrix: sizes: entry 7: pairs, t_usec and MBps are not what its file gives"
# Bundles from before the files, their grids in results.json, are still read.
# They hold one pass: what it names is a suspect, never a drain (no noise guard).
G=$(forge legacy legacy:node:2)
expect_status 1 "$BIN/streamcard" health "$G"
expect_line_count "$WORK/out" 1
expect_contains "$WORK/out" "suspect n3: re-test: latency_8B 20 us"
expect_contains "$WORK/out" "(one pass: no noise guard (valid: passes: 2 or more to drain)) [legacy]"
M=$(forge legacyshort legacy:short)
expect_status 1 "$BIN/streamcard" health "$M"
expect_contains "$WORK/err" "results.json: matrix: MBps: row 2 is not 5 cells"
# Edited without resealing: verify refuses it, and its figures are not judged.
T=$(forge tampered node:2)
sed -i 's/"total_seconds": 0.5/"total_seconds": 0.25/' "$T/results.json"
expect_status 1 "$BIN/streamcard" health "$T"
expect_contains "$WORK/err" "refused"
[ ! -s "$WORK/out" ] || fail "a refused bundle judged: $(cat "$WORK/out")"
expect_status 2 "$BIN/streamcard" health
expect_status 0 "$BIN/streamcard" health --help
expect_contains "$WORK/out" "usage: streamcard health [--guard] BUNDLE..."
# The history store keeps a matrix's per-node and per-link figures with health's verdicts.
expect_status 0 "$BIN/streamcard" history add --db "$WORK/h.db" "$N" "$L"
expect_status 0 "$BIN/streamcard" history show --db "$WORK/h.db" --node n3 --metric bw_1KiB --csv
expect_contains "$WORK/out" '"n3","",'
expect_contains "$WORK/out" ',300,,,"drain"'
expect_status 0 "$BIN/streamcard" history show --db "$WORK/h.db" --link n1,n4 --metric bw_1KiB --csv
expect_contains "$WORK/out" ',350,,,"suspect"'
# The report's pictures of the matrices, in the DOM headless Chromium builds (last: without
# chromium the test ends here, skipped): per bundle a heatmap of latency and of bandwidth,
# rows and columns named, every pair's value in its cell, the node to drain named in red
# and its line as health says it, the suspect link outlined and said, and a legend.
. "$SRC/tests/wrapper/screenshot_lib.sh"
expect_status 0 "$BIN/streamcard" report "$N" "$L" -o "$WORK/r2.html"
dump_dom "$WORK/r2.html" "$WORK/r2.dom"
PYTHONPATH="$SRC/tests/wrapper" python3 - "$WORK/r2.dom" <<'PY' || fail "the heatmaps"
import sys, page_dom
root = page_dom.parse(sys.argv[1])
maps = page_dom.pictures(root, "heatmap")
assert [page_dom.picture(m) for m in maps] == [
    "Latency per node pair: latency_8B (lower is better)",
    "Bandwidth per node pair: bw_1KiB (higher is better)"] * 2, [page_dom.picture(m) for m in maps]
names = ["n%d" % i for i in range(1, 6)]
for k, m in enumerate(maps):
    node = k < 2  # the first bundle's: n3 to drain; the second's: the link n1-n4
    assert m.texts("col") == names, m.texts("col")
    rows = m.texts("row")
    assert rows == [n + " drain" if node and n == "n3" else n for n in names], rows
    values = m.texts("cellv")
    assert len(values) == 20, values  # every pair but the diagonal
    slow = "20" if k % 2 == 0 else "300"
    if node:
        assert m.texts("drain") == ["n3", "n3 drain"], m.texts("drain")
        assert values.count(slow) == 8, values
    else:
        assert not m.texts("drain") and len(m.all("rect", "suspect")) == 2
        assert values.count("15" if k % 2 == 0 else "350") == 2, values
    legend = m.texts("legend")
    assert legend[0].startswith("worst (") and "best" in legend and "not measured" in legend
    assert legend[-1] == ("red name: a node to drain" if node else "outlined: a suspect link"), legend
items = [" ".join(li.text().split()) for ul in root.all("ul", "verdict") for li in ul.all("li")]
assert items[0].startswith("drain n3: latency_8B 20 us (median of its pairs), 29"), items
assert items[1].startswith("drain n3: bw_1KiB 300 MB/s (median of its pairs), 70% worse"), items
assert items[2].startswith("suspect link n1 n4: latency_8B 15 us, "), items
assert items[3].startswith("suspect link n1 n4: bw_1KiB 350 MB/s, 6"), items
print("heatmaps: 4, labelled, valued, with the drain and the suspect link marked and said")
PY
echo "PASS: health"
