# shellcheck shell=bash disable=SC2034 # the variables are used by the scripts sourcing this
# Shared by up, down and as-user (sourced, never run): the layout of a local cluster's
# private directory, the node table, daemon pid handling and logging.
#
# Everything a cluster owns lives under one directory ($LC_DIR):
#   etc/    slurm.conf, plugstack.conf, cgroup.conf (only with cgroups), nodes, fingerprint
#   munge/  munge.key, munged.seed                                    (0700, root only)
#   run/    munge.socket, munged.pid, slurmctld.pid, slurmd-<node>.pid  (0755: users
#           must reach the munge socket)
#   log/    munged.log, slurmctld.log, slurmd-<node>.log, jobcomp.log and the
#           daemons' stderr (*.stderr: what they print before their log is open)
#   state/  slurmctld's StateSaveLocation
#   spool/<node>/  slurmd's SlurmdSpoolDir (batch scripts, slurmstepd sockets)

# The repository root: this file is <repo>/contrib/local-cluster/lib.sh.
LC_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)

# The non-root account jobs are submitted as (`up` creates it when missing).
LC_USER=scuser
LC_USER_HOME=/home/$LC_USER

# Default ports: unusual ones, so a system Slurm on 6817/6818 is never disturbed.
LC_DEFAULT_CTLD_PORT=${STREAMCARD_CLUSTER_CTLD_PORT:-16817}
LC_DEFAULT_SLURMD_PORT=${STREAMCARD_CLUSTER_SLURMD_PORT:-16818}

# The daemons, resolved once; pid checks compare /proc/PID/exe against these.
LC_MUNGED=/usr/sbin/munged
LC_SLURMCTLD=/usr/sbin/slurmctld
LC_SLURMD=/usr/sbin/slurmd

lc_prog=${0##*/}

lc_say() { printf '%s: %s\n' "$lc_prog" "$*" >&2; }
lc_die() {
	printf '%s: error: %s\n' "$lc_prog" "$*" >&2
	exit 1
}

# lc_set_dir DIR: fixes every path of the cluster living in DIR (made absolute).
lc_set_dir() {
	local dir=$1
	[[ $dir == /* ]] || dir=$PWD/$dir
	dir=${dir%/}
	LC_DIR=$dir
	LC_ETC=$dir/etc
	LC_MUNGE=$dir/munge
	LC_RUN=$dir/run
	LC_LOG=$dir/log
	LC_STATE=$dir/state
	LC_SPOOL=$dir/spool
	LC_CONF=$LC_ETC/slurm.conf
	LC_SOCKET=$LC_RUN/munge.socket
	LC_MUNGED_PID=$LC_RUN/munged.pid
	LC_CTLD_PID=$LC_RUN/slurmctld.pid
	LC_NODES_FILE=$LC_ETC/nodes
	LC_LOCK=$dir/.lock
	LC_MARKER=$dir/.streamcard-local-cluster # "up made this directory": down trusts only these
}

lc_default_dir() { printf '%s\n' "${STREAMCARD_CLUSTER_DIR:-/tmp/streamcard-cluster}"; }

# Per-node paths. slurm.conf spells them with %n (expanded by slurmd to its node name),
# these helpers give the expanded form for one node.
lc_slurmd_pidfile() { printf '%s/slurmd-%s.pid\n' "$LC_RUN" "$1"; }
lc_slurmd_log() { printf '%s/slurmd-%s.log\n' "$LC_LOG" "$1"; }

# lc_node_table N SLURMD_PORT: the one place that decides how nodes are named and reached.
# Prints one line per node: NAME ADDRESS PORT.
# A single node is this machine under its short hostname (slurmd finds its NodeName by
# matching the hostname). Several nodes will later each live in their own network and UTS
# namespace (own hostname, own address), so that ranks on different nodes really talk over
# a network; they are not supported yet.
lc_node_table() {
	local count=$1 port=$2
	if ((count != 1)); then
		lc_die "--nodes $count: not yet supported (only --nodes 1 for now)"
	fi
	printf '%s %s %s\n' "$(hostname -s)" 127.0.0.1 "$port"
}

# lc_node_names: the node names of the cluster as `up` last configured it.
lc_node_names() {
	[[ -r $LC_NODES_FILE ]] || return 0
	local name _addr _port
	while read -r name _addr _port; do
		[[ -n $name ]] && printf '%s\n' "$name"
	done <"$LC_NODES_FILE"
}

# lc_pid_alive PIDFILE EXE: prints the pid and succeeds when PIDFILE names a live process
# whose executable is EXE and whose command line mentions this cluster's directory. The
# last check makes a stale pid file (pid reused after a reboot, or the daemon of another
# cluster) harmless: we only ever signal what this directory started.
lc_pid_alive() {
	local pidfile=$1 exe=$2 pid real cmdline
	[[ -r $pidfile ]] || return 1
	read -r pid <"$pidfile" 2>/dev/null || return 1
	[[ $pid =~ ^[0-9]+$ ]] || return 1
	real=$(readlink "/proc/$pid/exe" 2>/dev/null) || return 1
	real=${real% (deleted)}
	# /usr/sbin/slurmd is a Debian alternatives symlink (to slurmd-wlm).
	[[ $real == "$(readlink -f "$exe")" ]] || return 1
	cmdline=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) || return 1
	[[ $cmdline == *"$LC_DIR/"* ]] || return 1
	printf '%s\n' "$pid"
}

# lc_stop_pidfile NAME PIDFILE EXE: SIGTERM the daemon recorded in PIDFILE (only if it is
# ours, see lc_pid_alive), wait up to 15 s, then SIGKILL. Removes the pid file.
lc_stop_pidfile() {
	local name=$1 pidfile=$2 exe=$3 pid i
	if ! pid=$(lc_pid_alive "$pidfile" "$exe"); then
		rm -f "$pidfile"
		return 0
	fi
	lc_say "stopping $name (pid $pid)"
	kill -TERM "$pid" 2>/dev/null || true
	for ((i = 0; i < 150; i++)); do
		[[ -d /proc/$pid ]] || break
		# A zombie child of ours would never disappear; it is stopped, that is enough.
		[[ $(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null) == Z ]] && break
		sleep 0.1
	done
	if [[ -d /proc/$pid ]] && [[ $(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null) != Z ]]; then
		lc_say "$name (pid $pid) ignored SIGTERM for 15 s: sending SIGKILL"
		kill -KILL "$pid" 2>/dev/null || true
		sleep 0.2
	fi
	rm -f "$pidfile"
}

# lc_slurm ARGS...: run a Slurm client command against this cluster, as root.
lc_slurm() { SLURM_CONF=$LC_CONF "$@"; }

# lc_cancel_all_jobs: cancel every job of this cluster and wait (bounded) until none is
# left in the queue, so no slurmstepd or user process outlives the daemons that own it.
lc_cancel_all_jobs() {
	local ids i
	ids=$(lc_slurm squeue -h -o %A 2>/dev/null) || return 0
	[[ -n $ids ]] || return 0
	# shellcheck disable=SC2086 # one word per job id
	lc_say "cancelling jobs:" $ids
	# shellcheck disable=SC2086
	lc_slurm scancel $ids 2>/dev/null || true
	for ((i = 0; i < 200; i++)); do
		[[ -z $(lc_slurm squeue -h -o %A 2>/dev/null) ]] && return 0
		sleep 0.1
	done
	lc_say "warning: jobs still in the queue after 20 s: $(lc_slurm squeue -h -o '%A:%T' | tr '\n' ' ')"
}

# lc_stray_stepds: pids of slurmstepd processes serving this cluster (they hold a unix
# socket in our spool directory). They should not exist once jobs are cancelled.
lc_stray_stepds() {
	local inodes pid fd link
	[[ -d $LC_SPOOL ]] || return 0
	# /proc/net/unix: Num RefCount Protocol Flags Type St Inode Path
	inodes=$(awk -v dir="$LC_SPOOL/" 'index($8, dir) == 1 {print $7}' /proc/net/unix | sort -u)
	[[ -n $inodes ]] || return 0
	for pid in $(pgrep -x slurmstepd || true); do
		for fd in /proc/"$pid"/fd/*; do
			link=$(readlink "$fd" 2>/dev/null) || continue
			if [[ $link == socket:\[*\] ]]; then
				link=${link#socket:[}
				if grep -qx -- "${link%]}" <<<"$inodes"; then
					printf '%s\n' "$pid"
					break
				fi
			fi
		done
	done
}

# lc_descendants PID...: the pids of all descendants of the given processes.
lc_descendants() {
	local -A children=()
	local stat pid ppid rest queue=("$@") p
	for stat in /proc/[0-9]*/stat; do
		# pid (comm) state ppid ...; comm may hold spaces and parentheses: cut at the last ')'.
		read -r rest <"$stat" 2>/dev/null || continue
		pid=${rest%% *}
		rest=${rest##*) }
		ppid=$(cut -d' ' -f2 <<<"$rest")
		children[$ppid]+=" $pid"
	done
	while ((${#queue[@]})); do
		p=${queue[0]}
		queue=("${queue[@]:1}")
		for pid in ${children[$p]:-}; do
			printf '%s\n' "$pid"
			queue+=("$pid")
		done
	done
}

# lc_tail_logs: the end of every daemon log, for error messages.
lc_tail_logs() {
	local f
	for f in "$LC_LOG"/munged.log "$LC_LOG"/*.stderr "$LC_LOG"/slurmctld.log "$LC_LOG"/slurmd-*.log; do
		[[ -s $f ]] || continue
		printf -- '----- last lines of %s -----\n' "$f" >&2
		tail -n 15 "$f" >&2
	done
}

# lc_clean_stale_cgroups NODE...: removes the job cgroups a killed slurmstepd left behind
# (Slurm does not clean them up). Job ids restart when a cluster's state is purged, and a
# stale job_<id> cpuset whose step cgroups still hold CPUs makes the next job with that
# id fail ("cpuset.cpus: Device or resource busy"). Only empty cgroups are removed: rmdir
# refuses a cgroup that still has tasks or children, so a running job is never touched.
lc_clean_stale_cgroups() {
	local node ctl dir
	for node in "$@"; do
		for ctl in cpuset memory freezer; do
			for dir in /sys/fs/cgroup/"$ctl"/slurm_"$node"/uid_*/job_*; do
				[[ -d $dir ]] || continue
				# Deepest first: step_*/task_* before the job itself.
				find "$dir" -depth -type d -exec rmdir {} \; 2>/dev/null || true
			done
		done
	done
}
