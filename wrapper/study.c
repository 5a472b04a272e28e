/*
 * study.c: the table and the record of an ablation study (see study.h, doc/contracts/card.md,
 * "Ablation studies"). Every number is read back from the bundles, through verify's
 * verdict and the metric registry, as compare reads them; the record's rows are
 * recomputed the same way by `streamcard verify STUDY`.
 */
#include "study.h"
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

static void sc__cmp_cell(char *buf, size_t len, const sc_study_cmp *c)
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

static void sc__value_cell(char *buf, size_t len, const sc_study_row *row)
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
static void sc__line(FILE *out, const sc_study_row *row, const sc_study_cmp *vs_base,
                     const sc_study_cmp *vs_prev, bool two, const sc__extra_cells *x)
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
static void sc__tables(FILE *out, const sc_card *card, const sc_metric *m, const sc_study_row *rows,
                       sc_study_cmp (*cmp)[2], const sc_study_extra *ex)
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
        sc_study_row shown = rows[i];
        char label[600];
        snprintf(label, sizeof(label), "seq 1-%zu: + %s", k, card->steps[k - 1].name);
        shown.label = label;
        sc_study_no_effect(&card->steps[k - 1], &ex[i], &ex[prev], none, sizeof(none));
        x = (sc__extra_cells){sc__counters(ex, nrows, i, counters, sizeof(counters)), none};
        sc__line(out, &shown, &cmp[i][0], k == 1 ? &cmp[i][0] : &cmp[i][1], true, &x);
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

static json_object *sc__record(const sc_card *card, const sc_metric *m, const sc_study_row *rows,
                               size_t nrows, sc_study_cmp (*cmp)[2])
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
        sc_study_row_steps(o, card, i);
        if (rows[i].bundle) {
            sc__basename(rows[i].bundle, name, sizeof(name));
            json_object_object_add(o, "bundle", json_object_new_string(name));
        }
        json_object_object_add(o, "verdict", json_object_new_string(rows[i].verdict));
        if (rows[i].why[0])
            json_object_object_add(o, "why", json_object_new_string(rows[i].why));
        sc_study_row_figures(o, rows, i, cmp);
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
    sc_study_row *rows = calloc(nrows, sizeof(*rows));
    sc_study_cmp(*cmp)[2] = calloc(nrows, sizeof(*cmp));
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
        sc_study_read_row(&rows[i], rs->bundles[i], rs->causes[i], &m, NULL);
        sc_study_extra_read(rs->bundles[i], rs->series->runs[i].card, &ex[i]);
    }
    sc_study_compare_all(card, &m, rows, nrows, cmp);
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
