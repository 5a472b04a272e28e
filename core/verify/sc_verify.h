/*
 * sc_verify.h: is a bundle evidence? One check shared by `streamcard verify`, `compare`,
 * `classify`, `report` and `export`.
 *
 * sc_verify_bundle() re-checks SHA256SUMS, recomputes every gate from the raw files
 * (card.yaml, stream.log, the snapshots at ready, state.env) and holds run.conf,
 * build.json and results.json to what the raw files show. Nothing recorded is trusted:
 * a claim that the raw files do not support is a problem, and so is a missing file.
 */
#ifndef SC_VERIFY_H
#define SC_VERIFY_H

#include "sc_diag.h"
#include "sc_gates.h"

#include <stdbool.h>
#include <stddef.h>

/* How far ahead of the verifying clock a run's time may be: the clocks of the node that ran
   it and of the one that verifies differ by a little (NTP keeps them within seconds); a time
   further ahead is not one the run can have had. */
#define SC_VERIFY_CLOCK_SKEW_S 300

typedef struct sc_verify_report {
    /* One line per problem, in the order found: first the n_hash_problems lines of
       SHA256SUMS (edited, missing, added files), then consistency problems. */
    sc_diag problems;
    size_t n_hash_problems;
    bool gates_computed; /* the card parsed: gates holds the recomputed verdicts */
    sc_gates gates;
    double log_best_rate_MBps; /* the best rate stream.log's own table shows; 0 when none */
    /* What root vouches for (section 20): "platform attested by <node> key <fingerprint>",
       the restore, or why nothing is attested. Not problems. */
    sc_diag attested;
    /* A program that prints no phase markers (a foreign workload): how its main loop was
       captured, less precisely (sc_workload_capture()); NULL otherwise. */
    const char *capture_note;
    /* The node whose trusted key signed the main step's statement, which names run.conf's
       host: the bundle's host as root vouches for it. "" when no statement of the main step
       holds: the host is only what the bundle claims. */
    char attested_host[256];
} sc_verify_report;

/* Where verify finds what it trusts. */
typedef struct sc_verify_opts {
    /* trusted *.pub; NULL: $STREAMCARD_KEYS, else SC_ATTEST_DEFAULT_KEYS (sc_attest.h) */
    const char *keys_dir;
    /* restore statements (<state_dir>/attest/); NULL: $STREAMCARD_STATE_DIR, else
       /run/streamcard */
    const char *state_dir;
    /* Verifying a side of a paired run (sc_pair.h) as part of its pair: its runs end by the
       pair's rule, which the pair's verify applies. A bundle whose run.conf names a
       pair_side is refused without it: alone, nothing checks when its runs stopped. */
    bool pair_side;
} sc_verify_opts;

/*
 * Verifies the bundle at path into out (which is initialised either way and must be freed
 * with sc_verify_report_free()). Returns 0 when the bundle was examined (its problems and
 * gates are in out), -errno when it could not be opened at all, -ENOMEM.
 */
int sc_verify_bundle(const char *path, sc_verify_report *out);
/* As sc_verify_bundle(), with the trusted keys and state directory of opts. */
int sc_verify_bundle_opts(const char *path, const sc_verify_opts *opts, sc_verify_report *out);
void sc_verify_report_free(sc_verify_report *r);

/* Intact and consistent: no hash or consistency problem. */
bool sc_verify_intact(const sc_verify_report *r);
/* Evidence that can be used: intact, the gates recomputed, and every gate holds. */
bool sc_verify_usable(const sc_verify_report *r);

/*
 * Why a bundle is not usable, in one line without a newline: "2 problems (stream.log:
 * edited ...; ...)", "failed gates: binding validation". Empty when it is usable.
 */
void sc_verify_why(const sc_verify_report *r, char *buf, size_t len);

#endif
