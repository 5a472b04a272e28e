/*
 * card_emit.c: the resolved card as YAML (libyaml's emitter), written into the bundle
 * when flags changed or replaced the card, so card.yaml always says what really ran.
 * The keys are written by walking the card's table (card_keys.c) in its order, each by its
 * row's emit rule, and only the keys of the card's workload; the result parses back to the
 * same card (tests check the round trip).
 */
#include "sc_card.h"
#include "sc_card_schema.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

typedef struct sc__yaml_out {
    char *buf;
    size_t len, cap;
    int failed;
} sc__yaml_out;

static int sc__yaml_write(void *data, unsigned char *bytes, size_t size)
{
    sc__yaml_out *out = data;

    if (out->len + size + 1 > out->cap) {
        size_t cap = (out->cap ? out->cap * 2 : 1024) + size;
        char *grown = realloc(out->buf, cap);
        if (!grown) {
            out->failed = 1;
            return 0;
        }
        out->buf = grown;
        out->cap = cap;
    }
    memcpy(out->buf + out->len, bytes, size);
    out->len += size;
    out->buf[out->len] = '\0';
    return 1;
}

/* Emits one event; a failure is remembered in the emitter and checked once at the end. */
static void sc__emit(yaml_emitter_t *e, yaml_event_t *ev, int ok)
{
    if (ok)
        yaml_emitter_emit(e, ev);
}

static void sc__scalar(yaml_emitter_t *e, const char *text)
{
    yaml_event_t ev;
    /* Quote free text that YAML could read as something else; names stay plain. An empty
       value is quoted too: plain, it would read back as "has no value" (question: ""). */
    sc__emit(e, &ev,
             yaml_scalar_event_initialize(
                 &ev, NULL, NULL, (yaml_char_t *)text, (int)strlen(text), 1, 1,
                 *text ? YAML_ANY_SCALAR_STYLE : YAML_SINGLE_QUOTED_SCALAR_STYLE));
}

static void sc__mapping_start(yaml_emitter_t *e)
{
    yaml_event_t ev;
    sc__emit(e, &ev,
             yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_MAPPING_STYLE));
}

static void sc__mapping_end(yaml_emitter_t *e)
{
    yaml_event_t ev;
    sc__emit(e, &ev, yaml_mapping_end_event_initialize(&ev));
}

static void sc__pair(yaml_emitter_t *e, const char *key, const char *value)
{
    sc__scalar(e, key);
    sc__scalar(e, value);
}

static void sc__pair_u64(yaml_emitter_t *e, const char *key, uint64_t value)
{
    char num[32];
    snprintf(num, sizeof(num), "%" PRIu64, value);
    sc__pair(e, key, num);
}

/* A number or switch of the card as a double, for the emit rules; 0 for a text. */
static double sc__number(const sc__card_key *key, const void *slot)
{
    switch (key->type) {
    case SC__CT_LONG:
    case SC__CT_RUNS:
        return (double)*(const long *)slot;
    case SC__CT_U64:
    case SC__CT_SIZE:
        return (double)*(const uint64_t *)slot;
    case SC__CT_DOUBLE:
        return *(const double *)slot;
    case SC__CT_SWITCH:
        return *(const bool *)slot;
    default:
        return 0;
    }
}

/* A value is there to write: a text set, a list or mapping not empty, any number (slot:
   NULL for the keys the card holds elsewhere, workload and prefetch, always set). */
static bool sc__has_value(const sc_card *card, const sc__card_key *key, const void *slot)
{
    switch (key->type) {
    case SC__CT_STRING:
    case SC__CT_NAME:
    case SC__CT_CHOICE:
    case SC__CT_CPULIST:
    case SC__CT_CARRIERS:
        return slot && *(char *const *)slot != NULL;
    case SC__CT_ENV:
        return card->n_env > 0;
    case SC__CT_LIST:
        return *sc__card_list_of((sc_card *)card, key->field).n > 0;
    case SC__CT_METRICS:
        return card->n_metrics > 0;
    default:
        return true;
    }
}

/* Whether the resolved card writes key: one its workload reads, by its row's emit rule. */
static bool sc__emits(const sc_card *card, const sc__card_key *key)
{
    const void *slot = sc__card_slot_of(card, key->field);

    if (!sc_workload_reads(card->workload, key->field) || !sc__has_value(card, key, slot))
        return false;
    switch (key->emit) {
    case SC__EMIT_PRESENT:
        return card->present[key->field];
    case SC__EMIT_NONZERO:
        return slot && sc__number(key, slot) != 0;
    case SC__EMIT_NOT_NEGATIVE:
        return slot && sc__number(key, slot) >= 0;
    case SC__EMIT_THREADS: /* not resolved yet (a job's card, resolved on its node): threads
                              not given follow the CPUs the node keeps */
        return !card->one_per_core || card->one_per_core_from || card->present[key->field];
    case SC__EMIT_PAIRS_ALL:
        return card->pairs && strcmp(card->pairs, "all") == 0;
    case SC__EMIT_RUNS_AUTO:
        return card->runs == 0;
    case SC__EMIT_ACCOUNTING:
        return card->interference_accounting;
    case SC__EMIT_SET:
        break;
    }
    return true;
}

/* One key's value: its text, the env mapping, or the list of controlled variables. */
static void sc__emit_value(yaml_emitter_t *e, const sc_card *card, const sc__card_key *key)
{
    yaml_event_t ev;
    char *text;

    if (key->type == SC__CT_ENV) {
        sc__mapping_start(e);
        for (size_t i = 0; i < card->n_env; i++)
            sc__pair(e, card->env[i].key, card->env[i].value);
        sc__mapping_end(e);
    } else if (key->type == SC__CT_LIST) {
        sc__emit(
            e, &ev,
            yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_SEQUENCE_STYLE));
        sc__card_list list = sc__card_list_of((sc_card *)card, key->field);
        for (size_t i = 0; i < *list.n; i++)
            sc__scalar(e, (*list.items)[i]);
        sc__emit(e, &ev, yaml_sequence_end_event_initialize(&ev));
    } else if (key->type == SC__CT_METRICS) {
        sc__emit(
            e, &ev,
            yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_SEQUENCE_STYLE));
        for (size_t i = 0; i < card->n_metrics; i++) {
            const sc_card_metric *m = &card->metrics[i];
            sc__mapping_start(e);
            sc__pair(e, "name", m->name ? m->name : "");
            if (m->from_marker)
                sc__pair(e, "from", "marker");
            else
                sc__pair(e, "pattern", m->pattern ? m->pattern : "");
            sc__pair(e, "unit", m->unit ? m->unit : "");
            sc__pair(e, "better", m->higher ? "higher" : "lower");
            if (m->primary)
                sc__pair(e, "primary", "true");
            sc__mapping_end(e);
        }
        sc__emit(e, &ev, yaml_sequence_end_event_initialize(&ev));
    } else if (key->type == SC__CT_CPULIST) {
        sc__scalar(e, card->cpu_list); /* as written, or as one_per_core resolved it */
    } else if ((text = sc__card_value_text(card, key->field))) {
        sc__scalar(e, text);
        free(text);
    } else {
        e->error = YAML_MEMORY_ERROR; /* checked once at the end */
    }
}

/* The part of a dotted path inside experiment: ("expect" of experiment.expect.at_bytes), or
   "" for a key directly under experiment:. */
static void sc__group(const char *path, char *buf, size_t len)
{
    const char *rest = path + strlen("experiment."), *dot = strchr(rest, '.');

    snprintf(buf, len, "%.*s", dot ? (int)(dot - rest) : 0, rest);
}

/* Whether some key of group (from index i on, while the group lasts) is written. */
static bool sc__group_emits(const sc_card *card, size_t i, const char *group)
{
    char g[32];

    for (; i < SC_CF_COUNT; i++) {
        sc__group(sc__card_keys[i].path, g, sizeof(g));
        if (strcmp(g, group) != 0)
            return false;
        if (sc__emits(card, &sc__card_keys[i]))
            return true;
    }
    return false;
}

/* experiment: every key of the table under it, in the table's order, by its emit rule; the
   keys of a group (expect:) in their own mapping when one of them is written. */
static void sc__emit_experiment(yaml_emitter_t *e, const sc_card *card)
{
    char open[32] = "", group[32];

    sc__scalar(e, "experiment");
    sc__mapping_start(e);
    for (size_t i = 0; i < SC_CF_COUNT; i++) {
        const sc__card_key *key = &sc__card_keys[i];
        if (strncmp(key->path, "experiment.", 11) != 0)
            continue;
        sc__group(key->path, group, sizeof(group));
        if (strcmp(group, open) != 0) {
            if (*open)
                sc__mapping_end(e);
            *open = '\0';
            if (*group && sc__group_emits(card, i, group)) {
                sc__scalar(e, group);
                sc__mapping_start(e);
                snprintf(open, sizeof(open), "%s", group);
            }
        }
        if ((*group && strcmp(group, open) != 0) || !sc__emits(card, key))
            continue;
        sc__scalar(e, sc__card_key_name(key));
        sc__emit_value(e, card, key);
    }
    if (*open)
        sc__mapping_end(e);
    sc__mapping_end(e);
}

/* against: its one key as the card would hold it under experiment: "nb: 5", "expect:
   {min_rate_MBps: 5}", "env: {NAME: value}"; an A/A pair's empty mapping. */
static void sc__emit_against(yaml_emitter_t *e, const sc_card_step *s)
{
    sc__scalar(e, "against");
    sc__mapping_start(e);
    for (size_t i = 0; i < s->n_set; i++) {
        const char *key = s->set[i].key, *dot = strchr(key, '.');
        if (!dot) {
            sc__pair(e, key, s->set[i].value);
            continue;
        }
        char group[16];
        snprintf(group, sizeof(group), "%.*s", (int)(dot - key), key);
        sc__scalar(e, group);
        sc__mapping_start(e);
        sc__pair(e, dot + 1, s->set[i].value);
        sc__mapping_end(e);
    }
    sc__mapping_end(e);
}

char *sc_card_to_yaml(const sc_card *card)
{
    yaml_emitter_t e;
    yaml_event_t ev;
    sc__yaml_out out = {0};

    if (!yaml_emitter_initialize(&e))
        return NULL;
    yaml_emitter_set_output(&e, sc__yaml_write, &out);
    yaml_emitter_set_unicode(&e, 1);
    yaml_emitter_set_width(&e, 100);
    sc__emit(&e, &ev, yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING));
    sc__emit(&e, &ev, yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1));
    sc__mapping_start(&e);
    sc__pair_u64(&e, "version", (uint64_t)card->version);
    sc__emit_experiment(&e, card);
    if (card->against)
        sc__emit_against(&e, card->against);
    sc__mapping_end(&e);
    sc__emit(&e, &ev, yaml_document_end_event_initialize(&ev, 1));
    sc__emit(&e, &ev, yaml_stream_end_event_initialize(&ev));
    yaml_emitter_flush(&e);
    int failed = out.failed || e.error != YAML_NO_ERROR;
    yaml_emitter_delete(&e);
    if (failed) {
        free(out.buf);
        return NULL;
    }
    return out.buf;
}
