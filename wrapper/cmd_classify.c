/*
 * cmd_classify.c: `streamcard classify BUNDLE --baseline B`: good (0), bad (1) or skip (125)
 * in one line, the way `git bisect run` reads an exit status, so a regression can be
 * bisected through a project's history or a whole software distribution.
 *
 * Only the build may differ from the baseline (binary, compiler, flags, OpenMP runtime:
 * what the bisection changes), plus the variables --allow names; any other controlled
 * variable that differs makes the run prove nothing about the build, and so does a run or
 * a baseline that fails verification. A failed gate is judged by its class (the gate
 * table, doc/design.md "The gates"): an outcome gate the baseline held makes the run bad
 * (a TCP fall-back, a wrong result, a crash), an environment gate makes it skip.
 * Usage errors exit 128, which stops `git bisect run` instead of blaming a commit.
 */
#include "analysis.h"
#include "cli.h"
#include "junit.h"
#include "sc_text.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SC__DEFAULT_TOLERANCE 5.0

static void sc__classify_usage(FILE *out)
{
    fprintf(out,
            "usage: streamcard classify BUNDLE --baseline BASELINE [--tolerance PCT]\n"
            "                           [--allow VAR[,VAR...]] [--metric NAME]\n"
            "                           [--bad-gate GATE[,GATE...]] [--junit FILE]\n"
            "\n"
            "Judges BUNDLE against BASELINE for `git bisect run`, in one line on stdout. Each\n"
            "metric of the baseline's card (or the one --metric names) is compared run by run:\n"
            "the ratio BUNDLE/BASELINE with its 95%% interval (Hodges-Lehmann, Mann-Whitney;\n"
            "at least 6 runs a side, the card's runs: 6 or auto):\n"
            "  good  every interval excludes a loss of more than PCT %%, in the metric's own\n"
            "        direction                                                     exit 0\n"
            "  bad   a metric's whole interval lies beyond PCT %% (a significant loss), or an\n"
            "        outcome gate failed that the baseline held                    exit 1\n"
            "  skip  it cannot tell (an interval reaches both sides of PCT %%, or fewer than 6\n"
            "        runs a side: the line says roughly how many runs would decide it), or\n"
            "        the run proves nothing: BUNDLE is missing or fails verification, an\n"
            "        environment gate failed, it differs from the baseline in more than\n"
            "        the build, or the baseline itself is not usable              exit 125\n"
            "Usage errors and an unreadable BASELINE exit 128 (git bisect run stops).\n"
            "\n"
            "Gates, by what their failure says:\n"
            "  outcome      what the workload did: the revision is bad\n"
            "  environment  what was done to the run: it proves nothing, skip\n"
            "exit_code is an environment gate when the workload was ended from outside (a\n"
            "signal streamcard forwarded, --timeout, a kill); when it crashed by itself, the\n"
            "environment gates it could not pass are part of the crash (evidence excepted).\n"
            "\n");
    for (int i = 0; i < SC_GATE_COUNT; i++)
        fprintf(out, "  %-16s %s\n", sc_gate_name((sc_gate_id)i),
                sc_gate_class_name(sc_gate_class_of((sc_gate_id)i)));
    fprintf(out,
            "\n"
            "options:\n"
            "  --baseline DIR     the known-good bundle (required)\n"
            "  --tolerance PCT    the loss against the baseline, in percent, that makes a run\n"
            "                     bad once its interval lies beyond it (default %.0f)\n"
            "  --allow VAR,...    controlled variables that may differ besides the build\n"
            "                     group (e.g. host; env or expect when the card lives in the\n"
            "                     bisected repository); see streamcard compare --variables\n"
            "  --metric NAME      judge this metric only (default: the card's: its kernel,\n"
            "                     every kernel of kernel all, qps, MPI latency and bandwidth)\n"
            "  --bad-gate GATE,.. the gates whose failure makes a run bad, instead of the\n"
            "                     outcome class (none: no gate; every other failure skips)\n"
            "  --junit FILE       a JUnit XML report for CI: one test case, bad a failure and\n"
            "                     skip skipped, with the line and every metric compared\n"
            "  -h, --help         this text\n"
            "\n"
            "metrics (name, unit, better, workload):\n",
            SC__DEFAULT_TOLERANCE);
    sc_analysis_print_metrics(out);
}

/* Checks --allow: every name a controlled variable; the first that is not goes to bad. */
static bool sc__allow_valid(const char *list, char *bad, size_t len)
{
    for (const char *p = list; p && *p;) {
        size_t n = strcspn(p, ",");
        if (!sc_facts_var_known(p, n)) {
            snprintf(bad, len, "%.*s", (int)n, p);
            return false;
        }
        p += n + (p[n] == ',');
    }
    return true;
}

/* What classify says: its one line (stdout, and --junit's message) and, once metrics were
   compared, one line per metric (--junit's text). */
typedef struct sc__verdict {
    char line[2048];
    char detail[8192];
    size_t used;
} sc__verdict;

static void sc__say(sc__verdict *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sc__say(sc__verdict *v, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(v->line, sizeof(v->line), fmt, ap);
    va_end(ap);
}

/* What the runs say about one metric against the tolerance. */
typedef enum sc__call {
    SC__GOOD,        /* the interval excludes a loss beyond the tolerance */
    SC__BAD,         /* the whole interval lies beyond it: a significant loss */
    SC__UNDECIDED,   /* the interval reaches both sides of the tolerance */
    SC__UNAVAILABLE, /* fewer than 6 runs a side: no interval */
} sc__call;

/*
 * One metric, the run (B) against the baseline (A): its performance ratio (above 1 better,
 * whatever the metric's direction) and its 95% interval, held against 1 - tolerance.
 */
static sc__call sc__call_of(const sc_analysis_cmp *c, double tolerance, double *p, double *low,
                            double *high)
{
    double limit = 1 - tolerance / 100;

    sc_stats_performance(&c->r, c->m.better == SC_METRIC_HIGHER, p, low, high);
    if (!c->r.ci)
        return SC__UNAVAILABLE;
    if (*high < limit)
        return SC__BAD;
    return *low >= limit ? SC__GOOD : SC__UNDECIDED;
}

/* "copy MB/s 25411.7 against the baseline's 50823.4 (-50.0%), B/A 0.500 in [0.480, 0.520]
   (6 and 6 runs)": one metric for the verdict line. */
static void sc__said(char *buf, size_t len, const sc_analysis_cmp *c)
{
    int pb = c->val_b < 100 ? 3 : 1, pa = c->val_a < 100 ? 3 : 1;

    if (c->r.ci)
        snprintf(buf, len,
                 "%s %s %.*f against the baseline's %.*f (%+.1f%%), B/A %.3f in [%.3f, %.3f] "
                 "(%zu and %zu runs)",
                 c->m.name, c->m.unit, pb, c->val_b, pa, c->val_a,
                 sc_metric_change(c->val_a, c->val_b), c->r.ratio, c->r.ci_low, c->r.ci_high,
                 c->n_b, c->n_a);
    else
        snprintf(buf, len, "%s %s %.*f against the baseline's %.*f (%+.1f%%, %zu and %zu runs)",
                 c->m.name, c->m.unit, pb, c->val_b, pa, c->val_a,
                 sc_metric_change(c->val_a, c->val_b), c->n_b, c->n_a);
}

/*
 * Each metric of the baseline's card (or the one --metric names), the run's runs against
 * the baseline's (doc/design.md, "Statistics of runs"): bad only when one metric's whole 95%
 * interval lies beyond the tolerance (a significant loss), good when every interval excludes
 * such a loss, skip when an interval cannot tell (or there is none: fewer than 6 runs a
 * side), saying roughly how many runs would decide it.
 */
static int sc__judge_metrics(const sc_bundle_facts *run, const sc_bundle_facts *base,
                             double tolerance, const char *metric, sc__verdict *verdict)
{
    sc_metric m[SC_METRIC_MAX];
    size_t n = sc_analysis_metrics(base, metric, m, SC_METRIC_MAX), worst = n, open = n;
    sc_analysis_cmp *c = calloc(n + 1, sizeof(*c));
    sc__call call[SC_METRIC_MAX];
    double p, low, high, worst_p = 0;
    char said[320];
    int status = SC_CLASSIFY_GOOD;

    if (!c)
        return SC_CLASSIFY_ABORT;
    if (n == 0) {
        sc__say(verdict, "skip: %s: the baseline's card names no metric", run->name);
        status = SC_CLASSIFY_SKIP;
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        double v;
        if (sc_analysis_compare(base, run, &m[i], SC_ANALYSIS_NOISE_BOUND, &c[i]) < 0 ||
            c[i].val_a <= 0) {
            sc__say(verdict, "skip: %s: no %s recorded in %s", run->name, m[i].name,
                    sc_facts_metric(run, &m[i], &v) < 0 ? "the run" : "the baseline");
            status = SC_CLASSIFY_SKIP;
            goto out;
        }
        call[i] = sc__call_of(&c[i], tolerance, &p, &low, &high);
        sc__said(said, sizeof(said), &c[i]);
        if (verdict->used < sizeof(verdict->detail))
            verdict->used +=
                (size_t)snprintf(verdict->detail + verdict->used,
                                 sizeof(verdict->detail) - verdict->used, "%s\n", said);
        if (call[i] == SC__BAD && (worst == n || p < worst_p)) {
            worst = i;
            worst_p = p;
        }
        if ((call[i] == SC__UNDECIDED || call[i] == SC__UNAVAILABLE) && open == n)
            open = i;
    }
    if (worst < n) {
        sc__said(said, sizeof(said), &c[worst]);
        sc__say(verdict, "bad: %s: %s: a significant loss beyond the %.1f%% tolerance (%s)",
                run->name, said, tolerance, c[worst].r.method);
        status = SC_CLASSIFY_BAD;
    } else if (open < n && call[open] == SC__UNAVAILABLE) {
        sc__said(said, sizeof(said), &c[open]);
        sc__say(verdict,
                "skip: %s: %s: interval unavailable: at least %d runs a side are needed to "
                "tell a loss beyond %.1f%% from noise (runs: %d or more, on both)",
                run->name, said, SC_STATS_MIN_RUNS, tolerance, SC_STATS_MIN_RUNS);
        status = SC_CLASSIFY_SKIP;
    } else if (open < n) {
        size_t need = sc_stats_runs_to_decide(&c[open].r, c[open].m.better == SC_METRIC_HIGHER,
                                              1 - tolerance / 100);
        sc__said(said, sizeof(said), &c[open]);
        sc__say(verdict,
                "skip: %s: %s: too noisy to tell a loss beyond %.1f%% from noise; roughly %zu "
                "runs a side would decide it",
                run->name, said, tolerance, need);
        status = SC_CLASSIFY_SKIP;
    } else {
        /* every metric good: the one closest to the tolerance said */
        size_t close = 0;
        double close_low = 2;
        for (size_t i = 0; i < n; i++) {
            sc__call_of(&c[i], tolerance, &p, &low, &high);
            if (low < close_low) {
                close_low = low;
                close = i;
            }
        }
        sc__said(said, sizeof(said), &c[close]);
        sc__say(verdict, "good: %s: %s: no loss beyond the %.1f%% tolerance%s", run->name, said,
                tolerance, n > 1 ? "; the closest of the card's metrics" : "");
    }
out:
    free(c);
    return status;
}

typedef struct sc__classify_opts {
    const char *baseline, *allow, *metric, *bad_gates, *junit;
    double tolerance;
} sc__classify_opts;

/* Whether gate id's failure in gates makes the run bad: --bad-gate's list when given, else
   the gate's class in this run (sc_gates_failure_class()). */
static bool sc__bad_gate(const sc_gates *gates, sc_gate_id id, const char *bad_gates)
{
    if (bad_gates)
        return sc_word_in(bad_gates, ",", sc_gate_name(id));
    return sc_gates_failure_class(gates, id) == SC_GATE_OUTCOME;
}

/* The gates pick marks, "name name" into buf, and one note: exit_code's, else the first's. */
static size_t sc__failed(const sc_gates *gates, const bool *pick, char *buf, size_t len,
                         const char **note)
{
    size_t n = 0, used = 0;

    *buf = '\0';
    *note = NULL;
    for (int i = 0; i < SC_GATE_COUNT; i++) {
        if (!pick[i])
            continue;
        if (!n++ || i == SC_GATE_EXIT_CODE) /* how the workload ended says most */
            *note = gates->g[i].note;
        if (used < len)
            used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? " " : "",
                                     sc_gate_name((sc_gate_id)i));
    }
    return n;
}

/*
 * The run's failed gates, in their classes (doc/design.md, "The gates"): an environment
 * gate makes it prove nothing (skip), except where it follows from an outcome: a workload
 * that ended by itself with a non-zero status after a bad gate (a wrong result) fails
 * exit_code too, and one that crashed could not pass its phases or snapshots either (the
 * evidence gate always skips). Returns SC_ANALYSIS_GO_ON with *bad set when a bad gate
 * failed, else the verdict (said).
 */
static int sc__judge_environment(const sc_analysis_bundle *run, const char *bad_gates, bool *bad,
                                 sc__verdict *verdict)
{
    const sc_gates *g = &run->verify.gates;
    bool env[SC_GATE_COUNT] = {false}, ended_bad;
    char names[256];
    const char *note;

    *bad = false;
    for (int i = 0; i < SC_GATE_COUNT; i++)
        if (sc_gates_failed(g, (sc_gate_id)i))
            *bad |= sc__bad_gate(g, (sc_gate_id)i, bad_gates);
    ended_bad =
        sc_gates_failed(g, SC_GATE_EXIT_CODE) && sc__bad_gate(g, SC_GATE_EXIT_CODE, bad_gates);
    for (int i = 0; i < SC_GATE_COUNT; i++) {
        sc_gate_id id = (sc_gate_id)i;
        if (!sc_gates_failed(g, id) || sc__bad_gate(g, id, bad_gates))
            continue;
        if (id == SC_GATE_EXIT_CODE && *bad && !g->ended_from_outside)
            continue;
        env[i] = !ended_bad || id == SC_GATE_EVIDENCE;
    }
    if (!sc__failed(g, env, names, sizeof(names), &note))
        return SC_ANALYSIS_GO_ON;
    sc__say(verdict, "skip: %s: the run proves nothing: environment gates failed: %s (%s)",
            run->facts.name, names, note);
    return SC_CLASSIFY_SKIP;
}

/* An outcome gate failed: bad where the baseline held every such gate, else skip. */
static int sc__judge_outcome(const sc_analysis_bundle *run, const sc_analysis_bundle *base,
                             const char *bad_gates, sc__verdict *verdict)
{
    const sc_gates *g = &run->verify.gates;
    bool out[SC_GATE_COUNT] = {false}, unheld[SC_GATE_COUNT] = {false};
    char names[256], missing[256];
    const char *note, *unused;

    for (int i = 0; i < SC_GATE_COUNT; i++) {
        if (!sc_gates_failed(g, (sc_gate_id)i) || !sc__bad_gate(g, (sc_gate_id)i, bad_gates))
            continue;
        out[i] = true;
        unheld[i] = base->verify.gates.g[i].state != SC_GATE_OK;
    }
    sc__failed(g, out, names, sizeof(names), &note);
    if (sc__failed(g, unheld, missing, sizeof(missing), &unused)) {
        sc__say(verdict,
                "skip: %s: the run failed %s, which the baseline did not check (valid: a "
                "baseline whose card asks for the same gates)",
                run->facts.name, missing);
        return SC_CLASSIFY_SKIP;
    }
    sc__say(verdict, "bad: %s: outcome gates failed where the baseline held them: %s (%s)",
            run->facts.name, names, note);
    return SC_CLASSIFY_BAD;
}

/* The verdict on a run whose bundle is intact against a usable baseline. */
static int sc__judge(const sc_analysis_bundle *run_ab, const sc_analysis_bundle *base_ab,
                     const sc__classify_opts *o, sc__verdict *verdict)
{
    const sc_bundle_facts *run = &run_ab->facts, *base = &base_ab->facts;
    size_t diff[SC_FACTS_MAX_VARS], n = sc_facts_diff(base, run, diff);
    bool bad;
    int status = sc__judge_environment(run_ab, o->bad_gates, &bad, verdict);

    if (status != SC_ANALYSIS_GO_ON)
        return status;
    for (size_t i = 0; i < n; i++) {
        const sc_fact *v = &run->vars[diff[i]];
        /* A run that failed by its own outcome may end before it shows every value. */
        if (bad && sc_facts_unshown(v->value))
            continue;
        if (strcmp(v->group, "build") != 0 && !sc_word_in(o->allow, ",", v->name) &&
            !sc_facts_follows(base, run, diff[i])) {
            char what[512];
            sc_analysis_difference(base, run, diff[i], what, sizeof(what));
            sc__say(verdict,
                    "skip: %s: not comparable with the baseline: %s differs (%s here, %s in the "
                    "baseline; valid: only the build differs, or --allow %s)",
                    run->name, what, v->value, base->vars[diff[i]].value, v->name);
            return SC_CLASSIFY_SKIP;
        }
    }
    if (bad)
        return sc__judge_outcome(run_ab, base_ab, o->bad_gates, verdict);
    return sc__judge_metrics(run, base, o->tolerance, o->metric, verdict);
}

static int sc__classify_option(void *ctx, int c, const char *arg)
{
    sc__classify_opts *o = ctx;
    char *end = NULL;

    if (c == 'b') {
        o->baseline = arg;
    } else if (c == 'a') {
        o->allow = arg;
    } else if (c == 'm') {
        o->metric = arg;
    } else if (c == 'g') {
        o->bad_gates = arg;
    } else if (c == 'j') {
        o->junit = arg;
    } else { /* 't' */
        o->tolerance = strtod(arg, &end);
        if (!end || end == arg || *end || !isfinite(o->tolerance) || o->tolerance < 0 ||
            o->tolerance >= 100) {
            fprintf(stderr,
                    "streamcard: classify: --tolerance %s: not a percentage "
                    "(valid: 0 <= PCT < 100, e.g. 5)\n",
                    arg);
            return SC_CLASSIFY_ABORT;
        }
    }
    return SC_ANALYSIS_GO_ON;
}

static int sc__classify_check(void *ctx, size_t n)
{
    const sc__classify_opts *o = ctx;
    char bad[128];

    if (n != 1 || !o->baseline) {
        fprintf(stderr, "streamcard: classify: needs one BUNDLE and --baseline (valid: "
                        "streamcard classify BUNDLE --baseline BASELINE)\n");
        return SC_CLASSIFY_ABORT;
    }
    if (o->allow && !sc__allow_valid(o->allow, bad, sizeof(bad))) {
        fprintf(stderr,
                "streamcard: classify: --allow %s: not a controlled variable (valid: "
                "one of streamcard compare --variables)\n",
                bad);
        return SC_CLASSIFY_ABORT;
    }
    for (const char *p = o->bad_gates; p && *p;) {
        size_t len = strcspn(p, ",");
        if (sc_gate_by_name(p, len) == SC_GATE_COUNT && !(len == 4 && !strncmp(p, "none", 4))) {
            fprintf(stderr,
                    "streamcard: classify: --bad-gate %.*s: not a gate (valid: gate names as "
                    "streamcard classify --help lists them, or none)\n",
                    (int)len, p);
            return SC_CLASSIFY_ABORT;
        }
        p += len + (p[len] == ',');
    }
    return sc_analysis_metric_ok("classify", o->metric) ? SC_ANALYSIS_GO_ON : SC_CLASSIFY_ABORT;
}

/* classify's outcome as a JUnit test case: bad a failure, skip skipped, 128 an error. */
static void sc__junit_case(sc_junit *j, const char *run, int status, const sc__verdict *v)
{
    sc_junit_kind kind = status == SC_CLASSIFY_GOOD   ? SC_JUNIT_PASS
                         : status == SC_CLASSIFY_BAD  ? SC_JUNIT_FAILURE
                         : status == SC_CLASSIFY_SKIP ? SC_JUNIT_SKIPPED
                                                      : SC_JUNIT_ERROR;
    char *text = NULL;

    if (v->used && asprintf(&text, "%s\n%s", v->line, v->detail) < 0)
        text = NULL;
    sc_junit_case(j, "classify", run, kind, kind == SC_JUNIT_PASS ? NULL : v->line,
                  text ? text : v->line);
    free(text);
}

int sc_cmd_classify(int argc, char **argv)
{
    static const struct option opts[] = {
        {"baseline", required_argument, NULL, 'b'}, {"tolerance", required_argument, NULL, 't'},
        {"allow", required_argument, NULL, 'a'},    {"metric", required_argument, NULL, 'm'},
        {"bad-gate", required_argument, NULL, 'g'}, {"junit", required_argument, NULL, 'j'},
        {"help", no_argument, NULL, 'h'},           {NULL, 0, NULL, 0}};
    /* The run's own problems are a verdict (skip) on stdout, said below. */
    static const sc_analysis_cmd cmd = {.name = "classify",
                                        .short_opts = ":h",
                                        .long_opts = opts,
                                        .usage = sc__classify_usage,
                                        .usage_status = SC_CLASSIFY_ABORT,
                                        .option = sc__classify_option,
                                        .check = sc__classify_check};
    sc__classify_opts o = {.tolerance = SC__DEFAULT_TOLERANCE};
    sc__verdict verdict = {.line = ""};
    sc_analysis_bundle *run = calloc(1, sizeof(*run)), *base = calloc(1, sizeof(*base));
    sc_junit *j = NULL;
    int status, first;

    if (!run || !base) {
        free(run);
        free(base);
        return SC_CLASSIFY_ABORT;
    }
    if (!sc_analysis_options(&cmd, argc, argv, &o, &first, &status))
        goto out_free;
    /* A report that cannot be written is said before any bundle is read. */
    if (o.junit && !(j = sc_junit_new(o.junit, "streamcard classify", "classify"))) {
        status = SC_CLASSIFY_ABORT;
        goto out_free;
    }
    sc_analysis_load_named(&cmd, run, argv[first], &status);
    if (sc_analysis_load(base, o.baseline) < 0) {
        fprintf(stderr, "streamcard: classify: baseline %s: %s (valid: a bundle directory)\n",
                base->arg, base->why);
        snprintf(verdict.line, sizeof(verdict.line), "the baseline %s: %s", base->arg, base->why);
        status = SC_CLASSIFY_ABORT;
    } else if (!base->usable) {
        sc__say(&verdict, "skip: the baseline %s is not usable evidence: %s", base->arg, base->why);
        status = SC_CLASSIFY_SKIP;
    } else if (!run->loaded) {
        sc__say(&verdict, "skip: %s: %s: the run proves nothing", run->arg, run->why);
        status = SC_CLASSIFY_SKIP;
    } else if (!sc_verify_intact(&run->verify) || !run->verify.gates_computed) {
        sc__say(&verdict, "skip: %s: the run proves nothing: %s", run->facts.name, run->why);
        status = SC_CLASSIFY_SKIP;
    } else {
        status = sc__judge(run, base, &o, &verdict);
    }
    if (status != SC_CLASSIFY_ABORT)
        printf("%s\n", verdict.line);
    if (j) {
        sc__junit_case(j, run->arg, status, &verdict);
        if (sc_junit_write(j) < 0)
            status = SC_CLASSIFY_ABORT;
        j = NULL;
    }
    sc_analysis_free(base);
    sc_analysis_free(run);
out_free:
    sc_junit_abort(j);
    free(run);
    free(base);
    return status;
}
