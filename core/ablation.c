/*
 * ablation.c: reading a card's ablation: and metric: (bounded by the card's limits, like
 * every key; unknown keys refused) and making the study's series of runs (sc_ablation.h).
 * The values of a step go through the same conversion as the card's own keys
 * (sc__card_assign()), when the step is applied to a row's card.
 */
#include "sc_ablation.h"
#include "sc_ablation_read.h"
#include "sc_card_schema.h"
#include "sc_metric.h"
#include "sc_text.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int sc__line(const yaml_node_t *node)
{
    return (int)node->start_mark.line + 1;
}

static const char *sc__scalar(const yaml_node_t *node)
{
    return (const char *)node->data.scalar.value;
}

/* A scalar with text and no NUL byte. */
static bool sc__text_ok(const yaml_node_t *n)
{
    return n->type == YAML_SCALAR_NODE && n->data.scalar.length > 0 &&
           strlen(sc__scalar(n)) == n->data.scalar.length;
}

static void sc__step_free(sc_card_step *s)
{
    free(s->name);
    for (size_t i = 0; i < s->n_set; i++) {
        free(s->set[i].key);
        free(s->set[i].value);
    }
    free(s->set);
    free(s->set_lines);
    for (size_t i = 0; i < s->n_unset; i++)
        free(s->unset[i]);
    free(s->unset);
}

void sc__ablation_free(sc_card *card)
{
    for (size_t i = 0; i < card->n_steps; i++)
        sc__step_free(&card->steps[i]);
    free(card->steps);
    card->steps = NULL;
    card->n_steps = 0;
    free(card->study_metric);
    card->study_metric = NULL;
    for (size_t i = 0; i < card->n_env_unset; i++)
        free(card->env_unset[i]);
    free(card->env_unset);
    card->env_unset = NULL;
    card->n_env_unset = 0;
}

int sc__ablation_unset_env(sc_card *card, const char *name)
{
    for (size_t i = 0; i < card->n_env; i++) {
        if (strcmp(card->env[i].key, name) != 0)
            continue;
        free(card->env[i].key);
        free(card->env[i].value);
        memmove(&card->env[i], &card->env[i + 1], (card->n_env - i - 1) * sizeof(*card->env));
        card->n_env--;
        break;
    }
    for (size_t i = 0; i < card->n_env_unset; i++)
        if (!strcmp(card->env_unset[i], name))
            return 0;
    char **grown = realloc(card->env_unset, (card->n_env_unset + 1) * sizeof(*grown));
    if (!grown)
        return -ENOMEM;
    card->env_unset = grown;
    if (!(grown[card->n_env_unset] = strdup(name)))
        return -ENOMEM;
    card->n_env_unset++;
    return 0;
}

/* The reader's state for one ablation: list. */
typedef struct sc__abl_reader {
    yaml_document_t *doc;
    sc_card_step *step;
    const char *name;
    sc_diag *diag;
    int errors;
} sc__abl_reader;

static void sc__abl_error(sc__abl_reader *r, const yaml_node_t *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void sc__abl_error(sc__abl_reader *r, const yaml_node_t *n, const char *fmt, ...)
{
    char msg[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    sc_diag_addf(r->diag, "%s:%d: %s", r->name, sc__line(n), msg);
    r->errors++;
}

static void sc__abl_add_set(sc__abl_reader *r, const char *key, yaml_node_t *v)
{
    sc_card_step *s = r->step;
    sc_card_kv *grown = realloc(s->set, (s->n_set + 1) * sizeof(*grown));
    int *lines = grown ? realloc(s->set_lines, (s->n_set + 1) * sizeof(*lines)) : NULL;

    if (grown)
        s->set = grown;
    if (lines)
        s->set_lines = lines;
    if (!grown || !lines) {
        r->errors++;
        return;
    }
    grown[s->n_set].key = strdup(key);
    grown[s->n_set].value = strdup(sc__scalar(v));
    lines[s->n_set] = sc__line(v);
    if (!grown[s->n_set].key || !grown[s->n_set].value) {
        free(grown[s->n_set].key);
        free(grown[s->n_set].value);
        r->errors++;
        return;
    }
    s->n_set++;
}

/* set: {KEY: value, expect: {...}, env: {NAME: value}}: single values only. */
static void sc__abl_read_set(sc__abl_reader *r, yaml_node_t *map, const char *prefix)
{
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = yaml_document_get_node(r->doc, p->key);
        yaml_node_t *v = yaml_document_get_node(r->doc, p->value);
        char path[300];
        if (!sc__text_ok(k)) {
            sc__abl_error(r, k, "ablation: set: keys must be names");
            continue;
        }
        snprintf(path, sizeof(path), "%s%s", prefix, sc__scalar(k));
        bool env = !strcmp(prefix, "env.");
        if (!*prefix && (!strcmp(path, "env") || !strcmp(path, "expect")) &&
            v->type == YAML_MAPPING_NODE) {
            sc__abl_read_set(r, v, !strcmp(path, "env") ? "env." : "expect.");
            continue;
        }
        char full[320];
        snprintf(full, sizeof(full), "experiment.%s", path);
        const sc__card_key *key = env ? NULL : sc__card_key_by_path(full);
        if (!env && !key) {
            sc__abl_error(r, k,
                          "ablation: set: unknown key \"%s\" (valid: a card key under "
                          "experiment, expect: {...} or env: {NAME: value})",
                          path);
            continue;
        }
        if (key && !sc__card_key_sweepable(key)) {
            sc__abl_error(r, k,
                          "ablation: set: %s cannot be a step (valid: keys a sweep may "
                          "vary, such as threads, pool_threads, governor, env)",
                          path);
            continue;
        }
        if (v->type != YAML_SCALAR_NODE || strlen(sc__scalar(v)) != v->data.scalar.length) {
            sc__abl_error(r, v, "ablation: set: %s: expected a single value", path);
            continue;
        }
        sc__abl_add_set(r, path, v);
    }
}

/* unset: [NAME, ...]: environment variables the step removes. */
static void sc__abl_read_unset(sc__abl_reader *r, yaml_node_t *seq)
{
    sc_card_step *s = r->step;
    size_t n = (size_t)(seq->data.sequence.items.top - seq->data.sequence.items.start);

    s->unset = calloc(n + 1, sizeof(*s->unset));
    if (!s->unset) {
        r->errors++;
        return;
    }
    for (yaml_node_item_t *it = seq->data.sequence.items.start; it < seq->data.sequence.items.top;
         it++) {
        yaml_node_t *v = yaml_document_get_node(r->doc, *it);
        if (!sc__text_ok(v)) {
            sc__abl_error(r, v, "ablation: unset: entries must be variable names");
            continue;
        }
        if (!(s->unset[s->n_unset] = strdup(sc__scalar(v)))) {
            r->errors++;
            return;
        }
        s->n_unset++;
    }
}

/* One step: {name: ..., set: {...}, unset: [...]}; name and a change required. */
static void sc__abl_read_step(sc__abl_reader *r, yaml_node_t *map)
{
    if (map->type != YAML_MAPPING_NODE) {
        sc__abl_error(r, map,
                      "ablation: a step is a mapping (valid: - name: ...; set: {...}; "
                      "unset: [...])");
        return;
    }
    r->step->line = sc__line(map);
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = yaml_document_get_node(r->doc, p->key);
        yaml_node_t *v = yaml_document_get_node(r->doc, p->value);
        const char *key = k->type == YAML_SCALAR_NODE ? sc__scalar(k) : "";
        if (!strcmp(key, "name") && sc__text_ok(v) && !r->step->name) {
            if (!(r->step->name = strdup(sc__scalar(v))))
                r->errors++;
        } else if (!strcmp(key, "set") && v->type == YAML_MAPPING_NODE && !r->step->n_set) {
            sc__abl_read_set(r, v, "");
        } else if (!strcmp(key, "unset") && v->type == YAML_SEQUENCE_NODE && !r->step->unset) {
            sc__abl_read_unset(r, v);
        } else if (!strcmp(key, "name") || !strcmp(key, "set") || !strcmp(key, "unset")) {
            sc__abl_error(r, k, "ablation: %s: expected %s, once", key,
                          !strcmp(key, "name")  ? "a text"
                          : !strcmp(key, "set") ? "a mapping of card keys"
                                                : "a list of variable names");
        } else {
            sc__abl_error(r, k, "ablation: unknown key \"%s\" in a step (valid: name, set, unset)",
                          key);
        }
    }
    if (!r->step->name)
        sc__abl_error(r, map, "ablation: a step without a name (valid: name: pool = workers)");
    else if (!r->step->n_set && !r->step->n_unset)
        sc__abl_error(r, map,
                      "ablation: step \"%s\" changes nothing (valid: set: {...} or "
                      "unset: [...])",
                      r->step->name);
}

/* Two steps of one name would make two rows no one can tell apart. */
static void sc__abl_check_names(sc__abl_reader *r, sc_card *card)
{
    const char **names = calloc(card->n_steps + 1, sizeof(*names));
    size_t *first = calloc(card->n_steps + 1, sizeof(*first));

    for (size_t i = 0; names && i < card->n_steps; i++)
        names[i] = card->steps[i].name ? card->steps[i].name : "";
    if (!names || !first || sc_text_find_repeats(names, card->n_steps, first) < 0) {
        r->errors++;
    } else {
        for (size_t i = 0; i < card->n_steps; i++)
            if (first[i] != card->n_steps && *names[i]) {
                sc_diag_addf(r->diag,
                             "%s:%d: ablation: step \"%s\" is named twice (first on "
                             "line %d)",
                             r->name, card->steps[i].line, names[i], card->steps[first[i]].line);
                r->errors++;
            }
    }
    free(names);
    free(first);
}

static int sc__abl_read_list(sc__abl_reader *r, yaml_node_t *k, yaml_node_t *seq, sc_card *card)
{
    size_t n = seq->type == YAML_SEQUENCE_NODE
                   ? (size_t)(seq->data.sequence.items.top - seq->data.sequence.items.start)
                   : 0;

    if (card->n_steps || card->ablation_line) {
        sc__abl_error(r, k, "duplicate key ablation (first on line %d)", card->ablation_line);
        return r->errors;
    }
    card->ablation_line = sc__line(k);
    if (n == 0 || n > SC_ABLATION_MAX_STEPS) {
        sc__abl_error(r, k, "ablation: expected a list of 1 to %d steps (valid: - name: ...)",
                      SC_ABLATION_MAX_STEPS);
        return r->errors;
    }
    card->steps = calloc(n, sizeof(*card->steps));
    if (!card->steps)
        return ++r->errors;
    for (yaml_node_item_t *it = seq->data.sequence.items.start; it < seq->data.sequence.items.top;
         it++) {
        r->step = &card->steps[card->n_steps++];
        sc__abl_read_step(r, yaml_document_get_node(r->doc, *it));
    }
    sc__abl_check_names(r, card);
    return r->errors;
}

int sc__ablation_read(yaml_document_t *doc, yaml_node_t *k, yaml_node_t *v, sc_card *card,
                      const char *name, sc_diag *diag)
{
    sc__abl_reader r = {.doc = doc, .name = name, .diag = diag};
    sc_metric m;

    if (!strcmp(sc__scalar(k), "ablation"))
        return sc__abl_read_list(&r, k, v, card);
    if (card->study_metric)
        sc__abl_error(&r, k, "duplicate key metric (first on line %d)", card->study_metric_line);
    else if (!sc__text_ok(v) || sc_metric_lookup(sc__scalar(v), &m) < 0)
        sc__abl_error(&r, k,
                      "metric: not a metric of the registry (valid: qps, thread_seconds, "
                      "copy, scale, add, triad, latency_<size>, bw_<size>)");
    else if (!(card->study_metric = strdup(m.name)))
        r.errors++;
    else
        card->study_metric_line = sc__line(k);
    return r.errors;
}

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

/* Applies step to a row's card: each value through its key's conversion. */
static int sc__apply(sc_card *card, const sc_card_step *step, sc_diag *diag)
{
    char where[600], full[320];
    int rc = 0;

    for (size_t i = 0; i < step->n_set && rc != -ENOMEM; i++) {
        const char *key = step->set[i].key, *value = step->set[i].value;
        snprintf(where, sizeof(where), "%s:%d (step \"%s\")", card->source_name, step->set_lines[i],
                 step->name);
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
        rc = sc__apply(c, &card->steps[s - 1], diag);
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

static char *sc__label(const sc_card *card, size_t i)
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
        sc_instance *run = &out->runs[i];
        sc_diag found;
        sc_diag_init(&found);
        run->variant = i;
        run->label = sc__label(card, i);
        int r = sc__row(card, i, &run->card, &found);
        if (run->card)
            out->n++;
        if (!run->label || r == -ENOMEM || sc_diag_merge(diag, &found) < 0)
            rc = -ENOMEM;
        else if (r < 0)
            rc = r;
        sc_diag_free(&found);
    }
    return rc;
}
