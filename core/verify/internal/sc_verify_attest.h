/*
 * sc_verify_attest.h: internal to verify: the platform_state gate from signed claims only
 * (doc/contracts/attestation.md).
 *
 * The bundle's attest/apply_<node>.dsse.json are read (regular files, not followed, at
 * most SC_ATTEST_MAX_ENVELOPE each, at most 64 of them), opened with the trusted keys,
 * and each statement is held to the bundle: its job id, user and node are run.conf's, its
 * card hash is card.yaml's, and every file it names has the digest it signed. A statement
 * that fails any of that is a problem (it was changed or carried over from another job);
 * one by an untrusted key is not attested. The gate is then recomputed from the signed
 * state.env values alone; without a signed statement of the main step, a card that
 * changes the platform fails it as "not attested".
 */
#ifndef SC_VERIFY_ATTEST_H
#define SC_VERIFY_ATTEST_H

#include "sc_bundle.h"
#include "sc_card.h"
#include "sc_diag.h"
#include "sc_gate_table.h"
#include "sc_tracelog.h"
#include "sc_verify.h"

typedef struct sc_verify_attest_in {
    const sc_bundle *b;
    const sc_card *card;
    const char *card_text, *run_conf;
    const sc_tracelog *log; /* the first run's log as parsed; NULL when it has none */
    const sc_verify_opts *opts;
} sc_verify_attest_in;

/* Sets *gate (the platform_state gate), adds problems and notes (what is attested), and puts
   into node the node of the main step's statement that holds ("" when none: the bundle's
   host is only claimed). */
void sc_verify_attest(const sc_verify_attest_in *in, sc_gate *gate, sc_diag *problems,
                      sc_diag *notes, char *node, size_t len);

#endif
