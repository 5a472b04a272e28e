/*
 * cmd_classify.c: `streamcard classify BUNDLE --baseline B`: good (0), bad (1) or skip (125)
 * in one line, the way `git bisect run` reads an exit status, so a regression can be
 * bisected through a project's history or a whole software distribution.
 *
 * Only the build may differ from the baseline (binary, compiler, flags, OpenMP runtime:
 * what the bisection changes), plus the variables --allow names; any other controlled
 * variable that differs makes the run prove nothing about the build, and so does a run or
 * a baseline that fails verification. A failed gate is judged by its class (the gate
 * table, doc/contracts/gates.md "The gates"): an outcome gate the baseline held makes the run bad
 * (a TCP fall-back, a wrong result, a crash), an environment gate makes it skip.
 * Usage errors exit 128, which stops `git bisect run` instead of blaming a commit.
 *
 * The run may also be side B of a paired run (PAIR; doc/contracts/run.md "Paired runs"), its side A
 * the baseline, or a bisection step may make that pair itself (--rerun-baseline,
 * classify_rerun.c): then the host's drift cancels pair by pair. --gates-only judges the
 * gates alone (a transport regression needs no statistics).
 */
#include "analysis.h"
#include "classify.h"
#include "cli.h"
#include "junit.h"
#include "pair_load.h"
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
            "usage: streamcard classify --rerun-baseline BASELINE [CARD] [options]\n"
            "       streamcard classify PAIR [options]\n"
            "       streamcard classify BUNDLE --baseline BASELINE [options]\n"
            "options: [--tolerance PCT] [--allow VAR[,VAR...]] [--metric NAME[,NAME...]|all]\n"
            "         [--bad-gate GATE[,GATE...]] [--gates-only] [--max-interference PCT]\n"
            "         [--output DIR] [--seed N] [--junit FILE]\n"
            "\n"
            "Judges a run against a baseline for `git bisect run`, in one line on stdout.\n"
            "--rerun-baseline makes the step a paired run: the baseline's card and build (its\n"
            "workload, unchanged since) take turns with CARD (default: the baseline's card)\n"
            "and this build, and the pair is judged: the host's drift between the baseline's\n"
            "day and now cancels pair by pair. PAIR judges side B of a paired run against its\n"
            "side A. BUNDLE --baseline compares two separate bundles (a host that drifted\n"
            "under them is a skip). The primary metric of the baseline's card (or --metric's)\n"
            "is compared: the ratio BUNDLE/BASELINE with its 95%% interval (Hodges-Lehmann;\n"
            "pairs: Wilcoxon signed-rank, separate: Mann-Whitney; at least 6 runs a side,\n"
            "the card's runs: 6 or auto); several metrics: Holm's correction over them:\n"
            "  good  every interval excludes a loss of more than PCT %%, in the metric's own\n"
            "        direction                                                     exit 0\n"
            "  bad   a metric's whole interval lies beyond PCT %% (a significant loss), or an\n"
            "        outcome gate failed that the baseline held                    exit 1\n"
            "  skip  it cannot tell (an interval reaches both sides of PCT %%, or fewer than 6\n"
            "        runs a side: the line says roughly how many runs would decide it), or\n"
            "        the run proves nothing: BUNDLE is missing or fails verification, an\n"
            "        environment gate failed, it differs from the baseline in more than\n"
            "        the build, a side is contaminated (foreign work above\n"
            "        --max-interference), the host drifted under separate series, or the\n"
            "        baseline itself is not usable                                exit 125\n"
            "--gates-only judges no figure: bad (1) when a gate that held on the baseline fails,\n"
            "good (0) when every gate that held still holds, skip (125) otherwise (a gate of\n"
            "the machine failed: interference, evidence, platform_state, a workload ended from\n"
            "outside; or a gate the baseline held was not checked).\n"
            "Usage errors, an unreadable BASELINE and a baseline whose build changed since\n"
            "(--rerun-baseline) exit 128 (git bisect run stops).\n"
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
            "  --baseline DIR     the known-good bundle (with BUNDLE)\n"
            "  --tolerance PCT    the loss against the baseline, in percent, that makes a run\n"
            "                     bad once its interval lies beyond it (default %.0f)\n"
            "  --allow VAR,...    controlled variables that may differ besides the build\n"
            "                     group (e.g. host; env or expect when the card lives in the\n"
            "                     bisected repository); see streamcard compare --variables\n"
            "  --metric NAME,...  judge these metrics (default: the card's primary metric:\n"
            "                     its kernel (triad for all), qps, MPI the bandwidth at\n"
            "                     expect.at_bytes or else the latency at the smallest size);\n"
            "                     all: every metric of the card; several: Holm's correction\n"
            "  --gates-only       the gates decide alone (see above)\n"
            "  --rerun-baseline DIR\n"
            "                     the baseline bundle to run again, paired with this step\n"
            "  --output DIR       where --rerun-baseline's pair goes (default: beside the\n"
            "                     baseline)\n"
            "  --seed N           the pair's order (default: drawn, and recorded)\n"
            "  --max-interference PCT\n"
            "                     a side whose runs had more foreign work on a CPU is\n"
            "                     contaminated: skip (default 5)\n"
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

/*
 * What classify said: its one line (stdout, and --junit's message) and, once metrics were
 * compared, one line per metric (--junit's text). One classify per process: the command's
 * own record, not the core's.
 */
static struct {
    char line[2048];
    char detail[8192];
    size_t used;
} sc__said_now;

/* Says the verdict's one line on stdout and keeps it for --junit. */
static void sc__say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void sc__say(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(sc__said_now.line, sizeof(sc__said_now.line), fmt, ap);
    va_end(ap);
    printf("%s\n", sc__said_now.line);
}

/* Keeps one compared metric's line for --junit's text. */
static void sc__keep_detail(const char *line)
{
    size_t room = sizeof(sc__said_now.detail) - sc__said_now.used;

    if (room > 1)
        sc__said_now.used +=
            (size_t)snprintf(sc__said_now.detail + sc__said_now.used, room, "%s\n", line);
    if (sc__said_now.used >= sizeof(sc__said_now.detail))
        sc__said_now.used = sizeof(sc__said_now.detail) - 1;
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

/* A comparison that is not the interval's (contaminated, drifting): skip, saying why. */
static bool sc__overridden(const sc_bundle_facts *run, const sc_analysis_cmp *c,
                           const sc_classify_opts *o)
{
    char why[400];

    if (c->verdict != SC_VERDICT_CONTAMINATED && c->verdict != SC_VERDICT_DRIFTING)
        return false;
    sc_analysis_override_text(c, o->max_interference, why, sizeof(why));
    sc__say("skip: %s: %s: %s%s", run->name, sc_stats_verdict_name(c->verdict), why,
            c->verdict == SC_VERDICT_DRIFTING
                ? " (valid: classify --rerun-baseline BASELINE, a paired run of the baseline's "
                  "card and build against this one)"
                : "");
    return true;
}

/*
 * Each metric judged (the baseline card's primary, or --metric's), the run's runs against
 * the baseline's (doc/contracts/analysis.md, "Statistics of runs"): bad only when one metric's
 * whole 95% interval lies beyond the tolerance (a significant loss; several metrics: still after
 * Holm's correction), good when every interval excludes such a loss, skip when an interval
 * cannot tell (or there is none: fewer than 6 runs a side), saying roughly how many runs
 * would decide it, or when a side is contaminated or the host drifted under separate series.
 */
static int sc__judge_metrics(const sc_bundle_facts *run, const sc_bundle_facts *base,
                             const sc_classify_opts *o, bool paired)
{
    sc_metric m[SC_METRIC_MAX];
    size_t n = sc_analysis_judged(base, o->metric, m, SC_METRIC_MAX), worst = n, open = n;
    sc_analysis_cmp *c = calloc(n + 1, sizeof(*c));
    sc__call call[SC_METRIC_MAX];
    double p, low, high, worst_p = 0, tolerance = o->tolerance;
    sc_analysis_opts ao = {.bound_pct = SC_ANALYSIS_NOISE_BOUND,
                           .max_interference_pct = o->max_interference,
                           .tolerance_pct = tolerance,
                           .paired = paired};
    char said[320], holm[160] = "";
    int status = SC_CLASSIFY_GOOD;

    if (!c)
        return SC_CLASSIFY_ABORT;
    if (!sc_analysis_metric_known("classify", o->metric, base)) {
        status = SC_CLASSIFY_ABORT;
        goto out;
    }
    if (n == 0) {
        sc__say("skip: %s: the baseline's card names no metric", run->name);
        status = SC_CLASSIFY_SKIP;
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        double v;
        if (sc_analysis_compare(base, run, &m[i], &ao, &c[i]) < 0 || c[i].val_a <= 0) {
            sc__say("skip: %s: no %s recorded in %s", run->name, m[i].name,
                    sc_facts_metric(run, &m[i], &v) < 0 ? "the run" : "the baseline");
            status = SC_CLASSIFY_SKIP;
            goto out;
        }
    }
    if (n > 1 && sc_compare_holm(c, n) < 0) {
        status = SC_CLASSIFY_ABORT;
        goto out;
    }
    for (size_t i = 0; i < n; i++)
        if (sc__overridden(run, &c[i], o)) {
            status = SC_CLASSIFY_SKIP;
            goto out;
        }
    for (size_t i = 0; i < n; i++) {
        call[i] = sc__call_of(&c[i], tolerance, &p, &low, &high);
        sc__said(said, sizeof(said), &c[i]);
        sc__keep_detail(said);
        /* among several metrics a loss must hold after Holm's correction */
        if (call[i] == SC__BAD && n > 1 && c[i].p_loss_holm >= 1 - SC_STATS_LEVEL)
            call[i] = SC__UNDECIDED;
        if (call[i] == SC__BAD && (worst == n || p < worst_p)) {
            worst = i;
            worst_p = p;
        }
        if ((call[i] == SC__UNDECIDED || call[i] == SC__UNAVAILABLE) && open == n)
            open = i;
    }
    if (n > 1)
        snprintf(holm, sizeof(holm), "; Holm's correction for %zu metrics", n);
    if (worst < n) {
        sc__said(said, sizeof(said), &c[worst]);
        sc__say("bad: %s: %s: a significant loss beyond the %.1f%% tolerance (%s%s)", run->name,
                said, tolerance, c[worst].r.method, holm);
        status = SC_CLASSIFY_BAD;
    } else if (open < n && call[open] == SC__UNAVAILABLE) {
        sc__said(said, sizeof(said), &c[open]);
        sc__say("skip: %s: %s: interval unavailable: at least %d runs a side are needed to "
                "tell a loss beyond %.1f%% from noise (runs: %d or more, on both)",
                run->name, said, SC_STATS_MIN_RUNS, tolerance, SC_STATS_MIN_RUNS);
        status = SC_CLASSIFY_SKIP;
    } else if (open < n) {
        size_t need = sc_stats_runs_to_decide(&c[open].r, c[open].m.better == SC_METRIC_HIGHER,
                                              1 - tolerance / 100);
        sc__said(said, sizeof(said), &c[open]);
        if (need)
            sc__say("skip: %s: %s: too noisy to tell a loss beyond %.1f%% from noise%s; roughly "
                    "%zu %s would decide it",
                    run->name, said, tolerance, holm, need, paired ? "pairs" : "runs a side");
        else
            sc__say("skip: %s: %s: too noisy to tell a loss beyond %.1f%% from noise%s (adjusted "
                    "p %.3f)",
                    run->name, said, tolerance, holm, c[open].p_loss_holm);
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
        sc__say("good: %s: %s: no loss beyond the %.1f%% tolerance%s", run->name, said, tolerance,
                n > 1 ? "; the closest of the metrics judged" : "");
    }
out:
    free(c);
    return status;
}

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
 * The run's failed gates, in their classes (doc/contracts/gates.md, "The gates"): an environment
 * gate makes it prove nothing (skip), except where it follows from an outcome: a workload
 * that ended by itself with a non-zero status after a bad gate (a wrong result) fails
 * exit_code too, and one that crashed could not pass its phases or snapshots either (the
 * evidence gate always skips). Returns SC_ANALYSIS_GO_ON with *bad set when a bad gate
 * failed, else the verdict (said).
 */
static int sc__judge_environment(const sc_analysis_bundle *run, const char *bad_gates, bool *bad)
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
    sc__say("skip: %s: the run proves nothing: environment gates failed: %s (%s)", run->facts.name,
            names, note);
    return SC_CLASSIFY_SKIP;
}

/* An outcome gate failed: bad where the baseline held every such gate, else skip. */
static int sc__judge_outcome(const sc_analysis_bundle *run, const sc_analysis_bundle *base,
                             const char *bad_gates)
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
        sc__say("skip: %s: the run failed %s, which the baseline did not check (valid: a "
                "baseline whose card asks for the same gates)",
                run->facts.name, missing);
        return SC_CLASSIFY_SKIP;
    }
    sc__say("bad: %s: outcome gates failed where the baseline held them: %s (%s)", run->facts.name,
            names, note);
    return SC_CLASSIFY_BAD;
}

/* A gate whose failure says what happened to the machine, not what the revision did. */
static bool sc__machine_gate(const sc_gates *g, sc_gate_id id)
{
    return id == SC_GATE_INTERFERENCE || id == SC_GATE_EVIDENCE || id == SC_GATE_PLATFORM_STATE ||
           (id == SC_GATE_EXIT_CODE && g->ended_from_outside);
}

/*
 * --gates-only: the gates that held on the baseline, in the run: bad when one failed (every
 * gate but the machine's; --bad-gate: only those it names), skip when only a machine's gate
 * failed or a gate the baseline held was not checked, good when all of them hold.
 */
static int sc__judge_gates_only(const sc_analysis_bundle *run_ab, const sc_analysis_bundle *base_ab,
                                const sc_classify_opts *o)
{
    const sc_gates *g = &run_ab->verify.gates, *bg = &base_ab->verify.gates;
    bool bad[SC_GATE_COUNT] = {false}, machine[SC_GATE_COUNT] = {false};
    bool unchecked[SC_GATE_COUNT] = {false};
    char names[256];
    const char *note;
    size_t held = 0;

    for (int i = 0; i < SC_GATE_COUNT; i++) {
        sc_gate_id id = (sc_gate_id)i;
        if (bg->g[i].state != SC_GATE_OK)
            continue;
        held++;
        if (g->g[i].state == SC_GATE_OK)
            continue;
        if (g->g[i].state != SC_GATE_FAIL)
            unchecked[i] = true;
        else if (o->bad_gates ? sc_word_in(o->bad_gates, ",", sc_gate_name(id))
                              : !sc__machine_gate(g, id))
            bad[i] = true;
        else
            machine[i] = true;
    }
    if (sc__failed(g, bad, names, sizeof(names), &note)) {
        sc__say("bad: %s: gates that held on the baseline failed: %s (%s)", run_ab->facts.name,
                names, note);
        return SC_CLASSIFY_BAD;
    }
    if (sc__failed(g, machine, names, sizeof(names), &note)) {
        sc__say("skip: %s: the run proves nothing: the machine's gates failed: %s (%s)",
                run_ab->facts.name, names, note);
        return SC_CLASSIFY_SKIP;
    }
    if (sc__failed(g, unchecked, names, sizeof(names), &note)) {
        sc__say("skip: %s: the run did not check %s, which held on the baseline (valid: a run "
                "whose card asks for the same gates)",
                run_ab->facts.name, names);
        return SC_CLASSIFY_SKIP;
    }
    sc__say("good: %s: every gate that held on the baseline holds (%zu gates; no figure judged: "
            "--gates-only)",
            run_ab->facts.name, held);
    return SC_CLASSIFY_GOOD;
}

/* The verdict on a run whose bundle is intact against a usable baseline (paired: side B
   against side A of one pair). */
static int sc__judge(const sc_analysis_bundle *run_ab, const sc_analysis_bundle *base_ab,
                     const sc_classify_opts *o, bool paired)
{
    const sc_bundle_facts *run = &run_ab->facts, *base = &base_ab->facts;
    size_t diff[SC_FACTS_MAX_VARS], n = sc_facts_diff(base, run, diff);
    bool bad = false;
    int status =
        o->gates_only ? SC_ANALYSIS_GO_ON : sc__judge_environment(run_ab, o->bad_gates, &bad);

    if (status != SC_ANALYSIS_GO_ON)
        return status;
    /* Figures declared differently are not one measure: said before the variables, since
       the card's metrics variable differs then too and would hide why. */
    char said[320];
    if (!o->gates_only && !sc_metric_same_declared(base->metrics, base->n_metrics, run->metrics,
                                                   run->n_metrics, said, sizeof(said))) {
        sc__say("skip: %s: its card and the baseline's declare different metrics: %s (A the "
                "baseline, B the run)",
                run->name, said);
        return SC_CLASSIFY_SKIP;
    }
    for (size_t i = 0; i < n; i++) {
        const sc_fact *v = &run->vars[diff[i]];
        /* A run that failed by its own outcome may end before it shows every value. */
        if (bad && sc_facts_unshown(v->value))
            continue;
        if (strcmp(v->group, "build") != 0 && !sc_word_in(o->allow, ",", v->name) &&
            !sc_facts_follows(base, run, diff[i])) {
            char what[512];
            sc_analysis_difference(base, run, diff[i], what, sizeof(what));
            sc__say("skip: %s: not comparable with the baseline: %s differs (%s here, %s in the "
                    "baseline; valid: only the build differs, or --allow %s)",
                    run->name, what, v->value, base->vars[diff[i]].value, v->name);
            return SC_CLASSIFY_SKIP;
        }
    }
    if (o->gates_only)
        return sc__judge_gates_only(run_ab, base_ab, o);
    if (bad)
        return sc__judge_outcome(run_ab, base_ab, o->bad_gates);
    return sc__judge_metrics(run, base, o, paired);
}

static int sc__classify_option(void *ctx, int c, const char *arg)
{
    sc_classify_opts *o = ctx;
    char *end = NULL;

    if (c == 'b') {
        o->baseline = arg;
    } else if (c == 'a') {
        o->allow = arg;
    } else if (c == 'm') {
        o->metric = arg;
    } else if (c == 'j') {
        o->junit = arg;
    } else if (c == 'g') {
        o->bad_gates = arg;
    } else if (c == 'G') {
        o->gates_only = true;
    } else if (c == 'r') {
        o->rerun = arg;
    } else if (c == 'o') {
        o->output = arg;
    } else if (c == 'x') {
        return sc_analysis_limit_ok("classify", arg, &o->max_interference) ? SC_ANALYSIS_GO_ON
                                                                           : SC_CLASSIFY_ABORT;
    } else if (c == 's') {
        errno = 0;
        o->seed = strtoull(arg, &end, 10);
        o->has_seed = true;
        if (errno || !end || end == arg || *end || *arg == '-') {
            fprintf(stderr,
                    "streamcard: classify: --seed %s: not a whole number (valid: 0 to 2^64-1)\n",
                    arg);
            return SC_CLASSIFY_ABORT;
        }
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
    const sc_classify_opts *o = ctx;
    char bad[128];

    if (o->rerun ? (n > 1 || o->baseline) : n != 1) {
        fprintf(stderr,
                "streamcard: classify: %s (valid: streamcard classify --rerun-baseline BASELINE "
                "[CARD], classify PAIR, or classify BUNDLE --baseline BASELINE)\n",
                o->rerun && o->baseline ? "--rerun-baseline is the baseline: no --baseline too"
                : o->rerun              ? "--rerun-baseline takes at most one CARD"
                                        : "needs one BUNDLE (with --baseline) or PAIR");
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
    return sc_analysis_metric_ok("classify", o->metric, true) ? SC_ANALYSIS_GO_ON
                                                              : SC_CLASSIFY_ABORT;
}

/* The run and its baseline, loaded: judged, or what stops it said. */
static int sc__classify_bundles(const sc_analysis_bundle *run, const sc_analysis_bundle *base,
                                const sc_classify_opts *o, bool paired)
{
    if (!base->usable) {
        sc__say("skip: the baseline %s is not usable evidence: %s", base->arg, base->why);
        return SC_CLASSIFY_SKIP;
    }
    if (!run->loaded) {
        sc__say("skip: %s: %s: the run proves nothing", run->arg, run->why);
        return SC_CLASSIFY_SKIP;
    }
    if (!sc_verify_intact(&run->verify) || !run->verify.gates_computed) {
        sc__say("skip: %s: the run proves nothing: %s", run->facts.name, run->why);
        return SC_CLASSIFY_SKIP;
    }
    return sc__judge(run, base, o, paired);
}

/* A paired run: side B against side A, once the pair itself holds (verify's checks). */
static int sc__classify_pair(const char *path, const sc_classify_opts *o)
{
    sc_pair_loaded p;
    int status;

    if (sc_pair_load(path, NULL, &p) < 0) {
        sc__say("skip: %s: the pair cannot be read", p.arg_shown);
        status = SC_CLASSIFY_SKIP;
    } else if (p.problems.count || !p.side[0].loaded || !p.side[1].loaded) {
        sc__say("skip: %s: the pair proves nothing: %s", p.arg_shown, p.why);
        status = SC_CLASSIFY_SKIP;
    } else {
        /* the lines name side B within its pair: "pair_<name>_<time>/b" */
        char name[512];
        const char *slash = strrchr(p.side[1].facts.path, '/');
        const char *start = slash;
        while (start && start > p.side[1].facts.path && start[-1] != '/')
            start--;
        snprintf(name, sizeof(name), "%s", start ? start : p.side[1].facts.name);
        p.side[1].facts.name = name;
        status = sc__classify_bundles(&p.side[1], &p.side[0], o, true);
    }
    sc_pair_loaded_free(&p);
    return status;
}

/* --junit: classify's outcome as one test case (bad a failure, skip skipped, 128 an error)
   written whole; NULL j: nothing. The status, or 128 when the report cannot be written. */
static int sc__junit_end(sc_junit *j, const char *run, int status)
{
    sc_junit_kind kind = status == SC_CLASSIFY_GOOD   ? SC_JUNIT_PASS
                         : status == SC_CLASSIFY_BAD  ? SC_JUNIT_FAILURE
                         : status == SC_CLASSIFY_SKIP ? SC_JUNIT_SKIPPED
                                                      : SC_JUNIT_ERROR;
    const char *line = sc__said_now.line;
    char *text = NULL;

    if (!j)
        return status;
    if (sc__said_now.used && asprintf(&text, "%s\n%s", line, sc__said_now.detail) < 0)
        text = NULL;
    sc_junit_case(j, "classify", run ? run : "", kind, kind == SC_JUNIT_PASS ? NULL : line,
                  text ? text : line);
    free(text);
    return sc_junit_write(j) < 0 ? SC_CLASSIFY_ABORT : status;
}

int sc_cmd_classify(int argc, char **argv)
{
    static const struct option opts[] = {{"baseline", required_argument, NULL, 'b'},
                                         {"tolerance", required_argument, NULL, 't'},
                                         {"allow", required_argument, NULL, 'a'},
                                         {"metric", required_argument, NULL, 'm'},
                                         {"bad-gate", required_argument, NULL, 'g'},
                                         {"gates-only", no_argument, NULL, 'G'},
                                         {"rerun-baseline", required_argument, NULL, 'r'},
                                         {"output", required_argument, NULL, 'o'},
                                         {"seed", required_argument, NULL, 's'},
                                         {"max-interference", required_argument, NULL, 'x'},
                                         {"junit", required_argument, NULL, 'j'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    /* The run's own problems are a verdict (skip) on stdout, said below. */
    static const sc_analysis_cmd cmd = {.name = "classify",
                                        .short_opts = ":h",
                                        .long_opts = opts,
                                        .usage = sc__classify_usage,
                                        .usage_status = SC_CLASSIFY_ABORT,
                                        .option = sc__classify_option,
                                        .check = sc__classify_check};
    sc_classify_opts o = {.tolerance = SC__DEFAULT_TOLERANCE,
                          .max_interference = SC_COMPARE_MAX_INTERFERENCE};
    sc_analysis_bundle run, base;
    char *pair = NULL;
    int status, first;

    if (!sc_analysis_options(&cmd, argc, argv, &o, &first, &status))
        return status;
    const char *named = first < argc ? argv[first] : NULL;
    /* A report that cannot be written is said before any bundle is read. */
    sc_junit *j = NULL;
    if (o.junit && !(j = sc_junit_new(o.junit, "streamcard classify", "classify")))
        return SC_CLASSIFY_ABORT;
    if (!o.baseline && !o.rerun) {
        status =
            named && sc_pair_is(named) ? sc__classify_pair(named, &o) : sc__classify_check(&o, 0);
        return sc__junit_end(j, named, status);
    }
    if (sc_analysis_load(&base, o.rerun ? o.rerun : o.baseline) < 0) {
        fprintf(stderr, "streamcard: classify: baseline %s: %s (valid: a bundle directory)\n",
                base.arg, base.why);
        snprintf(sc__said_now.line, sizeof(sc__said_now.line), "the baseline %s: %s", base.arg,
                 base.why);
        status = SC_CLASSIFY_ABORT;
    } else if (o.rerun && !base.usable) {
        sc__say("skip: the baseline %s is not usable evidence: %s", base.arg, base.why);
        status = SC_CLASSIFY_SKIP;
    } else if (o.rerun) {
        status = sc_classify_rerun(&o, &base, named, &pair);
        if (status == SC_ANALYSIS_GO_ON)
            status = sc__classify_pair(pair, &o);
    } else {
        sc_analysis_load(&run, named);
        status = sc__classify_bundles(&run, &base, &o, false);
        sc_analysis_free(&run);
    }
    free(pair);
    sc_analysis_free(&base);
    return sc__junit_end(j, named, status);
}
