#!/usr/bin/env bash
# The workload's --build-info answer is remembered between runs (the answer cache) and
# stands only while it is true. A remembered answer is used: an entry forged into the cache
# shows in the next build.json. It is dropped, and the binary asked again, when the library
# path picks another file (a symlink switched, as update-alternatives does: the cache's
# files are unchanged, but the workload mapped another library), when the library is
# touched, and when it is rewritten with another build: build.json then names the library
# the workload ran, with that file's hash, as stream.log says.
BIN=$1 SRC=$2
. "$SRC/tests/lib.sh"

# This machine's multiarch directory: an arm64 cross build's packages sit beside it.
LIBDIR=/usr/lib/$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
PTHREAD=$(readlink -f "$(find "$LIBDIR" -path '*openblas-pthread/libopenblas.so.0' | head -n 1)")
SERIAL=$(readlink -f "$(find "$LIBDIR" -path '*openblas-serial/libopenblas.so.0' | head -n 1)")
if [ ! -f "$PTHREAD" ] || [ ! -f "$SERIAL" ]; then
    echo "SKIP: needs Debian's libopenblas0-pthread and libopenblas0-serial"
    exit 77
fi
export XDG_CACHE_HOME="$WORK/cache"
CACHE="$XDG_CACHE_HOME/streamcard/answers-v1"
mkdir -p "$WORK/lib"

# run NAME: a small ipsearch run with the library path $WORK/lib; sets B to its bundle.
run() {
    LD_LIBRARY_PATH="$WORK/lib" expect_status 0 "$BIN/streamcard" run --workload ipsearch \
        --cpu-list 0-1 --threads 2 --nb 2000 --nq 4 --dim 32 --k 5 --iterations 2 \
        --expect-max-interference 100 --run-name "$1" --output "$WORK/runs" --quiet
    B=$(bundle_of "$WORK/out")
    "$BIN/streamcard" verify "$B" >/dev/null 2>&1 || fail "verify rejects $B"
}

# field KEY: build.json's KEY of the last run.
field() {
    json_key "$B/build.json" "$1"
}

# expect_field KEY VALUE
expect_field() {
    local got
    got=$(field "$1")
    [ "$got" = "$2" ] || fail "$B/build.json: $1 is '$got', expected '$2'"
}

# forge: the cache's remembered blas_corename becomes REMEMBERED (what a run that uses
# the entry without asking the binary writes into build.json).
forge() {
    [ -f "$CACHE" ] || fail "no answer cache at $CACHE"
    sed -i 's/^a blas_corename=.*$/a blas_corename=REMEMBERED/' "$CACHE"
    expect_contains "$CACHE" "a blas_corename=REMEMBERED"
}

# The first run asks the binary and remembers its answer with the files it names.
ln -s "$PTHREAD" "$WORK/lib/libopenblas.so.0"
run first
expect_field blas_library "$PTHREAD"
expect_field blas_parallel pthread
expect_contains "$CACHE" " $PTHREAD"
[ "$(field blas_corename)" != REMEMBERED ] || fail "forged before forging"

# The next run uses the remembered answer.
forge
run remembered
expect_field blas_corename REMEMBERED
expect_field blas_library "$PTHREAD"

# The library path now picks the serial build: every file of the entry is unchanged, but
# the workload mapped another library, so the binary is asked again.
ln -sfn "$SERIAL" "$WORK/lib/libopenblas.so.0"
run switched
expect_field blas_library "$SERIAL"
expect_field blas_parallel sequential
[ "$(field blas_corename)" != REMEMBERED ] || fail "the switched library kept the old answer"
expect_field blas_library_sha256 "$(sha256sum "$SERIAL" | cut -d' ' -f1)"
expect_contains "$B/stream.log" "blas_library=$SERIAL"

# A library of our own: remembered, then touched (same bytes: asked again all the same).
cp "$SERIAL" "$WORK/lib/libopenblas-own.so"
ln -sfn "$WORK/lib/libopenblas-own.so" "$WORK/lib/libopenblas.so.0"
run own
expect_field blas_library "$WORK/lib/libopenblas-own.so"
forge
run own-remembered
expect_field blas_corename REMEMBERED
touch "$WORK/lib/libopenblas-own.so"
run touched
[ "$(field blas_corename)" != REMEMBERED ] || fail "the touched library kept the old answer"
expect_field blas_parallel sequential

# Rewritten in place with the pthread build: the record follows the new file.
forge
cat "$PTHREAD" >"$WORK/lib/libopenblas-own.so"
run rewritten
[ "$(field blas_corename)" != REMEMBERED ] || fail "the rewritten library kept the old answer"
expect_field blas_parallel pthread
expect_field blas_library_sha256 "$(sha256sum "$PTHREAD" | cut -d' ' -f1)"
echo "ok: build_cache"
