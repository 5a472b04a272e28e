/*
 * sc_bundle_view.h: a finished bundle as every command over bundles sees it, opened once
 * (doc/contracts/analysis.md, "The bundle view"): verify's verdict and why, its report, and
 * the bundle's facts (the card, the controlled variables, results.json and the per-run
 * figures, sc_facts.h).
 *
 * The bundle is read in one pass (sc_bundle_remember(), doc/contracts/bundle.md, "One
 * pass"): each file is opened once, hashed from the bytes that are parsed, the first run's
 * log parsed once for verify and the facts alike; SHA256SUMS is read once. A bundle is
 * hostile input: every check of the bounded reader (sc_bundle.h) holds.
 */
#ifndef SC_BUNDLE_VIEW_H
#define SC_BUNDLE_VIEW_H

#include "sc_facts.h"
#include "sc_verify.h"

#include <stdbool.h>
#include <stddef.h>

/* What verify makes of a bundle. */
typedef enum sc_view_verdict {
    SC_VIEW_VERIFIED,   /* intact, consistent, and every gate holds: evidence */
    SC_VIEW_FAILED,     /* intact and consistent, but a gate fails */
    SC_VIEW_UNVERIFIED, /* a hash or consistency problem, or it could not be read */
} sc_view_verdict;

typedef struct sc_bundle_view {
    int open_rc; /* 0, or -errno: the bundle could not be opened or read (why says) */
    sc_view_verdict verdict;
    char why[1024];          /* not verified: one line saying why (sc_verify_why()) */
    sc_verify_report verify; /* every problem, the recomputed gates, what is attested */
    bool loaded;             /* facts holds the bundle's facts */
    sc_bundle_facts facts;
} sc_bundle_view;

typedef struct sc_bundle_view_opts {
    const sc_verify_opts *verify; /* the trusted keys...; NULL: the defaults */
    bool no_facts;                /* verify only: the facts are not loaded */
} sc_bundle_view_opts;

/*
 * Opens the bundle at path into v (initialised either way; free it with
 * sc_bundle_view_close()), opts NULL for the defaults. Returns 0 when it was examined (its
 * verdict in v), or -errno (v->open_rc, v->why: "cannot open the bundle: ..." or "cannot
 * read the bundle: ...").
 */
int sc_bundle_view_open(const char *path, const sc_bundle_view_opts *opts, sc_bundle_view *v);
void sc_bundle_view_close(sc_bundle_view *v);

/* "ok", "failed" or "unverified", as tables and records say a verdict. */
const char *sc_view_verdict_name(sc_view_verdict verdict);

#endif
