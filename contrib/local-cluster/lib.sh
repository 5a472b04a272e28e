# shellcheck shell=bash disable=SC2034 # the variables are used by the scripts sourcing this
# Shared by up, down and as-user (sourced, never run): the layout of a local cluster's
# private directory, the node table, daemon pid handling and logging.
#
# Everything a cluster owns lives under one directory ($LC_DIR):
#   etc/    slurm.conf, plugstack.conf, cgroup.conf (only with cgroups), nodes, fingerprint
#   munge/  munge.key, munged.seed                                    (0700, root only)
#   run/    munge.socket, munged.pid, slurmctld.pid, slurmd-<node>.pid  (0755: users
#           must reach the munge socket); with several nodes also network (what was
#           made: namespaces, links) and network.spec (for which node table)
#   log/    munged.log, slurmctld.log, slurmd-<node>.log, jobcomp.log and the
#           daemons' stderr (*.stderr: what they print before their log is open)
#   state/  slurmctld's StateSaveLocation
#   spool/<node>/  slurmd's SlurmdSpoolDir (batch scripts, slurmstepd sockets)
#   tmp/<node>/    with several nodes: the nodes' TmpFS (mpi/pmix's per-step client
#                  directories; one /tmp shared by all nodes would make them collide)

# The repository root: this file is <repo>/contrib/local-cluster/lib.sh.
LC_REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)

# The non-root account jobs are submitted as (`up` creates it when missing), and a second
# one for tests of two users' jobs on one node (as-user --user scuser2).
LC_USER=scuser
LC_USER_HOME=/home/$LC_USER
LC_USERS=(scuser scuser2)
# The account the plugin runs the card check as (its check_user= default; the Debian
# package's postinst makes it on a site): a system account, no home, no login.
LC_CHECK_USER=streamcard-check

# Default ports: unusual ones, so a system Slurm on 6817/6818 is never disturbed.
LC_DEFAULT_CTLD_PORT=${STREAMCARD_CLUSTER_CTLD_PORT:-16817}
LC_DEFAULT_SLURMD_PORT=${STREAMCARD_CLUSTER_SLURMD_PORT:-16818}

# The plugin `up` loads unless told otherwise: where `cmake --install build` puts it with
# the default prefix, the path doc/admin.md's plugstack.conf line names.
LC_DEFAULT_PLUGIN=/usr/local/lib/slurm/spank_streamcard.so

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
	LC_NET_RECORD=$LC_RUN/network    # namespaces and links made for this cluster (see below)
	LC_NET_SPEC=$LC_RUN/network.spec # what they were made for (the node table)
	LC_NET_MARK="streamcard-local-cluster:$dir" # alias of every interface we make
	LC_MARKER=$dir/.streamcard-local-cluster # "up made this directory": down trusts only these
}

lc_default_dir() { printf '%s\n' "${STREAMCARD_CLUSTER_DIR:-/tmp/streamcard-cluster}"; }

# ------------------------------------------------------------------ the job's user
# lc_as_user CMD...: CMD as LC_USER (setpriv: no PAM session, works without systemd).
lc_as_user() { setpriv --reuid="$LC_USER" --regid="$LC_USER" --init-groups "$@"; }

# lc_require_user_access -r|-x PATH: LC_USER can read (-r) or execute (-x) PATH, as jobs,
# sbatch and srun running as that user must; otherwise dies with one line naming PATH,
# what stops the user (the first directory on the way it cannot search, or the file's
# mode) and the fix. A clone in root's home (mode 0700) is the usual case.
lc_require_user_access() {
	local how=$1 path=$2 what=read bits=r dir='' p
	lc_as_user test "$how" "$path" && return 0
	if [[ $how == -x ]]; then what=execute bits=rx; fi
	while IFS= read -r dir; do
		lc_as_user test -x "$dir" || break
		dir=
	done < <(p=$path; while [[ $p == /*/* ]]; do p=${p%/*}; printf '%s\n' "$p"; done | tac)
	if [[ -n $dir ]]; then
		lc_die "$LC_USER cannot $what $path: $dir (mode $(stat -c %a "$dir"), owner $(stat -c %U "$dir")) is closed to other users (install streamcard where every user can read it: cmake --install build puts it under /usr/local; or chmod o+x $dir)"
	fi
	lc_die "$LC_USER cannot $what $path (mode $(stat -c %a "$path"), owner $(stat -c %U "$path")) (chmod o+$bits $path, or install it: cmake --install build)"
}

# Per-node paths. slurm.conf spells them with %n (expanded by slurmd to its node name),
# these helpers give the expanded form for one node.
lc_slurmd_pidfile() { printf '%s/slurmd-%s.pid\n' "$LC_RUN" "$1"; }
lc_slurmd_log() { printf '%s/slurmd-%s.log\n' "$LC_LOG" "$1"; }

# ------------------------------------------------------------ nodes and their network
# The one place that decides how nodes are named and reached (lc_node_table, lc_net_vars).
#
# One node (--nodes 1) is this machine under its short hostname, reached at 127.0.0.1:
# slurmd finds its NodeName by matching the hostname, nothing is namespaced.
#
# Several nodes (--nodes N, N >= 2) are scn1..scnN. Each slurmd runs in its own network
# namespace (own interface eth0, own address) and UTS namespace (hostname = node name),
# so the job steps it starts, which inherit both, see a machine of their own on the
# network: ranks on different nodes talk over veth pairs and a bridge, never over the
# loopback or shared memory of one host. The picture, for the cluster with SlurmctldPort
# P (tag sc<P>) and subnet 10.213.X.0/24, X = (P - 16817) mod 256:
#
#   root namespace (slurmctld, munged, sbatch/srun/squeue, as-user)
#     sc<P>-head 10.213.X.1/24 ----veth---- head ---+
#                                                   |  netns sc<P>-switch: bridge br0
#   netns sc<P>-scn1: eth0 10.213.X.11 --veth-- scn1 +  (ports head, scn1, scn2, ...)
#   netns sc<P>-scn2: eth0 10.213.X.12 --veth-- scn2 +
#
# With --second-net, a second network between the nodes only (no head link: Slurm's own
# traffic stays on the first), on subnet 10.214.X.0/24:
#
#   netns sc<P>-scn1: eth1 10.214.X.11 --veth-- scn1-eth1 +  netns sc<P>-switch: bridge br1
#   netns sc<P>-scn2: eth1 10.214.X.12 --veth-- scn2-eth1 +
#
# The bridge lives in a namespace of the cluster's own; the root namespace gets exactly
# one interface (sc<P>-head, holding the head address) and its connected /24 route, so
# slurmctld and every client command stay in the root namespace and need no wrapper.
# Everything made is marked with LC_NET_MARK (the interface alias of the head link and of
# each namespace's lo) and recorded in run/network before it is made, so that `down` can
# remove it even after a crash, and never removes what it did not make.
LC_NET_MAX_NODES=64

# lc_net_vars CTLD_PORT: sets the names and addresses of the multi-node network of the
# cluster whose slurmctld listens on CTLD_PORT. Every name carries the tag sc<port>: ports
# are unique among running clusters, and so are their namespaces, links and subnets.
lc_net_vars() {
	local port=$1
	LC_NET_TAG=sc$port
	LC_NET_PREFIX=10.213.$((((port - 16817) % 256 + 256) % 256)) # first three octets
	LC_NET_SUBNET=$LC_NET_PREFIX.0/24
	LC_NET_HEAD_ADDR=$LC_NET_PREFIX.1    # slurmctld as the nodes reach it (root namespace)
	LC_NET_HEAD_LINK=$LC_NET_TAG-head    # its interface in the root namespace (<= 15 chars)
	LC_NET_HEAD_PEER="head"              # the other end of that veth, a port of the bridge
	LC_NET_SWITCH_NS=$LC_NET_TAG-switch  # the namespace holding the bridge
	LC_NET_BRIDGE=br0
	LC_NET_NODE_IF=eth0                  # a node's interface, inside its namespace
	# The second network (up --second-net): node i at $LC_NET2_PREFIX.<10+i> on its eth1.
	LC_NET2_PREFIX=10.214.$((((port - 16817) % 256 + 256) % 256))
	LC_NET2_SUBNET=$LC_NET2_PREFIX.0/24
	LC_NET2_BRIDGE=br1                   # in the switch namespace too
	LC_NET2_NODE_IF=eth1
	LC_NET2_PORT_SUFFIX=-eth1            # scn1-eth1: node scn1's port of br1 (<= 15 chars)
}

# lc_node_table N SLURMD_PORT CTLD_PORT: prints one line per node: NAME ADDRESS PORT, plus
# NETNS (its network namespace) for namespaced nodes. Every node's slurmd may use the same
# port: each has an address of its own.
lc_node_table() {
	local count=$1 port=$2 ctld_port=$3 i
	if ((count == 1)); then
		printf '%s %s %s\n' "$(hostname -s)" 127.0.0.1 "$port"
		return 0
	fi
	((count <= LC_NET_MAX_NODES)) || lc_die "--nodes $count: at most $LC_NET_MAX_NODES nodes"
	lc_net_vars "$ctld_port"
	for ((i = 1; i <= count; i++)); do
		printf 'scn%d %s.%d %s %s-scn%d\n' "$i" "$LC_NET_PREFIX" $((10 + i)) "$port" "$LC_NET_TAG" "$i"
	done
}

# lc_node_names: the node names of the cluster as `up` last configured it.
lc_node_names() {
	[[ -r $LC_NODES_FILE ]] || return 0
	local name _rest
	while read -r name _rest; do
		[[ -n $name ]] && printf '%s\n' "$name"
	done <"$LC_NODES_FILE"
}

# lc_netns_id NETNS: the identity (device:inode) of a named network namespace; compared
# with /proc/PID/ns/net it tells whether a process runs in it.
lc_netns_id() { stat -Lc '%d:%i' "/run/netns/$1" 2>/dev/null; }
lc_pid_netns_id() { stat -Lc '%d:%i' "/proc/$1/ns/net" 2>/dev/null; }

# lc_link_alias LINK [NETNS]: the interface alias of LINK (in NETNS, else the root
# namespace); empty when it has none. Fails when the link does not exist.
lc_link_alias() {
	local out
	out=$(ip ${2:+-n "$2"} -o link show dev "$1" 2>/dev/null) || return 1
	[[ -n $out ]] || return 1
	# `ip -o` joins the lines with '\'; the alias, when set, is one of them (an altname
	# line may follow it).
	sed -n 's/.*\\    alias \([^\\]*\).*/\1/p' <<<"$out" | sed 's/ *$//'
}

# lc_netns_ours NETNS: NETNS exists and was made by this cluster: its lo carries our mark,
# or (a crash between `ip netns add` and marking it) it is unmarked and holds nothing but lo.
lc_netns_ours() {
	local ns=$1 alias
	[[ -e /run/netns/$ns ]] || return 1
	alias=$(lc_link_alias lo "$ns") || return 1
	[[ $alias == "$LC_NET_MARK" ]] && return 0
	[[ -z $alias && $(ip -n "$ns" -o link show 2>/dev/null | wc -l) == 1 ]]
}

# lc_net_record KIND NAME: notes in run/network that we are about to make NAME (KIND netns
# or link), before making it: `down` removes what this file lists, even after a crash.
lc_net_record() { printf '%s %s\n' "$1" "$2" >>"$LC_NET_RECORD"; }

# lc_netns_kill NETNS: stops every process still running in NETNS (SIGTERM, then SIGKILL
# after 5 s). Only slurmd and what it started ever run in our namespaces; a namespace with
# a process in it would outlive `ip netns del` (and so would its interfaces).
lc_netns_kill() {
	local ns=$1 pids i
	pids=$(ip netns pids "$ns" 2>/dev/null | tr '\n' ' ') || return 0
	[[ -n ${pids// /} ]] || return 0
	lc_say "stopping processes left in network namespace $ns: $pids"
	# shellcheck disable=SC2086 # one word per pid
	kill -TERM $pids 2>/dev/null || true
	for ((i = 0; i < 50; i++)); do
		pids=$(ip netns pids "$ns" 2>/dev/null | tr '\n' ' ')
		[[ -n ${pids// /} ]] || return 0
		sleep 0.1
	done
	# shellcheck disable=SC2086
	kill -KILL $pids 2>/dev/null || true
	sleep 0.2
}

# lc_net_teardown: removes every namespace and link listed in run/network that still
# carries our mark (anything else is left alone, with a warning), processes in our
# namespaces first. Deleting a veth end deletes its peer; deleting the switch namespace
# deletes the bridge and the veth ends in it. Harmless when there is nothing to remove.
lc_net_teardown() {
	local kind name alias
	[[ -f $LC_NET_RECORD ]] || return 0
	# Links first (the head link lives in the root namespace), then namespaces, newest first.
	while read -r kind name; do
		[[ $kind == link ]] || continue
		alias=$(lc_link_alias "$name") || continue # already gone
		if [[ $alias == "$LC_NET_MARK" ]]; then
			lc_say "removing link $name"
			ip link del dev "$name" || lc_say "warning: cannot remove link $name"
		else
			lc_say "warning: link $name is not marked as this cluster's (alias '$alias'): left alone"
		fi
	done <"$LC_NET_RECORD"
	while read -r kind name; do
		[[ $kind == netns ]] || continue
		[[ -e /run/netns/$name ]] || continue
		if lc_netns_ours "$name"; then
			lc_netns_kill "$name"
			lc_say "removing network namespace $name"
			ip netns del "$name" || lc_say "warning: cannot remove network namespace $name"
		else
			lc_say "warning: network namespace $name is not marked as this cluster's: left alone"
		fi
	done < <(tac "$LC_NET_RECORD")
	rm -f "$LC_NET_RECORD" "$LC_NET_SPEC"
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
# /proc/net/unix lists the sockets of the reader's network namespace only, so each
# slurmstepd's sockets are looked up in its own view, /proc/PID/net/unix (a node's
# slurmstepd runs in the node's namespace).
lc_stray_stepds() {
	local inodes pid fd link
	[[ -d $LC_SPOOL ]] || return 0
	for pid in $(pgrep -x slurmstepd || true); do
		# /proc/net/unix: Num RefCount Protocol Flags Type St Inode Path
		inodes=$(awk -v dir="$LC_SPOOL/" 'index($8, dir) == 1 {print $7}' "/proc/$pid/net/unix" 2>/dev/null | sort -u)
		[[ -n $inodes ]] || continue
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

# lc_job_has_stepd NODE ID: a live slurmstepd is in a cgroup of job ID on NODE, in any
# controller (slurmstepd sits in its job's freezer cgroup and its step's cpuset).
lc_job_has_stepd() {
	local pid
	while read -r pid; do
		[[ $(cat "/proc/$pid/comm" 2>/dev/null) == slurmstepd ]] && return 0
	done < <(find /sys/fs/cgroup/{freezer,cpuset,memory}/slurm_"$1"/uid_*/job_"$2" -name tasks \
		-exec cat {} + 2>/dev/null)
	return 1
}

# lc_clean_stale_cgroups NODE...: removes what killed steps of THIS cluster left in the
# job cgroups of its nodes, and the cgroups: call it only while this cluster's slurmd on
# NODE is stopped. A slurmstepd killed with SIGKILL leaves its job cgroup and the extern
# step's holder process (`sleep 100000000`) behind; job ids restart when slurmctld comes
# back without saved state, and the next job with that id then fails to start ("cpuset.cpus:
# Device or resource busy"). Which cgroups are this cluster's: every cluster on the machine
# shares the tree slurm_<node>, but each has its own range of job ids (FirstJobId). A job
# with a live slurmstepd is left alone: only slurmd stopped, and its steps carry on.
lc_clean_stale_cgroups() {
	local node ctl dir id first pid
	first=$(sed -n 's/^FirstJobId=//p' "$LC_CONF" 2>/dev/null)
	[[ $first =~ ^[0-9]+$ ]] || return 0
	for node in "$@"; do
		for ctl in freezer cpuset memory; do
			for dir in /sys/fs/cgroup/"$ctl"/slurm_"$node"/uid_*/job_*; do
				[[ -d $dir ]] || continue
				id=${dir##*/job_}
				if ! [[ $id =~ ^[0-9]+$ ]] || ((id < first || id >= first + 1000000)); then
					continue
				fi
				lc_job_has_stepd "$node" "$id" && continue
				# Its processes first (a frozen one would not die), then the cgroups,
				# deepest first: step_*/task_* before the job itself.
				[[ $ctl != freezer ]] || find "$dir" -name freezer.state -exec sh -c 'echo THAWED >"$1"' _ {} \; 2>/dev/null
				find "$dir" -name tasks -exec cat {} + 2>/dev/null | while read -r pid; do
					kill -9 "$pid" 2>/dev/null || true
				done
				find "$dir" -depth -type d -exec rmdir {} \; 2>/dev/null || true
			done
		done
	done
}
