#!/usr/bin/env bash
# Evidence root vouches for (doc/contracts/attestation.md), on the real cluster with a fake
# machine under the plugin's sysroot: a job changing prefetch and the governor carries the
# plugin's signed statement; verify with the node's key says it is attested and by which
# key, and fetches the restore's statement from the state directory once the job ended;
# job A's statement in job B's bundle fails; the job's user cannot read the node's private
# key; a node whose key= names a missing file runs the job, says why (naming streamcard
# keygen) and its bundle is "not attested"; a node without a key configured runs it quietly:
# one info line at slurmd's start, no error for the job.
# shellcheck source=common.sh
source "$(dirname "$0")/common.sh" "$@"
# shellcheck source=plugin_lib.sh
source "$(dirname "$0")/plugin_lib.sh"
make_workdir
HOST=$(hostname -s)
FPR=$(sha256sum < <(openssl pkey -pubin -in "$TRUSTED/$HOST.pub" -outform DER | tail -c 32) | cut -d' ' -f1)

msr_sysroot GenuineIntel 6 85 0x1a4 0xdeadbeef00000040
plugin_up allow=prefetch,governor require_exclusive=yes "sysroot=$SYS" "state_dir=$STATE"
write_card card.yaml '  cpu_list: 0-1' '  threads: 2' '  prefetch: off' '  governor: performance'
write_job job.sh

# run_job: a job of card.yaml; prints its bundle.
run_job() {
	local job st
	job=$(submit card.yaml job.sh --exclusive) || fail "sbatch refused"
	st=$(wait_job "$job")
	[[ $st == COMPLETED ]] || fail "job $job ended $st: $(cat "$WORK/$job.out")"
	echo "$job $(job_bundle "$job")"
}

read -r JOB_A A < <(run_job)
[[ -s $A/attest/apply_$HOST.dsse.json ]] || fail "no signed statement in the bundle"
grep -q "the readback comes with a statement signed by the node" "$WORK/$JOB_A.out" ||
	fail "the run does not say its readback is signed: $(cat "$WORK/$JOB_A.out")"
as_user "$SC" verify --keys "$TRUSTED" "$A" >"$WORK/v.out" 2>&1 || fail "verify: $(cat "$WORK/v.out")"
grep -q "platform attested by $HOST key $FPR" "$WORK/v.out" || fail "no attestation line: $(cat "$WORK/v.out")"
# The statement says what root set and read back, for this job and card, with the plugin's
# build identity.
"$SC" export --in-toto "$A" >"$WORK/intoto.jsonl" || fail "export --in-toto"
python3 - "$WORK/intoto.jsonl" "$JOB_A" "$(sha256sum <"$A/card.yaml" | cut -d' ' -f1)" \
	"$(sha256sum <"$PLUGIN" | cut -d' ' -f1)" <<'PY' || fail "the statement does not say what root did"
import base64, json, sys
e = json.loads(open(sys.argv[1]).readline()); s = json.loads(base64.b64decode(e["payload"]))
p = s["predicate"]
assert s["predicateType"] == "https://streamcard.dev/attestation/platform/v1", s
assert p["job_id"] == int(sys.argv[2]) and p["card_sha256"] == sys.argv[3], p
assert p["plugin"]["build"] == sys.argv[4], p["plugin"]
assert p["state"]["OBSERVED_STATE"] == "off" and p["state"]["OBSERVED_GOVERNOR"] == "performance", p
assert p["state"]["BEFORE_PREFETCH"] == "on", p["state"]
assert p["state"]["CPUS"] == "0-1" and p["state"]["RUN"].startswith("0-"), p["state"]
assert p["kernel_tainted"] == "0" and p["user"] == "scuser", p
assert {x["name"] for x in s["subject"]} >= {"card.yaml", "prefetch/state/state.env"}, s["subject"]
PY

# The restore: signed by root into the state directory after the step's end, named for the
# run, and naming the bundle's apply statement.
restore_of() {
	local f
	f=$(compgen -G "$STATE/attest/job_${1}_${HOST}_*.restore.dsse.json") || return 1
	head -n1 <<<"$f"
}
wait_until 10 "the restore statement" restore_of "$JOB_A"
R=$(restore_of "$JOB_A")
"$SC" export --in-toto "$A" >/dev/null # (the bundle's own statement; the restore is read by verify)
python3 - "$R" "$(sha256sum <"$A/attest/apply_$HOST.dsse.json" | cut -d' ' -f1)" <<'PY' || fail "the restore does not name the apply statement"
import base64, json, sys
p = json.loads(base64.b64decode(json.load(open(sys.argv[1]))["payload"]))["predicate"]
assert p["phase"] == "restore" and p["state"]["APPLY_SHA256"] == sys.argv[2], p["state"]
assert sys.argv[1].endswith("_" + p["state"]["RUN"] + ".restore.dsse.json"), p["state"]
PY
[[ ! -e $STATE/attest/job_${JOB_A}_$HOST.apply ]] || fail "the apply note was not taken by the restore"
[[ $(stat -c '%U %a' "$R") == "root 644" && $(stat -c '%U %a' "$STATE/attest") == "root 755" ]] ||
	fail "the restore statement is not root's and read-only for others: $(stat -c '%U %a' "$R" "$STATE/attest")"
as_user "$SC" verify --keys "$TRUSTED" --state-dir "$STATE" "$A" >"$WORK/v.out" 2>&1 ||
	fail "verify with the restore: $(cat "$WORK/v.out")"
grep -q "restore attested by $HOST key $FPR: restored .* read back prefetch on (before the job: on), governor powersave" "$WORK/v.out" ||
	fail "the restore is not attested: $(cat "$WORK/v.out")"
restored || fail "the MSRs were not restored"

# Job A's statement in job B's bundle (same card, node and user): fails, naming the jobs.
read -r JOB_B B < <(run_job)
cp "$A/attest/apply_$HOST.dsse.json" "$B/attest/"
for f in prefetch/control.log prefetch/state/state.env prefetch/state/msr_readback_before.txt \
	prefetch/state/msr_readback_after.txt platform/before.txt; do cp "$A/$f" "$B/$f"; done
reseal "$B"
out=$("$SC" verify --keys "$TRUSTED" "$B" 2>&1) && fail "verify accepts job $JOB_A's statement in job $JOB_B's bundle"
grep -q "signed for job $JOB_A, but this bundle is job $JOB_B's" <<<"$out" || fail "not named: $out"

# The user cannot read the node's private key.
as_user cat "$NODE_KEYS/$HOST/node.key" >/dev/null 2>&1 && fail "the job's user can read the node key"
[[ $(stat -c '%U %a' "$NODE_KEYS/$HOST/node.key") == "root 600" ]] || fail "node.key is not root's 0600"

# A node whose key= names a missing file: the job runs, an error says why and names the
# command that makes the key, verify says not attested.
plugin_up allow=prefetch,governor require_exclusive=yes "sysroot=$SYS" "state_dir=$STATE" \
	key=/nonexistent/node.key
read -r JOB_C C < <(run_job)
[[ ! -e $C/attest ]] || fail "a statement without a key"
logged "its bundle's platform claims are not attested" "$WORK/$JOB_C.out" "$CDIR/log/slurmd-"*.log
logged "streamcard: key /nonexistent/node.key: no such file (valid: a node key made as root with streamcard keygen --out /nonexistent," \
	"$WORK/$JOB_C.out"
out=$(as_user "$SC" verify --keys "$TRUSTED" "$C" 2>&1) && fail "verify accepts an unsigned platform claim"
grep -q "platform_state: not attested" <<<"$out" || fail "not said: $out"

# The local cluster's own node keys: without key= in --plugin-args (as the quick start runs
# it) up gives each node a key and the plugin key=<dir>/nodekeys/%n/node.key, so the
# bundle is attested by the key up made, which the job's user cannot read.
cluster_up --plugin "$PLUGIN" --plugin-args "allow=prefetch,governor require_exclusive=yes sysroot=$SYS state_dir=$STATE"
grep -q " key=$CDIR/nodekeys/%n/node.key\$" "$CDIR/etc/plugstack.conf" ||
	fail "up did not name its node key to the plugin: $(cat "$CDIR/etc/plugstack.conf")"
[[ $(stat -c '%U %a' "$CDIR/nodekeys/$HOST/node.key") == "root 600" ]] || fail "up's node key is not root's 0600"
read -r JOB_E E < <(run_job)
as_user "$SC" verify --keys "$CDIR/nodekeys/trusted" "$E" >"$WORK/v.out" 2>&1 || fail "verify: $(cat "$WORK/v.out")"
grep -q "platform attested by $HOST key " "$WORK/v.out" || fail "not attested by up's key: $(cat "$WORK/v.out")"

# No key configured (no key=, nothing at the default /etc/streamcard/node.key): keys are
# opt-in. slurmd says so once, at its start, as information; a job logs no error about
# keys, neither in slurmd's log nor in its output, and its bundle is not attested.
if [[ -e /etc/streamcard/node.key ]]; then
	note "skipping the keyless node: /etc/streamcard/node.key exists on this machine"
else
	log=$(node_log) || fail "no slurmd log"
	from=$(($(stat -c %s "$log") + 1))
	cluster_up --plugin "$PLUGIN" --plugin-args "allow=prefetch,governor require_exclusive=yes sysroot=$SYS state_dir=$STATE" \
		--node-key no
	read -r JOB_D D < <(run_job)
	[[ ! -e $D/attest ]] || fail "a statement from a node without a key"
	wait_until 10 "the job's extern step to end" not_in_queue "$JOB_D"
	since=$(tail -c "+$from" "$log")
	keyless=$(grep -c "no node key configured" <<<"$since" || true)
	[[ $keyless == 1 ]] || fail "slurmd did not say once that no key is configured ($keyless lines): $since"
	grep -q "error:" <<<"$(grep "no node key configured" <<<"$since")" && fail "no key configured is logged as an error: $since"
	grep -q "streamcard keygen --out /etc/streamcard" <<<"$since" || fail "the line does not name keygen: $since"
	errors=$(grep "error:" <<<"$since" | grep -i "key\|attest\|signed" || true)
	[[ -z $errors ]] || fail "errors about keys for a keyless node's job: $errors"
	if grep -v "no platform claim is attested" "$WORK/$JOB_D.out" | grep -i "key\|not attested\|not signed" >/dev/null; then
		fail "the keyless job's output speaks of keys: $(cat "$WORK/$JOB_D.out")"
	fi
	grep -q "no platform claim is attested" "$WORK/$JOB_D.out" || fail "the run does not say it is not attested: $(cat "$WORK/$JOB_D.out")"
fi
echo "PASS $TEST_NAME"
