#!/usr/bin/env bash
# cmake/SourceDigestRun.cmake, the build-time digest a workload's --build-info answers
# (source_sha256, source_git_commit, source_git_dirty, compiler_path, compiler_sha256), run on
# a tree of the test's own: the digest is the SHA-256 of sha256sum's manifest of the files
# (relative paths, in order); an edit changes it; a git tree gives its commit and whether a
# tracked file differs from it; the file is rewritten only when its text changes.
SRC=$1 CMAKE=$2
WORK=$(mktemp -d /tmp/streamcard-digest.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
set -euo pipefail
T=$WORK/tree
mkdir -p "$T/k"
printf 'int main(void) { return 0; }\n' >"$T/k/a.c"
printf '#define X 1\n' >"$T/k/a.h"
cc=$WORK/cc
printf 'not a compiler, a file to hash\n' >"$cc"
digest() { "$CMAKE" -DOUT="$WORK/out.c" -DROOT="$T" -DFILES="$T/k/a.c|$T/k/a.h" -DCOMPILER="$cc" \
    -P "$SRC/cmake/SourceDigestRun.cmake"; }
value() { sed -n "s/^const char sct_build_$1\[\] = \"\(.*\)\";$/\1/p" "$WORK/out.c"; }

digest
want=$(cd "$T" && sha256sum k/a.c k/a.h | sha256sum | cut -d' ' -f1)
[ "$(value source_sha256)" = "$want" ] || fail "source_sha256 $(value source_sha256), sha256sum says $want"
[ "$(value source_files)" = 2 ] || fail "source_files $(value source_files)"
[ "$(value source_git_commit)" = none ] || fail "not a git tree, but commit $(value source_git_commit)"
[ "$(value compiler_path)" = "$cc" ] || fail "compiler_path"
[ "$(value compiler_sha256)" = "$(sha256sum "$cc" | cut -d' ' -f1)" ] || fail "compiler_sha256"

# Unchanged: not rewritten (nothing relinks).
touch -d '2000-01-01' "$WORK/out.c"
digest
[ "$(stat -c %Y "$WORK/out.c")" = "$(date -d '2000-01-01' +%s)" ] || fail "rewritten unchanged"

# An edit of a source: another digest.
printf '/* edited */\n' >>"$T/k/a.c"
digest
[ "$(value source_sha256)" != "$want" ] || fail "an edited source kept the digest"

# A git checkout: its commit, clean, then dirty when a tracked file changes.
if command -v git >/dev/null; then
    git -C "$T" init -q
    git -C "$T" -c user.name=t -c user.email=t@t add k
    git -C "$T" -c user.name=t -c user.email=t@t commit -qm tree
    digest
    [ "$(value source_git_commit)" = "$(git -C "$T" rev-parse HEAD)" ] || fail "commit"
    [ "$(value source_git_dirty)" = no ] || fail "a clean tree is dirty=$(value source_git_dirty)"
    printf '/* again */\n' >>"$T/k/a.h"
    digest
    [ "$(value source_git_dirty)" = yes ] || fail "an edited tracked file is not dirty"
fi
echo PASS
