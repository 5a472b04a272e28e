#!/usr/bin/env bash
# Nothing a user chose starts a line of its own in a log or a terminal: a newline and an
# escape sequence in the card's name (the forged SLURM_STREAMCARD_CARD_NAME), in a key, in a
# value, and in the --stream-card option's value reach slurmd's log, the job's output,
# sbatch's messages and `streamcard run`'s messages escaped (\n, \x1b), never as a line that
# starts with the forged text (a fake "restore: job N" record of the plugin's).
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh" "$@"
# shellcheck source=plugin_lib.sh
source "$(dirname "$0")/plugin_lib.sh"
plugin_up
make_workdir
write_job job.sh
LOG=$(node_log) || fail "no slurmd log of the node"
log_start=$(stat -c %s "$LOG")
FORGED="FORGED-restore: job 1 cpu 0 reg 0x1a4 restored"
# A key and a value with a newline and an escape (YAML double-quoted escapes).
write_card evil.yaml '  cpu_list: 0' "  \"k\\n$FORGED\\e[2J\": 1" "  run_name: \"r\\n$FORGED\""

# no_forged_line FILE...: no line of the files starts with the forged text or holds an ESC.
no_forged_line() {
	local f
	for f in "$@"; do
		! grep -q "^FORGED" "$f" || fail "a forged line in $f: $(grep -n '^FORGED' "$f" | head -3)"
		! grep -q $'\x1b' "$f" || fail "an escape character in $f"
	done
}

# 1. The node: the variables forged, a name with a newline too.
job=$(FORGE_NAME=$'evil.yaml\n'"$FORGED" forge evil.yaml) || fail "sbatch refused the forged job"
state=$(wait_job "$job")
[[ $state != COMPLETED ]] || fail "the forged card ran"
logged "evil.yaml\\n$FORGED:8: unknown key" "$WORK/$job.out" "$LOG"
logged "\\x1b[2J" "$WORK/$job.out" "$LOG"
sleep 1
tail -c +$((log_start + 1)) "$LOG" >"$WORK/slurmd.log"
no_forged_line "$WORK/$job.out" "$WORK/slurmd.log"

# 2. sbatch --stream-card: the submit side's messages.
rc=0
as_user sbatch --stream-card=evil.yaml job.sh >"$WORK/sbatch.out" 2>&1 || rc=$?
((rc != 0)) || fail "sbatch accepted the card"
grep -qF "evil.yaml:8: unknown key \"k\\n$FORGED\\x1b[2J\"" "$WORK/sbatch.out" ||
	fail "no escaped key in sbatch's messages: $(cat "$WORK/sbatch.out")"
grep -qF "run_name: \"r\\n$FORGED\" is not a valid name" "$WORK/sbatch.out" ||
	fail "no escaped value in sbatch's messages: $(cat "$WORK/sbatch.out")"

# 3. The option's value itself.
rc=0
as_user sbatch --stream-card=$'nosuch\n'"$FORGED" job.sh >"$WORK/option.out" 2>&1 || rc=$?
((rc != 0)) || fail "sbatch accepted a card that does not exist"
grep -qF "nosuch\\n$FORGED: cannot read the card" "$WORK/option.out" ||
	fail "no escaped option value: $(cat "$WORK/option.out")"

# 4. The command line: streamcard run's messages on its terminal.
rc=0
as_user "$SC" run evil.yaml --dry-run >"$WORK/cli.out" 2>&1 || rc=$?
((rc == 2)) || fail "streamcard run exited $rc for a bad card"
grep -qF "unknown key \"k\\n$FORGED\\x1b[2J\"" "$WORK/cli.out" || fail "no escaped key: $(cat "$WORK/cli.out")"
no_forged_line "$WORK/sbatch.out" "$WORK/option.out" "$WORK/cli.out"
echo "PASS $TEST_NAME"
