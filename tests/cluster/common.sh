# shellcheck shell=bash
# Shared by the cluster tests (sourced): bring up a private local cluster for the test,
# always take it down again (EXIT trap, also on failure), and small helpers.
#
# Usage in a test:  source "$(dirname "$0")/common.sh" "$@"   (argument: the repo root)
#
# The tests use their own cluster directory and ports, so they never disturb a cluster
# a developer started with the defaults. Environment:
#   STREAMCARD_TEST_CLUSTER_DIR    (default /tmp/streamcard-ctest-cluster)
#   STREAMCARD_TEST_CTLD_PORT      (default 16827)
#   STREAMCARD_TEST_SLURMD_PORT    (default 16828)
#   STREAMCARD_TEST_UP_ARGS        extra options for every up, e.g. "--cgroup no"
# Exit status 77 means "skipped" (no root, or the Slurm/munge packages are missing).
set -euo pipefail

REPO=${1:-}
if [[ -z $REPO || ! -x $REPO/contrib/local-cluster/up ]]; then
	echo "usage: $0 REPO_ROOT (the directory holding contrib/local-cluster/up)" >&2
	exit 2
fi
LC=$REPO/contrib/local-cluster
CDIR=${STREAMCARD_TEST_CLUSTER_DIR:-/tmp/streamcard-ctest-cluster}
CTLD_PORT=${STREAMCARD_TEST_CTLD_PORT:-16827}
SLURMD_PORT=${STREAMCARD_TEST_SLURMD_PORT:-16828}
TEST_NAME=$(basename "$0" .sh)
WORK=
CLEANUP=() # more paths the exit removes (plugin_lib.sh's staged install)
unset PLUGIN SC # set by plugin_lib.sh, or by a test before it (never by the environment)

skip() {
	echo "SKIP $TEST_NAME: $*"
	exit 77
}
fail() {
	echo "FAIL $TEST_NAME: $*" >&2
	exit 1
}
note() { echo "$TEST_NAME: $*" >&2; }

((EUID == 0)) || skip "needs root (it starts slurmd and munged)"
for exe in /usr/sbin/munged /usr/sbin/slurmctld /usr/sbin/slurmd /usr/bin/sbatch; do
	[[ -x $exe ]] || skip "$exe missing (packages munge, slurmctld, slurmd, slurm-client)"
done

# One test cluster at a time on this machine, also across ctest runs (RESOURCE_LOCK holds only
# within one): the lock is held until this test and the daemons it started are gone.
exec {CLUSTER_LOCK_FD}>"$CDIR.lock"
if ! flock -w 120 "$CLUSTER_LOCK_FD"; then
	skip "another test run holds the test cluster $CDIR for over 120 s ($CDIR.lock)"
fi

# On every exit: show the daemon logs when the test failed, run the test's own
# test_cleanup if it defines one, take the cluster down, remove the work directory.
on_exit() {
	local rc=$?
	if ((rc != 0 && rc != 77)); then
		echo "----- $TEST_NAME failed (rc $rc): cluster logs -----" >&2
		for f in "$CDIR"/log/*.log; do
			[[ -s $f ]] || continue
			echo "--- $f" >&2
			tail -n 20 "$f" >&2
		done
	fi
	if declare -F test_cleanup >/dev/null; then test_cleanup || echo "$TEST_NAME: warning: test_cleanup failed" >&2; fi
	"$LC/down" --dir "$CDIR" >&2 || echo "$TEST_NAME: warning: down failed" >&2
	if [[ -n $WORK && -d $WORK ]]; then rm -rf -- "$WORK"; fi
	local path
	for path in "${CLEANUP[@]}"; do rm -rf -- "$path"; done
	exit "$rc"
}
trap on_exit EXIT

# cluster_up [UP OPTIONS...]: start (or refresh) the test cluster, export SLURM_CONF.
# Sets UP_STDOUT to everything up printed on stdout.
cluster_up() {
	local extra=()
	read -r -a extra <<<"${STREAMCARD_TEST_UP_ARGS:-}"
	UP_STDOUT=$("$LC/up" --dir "$CDIR" --ctld-port "$CTLD_PORT" --slurmd-port "$SLURMD_PORT" \
		--plugin none "${extra[@]}" "$@") || fail "up $* failed"
	local last=${UP_STDOUT##*$'\n'}
	[[ $last == SLURM_CONF=* ]] || fail "last line of up's stdout is not SLURM_CONF=...: '$last'"
	export SLURM_CONF=${last#SLURM_CONF=}
	# The job completion log as this test found it: final_state reads only what follows.
	if [[ -z ${JOBCOMP_OFFSET:-} ]]; then
		JOBCOMP_OFFSET=$(stat -c %s "$CDIR/log/jobcomp.log" 2>/dev/null || echo 0)
	fi
	[[ $SLURM_CONF == "$CDIR/etc/slurm.conf" && -r $SLURM_CONF ]] || fail "bad SLURM_CONF: $SLURM_CONF"
}

cluster_down() { "$LC/down" --dir "$CDIR" "$@"; }

# make_workdir: a fresh directory owned by the job user, where jobs run and write output.
make_workdir() {
	WORK=$(mktemp -d "/tmp/streamcard-$TEST_NAME.XXXXXX")
	chown scuser:scuser "$WORK"
	chmod 0755 "$WORK"
}

# as_user [--env NAME=VALUE]... CMD...: run CMD as scuser in the work directory against
# the test cluster.
as_user() {
	local opts=()
	while [[ ${1:-} == --env ]]; do
		opts+=("$1" "$2")
		shift 2
	done
	"$LC/as-user" --dir "$CDIR" --chdir "${WORK:-/home/scuser}" "${opts[@]}" -- "$@"
}

# wait_until SECONDS DESCRIPTION CMD...: poll CMD every 0.1 s until it succeeds.
wait_until() {
	local secs=$1 what=$2 i
	shift 2
	for ((i = 0; i < secs * 10; i++)); do
		if "$@"; then return 0; fi
		sleep 0.1
	done
	fail "timed out after ${secs}s waiting for: $what"
}

# pid_of NAME: the pid in the cluster's pid file for munged, slurmctld or slurmd-<node>.
pid_of() {
	local f=$CDIR/run/$1.pid
	[[ -r $f ]] || fail "no pid file $f"
	cat "$f"
}

# pid_running PID: the process exists and is not a zombie (a dead daemon may linger as a
# zombie until its parent, the machine's init, reaps it).
pid_running() {
	local state
	state=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 1
	[[ -n $state && $state != Z ]]
}

# submit_sleeper MARKER: submit (as scuser) a batch job whose process is `sleep 300`
# running under argv[0] MARKER, so the test can find exactly that process; prints the id.
submit_sleeper() {
	printf '#!/bin/bash\nexec -a %q sleep 300\n' "$1" >"$WORK/sleeper-$1.sh"
	chown scuser:scuser "$WORK/sleeper-$1.sh"
	as_user sbatch --parsable "sleeper-$1.sh"
}
sleeper_alive() { pgrep -u scuser -f "^$1 300\$" >/dev/null; }
sleeper_gone() { ! sleeper_alive "$1"; }

in_queue() { [[ -n $(squeue -h -j "$1" -o %T 2>/dev/null) ]]; }
not_in_queue() { ! in_queue "$1"; }
job_state() { squeue -h -j "$1" -o %T 2>/dev/null; }
is_running() { [[ $(job_state "$1") == RUNNING ]]; }

# final_state JOBID: the job's final state from the job completion log (jobcomp/filetxt):
# the newest record of that id written since this test started (job ids start again when
# slurmctld restarts without saved state, so older records may carry the same id).
final_state() {
	tail -c +$((${JOBCOMP_OFFSET:-0} + 1)) "$CDIR/log/jobcomp.log" 2>/dev/null | grep "^JobId=$1 " |
		tail -n1 | grep -o 'JobState=[^ ]*' | cut -d= -f2
}
has_final_state() { [[ -n $(final_state "$1") ]]; }
