#!/bin/sh
# build-deb.sh SRC OUT CMAKE CPACK WERROR: the Debian package from SRC's install rules, in a
# build of its own configured with contrib/package/deb.cmake: OUT/streamcard_<v>_<arch>.deb.
# Each step's output goes to OUT/<step>.log, shown when the step fails.
set -eu
src=$1 out=$2 cmake=$3 cpack=$4 werror=$5
mkdir -p "$out"
step() { # step NAME COMMAND...
    name=$1
    shift
    "$@" >"$out/$name.log" 2>&1 || {
        tail -n 40 "$out/$name.log" >&2
        echo "build-deb.sh: $name failed (log: $out/$name.log)" >&2
        exit 1
    }
}
step configure "$cmake" -C "$src/contrib/package/deb.cmake" -S "$src" -B "$out" \
    -DSTREAMCARD_WERROR="$werror"
step build "$cmake" --build "$out" -j"$(nproc)"
rm -f "$out"/streamcard_*.deb
(cd "$out" && step cpack "$cpack" -G DEB)
ls "$out"/streamcard_*.deb
