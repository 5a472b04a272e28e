/*
 * history_check.c: `streamcard history check`: the change points of every series selected
 * (doc/contracts/analysis.md, "History"): Pettitt's test by binary segmentation over the bundles'
 * medians (sc_changepoint.h), then per change point the ratio after/before of the bundles
 * on its two sides with its interval (sc_stats_ratio()), the verdict for the noise bound,
 * and what differs between the last bundle before and the first after (the controlled
 * variables as compare counts them). A change is confirmed when both sides hold
 * SC_STATS_MIN_RUNS bundles or more and its whole interval lies beyond the noise bound,
 * else suspect. A change is new unless the store remembers one in its series within
 * SC__NEAR bundles of it with the same or a stronger status; check remembers what it
 * reported (unless --no-record).
 */
#include "analysis.h"
#include "cli.h"
#include "history_cli.h"
#include "junit.h"

#include "sc_changepoint.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SC__NEAR 3      /* bundles a remembered change may have moved by */
#define SC__SIDE_MAX 50 /* bundles compared on each side at most (the nearest) */

int sc_history_changes(const sc_history_series *s, double alpha, double bound_pct,
                       sc_history_change *out, size_t max)
{
    sc_changepoint cp[SC_CHANGEPOINT_MAX];
    double *x = malloc((s->n ? s->n : 1) * sizeof(*x));
    int n;

    if (!x)
        return -ENOMEM;
    for (size_t i = 0; i < s->n; i++)
        x[i] = s->p[i].median;
    n = sc_changepoint_find(x, s->n, alpha, SC_CHANGEPOINT_MIN_SIDE, cp, SC_CHANGEPOINT_MAX);
    for (int i = 0; n > 0 && i < n && (size_t)i < max; i++) {
        sc_history_change *c = &out[i];
        size_t lo = i ? cp[i - 1].at : 0, hi = i + 1 < n ? cp[i + 1].at : s->n;
        sc_ratio r;
        if (cp[i].at - lo > SC__SIDE_MAX)
            lo = cp[i].at - SC__SIDE_MAX;
        if (hi - cp[i].at > SC__SIDE_MAX)
            hi = cp[i].at + SC__SIDE_MAX;
        memset(c, 0, sizeof(*c));
        c->at = cp[i].at;
        c->lo = lo;
        c->hi = hi;
        c->p = cp[i].p;
        c->verdict = "unconfirmed";
        if (sc_stats_ratio(x + lo, c->at - lo, x + c->at, hi - c->at, &r) == 0) {
            bool higher = strcmp(s->better, "higher") == 0;
            sc_verdict v = sc_stats_verdict(&r, higher, bound_pct);
            c->ratio = r.ratio;
            c->ci = r.ci;
            c->ci_low = r.ci_low;
            c->ci_high = r.ci_high;
            c->verdict = v == SC_VERDICT_FASTER   ? "faster"
                         : v == SC_VERDICT_SLOWER ? "slower"
                                                  : sc_stats_verdict_name(v);
            c->confirmed = r.ci && (v == SC_VERDICT_FASTER || v == SC_VERDICT_SLOWER);
        }
    }
    free(x);
    return n < 0 ? n : (n > (int)max ? (int)max : n);
}

/* A bundle's controlled variables and env from the store, as sc_facts_load() gives them,
   for the comparison's own functions. The names follow ref's order when ref is given. */
typedef struct sc__stored {
    sc_bundle_facts f;
    char *names[SC_FACTS_MAX_VARS], *groups[SC_FACTS_MAX_VARS], *follows[SC_FACTS_MAX_VARS];
} sc__stored;

static void sc__stored_free(sc__stored *x)
{
    for (size_t i = 0; i < SC_FACTS_MAX_VARS; i++) {
        free(x->names[i]);
        free(x->groups[i]);
        free(x->follows[i]);
        free(x->f.vars[i].value);
    }
    for (size_t i = 0; i < x->f.n_env; i++)
        free(x->f.env[i]);
    free(x->f.env);
    memset(x, 0, sizeof(*x));
}

static char *sc__col(sqlite3_stmt *st, int i)
{
    const unsigned char *t = sqlite3_column_text(st, i);
    return t ? strdup((const char *)t) : NULL;
}

static int sc__stored_load(sc_history *h, long long id, const sc__stored *ref, sc__stored *x)
{
    sqlite3 *db = sc_history_db(h);
    sqlite3_stmt *st = NULL;
    int rc = 0;

    memset(x, 0, sizeof(*x));
    if (sqlite3_prepare_v2(db,
                           "SELECT name, grp, value, follows FROM variable WHERE bundle_id = ?"
                           " ORDER BY pos",
                           -1, &st, NULL) != SQLITE_OK)
        return -EIO;
    sqlite3_bind_int64(st, 1, id);
    while (sqlite3_step(st) == SQLITE_ROW && x->f.n_vars < SC_FACTS_MAX_VARS) {
        size_t i = x->f.n_vars++;
        x->names[i] = sc__col(st, 0);
        x->groups[i] = sc__col(st, 1);
        x->f.vars[i].value = sc__col(st, 2);
        x->follows[i] = sc__col(st, 3);
    }
    sqlite3_finalize(st);
    /* In ref's order, so that sc_facts_diff() compares like with like. */
    if (ref) {
        sc__stored sorted = {0};
        for (size_t i = 0; i < ref->f.n_vars; i++) {
            size_t k = 0;
            while (k < x->f.n_vars && (!x->names[k] || strcmp(x->names[k], ref->names[i])))
                k++;
            sorted.names[i] = strdup(ref->names[i]);
            sorted.groups[i] = strdup(ref->groups[i]);
            sorted.f.vars[i].value = strdup(k < x->f.n_vars ? x->f.vars[k].value : "not recorded");
            sorted.follows[i] = k < x->f.n_vars && x->follows[k] ? strdup(x->follows[k]) : NULL;
        }
        sorted.f.n_vars = ref->f.n_vars;
        sc__stored_free(x);
        *x = sorted;
    }
    for (size_t i = 0; i < x->f.n_vars; i++) {
        if (!x->names[i] || !x->f.vars[i].value)
            rc = -ENOMEM;
        x->f.vars[i].name = x->names[i];
        x->f.vars[i].group = x->groups[i];
        x->f.vars[i].follows = x->follows[i];
    }
    if (sqlite3_prepare_v2(db,
                           "SELECT name || '=' || value FROM env WHERE bundle_id = ?"
                           " ORDER BY name",
                           -1, &st, NULL) != SQLITE_OK)
        return -EIO;
    sqlite3_bind_int64(st, 1, id);
    while (rc == 0 && sqlite3_step(st) == SQLITE_ROW) {
        char **grown = realloc(x->f.env, (x->f.n_env + 1) * sizeof(*grown));
        if (!grown) {
            rc = -ENOMEM;
            break;
        }
        x->f.env = grown;
        if (!(x->f.env[x->f.n_env++] = sc__col(st, 0)))
            rc = -ENOMEM;
    }
    sqlite3_finalize(st);
    return rc;
}

/* What differs between bundles a and b, ", "-joined into buf ("nothing recorded" when
   nothing does). */
static void sc__differences(sc_history *h, long long a, long long b, char *buf, size_t len)
{
    sc__stored x, y;
    size_t idx[SC_FACTS_MAX_VARS], n = 0, used = 0;

    buf[0] = '\0';
    if (sc__stored_load(h, a, NULL, &x) == 0 && sc__stored_load(h, b, &x, &y) == 0)
        n = sc_analysis_differences(&x.f, &y.f, idx);
    for (size_t i = 0; i < n && used < len; i++) {
        char one[256];
        sc_analysis_difference(&x.f, &y.f, idx[i], one, sizeof(one));
        used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "", one);
    }
    if (n == 0)
        snprintf(buf, len, "no controlled variable");
    sc__stored_free(&x);
    sc__stored_free(&y);
}

/* Whether the store remembers this change (in its series, within SC__NEAR bundles, at the
   same or a stronger status). */
static bool sc__seen(sc_history *h, const char *key, const sc_history_series *s,
                     const sc_history_change *c)
{
    sqlite3_stmt *st;
    bool seen = false;

    if (sqlite3_prepare_v2(sc_history_db(h),
                           "SELECT status FROM change_seen WHERE series = ? AND after_digest = ?",
                           -1, &st, NULL) != SQLITE_OK)
        return false;
    size_t from = c->at > SC__NEAR ? c->at - SC__NEAR : 0;
    for (size_t i = from; i < s->n && i <= c->at + SC__NEAR && !seen; i++) {
        sqlite3_reset(st);
        sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, s->p[i].digest, -1, SQLITE_STATIC);
        if (sqlite3_step(st) == SQLITE_ROW)
            seen =
                !c->confirmed || strcmp((const char *)sqlite3_column_text(st, 0), "confirmed") == 0;
    }
    sqlite3_finalize(st);
    return seen;
}

static int sc__remember(sc_history *h, const char *key, const sc_history_series *s,
                        const sc_history_change *c)
{
    sqlite3_stmt *st;
    int rc;

    if (sqlite3_prepare_v2(sc_history_db(h),
                           "INSERT OR REPLACE INTO change_seen VALUES(?, ?, ?, ?)", -1, &st,
                           NULL) != SQLITE_OK)
        return -EIO;
    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, s->p[c->at].digest, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, c->confirmed ? "confirmed" : "suspect", -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 4, (long long)time(NULL));
    rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -EIO;
    sqlite3_finalize(st);
    return rc;
}

/* One change point's line. */
static void sc__change_line(sc_history *h, const sc_history_series *s, const sc_history_change *c,
                            char *buf, size_t len)
{
    const sc_history_point *a = &s->p[c->at - 1], *b = &s->p[c->at];
    char when[32], diff[1024], ratio[160];

    /* The bundles compared for what differs lie SC__NEAR deeper into each side: the change's
       place is known to a few bundles, what caused it may lie just beside it. */
    const sc_history_point *da = &s->p[c->at - 1 > c->lo + SC__NEAR ? c->at - 1 - SC__NEAR : c->lo];
    const sc_history_point *db = &s->p[c->at + SC__NEAR < c->hi ? c->at + SC__NEAR : c->hi - 1];
    size_t used = (size_t)snprintf(diff, sizeof(diff), "%s .. %s: ", da->name, db->name);

    sc_history_time(b->ended_at, when, sizeof(when));
    sc__differences(h, da->id, db->id, diff + used, sizeof(diff) - used);
    if (c->ci)
        snprintf(ratio, sizeof(ratio), "after/before %.4g, 95%% interval [%.4g, %.4g]", c->ratio,
                 c->ci_low, c->ci_high);
    else
        snprintf(ratio, sizeof(ratio),
                 "after/before %.4g, interval unavailable (%zu and %zu "
                 "bundles; 6 a side give one)",
                 c->ratio, c->at - c->lo, c->hi - c->at);
    snprintf(buf, len,
             "%s at %s: %s: between %s (last of %zu before, median %.6g %s) and %s (first of "
             "%zu after, median %.6g %s): %s, Pettitt p %.2g; differs: %s",
             c->confirmed ? "confirmed" : "suspect", when, c->verdict, a->name, c->at - c->lo,
             a->median, s->unit, b->name, c->hi - c->at, b->median, s->unit, ratio, c->p, diff);
}

int sc_history_check(sc_history *h, const sc_history_set *set, const sc_history_check_opts *o)
{
    sc_junit *j =
        o->junit ? sc_junit_new(o->junit, "streamcard history check", "history check") : NULL;
    bool new_confirmed = false, new_suspect = false;
    int status = SC_EXIT_OK;

    if (o->junit && !j)
        return SC_EXIT_ERROR;
    for (size_t i = 0; i < set->n; i++) {
        const sc_history_series *s = &set->s[i];
        sc_history_change ch[SC_CHANGEPOINT_MAX];
        char *key = sc_history_series_key(s), line[2048];
        int n =
            key ? sc_history_changes(s, o->alpha, o->bound_pct, ch, SC_CHANGEPOINT_MAX) : -ENOMEM;
        sc_junit_kind worst = SC_JUNIT_PASS;
        char *text = NULL;
        size_t tlen = 0;
        FILE *mem = open_memstream(&text, &tlen);
        if (n < 0 || !mem) {
            fprintf(stderr, "streamcard: history check: %s: %s\n", key ? key : "?",
                    strerror(n < 0 ? -n : ENOMEM));
            status = SC_EXIT_ERROR;
            if (mem)
                fclose(mem);
            free(text);
            free(key);
            continue;
        }
        for (int k = 0; k < n; k++) {
            bool fresh = !sc__seen(h, key, s, &ch[k]);
            sc__change_line(h, s, &ch[k], line, sizeof(line));
            if (fresh || o->all)
                printf("%s%s: %s\n", fresh ? "NEW " : "", key, line);
            if (mem)
                fprintf(mem, "%s%s\n", fresh ? "NEW " : "", line);
            if (fresh && ch[k].confirmed) {
                new_confirmed = true;
                worst = SC_JUNIT_FAILURE;
            } else if (fresh) {
                new_suspect = true;
                if (worst == SC_JUNIT_PASS)
                    worst = SC_JUNIT_SKIPPED;
            }
            if (fresh && o->record && sc__remember(h, key, s, &ch[k]) < 0) {
                fprintf(stderr, "streamcard: history check: cannot remember a change: %s\n",
                        sc_history_error(h));
                status = SC_EXIT_ERROR;
            }
        }
        fclose(mem);
        if (j)
            sc_junit_case(j, "history", key, worst,
                          worst == SC_JUNIT_FAILURE   ? "a new confirmed change point"
                          : worst == SC_JUNIT_SKIPPED ? "a new suspect change point"
                                                      : NULL,
                          tlen ? text : NULL);
        free(text);
        free(key);
    }
    if (j && sc_junit_write(j) < 0)
        status = SC_EXIT_ERROR;
    if (status != SC_EXIT_OK)
        return status;
    return new_confirmed ? SC_EXIT_FAILED : new_suspect ? SC_HISTORY_EXIT_SUSPECT : SC_EXIT_OK;
}
