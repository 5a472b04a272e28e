#!/usr/bin/env bash
# verify trusts only platform claims root signed (doc/contracts/attestation.md). The plugin's
# part is played by the test: its files, and its signature made with a node key of the
# test's through the same core functions (sc_test_sign). Without Slurm or root, anyone can
# write the readback files: verify says "not attested". A signed readback verifies with the
# key and names it; a change to a signed field, a statement by an untrusted key, one of
# another node, job A's statement in job B's bundle, and a readback edited after signing
# all fail; two trusted keys (rotation) both work; the restore is fetched from the state
# directory, and holds only for the run and the apply statement the bundle's statement names; a
# signed CPU list other than the card's fails; a card that leaves the platform alone is held
# to the node's own state, which root signs beside what it read.
BIN=$1 SRC=$2
. "$SRC/tests/lib.sh"
SC="$BIN/streamcard"
HOST=$(hostname -s)
UID_NOW=$(id -u)

# keygen: two node keys; a third key nobody trusts.
for k in k1 k2 stranger; do
    expect_status 0 "$SC" keygen --out "$WORK/$k"
    expect_contains "$WORK/out" "$WORK/$k/node.key (private, 0600)"
done
[ "$(stat -c %a "$WORK/k1/node.key")" = 600 ] || fail "node.key is not 0600"
expect_status 3 "$SC" keygen --out "$WORK/k1"
expect_contains "$WORK/err" "an existing key is never replaced"
mkdir -p "$WORK/trust1" "$WORK/trust12"
cp "$WORK/k1/node.pub" "$WORK/trust1/n1.pub"
cp "$WORK/k1/node.pub" "$WORK/trust12/n1.pub"
cp "$WORK/k2/node.pub" "$WORK/trust12/n1-2027.pub"

# job NAME JOB SIGNED_OBSERVED FILE_OBSERVED KEY [NODE]: a bundle as the plugin leaves it
# (card prefetch off, the readback FILE_OBSERVED), a statement signed by KEY saying
# SIGNED_OBSERVED (none: no statement), then `streamcard run` in the job; prints the bundle.
job() {
    local d="$WORK/jobs/$1" job=$2 signed=$3 observed=$4 key=$5 node=${6:-$HOST}
    plugin_bundle "$d" off "$signed"
    if [ "$signed" != none ]; then
        mkdir -p "$d/attest"
        "$BIN/sc_test_sign" "$WORK/$key/node.key" "$d" "$job" "$UID_NOW" "$node" main \
            "$d/prefetch/state/state.env" prefetch/state/state.env prefetch/control.log \
            >"$d/attest/apply_$node.dsse.json" || fail "sc_test_sign"
    fi
    plugin_state "$d/prefetch/state/state.env" off "$observed"
    in_job "$d" env SLURM_JOB_ID="$job" "$SC" run --quiet >"$WORK/run.out" 2>"$WORK/run.err" ||
        true
    bundle_of "$WORK/run.out"
}

# 1. The forgery: every file written by the user, no statement. The run itself says plainly
#    that nothing is attested; verify fails it, with or without trusted keys.
B=$(job forged 500 none off k1)
expect_contains "$WORK/run.err" "no platform claim is attested"
expect_status 1 "$SC" verify --keys "$WORK/trust1" "$B"
expect_contains "$WORK/err" "platform_state: not attested: the bundle holds no signed statement"
expect_status 1 "$SC" verify "$B"
expect_contains "$WORK/err" "no platform claim is attested: the bundle holds no signed statement"

# 2. Signed by k1, trusted: verify holds and names the node and the key.
A=$(job signed 500 off off k1)
expect_status 0 "$SC" verify --keys "$WORK/trust1" "$A"
FPR1=$(sed -n 's/.* key \([0-9a-f]\{64\}\)$/\1/p' "$WORK/out" | head -1)
[ -n "$FPR1" ] || fail "no fingerprint printed"
expect_contains "$WORK/out" "platform attested by $HOST key $FPR1"
expect_contains "$WORK/out" "restore not attested yet on $HOST"
# The same bundle without the key trusted: not attested.
expect_status 1 "$SC" verify --keys "$WORK/nokeys" "$A"
expect_contains "$WORK/err" "platform_state: not attested: no trusted key in $WORK/nokeys"

# 3. A signed field changed (the job id inside the statement), the signature kept.
C="$WORK/jobs/changed" && cp -r "$A" "$C"
python3 - "$C/attest/apply_$HOST.dsse.json" <<'PY'
import base64, json, sys
p = sys.argv[1]; e = json.load(open(p))
s = json.loads(base64.b64decode(e["payload"]))
s["predicate"]["state"]["OBSERVED_STATE"] = "off"; s["predicate"]["job_id"] = 501
e["payload"] = base64.b64encode(json.dumps(s).encode()).decode()
json.dump(e, open(p, "w"))
PY
reseal "$C"
expect_status 1 "$SC" verify --keys "$WORK/trust1" "$C"
expect_contains "$WORK/err" "does not verify: the statement was changed"

# 4. Root read back "on"; the user wrote "off" into the bundle's state.env afterwards.
D=$(job edited 502 on off k1)
expect_status 1 "$SC" verify --keys "$WORK/trust1" "$D"
expect_contains "$WORK/err" "prefetch/state/state.env is not the text root signed"

# 5. A statement by a key nobody trusts (another site's, or the user's own).
E=$(job stranger 503 off off stranger)
expect_status 1 "$SC" verify --keys "$WORK/trust1" "$E"
expect_contains "$WORK/err" "not attested: attest/apply_$HOST.dsse.json is signed by no trusted key"

# 6. Another node's statement (a job the user ran on node n9) in this node's bundle.
F=$(job othernode 504 off off k1 n9)
expect_status 1 "$SC" verify --keys "$WORK/trust1" "$F"
expect_contains "$WORK/err" "signed on node n9, but the run ran on $HOST"

# 7. Job A's statement copied into job B's bundle (same card, same node, same user).
G=$(job jobb 505 none off k1)
mkdir -p "$G/attest" && cp "$A/attest/apply_$HOST.dsse.json" "$G/attest/"
cp "$A/prefetch/state/state.env" "$A/prefetch/control.log" "$G/prefetch/state/" 2>/dev/null
cp "$A/prefetch/control.log" "$G/prefetch/control.log"
reseal "$G"
expect_status 1 "$SC" verify --keys "$WORK/trust1" "$G"
expect_contains "$WORK/err" "signed for job 500, but this bundle is job 505's"

# 8. Rotation: k1 and k2 trusted at once; a bundle of each verifies, each naming its key.
H2=$(job rotated 506 off off k2)
expect_status 0 "$SC" verify --keys "$WORK/trust12" "$H2"
expect_status 0 "$SC" verify --keys "$WORK/trust12" "$A"
expect_contains "$WORK/out" "key $FPR1"
expect_status 1 "$SC" verify --keys "$WORK/trust1" "$H2"

# 9. The restore, fetched from the node's state directory: signed by a trusted key for the
#    same job, node and card, the run the apply statement names and that very statement.
mkdir -p "$WORK/state/attest"
APPLY_SHA=$(sha256sum <"$A/attest/apply_$HOST.dsse.json" | cut -d' ' -f1)
R="$WORK/state/attest/job_500_${HOST}_0-1700000000.restore.dsse.json"
restore() { # restore RUN APPLY_SHA256: the restore statement of job 500, signed by k1, as $R
    printf 'REQUESTED_PREFETCH=off\nREQUESTED_GOVERNOR=unchanged\nRESTORED=1\nREADBACK_PREFETCH=on\nREADBACK_GOVERNOR=unknown\nRUN=%s\nAPPLY_SHA256=%s\n' \
        "$1" "$2" >"$WORK/restore.env"
    SC_TEST_PHASE=restore "$BIN/sc_test_sign" "$WORK/k1/node.key" "$A" 500 "$UID_NOW" "$HOST" main \
        "$WORK/restore.env" >"$R" || fail "sc_test_sign restore"
}
restore 0-1700000000 "$APPLY_SHA"
expect_status 0 "$SC" verify --keys "$WORK/trust1" --state-dir "$WORK/state" "$A"
expect_contains "$WORK/out" "restore attested by $HOST key $FPR1: restored"
expect_contains "$WORK/out" "read back prefetch on"
# The restore of the job's first run, where this (requeued) run's should be: not this one's.
restore 0-1699999000 "$APPLY_SHA"
expect_status 0 "$SC" verify --keys "$WORK/trust1" --state-dir "$WORK/state" "$A"
expect_contains "$WORK/out" "restore not attested on $HOST: $R: it closes another run of the job"
expect_not_contains "$WORK/out" "restore attested by"
# A restore naming another apply statement (another step's, or another bundle's).
restore 0-1700000000 0000000000000000000000000000000000000000000000000000000000000000
expect_status 0 "$SC" verify --keys "$WORK/trust1" --state-dir "$WORK/state" "$A"
expect_contains "$WORK/out" "it closes another apply statement than the bundle's"

# 9b. A statement whose signed CPUs are not the card's cpu_list (a record of other CPUs).
S="$WORK/jobs/narrow" && plugin_bundle "$S" off off
sed 's/^CPUS=0-1$/CPUS=0/' "$S/prefetch/state/state.env" >"$WORK/narrow.env"
mkdir -p "$S/attest"
"$BIN/sc_test_sign" "$WORK/k1/node.key" "$S" 512 "$UID_NOW" "$HOST" main "$WORK/narrow.env" \
    >"$S/attest/apply_$HOST.dsse.json" || fail "sc_test_sign"
in_job "$S" env SLURM_JOB_ID=512 "$SC" run --quiet >"$WORK/run.out" 2>"$WORK/run.err" || true
S=$(bundle_of "$WORK/run.out")
expect_status 1 "$SC" verify --keys "$WORK/trust1" "$S"
expect_contains "$WORK/err" "signed for CPUs 0, but card.yaml's cpu_list is 0-1"

# 9c. A card that leaves the platform alone: root signs what it read of its CPUs and the
#     node's own state; verify holds one to the other. Run while another step of the job held
#     prefetch off and performance, the bundle fails platform_state.
unchanged() { # unchanged NAME JOB PREFETCH GOVERNOR CHANGED_BY: prints the bundle
    local d="$WORK/jobs/$1"
    plugin_bundle "$d" "" x
    rm -r "$d/prefetch"
    printf 'REQUESTED_PREFETCH=unchanged\nOBSERVED_STATE=%s\nSTATE_VALID=1\nREQUESTED_GOVERNOR=unchanged\nOBSERVED_GOVERNOR=%s\nGOVERNOR_VALID=1\nCPUS=0-1\nBASELINE_PREFETCH=on\nBASELINE_GOVERNOR=powersave\nCHANGED_BY=%s\n' \
        "$3" "$4" "$5" >"$WORK/$1.env"
    mkdir -p "$d/attest"
    "$BIN/sc_test_sign" "$WORK/k1/node.key" "$d" "$2" "$UID_NOW" "$HOST" main "$WORK/$1.env" \
        >"$d/attest/apply_$HOST.dsse.json" || fail "sc_test_sign"
    in_job "$d" env SLURM_JOB_ID="$2" "$SC" run --quiet >"$WORK/run.out" 2>"$WORK/run.err" || true
    bundle_of "$WORK/run.out"
}
U=$(unchanged quiet 520 on powersave none)
expect_status 0 "$SC" verify --keys "$WORK/trust1" "$U"
expect_contains "$WORK/out" "platform attested by $HOST"
V=$(unchanged held 521 off performance 521)
expect_status 1 "$SC" verify --keys "$WORK/trust1" "$V"
expect_contains "$WORK/err" "platform_state: the card leaves prefetch and governor unchanged, but root read back prefetch off, governor performance on $HOST's CPUs 0-1, and the node's own are prefetch on, governor powersave (a change held by job 521)"

# 10. export --in-toto: the bundle's statements, one envelope per line.
expect_status 0 "$SC" export --in-toto "$A"
python3 - "$WORK/out" <<'PY' || fail "export --in-toto is not one DSSE envelope per line"
import base64, json, sys
lines = [l for l in open(sys.argv[1]) if l.strip()]
assert len(lines) == 1
e = json.loads(lines[0]); s = json.loads(base64.b64decode(e["payload"]))
assert e["payloadType"] == "application/vnd.in-toto+json"
assert s["_type"] == "https://in-toto.io/Statement/v1" and s["predicate"]["job_id"] == 500
PY
expect_status 1 "$SC" export --in-toto "$B"
expect_contains "$WORK/err" "holds no signed statement"
echo "ok: attest"
