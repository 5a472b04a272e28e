/*
 * card_metrics.c: the card's metrics: (exec: figures of the program read from its log by
 * pattern, or from: marker, the figures it reports with sc_marker_figure();
 * doc/contracts/layout.md, "Figures of a program"): read from the YAML, copied and freed.
 * Their rules between entries (regexes, one primary) are the exec module's check.
 * Here too, the one error line of every card reader (sc_card_reader.h): this one, card.c
 * and ablation_read.c all call it, and card.c and ablation_read.c never each other back.
 */
#include "sc_card_reader.h"
#include "sc_card_schema.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sc__reader_error(sc__card_reader *r, const yaml_node_t *node, const char *fmt, ...)
{
    char msg[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    sc_diag_addf(r->diag, "%s:%d: %s", r->name, (int)node->start_mark.line + 1, msg);
    r->errors++;
}

void sc__card_metrics_free(sc_card *card)
{
    for (size_t i = 0; i < card->n_metrics; i++) {
        free(card->metrics[i].name);
        free(card->metrics[i].pattern);
        free(card->metrics[i].unit);
    }
    free(card->metrics);
    card->metrics = NULL;
    card->n_metrics = 0;
}

/* Appends a copy of m to card's metrics: 0 or -ENOMEM. */
static int sc__metric_add(sc_card *card, const sc_card_metric *m)
{
    sc_card_metric *grown = realloc(card->metrics, (card->n_metrics + 1) * sizeof(*grown));

    if (!grown)
        return -ENOMEM;
    card->metrics = grown;
    sc_card_metric *c = &grown[card->n_metrics];
    *c = *m;
    c->name = m->name ? strdup(m->name) : NULL;
    c->pattern = m->pattern ? strdup(m->pattern) : NULL;
    c->unit = m->unit ? strdup(m->unit) : NULL;
    card->n_metrics++;
    return (m->name && !c->name) || (m->pattern && !c->pattern) || (m->unit && !c->unit) ? -ENOMEM
                                                                                         : 0;
}

int sc__card_metrics_copy(sc_card *to, const sc_card *from)
{
    for (size_t i = 0; i < from->n_metrics; i++)
        if (sc__metric_add(to, &from->metrics[i]) < 0)
            return -ENOMEM;
    return 0;
}

/* One field of a metric's mapping into m; false with a line in r when it is not one. */
static bool sc__metric_field(sc__card_reader *r, sc_card_metric *m, const yaml_node_t *k,
                             const yaml_node_t *v)
{
    const char *key = (const char *)k->data.scalar.value;
    const char *value = (const char *)v->data.scalar.value;

    if (v->type != YAML_SCALAR_NODE || strlen(value) != v->data.scalar.length || !*value) {
        sc__reader_error(r, v, "metrics: %s: expected a single value of text", key);
        return false;
    }
    if (!strcmp(key, "name") || !strcmp(key, "pattern") || !strcmp(key, "unit")) {
        char **slot = key[0] == 'n' ? &m->name : key[0] == 'p' ? &m->pattern : &m->unit;
        return (*slot = strdup(value)) != NULL;
    }
    if (!strcmp(key, "better") && (!strcmp(value, "higher") || !strcmp(value, "lower"))) {
        m->higher = value[0] == 'h';
        return true;
    }
    if (!strcmp(key, "primary") && (!strcmp(value, "true") || !strcmp(value, "false"))) {
        m->primary = value[0] == 't';
        return true;
    }
    if (!strcmp(key, "from") && !strcmp(value, "marker")) {
        m->from_marker = true;
        return true;
    }
    if (!strcmp(key, "better") || !strcmp(key, "primary") || !strcmp(key, "from"))
        sc__reader_error(r, v, "metrics: %s: \"%.64s\" is not allowed (valid: %s)", key, value,
                         key[0] == 'b'   ? "higher, lower"
                         : key[0] == 'p' ? "true, false"
                                         : "marker");
    else
        sc__reader_error(r, k,
                         "metrics: unknown key \"%.64s\" (valid: name, pattern or from: marker, "
                         "unit, better, primary)",
                         key);
    return false;
}

/* One entry of metrics:, a mapping; its fields given once each, name, unit and better
   required, and either pattern or from: marker (doc/markers.md). */
static void sc__read_metric(sc__card_reader *r, yaml_node_t *map)
{
    sc_card_metric m = {.line = (int)map->start_mark.line + 1};
    unsigned seen = 0;
    static const char *const fields[] = {"name", "pattern", "unit", "better", "primary", "from"};
    enum { SC__PATTERN = 1u << 1, SC__FROM = 1u << 5 };

    if (map->type != YAML_MAPPING_NODE) {
        sc__reader_error(r, map,
                         "metrics: each entry is a mapping (valid: {name: copy_rate, pattern: "
                         "'([0-9.]+) GB/s', unit: GB/s, better: higher})");
        return;
    }
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
         p++) {
        yaml_node_t *k = yaml_document_get_node(r->doc, p->key);
        yaml_node_t *v = yaml_document_get_node(r->doc, p->value);
        unsigned bit = 0;
        if (k->type != YAML_SCALAR_NODE) {
            sc__reader_error(r, k, "metrics: keys must be names");
            continue;
        }
        for (unsigned i = 0; i < 6; i++)
            if (!strcmp((const char *)k->data.scalar.value, fields[i]))
                bit = 1u << i;
        if (seen & bit) {
            sc__reader_error(r, k, "metrics: %s given twice", k->data.scalar.value);
            continue;
        }
        seen |= bit;
        sc__metric_field(r, &m, k, v);
    }
    for (unsigned i = 0; i < 4; i++)
        if (!(seen & (1u << i)) && (1u << i) != SC__PATTERN)
            sc__reader_error(r, map,
                             "metrics: an entry without %s (valid: name, pattern or from: marker, "
                             "unit, better: higher|lower, and primary: true on at most one)",
                             fields[i]);
    if (!(seen & (SC__PATTERN | SC__FROM)))
        sc__reader_error(r, map,
                         "metrics: an entry without pattern or from: marker (valid: a pattern "
                         "that reads the figure from the log, or from: marker for the one the "
                         "program reports with sc_marker_figure)");
    else if ((seen & SC__PATTERN) && (seen & SC__FROM))
        sc__reader_error(r, map,
                         "metrics: an entry with both pattern and from: marker (valid: one of "
                         "them: the figure is read one way)");
    if (sc__metric_add(r->card, &m) < 0)
        r->errors++;
    free(m.name);
    free(m.pattern);
    free(m.unit);
}

void sc__card_read_metrics(sc__card_reader *r, yaml_node_t *seq)
{
    for (yaml_node_item_t *it = seq->data.sequence.items.start; it < seq->data.sequence.items.top;
         it++)
        sc__read_metric(r, yaml_document_get_node(r->doc, *it));
}
