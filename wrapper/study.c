/*
 * study.c: the table and the record of an ablation study (see study.h, doc/contracts/card.md,
 * "Ablation studies"). Every number is read back from the bundles, through verify's
 * verdict and the metric registry, as compare reads them; the record's rows are
 * recomputed the same way by `streamcard verify STUDY`.
 */
#include "study.h"
#include "study_rows.h"
#include "study_extra.h"
#include "cli.h"
#include "sc_ablation.h"
#include "sc_bundle.h"
#include "sc_gate_table.h"
#include "sc_runs.h"
#include "sc_stats.h"
#include "sc_text.h"
#include "sc_verify.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int sc_study_metric(const sc_card *card, sc_metric *m)
{
    if (card->study_metric)
        return sc_metric_lookup_card(card, card->study_metric, m);
    return sc_metric_study(card, m);
}

/* The failed gates of a verified bundle, "gate: note; ...", into buf. */
static void sc__failed_gates(const sc_verify_report *r, char *buf, size_t len)
{
    size_t used = 0;

    buf[0] = '\0';
    for (int i = 0; i < SC_GATE_COUNT && used < len; i++) {
        if (r->gates.g[i].state != SC_GATE_FAIL)
            continue;
        int n = snprintf(buf + used, len - used, "%s%s: %s", used ? "; " : "",
                         sc_gate_name((sc_gate_id)i), r->gates.g[i].note);
        used = n < 0 ? len : used + (size_t)n;
    }
}

/* Reads the row's bundle at path (NULL: none, cause says why), verified with opts (NULL:
   the defaults): verdict, samples, stats. */
void sc__study_read(sc__srow *row, const char *path, const char *cause, const sc_metric *m,
                    const sc_verify_opts *opts)
{
    sc_verify_report r;
    sc_bundle b;
    char *text = NULL;

    snprintf(row->verdict, sizeof(row->verdict), "no bundle");
    snprintf(row->why, sizeof(row->why), "%s", cause ? cause : "it did not run");
    row->bundle = path ? strdup(path) : NULL;
    if (!path)
        return;
    int rc = sc_verify_bundle_opts(path, opts, &r);
    if (rc < 0)
        snprintf(row->why, sizeof(row->why), "cannot open the bundle: %s", strerror(-rc));
    if (rc == 0) {
        bool usable = sc_verify_usable(&r), intact = sc_verify_intact(&r);
        snprintf(row->verdict, sizeof(row->verdict), "%s",
                 usable   ? "ok"
                 : intact ? "failed"
                          : "unverified");
        if (usable)
            row->why[0] = '\0';
        else if (intact)
            sc__failed_gates(&r, row->why, sizeof(row->why));
        else
            snprintf(row->why, sizeof(row->why), "%s",
                     r.problems.count ? r.problems.lines[0] : "the bundle does not verify");
    }
    sc_verify_report_free(&r);
    if (strcmp(row->verdict, "ok") != 0 || sc_bundle_open(&b, path) < 0)
        return;
    /* Owned by the row, freed by its reader (sc__verify_row, sc_study_print's rows):
       clang-analyzer loses it through the caller's struct. */
    row->x = calloc(SC_RUNS_MAX, sizeof(double));
    if (row->x && sc_bundle_read(&b, "results.json", &text, NULL) == 0) {
        json_object *root = json_tokener_parse(text);
        row->n = sc_metric_samples(m, root, row->x, SC_RUNS_MAX);
        json_object_put(root);
    }
    if (row->n && sc_stats_describe(row->x, row->n, &row->st) < 0)
        row->n = 0;
    if (!row->n) // NOLINT(clang-analyzer-unix.Malloc): row->x is the row's, see above
        snprintf(row->why, sizeof(row->why), "its results hold no %s", m->name);
    free(text);
    sc_bundle_close(&b);
}

static void sc__compare(const sc__srow *base, const sc__srow *row, const sc_metric *m, sc__cmp *c)
{
    memset(c, 0, sizeof(*c));
    if (!base->n || !row->n || sc_stats_ratio(base->x, base->n, row->x, row->n, &c->r) < 0)
        return;
    bool higher = m->better == SC_METRIC_HIGHER;
    sc_verdict v = sc_stats_verdict(&c->r, higher, SC_STATS_NOISE_BOUND);
    c->done = true;
    c->change_pct = sc_metric_change(base->st.median, row->st.median);
    c->verdict = sc_stats_verdict_name(v);
    /* Worse: the interval says so, or (too few runs for one) the point estimate loses
       more than the noise bound. */
    c->worse = v == SC_VERDICT_SLOWER ||
               (v == SC_VERDICT_UNCONFIRMED &&
                sc_metric_loss(m, base->st.median, row->st.median) > SC_STATS_NOISE_BOUND);
}

static void sc__cmp_cell(char *buf, size_t len, const sc__cmp *c)
{
    if (!c->done)
        snprintf(buf, len, "-");
    else if (c->r.ci)
        snprintf(buf, len, "%+.1f%%, B/A %.3f [%.3f, %.3f]: %s", c->change_pct, c->r.ratio,
                 c->r.ci_low, c->r.ci_high, c->verdict);
    else
        snprintf(buf, len, "%+.1f%% (unconfirmed: fewer than %d runs a side)", c->change_pct,
                 SC_STATS_MIN_RUNS);
}

static void sc__value_cell(char *buf, size_t len, const sc__srow *row)
{
    if (!row->n)
        snprintf(buf, len, "-");
    else if (row->st.ci)
        snprintf(buf, len, "%.4g [%.4g, %.4g] (%zu runs)", row->st.median, row->st.ci_low,
                 row->st.ci_high, row->n);
    else
        snprintf(buf, len, "%.4g (%zu run%s, no interval)", row->st.median, row->n,
                 row->n == 1 ? "" : "s");
}

/* A cell's text as one markdown cell: escaped, '|' guarded. */
static void sc__md(FILE *out, const char *text)
{
    char esc[1024];

    sc_text_escape(esc, sizeof(esc), text, strlen(text));
    for (const char *p = esc; *p; p++) {
        if (*p == '|')
            fputc('\\', out);
        fputc(*p, out);
    }
}

/* What a line adds beside the figure: the counters measured (NULL: no such column), and
   why its step did nothing here ("" when it may have). */
typedef struct sc__extra_cells {
    const char *counters;
    const char *no_effect;
} sc__extra_cells;

/* One line of the table: row, verdict (and why), value, comparisons, counters, flag, bundle. */
static void sc__line(FILE *out, const sc__srow *row, const sc__cmp *vs_base, const sc__cmp *vs_prev,
                     bool two, const sc__extra_cells *x)
{
    char cell[256];

    fputs("| ", out);
    sc__md(out, row->label);
    fputs(" | ", out);
    sc__md(out, row->verdict);
    if (row->why[0]) {
        fputs(": ", out);
        sc__md(out, row->why);
    }
    sc__value_cell(cell, sizeof(cell), row);
    fprintf(out, " | %s | ", cell);
    if (vs_base) {
        sc__cmp_cell(cell, sizeof(cell), vs_base);
        fprintf(out, "%s | ", cell);
    } else {
        fputs(two ? "(baseline) | | " : "(baseline) | ", out);
    }
    if (vs_prev) {
        sc__cmp_cell(cell, sizeof(cell), vs_prev);
        fprintf(out, "%s | ", cell);
    }
    /* WORSE: the interval says so; worse?: the point estimate, without an interval. */
    bool worse = (vs_base && vs_base->worse) || (vs_prev && vs_prev->worse);
    bool sure = (vs_base && vs_base->worse && vs_base->r.ci) ||
                (vs_prev && vs_prev->worse && vs_prev->r.ci);
    if (x->counters) {
        sc__md(out, x->counters);
        fputs(" | ", out);
    }
    fputs(sure ? "WORSE" : worse ? "worse?" : "", out);
    if (x->no_effect[0]) {
        fputs(sure || worse ? "; " : "", out);
        sc__md(out, x->no_effect);
    }
    fputs(" | ", out);
    sc__md(out, row->bundle ? row->bundle : "-");
    fputs(" |\n", out);
}

/* The counters cell of row i (into buf), or NULL when no row measured any. */
static const char *sc__counters(const sc_study_extra *ex, size_t nrows, size_t i, char *buf,
                                size_t len)
{
    bool any = false;

    for (size_t r = 0; r < nrows; r++) {
        sc_study_extra_cell(&ex[r], buf, len);
        any = any || buf[0];
    }
    if (!any)
        return NULL;
    sc_study_extra_cell(&ex[i], buf, len);
    if (!buf[0])
        snprintf(buf, len, "-");
    return buf;
}

/* Both tables: each step alone against the baseline; the sequence against the baseline
   and the previous cumulative row. cmp[i][0]: vs the baseline, cmp[i][1]: vs previous. */
static void sc__tables(FILE *out, const sc_card *card, const sc_metric *m, const sc__srow *rows,
                       sc__cmp (*cmp)[2], const sc_study_extra *ex)
{
    size_t n = card->n_steps, nrows = 2 * n;
    char counters[160], none[320];
    bool column = sc__counters(ex, nrows, 0, counters, sizeof(counters)) != NULL;
    const char *head = column ? " measured |" : "", *rule = column ? "---|" : "";
    sc__extra_cells x = {NULL, ""};

    fprintf(out,
            "Each step alone, against the baseline (%s, %s, %s is better; median and its "
            "95%% interval):\n\n",
            m->name, m->unit, m->better == SC_METRIC_HIGHER ? "higher" : "lower");
    fprintf(out, "| row | verdict | %s %s | vs baseline |%s flag | bundle |\n", m->name, m->unit,
            head);
    fprintf(out, "|---|---|---|---|%s---|---|\n", rule);
    x = (sc__extra_cells){sc__counters(ex, nrows, 0, counters, sizeof(counters)), ""};
    sc__line(out, &rows[0], NULL, NULL, false, &x);
    for (size_t s = 1; s <= n; s++) {
        sc_study_no_effect(&card->steps[s - 1], &ex[s], &ex[0], none, sizeof(none));
        x = (sc__extra_cells){sc__counters(ex, nrows, s, counters, sizeof(counters)), none};
        sc__line(out, &rows[s], &cmp[s][0], NULL, false, &x);
    }
    fprintf(out, "\nThe steps in sequence (each row adds one step to the row above):\n\n");
    fprintf(out, "| row | verdict | %s %s | vs baseline | vs previous |%s flag | bundle |\n",
            m->name, m->unit, head);
    fprintf(out, "|---|---|---|---|---|%s---|---|\n", rule);
    x = (sc__extra_cells){sc__counters(ex, nrows, 0, counters, sizeof(counters)), ""};
    sc__line(out, &rows[0], NULL, NULL, true, &x);
    for (size_t k = 1; k <= n; k++) {
        size_t i = sc_ablation_run(n, SC_ABLATION_SEQUENCE, k);
        size_t prev = k == 1 ? 0 : sc_ablation_run(n, SC_ABLATION_SEQUENCE, k - 1);
        sc__srow shown = rows[i];
        char label[600];
        snprintf(label, sizeof(label), "seq 1-%zu: + %s", k, card->steps[k - 1].name);
        shown.label = label;
        sc_study_no_effect(&card->steps[k - 1], &ex[i], &ex[prev], none, sizeof(none));
        x = (sc__extra_cells){sc__counters(ex, nrows, i, counters, sizeof(counters)), none};
        sc__line(out, &shown, &cmp[i][0], k == 1 ? &cmp[i][0] : &cmp[i][1], true, &x);
    }
}

/* Fills cmp for every row: against the baseline, and a cumulative row against the one
   before it (steps 1..k-1). */
void sc__study_compare_all(const sc_card *card, const sc_metric *m, const sc__srow *rows,
                           size_t nrows, sc__cmp (*cmp)[2])
{
    size_t n = card->n_steps, step;

    memset(cmp, 0, nrows * sizeof(*cmp));
    for (size_t i = 1; i < nrows; i++) {
        sc__compare(&rows[0], &rows[i], m, &cmp[i][0]);
        if (sc_ablation_kind_of(n, i, &step) == SC_ABLATION_SEQUENCE)
            sc__compare(&rows[sc_ablation_run(n, SC_ABLATION_SEQUENCE, step - 1)], &rows[i], m,
                        &cmp[i][1]);
        else
            cmp[i][1] = cmp[i][0];
    }
}

static json_object *sc__cmp_json(const sc__cmp *c)
{
    json_object *o = json_object_new_object();

    if (!c->done)
        return o;
    json_object_object_add(o, "change_pct", json_object_new_double(c->change_pct));
    json_object_object_add(o, "ratio", json_object_new_double(c->r.ratio));
    if (c->r.ci) {
        json_object_object_add(o, "ci_low", json_object_new_double(c->r.ci_low));
        json_object_object_add(o, "ci_high", json_object_new_double(c->r.ci_high));
    }
    json_object_object_add(o, "verdict", json_object_new_string(c->verdict));
    json_object_object_add(o, "worse", json_object_new_boolean(c->worse));
    return o;
}

void sc__study_row_figures(json_object *o, const sc__srow *rows, size_t i, sc__cmp (*cmp)[2])
{
    if (rows[i].n) {
        json_object_object_add(o, "runs", json_object_new_int64((int64_t)rows[i].n));
        json_object_object_add(o, "median", json_object_new_double(rows[i].st.median));
        if (rows[i].st.ci) {
            json_object_object_add(o, "ci_low", json_object_new_double(rows[i].st.ci_low));
            json_object_object_add(o, "ci_high", json_object_new_double(rows[i].st.ci_high));
        }
    }
    if (i > 0) {
        json_object_object_add(o, "vs_baseline", sc__cmp_json(&cmp[i][0]));
        json_object_object_add(o, "vs_previous", sc__cmp_json(&cmp[i][1]));
    }
}

/* The base name of a path ("runs/x_1" -> "x_1"), trailing slashes ignored. */
static void sc__basename(const char *path, char *buf, size_t len)
{
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/')
        n--;
    size_t start = n;
    while (start > 0 && path[start - 1] != '/')
        start--;
    snprintf(buf, len, "%.*s", (int)(n - start), path + start);
}

/* The row's steps and the card keys it changes against the baseline: what the study
   declares as its intended differences. */
void sc__study_row_steps(json_object *o, const sc_card *card, size_t i)
{
    size_t step;
    sc_ablation_kind kind = sc_ablation_kind_of(card->n_steps, i, &step);
    json_object *steps = json_object_new_array(), *differs = json_object_new_array();

    for (size_t s = kind == SC_ABLATION_SEQUENCE ? 1 : step; s >= 1 && s <= step; s++) {
        const sc_card_step *st = &card->steps[s - 1];
        json_object_array_add(steps, json_object_new_string(st->name));
        for (size_t k = 0; k < st->n_set; k++)
            json_object_array_add(differs, json_object_new_string(st->set[k].key));
        for (size_t k = 0; k < st->n_unset; k++) {
            char name[300];
            snprintf(name, sizeof(name), "env.%s", st->unset[k]);
            json_object_array_add(differs, json_object_new_string(name));
        }
    }
    json_object_object_add(o, "kind",
                           json_object_new_string(kind == SC_ABLATION_BASELINE ? "baseline"
                                                  : kind == SC_ABLATION_ALONE  ? "alone"
                                                                               : "sequence"));
    json_object_object_add(o, "step", json_object_new_int64((int64_t)step));
    json_object_object_add(o, "steps", steps);
    json_object_object_add(o, "differs", differs);
}

static json_object *sc__record(const sc_card *card, const sc_metric *m, const sc__srow *rows,
                               size_t nrows, sc__cmp (*cmp)[2])
{
    json_object *root = json_object_new_object(), *arr = json_object_new_array();
    char name[256];

    json_object_object_add(root, "schema", json_object_new_int(1));
    json_object_object_add(root, "metric", json_object_new_string(m->name));
    json_object_object_add(root, "unit", json_object_new_string(m->unit));
    json_object_object_add(
        root, "better", json_object_new_string(m->better == SC_METRIC_HIGHER ? "higher" : "lower"));
    json_object_object_add(root, "noise_bound_pct", json_object_new_double(SC_STATS_NOISE_BOUND));
    for (size_t i = 0; i < nrows; i++) {
        json_object *o = json_object_new_object();
        json_object_object_add(o, "label", json_object_new_string(rows[i].label));
        sc__study_row_steps(o, card, i);
        if (rows[i].bundle) {
            sc__basename(rows[i].bundle, name, sizeof(name));
            json_object_object_add(o, "bundle", json_object_new_string(name));
        }
        json_object_object_add(o, "verdict", json_object_new_string(rows[i].verdict));
        if (rows[i].why[0])
            json_object_object_add(o, "why", json_object_new_string(rows[i].why));
        sc__study_row_figures(o, rows, i, cmp);
        json_object_array_add(arr, o);
    }
    json_object_object_add(root, "rows", arr);
    return root;
}

/* Writes the record beside the bundles and seals it; its path in *path (malloc'd). */
static int sc__write(const sc_run_series *rs, const sc_card *card, json_object *record,
                     const char *table, char **path)
{
    sc_bundle b;
    char name[300];
    const char *base = rs->series->runs[0].card->run_name;
    size_t len = strlen(base), suffix = strlen("_baseline");

    snprintf(name, sizeof(name), "study_%.*s", (int)(len > suffix ? len - suffix : len), base);
    int rc = sc_bundle_create(&b, rs->opts->output_dir, name, time(NULL));
    if (rc < 0)
        return rc;
    const char *json = json_object_to_json_string_ext(record, JSON_C_TO_STRING_PRETTY);
    rc = sc_bundle_write_str(&b, "study.json", json);
    if (rc == 0)
        rc = sc_bundle_write_str(&b, "table.md", table);
    if (rc == 0 && card->source)
        rc = sc_bundle_write(&b, "card.yaml", card->source, card->source_len);
    if (rc == 0)
        rc = sc_bundle_seal(&b);
    *path = rc == 0 ? strdup(b.path) : NULL;
    sc_bundle_close(&b);
    return rc == 0 && !*path ? -ENOMEM : rc;
}

int sc_study_finish(const sc_run_series *rs, const sc_card *card, int status)
{
    size_t nrows = rs->series->n;
    sc__srow *rows = calloc(nrows, sizeof(*rows));
    sc__cmp(*cmp)[2] = calloc(nrows, sizeof(*cmp));
    sc_study_extra *ex = calloc(nrows, sizeof(*ex));
    sc_metric m;
    char *table = NULL, *path = NULL;
    size_t table_len = 0;
    json_object *record = NULL;

    if (!rows || !cmp || !ex || sc_study_metric(card, &m) < 0) {
        fprintf(stderr, "streamcard: study: cannot make its table: %s\n",
                !rows || !cmp || !ex ? strerror(ENOMEM) : "no metric for this workload");
        status = SC_EXIT_ERROR;
        goto out;
    }
    for (size_t i = 0; i < nrows; i++) {
        rows[i].label = rs->series->runs[i].label;
        sc__study_read(&rows[i], rs->bundles[i], rs->causes[i], &m, NULL);
        sc_study_extra_read(rs->bundles[i], rs->series->runs[i].card, &ex[i]);
    }
    sc__study_compare_all(card, &m, rows, nrows, cmp);
    FILE *mem = open_memstream(&table, &table_len);
    if (!mem) {
        status = SC_EXIT_ERROR;
        goto out;
    }
    fprintf(mem, "# streamcard study: %zu steps, %s\n\n", card->n_steps, m.name);
    sc__tables(mem, card, &m, rows, cmp, ex);
    fclose(mem);
    printf("\n%s", table);
    record = sc__record(card, &m, rows, nrows, cmp);
    int rc = sc__write(rs, card, record, table, &path);
    if (rc < 0) {
        fprintf(stderr, "streamcard: study: cannot write its record under %s: %s\n",
                rs->opts->output_dir, strerror(-rc));
        status = SC_EXIT_ERROR;
        goto out;
    }
    printf("STUDY=%s\n", path);
out:
    for (size_t i = 0; rows && i < nrows; i++) {
        free(rows[i].bundle);
        free(rows[i].x);
    }
    free(rows);
    free(cmp);
    free(ex);
    free(table);
    free(path);
    json_object_put(record);
    return status;
}

bool sc_study_is(const char *path)
{
    sc_bundle b;
    size_t size;

    if (sc_bundle_open(&b, path) < 0)
        return false;
    int fd = sc_bundle_open_read(&b, "study.json", &size);
    if (fd >= 0)
        close(fd);
    sc_bundle_close(&b);
    return fd >= 0;
}
