/*
 * run_series.c: the loop over a card's runs (see run_series.h). A card that sweeps one
 * variable ("threads: [1, 2]", "sweep: {prefetch: [on, off]}") runs once per value, each
 * run its own sealed bundle, and ends with the table performance engineers otherwise write
 * by hand: the value, the verdict, the figures (the headline metrics of sc_metric.h) and
 * their change against the first run. Every
 * run was prepared and checked before the first starts (cmd_run.c), so a bad value stops
 * the series before anything ran.
 */
#include "run_series.h"
#include "cli.h"
#include "pair_load.h"
#include "sc_bundle.h"
#include "sc_bundle_view.h"
#include "sc_cause.h"
#include "sc_metric.h"
#include "sc_runs.h"
#include "sc_stats.h"
#include "sc_text.h"
#include "sc_verify.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SC__MAX_COLS 8

/* The table's figures: the headline metrics of the runs' cards (sc_metric.h), in order of
   first appearance (a swept kernel brings its own). */
typedef struct sc__cols {
    sc_metric m[SC__MAX_COLS];
    size_t n;
} sc__cols;

/* One row of the table, read back from a finished run's bundle. */
typedef struct sc__row {
    const char *value;
    char *cause; /* malloc'd: why it made no bundle, or why it did not run; NULL */
    char verdict[16];
    double figure[SC__MAX_COLS]; /* its one run's value, or the median of its runs */
    bool has[SC__MAX_COLS];
    json_object *results; /* its results.json, for the statistics over its runs */
    char *bundle;         /* malloc'd, or NULL */
} sc__row;

/* The column of metric m, added when new; SC__MAX_COLS when there is no room. */
static size_t sc__col(sc__cols *cols, const sc_metric *m)
{
    for (size_t c = 0; c < cols->n; c++)
        if (!strcmp(cols->m[c].name, m->name))
            return c;
    if (cols->n == SC__MAX_COLS)
        return SC__MAX_COLS;
    cols->m[cols->n] = *m;
    return cols->n++;
}

/* Fills row from the bundle at path (NULL: no bundle), its figures from card's metrics. */
static void sc__read_row(const char *path, const sc_card *card, sc__row *row, sc__cols *cols)
{
    sc_bundle b;
    sc_metric m[SC__MAX_COLS];

    snprintf(row->verdict, sizeof(row->verdict), "no bundle");
    memset(row->has, 0, sizeof(row->has));
    json_object_put(row->results);
    row->results = NULL;
    free(row->bundle);
    row->bundle = path ? strdup(path) : NULL;
    if (!path || sc_bundle_open(&b, path) < 0)
        return;
    if (sc_pair_is(path)) { /* a pair card's job: the pair's verify says (pair_load.h) */
        sc_pair_loaded p;
        if (sc_pair_load(path, NULL, &p) == 0)
            snprintf(row->verdict, sizeof(row->verdict), "%s",
                     p.usable           ? "ok"
                     : p.problems.count ? "unverified"
                                        : "failed");
        sc_pair_loaded_free(&p);
        sc_bundle_close(&b);
        return;
    }
    /* The verdict is verify's, recomputed from the raw files, not results.json's claim. */
    sc_bundle_view v;
    if (sc_bundle_view_open(path, NULL, &v) == 0)
        snprintf(row->verdict, sizeof(row->verdict), "%s", sc_view_verdict_name(v.verdict));
    /* A failed run's cause, as `streamcard: cause:` says it (one run's log: its words). */
    if (!strcmp(row->verdict, "failed") && !row->cause) {
        char cause[1024];
        char *log = sc_runs_flat(card) ? sc_bundle_read_opt(&b, "stream.log") : NULL;
        if (sc_cause_of_run(&v.verify.gates, log, cause, sizeof(cause)) > 0)
            row->cause = strdup(cause);
        free(log);
    }
    if (v.loaded && v.facts.results) { /* results.json as the view parsed it, kept by the row */
        json_object *root = v.facts.results;
        size_t n = sc_metric_defaults(card, root, SC_METRIC_HEADLINE, m, SC__MAX_COLS);
        for (size_t i = 0; i < n; i++) {
            size_t c = sc__col(cols, &m[i]);
            if (c < SC__MAX_COLS)
                row->has[c] = sc_metric_value(&m[i], root, &row->figure[c]) == 0;
        }
        row->results = root;
        v.facts.results = NULL;
    }
    sc_bundle_view_close(&v);
    sc_bundle_close(&b);
}

/* The samples of m in row's bundle, one per run, into a malloc'd *out; how many. */
static size_t sc__samples(const sc__row *row, const sc_metric *m, double **out)
{
    *out = calloc(SC_RUNS_MAX, sizeof(double));
    return *out ? sc_metric_samples(m, row->results, *out, SC_RUNS_MAX) : 0;
}

/* A figure of a usable run, else "-": a failed run's numbers are not to be used. Several
   runs: the median, the runs and the median's 95% interval. */
static void sc__cell(char *buf, size_t len, const sc__row *row, size_t c, const sc_metric *m)
{
    double *v = NULL;
    size_t n;
    sc_stats s;
    int prec = row->figure[c] < 100 ? 3 : 1;

    if (strcmp(row->verdict, "ok") != 0 || !row->has[c]) {
        snprintf(buf, len, "-");
        return;
    }
    n = sc__samples(row, m, &v);
    if (n > 1 && sc_stats_describe(v, n, &s) == 0 && s.ci)
        snprintf(buf, len, "%.*f, %zu runs, 95%% [%.*f, %.*f]", prec, s.median, n, prec, s.ci_low,
                 prec, s.ci_high);
    else if (n > 1)
        snprintf(buf, len, "%.*f, %zu runs", prec, row->figure[c], n);
    else
        snprintf(buf, len, "%.*f", prec, row->figure[c]);
    free(v);
}

/* The change of row against the first: in %, then B/A with its interval and the verdict
   (doc/contracts/analysis.md, "Statistics of runs"). */
static void sc__change(char *buf, size_t len, const sc__row *base, const sc__row *row, size_t c,
                       const sc_metric *m)
{
    double *a = NULL, *b = NULL;
    size_t na = sc__samples(base, m, &a), nb = sc__samples(row, m, &b);
    sc_ratio r;
    int used = snprintf(buf, len, "%+.1f%%", sc_metric_change(base->figure[c], row->figure[c]));

    if (used > 0 && (size_t)used < len && na && nb && sc_stats_ratio(a, na, b, nb, &r) == 0) {
        if (r.ci)
            snprintf(buf + used, len - (size_t)used, ", B/A %.3f [%.3f, %.3f]: %s", r.ratio,
                     r.ci_low, r.ci_high,
                     sc_stats_verdict_name(sc_stats_verdict(&r, m->better == SC_METRIC_HIGHER,
                                                            SC_STATS_NOISE_BOUND)));
        else
            snprintf(buf + used, len - (size_t)used, " (unconfirmed: fewer than %d runs a side)",
                     SC_STATS_MIN_RUNS);
    }
    free(a);
    free(b);
}

/* The bundle, or "-", and why the run failed or made none, escaped for one cell of a
   markdown table. */
static void sc__bundle_cell(FILE *out, const sc__row *row)
{
    char cause[1024];

    fprintf(out, " %s", row->bundle ? row->bundle : "-");
    if (row->cause) {
        size_t n = strlen(row->cause);
        if (sc_text_is_printable(row->cause, n)) /* escaped once already, not twice */
            snprintf(cause, sizeof(cause), "%s", row->cause);
        else
            sc_text_escape(cause, sizeof(cause), row->cause, n);
        fputs(" (", out);
        for (const char *p = cause; *p; p++) {
            if (*p == '|') /* a cell's end in markdown */
                fputc('\\', out);
            fputc(*p, out);
        }
        fputc(')', out);
    }
    fputs(" |\n", out);
}

static void sc__table(FILE *out, const char *key, const sc__row *rows, size_t n,
                      const sc__cols *cols)
{
    char cell[128];

    fprintf(out, "| %s | verdict |", key);
    for (size_t c = 0; c < cols->n; c++)
        fprintf(out, " %s %s | change vs %s=%s |", cols->m[c].name, cols->m[c].unit, key,
                rows[0].value);
    fprintf(out, " bundle |\n|---|---|");
    for (size_t c = 0; c < cols->n; c++)
        fprintf(out, "---|---|");
    fprintf(out, "---|\n");
    for (size_t i = 0; i < n; i++) {
        fprintf(out, "| %s | %s |", rows[i].value, rows[i].verdict);
        for (size_t c = 0; c < cols->n; c++) {
            char change[160] = "(baseline)";
            bool usable = !strcmp(rows[i].verdict, "ok") && !strcmp(rows[0].verdict, "ok");
            if (i > 0 && usable && rows[0].has[c] && rows[i].has[c] && rows[0].figure[c] > 0)
                sc__change(change, sizeof(change), &rows[0], &rows[i], c, &cols->m[c]);
            else if (i > 0 && strcmp(rows[i].verdict, "ok") != 0)
                snprintf(change, sizeof(change), "not usable");
            else if (i > 0)
                snprintf(change, sizeof(change), "n/a");
            sc__cell(cell, sizeof(cell), &rows[i], c, &cols->m[c]);
            fprintf(out, " %s | %s |", cell, change);
        }
        sc__bundle_cell(out, &rows[i]);
    }
}

/* Writes the table next to the bundles: <output>/sweep_<key>_<YYYYMMDD_HHMMSS>.md. */
static void sc__save(const char *dir, const char *key, const sc__row *rows, size_t n,
                     const sc__cols *cols)
{
    char stamp[32], *path = NULL;
    time_t now = time(NULL);
    struct tm tm;

    localtime_r(&now, &tm);
    strftime(stamp, sizeof(stamp), "%Y%m%d_%H%M%S", &tm);
    if (asprintf(&path, "%s/sweep_%s_%s.md", dir, key, stamp) < 0)
        return;
    FILE *f = fopen(path, "wx");
    if (f) {
        fprintf(f, "# streamcard sweep of %s (%zu values)\n\n", key, n);
        sc__table(f, key, rows, n, cols);
        fclose(f);
        printf("SWEEP_TABLE=%s\n", path);
    } else {
        fprintf(stderr, "streamcard: cannot write the sweep table %s: %s\n", path, strerror(errno));
    }
    free(path);
}

/* Prints the table and saves it next to the bundles in dir. */
static void sc__report(const char *dir, const char *key, const sc__row *rows, size_t n,
                       const sc__cols *cols)
{
    printf("\n");
    sc__table(stdout, key, rows, n, cols);
    sc__save(dir, key, rows, n, cols);
}

int sc_run_series_execute(const sc_run_series *rs, const sc_executor *ex)
{
    const sc_series *s = rs->series;
    const char *var = s->variable;
    sc__cols cols = {.n = 0};
    bool lone = s->n == 1, dry = rs->opts->dry_run, failed = false;
    sc__row *rows = calloc(s->n, sizeof(*rows));
    bool *pending = calloc(s->n, sizeof(*pending));
    size_t left = s->n;
    int status = SC_EXIT_OK;

    if (!rows || !pending) {
        free(rows);
        free(pending);
        return SC_EXIT_ERROR;
    }
    int rc = ex->begin ? ex->begin(ex->state, rs) : 0;
    if (rc != 0) {
        free(rows);
        free(pending);
        return rc;
    }
    size_t stopped = s->n; /* the run that made no bundle and stopped the series */
    for (size_t i = 0; i < s->n; i++) {
        pending[i] = true;
        rows[i].value = s->runs[i].label;
        snprintf(rows[i].verdict, sizeof(rows[i].verdict), "not run");
    }
    /* Rounds: every run of the series that wants another goes once per round, so the values
       of a sweep with runs take turns (A B A B ...), never A A ... B B. */
    for (size_t round = 0; left; round++) {
        for (size_t i = 0; i < s->n; i++) {
            char *bundle = NULL;
            bool more = false;
            if (!pending[i])
                continue;
            if (var && !round)
                printf("--- run %zu of %zu: %s=%s\n", i + 1, s->n, var, rows[i].value);
            else if (var)
                printf("--- run %zu of %zu: %s=%s, its run %zu\n", i + 1, s->n, var, rows[i].value,
                       round + 1);
            fflush(stdout);
            int one = ex->run(ex->state, rs, i, round, &more, &bundle, &rows[i].cause);
            if (more)
                continue;
            pending[i] = false;
            left--;
            if (!dry && (var || ex->verify_each)) {
                sc__read_row(bundle, rs->plans[i].card, &rows[i], &cols);
                if (ex->verify_each && strcmp(rows[i].verdict, "ok") != 0)
                    one = SC_EXIT_FAILED;
            }
            if (!dry && !bundle && !lone && !rs->opts->keep_going && stopped == s->n) {
                /* The values not yet started are not run; those under way finish their
                   bundles (each one's runs are already in it). */
                stopped = i;
                fprintf(stderr,
                        "streamcard: %s=%s made no bundle (%s): the series stops here (valid: "
                        "--keep-going runs every value)\n",
                        var, rows[i].value, rows[i].cause ? rows[i].cause : "no cause known");
                for (size_t k = i + 1; round == 0 && k < s->n; k++)
                    if (pending[k]) {
                        pending[k] = false;
                        left--;
                        if (asprintf(&rows[k].cause, "the series stopped after %s=%s", var,
                                     rows[i].value) < 0)
                            rows[k].cause = NULL;
                    }
            }
            free(bundle);
            failed = failed || one != SC_EXIT_OK;
            if (lone)
                status = one;
        }
    }
    for (size_t i = 0; !dry && rs->bundles && i < s->n; i++) {
        rs->bundles[i] = rows[i].bundle ? strdup(rows[i].bundle) : NULL;
        rs->causes[i] = rows[i].cause ? strdup(rows[i].cause) : NULL;
    }
    if (!dry && var && !rs->bundles)
        sc__report(rs->opts->output_dir, var, rows, s->n, &cols);
    if (ex->end)
        ex->end(ex->state, rs, failed);
    if (dry) {
        printf("%s\n", ex->dry_note);
        goto out;
    }
    if (!lone && failed)
        status = SC_EXIT_FAILED;
out:
    free(pending);
    for (size_t i = 0; i < s->n; i++) {
        free(rows[i].bundle);
        free(rows[i].cause);
        json_object_put(rows[i].results);
    }
    free(rows);
    return status;
}
