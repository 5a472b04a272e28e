/* analysis.c: what the analysis commands share (see analysis.h). */
#include "analysis.h"
#include "cli.h"
#include "options.h"
#include "sc_bundle_view.h"
#include "sc_num.h"
#include "sc_text.h"
#include "sc_runs.h"
#include "sc_linkmatrix.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int sc_analysis_load(sc_analysis_bundle *ab, const char *path)
{
    return sc_analysis_load_opts(ab, path, NULL);
}

int sc_analysis_load_opts(sc_analysis_bundle *ab, const char *path, const sc_verify_opts *opts)
{
    sc_bundle_view v;
    sc_bundle_view_opts vo = {.verify = opts};

    memset(ab, 0, sizeof(*ab));
    /* A path a user named (a glob over users' directories): shown, never printed raw. */
    sc_text_escape(ab->arg_shown, sizeof(ab->arg_shown), path, strlen(path));
    ab->arg = ab->arg_shown;
    ab->path = path;
    int rc = sc_bundle_view_open(path, &vo, &v); /* the view's parts are the bundle's now */
    ab->open_rc = v.open_rc;
    ab->verify = v.verify;
    ab->usable = v.verdict == SC_VIEW_VERIFIED;
    snprintf(ab->why, sizeof(ab->why), "%s", v.why);
    ab->loaded = v.loaded;
    ab->facts = v.facts;
    return rc;
}

void sc_analysis_free(sc_analysis_bundle *ab)
{
    if (!ab)
        return;
    sc_verify_report_free(&ab->verify);
    if (ab->loaded)
        sc_facts_free(&ab->facts);
    ab->loaded = false;
}

/* The options: SC_ANALYSIS_GO_ON, or the exit status to stop with. */
static int sc__options(const sc_analysis_cmd *cmd, int argc, char **argv, void *ctx)
{
    int c;

    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, cmd->short_opts, cmd->long_opts, NULL)) != -1) {
        if (c == 'h') {
            cmd->usage(stdout);
            return SC_EXIT_OK;
        }
        if (c == ':' || c == '?') {
            char line[512];
            sc_option_error(cmd->long_opts, c, argc, argv, &optind, line, sizeof(line));
            fprintf(stderr, "streamcard: %s: %s (see streamcard %s --help)\n", cmd->name, line,
                    cmd->name);
            return cmd->usage_status;
        }
        int rc = cmd->option(ctx, c, optarg);
        if (rc != SC_ANALYSIS_GO_ON)
            return rc;
    }
    return cmd->check(ctx, (size_t)(argc - optind));
}

bool sc_analysis_options(const sc_analysis_cmd *cmd, int argc, char **argv, void *ctx, int *first,
                         int *status)
{
    *status = sc__options(cmd, argc, argv, ctx);
    if (*status != SC_ANALYSIS_GO_ON)
        return false;
    *first = optind;
    *status = SC_EXIT_OK;
    return true;
}

void sc_analysis_load_named(const sc_analysis_cmd *cmd, sc_analysis_bundle *ab, const char *path,
                            int *status)
{
    if (sc_analysis_load(ab, path) < 0) {
        if (!cmd->unreadable_hint)
            return;
        fprintf(stderr, "streamcard: %s: %s: %s%s\n", cmd->name, ab->arg, ab->why,
                cmd->unreadable_hint);
        *status = cmd->unreadable_status;
    } else if (!ab->usable && cmd->refused_hint) {
        fprintf(stderr, "streamcard: %s: %s: refused: %s%s\n", cmd->name, ab->arg, ab->why,
                cmd->refused_hint);
        if (*status == SC_EXIT_OK)
            *status = SC_EXIT_FAILED;
    }
}

bool sc_analysis_begin(const sc_analysis_cmd *cmd, int argc, char **argv, void *ctx,
                       sc_analysis_set *set, int *status)
{
    int first;

    set->b = NULL;
    set->n = 0;
    if (!sc_analysis_options(cmd, argc, argv, ctx, &first, status))
        return false;
    size_t n = (size_t)(argc - first);
    set->b = calloc(n ? n : 1, sizeof(*set->b));
    if (!set->b) {
        *status = SC_EXIT_ERROR;
        return false;
    }
    set->n = n;
    for (size_t i = 0; i < n; i++)
        sc_analysis_load_named(cmd, &set->b[i], argv[first + (int)i], status);
    return true;
}

void sc_analysis_set_free(sc_analysis_set *set)
{
    for (size_t i = 0; set->b && i < set->n; i++)
        sc_analysis_free(&set->b[i]);
    free(set->b);
    set->b = NULL;
    set->n = 0;
}

size_t sc_analysis_differences(const sc_bundle_facts *a, const sc_bundle_facts *b,
                               size_t idx[SC_FACTS_MAX_VARS])
{
    size_t all[SC_FACTS_MAX_VARS], n = 0, nall = sc_facts_diff(a, b, all);

    for (size_t i = 0; i < nall; i++)
        if (!sc_facts_follows(a, b, all[i]))
            idx[n++] = all[i];
    return n;
}

void sc_analysis_difference(const sc_bundle_facts *a, const sc_bundle_facts *b, size_t i, char *buf,
                            size_t len)
{
    char names[400];

    if (strcmp(a->vars[i].name, "env") == 0 && sc_facts_env_diff(a, b, names, sizeof(names)))
        snprintf(buf, len, "env (%s)", names);
    else
        snprintf(buf, len, "%s", a->vars[i].name);
}

size_t sc_analysis_metrics(const sc_bundle_facts *f, const char *name, sc_metric *out, size_t max)
{
    size_t n = 0;

    if (name)
        return max && sc_facts_metric_named(f, name, out) == 0 ? 1 : 0;
    for (; n < f->n_metrics && n < max; n++)
        out[n] = f->metrics[n];
    return n;
}

size_t sc_analysis_judged(const sc_bundle_facts *f, const char *names, sc_metric *out, size_t max)
{
    size_t n = 0;

    if (!names)
        return max && f->has_primary ? (out[0] = f->primary, 1) : 0;
    if (!strcmp(names, "all"))
        return sc_analysis_metrics(f, NULL, out, max);
    for (const char *p = names; *p && n < max;) {
        char one[SC_METRIC_NAME_MAX + 8];
        size_t len = strcspn(p, ",");
        snprintf(one, sizeof(one), "%.*s", (int)len, p);
        if (sc_facts_metric_named(f, one, &out[n]) == 0)
            n++;
        p += len + (p[len] == ',');
    }
    return n;
}

/* The line that says one is no metric (of the registry, nor of f's card when f is given). */
static void sc__not_a_metric(const char *cmd, const char *one, const sc_bundle_facts *f)
{
    char declared[SC_METRIC_MAX * 8] = "";
    size_t len = 0;

    for (size_t i = 0; f && i < f->n_metrics && len < sizeof(declared); i++)
        if (f->metrics[i].declared)
            len += (size_t)snprintf(declared + len, sizeof(declared) - len, "%s%s",
                                    len ? ", " : "; the card's own: ", f->metrics[i].name);
    fprintf(stderr,
            "streamcard: %s: --metric %s: not a metric (valid: copy, scale, add, triad, qps, "
            "thread_seconds, latency_<size>, bw_<size> with a size like 8B, 64KiB, 1MiB%s; "
            "several joined by commas; or all)\n",
            cmd, one, declared);
}

/* Whether each name of names resolves: against f (its card's metrics, then the registry),
   or the registry alone (f NULL); said for cmd when one does not. */
static bool sc__metrics_resolve(const char *cmd, const char *names, const sc_bundle_facts *f)
{
    sc_metric m;

    for (const char *p = names; p && *p && strcmp(names, "all") != 0;) {
        char one[128];
        size_t len = strcspn(p, ",");
        snprintf(one, sizeof(one), "%.*s", (int)len, p);
        if ((f ? sc_facts_metric_named(f, one, &m) : sc_metric_lookup(one, &m)) < 0) {
            sc__not_a_metric(cmd, one, f);
            return false;
        }
        p += len + (p[len] == ',');
    }
    return true;
}

bool sc_analysis_metric_ok(const char *cmd, const char *name, bool declared_later)
{
    return declared_later || sc__metrics_resolve(cmd, name, NULL);
}

bool sc_analysis_metric_known(const char *cmd, const char *names, const sc_bundle_facts *f)
{
    return sc__metrics_resolve(cmd, names, f);
}

void sc_analysis_print_metrics(FILE *out)
{
    const char *unit, *better, *workload, *name;

    for (size_t i = 0; (name = sc_metric_family(i, &unit, &better, &workload, NULL)); i++)
        fprintf(out, "  %-16s %-10s %-7s %s\n", name, unit, better, workload);
}

void sc_analysis_print_variables(FILE *out)
{
    const char *group, *source, *name;

    fprintf(out, "%-22s %-9s %s\n", "variable", "group", "read from");
    for (size_t i = 0; (name = sc_facts_var(i, &group, &source)); i++)
        fprintf(out, "%-22s %-9s %s\n", name, group, source);
}

size_t sc_analysis_samples(const sc_bundle_facts *f, const sc_metric *m, double **out)
{
    double *buf = calloc(SC_RUNS_MAX, sizeof(*buf));
    size_t n = buf ? sc_metric_samples(m, f->results, buf, SC_RUNS_MAX) : 0;

    if (!n) {
        free(buf);
        buf = NULL;
    }
    *out = buf;
    return n;
}

int sc_analysis_compare(const sc_bundle_facts *a, const sc_bundle_facts *b, const sc_metric *m,
                        const sc_analysis_opts *o, sc_analysis_cmp *c)
{
    sc_compare_opts co = {.bound_pct = o->bound_pct,
                          .max_interference_pct = o->max_interference_pct,
                          .tolerance_pct = o->tolerance_pct,
                          .paired = o->paired,
                          .apart = !o->paired && sc_compare_apart(a->results, b->results)};

    return sc_compare_metric(a->results, b->results, m, &co, c);
}

void sc_analysis_override_text(const sc_analysis_cmp *c, double max_interference_pct, char *buf,
                               size_t len)
{
    const sc_trend *t =
        c->trend_a.tested && c->trend_a.p < SC_STATS_TREND_ALPHA ? &c->trend_a : &c->trend_b;

    *buf = '\0';
    if (c->verdict == SC_VERDICT_CONTAMINATED)
        snprintf(buf, len,
                 "%s's runs had up to %.1f%% foreign work on a CPU, above the %g%% that leaves a "
                 "figure to its card (the interval alone says %s)",
                 c->worst_a > max_interference_pct ? "A" : "B",
                 c->worst_a > max_interference_pct ? c->worst_a : c->worst_b, max_interference_pct,
                 sc_stats_verdict_name(c->interval));
    else if (c->verdict == SC_VERDICT_DRIFTING)
        snprintf(buf, len,
                 "the sides were measured apart and %s's runs trend with their order (rho %.2f, "
                 "p %.3f): the host moved under the series (the interval alone says %s)",
                 t == &c->trend_a ? "A" : "B", t->rho, t->p, sc_stats_verdict_name(c->interval));
    else if (c->verdict != c->interval)
        snprintf(buf, len,
                 "%s does not hold after Holm's correction for %zu metrics (p %.3f, adjusted %.3f)",
                 sc_stats_verdict_name(c->interval), c->family, c->p, c->p_holm);
}

void sc_analysis_trend_text(const sc_analysis_cmp *c, char *buf, size_t len)
{
    const sc_trend *t[2] = {&c->trend_a, &c->trend_b};
    size_t used = (size_t)snprintf(buf, len, "trend with run order:");

    for (int i = 0; i < 2 && used < len; i++) {
        if (t[i]->tested)
            used += (size_t)snprintf(buf + used, len - used, " %c rho %.2f, p %.3f (%s)%s",
                                     i ? 'B' : 'A', t[i]->rho, t[i]->p, t[i]->method, i ? "" : ";");
        else
            used += (size_t)snprintf(buf + used, len - used, " %c not tested (%zu runs)%s",
                                     i ? 'B' : 'A', t[i]->n, i ? "" : ";");
    }
}

void sc_analysis_cmp_text(const sc_analysis_cmp *c, char *buf, size_t len)
{
    if (c->r.ci)
        snprintf(buf, len, "B/A %.3f, 95%% interval [%.3f, %.3f]: %s", c->r.ratio, c->r.ci_low,
                 c->r.ci_high, sc_stats_verdict_name(c->verdict));
    else
        snprintf(buf, len,
                 "B/A %.3f, interval unavailable (%zu and %zu run%s; %d a side give one): %s",
                 c->r.ratio, c->n_a, c->n_b, c->n_b == 1 ? "" : "s", SC_STATS_MIN_RUNS,
                 c->verdict == SC_VERDICT_UNCONFIRMED ? "change unconfirmed"
                                                      : sc_stats_verdict_name(c->verdict));
}

void sc_analysis_method_text(char *buf, size_t len, double bound_pct)
{
    snprintf(buf, len,
             "ratio B/A: %s (exact below %d runs a side); no detectable difference: the "
             "whole interval within +-%g%%",
             SC_STATS_RATIO_METHOD, SC_STATS_EXACT_BELOW, bound_pct);
}

void sc_analysis_print_method(FILE *out, double bound_pct)
{
    char text[256];

    sc_analysis_method_text(text, sizeof(text), bound_pct);
    fprintf(out, "%s\n", text);
}

void sc_analysis_print_paired_method(FILE *out, double bound_pct)
{
    fprintf(out,
            "ratio B/A: %s (exact below %d pairs, else its normal approximation); no detectable "
            "difference: the whole interval within +-%g%%\n",
            SC_STATS_PAIRED_METHOD, SC_STATS_EXACT_BELOW, bound_pct);
}

double sc_analysis_worst_share(const sc_bundle_facts *f, double *limit_pct)
{
    return sc_compare_worst_share(f->results, limit_pct);
}

void sc_analysis_interference(const sc_bundle_facts *f, char *buf, size_t len)
{
    double limit, worst = sc_analysis_worst_share(f, &limit);

    if (worst >= 0)
        snprintf(buf, len, "max %.1f%% foreign (limit %g%%)", worst, limit);
    else
        snprintf(buf, len, "not measured");
}

bool sc_analysis_limit_ok(const char *cmd, const char *arg, double *pct)
{
    char *end = NULL;
    double v = strtod(arg, &end);

    if (end != arg && !*end && isfinite(v) && v > 0 && v <= 100) {
        *pct = v;
        return true;
    }
    fprintf(stderr,
            "streamcard: %s: --max-interference %s: not a percentage (valid: 0 < PCT <= 100; "
            "default %g, the interference gate's default)\n",
            cmd, arg, SC_COMPARE_MAX_INTERFERENCE);
    return false;
}

bool sc_analysis_bound_ok(const char *cmd, const char *arg, double *bound_pct)
{
    char *end = NULL;
    double v = strtod(arg, &end);

    if (end != arg && !*end && isfinite(v) && v > 0 && v < 100) {
        *bound_pct = v;
        return true;
    }
    fprintf(stderr,
            "streamcard: %s: --noise-bound %s: not a percentage (valid: 0 < PCT < 100, "
            "e.g. 5)\n",
            cmd, arg);
    return false;
}

void sc_analysis_finding_text(const sc_linkmatrix_finding *f, const char *metric, const char *unit,
                              char *buf, size_t len)
{
    if (f->kind == SC_LINKMATRIX_NODE)
        snprintf(buf, len,
                 "%s %.4g %s (median of its pairs), %.0f%% worse than the nodes' median %.4g %s",
                 metric, f->value, unit, f->effect_pct, f->expected, unit);
    else
        snprintf(buf, len,
                 "%s %.4g %s, %.0f%% worse than the %.4g %s the two reach with the other "
                 "nodes",
                 metric, f->value, unit, f->effect_pct, f->expected, unit);
}

int sc_analysis_matrix_load(const sc_bundle_facts *f, sc_linkmatrix_data *d, char *why,
                            size_t whylen)
{
    sc_bundle b;
    int rc;

    memset(d, 0, sizeof(*d));
    rc = f->path ? sc_bundle_open(&b, f->path) : -ENOENT;
    if (rc < 0) {
        snprintf(why, whylen, "%s", strerror(-rc));
        return rc == -ENOMEM ? -ENOMEM : -EINVAL;
    }
    rc = sc_linkmatrix_load(&b, f->results, d, why, whylen);
    sc_bundle_close(&b);
    if (rc == 0 && (rc = sc_linkmatrix_unique(d, why, whylen)) < 0)
        sc_linkmatrix_data_free(d);
    return rc;
}

int sc_analysis_matrix_votes(const sc_linkmatrix_data *d, bool latency, const sc_card *card,
                             sc_linkmatrix_votes *out)
{
    size_t s = latency ? 0 : d->n_sizes - 1, cells = d->n * d->n;
    const double *medians = (latency ? d->t_usec : d->MBps) + s * cells;
    const double *passes = (latency ? d->pass_t_usec : d->pass_MBps) + s * d->passes * cells;

    return sc_linkmatrix_judge_passes(medians, passes, d->passes, d->n,
                                      latency ? SC_LINKMATRIX_LOWER : SC_LINKMATRIX_HIGHER,
                                      card->outlier_mad, card->outlier_min_pct, out);
}

void sc_analysis_vote_text(const sc_linkmatrix_vote *v, size_t passes, char *buf, size_t len)
{
    if (passes < 2)
        snprintf(buf, len, "one pass: no noise guard (valid: passes: 2 or more to drain)");
    else if (sc_linkmatrix_vote_holds(v, passes))
        snprintf(buf, len, "named in %zu of %zu passes and their medians: confidence >= %.1f%%",
                 v->passes_naming, passes, 100 * sc_linkmatrix_vote_confidence(passes));
    else
        snprintf(buf, len, "named in %zu of %zu passes, %s their medians", v->passes_naming,
                 passes, v->in_medians ? "and in" : "not in");
}

/* The card's outlier bounds (the defaults when its text does not parse). */
void sc_analysis_link_bounds(const sc_bundle_facts *f, sc_card *card)
{
    sc_diag diag;

    sc_diag_init(&diag);
    if (f->card_text)
        (void)sc_card_parse(card, f->card_text, strlen(f->card_text), "card.yaml", &diag);
    sc_diag_free(&diag);
    if (!(card->outlier_mad > 0))
        card->outlier_mad = SC_LINKMATRIX_MAD_DEFAULT;
    if (!(card->outlier_min_pct > 0))
        card->outlier_min_pct = SC_LINKMATRIX_MIN_PCT_DEFAULT;
}
