/*
 * pair_card.c: the card's side of a paired run (sc_pair.h): the series of its two sides, and
 * the against: that `run A --against B` makes of two cards. The change of side B goes
 * through the keys' own conversion (sc__step_apply(), as a study's step), never parsed again.
 */
#include "sc_pair.h"
#include "sc_ablation_read.h"
#include "sc_card_schema.h"
#include "sc_metric.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *sc_pair_key(const sc_card *card)
{
    return card->against && card->against->n_set ? card->against->set[0].key : NULL;
}

char *sc_pair_card_yaml(const sc_card *card, const sc_card *side_a)
{
    sc_card view;

    if (card->source && !card->overridden)
        return strdup(card->source);
    view = *side_a; /* read only: side A's resolved keys with the pair's against: */
    view.against = card->against;
    return sc_card_to_yaml(&view);
}

/* The rules of against: itself: one key at most, no platform key, no sweep. */
static int sc__against_check(const sc_card *card, sc_diag *diag)
{
    const sc_card_step *s = card->against;

    if (card->n_sweep) {
        sc_diag_addf(diag,
                     "%s:%d: against: a pair sweeps nothing: its one variable is what side B "
                     "changes (valid: a sweep or against:, not both)",
                     card->source_name, card->against_line);
        return -EINVAL;
    }
    if (s->n_set > 1) {
        char keys[512];
        size_t used = 0;
        for (size_t i = 0; i < s->n_set && used < sizeof(keys); i++)
            used += (size_t)snprintf(keys + used, sizeof(keys) - used, "%s%s", i ? ", " : "",
                                     s->set[i].key);
        sc_diag_addf(diag,
                     "%s:%d: against: changes %zu keys (%s): a pair answers one question (valid: "
                     "one key a sweep may vary, or against: {} for an A/A pair)",
                     card->source_name, card->against_line, s->n_set, keys);
        return -EINVAL;
    }
    if (card->prefetch != SC_PREFETCH_UNCHANGED ||
        (card->governor && strcmp(card->governor, "unchanged") != 0)) {
        sc_diag_addf(diag,
                     "%s:%d: against: a pair's sides are bundles of their own inside the job's, "
                     "without the plugin's record of the platform it set (valid: prefetch and "
                     "governor unchanged in a pair card)",
                     card->source_name, card->against_line);
        return -EINVAL;
    }
    if (s->n_set && (!strcmp(s->set[0].key, "prefetch") || !strcmp(s->set[0].key, "governor"))) {
        sc_diag_addf(diag,
                     "%s:%d: against: %s: the sides take turns in one job, whose platform the "
                     "plugin sets once (valid: a sweep of %s with --submit, one job per value)",
                     card->source_name, s->set_lines[0], s->set[0].key, s->set[0].key);
        return -EINVAL;
    }
    return 0;
}

/* Side i of the pair: A as written (its card.yaml the resolved card, without against:), or
   B with the change applied and named after it. */
static int sc__side(const sc_card *card, size_t i, sc_card **out, sc_diag *diag)
{
    sc_card *c = *out = sc_card_dup(card); /* a copy holds no against: */
    const char *key = sc_pair_key(card);
    int rc = 0;

    if (!c)
        return -ENOMEM;
    c->overridden = true;
    if (i == 1 && key) {
        rc = sc__step_apply(c, card->against, diag);
        free(c->name_suffix);
        if (asprintf(&c->name_suffix, "_%s-%s", strncmp(key, "env.", 4) ? key : key + 4,
                     card->against->set[0].value) < 0)
            c->name_suffix = NULL;
        if (!c->name_suffix)
            return -ENOMEM;
    }
    return rc < 0 ? rc : sc__card_check_run(c, diag);
}

int sc_pair_series(const sc_card *card, sc_series *out, sc_diag *diag)
{
    static const char *const labels[] = {"A", "B"};
    const char *key = sc_pair_key(card);
    int rc = sc__against_check(card, diag);

    if (rc < 0)
        return rc;
    out->paired = true;
    out->variable = strdup(key ? key : SC_PAIR_NONE);
    if (!out->variable)
        return -ENOMEM;
    for (size_t i = 0; i < 2 && rc != -ENOMEM; i++) {
        int r = sc__series_add(out, i, strdup(labels[i]), card, sc__side, diag);
        if (r < 0 && rc != -ENOMEM)
            rc = r;
    }
    return rc;
}

/* Whether field f of a card counts as a difference between two cards: not its words. */
static bool sc__counts(sc_card_field f)
{
    return f != SC_CF_QUESTION && f != SC_CF_RUN_NAME && f != SC_CF_CONTROLLED && f != SC_CF_ENV;
}

/* Adds "key=value" to the step (the pair's one change). 0 or -ENOMEM. */
static int sc__step_set(sc_card_step *s, const char *key, const char *value)
{
    s->set = calloc(1, sizeof(*s->set));
    s->set_lines = calloc(1, sizeof(*s->set_lines));
    if (!s->set || !s->set_lines)
        return -ENOMEM;
    s->set[0].key = strdup(key);
    s->set[0].value = strdup(value);
    if (!s->set[0].key || !s->set[0].value)
        return -ENOMEM;
    s->n_set = 1;
    return 0;
}

/* The differences of b against a, both checked copies: keys (their canonical texts) and env
   variables, into names (", "-separated); the one change it would take into *key, *value
   (malloc'd; NULL when none). Returns how many differ, or -ENOMEM. */
static int sc__differences(const sc_card *a, const sc_card *b, char *names, size_t len, char **key,
                           char **value, bool *fixed)
{
    int n = 0;
    size_t used = 0;

    *names = '\0';
    *fixed = false;
    for (int f = 0; f < SC_CF_COUNT; f++) {
        if (!sc__counts((sc_card_field)f))
            continue;
        char *ta = sc__card_value_text(a, (sc_card_field)f);
        char *tb = sc__card_value_text(b, (sc_card_field)f);
        if (!ta || !tb) {
            free(ta);
            free(tb);
            return -ENOMEM;
        }
        if (strcmp(ta, tb) != 0) {
            const sc__card_key *k = &sc__card_keys[f];
            const char *path = k->path + strlen("experiment.");
            used += (size_t)snprintf(names + used, used < len ? len - used : 0, "%s%s",
                                     n ? ", " : "", path);
            *fixed |= !sc__card_key_sweepable(k);
            if (!n++) {
                *key = strdup(path);
                *value = strdup(tb);
            }
        }
        free(ta);
        free(tb);
    }
    /* env: a variable set in B to another value, or only in B, is one difference; one set
       only in A cannot be said with against: (it sets, it does not unset) */
    for (size_t i = 0; i < b->n_env; i++) {
        const char *va = sc_card_env_get(a, b->env[i].key);
        if (va && !strcmp(va, b->env[i].value))
            continue;
        used += (size_t)snprintf(names + used, used < len ? len - used : 0, "%senv.%s",
                                 n ? ", " : "", b->env[i].key);
        if (!n++) {
            if (asprintf(key, "env.%s", b->env[i].key) < 0)
                *key = NULL;
            *value = strdup(b->env[i].value);
        }
    }
    for (size_t i = 0; i < a->n_env; i++)
        if (!sc_card_env_get(b, a->env[i].key)) {
            used += (size_t)snprintf(names + used, used < len ? len - used : 0,
                                     "%senv.%s (not set in B)", n ? ", " : "", a->env[i].key);
            n++;
            *fixed = true;
        }
    return n;
}

/* The first of the same declarations whose primary: differs, said into why: true when one
   does (the pair's one verdict is by the primary metric). */
static bool sc__primary_differs(const sc_metric *ma, size_t na, const sc_metric *mb, size_t nb,
                                char *why, size_t len)
{
    sc_metric other;

    for (size_t i = 0; i < na; i++)
        if (sc_metric_find(mb, nb, ma[i].name, &other) == 0 && other.primary != ma[i].primary) {
            snprintf(why, len, "metric %.31s: primary: true in %s, not in %s", ma[i].name,
                     ma[i].primary ? "A" : "B", ma[i].primary ? "B" : "A");
            return true;
        }
    return false;
}

/* Whether checked cards a and b declare the same metrics (sc_metric_same_declared(), and the
   same primary): else a line in diag naming the first difference. Side B is made of A's
   card, so without this B's own declarations would be dropped unsaid. */
static bool sc__same_metrics(const sc_card *a, const sc_card *b, sc_diag *diag)
{
    sc_metric ma[SC_CARD_MAX_METRICS], mb[SC_CARD_MAX_METRICS];
    size_t na = sc_metric_declared(a, ma, SC_CARD_MAX_METRICS);
    size_t nb = sc_metric_declared(b, mb, SC_CARD_MAX_METRICS);
    char why[400];

    if (sc_metric_same_declared(ma, na, mb, nb, why, sizeof(why)) &&
        !sc__primary_differs(ma, na, mb, nb, why, sizeof(why)))
        return true;
    sc_diag_addf(diag,
                 "--against %s: declares other metrics than %s: %s (valid: cards whose metrics: "
                 "have the same names, units, directions and primary)",
                 b->source_name, a->source_name, why);
    return false;
}

int sc_pair_against(sc_card *a, const sc_card *b, sc_diag *diag)
{
    sc_card *ca = sc_card_dup(a), *cb = sc_card_dup(b);
    char names[1024], *key = NULL, *value = NULL;
    sc_diag ignored;
    bool fixed = false;
    int n, rc = -ENOMEM;

    sc_diag_init(&ignored);
    if (!ca || !cb)
        goto out;
    /* Checked copies: defaults applied, so threads that fill cpu_list in one card and are
       written out in the other are the same. A card's own problems are the run's to say. */
    if (sc__card_check_run(ca, &ignored) == -ENOMEM || sc__card_check_run(cb, &ignored) == -ENOMEM)
        goto out;
    /* The figures both sides are judged by: the same declarations, as compare requires. */
    if (!sc__same_metrics(ca, cb, diag)) {
        rc = -EINVAL;
        goto out;
    }
    n = sc__differences(ca, cb, names, sizeof(names), &key, &value, &fixed);
    if (n < 0)
        goto out;
    rc = -EINVAL;
    if (fixed) {
        sc_diag_addf(diag,
                     "--against %s: differs from %s in %s, which a pair cannot vary (valid: "
                     "cards whose runs, nodes and workload are the same, and whose env differs "
                     "by a variable B sets)",
                     b->source_name, a->source_name, names);
    } else if (n > 1) {
        sc_diag_addf(diag,
                     "--against %s: differs from %s in %d keys (%s): a pair answers one question "
                     "(valid: cards that differ in one key, as a sweep's values do)",
                     b->source_name, a->source_name, n, names);
    } else if (n == 1 && (!key || !value)) {
        rc = -ENOMEM;
    } else {
        rc = 0;
        a->against = calloc(1, sizeof(*a->against));
        if (!a->against || (n == 1 && sc__step_set(a->against, key, value) < 0))
            rc = -ENOMEM;
        if (rc == 0)
            rc = sc__against_check(a, diag);
    }
out:
    sc_diag_free(&ignored);
    sc_card_free(ca);
    sc_card_free(cb);
    free(key);
    free(value);
    return rc;
}
