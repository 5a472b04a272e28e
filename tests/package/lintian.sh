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
echo "ok: lintian: no errors in ${1##*/}"
