#!/usr/bin/env bash
# After up, sinfo (as root and as the job user) shows the one node of partition debug idle,
# defined from the real machine.
# shellcheck source=common.sh disable=SC2119 # cluster_up takes up options, not ours
source "$(dirname "$0")/common.sh" "$@"
node=$(hostname -s)
cluster_up

line=$(sinfo -h -N -p debug -o '%N %P %T %c')
cpus=$(/usr/sbin/slurmd -C | sed -n 1p | grep -o 'CPUs=[0-9]*' | cut -d= -f2)
[[ $line == "$node debug* idle $cpus" ]] || fail "sinfo: expected '$node debug* idle $cpus', got '$line'"
# As the ordinary user: proves munge authentication through our own socket.
user_state=$(as_user sinfo -h -p debug -n "$node" -o %T) || fail "sinfo as scuser failed"
[[ $user_state == idle ]] || fail "sinfo as scuser: '$user_state'"
config=$(scontrol show config) || fail "scontrol show config failed"
grep -q "^SlurmctldPort *= $CTLD_PORT\$" <<<"$config" || fail "scontrol does not reach our slurmctld"
echo "PASS $TEST_NAME"
