/*
 * sc_verify_platform.h: internal to verify: the platform as the bundle recorded it, beyond
 * what root signed (doc/contracts/analysis.md):
 *   - a readback by `streamcard run` as root outside a job (sc_readback.h): its state.env
 *     must be what its msr_readback files and platform/before.txt and after.txt give, and,
 *     when the bundle holds no signed statement, the platform_state gate is held to it and
 *     said to be not attested;
 *   - its change with --platform apply (APPLIED=1): applied.env against its readback after
 *     the change, and a note unless it says RESTORED=1.
 */
#ifndef SC_VERIFY_PLATFORM_H
#define SC_VERIFY_PLATFORM_H

#include "sc_bundle.h"
#include "sc_card.h"
#include "sc_diag.h"
#include "sc_gate_table.h"

/*
 * The command's readback as root: state.env against its raw files (problems); when the
 * bundle holds no attest/ statement, *gate (attestation's verdict) becomes readback_gate
 * (the gate over the bundle's own readback) and notes says it is not attested.
 */
void sc_verify_readback(const sc_bundle *b, const sc_card *card, const sc_gate *readback_gate,
                        sc_gate *gate, sc_diag *problems, sc_diag *notes);

#endif
