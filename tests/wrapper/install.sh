#!/usr/bin/env bash
# The installed layout: `cmake --install` into a fresh prefix, then the installed
# `streamcard` finds its kernels in PREFIX/libexec/streamcard (not in the build tree, which
# it cannot see from there) and runs a tiny STREAM card to a bundle that verify accepts.
# Usage: install.sh BIN SRC CMAKE BUILD
BIN=$1 SRC=$2 CMAKE=$3 BUILD=$4
. "$SRC/tests/lib.sh"
PREFIX="$WORK/prefix"

"$CMAKE" --install "$BUILD" --prefix "$PREFIX" >"$WORK/install.log" 2>&1 ||
    { cat "$WORK/install.log" >&2; fail "cmake --install into $PREFIX failed"; }
SC="$PREFIX/bin/streamcard"
KERNEL="$PREFIX/libexec/streamcard/streamcard-stream"
[ -x "$SC" ] || fail "no $SC after the install"
[ -x "$KERNEL" ] || fail "no $KERNEL after the install"

# Nothing may point the command at the build tree's kernels.
unset STREAMCARD_KERNEL_DIR
cd "$WORK"
# The interference gate is opened (tests/wrapper/interference.sh tests it): this test runs
# beside others under ctest -j.
ARGS=(--workload stream --kernel copy --cpu-list 0-1 --threads 2 --array-size 100000 --cache-resident accept
      --expect-max-interference 100
      --iterations 3 --output "$WORK/runs" --quiet)
expect_status 0 "$SC" run "${ARGS[@]}" --dry-run
expect_contains "$WORK/out" "binary:      $KERNEL"
expect_not_contains "$WORK/out" "$BIN/"
expect_status 0 "$SC" run "${ARGS[@]}"
B=$(bundle_of "$WORK/out")
expect_contains "$B/build.json" "$KERNEL"
expect_contains "$B/run.conf" "verdict=ok"
expect_status 0 "$SC" verify "$B"
echo "ok: install (kernels from $PREFIX/libexec/streamcard, bundle verified)"
