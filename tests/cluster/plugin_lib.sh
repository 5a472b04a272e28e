# shellcheck shell=bash
# Shared by the plugin tests (sourced after common.sh): the plugin from the build tree on
# the test cluster, cards, jobs that run `streamcard run`, and fake sysroots.
# Usage: source common.sh "$@"; source plugin_lib.sh   (arguments: REPO_ROOT BUILD_DIR)

BUILD=${2:-$REPO/build}
PLUGIN=$BUILD/lib/spank_streamcard.so
SC=$BUILD/bin/streamcard
[[ -r $PLUGIN && -x $SC ]] || fail "build first: $PLUGIN and $SC are missing"

# plugin_up [PLUGIN ARGS]: the test cluster with the plugin loaded with those arguments
# (and the cli_filter that asks Slurm for what a card needs).
plugin_up() {
	cluster_up --plugin "$PLUGIN" --plugin-args "$*"
}

# plugin_up_unfiltered [PLUGIN ARGS]: the same without the cli_filter, so a job gets only
# what sbatch was told (to test what the plugin does with too little).
plugin_up_unfiltered() {
	cluster_up --plugin "$PLUGIN" --plugin-args "$*" --cli-filter no
}

# write_card NAME [YAML LINES...]: a small STREAM card in $WORK/NAME (owned by scuser);
# extra lines are appended to experiment: (two-space indent included by the caller).
write_card() {
	local name=$1
	shift
	{
		printf 'version: 1\nexperiment:\n  workload: stream\n  kernel: copy\n'
		printf '  array_size: 1000000\n  iterations: 5\n'
		printf '%s\n' "$@"
		# The interference gate opened: these jobs run beside other tests under ctest -j
		# (tests/wrapper/interference.sh tests the gate). Last, so the lines above keep
		# their numbers in the cards' messages.
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
		mkdir -p "$cf" "$dir/dev/cpu/$cpu"
		echo "powersave performance" >"$cf/scaling_available_governors"
		echo powersave >"$cf/scaling_governor"
		echo 1500000 >"$cf/scaling_cur_freq"
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
		if tr '\0' '\n' <"/proc/$pid/environ" 2>/dev/null | grep -qx "SLURM_JOB_ID=$1"; then
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
