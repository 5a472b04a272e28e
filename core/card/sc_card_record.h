/*
 * sc_card_record.h: a checked card as a small, flat, typed record: what the compute node's
 * root side acts on, without the YAML (doc/contracts/spank.md, "The card on the node").
 *
 * On the node the card's YAML is parsed and checked by an unprivileged child (the job's
 * user, under rlimits: spank/card_child.h), which writes the record; root reads only the
 * record. Each line is one field, bounded; every value goes through the card schema's own
 * conversion and range checks again (sc__card_assign), and the card then through
 * sc_card_check(), so root trusts nothing of what the child says but the problems it
 * reports for a refused card (escaped text, logged as text). The record names the SHA-256
 * of the bytes it was made from, which the reader compares with its own.
 *
 *   streamcard-card-record=1
 *   sha256=<64 hex digits>
 *   uid=<the uid the check ran as>
 *   verdict=ok|refused
 *   problem=<one escaped line>            at most SC_CARD_RECORD_PROBLEMS
 *   more=<n>                              problems not carried
 *   field=<key path> <line> <value>       one per key the card gives (verdict ok only)
 *   end=1
 */
#ifndef SC_CARD_RECORD_H
#define SC_CARD_RECORD_H

#include "sc_card.h"
#include "sc_diag.h"

#include <stddef.h>

#define SC_CARD_RECORD_MAX_BYTES 32768 /* a record is read up to this, no further */
#define SC_CARD_RECORD_PROBLEMS 5      /* problem lines a record carries */

/*
 * The record of a card that was parsed and checked: check_rc is the result of doing so (0:
 * card is valid and checked; otherwise card may be NULL), problems what was found, sha the
 * SHA-256 of the card's bytes, uid the caller's. Fields whose value is not one line of
 * printable ASCII make the record a refusal. Returns malloc'd text, NULL on ENOMEM.
 */
char *sc_card_record_format(const sc_card *card, int check_rc, const sc_diag *problems,
                            const char *sha, unsigned uid);

/*
 * Reads a record of at most SC_CARD_RECORD_MAX_BYTES made from the bytes whose SHA-256 is
 * sha by uid. name is the card's name for messages. Returns:
 *   0         the card is valid: *card (to free) holds its fields, set through the card
 *             schema and checked with sc_card_check();
 *   -EINVAL   the check refused the card: its problems are in problems (printable text);
 *   -EBADMSG  the record itself is wrong (too long, malformed, another SHA-256 or uid, a
 *             field the schema refuses, a card the rules refuse although the record says
 *             ok): one line in why;
 *   -ENOMEM.
 */
int sc_card_record_read(const char *text, size_t len, const char *sha, unsigned uid,
                        const char *name, sc_card **card, sc_diag *problems, char *why,
                        size_t whylen);

#endif
