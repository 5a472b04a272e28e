#!/usr/bin/env bash
# Inside a job submitted with --stream-card, `streamcard run` (no arguments) adopts the
# bundle the SPANK plugin prepared: its card, its platform evidence (which the platform
# gate reads) and one SHA256SUMS over everything. Here the plugin's part is played by
# the test, writing exactly the files the plugin writes.
BIN=$1 SRC=$2
. "$SRC/tests/lib.sh"

prepare() { # prepare DIR PREFETCH OBSERVED VALID: a bundle as the plugin leaves it
    plugin_bundle "$@"
    echo "captured_at=before the plugin's change" >"$1/platform/before.txt"
}

B="$WORK/job_bundle"
prepare "$B" off off 1
expect_status 0 in_job "$B" "$BIN/streamcard" run --dry-run
expect_contains "$WORK/out" "output:      $B (prepared by the SPANK plugin)"
expect_status 0 in_job "$B" "$BIN/streamcard" run --quiet
[ "$(bundle_of "$WORK/out")" = "$B" ] || fail "did not adopt $B"
expect_contains "$B/run.conf" "platform_state_ok=1"
expect_contains "$B/SHA256SUMS" "prefetch/control.log"
expect_contains "$B/SHA256SUMS" "prefetch/state/state.env"
expect_contains "$B/platform/before.txt" "before the plugin's change"
[ -s "$B/platform/after.txt" ] || fail "no platform/after.txt"
(cd "$B" && sha256sum --quiet -c SHA256SUMS) || fail "sha256sum -c"
# The run believed the files; verify does not: nothing root signed says prefetch was off
# (here the user wrote every file, as anyone can without Slurm or root).
expect_status 1 "$BIN/streamcard" verify "$B"
expect_contains "$WORK/err" "platform_state: not attested"
expect_contains "$WORK/err" "no platform claim is attested"

# One run per bundle.
expect_status 3 in_job "$B" "$BIN/streamcard" run --quiet
expect_contains "$WORK/err" "is already sealed: one run per bundle"

# The plugin read back "on" although the card asked "off": the run fails, said plainly.
B2="$WORK/job_bundle2"
prepare "$B2" off on 0
expect_status 1 in_job "$B2" "$BIN/streamcard" run --quiet
expect_contains "$WORK/err" "prefetch: card off, read back on"
expect_contains "$B2/run.conf" "platform_state_ok=0"

# A card.yaml changed after submission is refused before anything runs.
B3="$WORK/job_bundle3"
prepare "$B3" off off 1
sum=$(sha256sum <"$B3/card.yaml" | cut -d' ' -f1)
sed -i 's/iterations: 3/iterations: 4/' "$B3/card.yaml"
expect_status 3 env STREAMCARD_BUNDLE="$B3" STREAMCARD_CARD="$B3/card.yaml" \
    STREAMCARD_CARD_SHA256="$sum" "$BIN/streamcard" run --quiet
expect_contains "$WORK/err" "does not hold the card submitted with the job"
[ ! -e "$B3/SHA256SUMS" ] || fail "a refused run sealed the bundle"
# A second card in such a job is refused before anything runs: it would make a bundle of
# its own and leave the prepared one unsealed (the README's recipe once did).
B4="$WORK/job_bundle4"
prepare "$B4" off off 1
cp "$B4/card.yaml" "$WORK/second.yaml"
expect_status 2 in_job "$B4" "$BIN/streamcard" run "$WORK/second.yaml" --quiet --output "$WORK"
expect_contains "$WORK/err" "this job's card was given to sbatch (--stream-card) and its bundle is prepared at $B4: a second card would leave it unsealed"
[ ! -e "$B4/SHA256SUMS" ] || fail "a refused second card sealed the prepared bundle"
expect_status 2 in_job "$B4" "$BIN/streamcard" run --workload stream --cpu-list 0 --quiet
expect_contains "$WORK/err" "a second card would leave it unsealed"
echo "ok: adopt"
