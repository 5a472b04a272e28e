#!/usr/bin/env bash
# srun from the submit side, as scuser: output comes back, exit status propagates.
# shellcheck source=common.sh disable=SC2119 # cluster_up takes up options, not ours
source "$(dirname "$0")/common.sh" "$@"
cluster_up
make_workdir

out=$(as_user srun -n1 hostname) || fail "srun -n1 hostname failed"
[[ $out == "$(hostname)" ]] || fail "srun -n1 hostname printed '$out', expected '$(hostname)'"
who=$(as_user srun -n1 id -un) || fail "srun id failed"
[[ $who == scuser ]] || fail "srun task ran as '$who'"
if as_user srun -n1 false 2>/dev/null; then fail "srun -n1 false succeeded"; fi
echo "PASS $TEST_NAME"
