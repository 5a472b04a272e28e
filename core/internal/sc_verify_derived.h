/*
 * sc_verify_derived.h: internal to verify: every derived figure of stream.log recomputed
 * from the raw figures it is derived from (doc/design.md, section 11, "Derived figures").
 *
 * A rate is a quotient: STREAM's best MB/s is the bytes one repetition of the function
 * moves over its fastest time; ipsearch's queries/s is nq over the fastest search;
 * pingpong's Mbytes/sec is the message's bytes over its t[usec]. verify already holds
 * results.json and run.conf to the log's derived figures; this holds the derived figures
 * to the log's raw ones and the card's sizes, so a consistent edit of the rate in run.conf,
 * results.json and stream.log no longer verifies. Each quotient is checked as an interval:
 * the raw figures are printed rounded (half their last digit either way), the rate too.
 */
#ifndef SC_VERIFY_DERIVED_H
#define SC_VERIFY_DERIVED_H

#include "sc_card.h"
#include "sc_diag.h"
#include "sc_tracelog.h"

/* Adds one problem per derived figure of t that its raw figures do not give. */
void sc_verify_derived(const sc_tracelog *t, const sc_card *card, sc_diag *problems);

#endif
