/*
 * history_query.c: the series a `history show`, `check` or `report` selects (see
 * history_cli.h): one query over the store, ordered by series and time, grouped here.
 */
#include "history_cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The figures of usable bundles. ?1 card, ?2 host, ?3 metric, ?4 since, ?5 until; the
   variables' pairs from ?6 on. */
static const char sc__figures_sql[] =
    "SELECT b.card, b.host, f.metric, f.unit, f.better, '', '', b.id,"
    " coalesce(b.ended_at, b.started_at, -1), b.name, b.digest, f.runs, f.median, f.ci_low,"
    " f.ci_high, '' FROM figure f JOIN bundle b ON b.id = f.bundle_id"
    " WHERE (?1 IS NULL OR b.card = ?1) AND (?2 IS NULL OR b.host = ?2)"
    " AND (?3 IS NULL OR f.metric = ?3)"
    " AND (?4 IS NULL OR coalesce(b.ended_at, b.started_at) >= ?4)"
    " AND (?5 IS NULL OR coalesce(b.ended_at, b.started_at) <= ?5)";

/* The cells of link matrices: a node (node_b '') or a link. ?6 node_a, ?7 node_b; the
   variables' pairs from ?8 on. */
static const char sc__cells_sql[] =
    "SELECT b.card, '', c.metric, CASE WHEN c.metric LIKE 'latency%' THEN 'us' ELSE 'MB/s' END,"
    " CASE WHEN c.metric LIKE 'latency%' THEN 'lower' ELSE 'higher' END, c.node_a, c.node_b,"
    " b.id, coalesce(b.ended_at, b.started_at, -1), b.name, b.digest, 1, c.value, NULL, NULL,"
    " c.verdict FROM cell c JOIN bundle b ON b.id = c.bundle_id"
    " WHERE (?1 IS NULL OR b.card = ?1) AND (?2 IS NULL OR b.host = ?2)"
    " AND (?3 IS NULL OR c.metric = ?3)"
    " AND (?4 IS NULL OR coalesce(b.ended_at, b.started_at) >= ?4)"
    " AND (?5 IS NULL OR coalesce(b.ended_at, b.started_at) <= ?5)"
    " AND c.node_a = ?6 AND c.node_b = coalesce(?7, '')";

static const char sc__order_sql[] = " ORDER BY 1, 2, 3, 6, 7, 9, 10";

static char *sc__dup(const unsigned char *s)
{
    return strdup(s ? (const char *)s : "");
}

/* The series of the current row: the last one when the row's key matches, else a new one. */
static sc_history_series *sc__series_of(sc_history_set *set, sqlite3_stmt *st)
{
    sc_history_series *s = set->n ? &set->s[set->n - 1] : NULL;
    const int cols[] = {0, 1, 2, 5, 6};

    if (s) {
        char *have[] = {s->card, s->host, s->metric, s->node_a, s->node_b};
        bool same = true;
        for (size_t i = 0; i < 5 && same; i++)
            same = strcmp(have[i], (const char *)sqlite3_column_text(st, cols[i])) == 0;
        if (same)
            return s;
    }
    if (set->n == set->cap) {
        size_t cap = set->cap ? 2 * set->cap : 16;
        sc_history_series *grown = realloc(set->s, cap * sizeof(*grown));
        if (!grown)
            return NULL;
        set->s = grown;
        set->cap = cap;
    }
    if (!set->s)
        return NULL;
    s = &set->s[set->n++];
    memset(s, 0, sizeof(*s));
    s->card = sc__dup(sqlite3_column_text(st, 0));
    s->host = sc__dup(sqlite3_column_text(st, 1));
    s->metric = sc__dup(sqlite3_column_text(st, 2));
    s->unit = sc__dup(sqlite3_column_text(st, 3));
    s->better = sc__dup(sqlite3_column_text(st, 4));
    s->node_a = sc__dup(sqlite3_column_text(st, 5));
    s->node_b = sc__dup(sqlite3_column_text(st, 6));
    s->cell = *s->node_a != '\0';
    if (!s->card || !s->host || !s->metric || !s->unit || !s->better || !s->node_a || !s->node_b)
        return NULL;
    return s;
}

static int sc__add_row(sc_history_set *set, sqlite3_stmt *st)
{
    sc_history_series *s = sc__series_of(set, st);

    if (!s)
        return -ENOMEM;
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 32;
        sc_history_point *grown = realloc(s->p, cap * sizeof(*grown));
        if (!grown)
            return -ENOMEM;
        s->p = grown;
        s->cap = cap;
    }
    sc_history_point *p = &s->p[s->n];
    memset(p, 0, sizeof(*p));
    p->id = sqlite3_column_int64(st, 7);
    p->ended_at = sqlite3_column_int64(st, 8);
    p->name = sc__dup(sqlite3_column_text(st, 9));
    p->digest = sc__dup(sqlite3_column_text(st, 10));
    p->runs = (size_t)sqlite3_column_int64(st, 11);
    p->median = sqlite3_column_double(st, 12);
    p->ci = sqlite3_column_type(st, 13) != SQLITE_NULL;
    p->ci_low = sqlite3_column_double(st, 13);
    p->ci_high = sqlite3_column_double(st, 14);
    snprintf(p->verdict, sizeof(p->verdict), "%s", (const char *)sqlite3_column_text(st, 15));
    s->n++;
    return p->name && p->digest ? 0 : -ENOMEM;
}

static void sc__bind_opt_text(sqlite3_stmt *st, int i, const char *v)
{
    if (v)
        sqlite3_bind_text(st, i, v, -1, SQLITE_STATIC);
}

int sc_history_query(sc_history *h, const sc_history_filter *f, sc_history_set *out, char *why,
                     size_t whylen)
{
    char *sql = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&sql, &len);
    bool cells = f->node_a != NULL;
    int first_var = cells ? 8 : 6, rc = 0;
    sqlite3_stmt *st = NULL;

    memset(out, 0, sizeof(*out));
    if (!mem)
        return -ENOMEM;
    fputs(cells ? sc__cells_sql : sc__figures_sql, mem);
    for (size_t i = 0; i < f->n_vars; i++)
        fprintf(mem,
                " AND EXISTS (SELECT 1 FROM variable v WHERE v.bundle_id = b.id AND v.name = ?%d"
                " AND v.value = ?%d)",
                first_var + 2 * (int)i, first_var + 2 * (int)i + 1);
    fputs(sc__order_sql, mem);
    if (fclose(mem) != 0) {
        free(sql);
        return -ENOMEM;
    }
    if (sqlite3_prepare_v2(sc_history_db(h), sql, -1, &st, NULL) != SQLITE_OK) {
        snprintf(why, whylen, "query: %s", sc_history_error(h));
        free(sql);
        return -EIO;
    }
    free(sql);
    sc__bind_opt_text(st, 1, f->card);
    sc__bind_opt_text(st, 2, f->host);
    sc__bind_opt_text(st, 3, f->metric);
    if (f->since >= 0)
        sqlite3_bind_int64(st, 4, f->since);
    if (f->until >= 0)
        sqlite3_bind_int64(st, 5, f->until);
    if (cells) {
        sc__bind_opt_text(st, 6, f->node_a);
        sc__bind_opt_text(st, 7, f->node_b);
    }
    for (size_t i = 0; i < f->n_vars; i++) {
        const char *eq = strchr(f->vars[i], '=');
        sqlite3_bind_text(st, first_var + 2 * (int)i, f->vars[i], (int)(eq - f->vars[i]),
                          SQLITE_STATIC);
        sqlite3_bind_text(st, first_var + 2 * (int)i + 1, eq + 1, -1, SQLITE_STATIC);
    }
    int step;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW)
        rc = sc__add_row(out, st);
    if (rc == 0 && step != SQLITE_DONE) {
        snprintf(why, whylen, "query: %s", sc_history_error(h));
        rc = -EIO;
    } else if (rc < 0) {
        snprintf(why, whylen, "query: %s", strerror(-rc));
    }
    sqlite3_finalize(st);
    if (rc < 0)
        sc_history_set_free(out);
    return rc;
}

void sc_history_set_free(sc_history_set *set)
{
    for (size_t i = 0; i < set->n; i++) {
        sc_history_series *s = &set->s[i];
        for (size_t k = 0; k < s->n; k++) {
            free(s->p[k].name);
            free(s->p[k].digest);
        }
        free(s->p);
        free(s->card);
        free(s->host);
        free(s->metric);
        free(s->unit);
        free(s->better);
        free(s->node_a);
        free(s->node_b);
    }
    free(set->s);
    memset(set, 0, sizeof(*set));
}

char *sc_history_series_key(const sc_history_series *s)
{
    char *key = NULL;

    if (s->cell)
        return asprintf(&key, "%s %s %s%s%s", s->card, s->metric, s->node_a, *s->node_b ? " " : "",
                        s->node_b) < 0
                   ? NULL
                   : key;
    return asprintf(&key, "%s %s %s", s->card, s->host, s->metric) < 0 ? NULL : key;
}

void sc_history_time(long long t, char *buf, size_t len)
{
    time_t tt = (time_t)t;
    struct tm tm;

    if (t < 0 || !gmtime_r(&tt, &tm))
        snprintf(buf, len, "unknown");
    else
        strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

bool sc_history_parse_time(const char *s, long long *t)
{
    struct tm tm = {0};
    char *end;
    long long v = strtoll(s, &end, 10);

    if (*s && *end == '\0' && v >= 0) {
        *t = v;
        return true;
    }
    end = strptime(s, "%Y-%m-%dT%H:%M:%SZ", &tm);
    if (!end || *end) {
        memset(&tm, 0, sizeof(tm));
        end = strptime(s, "%Y-%m-%d", &tm);
    }
    if (!end || *end)
        return false;
    *t = (long long)timegm(&tm);
    return true;
}
