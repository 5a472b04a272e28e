/*
 * cmd_compare.c: `streamcard compare A B`: the controlled variables of two verified bundles
 * side by side, the variables that differ named, and when exactly one variable (the
 * independent one) differs each metric of both with its runs, the ratio B/A with its 95%
 * interval and a verdict (doc/contracts/analysis.md, "Statistics of runs"). Anything else makes the
 * comparison invalid: a rate change that two variables could explain answers no question.
 */
#include "analysis.h"
#include "sc_kv.h"
#include "sc_text.h"
#include "cli.h"
#include "pair_load.h"
#include "sc_pair.h"
#include "study.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SC__COL 34 /* width of a value column */

static void sc__compare_usage(FILE *out)
{
    fprintf(out,
            "usage: streamcard compare A B [--independent VAR | --study STUDY]\n"
            "                              [--metric NAME[,NAME...]|all] [--noise-bound PCT]\n"
            "                              [--max-interference PCT]\n"
            "       streamcard compare PAIR [--metric ...] [--noise-bound PCT]\n"
            "       streamcard compare --variables\n"
            "\n"
            "Prints the controlled variables of bundles A and B side by side (* marks a\n"
            "variable that differs). When exactly one controlled variable differs (or none:\n"
            "a repeat), prints the primary metric of A's card (or --metric's) in both (a\n"
            "bundle's runs: their median and its 95%% interval, their trend with run order)\n"
            "and its change in %%, then the ratio B/A with its 95%% interval and one verdict:\n"
            "B faster, B slower, no detectable difference (the interval within the noise\n"
            "bound), too noisy to tell, or, below 6 runs a side, interval unavailable: change\n"
            "unconfirmed; instead of these, contaminated (a side's runs had more foreign work\n"
            "on a CPU than --max-interference, even with the card's gate open) or drifting\n"
            "host: use --against (the sides were measured apart and a side's runs trend with\n"
            "their order, Spearman p < 0.05). Several metrics at once: a faster or slower\n"
            "verdict must hold after Holm's correction over them. PAIR, the directory of a\n"
            "paired run (streamcard run A --against B), compares its sides pair by pair.\n"
            "An invalid comparison or a refused bundle (its gates, interference among them)\n"
            "prints no figure, only why. Every bundle must pass streamcard verify.\n"
            "\n"
            "options:\n"
            "  --independent VAR  the variable the comparison is about: any other difference\n"
            "                     makes it invalid, and so does VAR not differing\n"
            "  --study STUDY      A and B are rows of this study (the STUDY=<dir> of streamcard\n"
            "                     run): they may differ in what the two rows' steps change\n"
            "                     (the record's declarations), and in nothing else; the\n"
            "                     record must pass streamcard verify\n"
            "  --metric NAME,...  compare these metrics (default: the card's primary metric:\n"
            "                     its kernel (triad for all), qps, MPI the bandwidth at\n"
            "                     expect.at_bytes or else the latency at the smallest size);\n"
            "                     all: every metric of the card; several: Holm's correction\n"
            "  --noise-bound PCT  no detectable difference: the ratio's whole interval within\n"
            "                     +-PCT %% of 1 (default 5)\n"
            "  --max-interference PCT\n"
            "                     a side whose runs had more foreign work on a CPU is\n"
            "                     contaminated, never faster or slower (default 5)\n"
            "  --variables        list the controlled variables and where each is read\n"
            "  -h, --help         this text\n"
            "\n"
            "metrics (name, unit, better, workload):\n");
    sc_analysis_print_metrics(out);
    fprintf(out, "\n"
                 "Exit status: 0 a valid comparison, 1 invalid (more than the one variable\n"
                 "differs), a bundle refused (failed verification or gates) or no metric in\n"
                 "both, 2 usage or a bundle that cannot be opened.\n");
}

/* A value (safe text: sc_facts.h) cut to the column, never inside a character, "..."
   marking the cut. */
static void sc__cell(char *buf, size_t len, const char *value)
{
    size_t n = strlen(value);

    if (n < len && n <= SC__COL)
        snprintf(buf, len, "%s", value);
    else
        snprintf(buf, len, "%.*s...", (int)sc_text_cut(value, n, SC__COL - 3), value);
}

static void sc__print_table(const sc_bundle_facts *a, const sc_bundle_facts *b)
{
    char ca[64], cb[64];

    printf("  A  %s\n  B  %s\n\n", a->path, b->path);
    printf("  %-22s %-*s %s\n", "controlled variable", SC__COL, "A", "B");
    for (size_t i = 0; i < a->n_vars; i++) {
        const char *va = a->vars[i].value, *vb = b->vars[i].value;
        if (!strcmp(va, "n/a") && !strcmp(vb, "n/a"))
            continue;
        sc__cell(ca, sizeof(ca), va);
        sc__cell(cb, sizeof(cb), vb);
        printf("%c %-22s %-*s %s\n", strcmp(va, vb) ? '*' : ' ', a->vars[i].name, SC__COL, ca, cb);
    }
    /* What each side inherited that changes its figures, said in full (section 16). */
    for (int side = 0; side < 2; side++) {
        const sc_bundle_facts *f = side ? b : a;
        if (f->n_hazards)
            printf("\n  %c inherited environment and library choices that change performance:\n", "AB"[side]);
        for (const char *p = f->n_hazards ? f->hazards : NULL; p && *p;) {
            size_t n = strcspn(p, "\n");
            printf("    %.*s\n", (int)n, p);
            p += n + (p[n] == '\n');
        }
    }
}

typedef struct sc__compare_opts {
    const char *independent, *metric, *study;
    sc_analysis_opts cmp;
} sc__compare_opts;

/* "6 runs, [49800.1, 50555.0]" or "1 run, interval unavailable": a side of a metric. */
static void sc__spread(char *buf, size_t len, const sc_stats *s)
{
    int prec = s->median < 100 ? 3 : 1;

    if (s->ci)
        snprintf(buf, len, "%zu runs, [%.*f, %.*f]", s->n, prec, s->ci_low, prec, s->ci_high);
    else
        snprintf(buf, len, "%zu run%s, interval unavailable", s->n, s->n == 1 ? "" : "s");
}

/* One side's trend with its run order: "rho 0.94, p 0.017 (exact permutation)". */
static void sc__trend(char *buf, size_t len, const sc_trend *t)
{
    if (t->tested)
        snprintf(buf, len, "rho %.2f, p %.3f%s", t->rho, t->p,
                 t->p < SC_STATS_TREND_ALPHA ? ": drifts" : "");
    else
        snprintf(buf, len, "not tested (%zu runs)", t->n);
}

/* Figures declared differently (names, units, directions) are not one measure: refused
   before any variable is judged, since the declarations differing also makes the card's
   metrics variable differ and that message would hide why. */
static bool sc__same_declared(const sc_bundle_facts *a, const sc_bundle_facts *b)
{
    char why[400];

    if (sc_metric_same_declared(a->metrics, a->n_metrics, b->metrics, b->n_metrics, why,
                                sizeof(why)))
        return true;
    fprintf(stderr,
            "streamcard: compare: refused: the cards declare different metrics: %s (valid: "
            "cards whose metrics: have the same names, units and directions)\n",
            why);
    return false;
}

/*
 * The results of a valid comparison: each metric judged (the primary, or --metric's) in A
 * and B (one run's value, or the median of the runs, with the runs, the median's 95%
 * interval and the trend with run order) and its change, then one line per metric naming
 * what changed: the ratio B/A with its interval and the verdict, and why when something
 * overrides the interval's. Several metrics: Holm's correction over them. Returns 0, or 1
 * when no metric is in both bundles.
 */
/* Whether set (n of them) holds a metric called name. */
static bool sc__has_metric(const sc_metric *set, size_t n, const char *name)
{
    sc_metric m;

    return sc_metric_find(set, n, name, &m) == 0;
}

/*
 * The figures of a program that its cards do not declare (sc_metric_undeclared()): a row each
 * with both values, and after the verdicts a line that says plainly why none is judged
 * (doc/markers.md, "Figures the card does not declare"). verdicts: the lines, else the rows.
 */
static void sc__print_undeclared(const sc_bundle_facts *a, const sc_bundle_facts *b, bool verdicts)
{
    const sc_bundle_facts *side[2] = {a, b};
    char va[32], vb[32];
    double v;

    for (size_t s = 0; s < 2; s++)
        for (size_t i = 0; i < side[s]->n_undeclared; i++) {
            const sc_metric *m = &side[s]->undeclared[i];
            if (s == 1 && sc__has_metric(a->undeclared, a->n_undeclared, m->name))
                continue; /* said with A's */
            if (verdicts) {
                printf("figure %s is not declared in the card (no direction): shown, not "
                       "judged (valid: declare it under metrics: with from: marker)\n",
                       m->name);
                continue;
            }
            snprintf(va, sizeof(va), "-");
            snprintf(vb, sizeof(vb), "-");
            if (sc_facts_metric(a, m, &v) == 0)
                snprintf(va, sizeof(va), "%.6g", v);
            if (sc_facts_metric(b, m, &v) == 0)
                snprintf(vb, sizeof(vb), "%.6g", v);
            printf("  %-22.31s %-*s %-12s not declared: shown, not judged\n", m->name, SC__COL, va,
                   vb);
        }
}

static int sc__print_results(const sc_bundle_facts *a, const sc_bundle_facts *b,
                             const sc__compare_opts *o, const char *what)
{
    sc_metric m[SC_METRIC_MAX];
    size_t n = sc_analysis_judged(a, o->metric, m, SC_METRIC_MAX), shown = 0, judged = 0;
    sc_analysis_cmp *c = calloc(SC_METRIC_MAX, sizeof(*c)),
                    *fam = calloc(SC_METRIC_MAX, sizeof(*c));
    bool both[SC_METRIC_MAX];
    char label[64], sa[80], sb[80], text[256], why[400];
    double v;

    if (!c || !fam) {
        free(c);
        free(fam);
        return SC_EXIT_ERROR;
    }
    if (!sc_analysis_metric_known("compare", o->metric, a)) {
        free(c);
        free(fam);
        return SC_EXIT_USAGE;
    }
    printf("\n  %-22s %-*s %-12s %s\n", "result", SC__COL, "A", "B", "change");
    printf("  %-22s %-*s %s\n", "verdict (recomputed)", SC__COL, "ok", "ok");
    sc_analysis_interference(a, sa, sizeof(sa));
    sc_analysis_interference(b, sb, sizeof(sb));
    printf("  %-22s %-*s %s\n", "interference", SC__COL, sa, sb);
    if (*a->transport) /* an outcome of the run, not a condition held constant */
        printf("  %-22s %-*s %s\n", "transport", SC__COL, a->transport, b->transport);
    for (size_t i = 0; i < n; i++)
        if ((both[i] = sc_analysis_compare(a, b, &m[i], &o->cmp, &c[i]) == 0))
            fam[judged++] = c[i];
    if (judged > 1 && sc_compare_holm(fam, judged) < 0)
        judged = 0;
    for (size_t i = 0, k = 0; i < n; i++) {
        if (both[i])
            c[i] = fam[k++];
        snprintf(label, sizeof(label), "%.31s %.16s", m[i].name, m[i].unit);
        if (!both[i]) {
            printf("  %-22s not recorded in %s\n", label,
                   sc_facts_metric(a, &m[i], &v) < 0 ? "A" : "B");
            continue;
        }
        printf("  %-22s %-*.*f %-12.*f %+.1f%%\n", label, SC__COL, c[i].val_a < 100 ? 3 : 1,
               c[i].val_a, c[i].val_b < 100 ? 3 : 1, c[i].val_b,
               sc_metric_change(c[i].val_a, c[i].val_b));
        sc__spread(sa, sizeof(sa), &c[i].sa);
        sc__spread(sb, sizeof(sb), &c[i].sb);
        printf("  %-22s %-*s %s\n", "  median's 95%", SC__COL, sa, sb);
        sc__trend(sa, sizeof(sa), &c[i].trend_a);
        sc__trend(sb, sizeof(sb), &c[i].trend_b);
        printf("  %-22s %-*s %s\n", "  trend with run order", SC__COL, sa, sb);
    }
    sc__print_undeclared(a, b, false);
    printf("\n");
    for (size_t i = 0; i < n; i++) {
        if (!both[i])
            continue;
        if (!shown && o->cmp.paired)
            sc_analysis_print_paired_method(stdout, o->cmp.bound_pct);
        else if (!shown)
            sc_analysis_print_method(stdout, o->cmp.bound_pct);
        if (!shown && judged > 1)
            printf("several metrics judged at once: a faster or slower verdict must hold after "
                   "Holm's correction for %zu metrics (family-wise error 5%%)\n",
                   judged);
        sc_analysis_cmp_text(&c[i], text, sizeof(text));
        printf("%s: %s %s %.*f -> %.*f (%+.1f%%): %s\n", what, m[i].name, m[i].unit,
               c[i].val_a < 100 ? 3 : 1, c[i].val_a, c[i].val_b < 100 ? 3 : 1, c[i].val_b,
               sc_metric_change(c[i].val_a, c[i].val_b), text);
        sc_analysis_override_text(&c[i], o->cmp.max_interference_pct, why, sizeof(why));
        if (*why)
            printf("  why: %s\n", why);
        shown++;
    }
    free(c);
    free(fam);
    sc__print_undeclared(a, b, true);
    if (shown)
        return SC_EXIT_OK;
    fprintf(stderr,
            "streamcard: compare: no metric%s%s recorded in both bundles (valid: bundles whose "
            "workload recorded the metric; see streamcard compare --help)\n",
            o->metric ? " " : "", o->metric ? o->metric : "");
    return SC_EXIT_FAILED;
}

/* Full values of the variables that differ (the table cuts long ones). */
/* Each environment variable that differs, on its own line: the env variable's value is
   every variable joined, too long to see which one changed. */
static void sc__print_env_differences(const sc_bundle_facts *a, const sc_bundle_facts *b)
{
    char names[1024];

    sc_facts_env_diff(a, b, names, sizeof(names));
    for (const char *p = names; *p;) {
        char name[256];
        size_t n = strcspn(p, ",");
        snprintf(name, sizeof(name), "%.*s", (int)n, p);
        const char *va = sc_facts_env_get(a, name), *vb = sc_facts_env_get(b, name);
        printf("differs: env %s: A %s | B %s\n", name, va ? va : "(not set)",
               vb ? vb : "(not set)");
        p += n;
        p += strspn(p, ", ");
    }
}

static void sc__print_differences(const sc_bundle_facts *a, const sc_bundle_facts *b,
                                  const size_t *diff, size_t n)
{
    if (n)
        printf("\n");
    for (size_t i = 0; i < n; i++) {
        const char *from = sc_facts_follows(a, b, diff[i]);
        printf("differs: %s: A %s | B %s", a->vars[diff[i]].name, a->vars[diff[i]].value,
               b->vars[diff[i]].value);
        printf(from ? " (follows %s: the default it gives)\n" : "\n", from);
        if (strcmp(a->vars[diff[i]].name, "env") == 0)
            sc__print_env_differences(a, b);
    }
}

/* The names of the differing variables except skip, comma-separated; env with the names
   of its variables that differ: "env (OMP_WAIT_POLICY)". */
static void sc__names(const sc_bundle_facts *a, const sc_bundle_facts *b, const size_t *diff,
                      size_t n, const char *skip, char *buf, size_t len)
{
    size_t used = 0;
    char what[512];

    *buf = '\0';
    for (size_t i = 0; i < n && used < len; i++)
        if (!skip || strcmp(a->vars[diff[i]].name, skip) != 0) {
            sc_analysis_difference(a, b, diff[i], what, sizeof(what));
            used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "", what);
        }
}

/* Two rows of one study: valid when every difference is one the rows declare; then their
   results. 0 valid, 1 invalid, and why. */
static int sc__judge_study(const sc_bundle_facts *a, const sc_bundle_facts *b,
                           const sc_study_pair *study, const size_t *diff, size_t n,
                           const sc__compare_opts *o)
{
    char undeclared[1024] = "", one[512], declared[1024], what[1024];
    size_t used = 0, count = 0;

    for (size_t i = 0; i < n && used < sizeof(undeclared); i++)
        if (!sc_study_pair_declares(study, a, b, diff[i], one, sizeof(one))) {
            used += (size_t)snprintf(undeclared + used, sizeof(undeclared) - used, "%s%s",
                                     used ? ", " : "", one);
            count++;
        }
    sc_study_pair_keys(study, declared, sizeof(declared));
    if (count) {
        fprintf(stderr,
                "streamcard: compare: the comparison is invalid: besides what the study "
                "declares for rows \"%s\" and \"%s\" (%s), %s %s (valid: rows of the "
                "study that differ only in what their steps change)\n",
                study->label[0], study->label[1], declared, undeclared,
                count > 1 ? "differ" : "differs");
        return SC_EXIT_FAILED;
    }
    snprintf(what, sizeof(what), "study rows \"%s\" -> \"%s\"", study->label[0], study->label[1]);
    return sc__print_results(a, b, o, what);
}

/* The verdict of the comparison: 0 valid (its results printed), 1 invalid, and why. */
static int sc__judge(const sc_bundle_facts *a, const sc_bundle_facts *b, const char *independent,
                     const sc_study_pair *study, const sc__compare_opts *o)
{
    size_t all[SC_FACTS_MAX_VARS], diff[SC_FACTS_MAX_VARS], nall = sc_facts_diff(a, b, all);
    size_t n = sc_analysis_differences(a, b, diff);
    char names[1024], what[1024];
    bool has_independent = false;

    sc__print_differences(a, b, all, nall);
    if (!sc__same_declared(a, b))
        return SC_EXIT_FAILED;
    if (study)
        return sc__judge_study(a, b, study, diff, n, o);
    for (size_t i = 0; independent && i < n; i++)
        has_independent |= !strcmp(a->vars[diff[i]].name, independent);
    sc__names(a, b, diff, n, independent, names, sizeof(names));
    if (independent && !has_independent) {
        fprintf(stderr,
                "streamcard: compare: %s is the same in both bundles%s%s: nothing to "
                "compare (valid: bundles that differ in %s only)\n",
                independent, n ? ", and these differ instead: " : "", names, independent);
        return SC_EXIT_FAILED;
    }
    if (n > 1 && independent) {
        fprintf(stderr,
                "streamcard: compare: the comparison is invalid: besides %s, %s %s "
                "(valid: bundles that differ in %s only)\n",
                independent, names, n > 2 ? "differ" : "differs", independent);
        return SC_EXIT_FAILED;
    }
    if (n > 1) {
        fprintf(stderr,
                "streamcard: compare: the comparison is invalid: %zu controlled "
                "variables differ: %s (valid: exactly one differs; --independent VAR "
                "names the intended one)\n",
                n, names);
        return SC_EXIT_FAILED;
    }
    if (n == 0)
        snprintf(what, sizeof(what), "no controlled variable differs (a repeat)");
    else
        snprintf(what, sizeof(what), "single variable %s: %s -> %s", a->vars[diff[0]].name,
                 a->vars[diff[0]].value, b->vars[diff[0]].value);
    return sc__print_results(a, b, o, what);
}

/* A paired run: its sides side by side, what they differ in (the pair checked it), then
   the metrics pair by pair. 0 a usable pair; 1 refused; 2 it cannot be opened. */
static int sc__compare_pair(const char *path, sc__compare_opts *o)
{
    sc_pair_loaded p;
    size_t all[SC_FACTS_MAX_VARS], n;
    char what[1024];
    int status;

    if (sc_pair_load(path, NULL, &p) < 0) {
        fprintf(stderr, "streamcard: compare: %s: cannot open the pair\n", p.arg_shown);
        sc_pair_loaded_free(&p);
        return SC_EXIT_USAGE;
    }
    if (!p.usable) {
        fprintf(stderr,
                "streamcard: compare: %s: refused: %s (valid: a pair that streamcard verify "
                "accepts)\n",
                p.arg_shown, p.why);
        sc_pair_loaded_free(&p);
        return SC_EXIT_FAILED;
    }
    const sc_bundle_facts *a = &p.side[0].facts, *b = &p.side[1].facts;
    printf("  paired run %s: variable %s, %zu pairs, each in the order its seed %s drew\n",
           p.arg_shown, p.variable, p.pairs,
           json_object_get_string(json_object_object_get(p.record, "seed")));
    sc__print_table(a, b);
    n = sc_facts_diff(a, b, all);
    sc__print_differences(a, b, all, n);
    if (strcmp(p.variable, SC_PAIR_NONE) != 0)
        snprintf(what, sizeof(what), "paired, variable %s", p.variable);
    else
        snprintf(what, sizeof(what), "paired, A against A");
    o->cmp.paired = true;
    status = sc__same_declared(a, b) ? sc__print_results(a, b, o, what) : SC_EXIT_FAILED;
    sc_pair_loaded_free(&p);
    return status;
}

static int sc__compare_option(void *ctx, int c, const char *arg)
{
    sc__compare_opts *o = ctx;

    if (c == 'v') {
        sc_analysis_print_variables(stdout);
        return SC_EXIT_OK;
    }
    if (c == 'm')
        o->metric = arg;
    else if (c == 's')
        o->study = arg;
    else if (c == 'n')
        return sc_analysis_bound_ok("compare", arg, &o->cmp.bound_pct) ? SC_ANALYSIS_GO_ON
                                                                       : SC_EXIT_USAGE;
    else if (c == 'x')
        return sc_analysis_limit_ok("compare", arg, &o->cmp.max_interference_pct)
                   ? SC_ANALYSIS_GO_ON
                   : SC_EXIT_USAGE;
    else
        o->independent = arg; /* 'i' */
    return SC_ANALYSIS_GO_ON;
}

static int sc__compare_check(void *ctx, size_t n)
{
    const sc__compare_opts *o = ctx;

    if (n != 2 && n != 1) {
        fprintf(stderr,
                "streamcard: compare: needs two bundles or a pair, got %zu (valid: streamcard "
                "compare A B, or streamcard compare PAIR)\n",
                n);
        return SC_EXIT_USAGE;
    }
    if (o->independent && o->study) {
        fprintf(stderr, "streamcard: compare: --independent and --study: one or the other "
                        "(valid: --study STUDY lets the study's declarations name the "
                        "differences)\n");
        return SC_EXIT_USAGE;
    }
    if (o->independent && !sc_facts_var_known(o->independent, strlen(o->independent))) {
        fprintf(stderr,
                "streamcard: compare: --independent %s: not a controlled variable "
                "(valid: one of streamcard compare --variables)\n",
                o->independent);
        return SC_EXIT_USAGE;
    }
    return sc_analysis_metric_ok("compare", o->metric, true) ? SC_ANALYSIS_GO_ON : SC_EXIT_USAGE;
}

int sc_cmd_compare(int argc, char **argv)
{
    static const struct option opts[] = {{"independent", required_argument, NULL, 'i'},
                                         {"variables", no_argument, NULL, 'v'},
                                         {"metric", required_argument, NULL, 'm'},
                                         {"noise-bound", required_argument, NULL, 'n'},
                                         {"study", required_argument, NULL, 's'},
                                         {"max-interference", required_argument, NULL, 'x'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    static const sc_analysis_cmd cmd = {.name = "compare",
                                        .short_opts = ":h",
                                        .long_opts = opts,
                                        .usage = sc__compare_usage,
                                        .usage_status = SC_EXIT_USAGE,
                                        .option = sc__compare_option,
                                        .check = sc__compare_check,
                                        .unreadable_hint = "",
                                        .unreadable_status = SC_EXIT_USAGE,
                                        .refused_hint =
                                            " (valid: a bundle that streamcard verify accepts)"};
    sc__compare_opts o = {.cmp = SC_ANALYSIS_OPTS_DEFAULT};
    sc_analysis_set set = {0};
    sc_study_pair pair = {0};
    bool in_study = false;
    int status, first;

    if (!sc_analysis_options(&cmd, argc, argv, &o, &first, &status))
        return status;
    if (argc - first == 1 && !sc_pair_is(argv[first])) {
        fprintf(stderr,
                "streamcard: compare: one bundle, and not a pair (valid: streamcard compare A B, "
                "or the directory of streamcard run A --against B)\n");
        return SC_EXIT_USAGE;
    }
    if (argc - first == 1) {
        if (o.independent || o.study) {
            fprintf(stderr, "streamcard: compare: a pair names its own variable (valid: "
                            "streamcard compare PAIR, without --independent or --study)\n");
            return SC_EXIT_USAGE;
        }
        return sc__compare_pair(argv[first], &o);
    }
    set.b = calloc(2, sizeof(*set.b));
    if (!set.b)
        return SC_EXIT_ERROR;
    set.n = 2;
    for (size_t i = 0; i < 2; i++)
        sc_analysis_load_named(&cmd, &set.b[i], argv[first + (int)i], &status);
    const char *independent = o.independent;
    const sc_bundle_facts *a = &set.b[0].facts, *b = &set.b[1].facts;
    /* Two runs of one sweep name their independent variable in run.conf themselves. */
    char swept[2][64] = {"", ""}, declared[1024];
    if (status == SC_EXIT_OK && o.study) {
        const char *const paths[2] = {set.b[0].path, set.b[1].path};
        status = sc_study_pair_load(&pair, o.study, paths);
        in_study = status == SC_EXIT_OK;
        if (in_study) {
            sc_study_pair_keys(&pair, declared, sizeof(declared));
            printf("  study rows: A \"%s\", B \"%s\"; declared differences: %s\n", pair.label[0],
                   pair.label[1], declared);
        }
    }
    if (status == SC_EXIT_OK && !independent && !o.study &&
        sc_kv_get(a->run_conf, "sweep_variable", swept[0], sizeof(swept[0])) &&
        sc_kv_get(b->run_conf, "sweep_variable", swept[1], sizeof(swept[1])) &&
        strcmp(swept[0], swept[1]) == 0 && sc_facts_var_known(swept[0], strlen(swept[0]))) {
        independent = swept[0];
        printf("  independent variable: %s (the sweep both runs belong to)\n", independent);
    }
    if (status == SC_EXIT_OK) {
        sc__print_table(a, b);
        status = sc__judge(a, b, independent, in_study ? &pair : NULL, &o);
    }
    if (in_study)
        sc_study_pair_free(&pair);
    sc_analysis_set_free(&set);
    return status;
}
