/*
 * card.c: reading an experiment card with libyaml's document API (which keeps the line of
 * every node, for messages), and setting keys from command-line flags.
 */
#include "sc_card_study.h"
#include "sc_card_reader.h"
#include "sc_card.h"
#include "sc_card_schema.h"
#include "sc_file.h"
#include "sc_text.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yaml.h>

/* Forgets the card's sweep: its values, their lines and the swept key. */
static void sc__card_drop_sweep(sc_card *card)
{
    for (size_t i = 0; i < card->n_sweep; i++)
        free(card->sweep_values[i]);
    free(card->sweep_values);
    free(card->sweep_lines);
    free(card->sweep_env);
    card->sweep_values = NULL;
    card->sweep_lines = NULL;
    card->sweep_env = NULL;
    card->n_sweep = 0;
    card->sweep_field = SC_CF_COUNT;
}

sc_card *sc_card_new(void)
{
    sc_card *card = calloc(1, sizeof(*card));

    if (!card)
        return NULL;
    card->cpus = hwloc_bitmap_alloc();
    card->governor = strdup("unchanged");
    card->nt_stores = strdup("auto");
    card->cache_resident = strdup("refuse");
    card->blas = strdup("default");
    card->source_name = strdup("command line");
    if (!card->cpus || !card->governor || !card->nt_stores || !card->cache_resident ||
        !card->blas || !card->source_name) {
        sc_card_free(card);
        return NULL;
    }
    card->version = 1;
    card->memory_node = -1;
    card->sweep_field = SC_CF_COUNT;
    card->swept = SC_CF_COUNT;
    card->prefetch = SC_PREFETCH_UNCHANGED;
    card->runs = 1;
    card->runs_ci_pct = SC_CARD_RUNS_CI_PCT_DEFAULT;
    card->runs_max = SC_CARD_RUNS_MAX_DEFAULT;
    card->interference_accounting = true;
    card->expect_max_interference_pct = SC_CARD_MAX_INTERFERENCE_DEFAULT;
    card->outlier_mad = SC_CARD_OUTLIER_MAD_DEFAULT;
    card->outlier_min_pct = SC_CARD_OUTLIER_MIN_PCT_DEFAULT;
    return card;
}

void sc_card_free(sc_card *card)
{
    if (!card)
        return;
    free(card->source);
    free(card->source_name);
    free(card->question);
    free(card->run_name);
    free(card->kernel);
    free(card->cpu_list);
    hwloc_bitmap_free(card->cpus);
    free(card->governor);
    free(card->nt_stores);
    free(card->cache_resident);
    free(card->pairs);
    free(card->blas);
    free(card->one_per_core_from);
    free(card->nodes);
    free(card->expect_transport);
    free(card->expect_interface);
    for (size_t i = 0; i < card->n_env; i++) {
        free(card->env[i].key);
        free(card->env[i].value);
    }
    free(card->env);
    for (sc_card_field f = 0; f < SC_CF_COUNT; f++) {
        sc__card_list list = sc__card_list_of(card, f);
        for (size_t i = 0; list.items && i < *list.n; i++)
            free((*list.items)[i]);
        if (list.items)
            free(*list.items);
    }
    sc__card_metrics_free(card);
    free(card->validate_pattern);
    free(card->begin_pattern);
    free(card->end_pattern);
    free(card->markers);
    sc__card_drop_sweep(card);
    sc__ablation_free(card);
    free(card->name_suffix);
    free(card);
}

static int sc__line(const yaml_node_t *node)
{
    return (int)node->start_mark.line + 1;
}

static const char *sc__node_kind(const yaml_node_t *node)
{
    switch (node->type) {
    case YAML_MAPPING_NODE: return "a mapping";
    case YAML_SEQUENCE_NODE: return "a list";
    default: return "a single value";
    }
}

static const char *sc__scalar(const yaml_node_t *node)
{
    return (const char *)node->data.scalar.value;
}

static int sc__env_add(sc_card *card, const char *key, const char *value)
{
    if (!key || !value)
        return -EINVAL;
    sc_card_kv *grown = realloc(card->env, (card->n_env + 1) * sizeof(*grown));

    if (!grown)
        return -ENOMEM;
    card->env = grown;
    grown[card->n_env].key = strdup(key);
    grown[card->n_env].value = strdup(value);
    if (!grown[card->n_env].key || !grown[card->n_env].value) {
        free(grown[card->n_env].key);
        free(grown[card->n_env].value);
        return -ENOMEM;
    }
    card->n_env++;
    return 0;
}

static int sc__list_add(sc__card_list list, const char *value)
{
    char **grown = realloc(*list.items, (*list.n + 1) * sizeof(*grown));

    if (!grown)
        return -ENOMEM;
    *list.items = grown;
    grown[*list.n] = strdup(value);
    if (!grown[*list.n])
        return -ENOMEM;
    (*list.n)++;
    return 0;
}

static bool sc__read_env_sweep(sc__card_reader *r, yaml_node_t *k, yaml_node_t *seq);

/* env: a mapping of NAME: value. Names are checked in sc_card_check(); a name set twice is
   found through one hash table (sc_text_find_repeats), and said once per repeat. */
static void sc__read_env(sc__card_reader *r, yaml_node_t *map)
{
    size_t n = (size_t)(map->data.mapping.pairs.top - map->data.mapping.pairs.start);
    size_t base = r->card->n_env, *first = calloc(n + 1, sizeof(*first));
    int *lines = calloc(n + 1, sizeof(*lines));
    const char **names = calloc(n + 1, sizeof(*names));
    char where[512];

    if (!first || !lines || !names) {
        r->errors++;
        goto out;
    }
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = yaml_document_get_node(r->doc, p->key);
        yaml_node_t *v = yaml_document_get_node(r->doc, p->value);
        if (k->type == YAML_SCALAR_NODE && v->type == YAML_SEQUENCE_NODE) {
            /* NAME: [a, b]: a sweep of the variable. The entry holds the first value in
               the card as parsed (never run), so a name set twice is still found below. */
            if (!sc__read_env_sweep(r, k, v))
                continue;
        } else if (k->type != YAML_SCALAR_NODE || v->type != YAML_SCALAR_NODE) {
            snprintf(where, sizeof(where), "%s:%d", r->name, sc__line(k));
            sc_diag_addf(r->diag, "%s: env: entries must be NAME: value (got %s)", where,
                         sc__node_kind(k->type != YAML_SCALAR_NODE ? k : v));
            r->errors++;
            continue;
        }
        const char *value =
            v->type == YAML_SEQUENCE_NODE ? r->card->sweep_values[0] : sc__scalar(v);
        if (sc__env_add(r->card, sc__scalar(k), value) < 0) {
            r->errors++;
            goto out;
        }
        lines[r->card->n_env - 1 - base] = sc__line(k);
    }
    size_t added = r->card->n_env - base;
    for (size_t i = 0; i < added; i++)
        names[i] = r->card->env[base + i].key;
    if (sc_text_find_repeats(names, added, first) < 0) {
        r->errors++;
        goto out;
    }
    for (size_t i = 0; i < added; i++) {
        if (first[i] == added)
            continue;
        sc_diag_addf(r->diag, "%s:%d: env: %s is set twice (first on line %d)", r->name, lines[i],
                     names[i], lines[first[i]]);
        r->errors++;
    }
out:
    free(first);
    free(lines);
    free(names);
}

static void sc__read_list(sc__card_reader *r, const sc__card_key *key, yaml_node_t *seq)
{
    for (yaml_node_item_t *it = seq->data.sequence.items.start; it < seq->data.sequence.items.top;
         it++) {
        yaml_node_t *v = yaml_document_get_node(r->doc, *it);
        if (v->type != YAML_SCALAR_NODE) {
            sc__reader_error(r, v, "%s: entries must be text (got %s)", sc__card_key_name(key),
                             sc__node_kind(v));
            continue;
        }
        if (strlen(sc__scalar(v)) != v->data.scalar.length) {
            sc__reader_error(r, v, "%s: an entry contains a NUL byte", sc__card_key_name(key));
            continue;
        }
        if (sc__list_add(sc__card_list_of(r->card, key->field), sc__scalar(v)) < 0)
            r->errors++;
    }
}

/* A list of carriers (expect: transport: [shm, tcp]): any of them; one value, joined. */
static void sc__read_carriers(sc__card_reader *r, const sc__card_key *key, yaml_node_t *k,
                              yaml_node_t *seq, const char *where)
{
    char joined[4 * SC__CARD_NAME_MAX] = "";
    size_t used = 0;

    for (yaml_node_item_t *it = seq->data.sequence.items.start; it < seq->data.sequence.items.top;
         it++) {
        yaml_node_t *v = yaml_document_get_node(r->doc, *it);
        if (v->type != YAML_SCALAR_NODE) {
            sc__reader_error(r, v, "%s: list entries must be single carriers (got %s)",
                             sc__card_key_name(key), sc__node_kind(v));
            return;
        }
        int n =
            snprintf(joined + used, sizeof(joined) - used, "%s%s", used ? "," : "", sc__scalar(v));
        used = n < 0 || (size_t)n >= sizeof(joined) - used ? sizeof(joined) - 1 : used + (size_t)n;
    }
    if (!used) {
        sc__reader_error(r, k, "%s: an empty list (valid: one carrier, or a list of them)",
                         sc__card_key_name(key));
        return;
    }
    if (sc__card_assign(r->card, key, joined, where, r->diag) < 0)
        r->errors++;
}


/* A list of values for one key (or, env_name set, for one env variable): the card's sweep.
   Values are checked when selected. */
static void sc__read_sweep_of(sc__card_reader *r, const sc__card_key *key, const char *env_name,
                              yaml_node_t *k, yaml_node_t *seq)
{
    sc_card *card = r->card;
    size_t n = (size_t)(seq->data.sequence.items.top - seq->data.sequence.items.start);

    if (!env_name && !sc__card_key_sweepable(key)) {
        sc__reader_error(r, k, "%s: cannot be swept (valid: one value; sweep a key such as "
                               "threads, prefetch, governor, pool_threads, or an env variable)",
                         sc__card_key_name(key));
        return;
    }
    if (card->sweep_field != SC_CF_COUNT) {
        sc__reader_error(r, k, "%s: a card sweeps one variable, and it already sweeps %s "
                               "(valid: a list for one key only)",
                         sc__card_key_name(key), sc__card_key_name(&sc__card_keys[card->sweep_field]));
        return;
    }
    if (n < 2) {
        sc__reader_error(r, k, "%s: a sweep needs at least two values (valid: [a, b, ...])",
                         sc__card_key_name(key));
        return;
    }
    card->sweep_values = calloc(n, sizeof(char *));
    card->sweep_lines = calloc(n, sizeof(int));
    if (!card->sweep_values || !card->sweep_lines) {
        sc__card_drop_sweep(card);
        r->errors++;
        return;
    }
    card->sweep_field = key->field;
    if (env_name && !(card->sweep_env = strdup(env_name))) {
        sc__card_drop_sweep(card);
        r->errors++;
        return;
    }
    for (yaml_node_item_t *it = seq->data.sequence.items.start; it < seq->data.sequence.items.top;
         it++) {
        yaml_node_t *v = yaml_document_get_node(r->doc, *it);
        if (v->type != YAML_SCALAR_NODE) {
            sc__reader_error(r, v, "%s: sweep values must be single values (got %s)",
                             sc__card_key_name(key), sc__node_kind(v));
            continue;
        }
        /* A value given twice is found when the sweep is expanded (series.c): two
           spellings of one value (cpu_list 0-1 and 0,1) are the same run too. */
        card->sweep_values[card->n_sweep] = strdup(sc__scalar(v));
        card->sweep_lines[card->n_sweep] = sc__line(v);
        if (!card->sweep_values[card->n_sweep])
            r->errors++;
        else
            card->n_sweep++;
    }
}

static void sc__read_sweep(sc__card_reader *r, const sc__card_key *key, yaml_node_t *k,
                           yaml_node_t *seq)
{
    sc__read_sweep_of(r, key, NULL, k, seq);
}

/* env: {NAME: [a, b]}: a sweep of one variable. True when it holds values to run. */
static bool sc__read_env_sweep(sc__card_reader *r, yaml_node_t *k, yaml_node_t *seq)
{
    sc__read_sweep_of(r, &sc__card_keys[SC_CF_ENV], sc__scalar(k), k, seq);
    return r->card->sweep_field == SC_CF_ENV && r->card->sweep_env &&
           !strcmp(r->card->sweep_env, sc__scalar(k)) && r->card->n_sweep > 0;
}

/* sweep: {KEY: [values]}: the explicit form of a sweep. */
static void sc__read_sweep_map(sc__card_reader *r, yaml_node_t *k, yaml_node_t *map)
{
    if (map->type != YAML_MAPPING_NODE ||
        map->data.mapping.pairs.top - map->data.mapping.pairs.start != 1) {
        sc__reader_error(r, k, "sweep: expected one key with a list of values (valid: sweep: "
                               "{prefetch: [on, off]})");
        return;
    }
    yaml_node_pair_t *p = map->data.mapping.pairs.start;
    yaml_node_t *key_node = yaml_document_get_node(r->doc, p->key);
    yaml_node_t *values = yaml_document_get_node(r->doc, p->value);
    char path[256];
    snprintf(path, sizeof(path), "experiment.%s",
             key_node->type == YAML_SCALAR_NODE ? sc__scalar(key_node) : "");
    const sc__card_key *key = sc__card_key_by_path(path);
    if (!key || values->type != YAML_SEQUENCE_NODE) {
        sc__reader_error(r, key_node, "sweep: %s (valid: sweep: {prefetch: [on, off]})",
                         !key ? "not a card key" : "expected a list of values");
        return;
    }
    if (r->card->present[key->field]) {
        sc__reader_error(r, key_node, "sweep: %s also has a single value on line %d (valid: one "
                                      "of the two)",
                         sc__card_key_name(key), r->card->line[key->field]);
        return;
    }
    int errors = r->errors;
    r->card->present[key->field] = true;
    r->card->line[key->field] = sc__line(key_node);
    sc__read_sweep(r, key, key_node, values);
    if (r->errors > errors)
        r->card->invalid[key->field] = true;
}

/* Stores one given key's value node (a value, a list, a mapping or a sweep). */
static void sc__read_node(sc__card_reader *r, const sc__card_key *key, yaml_node_t *k,
                          yaml_node_t *v, const char *where)
{
    if (key->type == SC__CT_ENV && v->type == YAML_MAPPING_NODE) {
        sc__read_env(r, v);
        return;
    }
    if (key->type == SC__CT_LIST && v->type == YAML_SEQUENCE_NODE) {
        sc__read_list(r, key, v);
        return;
    }
    if (key->type == SC__CT_METRICS && v->type == YAML_SEQUENCE_NODE) {
        sc__card_read_metrics(r, v);
        return;
    }
    if (key->type == SC__CT_CARRIERS && v->type == YAML_SEQUENCE_NODE) {
        sc__read_carriers(r, key, k, v, where);
        return;
    }
    if (v->type == YAML_SEQUENCE_NODE && key->type != SC__CT_ENV && key->type != SC__CT_LIST &&
        key->type != SC__CT_METRICS) {
        sc__read_sweep(r, key, k, v);
        return;
    }
    if (v->type != YAML_SCALAR_NODE) {
        bool list = key->type == SC__CT_LIST || key->type == SC__CT_METRICS;
        sc_diag_addf(r->diag, "%s: %s: expected %s, got %s", where, sc__card_key_name(key),
                     key->type == SC__CT_ENV ? "a mapping (NAME: value)"
                     : list                  ? "a list"
                                             : "a single value",
                     sc__node_kind(v));
        r->errors++;
        return;
    }
    if (v->data.scalar.length == 0 && v->data.scalar.style == YAML_PLAIN_SCALAR_STYLE) {
        sc_diag_addf(r->diag, "%s: %s: has no value (%s)", where, sc__card_key_name(key),
                     key->help);
        r->errors++;
        return;
    }
    if (strlen(sc__scalar(v)) != v->data.scalar.length) {
        sc_diag_addf(r->diag, "%s: %s: value contains a NUL byte", where, sc__card_key_name(key));
        r->errors++;
        return;
    }
    if (sc__card_assign(r->card, key, sc__scalar(v), where, r->diag) < 0)
        r->errors++;
}

/* Stores one key's value node; a value the reader refused marks the key invalid. */
static void sc__read_value(sc__card_reader *r, const sc__card_key *key, yaml_node_t *k,
                           yaml_node_t *v)
{
    char where[512];
    int errors = r->errors;

    snprintf(where, sizeof(where), "%s:%d", r->name, sc__line(k));
    if (r->card->present[key->field]) {
        sc_diag_addf(r->diag, "%s: duplicate key %s (first on line %d)", where,
                     sc__card_key_name(key), r->card->line[key->field]);
        r->errors++;
        return;
    }
    r->card->present[key->field] = true;
    r->card->line[key->field] = sc__line(k);
    sc__read_node(r, key, k, v, where);
    if (r->errors > errors)
        r->card->invalid[key->field] = true;
}

/* Walks a mapping whose keys live under prefix ("" for the top, "experiment", ...). */
static void sc__read_mapping(sc__card_reader *r, yaml_node_t *map, const char *prefix, int depth)
{
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = yaml_document_get_node(r->doc, p->key);
        yaml_node_t *v = yaml_document_get_node(r->doc, p->value);
        char path[256];

        if (k->type != YAML_SCALAR_NODE) {
            sc__reader_error(r, k, "keys must be names, got %s", sc__node_kind(k));
            continue;
        }
        snprintf(path, sizeof(path), "%s%s%s", prefix, *prefix ? "." : "", sc__scalar(k));
        const sc__card_key *key = sc__card_key_by_path(path);
        if (key) {
            sc__read_value(r, key, k, v);
            continue;
        }
        if (depth == 1 && strcmp(path, "experiment.sweep") == 0) {
            sc__read_sweep_map(r, k, v);
            continue;
        }
        if (depth == 0 && (!strcmp(path, "ablation") || !strcmp(path, "metric"))) {
            sc__ablation_read(r, k, v);
            continue;
        }
        if (depth == 0 && !strcmp(path, "against")) {
            sc__against_read(r, k, v);
            continue;
        }
        /* A container: "experiment" at the top, "expect" inside experiment. */
        bool container = (depth == 0 && strcmp(path, "experiment") == 0) ||
                         (depth == 1 && strcmp(path, "experiment.expect") == 0);
        if (container && v->type == YAML_MAPPING_NODE) {
            sc__read_mapping(r, v, path, depth + 1);
            continue;
        }
        if (container) {
            sc__reader_error(r, k, "%s: expected a mapping of keys, got %s",
                             sc__scalar(k), sc__node_kind(v));
            continue;
        }
        /* A key of the schema in another section: where it belongs, not a "did you mean"
           of its own name. */
        const sc__card_key *elsewhere = sc__card_key_by_name(sc__scalar(k));
        if (elsewhere) {
            sc__reader_error(r, k, "%s: belongs %s, not %s (move it there)", sc__scalar(k),
                             sc__card_section_name(elsewhere->path), sc__card_section_name(path));
            continue;
        }
        const sc__card_key *near = sc__card_key_suggest(sc__scalar(k));
        if (near)
            sc__reader_error(r, k, "unknown key \"%s\" (did you mean %s?)",
                             sc__scalar(k), sc__card_key_name(near));
        else
            sc__reader_error(r, k, "unknown key \"%s\" in %s (see streamcard-card(5))",
                             sc__scalar(k), *prefix ? prefix : "the top level");
    }
}

int sc_card_parse(sc_card *card, const char *text, size_t len, const char *name, sc_diag *diag)
{
    yaml_parser_t parser;
    yaml_document_t doc;
    sc__card_reader r = {.doc = &doc, .card = card, .diag = diag, .name = name};
    char *copy = malloc(len + 1), *name_copy = strdup(name);

    if (!copy || !name_copy) {
        free(copy);
        free(name_copy);
        return -ENOMEM;
    }
    memcpy(copy, text, len);
    copy[len] = '\0';
    free(card->source);
    free(card->source_name);
    card->source = copy;
    card->source_len = len;
    card->source_name = name_copy;

    int rc = sc__card_scan(text, len, name, diag);
    if (rc < 0)
        return rc;
    if (!yaml_parser_initialize(&parser))
        return -ENOMEM;
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    if (!yaml_parser_load(&parser, &doc)) {
        sc_diag_addf(diag, "%s:%zu: not valid YAML: %s (%s)", name,
                     parser.problem_mark.line + 1, parser.problem ? parser.problem : "error",
                     parser.context ? parser.context : "check indentation and quoting");
        yaml_parser_delete(&parser);
        return -EBADMSG;
    }
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    bool structural = !root || root->type != YAML_MAPPING_NODE;
    if (!root) {
        sc_diag_addf(diag, "%s: the card is empty (valid: version: 1 and an experiment: mapping)",
                     name);
        r.errors++;
    } else if (root->type != YAML_MAPPING_NODE) {
        sc__reader_error(&r, root, "the card must be a mapping, got %s", sc__node_kind(root));
    } else {
        sc__read_mapping(&r, root, "", 0);
    }
    yaml_document_delete(&doc);
    yaml_parser_delete(&parser);
    if (structural)
        return -EBADMSG;
    return r.errors ? -EINVAL : 0;
}

int sc_card_load_file(sc_card *card, const char *path, sc_diag *diag)
{
    char *text = NULL;
    size_t len = 0;
    int rc = sc_file_read_at(AT_FDCWD, path, 0, SC_CARD_MAX_BYTES + 1, &text, &len);

    if (rc < 0) {
        sc_diag_addf(diag, "%s: cannot read the card: %s", path,
                     rc == -EFBIG ? "larger than 64 KiB (valid: at most 65536 bytes)"
                                  : strerror(-rc));
        return rc;
    }
    rc = sc_card_parse(card, text, len, path, diag);
    free(text);
    return rc;
}

/* Sets the swept key of card to value, the index-th of its sweep, and names the run after it. */
static int sc__sweep_set(sc_card *card, sc_card_field field, const char *value, size_t index,
                         sc_diag *diag)
{
    const sc__card_key *key = &sc__card_keys[field];
    char where[600];

    snprintf(where, sizeof(where), "%s:%d (sweep value %zu)", card->source_name, card->line[field],
             index + 1);
    /* An env sweep sets its variable (its name is checked with the others); a key's value
       goes through the key's own conversion. */
    int rc = field == SC_CF_ENV ? sc_card_env_set(card, card->sweep_env, value)
                                : sc__card_assign(card, key, value, where, diag);
    if (rc < 0)
        return rc;
    free(card->name_suffix);
    if (asprintf(&card->name_suffix, "_%s-%s",
                 field == SC_CF_ENV ? card->sweep_env : sc__card_key_name(key), value) < 0)
        card->name_suffix = NULL;
    card->swept = field;
    card->swept_index = index;
    card->overridden = true; /* card.yaml is then the resolved card of this run */
    return card->name_suffix ? 0 : -ENOMEM;
}

int sc_card_sweep_select(sc_card *card, size_t index, sc_diag *diag)
{
    if (card->sweep_field == SC_CF_COUNT || index >= card->n_sweep)
        return -EINVAL;
    int rc = sc__sweep_set(card, card->sweep_field, card->sweep_values[index], index, diag);
    if (rc == 0)
        sc__card_drop_sweep(card);
    return rc;
}

/* Copies a string member; NULL stays NULL. False when out of memory. */
static bool sc__copy_str(char **to, const char *from)
{
    *to = from ? strdup(from) : NULL;
    return !from || *to;
}

/*
 * A copy of card sharing nothing with it. whole: everything; otherwise the card of one run,
 * without the sweep and without the YAML text it was read from (a run of a sweep writes its
 * resolved card, and n copies of the text would cost n times its size). NULL on ENOMEM.
 */
static sc_card *sc__card_copy(const sc_card *card, bool whole)
{
    sc_card *c = malloc(sizeof(*c));

    if (!c)
        return NULL;
    *c = *card;
    /* Every owned member is cleared first, so that a failed copy frees only its own. */
    c->source = c->source_name = c->question = c->run_name = c->kernel = c->cpu_list = NULL;
    c->governor = c->nt_stores = c->nodes = c->expect_transport = c->name_suffix = NULL;
    c->cache_resident = c->pairs = c->expect_interface = NULL;
    c->blas = NULL;
    c->one_per_core_from = NULL;
    c->cpus = NULL;
    c->env = NULL;
    c->n_env = 0;
    c->controlled = c->command = NULL;
    c->n_controlled = c->n_command = 0;
    c->metrics = NULL;
    c->n_metrics = 0;
    c->validate_pattern = c->begin_pattern = c->end_pattern = c->markers = NULL;
    c->sweep_values = NULL;
    c->sweep_lines = NULL;
    c->sweep_env = NULL;
    c->steps = NULL;
    c->n_steps = 0;
    c->against = NULL;
    c->study_metric = NULL;
    c->env_unset = NULL;
    c->n_env_unset = 0;
    c->n_sweep = 0;
    c->sweep_field = SC_CF_COUNT;
    bool ok = (c->cpus = hwloc_bitmap_dup(card->cpus)) != NULL;
    if (!whole || !card->source)
        c->source_len = 0;
    else if (ok && (c->source = malloc(card->source_len + 1)))
        memcpy(c->source, card->source, card->source_len + 1);
    else
        ok = false;
    ok = ok && sc__copy_str(&c->source_name, card->source_name) &&
         sc__copy_str(&c->question, card->question) && sc__copy_str(&c->run_name, card->run_name) &&
         sc__copy_str(&c->kernel, card->kernel) && sc__copy_str(&c->cpu_list, card->cpu_list) &&
         sc__copy_str(&c->governor, card->governor) &&
         sc__copy_str(&c->nt_stores, card->nt_stores) &&
         sc__copy_str(&c->cache_resident, card->cache_resident) &&
         sc__copy_str(&c->pairs, card->pairs) &&
         sc__copy_str(&c->blas, card->blas) &&
         sc__copy_str(&c->one_per_core_from, card->one_per_core_from) &&
         sc__copy_str(&c->nodes, card->nodes) &&
         sc__copy_str(&c->expect_transport, card->expect_transport) &&
         sc__copy_str(&c->expect_interface, card->expect_interface) &&
         sc__copy_str(&c->name_suffix, card->name_suffix) &&
         sc__copy_str(&c->validate_pattern, card->validate_pattern) &&
         sc__copy_str(&c->begin_pattern, card->begin_pattern) &&
         sc__copy_str(&c->end_pattern, card->end_pattern) &&
         sc__copy_str(&c->markers, card->markers) &&
         sc__card_metrics_copy(c, card) == 0;
    for (size_t i = 0; ok && i < card->n_env; i++)
        ok = sc__env_add(c, card->env[i].key, card->env[i].value) == 0;
    for (sc_card_field f = 0; ok && f < SC_CF_COUNT; f++) {
        sc__card_list from = sc__card_list_of((sc_card *)card, f), to = sc__card_list_of(c, f);
        for (size_t i = 0; from.items && i < *from.n; i++)
            ok = ok && sc__list_add(to, (*from.items)[i]) == 0;
    }
    for (size_t i = 0; ok && i < card->n_env_unset; i++)
        ok = sc__ablation_unset_env(c, card->env_unset[i]) == 0;
    /* A run of an env sweep keeps the variable's name until its value is set. */
    ok = ok && sc__copy_str(&c->sweep_env, card->sweep_env);
    if (ok && whole && card->n_sweep) {
        c->sweep_values = calloc(card->n_sweep, sizeof(char *));
        c->sweep_lines = calloc(card->n_sweep, sizeof(int));
        ok = c->sweep_values && c->sweep_lines;
        for (size_t i = 0; ok && i < card->n_sweep; i++) {
            ok = (c->sweep_values[i] = strdup(card->sweep_values[i])) != NULL;
            c->sweep_lines[i] = card->sweep_lines[i];
            c->n_sweep += ok;
        }
        c->sweep_field = card->sweep_field;
    }
    if (!ok) {
        sc_card_free(c);
        return NULL;
    }
    return c;
}

const char *sc_card_env_get(const sc_card *card, const char *name)
{
    for (size_t i = 0; name && i < card->n_env; i++)
        if (!strcmp(card->env[i].key, name))
            return card->env[i].value;
    return NULL;
}

int sc_card_env_set(sc_card *card, const char *name, const char *value)
{
    for (size_t i = 0; name && i < card->n_env; i++) {
        if (strcmp(card->env[i].key, name) != 0)
            continue;
        char *copy = strdup(value);
        if (!copy)
            return -ENOMEM;
        free(card->env[i].value);
        card->env[i].value = copy;
        return 0;
    }
    return name ? sc__env_add(card, name, value) : -EINVAL;
}

sc_card *sc_card_dup(const sc_card *card)
{
    return sc__card_copy(card, true);
}

int sc_card_sweep_instance(const sc_card *card, size_t index, sc_card **out, sc_diag *diag)
{
    *out = NULL;
    if (card->sweep_field == SC_CF_COUNT || index >= card->n_sweep)
        return -EINVAL;
    *out = sc__card_copy(card, false);
    if (!*out)
        return -ENOMEM;
    return sc__sweep_set(*out, card->sweep_field, card->sweep_values[index], index, diag);
}

int sc_card_set_flag(sc_card *card, const char *flag, const char *value, sc_diag *diag)
{
    const sc__card_key *key = sc__card_key_by_flag(flag);
    char where[128];

    if (!key)
        return -ENOENT;
    snprintf(where, sizeof(where), "--%s", flag);
    /* Given, even when refused: the checks then say nothing more about it (not "missing"). */
    card->present[key->field] = true;
    card->line[key->field] = 0;
    int rc = sc__card_assign(card, key, value, where, diag);
    if (rc < 0)
        return rc;
    if (key->field == card->sweep_field)
        sc__card_drop_sweep(card); /* a flag for the swept key: one run with that value */
    card->overridden = card->overridden || card->source != NULL;
    return 0;
}
