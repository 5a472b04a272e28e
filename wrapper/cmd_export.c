/*
 * cmd_export.c: `streamcard export --prometheus BUNDLE...` (and, in export_intoto.c,
 * `--in-toto BUNDLE`): node_exporter textfile metrics
 * (Prometheus text format 0.0.4) for admins: verdicts, gates, the metrics of the registry
 * (sc_metric.h), transport and when each run ended, labelled by host, owner (of the bundle
 * directory), workload, kernel, card and run. Bundles are read one at a time and freed; only
 * the samples are kept. A bundle that fails verification still reports its verdict (0), never its
 * rates: numbers of a failed run are not to be used. With -o the file is written atomically (a
 * temporary file renamed), as the textfile collector needs.
 */
#include "analysis.h"
#include "cli.h"

#include "sc_text.h"

#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef void (*sc__emit_fn)(FILE *out, const char *metric, const sc_analysis_bundle *ab,
                            const char *labels);

typedef struct sc__family {
    const char *name, *help;
    sc__emit_fn emit;
} sc__family;

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

/* The labels every sample of a bundle carries (without braces). host, card and run are what
   the bundle says; owner is where it was found (the owner of its directory), which the
   bundle cannot fake: one user's files cannot speak for another user. */
static char *sc__labels(const sc_analysis_bundle *ab)
{
    const sc_bundle_facts *f = &ab->facts;
    const char *kernel = sc_facts_get(f, "kernel");
    char *buf = NULL, owner[256];
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);

    if (!out)
        return NULL;
    sc__owner(f->owner_uid, owner, sizeof(owner));
    sc__label(out, "host", f->host, true);
    sc__label(out, "owner", owner, false);
    sc__label(out, "workload", sc_workload_name(f->workload), false);
    sc__label(out, "kernel", kernel && strcmp(kernel, "n/a") ? kernel : "", false);
    sc__label(out, "card", f->run_name, false);
    sc__label(out, "run", f->name, false);
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

static void sc__emit_verdict(FILE *out, const char *m, const sc_analysis_bundle *ab,
                             const char *labels)
{
    sc__sample(out, m, labels, NULL, NULL, ab->usable);
}

static void sc__emit_intact(FILE *out, const char *m, const sc_analysis_bundle *ab,
                            const char *labels)
{
    sc__sample(out, m, labels, NULL, NULL, sc_verify_intact(&ab->verify));
}

/* One sample per gate that applies: 1 holds, 0 failed or without evidence. */
static void sc__emit_gates(FILE *out, const char *m, const sc_analysis_bundle *ab,
                           const char *labels)
{
    if (!ab->verify.gates_computed)
        return;
    for (int i = 0; i < SC_GATE_COUNT; i++) {
        sc_gate_state s = ab->verify.gates.g[i].state;
        if (s == SC_GATE_NULL && !sc_gate_mandatory((sc_gate_id)i))
            continue;
        sc__sample(out, m, labels, "gate", sc_gate_name((sc_gate_id)i), s == SC_GATE_OK);
    }
}

/* Every metric of a passed run (the registry's, sc_metric.h), labelled with its name, unit
   and direction; a failed run's figures are not to be used, so none is exported. */
static void sc__emit_metrics(FILE *out, const char *m, const sc_analysis_bundle *ab,
                             const char *labels)
{
    sc_metric ms[SC_METRIC_MAX];
    size_t n = ab->usable ? sc_metric_available(ab->facts.results, ms, SC_METRIC_MAX) : 0;
    double v;

    for (size_t i = 0; i < n; i++) {
        if (sc_facts_metric(&ab->facts, &ms[i], &v) < 0)
            continue;
        fprintf(out, "%s{%s", m, labels);
        sc__label(out, "metric", ms[i].name, false);
        sc__label(out, "unit", ms[i].unit, false);
        sc__label(out, "better", ms[i].better == SC_METRIC_HIGHER ? "higher" : "lower", false);
        fprintf(out, "} %.10g\n", v);
    }
}

/* A metric's runs and the 95% interval of its median (sc_stats.h), for every metric
   streamcard_metric exports: which = 0 the runs, 1 the interval's low end, 2 its high end
   (an interval only from 6 runs on). */
static void sc__emit_spread(FILE *out, const char *m, const sc_analysis_bundle *ab,
                            const char *labels, int which)
{
    sc_metric ms[SC_METRIC_MAX];
    size_t n = ab->usable ? sc_metric_available(ab->facts.results, ms, SC_METRIC_MAX) : 0;

    for (size_t i = 0; i < n; i++) {
        sc_analysis_cmp c;
        if (sc_analysis_compare(&ab->facts, &ab->facts, &ms[i], SC_ANALYSIS_NOISE_BOUND, &c) < 0 ||
            (which && !c.sa.ci))
            continue;
        fprintf(out, "%s{%s", m, labels);
        sc__label(out, "metric", ms[i].name, false);
        fprintf(out, "} %.10g\n",
                which == 0   ? (double)c.sa.n
                : which == 1 ? c.sa.ci_low
                             : c.sa.ci_high);
    }
}

static void sc__emit_runs(FILE *out, const char *m, const sc_analysis_bundle *ab,
                          const char *labels)
{
    sc__emit_spread(out, m, ab, labels, 0);
}

static void sc__emit_ci_low(FILE *out, const char *m, const sc_analysis_bundle *ab,
                            const char *labels)
{
    sc__emit_spread(out, m, ab, labels, 1);
}

static void sc__emit_ci_high(FILE *out, const char *m, const sc_analysis_bundle *ab,
                             const char *labels)
{
    sc__emit_spread(out, m, ab, labels, 2);
}

/* The worst foreign share over the bundle's CPUs and runs, when it was measured. */
static void sc__emit_interference(FILE *out, const char *m, const sc_analysis_bundle *ab,
                                  const char *labels)
{
    double worst = sc_analysis_worst_share(&ab->facts, NULL);

    if (worst >= 0)
        sc__sample(out, m, labels, NULL, NULL, worst);
}

static void sc__emit_time(FILE *out, const char *m, const sc_analysis_bundle *ab,
                          const char *labels)
{
    long long t = sc_facts_epoch(ab->facts.ended_at);

    if (t < 0)
        t = sc_facts_epoch(ab->facts.started_at);
    if (t >= 0)
        sc__sample(out, m, labels, NULL, NULL, (double)t);
}

static void sc__emit_transport(FILE *out, const char *m, const sc_analysis_bundle *ab,
                               const char *labels)
{
    const char *t = ab->facts.transport;

    if (*t && strcmp(t, "not recorded") != 0)
        sc__sample(out, m, labels, "transport", t, 1);
}

static const sc__family sc__families[] = {
    {"streamcard_verdict_ok", "1 when the bundle verifies and every gate holds, else 0",
     sc__emit_verdict},
    {"streamcard_bundle_intact", "1 when SHA256SUMS and the recorded claims match the raw files",
     sc__emit_intact},
    {"streamcard_gate_ok", "Each gate recomputed from the raw files: 1 holds, 0 failed",
     sc__emit_gates},
    {"streamcard_metric",
     "Each metric of a passed run (copy, scale, add, triad, qps, thread_seconds, latency_<size>, "
     "bw_<size>) in its unit; better says which direction is better",
     sc__emit_metrics},
    {"streamcard_metric_runs",
     "The runs (separate processes) behind each streamcard_metric, "
     "the median of their values when more than one",
     sc__emit_runs},
    {"streamcard_metric_ci95_low",
     "The low end of the 95% interval of each metric's median (6 runs or more)", sc__emit_ci_low},
    {"streamcard_metric_ci95_high",
     "The high end of the 95% interval of each metric's median (6 runs or more)", sc__emit_ci_high},
    {"streamcard_interference_max_pct",
     "The largest foreign share of any CPU the workload used, over its runs, in percent",
     sc__emit_interference},
    {"streamcard_run_timestamp_seconds", "When the run ended, seconds since the epoch",
     sc__emit_time},
    {"streamcard_transport_info", "The transport that carried an MPI run's data",
     sc__emit_transport},
};

#define SC__NFAMILIES (sizeof(sc__families) / sizeof(sc__families[0]))

/* The samples of each family so far: the format wants a family's samples together, so each
   bundle's are added to its family's text and the bundle is freed (only what is printed is
   kept, however many bundles). */
typedef struct sc__samples {
    char *text[SC__NFAMILIES];
    size_t len[SC__NFAMILIES];
    FILE *mem[SC__NFAMILIES];
} sc__samples;

static int sc__samples_open(sc__samples *s)
{
    memset(s, 0, sizeof(*s));
    for (size_t f = 0; f < SC__NFAMILIES; f++)
        if (!(s->mem[f] = open_memstream(&s->text[f], &s->len[f])))
            return -ENOMEM;
    return 0;
}

static void sc__samples_add(sc__samples *s, const sc_analysis_bundle *ab, const char *labels)
{
    for (size_t f = 0; f < SC__NFAMILIES; f++)
        sc__families[f].emit(s->mem[f], sc__families[f].name, ab, labels);
}

/* Closes the streams and writes every family that has samples (to out, when not NULL). */
static int sc__samples_close(sc__samples *s, FILE *out)
{
    int rc = 0;

    for (size_t f = 0; f < SC__NFAMILIES; f++) {
        if (s->mem[f] && fclose(s->mem[f]) != 0)
            rc = -ENOMEM;
        if (rc == 0 && out && s->len[f])
            fprintf(out, "# HELP %s %s\n# TYPE %s gauge\n%s", sc__families[f].name,
                    sc__families[f].help, sc__families[f].name, s->text[f]);
        free(s->text[f]);
    }
    return rc;
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
            "Writes node_exporter textfile metrics for the bundles: streamcard_verdict_ok,\n"
            "streamcard_bundle_intact, streamcard_gate_ok{gate},\n"
            "streamcard_metric{metric,unit,better} (every metric the run holds, named as\n"
            "below; the median of its runs when it has several), streamcard_metric_runs,\n"
            "streamcard_metric_ci95_low and _high{metric} (the median's 95%% interval, from\n"
            "6 runs), streamcard_interference_max_pct, streamcard_run_timestamp_seconds and\n"
            "streamcard_transport_info{transport}, labelled host, owner (who owns the\n"
            "bundle directory), workload, kernel, card (the run name) and run (the bundle).\n"
            "Figures only for runs that pass. Bundles are read one at a time.\n"
            "\n"
            "options:\n"
            "  --prometheus   the Prometheus text format\n"
            "  --in-toto      the bundle's signed statements, one DSSE envelope per line\n"
            "  -o FILE        write FILE atomically (FILE.tmp, then rename) instead of stdout\n"
            "  -h, --help     this text\n"
            "\n"
            "metrics (name, unit, better, workload):\n");
    sc_analysis_print_metrics(out);
    fprintf(out, "\n"
                 "Exit status: 0 every bundle exported, 1 a bundle could not be read (the others\n"
                 "are exported), 2 usage.\n");
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
    else
        o->output = arg; /* 'o' */
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
    static const struct option opts[] = {{"prometheus", no_argument, NULL, 'p'},
                                         {"output", required_argument, NULL, 'o'},
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
    sc__samples samples = {0};
    char *tmp = NULL;
    FILE *out = stdout;
    int status, first;

    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--in-toto") == 0)
            return sc_export_intoto(argc, argv);
    if (!sc_analysis_options(&cmd, argc, argv, &o, &first, &status))
        return status;
    sc_analysis_bundle *ab = calloc(1, sizeof(*ab));
    if (!ab || sc__samples_open(&samples) < 0 ||
        (o.output && asprintf(&tmp, "%s.tmp", o.output) < 0)) {
        free(ab);
        sc__samples_close(&samples, NULL);
        return SC_EXIT_ERROR;
    }
    for (int i = first; i < argc; i++) {
        sc_analysis_load_named(&cmd, ab, argv[i], &status);
        char *labels = ab->loaded ? sc__labels(ab) : NULL;
        if (labels)
            sc__samples_add(&samples, ab, labels);
        else if (ab->loaded)
            status = SC_EXIT_ERROR;
        free(labels);
        sc_analysis_free(ab);
    }
    free(ab);
    if (tmp && !(out = fopen(tmp, "w"))) {
        fprintf(stderr, "streamcard: export: %s: %s (valid: a writable directory)\n", tmp,
                strerror(errno));
        status = SC_EXIT_ERROR;
    }
    if (sc__samples_close(&samples, out) < 0)
        status = SC_EXIT_ERROR;
    if (tmp && out && (fclose(out) != 0 || status == SC_EXIT_ERROR || rename(tmp, o.output) < 0)) {
        fprintf(stderr, "streamcard: export: %s: %s\n", o.output, strerror(errno));
        unlink(tmp);
        status = SC_EXIT_ERROR;
    }
    free(tmp);
    return status;
}
