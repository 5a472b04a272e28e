/*
 * history_store.c: the history store's file, schema and writes (see history.h and
 * doc/contracts/analysis.md, "History"). SQLite in WAL mode (readers never wait for the writer), a
 * busy timeout (writers wait for each other), and every record in one transaction: a bundle is in
 * the store whole or not at all.
 */
#include "history.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The schema, version 1 (doc/contracts/analysis.md, "History", describes every table). */
static const char sc__schema[] =
    "CREATE TABLE streamcard_schema(version INTEGER NOT NULL, created_at INTEGER NOT NULL);"
    "CREATE TABLE bundle(id INTEGER PRIMARY KEY, digest TEXT NOT NULL UNIQUE,"
    " name TEXT NOT NULL, path TEXT NOT NULL, card TEXT NOT NULL, card_sha256 TEXT NOT NULL,"
    " workload TEXT NOT NULL, kernel TEXT NOT NULL, host TEXT NOT NULL,"
    " owner_uid INTEGER, started_at INTEGER, ended_at INTEGER,"
    " verdict TEXT NOT NULL, usable INTEGER NOT NULL, attested TEXT NOT NULL,"
    " streamcard_version TEXT NOT NULL, added_at INTEGER NOT NULL);"
    "CREATE INDEX bundle_series ON bundle(card, host, ended_at);"
    "CREATE INDEX bundle_time ON bundle(ended_at);"
    "CREATE TABLE variable(bundle_id INTEGER NOT NULL REFERENCES bundle(id), pos INTEGER NOT NULL,"
    " name TEXT NOT NULL, grp TEXT NOT NULL, value TEXT NOT NULL, follows TEXT,"
    " PRIMARY KEY(bundle_id, name)) WITHOUT ROWID;"
    "CREATE INDEX variable_value ON variable(name, value);"
    "CREATE TABLE env(bundle_id INTEGER NOT NULL REFERENCES bundle(id), name TEXT NOT NULL,"
    " value TEXT NOT NULL, PRIMARY KEY(bundle_id, name)) WITHOUT ROWID;"
    "CREATE TABLE gate(bundle_id INTEGER NOT NULL REFERENCES bundle(id), name TEXT NOT NULL,"
    " state TEXT NOT NULL, note TEXT NOT NULL, PRIMARY KEY(bundle_id, name)) WITHOUT ROWID;"
    "CREATE TABLE figure(bundle_id INTEGER NOT NULL REFERENCES bundle(id), metric TEXT NOT NULL,"
    " unit TEXT NOT NULL, better TEXT NOT NULL, runs INTEGER NOT NULL, median REAL NOT NULL,"
    " ci_low REAL, ci_high REAL, PRIMARY KEY(bundle_id, metric)) WITHOUT ROWID;"
    "CREATE TABLE sample(bundle_id INTEGER NOT NULL REFERENCES bundle(id), metric TEXT NOT NULL,"
    " run INTEGER NOT NULL, value REAL NOT NULL, PRIMARY KEY(bundle_id, metric, run))"
    " WITHOUT ROWID;"
    "CREATE TABLE cell(bundle_id INTEGER NOT NULL REFERENCES bundle(id), metric TEXT NOT NULL,"
    " node_a TEXT NOT NULL, node_b TEXT NOT NULL, value REAL NOT NULL, verdict TEXT NOT NULL,"
    " PRIMARY KEY(bundle_id, metric, node_a, node_b)) WITHOUT ROWID;"
    "CREATE TABLE change_seen(series TEXT NOT NULL, after_digest TEXT NOT NULL,"
    " status TEXT NOT NULL, first_seen INTEGER NOT NULL, PRIMARY KEY(series, after_digest))"
    " WITHOUT ROWID;";

enum {
    SC__ST_BUNDLE,
    SC__ST_VAR,
    SC__ST_ENV,
    SC__ST_GATE,
    SC__ST_FIGURE,
    SC__ST_SAMPLE,
    SC__ST_CELL,
    SC__ST_COUNT
};

static const char *const sc__inserts[SC__ST_COUNT] = {
    /* One statement in three literals: no comma is missing. */
    // NOLINTNEXTLINE(bugprone-suspicious-missing-comma)
    "INSERT OR IGNORE INTO bundle(digest, name, path, card, card_sha256, workload, kernel, host,"
    " owner_uid, started_at, ended_at, verdict, usable, attested, streamcard_version, added_at)"
    " VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    "INSERT INTO variable VALUES(?,?,?,?,?,?)",
    "INSERT OR REPLACE INTO env VALUES(?,?,?)",
    "INSERT OR REPLACE INTO gate VALUES(?,?,?,?)",
    "INSERT OR REPLACE INTO figure VALUES(?,?,?,?,?,?,?,?)",
    "INSERT OR REPLACE INTO sample VALUES(?,?,?,?)",
    "INSERT OR REPLACE INTO cell VALUES(?,?,?,?,?,?)",
};

struct sc_history {
    sqlite3 *db;
    sqlite3_stmt *st[SC__ST_COUNT];
    bool in_tx;
};

int sc_history_default_path(char *buf, size_t len)
{
    const char *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");

    if (access(SC_HISTORY_SITE_DB, W_OK) == 0) {
        snprintf(buf, len, "%s", SC_HISTORY_SITE_DB);
        return 0;
    }
    if (xdg && xdg[0] == '/')
        snprintf(buf, len, "%s/streamcard/history.db", xdg);
    else if (home && home[0] == '/')
        snprintf(buf, len, "%s/.local/share/streamcard/history.db", home);
    else
        return -ENOENT;
    return 0;
}

/* mkdir -p of path's directory, private (0700) as a per-user data directory is. */
static int sc__mkdir_parents(const char *path)
{
    char dir[4096];
    size_t n = strlen(path);

    if (n >= sizeof(dir))
        return -ENAMETOOLONG;
    memcpy(dir, path, n + 1);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir)
        return 0;
    *slash = '\0';
    for (char *p = dir + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(dir, 0700) < 0 && errno != EEXIST)
            return -errno;
        *p = '/';
    }
    if (mkdir(dir, 0700) < 0 && errno != EEXIST)
        return -errno;
    return 0;
}

const char *sc_history_error(sc_history *h)
{
    return h && h->db ? sqlite3_errmsg(h->db) : "out of memory";
}

/* A SQLite result as -errno, with the text why. */
static int sc__fail(sqlite3 *db, int rc, const char *path, char *why, size_t whylen)
{
    int prc = rc & 0xff;

    if (prc == SQLITE_NOTADB) {
        snprintf(why, whylen,
                 "%s: not a streamcard history: not a SQLite database; left as it is (valid: a "
                 "history written by streamcard, or a new file)",
                 path);
        return -EPROTO;
    }
    if (prc == SQLITE_CORRUPT) {
        snprintf(why, whylen,
                 "%s: the history is corrupt (sqlite: %s); left as it is (valid: a copy from a "
                 "backup, or sqlite3 .recover into a new file)",
                 path, db ? sqlite3_errmsg(db) : "corrupt");
        return -EBADMSG;
    }
    snprintf(why, whylen, "%s: %s", path, db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
    if (prc == SQLITE_CANTOPEN)
        return access(path, F_OK) == 0 ? -EACCES : -ENOENT;
    if (prc == SQLITE_READONLY || prc == SQLITE_PERM || prc == SQLITE_AUTH)
        return -EACCES;
    if (prc == SQLITE_NOMEM)
        return -ENOMEM;
    return -EIO;
}

/* One integer a statement answers (a PRAGMA, a count). */
static int sc__int(sqlite3 *db, const char *sql, long long *v)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);

    if (rc != SQLITE_OK)
        return rc;
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        *v = sqlite3_column_int64(st, 0);
        rc = SQLITE_OK;
    } else if (rc == SQLITE_DONE) {
        *v = 0;
        rc = SQLITE_OK;
    }
    sqlite3_finalize(st);
    return rc;
}

/* Creates the schema in an empty database; another writer may have done it first (the
   transaction waits for it and then finds its schema). */
static int sc__create(sqlite3 *db)
{
    long long tables = -1;
    char *sql = NULL;
    int rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);

    if (rc != SQLITE_OK)
        return rc;
    rc = sc__int(db, "SELECT count(*) FROM sqlite_schema", &tables);
    if (rc == SQLITE_OK && tables == 0) {
        if (asprintf(&sql,
                     "PRAGMA application_id = %d; %s"
                     "INSERT INTO streamcard_schema VALUES(%d, %lld);",
                     SC_HISTORY_APP_ID, sc__schema, SC_HISTORY_SCHEMA, (long long)time(NULL)) < 0)
            rc = SQLITE_NOMEM;
        else
            rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
        free(sql);
    }
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    else
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    return rc;
}

/* Runs sql, and again while another connection holds the lock, for up to the writers' wait.
   SQLite does not call the busy handler where waiting could deadlock: a statement that
   already reads and then needs the whole file (PRAGMA journal_mode = WAL while the other
   writer makes the schema) fails at once with SQLITE_BUSY; a new try starts from no lock. */
static int sc__exec_patient(sqlite3 *db, const char *sql)
{
    struct timespec pause = {0, 1000000}; /* 1 ms, doubled up to 64 ms */
    long waited_ms = 0;
    int rc;

    while ((rc = sqlite3_exec(db, sql, NULL, NULL, NULL)) != SQLITE_OK &&
           (rc & 0xff) == SQLITE_BUSY && waited_ms < SC_HISTORY_BUSY_MS) {
        nanosleep(&pause, NULL);
        waited_ms += pause.tv_nsec / 1000000;
        if (pause.tv_nsec < 64000000)
            pause.tv_nsec *= 2;
    }
    return rc;
}

/* Whether the open database is ours: 0, or -errno with why. Nothing is written before. */
static int sc__check_ours(sqlite3 *db, const char *path, bool write, char *why, size_t whylen)
{
    long long app = 0, pages = 0, version = 0;
    /* Both read in one transaction: another writer may be making the schema meanwhile. */
    int rc = sqlite3_exec(db, "BEGIN", NULL, NULL, NULL);

    if (rc == SQLITE_OK)
        rc = sc__int(db, "PRAGMA application_id", &app);
    if (rc == SQLITE_OK)
        rc = sc__int(db, "PRAGMA page_count", &pages);
    sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    if (rc != SQLITE_OK)
        return sc__fail(db, rc, path, why, whylen);
    if (pages == 0 && app == 0) { /* a new or empty file: ours to make */
        if (!write) {
            snprintf(why, whylen, "%s: an empty history (valid: streamcard history add first)",
                     path);
            return -ENOENT;
        }
        if ((rc = sc__create(db)) != SQLITE_OK)
            return sc__fail(db, rc, path, why, whylen);
        if ((rc = sc__int(db, "PRAGMA application_id", &app)) != SQLITE_OK)
            return sc__fail(db, rc, path, why, whylen);
    }
    if (app != SC_HISTORY_APP_ID) {
        snprintf(why, whylen,
                 "%s: not a streamcard history: a SQLite database of another application "
                 "(application_id %#llx); left as it is (valid: a history written by "
                 "streamcard, or a new file)",
                 path, (unsigned long long)app);
        return -EPROTO;
    }
    rc = sc__int(db, "SELECT max(version) FROM streamcard_schema", &version);
    if (rc != SQLITE_OK)
        return sc__fail(db, rc, path, why, whylen);
    if (version != SC_HISTORY_SCHEMA) {
        snprintf(why, whylen,
                 "%s: a history of schema %lld; this streamcard reads schema %d; left as it is "
                 "(valid: the streamcard that wrote it, or a new file)",
                 path, version, SC_HISTORY_SCHEMA);
        return -ENOTSUP;
    }
    return 0;
}

int sc_history_open(const char *path, bool write, bool create, sc_history **out, char *why,
                    size_t whylen)
{
    sc_history *h = calloc(1, sizeof(*h));
    int flags = !write   ? SQLITE_OPEN_READONLY
                : create ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
                         : SQLITE_OPEN_READWRITE;
    int rc, err;

    *out = NULL;
    if (!h) {
        snprintf(why, whylen, "%s: out of memory", path);
        return -ENOMEM;
    }
    if (write && create && (err = sc__mkdir_parents(path)) < 0) {
        snprintf(why, whylen, "%s: cannot make its directory: %s", path, strerror(-err));
        free(h);
        return err;
    }
    if (!create && access(path, F_OK) < 0) {
        err = -errno;
        snprintf(why, whylen, "%s: %s (valid: streamcard history add first, or --db FILE)", path,
                 strerror(errno));
        free(h);
        return err;
    }
    rc = sqlite3_open_v2(path, &h->db, flags | SQLITE_OPEN_NOFOLLOW, NULL);
    if (rc != SQLITE_OK) {
        err = sc__fail(h->db, rc, path, why, whylen);
        goto out_close;
    }
    sqlite3_extended_result_codes(h->db, 1);
    sqlite3_busy_timeout(h->db, SC_HISTORY_BUSY_MS);
    if ((err = sc__check_ours(h->db, path, write, why, whylen)) < 0)
        goto out_close;
    /* Ours: WAL (readers and one writer at once), synchronous NORMAL (a commit is durable
       at the next checkpoint; a crash loses at most the last commits, never the file). */
    if (write &&
        (rc = sc__exec_patient(h->db, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;")) !=
            SQLITE_OK) {
        err = sc__fail(h->db, rc, path, why, whylen);
        goto out_close;
    }
    for (int i = 0; write && i < SC__ST_COUNT; i++)
        if ((rc = sqlite3_prepare_v3(h->db, sc__inserts[i], -1, SQLITE_PREPARE_PERSISTENT,
                                     &h->st[i], NULL)) != SQLITE_OK) {
            err = sc__fail(h->db, rc, path, why, whylen);
            goto out_close;
        }
    *out = h;
    return 0;

out_close:
    sc_history_close(h);
    return err;
}

void sc_history_close(sc_history *h)
{
    if (!h)
        return;
    for (int i = 0; i < SC__ST_COUNT; i++)
        sqlite3_finalize(h->st[i]);
    sqlite3_close(h->db);
    free(h);
}

sqlite3 *sc_history_db(sc_history *h)
{
    return h->db;
}

int sc_history_begin(sc_history *h)
{
    if (sqlite3_exec(h->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
        return -EIO;
    h->in_tx = true;
    return 0;
}

int sc_history_commit(sc_history *h)
{
    h->in_tx = false;
    if (sqlite3_exec(h->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
        sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
        return -EIO;
    }
    return 0;
}

/* Binds texts and integers by kind: 't' text, 'i' integer (-1: NULL), 'd' double, 'n' NULL,
   then steps the statement once. SQLITE_DONE, or the error. */
static int sc__run(sqlite3_stmt *st, const char *kinds, ...)
{
    va_list ap;
    int rc = SQLITE_OK;

    va_start(ap, kinds);
    sqlite3_reset(st);
    for (int i = 0; kinds[i] && rc == SQLITE_OK; i++) {
        switch (kinds[i]) {
        case 't':
            rc = sqlite3_bind_text(st, i + 1, va_arg(ap, const char *), -1, SQLITE_STATIC);
            break;
        case 'i': {
            long long v = va_arg(ap, long long);
            rc = v < 0 ? sqlite3_bind_null(st, i + 1) : sqlite3_bind_int64(st, i + 1, v);
            break;
        }
        case 'd':
            rc = sqlite3_bind_double(st, i + 1, va_arg(ap, double));
            break;
        default:
            rc = sqlite3_bind_null(st, i + 1);
        }
    }
    va_end(ap);
    return rc == SQLITE_OK ? sqlite3_step(st) : rc;
}

/* The rows of r under bundle id. SQLITE_DONE or the error. */
static int sc__put_rows(sc_history *h, long long id, const sc_history_record *r)
{
    int rc = SQLITE_DONE;

    for (size_t i = 0; rc == SQLITE_DONE && i < r->n_vars; i++) {
        const sc_history_var *v = &r->vars[i];
        rc = v->follows ? sc__run(h->st[SC__ST_VAR],
                                  "iittt"
                                  "t",
                                  id, (long long)i, v->name, v->group, v->value, v->follows)
                        : sc__run(h->st[SC__ST_VAR],
                                  "iittt"
                                  "n",
                                  id, (long long)i, v->name, v->group, v->value);
    }
    for (size_t i = 0; rc == SQLITE_DONE && i < r->n_env; i++) {
        const char *e = r->env[i], *eq = strchr(e, '=');
        char name[256];
        size_t n = eq ? (size_t)(eq - e) : strlen(e);
        snprintf(name, sizeof(name), "%.*s", (int)n, e);
        rc = sc__run(h->st[SC__ST_ENV], "itt", id, name, eq ? eq + 1 : "");
    }
    for (size_t i = 0; rc == SQLITE_DONE && i < r->n_gates; i++)
        rc = sc__run(h->st[SC__ST_GATE],
                     "itt"
                     "t",
                     id, r->gates[i].name, r->gates[i].state,
                     r->gates[i].note ? r->gates[i].note : "");
    for (size_t i = 0; rc == SQLITE_DONE && i < r->n_figures; i++) {
        const sc_history_figure *f = &r->figures[i];
        rc = f->ci ? sc__run(h->st[SC__ST_FIGURE],
                             "itttidd"
                             "d",
                             id, f->metric, f->unit, f->better, (long long)f->runs, f->median,
                             f->ci_low, f->ci_high)
                   : sc__run(h->st[SC__ST_FIGURE],
                             "itttid"
                             "nn",
                             id, f->metric, f->unit, f->better, (long long)f->runs, f->median);
        for (size_t k = 0; rc == SQLITE_DONE && f->samples && k < f->runs; k++)
            rc = sc__run(h->st[SC__ST_SAMPLE], "itid", id, f->metric, (long long)k + 1,
                         f->samples[k]);
    }
    for (size_t i = 0; rc == SQLITE_DONE && i < r->n_cells; i++) {
        const sc_history_cell *c = &r->cells[i];
        rc = sc__run(h->st[SC__ST_CELL], "itttdt", id, c->metric, c->a, c->b ? c->b : "", c->value,
                     c->verdict);
    }
    return rc;
}

int sc_history_put(sc_history *h, const sc_history_record *r)
{
    bool own_tx = !h->in_tx;
    int rc, added = 0;

    if (own_tx && sc_history_begin(h) < 0)
        return -EIO;
    rc = sc__run(h->st[SC__ST_BUNDLE],
                 "tttttttt"
                 "iiit"
                 "itt"
                 "i",
                 r->digest, r->name, r->path, r->card, r->card_sha256, r->workload, r->kernel,
                 r->host, r->owner_uid, r->started_at, r->ended_at, r->verdict,
                 (long long)r->usable, r->attested, r->streamcard_version, (long long)time(NULL));
    if (rc == SQLITE_DONE && sqlite3_changes(h->db) == 1) {
        added = 1;
        rc = sc__put_rows(h, sqlite3_last_insert_rowid(h->db), r);
    }
    if (own_tx) {
        h->in_tx = false;
        if (rc != SQLITE_DONE) {
            sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
            return -EIO;
        }
        if (sqlite3_exec(h->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
            sqlite3_exec(h->db, "ROLLBACK", NULL, NULL, NULL);
            return -EIO;
        }
    }
    return rc == SQLITE_DONE ? added : -EIO;
}
