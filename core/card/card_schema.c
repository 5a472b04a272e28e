/*
 * card_schema.c: the table of card keys and the conversion of one scalar value into the
 * card. The YAML reader (card.c) and the command-line flags both call sc__card_assign(),
 * so a value means the same thing wherever it comes from.
 */
#include "sc_card_schema.h"
#include "sc_carrier.h"
#include "sc_cpulist.h"
#include "sc_text.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *sc__card_slot(sc_card *card, sc_card_field f)
{
    switch (f) {
    case SC_CF_VERSION: return &card->version;
    case SC_CF_QUESTION: return &card->question;
    case SC_CF_RUN_NAME: return &card->run_name;
    case SC_CF_KERNEL: return &card->kernel;
    case SC_CF_VALIDATE_PATTERN: return &card->validate_pattern;
    case SC_CF_BEGIN_PATTERN: return &card->begin_pattern;
    case SC_CF_END_PATTERN: return &card->end_pattern;
    case SC_CF_MARKERS: return &card->markers;
    case SC_CF_CPU_LIST: return &card->cpu_list;
    case SC_CF_THREADS: return &card->threads;
    case SC_CF_MEMORY_NODE: return &card->memory_node;
    case SC_CF_ONE_PER_CORE:
        return &card->one_per_core;
    case SC_CF_GOVERNOR: return &card->governor;
    case SC_CF_ARRAY_SIZE: return &card->array_size;
    case SC_CF_ITERATIONS: return &card->iterations;
    case SC_CF_NT_STORES: return &card->nt_stores;
    case SC_CF_CACHE_RESIDENT: return &card->cache_resident;
    case SC_CF_NB: return &card->nb;
    case SC_CF_NQ: return &card->nq;
    case SC_CF_DIM: return &card->dim;
    case SC_CF_K: return &card->k;
    case SC_CF_POOL_THREADS: return &card->pool_threads;
    case SC_CF_BLAS:
        return &card->blas;
    case SC_CF_RANKS: return &card->ranks;
    case SC_CF_MIN_BYTES: return &card->min_bytes;
    case SC_CF_MAX_BYTES: return &card->max_bytes;
    case SC_CF_WINDOW: return &card->window;
    case SC_CF_PAIRS: return &card->pairs;
    case SC_CF_OUTLIER_MAD: return &card->outlier_mad;
    case SC_CF_OUTLIER_MIN_PCT: return &card->outlier_min_pct;
    case SC_CF_PASSES: return &card->passes;
    case SC_CF_NODES: return &card->nodes;
    case SC_CF_EXPECT_TRANSPORT: return &card->expect_transport;
    case SC_CF_EXPECT_INTERFACE: return &card->expect_interface;
    case SC_CF_EXPECT_MIN_RATE: return &card->expect_min_rate_MBps;
    case SC_CF_RUNS: return &card->runs;
    case SC_CF_RUNS_CI_PCT: return &card->runs_ci_pct;
    case SC_CF_RUNS_MAX: return &card->runs_max;
    case SC_CF_INTERFERENCE_ACCOUNTING: return &card->interference_accounting;
    case SC_CF_EXPECT_MAX_INTERFERENCE: return &card->expect_max_interference_pct;
    case SC_CF_EXPECT_AT_BYTES: return &card->expect_at_bytes;
    case SC_CF_EXPECT_MAX_LATENCY: return &card->expect_max_latency_us;
    default: return NULL;
    }
}

/* Parses a plain decimal integer (digits only, optional '_' separators between digits). */
static int sc__parse_decimal(const char *s, unsigned long long *out)
{
    unsigned long long v = 0;
    int digits = 0;

    for (const char *p = s; *p; p++) {
        if (*p == '_' && digits && isdigit((unsigned char)p[1]))
            continue;
        if (!isdigit((unsigned char)*p))
            return -EINVAL;
        unsigned d = (unsigned)(*p - '0');
        if (v > (ULLONG_MAX - d) / 10)
            return -ERANGE;
        v = v * 10 + d;
        digits++;
    }
    if (!digits)
        return -EINVAL;
    *out = v;
    return 0;
}

static int sc__replace_string(char **slot, const char *value)
{
    char *copy = strdup(value);

    if (!copy)
        return -ENOMEM;
    free(*slot);
    *slot = copy;
    return 0;
}

/*
 * A carriers value: each comma-separated carrier in canonical form (sc_carrier.h), joined
 * by commas, into *slot. Returns 0 or -EINVAL with a line in diag.
 */
static int sc__assign_carriers(char **slot, const char *name, const char *value, const char *where,
                               sc_diag *diag)
{
    char list[SC__CARD_NAME_MAX + 1] = "", one[SC_CARRIER_MAX], why[256], item[SC_CARRIER_MAX];
    size_t used = 0;

    for (const char *p = value;; p++) {
        size_t n = strcspn(p, ",");
        snprintf(item, sizeof(item), "%.*s", (int)(n < sizeof(item) ? n : sizeof(item) - 1), p);
        if (n >= sizeof(item) || strlen(value) > SC__CARD_NAME_MAX) {
            sc_diag_addf(diag, "%s: %s: longer than %d characters (valid: %s)", where, name,
                         SC__CARD_NAME_MAX, sc_carrier_choices());
            return -EINVAL;
        }
        if (sc_carrier_canonical(item, one, sizeof(one), why, sizeof(why)) < 0) {
            sc_diag_addf(diag, "%s: %s: %s (valid: %s)", where, name, why, sc_carrier_choices());
            return -EINVAL;
        }
        if (!sc_word_in(list, ",", one)) /* each once: "shm,shm" is shm */
            used +=
                (size_t)snprintf(list + used, sizeof(list) - used, "%s%s", used ? "," : "", one);
        p += n;
        if (!*p)
            break;
    }
    return sc__replace_string(slot, list);
}

static int sc__assign_value(sc_card *card, const sc__card_key *key, const char *value,
                            const char *where, sc_diag *diag)
{
    const char *name = sc__card_key_name(key);
    void *slot = sc__card_slot(card, key->field);
    unsigned long long u = 0;
    char why[160];

    switch (key->type) {
    case SC__CT_STRING:
        return sc__replace_string(slot, value);
    case SC__CT_NAME:
        if (!sc__card_is_name(value)) {
            sc_diag_addf(diag,
                         "%s: %s: \"%s\" is not a valid name (valid: letters, digits, '.', '_', "
                         "'-', ':', at most 100, not starting with '.' or '-')",
                         where, name, value);
            return -EINVAL;
        }
        return sc__replace_string(slot, value);
    case SC__CT_CARRIERS:
        return sc__assign_carriers(slot, name, value, where, diag);
    case SC__CT_CHOICE:
        /* "/path" among the choices: an absolute path too (blas:), its file checked where
           it runs */
        if (value[0] == '/' && sc_word_in(key->choices, "|", "/path"))
            return sc__replace_string(slot, value);
        if (!sc_word_in(key->choices, "|", value) || !strcmp(value, "/path")) {
            sc_diag_addf(diag, "%s: %s: \"%s\" is not allowed (valid: %s)", where, name, value,
                         key->choices);
            return -EINVAL;
        }
        return sc__replace_string(slot, value);
    case SC__CT_LONG:
    case SC__CT_U64:
    case SC__CT_SIZE:
    case SC__CT_RUNS: {
        bool autoable = key->type == SC__CT_RUNS || key->type == SC__CT_SIZE;
        if (autoable && strcmp(value, "auto") == 0) {
            if (key->type == SC__CT_RUNS)
                *(long *)slot = 0; /* runs: auto */
            else
                *(uint64_t *)slot = 0; /* array_size: auto, resolved where it runs */
            return 0;
        }
        int rc = sc__parse_decimal(value, &u);
        if (rc < 0 || u < (unsigned long long)key->min || u > (unsigned long long)key->max) {
            sc_diag_addf(diag, "%s: %s: \"%s\" is not %s (valid: %lld-%lld%s)", where, name, value,
                         rc < 0 && rc != -ERANGE ? "a whole number" : "in range", key->min,
                         key->max, autoable ? ", or auto" : "");
            return -EINVAL;
        }
        if (key->type != SC__CT_LONG && key->type != SC__CT_RUNS)
            *(uint64_t *)slot = (uint64_t)u;
        else
            *(long *)slot = (long)u;
        return 0;
    }
    case SC__CT_DOUBLE: {
        char *end = NULL;
        errno = 0;
        double d = strtod(value, &end);
        if (errno || end == value || *end || !isfinite(d) || d <= 0) {
            sc_diag_addf(diag, "%s: %s: \"%s\" is not a positive number (valid: e.g. 60000)", where,
                         name, value);
            return -EINVAL;
        }
        *(double *)slot = d;
        return 0;
    }
    case SC__CT_CPULIST:
        if (sc_cpulist_parse(value, card->cpus, why, sizeof(why)) < 0) {
            sc_diag_addf(diag, "%s: %s: %s (valid: Linux cpulist such as 0-3,8,10-11)", where, name,
                         why);
            return -EINVAL;
        }
        return sc__replace_string(&card->cpu_list, value);
    case SC__CT_WORKLOAD: {
        const sc_workload_ops *ops = sc_workload_lookup(value);
        char names[128];
        if (ops) {
            card->workload = ops->id;
            return 0;
        }
        sc_workload_names(", ", names, sizeof(names));
        sc_diag_addf(diag, "%s: %s: \"%s\" is not a workload (valid: %s)", where, name, value,
                     names);
        return -EINVAL;
    }
    case SC__CT_PREFETCH:
        for (int p = SC_PREFETCH_UNCHANGED; p <= SC_PREFETCH_OFF; p++)
            if (strcmp(value, sc_prefetch_name((sc_prefetch)p)) == 0) {
                card->prefetch = (sc_prefetch)p;
                return 0;
            }
        sc_diag_addf(diag, "%s: %s: \"%s\" is not allowed (valid: on, off, unchanged)", where, name,
                     value);
        return -EINVAL;
    case SC__CT_SWITCH:
        /* YAML's booleans are words too: true and false say the same. */
        if (strcmp(value, "on") != 0 && strcmp(value, "off") != 0 && strcmp(value, "true") != 0 &&
            strcmp(value, "false") != 0) {
            sc_diag_addf(diag, "%s: %s: \"%s\" is not allowed (valid: on, off)", where, name,
                         value);
            return -EINVAL;
        }
        *(bool *)slot = strcmp(value, "on") == 0 || strcmp(value, "true") == 0;
        return 0;
    case SC__CT_ENV:
    case SC__CT_LIST:
    case SC__CT_METRICS:
        break;
    }
    sc_diag_addf(diag, "%s: %s: expected a %s, got a single value", where, name,
                 key->type == SC__CT_ENV       ? "mapping (NAME: value)"
                 : key->type == SC__CT_METRICS ? "list of metrics ({name, pattern, unit, better})"
                                               : "list");
    return -EINVAL;
}

int sc__card_assign(sc_card *card, const sc__card_key *key, const char *value, const char *where,
                    sc_diag *diag)
{
    int rc = sc__assign_value(card, key, value, where, diag);

    card->invalid[key->field] = rc == -EINVAL;
    return rc;
}

const void *sc__card_slot_of(const sc_card *card, sc_card_field field)
{
    /* The slot is only read: the cast drops const for the shared lookup. */
    return sc__card_slot((sc_card *)card, field);
}

sc__card_list sc__card_list_of(sc_card *card, sc_card_field field)
{
    switch (field) {
    case SC_CF_CONTROLLED:
        return (sc__card_list){&card->controlled, &card->n_controlled};
    case SC_CF_COMMAND:
        return (sc__card_list){&card->command, &card->n_command};
    default:
        return (sc__card_list){NULL, NULL};
    }
}

char *sc__card_value_text(const sc_card *card, sc_card_field field)
{
    const sc__card_key *key = &sc__card_keys[field];
    /* The slot is only read: the cast drops const for the shared lookup. */
    const void *slot = sc__card_slot((sc_card *)card, field);
    char *text = NULL;

    switch (key->type) {
    case SC__CT_LONG:
        return asprintf(&text, "%ld", *(const long *)slot) < 0 ? NULL : text;
    case SC__CT_SIZE:
        if (!*(const uint64_t *)slot)
            return strdup("auto");
        /* fall through */
    case SC__CT_U64:
        return asprintf(&text, "%llu", (unsigned long long)*(const uint64_t *)slot) < 0 ? NULL
                                                                                        : text;
    case SC__CT_DOUBLE:
        return asprintf(&text, "%.17g", *(const double *)slot) < 0 ? NULL : text;
    case SC__CT_CPULIST:
        return sc_cpulist_format(card->cpus);
    case SC__CT_WORKLOAD:
        return strdup(sc_workload_name(card->workload));
    case SC__CT_PREFETCH:
        return strdup(sc_prefetch_name(card->prefetch));
    case SC__CT_SWITCH:
        return strdup(*(const bool *)slot ? "on" : "off");
    case SC__CT_RUNS:
        if (!*(const long *)slot)
            return strdup("auto");
        return asprintf(&text, "%ld", *(const long *)slot) < 0 ? NULL : text;
    case SC__CT_STRING:
    case SC__CT_NAME:
    case SC__CT_CARRIERS:
    case SC__CT_CHOICE: {
        const char *value = *(char *const *)slot;
        return strdup(value ? value : "");
    }
    case SC__CT_ENV:
    case SC__CT_LIST:
    case SC__CT_METRICS:
        break;
    }
    return strdup(""); /* not a single value: never swept */
}

size_t sc_card_run_parameters(const sc_card *card, sc_card_param out[SC_CARD_MAX_PARAMS])
{
    size_t n = 0;

    /* The workload's own parameters: the variables (the schema's role) only some workloads
       read, given as one number or word. memory_node is placement and markers how the main
       loop is found, both recorded elsewhere; a window of 0 is "not set". */
    for (size_t i = 0; i < SC_CF_COUNT && n < SC_CARD_MAX_PARAMS; i++) {
        const sc__card_key *key = &sc__card_keys[i];
        if (key->role != SC__ROLE_VARIABLE || !sc_workload_own_key(key->field) ||
            !sc_workload_reads(card->workload, key->field) || key->type == SC__CT_STRING ||
            key->type == SC__CT_LIST || key->type == SC__CT_METRICS ||
            key->type == SC__CT_ENV || key->field == SC_CF_MEMORY_NODE ||
            key->field == SC_CF_MARKERS || (key->field == SC_CF_WINDOW && !card->window))
            continue;
        /* The slot is only read: the cast drops const for the shared lookup. */
        const void *slot = sc__card_slot((sc_card *)card, key->field);
        sc_card_param *p = &out[n];
        p->name = sc__card_key_name(key);
        p->text = NULL;
        p->number = 0;
        if (key->type == SC__CT_LONG)
            p->number = (uint64_t) * (const long *)slot;
        else if (key->type == SC__CT_U64 || key->type == SC__CT_SIZE)
            p->number = *(const uint64_t *)slot;
        else if (!(p->text = *(char *const *)slot))
            continue; /* a word the card left unset (mpi kernel): nothing to record */
        n++;
    }
    return n;
}

const char *sc_prefetch_name(sc_prefetch p)
{
    switch (p) {
    case SC_PREFETCH_ON: return "on";
    case SC_PREFETCH_OFF: return "off";
    default: return "unchanged";
    }
}

