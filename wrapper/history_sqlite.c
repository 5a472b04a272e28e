/*
 * history_sqlite.c: SQLite, loaded the first time the history store opens a file, not when
 * a streamcard process starts. Linked, libsqlite3 (1.4 MB, its relocations and pages) cost
 * every process 0.45 ms before main() on a 2-vCPU VM, `streamcard run` among them, which
 * never touches a history (what a run adds is to stay under 10 ms: doc/contracts/run.md).
 *
 * The history's code calls the sqlite3_* functions as usual (history_store.c,
 * history_query.c, history_check.c): this file defines each one it calls, with SQLite's own
 * prototype (<sqlite3.h>), as a call through a table that the first sqlite3_open_v2()
 * fills from libsqlite3.so.0, dlopen'd by its soname from the system's library path only
 * (as core/trust/libcrypto.c loads libcrypto). The definitions are hidden: nothing outside
 * this program sees them, and the library's calls to its own functions stay its own.
 * When the library cannot be loaded, sqlite3_open_v2() fails with SQLITE_ERROR and no
 * handle, and sqlite3_errstr() says why; the functions a failed open's clean-up calls
 * (close, finalize) do nothing. A function missing from the library fails the load too.
 * A history function called without an open store: SQLITE_MISUSE, or NULL, or 0.
 */
#pragma GCC visibility push(hidden)
#include <sqlite3.h>
#pragma GCC visibility pop

#include "sc_dynlib.h"

#include <pthread.h>

#define SC__SONAME "libsqlite3.so.0"

/* Every SQLite function the history calls but sqlite3_open_v2 (which loads the library):
   its return type, name, parameters, the arguments passed on, and what it answers when the
   library is not loaded. */
#define SC_SQLITE_FUNCTIONS(X)                                                                     \
    X(int, sqlite3_close, (sqlite3 * db), (db), SQLITE_OK)                                         \
    X(int, sqlite3_extended_result_codes, (sqlite3 * db, int on), (db, on), SQLITE_MISUSE)         \
    X(int, sqlite3_busy_timeout, (sqlite3 * db, int ms), (db, ms), SQLITE_MISUSE)                  \
    X(const char *, sqlite3_errmsg, (sqlite3 * db), (db), sc__error)                               \
    X(const char *, sqlite3_errstr, (int rc), (rc), sc__error)                                     \
    X(int, sqlite3_exec,                                                                           \
      (sqlite3 * db, const char *sql, int (*cb)(void *, int, char **, char **), void *arg,         \
       char **err),                                                                                \
      (db, sql, cb, arg, err), SQLITE_MISUSE)                                                      \
    X(int, sqlite3_prepare_v2,                                                                     \
      (sqlite3 * db, const char *sql, int n, sqlite3_stmt **st, const char **tail),                \
      (db, sql, n, st, tail), SQLITE_MISUSE)                                                       \
    X(int, sqlite3_prepare_v3,                                                                     \
      (sqlite3 * db, const char *sql, int n, unsigned int fl, sqlite3_stmt **st,                   \
       const char **tail),                                                                         \
      (db, sql, n, fl, st, tail), SQLITE_MISUSE)                                                   \
    X(int, sqlite3_step, (sqlite3_stmt * st), (st), SQLITE_MISUSE)                                 \
    X(int, sqlite3_reset, (sqlite3_stmt * st), (st), SQLITE_MISUSE)                                \
    X(int, sqlite3_finalize, (sqlite3_stmt * st), (st), SQLITE_OK)                                 \
    X(int, sqlite3_bind_text, (sqlite3_stmt * st, int i, const char *v, int n, void (*d)(void *)), \
      (st, i, v, n, d), SQLITE_MISUSE)                                                             \
    X(int, sqlite3_bind_int64, (sqlite3_stmt * st, int i, sqlite3_int64 v), (st, i, v),            \
      SQLITE_MISUSE)                                                                               \
    X(int, sqlite3_bind_double, (sqlite3_stmt * st, int i, double v), (st, i, v), SQLITE_MISUSE)   \
    X(int, sqlite3_bind_null, (sqlite3_stmt * st, int i), (st, i), SQLITE_MISUSE)                  \
    X(const unsigned char *, sqlite3_column_text, (sqlite3_stmt * st, int i), (st, i), NULL)       \
    X(sqlite3_int64, sqlite3_column_int64, (sqlite3_stmt * st, int i), (st, i), 0)                 \
    X(double, sqlite3_column_double, (sqlite3_stmt * st, int i), (st, i), 0)                       \
    X(int, sqlite3_column_type, (sqlite3_stmt * st, int i), (st, i), SQLITE_NULL)                  \
    X(sqlite3_int64, sqlite3_last_insert_rowid, (sqlite3 * db), (db), 0)                           \
    X(int, sqlite3_changes, (sqlite3 * db), (db), 0)

/* f names a member too: it cannot be parenthesised. */
#define SC__MEMBER(ret, f, params, args, fallback)                                                 \
    __typeof__(f) *f; /* NOLINT(bugprone-macro-parentheses) */
typedef struct sc__sqlite {
    __typeof__(sqlite3_open_v2) *sqlite3_open_v2;
    SC_SQLITE_FUNCTIONS(SC__MEMBER)
} sc__sqlite;
#undef SC__MEMBER

static sc__sqlite sc__table;
static const sc__sqlite *sc__loaded;
static char sc__error[256] = "SQLite's " SC__SONAME " is not loaded";
static pthread_once_t sc__once = PTHREAD_ONCE_INIT;

static void sc__load(void)
{
#define SC__NAME(ret, f, params, args, fallback) #f,
#define SC__SLOT(ret, f, params, args, fallback) (void **)&sc__table.f,
    static const char *const names[] = {"sqlite3_open_v2", SC_SQLITE_FUNCTIONS(SC__NAME)};
    void **const slots[] = {(void **)&sc__table.sqlite3_open_v2, SC_SQLITE_FUNCTIONS(SC__SLOT)};
#undef SC__NAME
#undef SC__SLOT

    /* Stays loaded: its functions are in use. */
    if (sc_dynlib_load(SC__SONAME,
                       "the history needs SQLite's " SC__SONAME " (Debian: libsqlite3-0)", names,
                       slots, sizeof(names) / sizeof(names[0]), sc__error, sizeof(sc__error)))
        sc__loaded = &sc__table;
}

/* The first open loads the library (once, thread-safe); without it, no handle. */
int sqlite3_open_v2(const char *file, sqlite3 **db, int flags, const char *vfs)
{
    pthread_once(&sc__once, sc__load);
    if (sc__loaded)
        return sc__loaded->sqlite3_open_v2(file, db, flags, vfs);
    *db = NULL;
    return SQLITE_ERROR;
}

/* Every other function: through the table, once an open loaded it. */
#define SC__DEFINE(ret, f, params, args, fallback)                                                 \
    ret f params                                                                                   \
    {                                                                                              \
        return sc__loaded ? sc__loaded->f args : (fallback);                                       \
    }
SC_SQLITE_FUNCTIONS(SC__DEFINE)
#undef SC__DEFINE
