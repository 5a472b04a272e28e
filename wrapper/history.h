/*
 * history.h: the history store of `streamcard history` (doc/contracts/analysis.md, "History"): one
 * SQLite file that keeps every verified bundle's figures, variables, gates and, for link
 * matrices, per-node and per-link figures. The store is written only through
 * sc_history_put() (one record in one transaction, idempotent by the bundle's digest), by
 * `history add` for real bundles and by the tests' and the bench's synthetic records alike.
 *
 * A file is used only when it is ours: a new or empty file, or a SQLite database whose
 * application_id is SC_HISTORY_APP_ID and whose schema version this streamcard reads. A file
 * of another kind, of another application, of a newer schema or a corrupt one is refused
 * with one line and never written.
 */
#ifndef SC_HISTORY_H
#define SC_HISTORY_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>

#define SC_HISTORY_APP_ID 0x53434831 /* "SCH1": PRAGMA application_id of a store */
#define SC_HISTORY_SCHEMA 1          /* the schema version this streamcard writes and reads */
#define SC_HISTORY_BUSY_MS 30000     /* how long a writer waits for another one */
#define SC_HISTORY_SITE_DB "/var/lib/streamcard/history.db"

typedef struct sc_history sc_history;

/*
 * The store a command uses when --db names none (doc/contracts/analysis.md, "History"): the site's
 * SC_HISTORY_SITE_DB when it exists and the caller may write it, else the caller's own,
 * $XDG_DATA_HOME/streamcard/history.db (an absolute XDG_DATA_HOME), else
 * $HOME/.local/share/streamcard/history.db. Fills buf; 0 or -ENOENT (no HOME).
 */
int sc_history_default_path(char *buf, size_t len);

/*
 * Opens the store at path: for writing, or read-only; only with create is a missing file
 * (and its directory) made, and an empty one given its schema. Returns 0 with *out set, or
 * -errno with one line in why (without "streamcard: "): -ENOENT, -EACCES, -EPROTO (not a
 * store: another kind of file, another application's database), -EBADMSG (corrupt),
 * -ENOTSUP (a newer schema).
 */
int sc_history_open(const char *path, bool write, bool create, sc_history **out, char *why,
                    size_t whylen);
void sc_history_close(sc_history *h);
sqlite3 *sc_history_db(sc_history *h);

/* One line for a SQLite failure of h: "database is locked", "database disk image is
   malformed (corrupt)". */
const char *sc_history_error(sc_history *h);

/* What one bundle puts into the store. Texts are safe text (sc_facts.h). */
typedef struct sc_history_var {
    const char *name, *group, *value, *follows; /* follows may be NULL */
} sc_history_var;

typedef struct sc_history_gate {
    const char *name, *state, *note; /* state: "ok", "failed", "na" */
} sc_history_gate;

typedef struct sc_history_figure {
    const char *metric, *unit, *better; /* better: "higher" or "lower" */
    size_t runs;
    double median;
    bool ci;
    double ci_low, ci_high;
    const double *samples; /* one per run */
} sc_history_figure;

/* A link matrix's per-node (b NULL) or per-link figure; verdict "ok", "drain", "suspect". */
typedef struct sc_history_cell {
    const char *metric, *a, *b;
    double value;
    const char *verdict;
} sc_history_cell;

typedef struct sc_history_record {
    const char *digest; /* SHA-256 of the bundle's SHA256SUMS, hex */
    const char *name, *path, *card, *card_sha256, *workload, *kernel, *host, *verdict;
    const char *attested, *streamcard_version;
    long long owner_uid, started_at, ended_at; /* epoch seconds; -1 unknown */
    bool usable;
    const sc_history_var *vars;
    size_t n_vars;
    const char *const *env; /* "NAME=VALUE" */
    size_t n_env;
    const sc_history_gate *gates;
    size_t n_gates;
    const sc_history_figure *figures;
    size_t n_figures;
    const sc_history_cell *cells;
    size_t n_cells;
} sc_history_record;

/*
 * Puts r into the store in one transaction. Returns 1 when added, 0 when a bundle of that
 * digest is there already (nothing written), -errno (sc_history_error() says why).
 */
int sc_history_put(sc_history *h, const sc_history_record *r);

/* Several puts in one transaction (the bench's bulk ingest): begin, puts, commit. */
int sc_history_begin(sc_history *h);
int sc_history_commit(sc_history *h);

#endif
