# shellcheck shell=bash
# Shared by the plugin tests (sourced after common.sh): the plugin installed from the build
# on the test cluster, cards, jobs that run `streamcard run`, and fake sysroots.
# Usage: source common.sh "$@"; source plugin_lib.sh
#        (arguments: REPO_ROOT BUILD_DIR [CMAKE_COMMAND])
#
# The tests run an installed tree, as a site does, never the build folder (which the job's
# user may not be able to read, e.g. a clone in root's 0700 home): `cmake --install` of
# BUILD_DIR into a staging folder of this test's own, world-readable under /tmp, removed
# at exit. PLUGIN and SC are the staged plugin and command; SC finds its kernels in the
# staged libexec/streamcard. A test that sets PLUGIN and SC before sourcing this file
# (the package's test: the installed .deb) runs those instead.

if [[ -z ${PLUGIN:-} ]]; then
	BUILD=${2:-$REPO/build}
	CMAKE=${3:-cmake}
	[[ -r $BUILD/lib/spank_streamcard.so && -x $BUILD/bin/streamcard ]] ||
		fail "build first: $BUILD/lib/spank_streamcard.so and $BUILD/bin/streamcard are missing"
	STAGE=$(mktemp -d "/tmp/streamcard-stage-$TEST_NAME.XXXXXX")
	CLEANUP+=("$STAGE")
	chmod 0755 "$STAGE"
	# DESTDIR keeps every file in STAGE, even with an absolute STREAMCARD_SLURM_PLUGINDIR.
	DESTDIR=$STAGE "$CMAKE" --install "$BUILD" --prefix /usr/local >"$STAGE.log" 2>&1 ||
		{ cat "$STAGE.log" >&2; rm -f "$STAGE.log"; fail "cmake --install $BUILD into $STAGE failed"; }
	rm -f "$STAGE.log"
	PLUGIN=$(find "$STAGE" -name spank_streamcard.so -type f)
	SC=$STAGE/usr/local/bin/streamcard
fi
[[ -n $PLUGIN && $PLUGIN != *$'\n'* && -r $PLUGIN && -x ${SC:-} ]] ||
	fail "no single plugin and command to run: '$PLUGIN' '${SC:-}'"

# Node keys of the test cluster (doc/contracts/attestation.md): one per node name this
# machine's nodes can have (its own short name; scn1..scn4 of up --nodes N), made once by
# `streamcard keygen` as root in a root-owned directory beside the cluster's; the plugin
# signs with key=$NODE_KEYS/%n/node.key, verify trusts $TRUSTED (every node's .pub).
NODE_KEYS=${CDIR}-nodekeys
TRUSTED=$NODE_KEYS/trusted
node_keys() {
	local n
	mkdir -p "$TRUSTED" && chmod 0755 "$NODE_KEYS" "$TRUSTED"
	for n in "$(hostname -s)" scn1 scn2 scn3 scn4; do
		[[ -e $NODE_KEYS/$n/node.key ]] || "$SC" keygen --out "$NODE_KEYS/$n" >/dev/null ||
			fail "streamcard keygen --out $NODE_KEYS/$n"
		cp "$NODE_KEYS/$n/node.pub" "$TRUSTED/$n.pub"
	done
}
node_keys
# key_arg ARGS...: "key=..." unless ARGS name a key themselves.
key_arg() { [[ " $* " == *" key="* ]] || printf 'key=%s/%%n/node.key' "$NODE_KEYS"; }

# plugin_up [PLUGIN ARGS]: the test cluster with the plugin loaded with those arguments
# and the node keys (and the cli_filter that asks Slurm for what a card needs).
plugin_up() {
	cluster_up --plugin "$PLUGIN" --plugin-args "$* $(key_arg "$@")"
}

# plugin_up_unfiltered [PLUGIN ARGS]: the same without the cli_filter, so a job gets only
# what sbatch was told (to test what the plugin does with too little).
plugin_up_unfiltered() {
	cluster_up --plugin "$PLUGIN" --plugin-args "$* $(key_arg "$@")" --cli-filter no
}

# write_card NAME [YAML LINES...]: a small STREAM card in $WORK/NAME (owned by scuser);
# extra lines are appended to experiment: (two-space indent included by the caller), from
# line 7 on. The small array is accepted as cache-resident on purpose (STREAM's array rule),
# in the last line so that the caller's lines keep their numbers in the card's messages.
write_card() {
	local name=$1
	shift
	{
		printf 'version: 1\nexperiment:\n  workload: stream\n  kernel: copy\n'
		printf '  array_size: 1000000\n  iterations: 5\n'
		printf '%s\n' "$@"
		printf '  cache_resident: accept\n'
		# The interference gate opened: these jobs run beside other tests under ctest -j
		# (tests/wrapper/interference.sh tests the gate).
		printf '  expect:\n    max_interference_pct: 100\n'
	} >"$WORK/$name"
	chown scuser:scuser "$WORK/$name"
}

# write_job NAME [COMMANDS...]: a batch script running `streamcard run` (or COMMANDS).
write_job() {
	local name=$1
	shift
	{
		printf '#!/bin/bash\n'
		if (($#)); then printf '%s\n' "$@"; else printf 'exec %q run --quiet\n' "$SC"; fi
	} >"$WORK/$name"
	chown scuser:scuser "$WORK/$name"
}

# submit CARD JOB [SBATCH OPTIONS...]: submits as scuser; prints the job id.
submit() {
	local card=$1 job=$2
	shift 2
	as_user sbatch --parsable --stream-card="$card" -o "%j.out" "$@" "$job"
}

# wait_job JOBID: waits for the job to end; prints its final state.
wait_job() {
	wait_until 60 "job $1 to end" has_final_state "$1"
	final_state "$1"
}

# wait_completed JOBID: waits for the job to end; fails unless it COMPLETED.
wait_completed() {
	local state
	state=$(wait_job "$1")
	[[ $state == COMPLETED ]] || fail "job $1 ended $state: $(cat "$WORK/$1.out")"
}

# job_bundle JOBID: the bundle path the job's streamcard run printed (slurmstepd may write
# the job's last output after the job's end is recorded: waits up to 10 s for it).
job_bundle() {
	local b i
	for ((i = 0; i < 100; i++)); do
		grep -q '^BUNDLE=' "$WORK/$1.out" 2>/dev/null && break
		sleep 0.1
	done
	b=$(sed -n 's/^BUNDLE=//p' "$WORK/$1.out" | tail -n1)
	[[ -n $b && -d $b ]] || fail "job $1 printed no bundle: $(cat "$WORK/$1.out")"
	echo "$b"
}

# reseal BUNDLE: SHA256SUMS rewritten over the bundle's files as they are now, as a forger
# would (tests/lib.sh's, for the cluster tests, which do not source it).
reseal() {
	(cd "$1" && find . -type f ! -name SHA256SUMS | sed 's|^\./||' | LC_ALL=C sort |
		xargs sha256sum >SHA256SUMS)
}

# make_sysroot DIR VENDOR FAMILY MODEL: a fake machine for the platform code: the real
# online CPUs, cpufreq files for each, and an 8-byte-per-register MSR device file per CPU
# (sparse: pread/pwrite at offset = register number). Writable by root only.
make_sysroot() {
	local dir=$1 vendor=$2 family=$3 model=$4 online cpu
	online=$(cat /sys/devices/system/cpu/online)
	mkdir -p "$dir/proc" "$dir/sys/devices/system/cpu" "$dir/dev/cpu" \
		"$dir/sys/devices/system/node/node0" "$dir/proc/sys/kernel"
	printf 'processor\t: 0\nvendor_id\t: %s\ncpu family\t: %s\nmodel\t\t: %s\nmodel name\t: fake %s\nmicrocode\t: 0x1\n\n' \
		"$vendor" "$family" "$model" "$vendor" >"$dir/proc/cpuinfo"
	echo "$online" >"$dir/sys/devices/system/cpu/online"
	echo 0 >"$dir/sys/devices/system/node/has_memory"
	grep MemTotal /proc/meminfo | sed 's/^/Node 0 /' >"$dir/sys/devices/system/node/node0/meminfo"
	echo 0 >"$dir/proc/sys/kernel/tainted"
	for cpu in $(seq 0 $(($(nproc --all) - 1))); do
		local cf=$dir/sys/devices/system/cpu/cpu$cpu/cpufreq
		local topo=$dir/sys/devices/system/cpu/cpu$cpu/topology
		mkdir -p "$cf" "$topo" "$dir/dev/cpu/$cpu"
		echo "powersave performance" >"$cf/scaling_available_governors"
		echo powersave >"$cf/scaling_governor"
		echo 1500000 >"$cf/scaling_cur_freq"
		echo "$cpu" >"$cf/related_cpus"
		# The real machine's SMT siblings: what a prefetch register write reaches.
		cat "/sys/devices/system/cpu/cpu$cpu/topology/thread_siblings_list" >"$topo/thread_siblings_list" 2>/dev/null ||
			echo "$cpu" >"$topo/thread_siblings_list"
		truncate -s 0 "$dir/dev/cpu/$cpu/msr"
	done
	chmod -R go-w "$dir"
}

# msr_read DIR CPU REG: the 8-byte register value of a fake MSR file, as 0x%016x.
msr_read() {
	local off=$(($3))
	printf '0x%016x\n' "$(od -An -t u8 -j "$off" -N 8 "$1/dev/cpu/$2/msr" 2>/dev/null | tr -d ' ' || true)"
}

# msr_write DIR CPU REG VALUE: seeds a fake MSR register.
msr_write() {
	python3 - "$1/dev/cpu/$2/msr" "$3" "$4" <<'PY'
import os, struct, sys
fd = os.open(sys.argv[1], os.O_WRONLY)
os.pwrite(fd, struct.pack("<Q", int(sys.argv[3], 0)), int(sys.argv[2], 0))
os.close(fd)
PY
}

# logged TEXT FILE...: TEXT appears in one of the files within 10 s (slurmd writes its log
# asynchronously; a job's end can be seen before its last lines are).
logged() {
	local text=$1 i
	shift
	for ((i = 0; i < 100; i++)); do
		grep -qshF -- "$text" "$@" && return 0
		sleep 0.1
	done
	echo "--- looked in: $*" >&2
	tail -n 20 "$@" >&2 2>/dev/null || true
	fail "no \"$text\" within 10 s in the job's output or slurmd's log"
}

# msr_sysroot VENDOR FAMILY MODEL REG SEED: a fake machine of that identity in
# $WORK/sysroot-VENDOR, REG seeded with SEED on every CPU; sets SYS, STATE (a journal
# directory of its own), REG and SEED for the helper restored.
msr_sysroot() {
	# shellcheck disable=SC2034 # STATE is for the caller (the plugin's state_dir=)
	SYS=$WORK/sysroot-$1 STATE=$WORK/state-$1 REG=$4 SEED=$5
	make_sysroot "$SYS" "$1" "$2" "$3"
	seed_msrs "$SYS" "$REG" "$SEED"
}
# restored: the sysroot of msr_sysroot holds its seed again (on cpus 0 and 1).
restored() { msrs_are "$SYS" "$REG" "$SEED"; }

# seed_msrs DIR REG VALUE: the register set to VALUE on every CPU of a fake sysroot.
seed_msrs() {
	local cpu
	for ((cpu = 0; cpu < $(nproc --all); cpu++)); do msr_write "$1" "$cpu" "$2" "$3"; done
}

# msrs_are DIR REG VALUE: cpus 0 and 1 (a card's cpu_list 0-1) hold VALUE in REG.
msrs_are() { [[ $(msr_read "$1" 0 "$2") == "$3" && $(msr_read "$1" 1 "$2") == "$3" ]]; }

# no_journal STATE_DIR: no restore journal is left in the plugin's state directory.
no_journal() { [[ -z $(find "$1" -name 'job_*.journal' 2>/dev/null) ]]; }

# in_main_loop MARKER: a bundle under $WORK reached its main loop after MARKER was touched.
in_main_loop() { [[ -n $(find "$WORK" -name main_loop.ready -newer "$1" 2>/dev/null) ]]; }

# start_in_main_loop CARD JOB [SBATCH OPTIONS...]: submits and waits until the job's kernel
# is in its main loop; prints the job id.
start_in_main_loop() {
	local marker job
	marker=$(mktemp "$WORK/.marker.XXXXXX")
	job=$(submit "$@") || fail "sbatch refused $1 $2"
	wait_until 30 "job $job in its main loop" in_main_loop "$marker"
	rm -f "$marker"
	echo "$job"
}

# batch_stepd JOBID: the pid of the job's batch step slurmstepd.
batch_stepd() { pgrep -f "^slurmstepd: \[$1.batch\]" | head -n1; }

# sealed_failed BUNDLE: the bundle is sealed (sha256sum -c) and its verdict is failed.
sealed_failed() {
	[[ -r $1/run.conf ]] || fail "no run.conf in $1"
	grep -qx "verdict=failed" "$1/run.conf" || fail "$1: verdict is not failed: $(grep '^verdict' "$1/run.conf")"
	(cd "$1" && sha256sum --quiet -c SHA256SUMS) || fail "$1: SHA256SUMS does not verify"
}

# kill_job_procs JOBID: SIGKILL to the job user's processes of that job only (found by
# SLURM_JOB_ID in their environment): other clusters on this machine run jobs as the
# same user, so a kill by name could hit their jobs.
kill_job_procs() {
	local pid
	for pid in $(pgrep -u scuser); do
		if tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -x "SLURM_JOB_ID=$1" >/dev/null; then
			kill -9 "$pid" 2>/dev/null || true
		fi
	done
}

# running_bundle JOBID: the bundle of a job still running, from the line
# "streamcard: running BINARY into PATH" its streamcard run printed before the workload.
running_bundle() {
	local b
	b=$(sed -n 's/^streamcard: running .* into \(.*\)$/\1/p' "$WORK/$1.out" | tail -n1)
	[[ -n $b && -d $b ]] || fail "job $1 printed no bundle it runs into: $(cat "$WORK/$1.out")"
	echo "$b"
}

# forge CARD_FILE [SBATCH OPTIONS...]: submits job.sh as scuser with the card's variables set
# by hand (plain sbatch, no --stream-card: no submit-side check, no cli_filter), output in
# $WORK/<id>.out; prints the job id. FORGE_SHA and FORGE_NAME override the hash and the name.
forge() {
	local card=$1 b64 sha
	shift
	b64=$(base64 -w0 "$WORK/$card")
	sha=${FORGE_SHA:-$(sha256sum "$WORK/$card" | cut -d' ' -f1)}
	as_user env SLURM_STREAMCARD_CARD_B64="$b64" SLURM_STREAMCARD_CARD_SHA256="$sha" \
		SLURM_STREAMCARD_CARD_NAME="${FORGE_NAME:-$card}" sbatch --parsable \
		-o "$WORK/%j.out" "$@" job.sh
}

# job_cost JOBID SECONDS READY: watches the job's slurmstepd processes (root) and their
# descendants (the card check, as the user) in /proc every 20 ms until they are gone (at most
# SECONDS), and prints "root_cpu=<s> peak_mb=<MB> ended=0|1 seen=0|1": the CPU time of the
# root processes (the most each was seen to use), the largest peak RSS (VmHWM) of any of
# them, whether they all ended in time, and whether a live root slurmstepd of the job was
# seen at all (a job that ends between two looks is not measured: seen=0, measure again).
# Each look reads only /proc/PID/stat of every process (its name, parent and CPU times), and
# status and cmdline only of the job's own. It creates the file READY once it watches: start
# it (in the background) before the job, and let the job start after READY exists.
job_cost() {
	python3 - "$1" "$2" "$3" <<'PY'
import os, subprocess, sys, time
job, timeout, ready = sys.argv[1], float(sys.argv[2]), sys.argv[3]
tick = os.sysconf("SC_CLK_TCK")
seen = {}  # pid -> [uid, cpu seconds, peak MB]
stepd = {}  # pid -> True when it is one of this job's slurmstepd, False when another's
def status(pid):
    uid = hwm = 0
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"): hwm = int(line.split()[1]) / 1024
            if line.startswith("Uid:"): uid = int(line.split()[2])
    return uid, hwm
start = time.time(); ended = False; appeared = False; live = False; looks = 0
while time.time() - start < timeout:
    procs = {}  # pid -> (comm, ppid, cpu seconds)
    for d in os.listdir("/proc"):
        if not d.isdigit(): continue
        try:
            with open(f"/proc/{d}/stat") as f:
                s = f.read()
            rest = s[s.rindex(")") + 2:].split()
            procs[int(d)] = (s[s.index("(") + 1:s.rindex(")")], int(rest[1]),
                             (int(rest[11]) + int(rest[12])) / tick)
        except (OSError, ValueError, IndexError):
            continue
    mine = set()
    for pid, (comm, ppid, cpu) in procs.items():
        if comm != "slurmstepd": continue
        if pid not in stepd:
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    cmd = f.read().split(b"\0")[0].decode(errors="replace")
            except OSError:
                continue
            stepd[pid] = cmd.startswith(f"slurmstepd: [{job}.")
        if stepd[pid]: mine.add(pid)
    grew = True
    while grew:  # the descendants of the job's slurmstepd processes
        grew = False
        for pid, (comm, ppid, cpu) in procs.items():
            if ppid in mine and pid not in mine:
                mine.add(pid); grew = True
    for pid in mine:
        try:
            uid, hwm = status(pid)
        except (OSError, ValueError):
            continue
        appeared = True
        e = seen.setdefault(pid, [uid, 0.0, 0.0])
        e[0] = uid; e[1] = max(e[1], procs[pid][2]); e[2] = max(e[2], hwm)
        if uid == 0 and hwm > 0: live = True  # a zombie has no VmHWM
    if appeared and not mine:
        ended = True
        break
    looks += 1
    if not appeared and looks % 50 == 0:  # about once a second: did the job end unseen?
        state = subprocess.run(["squeue", "-h", "-j", job, "-o", "%T"], capture_output=True,
                               text=True).stdout.strip()
        if state not in ("PENDING", "CONFIGURING", "RUNNING", "COMPLETING"):
            break
    if not os.path.exists(ready):
        open(ready, "w").close()
    time.sleep(0.02)
root_cpu = sum(e[1] for e in seen.values() if e[0] == 0)
peak = max((e[2] for e in seen.values()), default=0.0)
print(f"root_cpu={root_cpu:.2f} peak_mb={peak:.1f} ended={int(ended)} seen={int(live)}")
PY
}

# node_log: the slurmd log of the one node of partition debug (the log directory may also
# hold the logs of an earlier multi-node layout's nodes). Fails when there is none.
node_log() {
	local log
	log="$CDIR/log/slurmd-$(sinfo -h -p debug -o %N).log"
	[[ -f $log ]] && echo "$log"
}

# node_idle: the node of partition debug is idle (no job, nothing completing).
node_idle() { [[ $(sinfo -h -p debug -o %T) == idle ]]; }
