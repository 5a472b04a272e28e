#!/usr/bin/env bash
# Every executable under contrib/ (and .ci/run) answers --help with its usage on stdout and
# exit 0, and refuses an unknown option (and an argument meant for another program that
# is not after --) with one line on stderr, exit status 1 or 2, nothing on stdout. Both
# happen before any work: the scripts run with a PATH that holds only bash, env, dirname
# and cat, so calling apt-get, cmake, dpkg, setpriv or any daemon would fail the case.
# Usage: help.sh REPO_ROOT
set -uo pipefail
REPO=$1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fail() {
    echo "FAIL: $*" >&2
    exit 1
}
mkdir "$TMP/bin"
for tool in bash env dirname cat; do ln -s "$(command -v "$tool")" "$TMP/bin/$tool"; done
# run SCRIPT ARGS...: runs it in the empty world; sets rc, out, err.
run() {
    rc=0
    env -i PATH="$TMP/bin" HOME="$TMP" "$@" >"$TMP/out" 2>"$TMP/err" || rc=$?
    out=$(cat "$TMP/out")
    err=$(cat "$TMP/err")
}
mapfile -t scripts < <(cd "$REPO" && find contrib .ci -type f -perm -u+x | sort)
((${#scripts[@]} >= 7)) || fail "found only ${#scripts[@]} executables under contrib/ and .ci/: ${scripts[*]}"
for s in "${scripts[@]}"; do
    for h in --help -h; do
        run "$REPO/$s" "$h"
        ((rc == 0)) || fail "$s $h: exit $rc: $err"
        [[ $out == [Uu]sage:* ]] || fail "$s $h: stdout does not start with its usage: ${out:0:200}"
        [[ -z $err ]] || fail "$s $h: wrote on stderr: $err"
    done
    run "$REPO/$s" --no-such-option
    ((rc == 1 || rc == 2)) || fail "$s --no-such-option: exit $rc, not 1 or 2: $out $err"
    [[ -z $out ]] || fail "$s --no-such-option: wrote on stdout: $out"
    [[ $(wc -l <"$TMP/err") == 1 && $err == *--no-such-option* ]] ||
        fail "$s --no-such-option: not one line naming the option: $err"
done
# What goes to another program comes after --, and only there.
run "$REPO/contrib/run-tests" -L unit
((rc == 2)) && [[ $err == *"after --"* ]] || fail "run-tests -L unit: exit $rc: $err"
run "$REPO/contrib/local-cluster/as-user" sbatch --wrap hostname
((rc == 1)) && [[ $err == *"after --"* ]] || fail "as-user sbatch: exit $rc: $err"
run "$REPO/contrib/quickstart" card-a.yaml card-b.yaml
((rc == 2)) || fail "quickstart with two cards: exit $rc: $err"
# quickstart's retry of a busy node: a count and a wait it can use, else one line naming the
# valid range, before any work.
for args in "--attempts 0" "--attempts x" "--attempts 101" "--wait -1" "--wait 3601"; do
    read -ra a <<<"$args"
    run "$REPO/contrib/quickstart" "${a[@]}"
    ((rc == 2)) && [[ $(wc -l <"$TMP/err") == 1 && $err == *"${a[0]}"*" to "* ]] ||
        fail "quickstart $args: exit $rc: $err"
done
echo "ok: ${#scripts[@]} scripts answer --help and refuse unknown options before any work"
