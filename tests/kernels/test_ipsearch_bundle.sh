#!/usr/bin/env bash
# test_ipsearch_bundle.sh: an ipsearch card through `streamcard run` yields a bundle that
# passes every gate and `streamcard verify`, with the card's sizes, pool and env in force.
#
# usage: test_ipsearch_bundle.sh BIN_DIR SRC_DIR   (BIN_DIR holds streamcard and the kernels)
BIN=$1 SRC=$2
. "$SRC/tests/lib.sh"

cat >"$WORK/card.yaml" <<'CARD'
version: 1
experiment:
  question: "ipsearch, 2 OpenMP threads, 1 request handler: does the bundle hold together?"
  workload: ipsearch
  cpu_list: 0-1
  threads: 2
  nb: 3001
  nq: 41
  dim: 24
  k: 5
  pool_threads: 1
  expect:
    max_interference_pct: 100
  env:
    OMP_WAIT_POLICY: passive
    KMP_BLOCKTIME: "0"
CARD
cd "$WORK"
expect_status 0 "$BIN/streamcard" run card.yaml --output "$WORK/runs" --quiet
B=$(bundle_of "$WORK/out")
(cd "$B" && sha256sum --quiet -c SHA256SUMS) || fail "sha256sum -c rejects the bundle"
expect_status 0 "$BIN/streamcard" verify "$B"
tail -n 1 "$B/run.conf" | grep -x 'verdict=ok' >/dev/null || fail "run.conf does not end with verdict=ok"
expect_contains "$B/run.conf" "thread_binding_ok=1"
expect_contains "$B/run.conf" "validation_ok=1"
L=$B/stream.log
expect_contains "$L" "Solution Validates (ipsearch top-k, 16 sampled queries, recall@k=1.000)"
# The card's sizes, pool and env reached the workload.
expect_contains "$L" "Database nb = 3001 vectors, dim = 24, float32"
expect_contains "$L" "Queries nq = 41, k = 5"
expect_contains "$L" "mismatch: pool_threads=1 threads=2"
expect_contains "$L" "TRACE_POOL_THREAD pool=0 thread=1 cpu="
expect_contains "$L" "env: OMP_WAIT_POLICY=passive"
expect_contains "$L" "env: KMP_BLOCKTIME=0"
# The workload's own sizes in run.conf and build.json, and the BLAS it ran with.
for kv in nb=3001 nq=41 dim=24 k=5 pool_threads=1 iterations=3; do
    grep -qx "$kv" "$B/run.conf" || fail "run.conf lacks $kv"
done
expect_not_contains "$B/run.conf" "array_size="
python3 - "$B" <<'PY'
import json, sys
b = json.load(open(sys.argv[1] + "/build.json"))
assert b["run_parameters"] == {"threads": 2, "iterations": 3, "nb": 3001, "nq": 41, "dim": 24,
                               "k": 5, "pool_threads": 1}, b["run_parameters"]
assert b["blas_library"] and b["blas_config"] and b["blas_corename"], b
assert len(b["blas_library_sha256"]) == 64, b
PY
python3 - "$B" <<'PY'
import json, sys
r = json.load(open(sys.argv[1] + "/results.json"))
assert r["workload"] == "ipsearch" and r["verdict"] == "ok", r
for g in ("thread_count", "phases", "binding", "validation", "exit_code"):
    assert r["gates"][g] is True, (g, r["gates"])
m = r["metrics"]
for key in ("qps", "gflops", "total_thread_seconds", "wall_seconds"):
    assert m[key] > 0, (key, m)
assert m["recall_at_k"] == 1, m
# Every search's wall seconds, the warm-up first; the best of the counted ones is wall_seconds.
reps = m["rep_seconds"]["search"]
assert len(reps) == 3 and all(x > 0 for x in reps), reps
assert abs(min(reps[1:]) - m["wall_seconds"]) <= 1e-6 * m["wall_seconds"] + 1e-9, (reps, m)
# The kernel's evidence is kept beside its metrics.
e = r["evidence"]
assert e["blas"]["library"] and e["blas_threads"] >= 1, e["blas"]
assert e["env"]["OMP_WAIT_POLICY"] == "passive" and e["env"]["KMP_BLOCKTIME"] == "0", e["env"]
assert e["pool_threads"] == 1 and e["omp_threads"] == 2, e
assert len(e["compute_thread_bindings"]) == e["compute_threads"] == 2, e
assert "counters" in e, e
assert r["validation"] == "ok" and r["sampled_queries"] == 16, r
PY

# The default card (no pool_threads) and a batch smaller than the threads: the kernel's
# default layout splits the database, both search threads still pass the binding gate,
# and the bundle records the layout and the search path. The library hashes go through
# the user's cache: the same hashes as sha256sum, reused on the next run. The card opens the
# interference gate, as the first one does (this test runs beside others).
export XDG_CACHE_HOME=$WORK/cache
cat >"$WORK/small.yaml" <<'CARD'
version: 1
experiment:
  workload: ipsearch
  cpu_list: 0-1
  threads: 2
  nb: 3001
  nq: 3
  dim: 24
  k: 5
  expect:
    max_interference_pct: 100
CARD
for round in 1 2; do
    expect_status 0 "$BIN/streamcard" run small.yaml --output "$WORK/small$round" --quiet
    S=$(bundle_of "$WORK/out")
    expect_status 0 "$BIN/streamcard" verify "$S"
    expect_contains "$S/run.conf" "thread_binding_ok=1"
    expect_contains "$S/stream.log" "TRACE_POOL_THREAD pool=1 thread=0 cpu="
    expect_contains "$S/stream.log" "search_layout=split-database"
    expect_not_contains "$S/stream.log" "mismatch:"
    expect_not_contains "$S/card.yaml" "pool_threads"
    python3 - "$S" <<'PY'
import hashlib, json, sys
r = json.load(open(sys.argv[1] + "/results.json"))
s = r["evidence"]["search"]
assert (s["path"], s["layout"], s["layout_source"]) == ("scan", "split-database", "default"), s
# Everything the path was chosen from (ipsearch_path.h), recorded beside the choice.
assert (s["queries_per_pass"], s["dim"], s["forced"], s["simd_source"]) == (3, 24, "auto", "cpuid"), s
assert s["l1d_bytes"] >= 4096 and s["simd"] in ("scalar", "avx2-fma", "avx512f"), s
assert s["blas_core"] == r["evidence"]["blas"]["corename"], s
assert r["evidence"]["compute_threads"] == 2, r["evidence"]
b = json.load(open(sys.argv[1] + "/build.json"))
for key in ("blas_library", "openmp_runtime"):
    with open(b[key], "rb") as f:
        assert b[key + "_sha256"] == hashlib.sha256(f.read()).hexdigest(), key
PY
    [ -f "$XDG_CACHE_HOME/streamcard/sha256-v1" ] || fail "no hash cache after run $round"
    # Run 2 finds every hash cached: the cache file is not written again.
    cache_id[$round]=$(stat -c '%i %y' "$XDG_CACHE_HOME/streamcard/sha256-v1")
done
[ "${cache_id[1]}" = "${cache_id[2]}" ] || fail "the second run rewrote the hash cache"
expect_contains "$XDG_CACHE_HOME/streamcard/sha256-v1" "$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['blas_library_sha256'])" "$S/build.json")"
