/*
 * cmd_export.c: `streamcard export --prometheus BUNDLE...` (and, in export_intoto.c,
 * `--in-toto BUNDLE`): node_exporter textfile metrics
 * (Prometheus text format 0.0.4) for admins (doc/contracts/analysis.md, "export"): verdicts, gates,
 * the metrics of the registry (sc_metric.h) in base units named Prometheus style, transport and
 * when each bundle ended, labelled by host, owner (of the bundle directory), workload,
 * kernel, card and the card's hash. No label carries time: of the bundles with one label set,
 * only the newest is exported, with its age, so a node that recovers stops showing its old
 * failure and the number of series stays bounded however many runs a folder holds; and of the
 * label sets of one card that differ only in card_hash (the card was edited), only the one
 * with the newest bundle, so the old card's series retire. Bundles
 * are read one at a time and freed; only the newest bundle's samples per label set are kept.
 * A bundle that fails verification still reports its verdict (0), never its figures: numbers
 * of a failed run are not to be used. With -o the file is written whole or not at all
 * (outfile.h: a temporary file of its own beside it, fsync'd and renamed; a symlink there
 * refused), as the textfile collector needs, however many exports run at once.
 */
#include "analysis.h"
#include "cli.h"
#include "outfile.h"

#include "sc_hash.h"
#include "sc_text.h"

#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The hex digits of the card's SHA-256 in the card_hash label: enough to tell two cards of
   one name apart, short enough to read. */
#define SC__CARD_HASH_LEN 12

typedef struct sc__family sc__family;

/* What every emitter gets: the bundle, its labels (without braces) and when export ran. */
typedef struct sc__ctx {
    const sc_analysis_bundle *ab;
    const char *labels;
    long long now;
} sc__ctx;

typedef void (*sc__emit_fn)(FILE *out, const sc__family *fam, const sc__ctx *x);

/* The statistic a metric family holds: the median of the runs (the one run's value), the
   ends of its 95% interval, or the number of runs. */
typedef enum sc__stat { SC__MEDIAN, SC__CI_LOW, SC__CI_HIGH, SC__RUNS } sc__stat;

struct sc__family {
    const char *name, *help;
    sc__emit_fn emit;
    const char *suffix; /* metric families: the unit suffix of the name (sc__units) */
    sc__stat stat;
};

/* The registry's units (sc_metric.h) in Prometheus base units: the name's suffix and the
   factor from the registry's unit (MB is 10^6 bytes, as STREAM and the ping-pong count). */
typedef struct sc__unit {
    const char *unit, *suffix;
    double scale;
} sc__unit;

static const sc__unit sc__units[] = {
    {"MB/s", "bytes_per_second", 1e6},
    {"queries/s", "queries_per_second", 1},
    {"s", "seconds", 1},
    {"us", "seconds", 1e-6},
};

static const sc__unit *sc__unit_of(const char *unit)
{
    for (size_t i = 0; i < sizeof(sc__units) / sizeof(sc__units[0]); i++)
        if (strcmp(sc__units[i].unit, unit) == 0)
            return &sc__units[i];
    return NULL;
}

/* Writes value with the text format's label escapes: backslash, double quote, newline. The
   value is already safe text (sc_facts.h: valid UTF-8, no control character), so the file
   stays valid UTF-8 and one sample per line, whatever a bundle holds. */
static void sc__escape(FILE *out, const char *value)
{
    for (const char *p = value; *p; p++) {
        if (*p == '\\' || *p == '"')
            fprintf(out, "\\%c", *p);
        else if (*p == '\n')
            fputs("\\n", out);
        else
            fputc(*p, out);
    }
}

static void sc__label(FILE *out, const char *name, const char *value, bool first)
{
    fprintf(out, "%s%s=\"", first ? "" : ",", name);
    sc__escape(out, value);
    fputc('"', out);
}

/* Who owns the bundle directory: its user name (escaped), else the number. */
static void sc__owner(long uid, char *buf, size_t len)
{
    struct passwd pw, *found = NULL;
    char scratch[4096];

    if (uid >= 0 && getpwuid_r((uid_t)uid, &pw, scratch, sizeof(scratch), &found) == 0 && found)
        sc_text_escape(buf, len, found->pw_name, strlen(found->pw_name));
    else
        snprintf(buf, len, "%ld", uid);
}

/* The first SC__CARD_HASH_LEN hex digits of the SHA-256 of the bundle's card.yaml, "" when
   the bundle holds none. */
static void sc__card_hash(const sc_bundle_facts *f, char out[SC__CARD_HASH_LEN + 1])
{
    char hex[SC_HASH_HEX_LEN + 1];

    out[0] = '\0';
    if (f->card_text && sc_hash_buf(f->card_text, strlen(f->card_text), hex) == 0) {
        memcpy(out, hex, SC__CARD_HASH_LEN);
        out[SC__CARD_HASH_LEN] = '\0';
    }
}

/* The labels every sample of a bundle carries (without braces), which are also its series'
   identity: nothing in them changes from one run of a card to the next. host is the node
   whose trusted key signed the bundle's main statement (host_attested="1"), else what the
   bundle claims (host_attested="0": an unsigned bundle can name any host); card is what the
   bundle says; owner is where it was found (the owner of its directory), which the bundle
   cannot fake: one user's files cannot speak for another user. */
static char *sc__labels(const sc_analysis_bundle *ab)
{
    const sc_bundle_facts *f = &ab->facts;
    const char *kernel = sc_facts_get(f, "kernel");
    const char *attested = ab->verify.attested_host;
    char *buf = NULL, owner[256], hash[SC__CARD_HASH_LEN + 1], node[256];
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);

    if (!out)
        return NULL;
    sc__owner(f->owner_uid, owner, sizeof(owner));
    sc__card_hash(f, hash);
    sc_text_escape(node, sizeof(node), attested, strlen(attested));
    sc__label(out, "host", *attested ? node : f->host, true);
    sc__label(out, "host_attested", *attested ? "1" : "0", false);
    sc__label(out, "owner", owner, false);
    sc__label(out, "workload", sc_workload_name(f->workload), false);
    sc__label(out, "kernel", kernel && strcmp(kernel, "n/a") ? kernel : "", false);
    sc__label(out, "card", f->run_name, false);
    sc__label(out, "card_hash", hash, false);
    return fclose(out) == 0 ? buf : (free(buf), NULL);
}

static void sc__sample(FILE *out, const char *metric, const char *labels, const char *extra_name,
                       const char *extra_value, double value)
{
    fprintf(out, "%s{%s", metric, labels);
    if (extra_name)
        sc__label(out, extra_name, extra_value, false);
    fprintf(out, "} %.10g\n", value);
}

static void sc__emit_verdict(FILE *out, const sc__family *fam, const sc__ctx *x)
{
    sc__sample(out, fam->name, x->labels, NULL, NULL, x->ab->usable);
}

static void sc__emit_intact(FILE *out, const sc__family *fam, const sc__ctx *x)
{
    sc__sample(out, fam->name, x->labels, NULL, NULL, sc_verify_intact(&x->ab->verify));
}

/* One sample per gate that applies: 1 holds, 0 failed or without evidence. */
static void sc__emit_gates(FILE *out, const sc__family *fam, const sc__ctx *x)
{
    const sc_verify_report *v = &x->ab->verify;

    if (!v->gates_computed)
        return;
    for (int i = 0; i < SC_GATE_COUNT; i++) {
        sc_gate_state s = v->gates.g[i].state;
        if (s == SC_GATE_NULL && !sc_gate_mandatory((sc_gate_id)i))
            continue;
        sc__sample(out, fam->name, x->labels, "gate", sc_gate_name((sc_gate_id)i), s == SC_GATE_OK);
    }
}

/* The metrics of a passed run (the registry's, sc_metric.h) whose unit fam holds, labelled
   with their name and direction: the median of the runs (one run's value), the ends of its
   95% interval (from 6 runs on, sc_stats.h), or the number of runs, in the family's base
   unit. A failed run's figures are not to be used, so none is exported. */
static void sc__emit_metrics(FILE *out, const sc__family *fam, const sc__ctx *x)
{
    const sc_bundle_facts *f = &x->ab->facts;
    sc_metric ms[SC_METRIC_MAX];
    size_t n = x->ab->usable ? sc_facts_available(f, ms, SC_METRIC_MAX) : 0;

    for (size_t i = 0; i < n; i++) {
        const sc__unit *u = sc__unit_of(ms[i].unit);
        sc_analysis_cmp c;
        double v;
        /* suffix "": a card's own metric in a unit none of sc__units converts */
        bool other = fam->suffix && !*fam->suffix;
        double scale = u ? u->scale : 1;
        if ((other && u) ||
            (fam->suffix && !other && (!u || strcmp(u->suffix, fam->suffix) != 0)) ||
            sc_analysis_compare(f, f, &ms[i], &SC_ANALYSIS_OPTS_DEFAULT, &c) < 0)
            continue;
        if (fam->stat == SC__RUNS)
            v = (double)c.n_a;
        else if (fam->stat == SC__MEDIAN)
            v = c.val_a * scale;
        else if (c.sa.ci)
            v = (fam->stat == SC__CI_LOW ? c.sa.ci_low : c.sa.ci_high) * scale;
        else
            continue;
        fprintf(out, "%s{%s", fam->name, x->labels);
        sc__label(out, "metric", ms[i].name, false);
        if (other)
            sc__label(out, "unit", ms[i].unit, false);
        if (fam->stat == SC__MEDIAN)
            sc__label(out, "better", ms[i].better == SC_METRIC_HIGHER ? "higher" : "lower", false);
        fprintf(out, "} %.10g\n", v);
    }
}

/* The worst foreign share over the bundle's CPUs and runs, when it was measured, as a
   ratio (0 to 1). */
static void sc__emit_interference(FILE *out, const sc__family *fam, const sc__ctx *x)
{
    double worst = sc_analysis_worst_share(&x->ab->facts, NULL);

    if (worst >= 0)
        sc__sample(out, fam->name, x->labels, NULL, NULL, worst / 100);
}

/* When the bundle's run ended (else began), seconds since the epoch; -1 when unknown, and
   for a bundle that is not intact: its times are not trusted (verify holds an intact
   bundle's to be well formed, ordered and not in the future), so a forged time cannot make
   it the newest of its label set and shadow a newer bundle. */
static long long sc__ended(const sc_analysis_bundle *ab)
{
    const sc_bundle_facts *f = &ab->facts;

    if (!sc_verify_intact(&ab->verify))
        return -1;
    long long t = sc_facts_epoch(f->ended_at);
    return t >= 0 ? t : sc_facts_epoch(f->started_at);
}

static void sc__emit_time(FILE *out, const sc__family *fam, const sc__ctx *x)
{
    long long t = sc__ended(x->ab);

    if (t >= 0)
        sc__sample(out, fam->name, x->labels, NULL, NULL, (double)t);
}

/* Never below 0: an intact bundle's end is at most SC_VERIFY_CLOCK_SKEW_S ahead of this
   clock, a node's clock a little ahead of this one's. */
static void sc__emit_age(FILE *out, const sc__family *fam, const sc__ctx *x)
{
    long long t = sc__ended(x->ab);

    if (t >= 0)
        sc__sample(out, fam->name, x->labels, NULL, NULL, (double)(x->now > t ? x->now - t : 0));
}

static void sc__emit_transport(FILE *out, const sc__family *fam, const sc__ctx *x)
{
    const char *t = x->ab->facts.transport;

    if (*t && strcmp(t, "not recorded") != 0)
        sc__sample(out, fam->name, x->labels, "transport", t, 1);
}

static const sc__family sc__families[] = {
    {"streamcard_verdict_ok", "1 when the bundle verifies and every gate holds, else 0",
     sc__emit_verdict, NULL, SC__MEDIAN},
    {"streamcard_bundle_intact", "1 when SHA256SUMS and the recorded claims match the raw files",
     sc__emit_intact, NULL, SC__MEDIAN},
    {"streamcard_gate_ok", "Each gate recomputed from the raw files: 1 holds, 0 failed",
     sc__emit_gates, NULL, SC__MEDIAN},
    {"streamcard_metric_bytes_per_second",
     "Each bandwidth (copy, scale, add, triad, bw_<size>) metric of a passed run (the median of "
     "its runs); better: which way is better",
     sc__emit_metrics, "bytes_per_second", SC__MEDIAN},
    {"streamcard_metric_ci95_low_bytes_per_second",
     "The low end of the 95% interval of each bandwidth (copy, scale, add, triad, bw_<size>) "
     "metric's median (6 runs or more)",
     sc__emit_metrics, "bytes_per_second", SC__CI_LOW},
    {"streamcard_metric_ci95_high_bytes_per_second",
     "The high end of the 95% interval of each bandwidth (copy, scale, add, triad, bw_<size>) "
     "metric's median (6 runs or more)",
     sc__emit_metrics, "bytes_per_second", SC__CI_HIGH},
    {"streamcard_metric_queries_per_second",
     "Each throughput (qps) metric of a passed run (the median of its runs); better: which way is "
     "better",
     sc__emit_metrics, "queries_per_second", SC__MEDIAN},
    {"streamcard_metric_ci95_low_queries_per_second",
     "The low end of the 95% interval of each throughput (qps) metric's median (6 runs or more)",
     sc__emit_metrics, "queries_per_second", SC__CI_LOW},
    {"streamcard_metric_ci95_high_queries_per_second",
     "The high end of the 95% interval of each throughput (qps) metric's median (6 runs or more)",
     sc__emit_metrics, "queries_per_second", SC__CI_HIGH},
    {"streamcard_metric_seconds",
     "Each time (thread_seconds, latency_<size>) metric of a passed run (the median of its runs); "
     "better: which way is better",
     sc__emit_metrics, "seconds", SC__MEDIAN},
    {"streamcard_metric_ci95_low_seconds",
     "The low end of the 95% interval of each time (thread_seconds, latency_<size>) metric's "
     "median (6 runs or more)",
     sc__emit_metrics, "seconds", SC__CI_LOW},
    {"streamcard_metric_ci95_high_seconds",
     "The high end of the 95% interval of each time (thread_seconds, latency_<size>) metric's "
     "median (6 runs or more)",
     sc__emit_metrics, "seconds", SC__CI_HIGH},
    {"streamcard_metric_value",
     "Each metric a card declares (exec's metrics:) in a unit of its own, as the program printed "
     "it (the median of its runs); unit: the card's; better: which way is better",
     sc__emit_metrics, "", SC__MEDIAN},
    {"streamcard_metric_runs",
     "The runs (separate processes) behind each metric, the median of their values when more "
     "than one",
     sc__emit_metrics, NULL, SC__RUNS},
    {"streamcard_interference_max_ratio",
     "The largest foreign share of any CPU the workload used, over its runs (0 to 1)",
     sc__emit_interference, NULL, SC__MEDIAN},
    {"streamcard_bundle_end_timestamp_seconds",
     "When the newest bundle of the series ended, seconds since the epoch", sc__emit_time, NULL,
     SC__MEDIAN},
    {"streamcard_bundle_age_seconds",
     "Seconds from the end of the newest bundle of the series to the export", sc__emit_age, NULL,
     SC__MEDIAN},
    {"streamcard_transport_info", "The transport that carried an MPI run's data",
     sc__emit_transport, NULL, SC__MEDIAN},
};

#define SC__NFAMILIES (sizeof(sc__families) / sizeof(sc__families[0]))

/* One series set: the newest bundle of one label set so far and its samples per family
   (the format wants a family's samples together, so they are printed family by family at
   the end). Only these are kept, however many bundles are read. */
typedef struct sc__series {
    char *labels;
    long long ended;
    char *bundle; /* its directory name: the tie-break of two bundles that ended together
                     (sc__later_name) */
    char *text[SC__NFAMILIES];
    size_t len[SC__NFAMILIES];
} sc__series;

typedef struct sc__export {
    sc__series *s;
    size_t n, cap;
    long long now;
} sc__export;

static void sc__series_clear(sc__series *s)
{
    for (size_t f = 0; f < SC__NFAMILIES; f++) {
        free(s->text[f]);
        s->text[f] = NULL;
        s->len[f] = 0;
    }
    free(s->bundle);
    s->bundle = NULL;
}

/* Renders ab's samples into s (cleared first). Returns 0 or -ENOMEM. */
static int sc__series_render(sc__series *s, const sc_analysis_bundle *ab, long long now)
{
    sc__ctx x = {.ab = ab, .labels = s->labels, .now = now};
    int rc = 0;

    sc__series_clear(s);
    s->ended = sc__ended(ab);
    if (!(s->bundle = strdup(ab->facts.name)))
        return -ENOMEM;
    for (size_t f = 0; f < SC__NFAMILIES; f++) {
        FILE *mem = open_memstream(&s->text[f], &s->len[f]);
        if (!mem) {
            rc = -ENOMEM;
            continue;
        }
        sc__families[f].emit(mem, &sc__families[f], &x);
        if (fclose(mem) != 0)
            rc = -ENOMEM;
    }
    return rc;
}

/* The length of name without a "_<attempt>" that follows "_<YYYYMMDD>_<HHMMSS>", and that
   attempt (1 when there is none). */
static size_t sc__name_stamp(const char *name, long *attempt)
{
    size_t n = strlen(name), d = n;

    *attempt = 1;
    while (d > 0 && name[d - 1] >= '0' && name[d - 1] <= '9')
        d--;
    /* digits after '_', and before them '_' + 8 digits + '_' + 6 digits */
    if (d < n && d >= 17 && name[d - 1] == '_' && name[d - 8] == '_' && name[d - 17] == '_' &&
        strspn(name + d - 16, "0123456789") == 8 && strspn(name + d - 7, "0123456789") == 6) {
        *attempt = strtol(name + d, NULL, 10);
        return d - 1;
    }
    return n;
}

/* Of two bundles that ended in the same second, the later is the one created later:
   streamcard names a bundle <run name>_<date>_<time> and the next ones of that second
   <...>_2, <...>_3 and on, so the later is the one of the later second (the same run name:
   the same length), then of the larger attempt. */
static bool sc__later_name(const char *a, const char *b)
{
    long xa, xb;
    size_t la = sc__name_stamp(a, &xa), lb = sc__name_stamp(b, &xb);

    if (la != lb)
        return la > lb;
    int c = strncmp(a, b, la);
    return c != 0 ? c > 0 : xa > xb;
}

/* Adds ab under labels (taken over): a new series, or the newer bundle of an existing one
   (a later end, or the same end and a later directory name). Returns 0 or -ENOMEM. */
static int sc__export_add(sc__export *e, const sc_analysis_bundle *ab, char *labels)
{
    long long ended = sc__ended(ab);
    sc__series *s = NULL;

    for (size_t i = 0; i < e->n && !s; i++)
        if (strcmp(e->s[i].labels, labels) == 0)
            s = &e->s[i];
    if (s) {
        free(labels);
        if (ended < s->ended || (ended == s->ended && !sc__later_name(ab->facts.name, s->bundle)))
            return 0;
        return sc__series_render(s, ab, e->now);
    }
    if (e->n == e->cap) {
        size_t cap = e->cap ? 2 * e->cap : 8;
        sc__series *grown = realloc(e->s, cap * sizeof(*grown));
        if (!grown) {
            free(labels);
            return -ENOMEM;
        }
        e->s = grown;
        e->cap = cap;
    }
    s = &e->s[e->n++];
    memset(s, 0, sizeof(*s));
    s->labels = labels;
    return sc__series_render(s, ab, e->now);
}

/* The length of labels without its last label, card_hash: a card's identity across edits. */
static size_t sc__card_identity(const char *labels)
{
    const char *hash = strstr(labels, ",card_hash=\"");

    return hash ? (size_t)(hash - labels) : strlen(labels);
}

/* Whether series s is superseded: a series of the same card (host, owner, workload, kernel,
   run name) but another card_hash has a newer bundle. An edited card's old series is then
   retired from the export, so its last verdict (an alert's 0) does not stay beside the new
   card's. */
static bool sc__superseded(const sc__export *e, const sc__series *s)
{
    size_t len = sc__card_identity(s->labels);

    for (size_t i = 0; i < e->n; i++) {
        const sc__series *o = &e->s[i];
        if (o == s || sc__card_identity(o->labels) != len || strncmp(o->labels, s->labels, len))
            continue;
        if (o->ended > s->ended || (o->ended == s->ended && sc__later_name(o->bundle, s->bundle)))
            return true;
    }
    return false;
}

/* Writes every family that has samples (to out, when not NULL) and frees everything. */
static void sc__export_close(sc__export *e, FILE *out)
{
    bool *keep = calloc(e->n ? e->n : 1, sizeof(*keep));

    for (size_t i = 0; keep && i < e->n; i++)
        keep[i] = !sc__superseded(e, &e->s[i]);
    for (size_t f = 0; out && f < SC__NFAMILIES; f++) {
        bool any = false;
        for (size_t i = 0; i < e->n && !any; i++)
            any = (!keep || keep[i]) && e->s[i].len[f] > 0;
        if (!any)
            continue;
        fprintf(out, "# HELP %s %s\n# TYPE %s gauge\n", sc__families[f].name, sc__families[f].help,
                sc__families[f].name);
        for (size_t i = 0; i < e->n; i++)
            if ((!keep || keep[i]) && e->s[i].len[f])
                fwrite(e->s[i].text[f], 1, e->s[i].len[f], out);
    }
    free(keep);
    for (size_t i = 0; i < e->n; i++) {
        sc__series_clear(&e->s[i]);
        free(e->s[i].labels);
    }
    free(e->s);
    memset(e, 0, sizeof(*e));
}

static void sc__export_usage(FILE *out)
{
    fprintf(out,
            "usage: streamcard export --prometheus [-o FILE] BUNDLE...\n"
            "       streamcard export --in-toto [-o FILE] BUNDLE\n"
            "\n"
            "--in-toto writes the bundle's signed statements (DSSE envelopes of in-toto\n"
            "statements, one per line) for provenance tools; verify checks them.\n"
            "\n"
            "--prometheus writes node_exporter textfile metrics, labelled host, owner (who\n"
            "owns the bundle directory), workload, kernel, card (the run name) and card_hash\n"
            "(the card's SHA-256, 12 digits). No label carries time: of the bundles with one\n"
            "label set only the newest is exported, so `runs/*` gives one series per card\n"
            "and metric however many runs it holds; a card edited (another card_hash) retires\n"
            "the series of its older version. Gauges: streamcard_verdict_ok,\n"
            "streamcard_bundle_intact, streamcard_gate_ok{gate},\n"
            "streamcard_metric_bytes_per_second, _queries_per_second and _seconds\n"
            "{metric,better} (every metric the run holds, in base units; the median of its\n"
            "runs), streamcard_metric_ci95_low_<unit> and _high_<unit>{metric} (the median's\n"
            "95%% interval, from 6 runs), streamcard_metric_runs{metric},\n"
            "streamcard_interference_max_ratio, streamcard_bundle_end_timestamp_seconds,\n"
            "streamcard_bundle_age_seconds (at the export) and\n"
            "streamcard_transport_info{transport}. Figures only for runs that pass. Bundles\n"
            "are read one at a time.\n"
            "\n"
            "options:\n"
            "  --prometheus   the Prometheus text format\n"
            "  --in-toto      the bundle's signed statements, one DSSE envelope per line\n"
            "  -o FILE        write FILE whole or not at all (a temporary file of its own beside\n"
            "                 it, then renamed; a symlink at FILE is refused) instead of stdout\n"
            "  -h, --help     this text\n"
            "\n"
            "metrics (name, unit, better, workload):\n");
    sc_analysis_print_metrics(out);
    fprintf(out, "\n"
                 "Exit status: 0 every bundle exported, 1 a bundle could not be read (the others\n"
                 "are exported), 2 usage, 3 the file could not be written.\n");
}

typedef struct sc__export_opts {
    const char *output;
    bool prometheus;
} sc__export_opts;

static int sc__export_option(void *ctx, int c, const char *arg)
{
    sc__export_opts *o = ctx;

    if (c == 'p')
        o->prometheus = true;
    else if (c == 'o')
        o->output = arg;
    else /* 't': --in-toto with a value, which it does not take */
        return SC_EXIT_USAGE;
    return SC_ANALYSIS_GO_ON;
}

static int sc__export_check(void *ctx, size_t n)
{
    const sc__export_opts *o = ctx;

    if (o->prometheus && n > 0)
        return SC_ANALYSIS_GO_ON;
    fprintf(stderr, "streamcard: export: needs --prometheus and at least one bundle (valid: "
                    "streamcard export --prometheus BUNDLE...)\n");
    return SC_EXIT_USAGE;
}

int sc_cmd_export(int argc, char **argv)
{
    /* in-toto: export_intoto.c reads its own options; here for a misspelling's suggestion. */
    static const struct option opts[] = {{"prometheus", no_argument, NULL, 'p'},
                                         {"output", required_argument, NULL, 'o'},
                                         {"in-toto", no_argument, NULL, 't'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    /* A bundle that cannot be read is left out; a refused one still reports its verdict. */
    static const sc_analysis_cmd cmd = {.name = "export",
                                        .short_opts = ":ho:",
                                        .long_opts = opts,
                                        .usage = sc__export_usage,
                                        .usage_status = SC_EXIT_USAGE,
                                        .option = sc__export_option,
                                        .check = sc__export_check,
                                        .unreadable_hint = " (left out)",
                                        .unreadable_status = SC_EXIT_FAILED};
    sc__export_opts o = {0};
    sc__export e = {.now = (long long)time(NULL)};
    sc_outfile out = {0};
    char why[4096 + 256];
    int status, first;

    for (int i = 1; i < argc; i++) /* --in-toto, or its prefix as getopt takes it (--in-t) */
        if (strlen(argv[i]) >= 4 && strncmp(argv[i], "--in-toto", strlen(argv[i])) == 0)
            return sc_export_intoto(argc, argv);
    if (!sc_analysis_options(&cmd, argc, argv, &o, &first, &status))
        return status;
    sc_analysis_bundle *ab = calloc(1, sizeof(*ab));
    if (!ab)
        return SC_EXIT_ERROR;
    for (int i = first; i < argc; i++) {
        sc_analysis_load_named(&cmd, ab, argv[i], &status);
        char *labels = ab->loaded ? sc__labels(ab) : NULL;
        if ((ab->loaded && !labels) || (labels && sc__export_add(&e, ab, labels) < 0))
            status = SC_EXIT_ERROR;
        sc_analysis_free(ab);
    }
    free(ab);
    if (sc_outfile_open(&out, o.output ? o.output : "-", why, sizeof(why)) < 0) {
        fprintf(stderr, "streamcard: export: %s\n", why);
        sc__export_close(&e, NULL);
        return SC_EXIT_ERROR;
    }
    sc__export_close(&e, out.f);
    if (status == SC_EXIT_ERROR) { /* a bundle that could not be rendered: the file stays */
        if (o.output)
            fprintf(stderr, "streamcard: export: %s: not written: %s\n", o.output,
                    strerror(ENOMEM));
        sc_outfile_abort(&out);
    } else if (sc_outfile_commit(&out, why, sizeof(why)) < 0) {
        fprintf(stderr, "streamcard: export: %s\n", why);
        status = SC_EXIT_ERROR;
    }
    return status;
}
