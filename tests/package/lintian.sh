#!/bin/sh
# lintian.sh DEB_DIR: lintian on the package that package.build made: every tag is shown,
# an error fails. Needs lintian (contrib/install-deps installs it).
set -eu
command -v lintian >/dev/null 2>&1 ||
    { echo "lintian.sh: lintian is missing (Debian: apt-get install lintian)" >&2; exit 1; }
set -- "$1"/streamcard_*.deb
[ $# -eq 1 ] && [ -f "$1" ] || { echo "lintian.sh: expected one package, found: $*" >&2; exit 1; }
log=$(mktemp)
trap 'rm -f "$log"' EXIT
rc=0
lintian --fail-on error --display-info "$1" >"$log" 2>&1 || rc=$?
# (lintian warns when run as root, as it unpacks packages of unknown origin: this is ours.)
grep -v '^running with root privileges' "$log" || true
[ "$rc" -eq 0 ] || { echo "lintian.sh: lintian exit $rc: errors in $1" >&2; exit 1; }
# A package named twice in Depends where one mention says nothing the other does not (the
# same relation twice, or one without a version beside one with): cmake/Package.cmake's
# own names next to dpkg-shlibdeps'. A range (slurmd (>= X), slurmd (<< Y)) is not one.
depends=$(dpkg-deb -f "$1" Depends)
redundant=$(printf '%s\n' "$depends" | tr ',' '\n' | sed 's/^ *//; s/ *$//' | awk '
    { name = $1; sub(/[ (].*/, "", name); seen[name]++; if ($0 == name) bare[name] = 1; all[$0]++ }
    END {
        for (r in all) if (all[r] > 1) print r
        for (n in seen) if (seen[n] > 1 && bare[n]) print n
    }')
[ -z "$redundant" ] || { echo "lintian.sh: Depends names a package twice: $redundant (Depends: $depends)" >&2; exit 1; }
echo "ok: lintian: no errors in ${1##*/}"
