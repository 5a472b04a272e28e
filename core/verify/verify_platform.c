/* verify_platform.c: the platform as the bundle recorded it (sc_verify_platform.h). */
#include "sc_verify_platform.h"
#include "sc_attest.h"
#include "sc_kv.h"
#include "sc_platform_gate.h"
#include "sc_readback.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The keys of the CLI's state.env that the gate reads, each recomputed from the raw files. */
static const char *const sc__readback_keys[] = {
    "REQUESTED_PREFETCH", "OBSERVED_STATE",    "STATE_VALID",
    "REQUESTED_GOVERNOR", "OBSERVED_GOVERNOR", "GOVERNOR_VALID",
};

/*
 * What `streamcard run --platform apply` recorded of its change (sc_readback.h): applied.env
 * must be there, its OBSERVED_STATE what msr_readback_applied.txt shows (a problem
 * otherwise), and RESTORED=1 (else a note: the machine was left changed after the run).
 */
static void sc__verify_applied(const sc_bundle *b, sc_diag *problems, sc_diag *notes)
{
    char *env = sc_bundle_read_opt(b, "prefetch/state/applied.env");
    char *msr = sc_bundle_read_opt(b, "prefetch/state/msr_readback_applied.txt");
    char claimed[32] = "", truth[32], restored[8] = "";

    if (!env) {
        sc_diag_addf(problems, "prefetch/state/state.env says APPLIED=1, but "
                               "prefetch/state/applied.env, the record of the change, is missing");
        goto out;
    }
    sc_kv_get(env, "OBSERVED_STATE", claimed, sizeof(claimed));
    sc_readback_state(msr, truth, sizeof(truth));
    /* unchanged: the card left prefetch alone and no register was read (nothing to hold). */
    if (strcmp(claimed, "unchanged") != 0 && strcmp(claimed, truth) != 0)
        sc_diag_addf(problems,
                     "prefetch/state/applied.env: OBSERVED_STATE=%s, but the readback after the "
                     "change shows %s (msr_readback_applied.txt)",
                     *claimed ? claimed : "(missing)", truth);
    sc_kv_get(env, "RESTORED", restored, sizeof(restored));
    if (strcmp(restored, "1") != 0)
        sc_diag_addf(notes,
                     "the platform applied by the CLI as root was not restored when the run "
                     "ended (RESTORED=%s in prefetch/state/applied.env): the machine was left "
                     "changed after it",
                     *restored ? restored : "missing");
out:
    free(env);
    free(msr);
}

void sc_verify_readback(const sc_bundle *b, const sc_card *card, const sc_gate *readback_gate,
                        sc_gate *gate, sc_diag *problems, sc_diag *notes)
{
    char *state = sc_bundle_read_opt(b, "prefetch/state/state.env");
    char *msr_before = NULL, *before = NULL;
    char claimed[128], truth[128];
    sc_attest_file *files = NULL;
    size_t n = 0;
    bool more = false;
    sc_kv want;

    sc_kv_init(&want);
    if (!sc_platform_read_by_cli(state))
        goto out;
    msr_before = sc_bundle_read_opt(b, "prefetch/state/msr_readback_before.txt");
    before = sc_bundle_read_opt(b, "platform/before.txt");
    if (sc_readback_state_env(card, msr_before, before, sc_platform_applied_by_cli(state), &want) <
        0)
        goto out;
    for (size_t i = 0; i < sizeof(sc__readback_keys) / sizeof(sc__readback_keys[0]); i++) {
        const char *key = sc__readback_keys[i];
        *claimed = *truth = '\0';
        sc_kv_get(state, key, claimed, sizeof(claimed));
        sc_kv_get(want.text, key, truth, sizeof(truth));
        if (strcmp(claimed, truth) != 0)
            sc_diag_addf(problems,
                         "prefetch/state/state.env: %s=%s, but the readback before the "
                         "workload shows %s (msr_readback_before.txt, platform/before.txt)",
                         key, *claimed ? claimed : "(missing)", truth);
    }
    if (sc_platform_applied_by_cli(state))
        sc__verify_applied(b, problems, notes);
    /* Root signed nothing here: the gate is the bundle's own readback, said as such. */
    if (sc_attest_bundle_files(b->dirfd, &files, &n, &more) == 0 && n == 0) {
        *gate = *readback_gate;
        sc_diag_addf(notes,
                     "platform %sread by the CLI as root before and after the workload, not "
                     "attested: the platform_state gate holds the run to that readback",
                     sc_platform_applied_by_cli(state) ? SC_READBACK_APPLIED_NOTE "; " : "");
    }
    sc_attest_files_free(files, n);
out:
    sc_kv_free(&want);
    free(state);
    free(msr_before);
    free(before);
}
