/*
 * card_emit.c: the resolved card as YAML (libyaml's emitter), written into the bundle
 * when flags changed or replaced the card, so card.yaml always says what really ran.
 * Only the keys of the card's workload are written; the result parses back to the same
 * card (tests check the round trip).
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

/* True when the key belongs in the resolved card of this workload. */
static bool sc__emits(const sc_card *card, sc_card_field f)
{
    unsigned mask = sc__card_keys[f].workloads;
    return mask == SC__WL_ANY || (mask & SC__WL_BIT(card->workload));
}

static void sc__emit_experiment(yaml_emitter_t *e, const sc_card *card)
{
    yaml_event_t ev;

    sc__scalar(e, "experiment");
    sc__mapping_start(e);
    if (card->question)
        sc__pair(e, "question", card->question);
    if (card->run_name)
        sc__pair(e, "run_name", card->run_name);
    sc__pair(e, "workload", sc_workload_name(card->workload));
    if (card->kernel && sc__emits(card, SC_CF_KERNEL))
        sc__pair(e, "kernel", card->kernel);
    if (card->cpu_list)
        sc__pair(e, "cpu_list", card->cpu_list);
    /* one_per_core not resolved yet (a job's card, resolved on its node): threads not
       given follow the CPUs the node keeps, so the count derived here is not written. */
    if (!card->one_per_core || card->one_per_core_from || card->present[SC_CF_THREADS])
        sc__pair_u64(e, "threads", (uint64_t)card->threads);
    if (card->memory_node >= 0)
        sc__pair_u64(e, "memory_node", (uint64_t)card->memory_node);
    if (card->one_per_core) /* cpu_list is then the resolved list (one CPU per core) */
        sc__pair(e, "one_per_core", "on");
    sc__pair(e, "prefetch", sc_prefetch_name(card->prefetch));
    sc__pair(e, "governor", card->governor);
    if (card->workload == SC_WORKLOAD_STREAM) {
        if (card->array_size)
            sc__pair_u64(e, "array_size", card->array_size);
        else
            sc__pair(e, "array_size", "auto"); /* resolved where it runs (sc_caches.h) */
        sc__pair(e, "nt_stores", card->nt_stores);
        sc__pair(e, "cache_resident", card->cache_resident);
    }
    if (sc__emits(card, SC_CF_ITERATIONS))
        sc__pair_u64(e, "iterations", (uint64_t)card->iterations);
    if (card->workload == SC_WORKLOAD_IPSEARCH) {
        sc__pair_u64(e, "nb", card->nb);
        sc__pair_u64(e, "nq", card->nq);
        sc__pair_u64(e, "dim", card->dim);
        sc__pair_u64(e, "k", card->k);
        if (card->present[SC_CF_POOL_THREADS]) /* else the kernel's default layout */
            sc__pair_u64(e, "pool_threads", (uint64_t)card->pool_threads);
        if (card->present[SC_CF_BLAS]) /* else the system's OpenBLAS */
            sc__pair(e, "blas", card->blas);
    }
    if (card->workload == SC_WORKLOAD_MPI_PINGPONG) {
        if (card->ranks) /* 0: pairs: all over the allocation's nodes */
            sc__pair_u64(e, "ranks", (uint64_t)card->ranks);
        sc__pair_u64(e, "min_bytes", card->min_bytes);
        sc__pair_u64(e, "max_bytes", card->max_bytes);
        if (card->window)
            sc__pair_u64(e, "window", (uint64_t)card->window);
        if (card->pairs && strcmp(card->pairs, "all") == 0) {
            char bound[64];

            sc__pair(e, "pairs", card->pairs);
            snprintf(bound, sizeof(bound), "%.17g", card->outlier_mad);
            sc__pair(e, "outlier_mad", bound);
            snprintf(bound, sizeof(bound), "%.17g", card->outlier_min_pct);
            sc__pair(e, "outlier_min_pct", bound);
            sc__pair_u64(e, "passes", (uint64_t)card->passes);
        }
    }
    if (card->nodes)
        sc__pair(e, "nodes", card->nodes);
    char num[64];
    if (card->runs) {
        sc__pair_u64(e, "runs", (uint64_t)card->runs);
    } else {
        sc__pair(e, "runs", "auto");
        snprintf(num, sizeof(num), "%.17g", card->runs_ci_pct);
        sc__pair(e, "runs_ci_pct", num);
        sc__pair_u64(e, "runs_max", (uint64_t)card->runs_max);
    }
    sc__pair(e, "interference_accounting", card->interference_accounting ? "on" : "off");
    if (card->expect_transport || card->expect_interface || card->expect_min_rate_MBps > 0 ||
        card->present[SC_CF_EXPECT_AT_BYTES] || card->expect_max_latency_us > 0 ||
        card->interference_accounting) {
        sc__scalar(e, "expect");
        sc__mapping_start(e);
        if (card->expect_transport)
            sc__pair(e, "transport", card->expect_transport);
        if (card->expect_interface)
            sc__pair(e, "interface", card->expect_interface);
        if (card->expect_min_rate_MBps > 0) {
            snprintf(num, sizeof(num), "%.17g", card->expect_min_rate_MBps);
            sc__pair(e, "min_rate_MBps", num);
        }
        if (card->present[SC_CF_EXPECT_AT_BYTES])
            sc__pair_u64(e, "at_bytes", card->expect_at_bytes);
        if (card->expect_max_latency_us > 0) {
            snprintf(num, sizeof(num), "%.17g", card->expect_max_latency_us);
            sc__pair(e, "max_latency_us", num);
        }
        if (card->interference_accounting) {
            snprintf(num, sizeof(num), "%.17g", card->expect_max_interference_pct);
            sc__pair(e, "max_interference_pct", num);
        }
        sc__mapping_end(e);
    }
    if (card->n_env) {
        sc__scalar(e, "env");
        sc__mapping_start(e);
        for (size_t i = 0; i < card->n_env; i++)
            sc__pair(e, card->env[i].key, card->env[i].value);
        sc__mapping_end(e);
    }
    if (card->n_controlled) {
        sc__scalar(e, "controlled_variables");
        sc__emit(
            e, &ev,
            yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_SEQUENCE_STYLE));
        for (size_t i = 0; i < card->n_controlled; i++)
            sc__scalar(e, card->controlled[i]);
        sc__emit(e, &ev, yaml_sequence_end_event_initialize(&ev));
    }
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
