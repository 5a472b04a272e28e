/*
 * report_html.c: the page of `streamcard report` (see report_html.h): a summary (each
 * bundle's medians of runs with their intervals), the comparison when there are several
 * bundles (the variables that differ first, the figures, their plots), then per bundle its
 * verdict and gates, the plan, the sections drawn from its figures (report_figures.c: runs,
 * rates, MPI sizes, link matrix), thread placement, NUMA pages and the platform state before
 * and after. Every figure comes from the bundle's own files.
 */
#include "report_html.h"
#include "html.h"
#include "report_parts.h"
#include "report_svg.h"
#include "sc_cpulist.h"
#include "sc_kv.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SC__MAX_CPUS 1024

#define SC__CSS                                                                                    \
    "body{font:14px/1.45 sans-serif;margin:20px 28px;color:#1a202c}"                               \
    "h1{font-size:22px}h2{font-size:18px;border-bottom:2px solid #cbd5e0;margin-top:36px}"         \
    "h3{font-size:15px;margin-top:24px}table{border-collapse:collapse;margin:6px 0;"               \
    "max-width:100%}td,th{border:1px solid #cbd5e0;padding:3px 8px;text-align:left;"               \
    "vertical-align:top}td.num{text-align:right;font-variant-numeric:tabular-nums}"                \
    "th{background:#edf2f7}tr.diff td{background:#fefcbf}tr.chg td{background:#fed7d7}"            \
    "table.cmp{width:100%}table.cmp td.mono{max-width:40ch}"                                       \
    "pre{background:#f7fafc;border:1px solid #e2e8f0;padding:8px;overflow:auto;font-size:12px}"    \
    ".ok{color:#276749;font-weight:bold}.fail{color:#c53030;font-weight:bold}.na{color:#718096}"   \
    ".note{color:#4a5568;font-size:13px}td.mono{font-family:monospace;word-break:break-all}"       \
    "details.equal{margin:4px 0 10px}details.equal summary{color:#4a5568;cursor:pointer}"          \
    ".plots{display:grid;grid-template-columns:repeat(auto-fill,minmax(540px,1fr));gap:8px 32px;"  \
    "align-items:start}svg.plot{display:block;margin:8px 0;max-width:100%;height:auto}"            \
    "svg.fit,svg.wide{width:100%;height:auto}svg text{font:12px sans-serif;fill:#1a202c}"          \
    "svg text.ttl{font-weight:bold;font-size:13px}svg text.axis{fill:#2d3748;stroke:none}"         \
    "svg text.tick,svg text.legend,svg text.small{fill:#4a5568;font-size:11px}"                    \
    "svg text.cellv{font-size:11px}svg text.drain{fill:#c53030;font-weight:bold}"                  \
    ".bar{fill:#3182ce}.whisker{stroke:#1a202c;stroke-width:1.5;fill:none}"                        \
    ".axis{stroke:#1a202c;fill:none}.grid{stroke:#e2e8f0}.line{stroke:#3182ce;"                    \
    "stroke-width:2;fill:none}.dot{fill:#2c5282}.cpu{fill:#edf2f7;stroke:#a0aec0}"                 \
    ".cpu.listed{fill:#bee3f8}.cpu.busy{fill:#63b3ed;stroke:#2c5282}"                              \
    ".bar.worse{fill:#e53e3e}.ref{stroke:#c53030;stroke-width:2;stroke-dasharray:5 3;fill:none}"   \
    ".side{display:flex;gap:16px;flex-wrap:wrap}.band{fill:#bee3f8}.median{stroke:#2c5282;"        \
    "stroke-width:2.5;fill:none}.run{fill:#dd6b20;stroke:#fff;stroke-width:1}"                     \
    ".noise{fill:#e2e8f0}.one{stroke:#4a5568;stroke-width:1.5;stroke-dasharray:4 3;fill:none}"     \
    "circle.v{stroke:#1a202c;stroke-width:1}circle.better{fill:#38a169}circle.worse{fill:#e53e3e}" \
    "circle.noisy{fill:#dd6b20}circle.same{fill:#a0aec0}text.v{font-weight:bold}"                  \
    "text.better{fill:#276749}text.worse{fill:#c53030}text.noisy{fill:#c05621}"                    \
    "text.same{fill:#4a5568}.cell.suspect{stroke:#1a202c;stroke-width:3}"                          \
    "ul.verdict{margin:4px 0 8px;padding-left:20px}"

/* <td>text</td> with an optional class. */
static void sc__td(sc_html *out, const char *cls, const char *text)
{
    sc_html_tag(out, "<td");
    if (cls)
        sc_html_attr(out, "class", cls);
    sc_html_tag(out, ">");
    sc_html_text(out, text);
    sc_html_tag(out, "</td>");
}

/* <td> with an integer. */
static void sc__td_int(sc_html *out, long long v)
{
    sc_html_tag(out, "<td>");
    sc_html_int(out, "%lld", v);
    sc_html_tag(out, "</td>");
}

/* <tr><td>a</td><td>b</td></tr> of two integers. */
static void sc__int_row(sc_html *out, long a, long b)
{
    sc_html_tag(out, "<tr>");
    sc__td_int(out, a);
    sc__td_int(out, b);
    sc_html_tag(out, "</tr>\n");
}

static void sc__verdict(sc_html *out, const sc_analysis_bundle *ab)
{
    if (ab->usable)
        sc_html_tag(out, "<span class=\"ok\">ok</span>");
    else {
        sc_html_tag(out, "<span class=\"fail\">REFUSED</span> ");
        sc_html_text(out, ab->why);
    }
}

/* "copy 80908 MB/s [79628, 81450]": a headline metric as the summary shows it, the median
   of the runs and its interval; one run's figure alone. */
static void sc__headline(sc_html *out, const sc_analysis_bundle *ab)
{
    const sc_bundle_facts *f = &ab->facts;
    bool any = false;
    sc_stats s;

    for (size_t i = 0; ab->usable && i < f->n_headline; i++) {
        if (sc_report_stats(f, &f->headline[i], &s) < 0)
            continue;
        if (any)
            sc_html_tag(out, "<br>");
        any = true;
        sc_html_text(out, f->headline[i].name);
        sc_html_tag(out, " <b>");
        sc_html_sig(out, 5, s.median);
        sc_html_tag(out, "</b> ");
        sc_html_text(out, f->headline[i].unit);
        if (s.ci) {
            sc_html_tag(out, " [");
            sc_html_sig(out, 4, s.ci_low);
            sc_html_tag(out, ", ");
            sc_html_sig(out, 4, s.ci_high);
            sc_html_tag(out, "]");
        }
    }
    if (!any)
        sc_html_tag(out, "-");
}

static void sc__summary(sc_html *out, const sc_analysis_bundle *ab, size_t n)
{
    sc_html_tag(out, "<h2>Summary</h2><table><tr><th>bundle</th><th>verdict (recomputed)</th>"
                     "<th>runs</th><th>figures: the median of the runs [its 95% interval]</th>"
                     "<th>host</th><th>ended</th></tr>\n");
    for (size_t i = 0; i < n; i++) {
        const sc_bundle_facts *f = &ab[i].facts;
        sc_html_tag(out, "<tr>");
        sc__td(out, "mono", ab[i].loaded ? f->name : ab[i].arg);
        sc_html_tag(out, "<td>");
        sc__verdict(out, &ab[i]);
        sc_html_tag(out, "</td><td class=\"num\">");
        if (ab[i].usable)
            sc_html_int(out, "%lld", sc_report_runs_of(f));
        sc_html_tag(out, "</td><td>");
        sc__headline(out, &ab[i]);
        sc_html_tag(out, "</td>");
        sc__td(out, NULL, ab[i].loaded ? f->host : "");
        sc__td(out, NULL, ab[i].loaded ? f->ended_at : "");
        sc_html_tag(out, "</tr>\n");
    }
    sc_html_tag(out, "</table>\n<p class=\"note\">A figure here is the median over the bundle's "
                     "runs (a bundle of one run: that run's), with the 95% interval of that "
                     "median from 6 runs; the Rates section of a bundle shows one run's own "
                     "best.</p>\n");
}

/* "median of 6 runs, 95% [49800, 50555]" under a figure of several runs; nothing for one. */
static void sc__runs_note(sc_html *out, const sc_stats *s)
{
    if (s->n < 2)
        return;
    sc_html_tag(out, "<br><small>median of ");
    sc_html_int(out, "%lld", s->n);
    if (!s->ci) {
        sc_html_tag(out, " runs, interval unavailable</small>");
        return;
    }
    sc_html_tag(out, " runs, 95% [");
    sc_html_sig(out, 4, s->ci_low);
    sc_html_tag(out, ", ");
    sc_html_sig(out, 4, s->ci_high);
    sc_html_tag(out, "]</small>");
}

/*
 * One row per metric of a valid comparison: each bundle's value (the median of its runs,
 * with their interval), and against A its change, the ratio with its 95% interval and the
 * verdict (doc/contracts/analysis.md, "Statistics of runs").
 */
static void sc__metric_rows(sc_html *out, const sc_analysis_bundle *ab, size_t n,
                            const sc_metric *m, size_t nm, const sc_analysis_opts *ao)
{
    char text[256];

    for (size_t k = 0; k < nm; k++) {
        sc_html_tag(out, "<tr><th>");
        sc_html_text(out, m[k].name);
        sc_html_tag(out, " ");
        sc_html_text(out, m[k].unit);
        sc_html_tag(out, " (change vs A)</th>");
        for (size_t i = 0; i < n; i++) {
            sc_analysis_cmp c;
            if (sc_analysis_compare(&ab[0].facts, &ab[i].facts, &m[k], ao, &c) < 0) {
                sc_html_tag(out, "<td class=\"na\">not recorded</td>");
                continue;
            }
            sc_html_tag(out, "<td><b>");
            sc_html_sig(out, 5, c.val_b);
            sc_html_tag(out, "</b>");
            if (i) {
                sc_analysis_cmp_text(&c, text, sizeof(text));
                sc_html_tag(out, " (");
                sc_html_num(out, "%+.1f", sc_metric_change(c.val_a, c.val_b));
                sc_html_tag(out, "%)<br><small>");
                sc_html_text(out, text);
                sc_html_tag(out, "</small>");
            }
            sc__runs_note(out, &c.sb);
            sc_html_tag(out, "</td>");
        }
        sc_html_tag(out, "</tr>\n");
    }
}

/* Each bundle's worst foreign share over its CPUs and runs (the interference gate). */
static void sc__interference_row(sc_html *out, const sc_analysis_bundle *ab, size_t n)
{
    char text[96];

    sc_html_tag(out, "<tr><th>interference</th>");
    for (size_t i = 0; i < n; i++) {
        sc_analysis_interference(&ab[i].facts, text, sizeof(text));
        sc__td(out, NULL, text);
    }
    sc_html_tag(out, "</tr>\n");
}

/* How a controlled variable stands across the bundles. */
typedef enum sc__var_state {
    SC__VAR_NA,      /* n/a in every bundle: not shown */
    SC__VAR_EQUAL,   /* the same in every bundle */
    SC__VAR_FOLLOWS, /* differs, at the default another differing variable gives */
    SC__VAR_DIFFERS, /* differs: a difference the comparison counts */
} sc__var_state;

static sc__var_state sc__var_state_of(const sc_analysis_bundle *ab, size_t n, size_t v)
{
    const sc_bundle_facts *first = &ab[0].facts;
    bool differs = false, counts = false, all_na = true;

    for (size_t i = 0; i < n; i++) {
        bool d = strcmp(ab[i].facts.vars[v].value, first->vars[v].value) != 0;
        differs |= d;
        /* At the default another differing variable gives: not a second difference. */
        counts |= d && !sc_facts_follows(first, &ab[i].facts, v);
        all_na &= strcmp(ab[i].facts.vars[v].value, "n/a") == 0;
    }
    return all_na    ? SC__VAR_NA
           : counts  ? SC__VAR_DIFFERS
           : differs ? SC__VAR_FOLLOWS
                     : SC__VAR_EQUAL;
}

/* A row of the variable v: its name and each bundle's value. */
static void sc__var_row(sc_html *out, const sc_analysis_bundle *ab, size_t n, size_t v, bool diff)
{
    sc_html_tag(out, "<tr");
    if (diff)
        sc_html_attr(out, "class", "diff");
    sc_html_tag(out, ">");
    sc__td(out, NULL, ab[0].facts.vars[v].name);
    for (size_t i = 0; i < n; i++)
        sc__td(out, "mono", ab[i].facts.vars[v].value);
    sc_html_tag(out, "</tr>\n");
}

/* The header row: "controlled variable", then "A: name", "B: name" ... */
static void sc__cmp_header(sc_html *out, const sc_analysis_bundle *ab, size_t n, const char *first)
{
    sc_html_tag(out, "<tr><th>");
    sc_html_text(out, first);
    sc_html_tag(out, "</th>");
    for (size_t i = 0; i < n; i++) {
        char letter[4] = {(char)('A' + i % 26), ':', ' ', '\0'};
        sc_html_tag(out, "<th>");
        sc_html_text(out, letter);
        sc_html_text(out, ab[i].facts.name);
        sc_html_tag(out, "</th>");
    }
    sc_html_tag(out, "</tr>\n");
}

/* What the comparison is: repeats, one variable, invalid, or not one at all. */
static void sc__cmp_kind(sc_html *out, bool refused, size_t ndiff, const char *names)
{
    sc_html_tag(out, "<p>");
    if (refused)
        sc_html_tag(out,
                    "<span class=\"fail\">Not a comparison:</span> a bundle is refused (failed "
                    "verification or gates); its numbers are not to be used.");
    else if (ndiff == 0)
        sc_html_tag(out, "<span class=\"ok\">Repeats:</span> no controlled variable differs.");
    else if (ndiff == 1) {
        sc_html_tag(out, "<span class=\"ok\">Single-variable comparison:</span> only ");
        sc_html_text(out, names);
        sc_html_tag(out, " differs.");
    } else {
        sc_html_tag(out, "<span class=\"fail\">Invalid as a single-variable comparison:</span> ");
        sc_html_int(out, "%lld", ndiff);
        sc_html_tag(out, " controlled variables differ: ");
        sc_html_text(out, names);
        sc_html_tag(out, "; no figure is compared.");
    }
    sc_html_tag(out, "</p>\n");
}

/*
 * The controlled variables that differ side by side, then the figures and their changes
 * when the comparison is valid (every bundle usable, at most one variable differs; otherwise
 * only why), then how many variables are equal (listed folded), and the comparison's plots.
 */
static void sc__comparison(sc_html *out, const sc_analysis_bundle *ab, size_t n, const char *metric,
                           const sc_analysis_opts *ao)
{
    const sc_bundle_facts *first = &ab[0].facts;
    sc__var_state state[SC_FACTS_MAX_VARS];
    char names[1024] = "";
    size_t ndiff = 0, nshown = 0, nequal = 0, used = 0;
    bool refused = false;
    sc_metric m[SC_METRIC_MAX];
    size_t nm = sc_analysis_metrics(first, metric, m, SC_METRIC_MAX);

    for (size_t i = 0; i < n; i++)
        refused |= !ab[i].usable;
    for (size_t v = 0; v < first->n_vars && v < SC_FACTS_MAX_VARS; v++) {
        state[v] = sc__var_state_of(ab, n, v);
        nequal += state[v] == SC__VAR_EQUAL;
        nshown += state[v] == SC__VAR_DIFFERS || state[v] == SC__VAR_FOLLOWS;
        if (state[v] == SC__VAR_DIFFERS) {
            ndiff++;
            if (used < sizeof(names))
                used += (size_t)snprintf(names + used, sizeof(names) - used, "%s%s",
                                         used ? ", " : "", first->vars[v].name);
        }
    }
    bool valid = !refused && ndiff <= 1;
    sc_html_tag(out, "<h2>Comparison</h2>\n");
    sc__cmp_kind(out, refused, ndiff, names);
    sc_html_tag(out, "<table class=\"cmp\">");
    sc__cmp_header(out, ab, n, "controlled variable");
    for (size_t v = 0; v < first->n_vars && v < SC_FACTS_MAX_VARS; v++)
        if (state[v] == SC__VAR_DIFFERS || state[v] == SC__VAR_FOLLOWS)
            sc__var_row(out, ab, n, v, true);
    if (!nshown) {
        sc_html_tag(out, "<tr><td colspan=\"");
        sc_html_int(out, "%lld", n + 1);
        sc_html_tag(out, "\" class=\"na\">no controlled variable differs</td></tr>\n");
    }
    sc_html_tag(out, "<tr><th>verdict</th>");
    for (size_t i = 0; i < n; i++) {
        sc_html_tag(out, "<td>");
        sc__verdict(out, &ab[i]);
        sc_html_tag(out, "</td>");
    }
    sc_html_tag(out, "</tr>\n");
    sc__interference_row(out, ab, n);
    if (valid) {
        sc__metric_rows(out, ab, n, m, nm, ao);
    } else {
        sc_html_tag(out, "<tr><th>figures</th><td colspan=\"");
        sc_html_int(out, "%lld", n);
        sc_html_tag(out, "\" class=\"na\">not compared: ");
        sc_html_text(out,
                     refused ? "a bundle is refused" : "more than one controlled variable differs");
        sc_html_tag(out, "</td></tr>\n");
    }
    sc_html_tag(out, "</table>\n<details class=\"equal\"><summary>");
    sc_html_int(out, "%lld", nequal);
    if (nequal == 1)
        sc_html_tag(out, " other controlled variable is");
    else
        sc_html_tag(out, " other controlled variables are");
    sc_html_tag(out, " the same in every bundle (show them)</summary><table class=\"cmp\">");
    sc__cmp_header(out, ab, n, "the same in every bundle");
    for (size_t v = 0; v < first->n_vars && v < SC_FACTS_MAX_VARS; v++)
        if (state[v] == SC__VAR_EQUAL)
            sc__var_row(out, ab, n, v, false);
    sc_html_tag(out, "</table></details>\n");
    if (valid) {
        char method[256];
        sc_analysis_method_text(method, sizeof(method), SC_ANALYSIS_NOISE_BOUND);
        sc_html_tag(out, "<p class=\"note\">");
        sc_html_text(out, method);
        sc_html_tag(out, "</p>\n");
        /* the plots: the card's headline metrics unless --metric names one */
        if (metric || !first->n_headline)
            sc_report_compare_plots(out, ab, n, m, nm, ao);
        else
            sc_report_compare_plots(out, ab, n, first->headline, first->n_headline, ao);
    }
}

static void sc__gates(sc_html *out, const sc_analysis_bundle *ab)
{
    const sc_verify_report *r = &ab->verify;

    sc_html_tag(out, "<h3>Verdict and gates</h3><p>");
    sc__verdict(out, ab);
    sc_html_tag(out, "</p>\n");
    if (r->problems.count) {
        sc_html_tag(out, "<p class=\"fail\">Verification problems:</p><ul>");
        for (size_t i = 0; i < r->problems.count; i++) {
            sc_html_tag(out, "<li>");
            sc_html_text(out, r->problems.lines[i]);
            sc_html_tag(out, "</li>");
        }
        sc_html_tag(out, "</ul>\n");
    }
    if (!r->gates_computed)
        return;
    sc_html_tag(out, "<table><tr><th>gate</th><th>recomputed</th><th>evidence</th></tr>\n");
    for (int i = 0; i < SC_GATE_COUNT; i++) {
        sc_gate_state s = r->gates.g[i].state;
        sc_html_tag(out, "<tr>");
        sc__td(out, NULL, sc_gate_name((sc_gate_id)i));
        sc__td(out,
               s == SC_GATE_OK     ? "ok"
               : s == SC_GATE_FAIL ? "fail"
                                   : "na",
               s == SC_GATE_OK     ? "ok"
               : s == SC_GATE_FAIL ? "FAIL"
                                   : "not asked");
        sc__td(out, "note", r->gates.g[i].note);
        sc_html_tag(out, "</tr>\n");
    }
    sc_html_tag(out, "</table>\n");
}

static void sc__pre(sc_html *out, const char *title, const char *text, bool folded)
{
    if (folded)
        sc_html_tag(out, "<details><summary>");
    else
        sc_html_tag(out, "<h3>");
    sc_html_text(out, title);
    if (folded)
        sc_html_tag(out, "</summary><pre>");
    else
        sc_html_tag(out, "</h3><pre>");
    sc_html_text(out, text ? text : "(missing)");
    if (folded)
        sc_html_tag(out, "</pre></details>\n");
    else
        sc_html_tag(out, "</pre>\n");
}

/* Per CPU of the grid: in the card's list, and the trace's threads there ("t0,t1"). */
typedef struct sc__cpu_cells {
    bool in_list[SC__MAX_CPUS];
    char text[SC__MAX_CPUS][48];
    const char *label[SC__MAX_CPUS];
} sc__cpu_cells;

static size_t sc__fill_cells(const sc_bundle_facts *f, sc__cpu_cells *c)
{
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    size_t ncpus = 0;
    unsigned cpu;

    if (set && f->cpu_list && sc_cpulist_parse(f->cpu_list, set, NULL, 0) == 0) {
        hwloc_bitmap_foreach_begin(cpu, set)
        {
            if (cpu < SC__MAX_CPUS) {
                c->in_list[cpu] = true;
                ncpus = cpu + 1 > ncpus ? cpu + 1 : ncpus;
            }
        }
        hwloc_bitmap_foreach_end();
    }
    hwloc_bitmap_free(set);
    for (size_t i = 0; i < f->n_bindings; i++) {
        long b = f->bindings[i].cpu;
        if (b < 0 || b >= SC__MAX_CPUS)
            continue;
        size_t used = strlen(c->text[b]);
        snprintf(c->text[b] + used, sizeof(c->text[b]) - used, "%st%ld", used ? "," : "",
                 f->bindings[i].thread);
        c->label[b] = c->text[b];
        ncpus = (size_t)b + 1 > ncpus ? (size_t)b + 1 : ncpus;
    }
    return ncpus;
}

static void sc__placement(sc_html *out, const sc_bundle_facts *f)
{
    sc__cpu_cells *cells = calloc(1, sizeof(*cells));
    size_t ncpus = cells ? sc__fill_cells(f, cells) : 0;

    sc_html_tag(out, "<h3>Thread placement</h3>\n<div class=\"plots\"><div>");
    if (ncpus)
        sc_svg_cpus(out, "Threads per CPU (TRACE_THREAD_BINDING); shaded: the card's cpu_list",
                    ncpus, cells->in_list, cells->label);
    sc_html_tag(out, "</div></div>\n");
    free(cells);
    sc_html_tag(out, "<table><tr><th>thread (trace)</th><th>cpu</th></tr>\n");
    for (size_t i = 0; i < f->n_bindings; i++)
        sc__int_row(out, f->bindings[i].thread, f->bindings[i].cpu);
    if (f->mpi) {
        /* The ranks' own snapshots (TRACE_RANK_THREAD), on whichever node each ran. */
        sc_html_tag(out,
                    "</table><table><tr><th>rank</th><th>host</th><th>tid at main_loop_begin</th>"
                    "<th>cpu</th></tr>\n");
        for (size_t i = 0; i < f->n_rank_threads; i++) {
            sc_html_tag(out, "<tr>");
            sc__td_int(out, f->rank_threads[i].rank);
            sc__td(out, NULL, f->rank_threads[i].host);
            sc__td_int(out, f->rank_threads[i].tid);
            sc__td_int(out, f->rank_threads[i].cpu);
            sc_html_tag(out, "</tr>\n");
        }
        sc_html_tag(out, "</table>\n");
        return;
    }
    sc_html_tag(out, "</table><table><tr><th>tid at main_loop_begin</th><th>cpu (psr)</th></tr>\n");
    for (size_t i = 0; i < f->n_threads; i++)
        sc__int_row(out, f->threads[i].tid, f->threads[i].cpu);
    sc_html_tag(out, "</table>\n");
}

static void sc__numa(sc_html *out, const sc_bundle_facts *f)
{
    sc_svg_bar bars[SC_FACTS_MAX_NODES];
    char names[SC_FACTS_MAX_NODES][16];

    sc_html_tag(out, "<h3>NUMA pages at main_loop_begin</h3>\n");
    if (!f->n_nodes) {
        sc_html_tag(out, "<p class=\"na\">No anonymous memory in numa_maps_at_ready.txt.</p>\n");
        return;
    }
    for (int i = 0; i < f->n_nodes; i++) {
        snprintf(names[i], sizeof(names[i]), "node %d", i);
        bars[i] = (sc_svg_bar){names[i], (double)f->node_bytes[i] / 1048576.0, 0, 0, false};
    }
    sc_html_tag(out, "<div class=\"plots\"><div>");
    sc_svg_bars(out, "Anonymous memory per NUMA node (numa_maps)", "MiB", bars, (size_t)f->n_nodes);
    sc_html_tag(out, "</div></div>\n");
}

/* One key=value line of a platform snapshot (pointers into its text). */
typedef struct sc__pair {
    const char *key, *val;
    size_t klen, vlen, order;
    bool shown;
} sc__pair;

static int sc__key_cmp(const sc__pair *x, const char *key, size_t klen)
{
    int c = memcmp(x->key, key, x->klen < klen ? x->klen : klen);

    return c ? c : x->klen < klen ? -1 : x->klen > klen;
}

static int sc__pair_cmp(const void *a, const void *b)
{
    const sc__pair *x = a, *y = b;
    int c = sc__key_cmp(x, y->key, y->klen);

    return c ? c : x->order < y->order ? -1 : x->order > y->order;
}

/* The key=value pairs of text sorted by key, the last line of a key kept (as sc_kv_get()
   reads it): n log n, where a lookup per line made the table quadratic. NULL when none. */
static sc__pair *sc__pairs(const char *text, size_t *n)
{
    size_t lines = 1, used = 0;
    sc__pair *v;

    *n = 0;
    for (const char *p = text; p && *p; p++)
        lines += *p == '\n';
    if (!text || !(v = calloc(lines, sizeof(*v))))
        return NULL;
    for (const char *line = text; *line;) {
        size_t len = strcspn(line, "\n"), k = strcspn(line, "=\n");
        if (k < len && *line != '#') {
            v[used] = (sc__pair){line, line + k + 1, k, len - k - 1, used, false};
            used++;
        }
        line += len + (line[len] == '\n');
    }
    qsort(v, used, sizeof(*v), sc__pair_cmp);
    for (size_t i = 0; i < used; i++) /* the last of each key */
        if (i + 1 == used || v[i].klen != v[i + 1].klen ||
            memcmp(v[i].key, v[i + 1].key, v[i].klen))
            v[(*n)++] = v[i];
    return v;
}

static sc__pair *sc__pair_find(sc__pair *v, size_t n, const char *key, size_t klen)
{
    size_t lo = 0, hi = n; /* the first pair whose key is not below key */

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (sc__key_cmp(&v[mid], key, klen) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && sc__key_cmp(&v[lo], key, klen) == 0 ? &v[lo] : NULL;
}

static void sc__td_n(sc_html *out, const char *cls, const sc__pair *p)
{
    char buf[512];

    snprintf(buf, sizeof(buf), "%.*s", (int)(p ? p->vlen : 8), p ? p->val : "(absent)");
    sc__td(out, cls, buf);
}

/* Every key of before.txt and after.txt, in their order; rows whose values differ are
   marked. */
static void sc__platform(sc_html *out, const sc_bundle_facts *f)
{
    size_t nb = 0, na = 0;
    sc__pair *before = sc__pairs(f->platform_before, &nb),
             *after = sc__pairs(f->platform_after, &na);
    char key[128];

    sc_html_tag(out,
                "<h3>Platform state before and after</h3><table><tr><th>key</th><th>before</th>"
                "<th>after</th></tr>\n");
    for (int pass = 0; pass < 2; pass++) {
        const char *text = pass ? f->platform_after : f->platform_before;
        sc__pair *own = pass ? after : before;
        size_t nown = pass ? na : nb;
        for (const char *line = text; line && *line;) {
            size_t n = strcspn(line, "\n"), k = strcspn(line, "=\n");
            sc__pair *mine =
                k < n && k < sizeof(key) && *line != '#' ? sc__pair_find(own, nown, line, k) : NULL;
            if (mine && !mine->shown) {
                mine->shown = true;
                sc__pair *hb = sc__pair_find(before, nb, line, k);
                sc__pair *ha = sc__pair_find(after, na, line, k);
                if (!pass || !hb) {
                    bool chg = !hb || !ha || hb->vlen != ha->vlen ||
                               memcmp(hb->val, ha->val, hb->vlen) != 0;
                    snprintf(key, sizeof(key), "%.*s", (int)k, line);
                    sc_html_tag(out, "<tr");
                    if (chg && strcmp(key, "captured_at"))
                        sc_html_attr(out, "class", "chg");
                    sc_html_tag(out, ">");
                    sc__td(out, NULL, key);
                    sc__td_n(out, "mono", hb);
                    sc__td_n(out, "mono", ha);
                    sc_html_tag(out, "</tr>\n");
                }
            }
            line += n + (line[n] == '\n');
        }
    }
    sc_html_tag(out, "</table>\n");
    free(before);
    free(after);
}

static void sc__variables(sc_html *out, const sc_bundle_facts *f)
{
    sc_html_tag(out, "<h3>Controlled variables</h3><table><tr><th>variable</th><th>group</th>"
                     "<th>value</th></tr>\n");
    for (size_t i = 0; i < f->n_vars; i++) {
        if (!strcmp(f->vars[i].value, "n/a"))
            continue;
        sc_html_tag(out, "<tr>");
        sc__td(out, NULL, f->vars[i].name);
        sc__td(out, NULL, f->vars[i].group);
        sc__td(out, "mono", f->vars[i].value);
        sc_html_tag(out, "</tr>\n");
    }
    sc_html_tag(out, "</table>\n");
}

void sc_report_html_bundle(sc_html *out, const sc_analysis_bundle *ab, size_t index)
{
    const sc_bundle_facts *f = &ab->facts;

    char letter[4] = {(char)('A' + index % 26), ':', ' ', '\0'};

    sc_html_tag(out, "<h2 id=\"b");
    sc_html_int(out, "%lld", index);
    sc_html_tag(out, "\">");
    sc_html_text(out, letter);
    sc_html_text(out, f->name);
    sc_html_tag(out, "</h2><p class=\"note\">");
    sc_html_text(out, f->path);
    sc_html_tag(out, "</p>\n");
    sc__gates(out, ab);
    if (f->n_hazards) /* what the workload inherited that changes its figures (section 16) */
        sc__pre(out, "Inherited environment and library choices that change performance", f->hazards, false);
    sc__pre(out, "The plan: card.yaml", f->card_text, false);
    sc__pre(out, "run.conf (parameters, command line, times, recorded verdicts)", f->run_conf,
            true);
    sc_report_runs(out, f);
    sc_report_rates(out, f);
    sc_report_mpi(out, f);
    sc__placement(out, f);
    sc__numa(out, f);
    sc__platform(out, f);
    sc__pre(out, "prefetch/state/state.env (MSR readback)",
            f->state_env ? f->state_env
                         : "(none: the card left "
                           "prefetch and governor "
                           "unchanged)",
            true);
    sc__variables(out, f);
}

void sc_report_html_open(sc_html *out, const char *title)
{
    sc_html_head(out, title, SC__CSS);
}

void sc_report_html_head(sc_html *out, const sc_analysis_bundle *ab, size_t n, const char *metric,
                         const sc_analysis_opts *ao)
{
    char title[64];

    snprintf(title, sizeof(title), "streamcard report: %zu bundle%s", n, n == 1 ? "" : "s");
    sc_report_html_open(out, title);
    sc__summary(out, ab, n);
    if (n > 1)
        sc__comparison(out, ab, n, metric, ao ? ao : &SC_ANALYSIS_OPTS_DEFAULT);
}

void sc_report_html_tail(sc_html *out)
{
    sc_html_tail(out);
}

void sc_report_html(sc_html *out, const sc_analysis_bundle *ab, size_t n, const char *metric)
{
    sc_report_html_head(out, ab, n, metric, NULL);
    for (size_t i = 0; i < n; i++)
        sc_report_html_bundle(out, &ab[i], i);
    sc_report_html_tail(out);
}
