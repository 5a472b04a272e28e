/*
 * ablation.c: the series of runs of an ablation study (sc_ablation.h): each row's card is
 * the baseline's copy with its steps applied, their values through the same conversion as
 * the card's own keys (sc__card_assign()). The steps were read by ablation_read.c.
 */
#include "sc_ablation.h"
#include "sc_ablation_read.h"
#include "sc_card_schema.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t sc_ablation_run(size_t n_steps, sc_ablation_kind kind, size_t step)
{
    if (kind == SC_ABLATION_BASELINE || step == 0)
        return 0;
    if (kind == SC_ABLATION_ALONE || step == 1)
        return step;
    return n_steps + step - 1;
}

sc_ablation_kind sc_ablation_kind_of(size_t n_steps, size_t i, size_t *step)
{
    *step = i <= n_steps ? i : i - n_steps + 1;
    return i == 0 ? SC_ABLATION_BASELINE : i <= n_steps ? SC_ABLATION_ALONE : SC_ABLATION_SEQUENCE;
}

bool sc_ablation_step_env(const sc_card_step *step)
{
    for (size_t i = 0; i < step->n_set; i++)
        if (!strncmp(step->set[i].key, "env.", 4))
            return true;
    return step->n_unset > 0;
}

int sc__step_apply(sc_card *card, const sc_card_step *step, sc_diag *diag)
{
    char where[600], full[320];
    int rc = 0;

    for (size_t i = 0; i < step->n_set && rc != -ENOMEM; i++) {
        const char *key = step->set[i].key, *value = step->set[i].value;
        if (step->name)
            snprintf(where, sizeof(where), "%s:%d (step \"%s\")", card->source_name,
                     step->set_lines[i], step->name);
        else
            snprintf(where, sizeof(where), "%s:%d (against)", card->source_name,
                     step->set_lines[i]);
        int r;
        if (!strncmp(key, "env.", 4)) {
            r = sc_card_env_set(card, key + 4, value);
            for (size_t u = 0; r == 0 && u < card->n_env_unset; u++)
                if (!strcmp(card->env_unset[u], key + 4))
                    card->env_unset[u][0] = '\0'; /* set again: no longer removed */
        } else {
            snprintf(full, sizeof(full), "experiment.%s", key);
            const sc__card_key *k = sc__card_key_by_path(full);
            r = k ? sc__card_assign(card, k, value, where, diag) : -EINVAL;
            if (k && r == 0) {
                card->present[k->field] = true;
                card->line[k->field] = step->set_lines[i];
            }
        }
        if (r < 0)
            rc = r;
    }
    for (size_t i = 0; i < step->n_unset && rc != -ENOMEM; i++)
        if (sc__ablation_unset_env(card, step->unset[i]) < 0)
            rc = -ENOMEM;
    return rc;
}

/* The card of series run i: the baseline's copy, its steps applied, named and checked. */
static int sc__row(const sc_card *card, size_t i, sc_card **out, sc_diag *diag)
{
    size_t step;
    sc_ablation_kind kind = sc_ablation_kind_of(card->n_steps, i, &step);
    sc_card *c = *out = sc_card_dup(card);
    int rc = 0;

    if (!c)
        return -ENOMEM;
    free(c->source); /* its card.yaml is the resolved card of this row */
    c->source = NULL;
    c->source_len = 0;
    c->overridden = true;
    for (size_t s = kind == SC_ABLATION_SEQUENCE ? 1 : step; s >= 1 && s <= step && rc == 0; s++)
        rc = sc__step_apply(c, &card->steps[s - 1], diag);
    /* An unset that a later step set again is no unset. */
    size_t kept = 0;
    for (size_t u = 0; u < c->n_env_unset; u++) {
        if (c->env_unset[u][0])
            c->env_unset[kept++] = c->env_unset[u];
        else
            free(c->env_unset[u]);
    }
    c->n_env_unset = kept;
    free(c->name_suffix);
    if (kind == SC_ABLATION_BASELINE)
        c->name_suffix = strdup("_baseline");
    else if (asprintf(&c->name_suffix, "_%s-%zu", kind == SC_ABLATION_ALONE ? "alone" : "seq",
                      step) < 0)
        c->name_suffix = NULL;
    if (!c->name_suffix)
        return -ENOMEM;
    return rc < 0 ? rc : sc__card_check_run(c, diag);
}

int sc__series_add(sc_series *out, size_t i, char *label, const sc_card *card,
                   int (*make)(const sc_card *card, size_t i, sc_card **run, sc_diag *diag),
                   sc_diag *diag)
{
    sc_instance *run = &out->runs[i];
    sc_diag found;
    int rc;

    sc_diag_init(&found);
    run->variant = i;
    run->label = label;
    rc = make(card, i, &run->card, &found);
    if (run->card)
        out->n++;
    if (!run->label || rc == -ENOMEM || sc_diag_merge(diag, &found) < 0)
        rc = -ENOMEM;
    sc_diag_free(&found);
    return rc;
}

char *sc_ablation_label(const sc_card *card, size_t i)
{
    size_t step;
    char *label = NULL;

    switch (sc_ablation_kind_of(card->n_steps, i, &step)) {
    case SC_ABLATION_BASELINE:
        return strdup("baseline");
    case SC_ABLATION_ALONE:
        return asprintf(&label, "alone %zu: %s", step, card->steps[step - 1].name) < 0 ? NULL
                                                                                       : label;
    case SC_ABLATION_SEQUENCE:
        return asprintf(&label, "seq 1-%zu: + %s", step, card->steps[step - 1].name) < 0 ? NULL
                                                                                         : label;
    }
    return NULL;
}

int sc_ablation_series(const sc_card *card, sc_series *out, sc_diag *diag)
{
    size_t n = card->n_steps ? 2 * card->n_steps : 1;
    int rc = 0;

    if (card->n_sweep) {
        sc_diag_addf(diag,
                     "%s:%d: ablation: a study sweeps nothing: its steps are its "
                     "variables (valid: a sweep or an ablation, not both)",
                     card->source_name, card->ablation_line);
        return -EINVAL;
    }
    out->variable = strdup("step");
    if (!out->variable)
        return -ENOMEM;
    for (size_t i = 0; i < n && rc != -ENOMEM; i++) {
        int r = sc__series_add(out, i, sc_ablation_label(card, i), card, sc__row, diag);
        if (r < 0 && rc != -ENOMEM)
            rc = r;
    }
    return rc;
}
