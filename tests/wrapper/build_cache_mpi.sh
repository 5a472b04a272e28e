#!/usr/bin/env bash
# mpi-pingpong's --build-info answer is remembered between runs too (the answer cache), and
# stands only while the MPI library the ranks loaded is the one it names by version: a
# remembered answer is used (an entry forged into the cache shows in the next build.json);
# one whose mpi_library is not the version every rank's TRACE_MPI_LIBRARY line states is
# dropped, the binary asked again (build.json written with its answer, the new one
# remembered) and the bundle still verifies.
BIN=$1 SRC=$2
. "$SRC/tests/lib.sh"
command -v mpirun >/dev/null || { echo "SKIP: mpirun missing (openmpi-bin)"; exit 77; }
export XDG_CACHE_HOME="$WORK/cache"
CACHE="$XDG_CACHE_HOME/streamcard/answers-v1"

# run: a small pingpong run; sets B to its bundle. The card opens the gate of interference:
# this test runs beside others under ctest -j.
{ printf 'version: 1\nexperiment:\n  workload: mpi-pingpong\n  cpu_list: 0-1\n'
  printf '  min_bytes: 1\n  max_bytes: 64\n  iterations: 20\n'
  printf '  expect:\n    max_interference_pct: 100\n'; } >"$WORK/card.yaml"
run() {
    expect_status 0 "$BIN/streamcard" run "$WORK/card.yaml" --output "$WORK/runs" --quiet
    B=$(bundle_of "$WORK/out")
    "$BIN/streamcard" verify "$B" >/dev/null 2>&1 || fail "verify rejects $B"
}

# field KEY: build.json's KEY of the last run.
field() {
    json_key "$B/build.json" "$1"
}

# forge KEY VALUE: the cache's remembered KEY becomes VALUE.
forge() {
    [ -f "$CACHE" ] || fail "no answer cache at $CACHE"
    sed -i "s|^a $1=.*\$|a $1=$2|" "$CACHE"
    expect_contains "$CACHE" "a $1=$2"
}

"$BIN/streamcard-pingpong" --build-info >"$WORK/answer" || fail "no --build-info answer"

# The first run asks the binary and remembers its answer.
run
[ -f "$CACHE" ] || fail "no answer cache at $CACHE"
LIBRARY=$(sed -n 's/^a mpi_library=//p' "$CACHE")
[ -n "$LIBRARY" ] || fail "the remembered answer names no mpi_library: $CACHE"
expect_contains "$B/stream.log" "name=libmpi loaded=yes"
expect_contains "$B/stream.log" "version=$LIBRARY"
expect_contains "$CACHE" "a mpi_library=$LIBRARY"

# The next run uses the remembered answer (its MPI library is the one the ranks loaded).
forge compiler_version REMEMBERED
run
[ "$(field compiler_version)" = REMEMBERED ] || fail "the remembered answer was not used"

# A remembered answer naming another MPI library than the ranks loaded: asked again.
forge mpi_library "Other MPI 0.1"
run
[ "$(field compiler_version)" != REMEMBERED ] || fail "the answer of another MPI library was kept"
[ "$(field compiler_version)" = "$(sed -n 's/^compiler_version=//p' "$WORK/answer")" ] ||
    fail "build.json's compiler_version is not the binary's answer"
[ "$(sed -n 's/^a mpi_library=//p' "$CACHE")" = "$LIBRARY" ] ||
    fail "the answer asked again was not remembered: $CACHE"
echo "ok: build_cache_mpi"
