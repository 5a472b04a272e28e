/*
 * history_show.c: `streamcard history show`: the series a query selected, each the medians
 * of its bundles with their 95% intervals, as a table, CSV (RFC 4180, every text quoted) or
 * JSON (json-c).
 */
#include "history_cli.h"

#include <json-c/json.h>
#include <math.h>
#include <string.h>

static void sc__table(const sc_history_series *s, FILE *out)
{
    char when[32];

    if (s->cell && *s->node_b)
        fprintf(out, "%s: %s of link %s-%s (%s, %s is better)\n", s->card, s->metric, s->node_a,
                s->node_b, s->unit, s->better);
    else if (s->cell)
        fprintf(out, "%s: %s of node %s, the median of its pairs (%s, %s is better)\n", s->card,
                s->metric, s->node_a, s->unit, s->better);
    else
        fprintf(out, "%s on %s: %s (%s, %s is better)\n", s->card, s->host, s->metric, s->unit,
                s->better);
    fprintf(out, "  %-20s  %5s  %12s  %-27s  %s\n", "ended", "runs", "median", "95% interval",
            "bundle");
    for (size_t i = 0; i < s->n; i++) {
        const sc_history_point *p = &s->p[i];
        char ci[64];
        sc_history_time(p->ended_at, when, sizeof(when));
        if (p->ci)
            snprintf(ci, sizeof(ci), "[%.6g, %.6g]", p->ci_low, p->ci_high);
        else if (s->cell)
            snprintf(ci, sizeof(ci), "%s", p->verdict);
        else
            snprintf(ci, sizeof(ci), "unavailable (%zu runs)", p->runs);
        fprintf(out, "  %-20s  %5zu  %12.6g  %-27s  %s\n", when, p->runs, p->median, ci, p->name);
    }
}

/* A CSV field: quoted, quotes doubled; a text a spreadsheet would run as a formula (=, +,
   -, @) starts with a quote mark inside the quotes. */
static void sc__csv_text(FILE *out, const char *v, bool last)
{
    fputc('"', out);
    if (strchr("=+-@", *v) && *v)
        fputc('\'', out);
    for (const char *p = v; *p; p++) {
        if (*p == '"')
            fputc('"', out);
        fputc(*p, out);
    }
    fputs(last ? "\"\n" : "\",", out);
}

static void sc__csv(const sc_history_series *s, FILE *out)
{
    char when[32];

    for (size_t i = 0; i < s->n; i++) {
        const sc_history_point *p = &s->p[i];
        const char *texts[] = {s->card,   s->host,   s->metric, s->unit,  s->better,
                               s->node_a, s->node_b, p->name,   p->digest};
        for (size_t k = 0; k < sizeof(texts) / sizeof(texts[0]); k++)
            sc__csv_text(out, texts[k], false);
        sc_history_time(p->ended_at, when, sizeof(when));
        fprintf(out, "%s,%zu,%.10g,", when, p->runs, p->median);
        if (p->ci)
            fprintf(out, "%.10g,%.10g,", p->ci_low, p->ci_high);
        else
            fputs(",,", out);
        sc__csv_text(out, p->verdict, true);
    }
}

static json_object *sc__json_series(const sc_history_series *s)
{
    json_object *o = json_object_new_object(), *pts = json_object_new_array();
    char when[32];

    json_object_object_add(o, "card", json_object_new_string(s->card));
    if (s->cell) {
        json_object_object_add(o, "node_a", json_object_new_string(s->node_a));
        if (*s->node_b)
            json_object_object_add(o, "node_b", json_object_new_string(s->node_b));
    } else {
        json_object_object_add(o, "host", json_object_new_string(s->host));
    }
    json_object_object_add(o, "metric", json_object_new_string(s->metric));
    json_object_object_add(o, "unit", json_object_new_string(s->unit));
    json_object_object_add(o, "better", json_object_new_string(s->better));
    for (size_t i = 0; i < s->n; i++) {
        const sc_history_point *p = &s->p[i];
        json_object *q = json_object_new_object();
        sc_history_time(p->ended_at, when, sizeof(when));
        json_object_object_add(q, "bundle", json_object_new_string(p->name));
        json_object_object_add(q, "digest", json_object_new_string(p->digest));
        json_object_object_add(q, "ended_at", json_object_new_string(when));
        json_object_object_add(q, "runs", json_object_new_int64((int64_t)p->runs));
        json_object_object_add(q, "median", json_object_new_double(p->median));
        json_object_object_add(q, "ci95", p->ci ? json_object_new_array() : NULL);
        if (p->ci) {
            json_object *ci;
            json_object_object_get_ex(q, "ci95", &ci);
            json_object_array_add(ci, json_object_new_double(p->ci_low));
            json_object_array_add(ci, json_object_new_double(p->ci_high));
        }
        if (s->cell)
            json_object_object_add(q, "verdict", json_object_new_string(p->verdict));
        json_object_array_add(pts, q);
    }
    json_object_object_add(o, "points", pts);
    return o;
}

int sc_history_show(const sc_history_set *set, sc_history_format fmt, FILE *out)
{
    if (fmt == SC_HISTORY_JSON) {
        json_object *all = json_object_new_array();
        if (!all)
            return 3;
        for (size_t i = 0; i < set->n; i++)
            json_object_array_add(all, sc__json_series(&set->s[i]));
        fprintf(out, "%s\n",
                json_object_to_json_string_ext(all, JSON_C_TO_STRING_PRETTY |
                                                        JSON_C_TO_STRING_NOSLASHESCAPE));
        json_object_put(all);
        return 0;
    }
    if (fmt == SC_HISTORY_CSV)
        fputs("card,host,metric,unit,better,node_a,node_b,bundle,digest,ended_at,runs,median,"
              "ci95_low,ci95_high,verdict\n",
              out);
    for (size_t i = 0; i < set->n; i++) {
        if (fmt == SC_HISTORY_CSV)
            sc__csv(&set->s[i], out);
        else
            sc__table(&set->s[i], out);
    }
    return 0;
}
