/*
 * study_rows.c: the rows of an ablation study read back from their bundles (see sc_study.h,
 * doc/contracts/card.md, "Ablation studies"): each row's verdict and samples through the
 * bundle view (one pass over its bundle), the comparisons of rows, and the record's keys
 * of a row. `streamcard run` writes the record from these, and sc_study_load() recomputes
 * it with them.
 */
#include "sc_study.h"
#include "sc_ablation.h"
#include "sc_bundle.h"
#include "sc_bundle_view.h"
#include "sc_gate_table.h"
#include "sc_runs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
void sc_study_read_row(sc_study_row *row, const char *path, const char *cause, const sc_metric *m,
                       const sc_verify_opts *opts)
{
    sc_bundle_view_opts vo = {.verify = opts};
    sc_bundle_view v;

    snprintf(row->verdict, sizeof(row->verdict), "no bundle");
    snprintf(row->why, sizeof(row->why), "%s", cause ? cause : "it did not run");
    row->bundle = path ? strdup(path) : NULL;
    if (!path)
        return;
    int rc = sc_bundle_view_open(path, &vo, &v);
    if (rc < 0)
        snprintf(row->why, sizeof(row->why), "%.511s", v.why);
    if (rc == 0) {
        snprintf(row->verdict, sizeof(row->verdict), "%s", sc_view_verdict_name(v.verdict));
        if (v.verdict == SC_VIEW_VERIFIED)
            row->why[0] = '\0';
        else if (v.verdict == SC_VIEW_FAILED)
            sc__failed_gates(&v.verify, row->why, sizeof(row->why));
        else
            snprintf(row->why, sizeof(row->why), "%s",
                     v.verify.problems.count ? v.verify.problems.lines[0]
                                             : "the bundle does not verify");
    }
    if (v.loaded && v.verdict == SC_VIEW_VERIFIED) {
        /* Owned by the row, freed by its reader (sc__verify_row, sc_study_print's rows):
           clang-analyzer loses it through the caller's struct. */
        row->x = calloc(SC_RUNS_MAX, sizeof(double));
        if (row->x)
            row->n = sc_metric_samples(m, v.facts.results, row->x, SC_RUNS_MAX);
        if (row->n && sc_stats_describe(row->x, row->n, &row->st) < 0)
            row->n = 0;
        if (!row->n) // NOLINT(clang-analyzer-unix.Malloc): row->x is the row's, see above
            snprintf(row->why, sizeof(row->why), "its results hold no %s", m->name);
    }
    sc_bundle_view_close(&v);
}

static void sc__compare(const sc_study_row *base, const sc_study_row *row, const sc_metric *m,
                        sc_study_cmp *c)
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

/* Fills cmp for every row: against the baseline, and a cumulative row against the one
   before it (steps 1..k-1). */
void sc_study_compare_all(const sc_card *card, const sc_metric *m, const sc_study_row *rows,
                          size_t nrows, sc_study_cmp (*cmp)[2])
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

static json_object *sc__cmp_json(const sc_study_cmp *c)
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

void sc_study_row_figures(json_object *o, const sc_study_row *rows, size_t i,
                          sc_study_cmp (*cmp)[2])
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

/* The row's steps and the card keys it changes against the baseline: what the study
   declares as its intended differences. */
void sc_study_row_steps(json_object *o, const sc_card *card, size_t i)
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
