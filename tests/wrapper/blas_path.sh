#!/usr/bin/env bash
# blas: an absolute path (doc/contracts/card.md, the key table's blas; doc/contracts/layout.md, "Bring your own program"):
# a copy of Debian's OpenBLAS in a directory of the test's own is preloaded (LD_PRELOAD) for
# ipsearch and for an exec program; build.json records the path the card gives, the file and
# its SHA-256, ipsearch's --build-info names the copy as the library its cblas_sgemm comes
# from, and every run's snapshot maps the copy and not the system's OpenBLAS. A path that is
# not an absolute path to a readable ELF shared object is refused before anything runs.
BIN=$(cd "$1" && pwd) SRC=$2
. "$SRC/tests/lib.sh"
SC="$BIN/streamcard"
sys=$("$BIN/streamcard-ipsearch" --build-info | sed -n 's/^blas_library=//p')
case $sys in
/*) ;;
*) echo "skip: ipsearch names no BLAS library it loaded ($sys)"; exit 77 ;;
esac
mkdir -p "$WORK/lib"
cp "$sys" "$WORK/lib/libopenblas.so.0"
printf '\0' >>"$WORK/lib/libopenblas.so.0" # its own SHA-256, not the system's file's
COPY="$WORK/lib/libopenblas.so.0"
SHA=$(sha256sum "$COPY" | cut -d' ' -f1)
[ "$SHA" != "$(sha256sum "$sys" | cut -d' ' -f1)" ] || fail "the copy has the system's SHA-256"

ipcard() { # ipcard NAME BLAS
    printf 'version: 1\nexperiment:\n  workload: ipsearch\n  cpu_list: 0\n  threads: 1\n' >"$WORK/$1.yaml"
    printf '  nb: 2000\n  nq: 50\n  dim: 32\n  iterations: 2\n  blas: %s\n' "$2" >>"$WORK/$1.yaml"
    printf '  expect:\n    max_interference_pct: 100\n' >>"$WORK/$1.yaml"
}
# check_bundle B: build.json's blas_preload and every snapshot's mapping name the copy.
check_bundle() {
    python3 - "$1" "$COPY" "$SHA" <<'EOF' || fail "build.json of $1 does not record the copy"
import json, sys
b, copy, sha = sys.argv[1:]
bj = json.load(open(b + "/build.json"))
p = bj["blas_preload"]
assert p == {"card": copy, "path": copy, "sha256": sha}, p
EOF
    grep -Eq " file=$COPY( |$)" "$1/numa_maps_at_ready.txt" || fail "the snapshot of $1 does not map the copy"
    ! grep -Eq " file=$sys( |$)" "$1/numa_maps_at_ready.txt" || fail "the snapshot of $1 maps the system's OpenBLAS too"
}

# ipsearch: the plan says it, the run loads the copy alone, --build-info names it.
ipcard ip "$COPY"
expect_status 0 "$SC" run "$WORK/ip.yaml" --dry-run
expect_contains "$WORK/out" "blas:        $COPY (preloaded: LD_PRELOAD; $COPY)"
expect_status 0 "$SC" run "$WORK/ip.yaml" --output "$WORK/runs" --quiet
I=$(bundle_of "$WORK/out")
check_bundle "$I"
python3 - "$I" "$COPY" "$SHA" <<'EOF' || fail "ipsearch's --build-info does not name the copy"
import json, sys
b, copy, sha = sys.argv[1:]
bj = json.load(open(b + "/build.json"))
assert bj["blas_library"] == copy and bj["blas_library_sha256"] == sha, bj["blas_library"]
EOF
expect_not_contains "$WORK/err" "LD_PRELOAD=" # the card's, not an inherited hazard
expect_status 0 "$SC" verify "$I"
# verify holds the snapshot to the card's blas: a snapshot that maps another library, or a
# build.json without blas_preload, resealed, fails.
cp -a "$I" "$WORK/forged1"
sed -i "s|file=$COPY|file=$sys|g" "$WORK/forged1/numa_maps_at_ready.txt"
! grep -q "file=$COPY" "$WORK/forged1/numa_maps_at_ready.txt" || fail "the forger left the copy in"
reseal "$WORK/forged1"
expect_status 1 "$SC" verify "$WORK/forged1"
expect_contains "$WORK/err" "numa_maps_at_ready.txt: does not map blas_preload $COPY: the run did not load the card's blas:"
cp -a "$I" "$WORK/forged2"
python3 - "$WORK/forged2/build.json" <<'EOF'
import json, sys
bj = json.load(open(sys.argv[1]))
del bj["blas_preload"]
json.dump(bj, open(sys.argv[1], "w"))
EOF
reseal "$WORK/forged2"
expect_status 1 "$SC" verify "$WORK/forged2"
expect_contains "$WORK/err" "build.json: no blas_preload of the card's blas: $COPY"
# The same card with Debian's default differs in blas alone (the library and its SHA-256;
# the preload streamcard set is not an env difference): a valid comparison.
ipcard def default
expect_status 0 "$SC" run "$WORK/def.yaml" --output "$WORK/runs" --quiet
D=$(bundle_of "$WORK/out")
expect_status 0 "$SC" compare "$D" "$I" --max-interference 100
expect_contains "$WORK/out" "differs: blas: A $sys "
expect_contains "$WORK/out" " | B $COPY $SHA"
expect_contains "$WORK/out" "single variable blas: "
expect_not_contains "$WORK/out" "differs: env"

# exec: a program that links no BLAS maps it all the same (preloaded).
cat >"$WORK/ex.yaml" <<EOF
version: 1
experiment:
  workload: exec
  command: [sleep, '0.3']
  cpu_list: "0"
  threads: 1
  blas: $COPY
  expect:
    max_interference_pct: 100
EOF
expect_status 0 "$SC" run "$WORK/ex.yaml" --output "$WORK/runs" --quiet
E=$(bundle_of "$WORK/out")
check_bundle "$E"
python3 - "$E" "$COPY" "$SHA" <<'EOF' || fail "build.json's libraries of the exec run lack the copy"
import json, sys
b, copy, sha = sys.argv[1:]
libs = {l["path"]: l["sha256"] for l in json.load(open(b + "/build.json"))["libraries"]}
assert libs.get(copy) == sha, sorted(libs)
EOF
expect_status 0 "$SC" verify "$E"

# A study of an exec card whose step is the library, its rows ranked by a metric the card
# declares (metric: rate); the step's runs map the copy, and the record verifies.
cat >"$WORK/study.yaml" <<EOF
version: 1
experiment:
  workload: exec
  command: [$BIN/sc_test_exec_phases, '100']
  cpu_list: "0"
  threads: 1
  metrics:
    - {name: rate, pattern: 'rate=([0-9]+)', unit: widgets/s, better: higher}
  expect:
    max_interference_pct: 100
metric: rate
ablation:
  - name: own BLAS
    set: { blas: $COPY }
EOF
expect_status 0 "$SC" run "$WORK/study.yaml" --output "$WORK/study" --quiet
expect_contains "$WORK/out" "(rate, widgets/s, higher is better; median and its 95% interval)"
expect_contains "$WORK/out" "| alone 1: own BLAS | ok | 42 "
ST=$(sed -n 's/^STUDY=//p' "$WORK/out")
check_bundle "$(ls -d "$WORK"/study/exec_sc_test_exec_phases_1thread_alone-1_*)"
expect_status 0 "$SC" verify "$ST"
sed 's/^metric: rate$/metric: speed/' "$WORK/study.yaml" >"$WORK/study2.yaml"
expect_status 2 "$SC" run "$WORK/study2.yaml" --dry-run
expect_contains "$WORK/err" "study2.yaml:11: metric: not a metric of the registry (valid: qps, thread_seconds, copy, scale, add, triad, latency_<size>, bw_<size>, or a name the card's metrics: declare)"

# Refused before a run, one line each: relative, missing, a directory, not ELF.
echo "not a library" >"$WORK/lib/text.so"
for bad in "lib/libopenblas.so.0|\"lib/libopenblas.so.0\" is not allowed (valid: default|openblas-pthread|openblas-openmp|openblas-serial|/path)" \
           "$WORK/lib/none.so|blas: $WORK/lib/none.so: No such file or directory (valid: default, openblas-pthread, openblas-openmp, openblas-serial, or an absolute path to a readable ELF shared library)" \
           "$WORK/lib|blas: $WORK/lib: a directory (valid:" \
           "$WORK/lib/text.so|blas: $WORK/lib/text.so: not an ELF file (valid:"; do
    ipcard bad "${bad%%|*}"
    expect_status 2 "$SC" run "$WORK/bad.yaml" --output "$WORK/refused" --quiet
    expect_contains "$WORK/err" "${bad#*|}"
    [ ! -d "$WORK/refused" ] || fail "a refused blas: left a bundle"
done
echo "ok: blas_path"
