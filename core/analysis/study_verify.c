/*
 * study_verify.c: a study record checked (see sc_study.h, doc/contracts/card.md, "Ablation
 * studies"): its sums; its metric, unit and direction the registry's; every row recomputed
 * from its bundle beside the study (verdict, runs, median and interval, the comparisons);
 * its declarations held to its own card.yaml. Each row's bundle is read through the bundle view
 * (sc_bundle_view.h). `streamcard verify STUDY`, `report STUDY` and `compare --study` start
 * from it.
 */
#include "sc_study.h"
#include "sc_ablation.h"
#include "sc_bundle.h"
#include "sc_num.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The parent directory of a path, where a study's bundles are. */
static void sc__dirname(const char *path, char *buf, size_t len)
{
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/')
        n--;
    while (n > 0 && path[n - 1] != '/')
        n--;
    while (n > 1 && path[n - 1] == '/')
        n--;
    snprintf(buf, len, "%.*s", (int)n, n ? path : ".");
}

/* A bundle name the record may give: one path component, never "." or "..". */
static bool sc__name_ok(const char *name)
{
    return *name && strlen(name) < 256 && !strchr(name, '/') && strcmp(name, ".") != 0 &&
           strcmp(name, "..") != 0;
}

static const char *sc__jstr(json_object *o, const char *key)
{
    json_object *v;
    return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string)
               ? json_object_get_string(v)
               : NULL;
}

/* The checks of one study record (sc_study_load()). */
typedef struct sc__check {
    const char *dir; /* where its bundles are: the study's parent directory */
    const sc_metric *m;
    const sc_verify_opts *opts;
    sc_diag *d;
    size_t missing; /* rows whose bundle is not there */
} sc__check;

/* Checks one recorded row against its bundle, recomputed into row (the caller frees its
   bundle and samples); problems into x->d. */
static void sc__verify_row(json_object *o, size_t i, sc__check *x, sc_study_row *out)
{
    const char *name = sc__jstr(o, "bundle"), *verdict = sc__jstr(o, "verdict");
    char path[4096 + 260];
    json_object *v;
    sc_study_row row = {.label = ""};

    if (!verdict) {
        sc_diag_addf(x->d, "row %zu: no verdict recorded", i + 1);
        return;
    }
    if (!name) {
        if (strcmp(verdict, "no bundle") != 0)
            sc_diag_addf(x->d, "row %zu: verdict %s without a bundle", i + 1, verdict);
        return;
    }
    if (!sc__name_ok(name)) {
        sc_diag_addf(x->d, "row %zu: the bundle name is not one name beside the study", i + 1);
        return;
    }
    snprintf(path, sizeof(path), "%s/%s", x->dir, name);
    sc_study_read_row(&row, path, NULL, x->m, x->opts);
    if (strcmp(row.verdict, "no bundle") == 0) {
        /* One line for a bundle that is not there, not a line per figure it would give. */
        sc_diag_addf(x->d, "row %zu: %s: %s (valid: the record beside the bundles it names)", i + 1,
                     name, row.why);
        x->missing++;
        goto out;
    }
    if (strcmp(row.verdict, verdict) != 0)
        sc_diag_addf(x->d, "row %zu: %s: recorded verdict %s, the bundle's is %s", i + 1, name,
                     verdict, row.verdict);
    if (strcmp(row.verdict, "unverified") == 0)
        sc_diag_addf(x->d, "row %zu: %s: %s", i + 1, name, row.why);
    bool has = json_object_object_get_ex(o, "median", &v);
    double recorded = has ? json_object_get_double(v) : 0;
    if (has != (row.n > 0) ||
        (row.n && fabs(recorded - row.st.median) > 1e-9 * fabs(row.st.median)))
        sc_diag_addf(x->d, "row %zu: %s: recorded median %s, the bundle's runs give %.6g", i + 1,
                     name, has ? json_object_get_string(v) : "none", row.n ? row.st.median : 0.0);
out:
    *out = row;
}

/* Whether a and b hold the same value at key (both missing counts as the same). */
static bool sc__same(json_object *a, json_object *b, const char *key)
{
    json_object *va = NULL, *vb = NULL;

    json_object_object_get_ex(a, key, &va);
    json_object_object_get_ex(b, key, &vb);
    return json_object_equal(va, vb);
}

/* The study's own card.yaml, a study card; NULL (a problem said why) otherwise. */
static sc_card *sc__card(sc_bundle *b, sc_diag *d)
{
    sc_card *card = sc_card_new();
    char *text = NULL;
    size_t len = 0;
    sc_diag parse;

    sc_diag_init(&parse);
    if (!card || sc_bundle_read(b, "card.yaml", &text, &len) < 0 ||
        sc_card_parse(card, text, len, "card.yaml", &parse) < 0 || !card->n_steps) {
        sc_diag_addf(d,
                     "card.yaml: %s: the rows' declared differences cannot be checked "
                     "(valid: the study's card, as written by streamcard run)",
                     !card   ? strerror(ENOMEM)
                     : !text ? "missing"
                             : "not a study card");
        sc_card_free(card);
        card = NULL;
    }
    sc_diag_free(&parse);
    free(text);
    return card;
}

/*
 * The rows' declarations held to the study's own card.yaml: each row's label, kind, steps
 * and declared differences are what the card's steps give, so a record whose declarations
 * were edited fails even re-sealed (compare --study trusts them).
 */
static void sc__verify_declarations(const sc_card *card, json_object *rows, sc_diag *d)
{
    size_t n = json_object_array_length(rows);

    for (size_t i = 0; i < n; i++) {
        json_object *o = json_object_array_get_idx(rows, i), *want = json_object_new_object();
        char *label = sc_ablation_label(card, i);
        if (!want || !label) {
            sc_diag_addf(d, "study.json: %s", strerror(ENOMEM));
            json_object_put(want);
            free(label);
            break;
        }
        json_object_object_add(want, "label", json_object_new_string(label));
        sc_study_row_steps(want, card, i);
        bool same = true;
        json_object_object_foreach(want, key, val)
        {
            (void)val;
            same = same && sc__same(o, want, key);
        }
        if (!same)
            sc_diag_addf(d,
                         "row %zu: its label, steps or declared differences are not what "
                         "the study's card.yaml gives row %zu (%s)",
                         i + 1, i + 1, label);
        json_object_put(want);
        free(label);
    }
}

/* The same value, numbers within a relative 1e-9 (the record's printed doubles): objects
   key by key, anything else exactly. A number that is not finite is never the same. */
static bool sc__close(json_object *a, json_object *b)
{
    bool na = json_object_is_type(a, json_type_double) || json_object_is_type(a, json_type_int);
    bool nb = json_object_is_type(b, json_type_double) || json_object_is_type(b, json_type_int);

    if (!a || !b)
        return a == b;
    if (na || nb) {
        double x = json_object_get_double(a), y = json_object_get_double(b);
        return na && nb && isfinite(x) && isfinite(y) &&
               fabs(x - y) <= 1e-9 * fmax(fabs(x), fabs(y)) + 1e-12;
    }
    if (!json_object_is_type(a, json_object_get_type(b)))
        return false;
    if (!json_object_is_type(a, json_type_object))
        return json_object_equal(a, b);
    if (json_object_object_length(a) != json_object_object_length(b))
        return false;
    json_object_object_foreach(a, key, va)
    {
        json_object *vb = NULL;
        if (!json_object_object_get_ex(b, key, &vb) || !sc__close(va, vb))
            return false;
    }
    return true;
}

/*
 * Every figure the record draws, recomputed from the rows' bundles (got): each row's runs
 * and interval and its comparisons with the baseline and the row before (the median has
 * its own line in sc__verify_row()). The page and compare --study show these, so a record
 * edited to narrow an interval or turn a verdict fails even re-sealed.
 */
static void sc__verify_figures(const sc_card *card, const sc_metric *m, json_object *rows,
                               const sc_study_row *got, sc_diag *d)
{
    static const char *const keys[] = {"runs", "ci_low", "ci_high", "vs_baseline", "vs_previous"};
    size_t n = json_object_array_length(rows);
    sc_study_cmp(*cmp)[2] = calloc(n ? n : 1, sizeof(*cmp));

    if (!cmp) {
        sc_diag_addf(d, "study.json: %s", strerror(ENOMEM));
        return;
    }
    sc_study_compare_all(card, m, got, n, cmp);
    for (size_t i = 0; i < n; i++) {
        json_object *o = json_object_array_get_idx(rows, i), *want = json_object_new_object();
        sc_study_row_figures(want, got, i, cmp);
        for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
            json_object *a = NULL, *b = NULL;
            json_object_object_get_ex(o, keys[k], &a);
            json_object_object_get_ex(want, keys[k], &b);
            if (!sc__close(a, b)) {
                sc_diag_addf(d, "row %zu: recorded %s %s, the bundles' runs give %s", i + 1,
                             keys[k], a ? json_object_to_json_string(a) : "none",
                             b ? json_object_to_json_string(b) : "none");
                break;
            }
        }
        json_object_put(want);
    }
    free(cmp);
}

/* The record's unit, direction and noise bound are the metric registry's and the
   statistics' own (the page shows the registry's; a record that says otherwise is not the
   one streamcard wrote). */
static void sc__verify_metric(json_object *root, const sc_metric *m, sc_diag *d)
{
    const char *unit = sc__jstr(root, "unit"), *better = sc__jstr(root, "better");
    const char *want = m->better == SC_METRIC_HIGHER ? "higher" : "lower";
    json_object *bound = NULL;

    if (!unit || strcmp(unit, m->unit) != 0 || !better || strcmp(better, want) != 0)
        sc_diag_addf(d,
                     "study.json: metric %s in %s, %s is better, but the record says unit %s, "
                     "better %s (valid: the metric registry's, streamcard compare --help)",
                     m->name, m->unit, want, unit ? unit : "(none)", better ? better : "(none)");
    json_object_object_get_ex(root, "noise_bound_pct", &bound);
    if (!json_object_is_type(bound, json_type_double) ||
        json_object_get_double(bound) != SC_STATS_NOISE_BOUND)
        sc_diag_addf(d, "study.json: noise_bound_pct %s, the statistics' is %g",
                     bound ? json_object_to_json_string(bound) : "(none)", SC_STATS_NOISE_BOUND);
}

/* The rows of a record that parsed, each against its bundle; then the figures and the
   declarations against the card. */
static void sc__verify_rows(sc_bundle *b, const char *path, const sc_verify_opts *opts,
                            json_object *rows, const sc_metric *m, sc_diag *problems)
{
    char dir[4096];
    size_t n = json_object_array_length(rows), named = 0;
    sc_study_row *got = calloc(n ? n : 1, sizeof(*got));
    sc_card *card = sc__card(b, problems);
    sc_diag found;

    sc_diag_init(&found);
    sc__dirname(path, dir, sizeof(dir));
    sc__check x = {.dir = dir, .m = m, .opts = opts, .d = &found};
    for (size_t i = 0; got && i < n; i++) {
        json_object *o = json_object_array_get_idx(rows, i);
        named += sc__jstr(o, "bundle") != NULL;
        sc__verify_row(o, i, &x, &got[i]);
    }
    /* A record moved away from its bundles: one line, not one per row. */
    if (got && named > 1 && x.missing == named)
        sc_diag_addf(problems,
                     "none of the %zu bundles the study names is in %s (valid: the record "
                     "beside the bundles it names)",
                     named, dir);
    else if (!got || sc_diag_merge(problems, &found) < 0)
        sc_diag_addf(problems, "study.json: %s", strerror(ENOMEM));
    if (card && n != 2 * card->n_steps) {
        sc_diag_addf(problems, "study.json: %zu rows, its card.yaml's %zu steps make %zu", n,
                     card->n_steps, 2 * card->n_steps);
    } else if (card) {
        sc__verify_declarations(card, rows, problems);
        if (got && x.missing == 0)
            sc__verify_figures(card, m, rows, got, problems);
    }
    for (size_t i = 0; got && i < n; i++) {
        free(got[i].bundle);
        free(got[i].x);
    }
    free(got);
    sc_diag_free(&found);
    sc_card_free(card);
}

/* The metric study.json names: the registry's, or one the study's card.yaml declares. */
static int sc__record_metric(sc_bundle *b, const char *name, sc_metric *m)
{
    sc_diag quiet; /* a card that cannot be read is said where the rows are checked */
    sc_card *card;
    int rc;

    if (!name || sc_metric_lookup(name, m) == 0)
        return name ? 0 : -EINVAL;
    sc_diag_init(&quiet);
    card = sc__card(b, &quiet);
    rc = card ? sc_metric_lookup_card(card, name, m) : -EINVAL;
    sc_card_free(card);
    sc_diag_free(&quiet);
    return rc;
}

int sc_study_record_metric(const char *path, const char *name, sc_metric *m)
{
    sc_bundle b;
    int rc;

    if (sc_bundle_open(&b, path) < 0)
        return -ENOENT;
    rc = sc__record_metric(&b, name, m);
    sc_bundle_close(&b);
    return rc;
}

int sc_study_load(const char *path, const sc_verify_opts *opts, sc_diag *problems,
                  json_object **record)
{
    sc_bundle b;
    char *text = NULL;
    json_object *root = NULL, *rows;
    sc_metric m;

    *record = NULL;
    if (sc_bundle_open(&b, path) < 0)
        return -ENOENT;
    sc_bundle_check_sums(&b, problems);
    if (sc_bundle_read(&b, "study.json", &text, NULL) < 0 || !(root = json_tokener_parse(text)) ||
        !json_object_object_get_ex(root, "rows", &rows) ||
        !json_object_is_type(rows, json_type_array) || !sc__jstr(root, "metric") ||
        sc__record_metric(&b, sc__jstr(root, "metric"), &m) < 0 ||
        json_object_array_length(rows) > 2 * SC_ABLATION_MAX_STEPS) {
        sc_diag_addf(problems, "study.json: not a study record (valid: rows and a metric)");
        json_object_put(root);
        root = NULL;
    } else {
        char where[320];
        if (!sc_num_all_finite(root, where, sizeof(where)))
            sc_diag_addf(problems,
                         "study.json: %s, not a finite number (valid: finite numbers "
                         "only)",
                         where);
        sc__verify_metric(root, &m, problems);
        sc__verify_rows(&b, path, opts, rows, &m, problems);
    }
    free(text);
    sc_bundle_close(&b);
    *record = root;
    return 0;
}

json_object *sc_study_row_of(json_object *record, const char *study, const char *bundle)
{
    char dir[4096], path[4096 + 260];
    json_object *rows;
    struct stat want, st;

    if (!record || stat(bundle, &want) < 0 || !S_ISDIR(want.st_mode) ||
        !json_object_object_get_ex(record, "rows", &rows) ||
        !json_object_is_type(rows, json_type_array))
        return NULL;
    sc__dirname(study, dir, sizeof(dir));
    for (size_t i = 0; i < json_object_array_length(rows); i++) {
        json_object *o = json_object_array_get_idx(rows, i);
        const char *name = sc__jstr(o, "bundle");
        if (!name || !sc__name_ok(name))
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, name);
        if (stat(path, &st) == 0 && st.st_dev == want.st_dev && st.st_ino == want.st_ino)
            return o;
    }
    return NULL;
}
