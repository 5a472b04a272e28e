/*
 * series.c: a card's runs as a series of instances (see sc_series.h), and sc_card_check(),
 * which checks a card as the runs it makes. The rules of one run are card_check.c's; the
 * copies with the sweep's values set are card.c's; nothing here parses the card again.
 */
#include "sc_series.h"
#include "sc_ablation.h"
#include "sc_metric.h"
#include "sc_pair.h"
#include "sc_card_schema.h"
#include "sc_text.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sc_series_free(sc_series *series)
{
    for (size_t i = 0; series->runs && i < series->n; i++) {
        sc_card_free(series->runs[i].card);
        free(series->runs[i].label);
    }
    free(series->runs);
    free(series->variable);
    memset(series, 0, sizeof(*series));
}

/* The value of a run's swept env variable, malloc'd ("" when it has none). */
static char *sc__env_text(const sc_card *run, const char *name)
{
    const char *value = sc_card_env_get(run, name);
    return strdup(value ? value : "");
}

/*
 * Refuses a sweep value that makes the same run as an earlier one: the values' canonical
 * texts go through sc_text_find_repeats() (one hash table), so n values cost about n
 * lookups. A value the card refused was reported already and is skipped.
 */
static int sc__check_repeats(const sc_card *card, const sc_series *s, sc_diag *diag)
{
    sc_card_field field = card->sweep_field;
    char **text = calloc(s->n + 1, sizeof(*text)); /* + 1: never a zero-sized allocation */
    size_t *first = calloc(s->n + 1, sizeof(*first));
    int rc = text && first ? 0 : -ENOMEM;

    for (size_t i = 0; rc == 0 && i < s->n; i++)
        if (s->runs[i].card && !s->runs[i].card->invalid[field] &&
            !(text[i] = field == SC_CF_ENV ? sc__env_text(s->runs[i].card, card->sweep_env)
                                           : sc__card_value_text(s->runs[i].card, field)))
            rc = -ENOMEM;
    if (rc == 0)
        rc = sc_text_find_repeats((const char *const *)text, s->n, first);
    for (size_t i = 0; rc >= 0 && i < s->n; i++) {
        if (first[i] == s->n)
            continue;
        const char *value = card->sweep_values[i], *earlier = card->sweep_values[first[i]];
        const char *name = field == SC_CF_ENV ? card->sweep_env : sc_card_field_name(field);
        if (strcmp(value, earlier) == 0)
            sc_diag_addf(diag, "%s:%d: %s: %s appears twice in the sweep", card->source_name,
                         card->sweep_lines[i], name, value);
        else
            sc_diag_addf(diag, "%s:%d: %s: %s appears twice in the sweep (as %s, value %zu)",
                         card->source_name, card->sweep_lines[i], name, value, earlier,
                         first[i] + 1);
        rc = -EINVAL;
    }
    for (size_t i = 0; text && i < s->n; i++)
        free(text[i]);
    free(text);
    free(first);
    return rc;
}

/*
 * One run per sweep value: the value set in a copy of card, then the run's rules. Values
 * given twice are reported first (the card's own mistake), then each run's problems in the
 * sweep's order, each line once. The base card itself is never run.
 */
static int sc__sweep_runs(const sc_card *card, sc_series *out, sc_diag *diag)
{
    size_t n = card->n_sweep;
    sc_diag *found = calloc(n, sizeof(*found));
    int rc = 0;

    /* An env sweep is named after its variable: "env.OMP_WAIT_POLICY". */
    if (card->sweep_field == SC_CF_ENV) {
        if (asprintf(&out->variable, "env.%s", card->sweep_env) < 0)
            out->variable = NULL;
    } else {
        out->variable = strdup(sc_card_field_name(card->sweep_field));
    }
    if (!found || !out->variable) {
        free(found);
        return -ENOMEM;
    }
    for (size_t i = 0; i < n && rc != -ENOMEM; i++) {
        sc_instance *run = &out->runs[i];
        sc_diag_init(&found[i]);
        run->variant = i;
        run->label = strdup(card->sweep_values[i]);
        int r = sc_card_sweep_instance(card, i, &run->card, &found[i]);
        if (run->card)
            out->n++;
        if (r == 0)
            r = sc__card_check_run(run->card, &found[i]);
        if (!run->label || r == -ENOMEM)
            rc = -ENOMEM;
        else if (r < 0)
            rc = r;
    }
    if (rc != -ENOMEM) {
        int r = sc__check_repeats(card, out, diag);
        if (r < 0)
            rc = r;
    }
    for (size_t i = 0; i < n; i++) {
        if (sc_diag_merge(diag, &found[i]) < 0)
            rc = -ENOMEM;
        sc_diag_free(&found[i]);
    }
    free(found);
    return rc;
}

int sc_series_from_card(const sc_card *card, sc_series *out, sc_diag *diag)
{
    size_t n = card->n_steps   ? 2 * card->n_steps
               : card->against ? 2
               : card->n_sweep ? card->n_sweep
                               : 1;

    sc_metric m;

    memset(out, 0, sizeof(*out));
    /* a study's metric: the registry's, or one of the card's metrics: (read as any name) */
    if (card->study_metric && sc_metric_lookup_card(card, card->study_metric, &m) < 0) {
        sc_diag_addf(diag, "%s:%d: metric: %s", card->source_name, card->study_metric_line,
                     SC_ABLATION_METRIC_INVALID);
        return -EINVAL;
    }
    out->runs = calloc(n, sizeof(*out->runs));
    if (!out->runs)
        return -ENOMEM;
    if (card->n_sweep && !card->source) {
        sc_diag_addf(diag, "%s: a sweep needs a card file", card->source_name);
        return -EINVAL;
    }
    if (card->n_steps && card->against) {
        sc_diag_addf(diag,
                     "%s:%d: against: a study is no pair: its rows are compared with its "
                     "baseline (valid: ablation: or against:, not both)",
                     card->source_name, card->against_line);
        return -EINVAL;
    }
    if (card->against)
        return sc_pair_series(card, out, diag);
    if (card->n_steps)
        return sc_ablation_series(card, out, diag);
    if (card->n_sweep)
        return sc__sweep_runs(card, out, diag);
    out->runs[0].card = sc_card_dup(card);
    if (!out->runs[0].card)
        return -ENOMEM;
    out->n = 1;
    return sc__card_check_run(out->runs[0].card, diag);
}

int sc_card_check(sc_card *card, sc_diag *diag)
{
    sc_series series;

    if (card->study_metric && !card->n_steps) {
        sc_diag_addf(diag,
                     "%s:%d: metric: only a study chooses its metric (valid: with "
                     "ablation: steps; compare takes --metric)",
                     card->source_name, card->study_metric_line);
        return -EINVAL;
    }
    if (!card->n_sweep && !card->n_steps && !card->against)
        return sc__card_check_run(card, diag);
    int rc = sc_series_from_card(card, &series, diag);
    sc_series_free(&series);
    return rc;
}
