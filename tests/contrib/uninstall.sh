#!/usr/bin/env bash
# contrib/uninstall takes back what `cmake --install BUILD` put under a prefix: the build is
# installed into a prefix of this test's own (as the quick start does into /usr/local), a
# file of someone else's is put beside it, and uninstall removes every file of the install
# and the streamcard folders, leaves the other file, keeps the build's manifest as the
# install wrote it; --dry-run removes nothing; the package's prefix /usr is refused.
# Usage: uninstall.sh REPO_ROOT BUILD_DIR
set -euo pipefail
REPO=$1 BUILD=$2
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() {
	echo "FAIL: $*" >&2
	exit 1
}
P=$TMP/prefix
cmake --install "$BUILD" --prefix "$P" >"$TMP/install.log" 2>&1 || fail "cmake --install: $(cat "$TMP/install.log")"
mapfile -t installed < <(cd "$P" && find . \( -type f -o -type l \) | sort)
((${#installed[@]} > 10)) || fail "the install made only ${#installed[@]} files: ${installed[*]}"
[[ -x $P/bin/streamcard && -d $P/libexec/streamcard && -d $P/share/streamcard ]] ||
	fail "not the install this test expects: ${installed[*]}"
echo other >"$P/bin/someone-elses"
cp "$BUILD/install_manifest.txt" "$TMP/manifest"

"$REPO/contrib/uninstall" --build "$BUILD" --prefix "$P" --dry-run >"$TMP/dry.out" || fail "--dry-run failed"
grep -qx "would remove $P/bin/streamcard" "$TMP/dry.out" || fail "--dry-run does not list the command: $(cat "$TMP/dry.out")"
[[ -x $P/bin/streamcard ]] || fail "--dry-run removed the command"

"$REPO/contrib/uninstall" --build "$BUILD" --prefix "$P" >"$TMP/out" || fail "uninstall failed: $(cat "$TMP/out")"
grep -qx "uninstall: removed ${#installed[@]} files of $BUILD's install under $P (0 were not there)" "$TMP/out" ||
	fail "not every file said removed: $(cat "$TMP/out")"
left=$(cd "$P" && find . \( -type f -o -type l \) | sort)
[[ $left == ./bin/someone-elses ]] || fail "left behind, or removed what was not its own: $left"
for d in libexec/streamcard share/streamcard share/doc/streamcard; do
	[[ ! -e $P/$d ]] || fail "$P/$d is still there: $(find "$P/$d")"
done
cmp -s "$BUILD/install_manifest.txt" "$TMP/manifest" || fail "the build's install_manifest.txt was changed"

rc=0
"$REPO/contrib/uninstall" --build "$BUILD" --prefix /usr >/dev/null 2>"$TMP/err" || rc=$?
((rc == 1)) && grep -q "apt-get purge streamcard" "$TMP/err" || fail "the package's /usr was not refused: $rc $(cat "$TMP/err")"
echo "ok: uninstall"
