/*
 * ablation_read.c: the card reader's side of an ablation study (sc_card_study.h):
 * ablation: and metric: read from the card's YAML, bounded by the card's limits like every
 * key, unknown keys refused; the steps' values are kept as written and converted when a
 * row applies them (ablation.c). It calls only the schema, never the card's reader back.
 */
#include "sc_card_study.h"
#include "sc_card_schema.h"
#include "sc_metric.h"
#include "sc_text.h"

#include <errno.h>
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
    if (card->against) {
        sc__step_free(card->against);
        free(card->against);
        card->against = NULL;
    }
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

/* The reader's state for one ablation: list (or against:): the card's reader, the step being
   read and what it is called in messages ("ablation: set", "against"). */
typedef struct sc__abl_reader {
    sc__card_reader *in;
    sc_card_step *step;
    const char *what;
} sc__abl_reader;

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
        r->in->errors++;
        return;
    }
    grown[s->n_set].key = strdup(key);
    grown[s->n_set].value = strdup(sc__scalar(v));
    lines[s->n_set] = sc__line(v);
    if (!grown[s->n_set].key || !grown[s->n_set].value) {
        free(grown[s->n_set].key);
        free(grown[s->n_set].value);
        r->in->errors++;
        return;
    }
    s->n_set++;
}

/* set: {KEY: value, expect: {...}, env: {NAME: value}}: single values only. */
static void sc__abl_read_set(sc__abl_reader *r, yaml_node_t *map, const char *prefix)
{
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = yaml_document_get_node(r->in->doc, p->key);
        yaml_node_t *v = yaml_document_get_node(r->in->doc, p->value);
        char path[300];
        if (!sc__text_ok(k)) {
            sc__reader_error(r->in, k, "%s: keys must be names", r->what);
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
            sc__reader_error(r->in, k,
                             "%s: unknown key \"%s\" (valid: a card key under "
                             "experiment, expect: {...} or env: {NAME: value})",
                             r->what, path);
            continue;
        }
        if (key && !sc__card_key_sweepable(key)) {
            sc__reader_error(r->in, k,
                             "%s: %s cannot %s (valid: keys a sweep may vary, such as threads, "
                             "pool_threads, governor, env)",
                             r->what, path,
                             strcmp(r->what, "against") ? "be a step" : "differ between the sides");
            continue;
        }
        if (v->type != YAML_SCALAR_NODE || strlen(sc__scalar(v)) != v->data.scalar.length) {
            sc__reader_error(r->in, v, "%s: %s: expected a single value", r->what, path);
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
        r->in->errors++;
        return;
    }
    for (yaml_node_item_t *it = seq->data.sequence.items.start; it < seq->data.sequence.items.top;
         it++) {
        yaml_node_t *v = yaml_document_get_node(r->in->doc, *it);
        if (!sc__text_ok(v)) {
            sc__reader_error(r->in, v, "ablation: unset: entries must be variable names");
            continue;
        }
        if (!(s->unset[s->n_unset] = strdup(sc__scalar(v)))) {
            r->in->errors++;
            return;
        }
        s->n_unset++;
    }
}

/* One step: {name: ..., set: {...}, unset: [...]}; name and a change required. */
static void sc__abl_read_step(sc__abl_reader *r, yaml_node_t *map)
{
    if (map->type != YAML_MAPPING_NODE) {
        sc__reader_error(r->in, map,
                         "ablation: a step is a mapping (valid: - name: ...; set: {...}; "
                         "unset: [...])");
        return;
    }
    r->step->line = sc__line(map);
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = yaml_document_get_node(r->in->doc, p->key);
        yaml_node_t *v = yaml_document_get_node(r->in->doc, p->value);
        const char *key = k->type == YAML_SCALAR_NODE ? sc__scalar(k) : "";
        if (!strcmp(key, "name") && sc__text_ok(v) && !r->step->name) {
            if (!(r->step->name = strdup(sc__scalar(v))))
                r->in->errors++;
        } else if (!strcmp(key, "set") && v->type == YAML_MAPPING_NODE && !r->step->n_set) {
            sc__abl_read_set(r, v, "");
        } else if (!strcmp(key, "unset") && v->type == YAML_SEQUENCE_NODE && !r->step->unset) {
            sc__abl_read_unset(r, v);
        } else if (!strcmp(key, "name") || !strcmp(key, "set") || !strcmp(key, "unset")) {
            sc__reader_error(r->in, k, "ablation: %s: expected %s, once", key,
                             !strcmp(key, "name")  ? "a text"
                             : !strcmp(key, "set") ? "a mapping of card keys"
                                                   : "a list of variable names");
        } else {
            sc__reader_error(
                r->in, k, "ablation: unknown key \"%s\" in a step (valid: name, set, unset)", key);
        }
    }
    if (!r->step->name)
        sc__reader_error(r->in, map,
                         "ablation: a step without a name (valid: name: pool = workers)");
    else if (!r->step->n_set && !r->step->n_unset)
        sc__reader_error(r->in, map,
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
        r->in->errors++;
    } else {
        for (size_t i = 0; i < card->n_steps; i++)
            if (first[i] != card->n_steps && *names[i]) {
                sc_diag_addf(r->in->diag,
                             "%s:%d: ablation: step \"%s\" is named twice (first on "
                             "line %d)",
                             r->in->name, card->steps[i].line, names[i],
                             card->steps[first[i]].line);
                r->in->errors++;
            }
    }
    free(names);
    free(first);
}

static void sc__abl_read_list(sc__abl_reader *r, yaml_node_t *k, yaml_node_t *seq)
{
    sc_card *card = r->in->card;
    size_t n = seq->type == YAML_SEQUENCE_NODE
                   ? (size_t)(seq->data.sequence.items.top - seq->data.sequence.items.start)
                   : 0;

    if (card->n_steps || card->ablation_line) {
        sc__reader_error(r->in, k, "duplicate key ablation (first on line %d)",
                         card->ablation_line);
        return;
    }
    card->ablation_line = sc__line(k);
    if (n == 0 || n > SC_ABLATION_MAX_STEPS) {
        sc__reader_error(r->in, k,
                         "ablation: expected a list of 1 to %d steps (valid: - name: ...)",
                         SC_ABLATION_MAX_STEPS);
        return;
    }
    card->steps = calloc(n, sizeof(*card->steps));
    if (!card->steps) {
        r->in->errors++;
        return;
    }
    for (yaml_node_item_t *it = seq->data.sequence.items.start; it < seq->data.sequence.items.top;
         it++) {
        r->step = &card->steps[card->n_steps++];
        sc__abl_read_step(r, yaml_document_get_node(r->in->doc, *it));
    }
    sc__abl_check_names(r, card);
}

void sc__against_read(sc__card_reader *r, yaml_node_t *k, yaml_node_t *v)
{
    sc_card *card = r->card;
    sc__abl_reader abl = {.in = r, .what = "against"};

    if (card->against || card->against_line) {
        sc__reader_error(r, k, "duplicate key against (first on line %d)", card->against_line);
        return;
    }
    card->against_line = sc__line(k);
    /* "against: {}" reads as an empty mapping: an A/A pair */
    if (v->type != YAML_MAPPING_NODE) {
        sc__reader_error(r, k,
                         "against: expected a mapping of the one key side B changes (valid: "
                         "against: {threads: 1}, against: {env: {OMP_WAIT_POLICY: passive}}, "
                         "or against: {} for an A/A pair)");
        return;
    }
    if (!(card->against = calloc(1, sizeof(*card->against)))) {
        r->errors++;
        return;
    }
    card->against->line = card->against_line;
    abl.step = card->against;
    sc__abl_read_set(&abl, v, "");
}

void sc__ablation_read(sc__card_reader *r, yaml_node_t *k, yaml_node_t *v)
{
    sc__abl_reader abl = {.in = r, .what = "ablation: set"};
    sc_card *card = r->card;
    sc_metric m;

    if (!strcmp(sc__scalar(k), "ablation")) {
        sc__abl_read_list(&abl, k, v);
        return;
    }
    if (card->study_metric)
        sc__reader_error(r, k, "duplicate key metric (first on line %d)", card->study_metric_line);
    else if (!sc__text_ok(v) ||
             (sc_metric_lookup(sc__scalar(v), &m) < 0 && !sc__card_is_name(sc__scalar(v))))
        sc__reader_error(r, k, "metric: %s", SC_ABLATION_METRIC_INVALID);
    else if (!(card->study_metric = strdup(sc_metric_lookup(sc__scalar(v), &m) == 0
                                               ? m.name
                                               : sc__scalar(v)))) /* the card's, checked later */
        r->errors++;
    else
        card->study_metric_line = sc__line(k);
}
