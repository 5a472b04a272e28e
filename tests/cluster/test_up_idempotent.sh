#!/usr/bin/env bash
# up from cold, then again: the second run must leave the same daemons running; a changed
# configuration must restart slurmctld/slurmd (not munged); bad arguments must fail
# clearly without disturbing the running cluster.
# shellcheck source=common.sh disable=SC2119 # cluster_up takes up options, not ours
source "$(dirname "$0")/common.sh" "$@"
node=$(hostname -s)

cluster_down --purge >/dev/null 2>&1 || true
start=$SECONDS
cluster_up
note "cold up took $((SECONDS - start))s"
[[ $UP_STDOUT == "SLURM_CONF=$CDIR/etc/slurm.conf" ]] || fail "up printed more than SLURM_CONF on stdout: $UP_STDOUT"
munged=$(pid_of munged) ctld=$(pid_of slurmctld) slurmd=$(pid_of "slurmd-$node")
for p in "$munged" "$ctld" "$slurmd"; do pid_running "$p" || fail "daemon pid $p not running after up"; done
grep -qx 'PlugStackConfig='"$CDIR"'/etc/plugstack.conf' "$SLURM_CONF" || fail "slurm.conf lacks PlugStackConfig"
! grep -q '^required' "$CDIR/etc/plugstack.conf" || fail "--plugin none left a plugin in plugstack.conf"

# Idempotent: same options, same daemons.
cluster_up
[[ $(pid_of munged) == "$munged" && $(pid_of slurmctld) == "$ctld" && $(pid_of "slurmd-$node") == "$slurmd" ]] ||
	fail "second up with the same options restarted daemons"
[[ $(sinfo -h -p debug -n "$node" -o %T) == idle ]] || fail "node not idle after the second up"

# Changed configuration: Slurm daemons restart with it, munged stays.
cluster_up --debug debug
grep -qx 'SlurmdDebug=debug' "$SLURM_CONF" || fail "new configuration not installed"
[[ $(pid_of munged) == "$munged" ]] || fail "munged restarted for a Slurm configuration change"
[[ $(pid_of slurmctld) != "$ctld" && $(pid_of "slurmd-$node") != "$slurmd" ]] ||
	fail "slurmctld/slurmd not restarted after a configuration change"
pid_running "$ctld" && fail "old slurmctld $ctld still running"
pid_running "$slurmd" && fail "old slurmd $slurmd still running"
[[ $(sinfo -h -p debug -n "$node" -o %T) == idle ]] || fail "node not idle after the restart"
cluster_up # back to the defaults
ctld=$(pid_of slurmctld) slurmd=$(pid_of "slurmd-$node")

# Bad arguments: one clear error line, running cluster untouched.
up() { "$LC/up" --dir "$CDIR" --ctld-port "$CTLD_PORT" --slurmd-port "$SLURMD_PORT" "$@"; }
err=$(up --plugin none --nodes 65 2>&1 >/dev/null) && fail "--nodes 65 succeeded"
[[ $err == *"at most 64 nodes"* ]] || fail "--nodes 65: unclear error: $err"
err=$(up --plugin /nonexistent/plugin.so 2>&1 >/dev/null) && fail "missing plugin accepted"
[[ $(wc -l <<<"$err") == 1 && $err == *"/nonexistent/plugin.so"* ]] || fail "missing plugin: unclear error: $err"
[[ $(pid_of slurmctld) == "$ctld" && $(pid_of "slurmd-$node") == "$slurmd" ]] ||
	fail "a failed up disturbed the running cluster"
echo "PASS $TEST_NAME"
