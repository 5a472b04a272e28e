/*
 * report_html.c: the page of `streamcard report` (see report_html.h): a summary, the
 * comparison table when there are several bundles, then per bundle its verdict and gates,
 * the plan, the rates, MPI bandwidth per message size, thread placement, NUMA pages and the
 * platform state before and after. Every figure comes from the bundle's own files.
 */
#include "report_html.h"
#include "html.h"
#include "report_svg.h"
#include "sc_cpulist.h"
#include "sc_kv.h"
#include "sc_linkmatrix.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SC__MAX_CPUS 1024

#define SC__CSS                                                                                    \
    "body{font:14px/1.4 sans-serif;margin:24px;color:#1a202c;max-width:1100px}"                    \
    "h1{font-size:22px}h2{font-size:18px;border-bottom:2px solid #cbd5e0;margin-top:36px}"         \
    "h3{font-size:15px;margin-top:22px}table{border-collapse:collapse;margin:6px 0}"               \
    "td,th{border:1px solid #cbd5e0;padding:3px 8px;text-align:left;vertical-align:top}"           \
    "th{background:#edf2f7}tr.diff td{background:#fefcbf}tr.chg td{background:#fed7d7}"            \
    "pre{background:#f7fafc;border:1px solid #e2e8f0;padding:8px;overflow:auto;font-size:12px}"    \
    ".ok{color:#276749;font-weight:bold}.fail{color:#c53030;font-weight:bold}.na{color:#718096}"   \
    ".note{color:#4a5568;font-size:13px}td.mono{font-family:monospace;word-break:break-all}"       \
    "svg.plot{display:block;margin:8px 0}svg text{font:12px sans-serif;fill:#1a202c}"              \
    "svg text.ttl{font-weight:bold}.bar{fill:#3182ce}.whisker{stroke:#1a202c;stroke-width:1.5;"    \
    "fill:none}.axis{stroke:#1a202c;fill:none}.grid{stroke:#e2e8f0}.line{stroke:#3182ce;"          \
    "stroke-width:2;fill:none}.dot{fill:#2c5282}.cpu{fill:#edf2f7;stroke:#a0aec0}"                 \
    ".cpu.listed{fill:#bee3f8}.cpu.busy{fill:#63b3ed;stroke:#2c5282}"                              \
    ".bar.worse{fill:#e53e3e}.ref{stroke:#c53030;stroke-width:2;stroke-dasharray:5 3;fill:none}"   \
    ".side{display:flex;gap:16px;flex-wrap:wrap}"

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

/* <td> with a number shown with decimals digits. */
static void sc__tdf(sc_html *out, double v, int decimals)
{
    sc_html_tag(out, "<td>");
    sc_html_fixed(out, decimals, v);
    sc_html_tag(out, "</td>");
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

/* "copy 123.4 MB/s": three decimals below 100 (latencies in us). */
static void sc__figure(char *buf, size_t len, const sc_metric *m, double v, bool unit)
{
    snprintf(buf, len, "%.*f%s%s", v < 100 ? 3 : 1, v, unit ? " " : "", unit ? m->unit : "");
}

/* The summary's figures of a usable bundle: its headline metrics; "-" for a refused one. */
static void sc__headline(char *buf, size_t len, const sc_analysis_bundle *ab)
{
    const sc_bundle_facts *f = &ab->facts;
    size_t used = 0;
    char fig[64];
    double v;

    snprintf(buf, len, "-");
    for (size_t i = 0; ab->usable && i < f->n_headline && used < len; i++) {
        if (sc_facts_metric(f, &f->headline[i], &v) < 0)
            continue;
        sc__figure(fig, sizeof(fig), &f->headline[i], v, true);
        used += (size_t)snprintf(buf + used, len - used, "%s%s %s", used ? ", " : "",
                                 f->headline[i].name, fig);
    }
}

static void sc__summary(sc_html *out, const sc_analysis_bundle *ab, size_t n)
{
    sc_html_tag(out, "<h2>Summary</h2><table><tr><th>bundle</th><th>verdict (recomputed)</th>"
                     "<th>figures</th><th>host</th><th>ended</th></tr>\n");
    for (size_t i = 0; i < n; i++) {
        const sc_bundle_facts *f = &ab[i].facts;
        char fig[512];
        sc__headline(fig, sizeof(fig), &ab[i]);
        sc_html_tag(out, "<tr>");
        sc__td(out, "mono", ab[i].loaded ? f->name : ab[i].arg);
        sc_html_tag(out, "<td>");
        sc__verdict(out, &ab[i]);
        sc_html_tag(out, "</td>");
        sc__td(out, NULL, fig);
        sc__td(out, NULL, ab[i].loaded ? f->host : "");
        sc__td(out, NULL, ab[i].loaded ? f->ended_at : "");
        sc_html_tag(out, "</tr>\n");
    }
    sc_html_tag(out, "</table>\n");
}

/* Each metric of a valid comparison as bars, one plot per metric. */
static void sc__figures(sc_html *out, const sc_analysis_bundle *ab, size_t n, const sc_metric *m,
                        size_t nm)
{
    sc_svg_bar *bars = calloc(n, sizeof(*bars));
    char(*names)[80] = calloc(n, sizeof(*names));

    for (size_t k = 0; bars && names && k < nm; k++) {
        size_t shown = 0;
        for (size_t i = 0; i < n; i++) {
            double v;
            if (sc_facts_metric(&ab[i].facts, &m[k], &v) < 0)
                continue;
            snprintf(names[shown], sizeof(names[shown]), "%c: %.20s", (int)('A' + i % 26),
                     ab[i].facts.name);
            bars[shown] = (sc_svg_bar){names[shown], v, 0, 0, false};
            shown++;
        }
        char title[96];
        snprintf(title, sizeof(title), "%.31s (%s is better)", m[k].name,
                 m[k].better == SC_METRIC_HIGHER ? "higher" : "lower");
        if (shown)
            sc_svg_bars(out, title, m[k].unit, bars, shown);
    }
    free(bars);
    free(names);
}

/* " (6 runs, 95% [49800.1, 50555.0])" under a figure of several runs; "" for one run. */
static void sc__runs_note(sc_html *out, const sc_stats *s)
{
    int prec = s->median < 100 ? 3 : 1;

    if (s->n < 2)
        return;
    sc_html_tag(out, "<br><small>median of ");
    sc_html_int(out, "%lld", s->n);
    if (!s->ci) {
        sc_html_tag(out, " runs, interval unavailable</small>");
        return;
    }
    sc_html_tag(out, " runs, 95% [");
    sc_html_fixed(out, prec, s->ci_low);
    sc_html_tag(out, ", ");
    sc_html_fixed(out, prec, s->ci_high);
    sc_html_tag(out, "]</small>");
}

/*
 * One row per metric of a valid comparison: each bundle's value (the median of its runs,
 * with their interval), and against A its change, the ratio with its 95% interval and the
 * verdict (doc/design.md, "Statistics of runs").
 */
static void sc__metric_rows(sc_html *out, const sc_analysis_bundle *ab, size_t n,
                            const sc_metric *m, size_t nm)
{
    char fig[64], text[256];
    double v;

    for (size_t k = 0; k < nm; k++) {
        sc_html_tag(out, "<tr><th>");
        sc_html_text(out, m[k].name);
        sc_html_tag(out, " ");
        sc_html_text(out, m[k].unit);
        sc_html_tag(out, " (change vs A)</th>");
        for (size_t i = 0; i < n; i++) {
            sc_analysis_cmp c;
            if (sc_facts_metric(&ab[i].facts, &m[k], &v) < 0) {
                sc_html_tag(out, "<td class=\"na\">not recorded</td>");
                continue;
            }
            sc__figure(fig, sizeof(fig), &m[k], v, false);
            bool cmp = sc_analysis_compare(&ab[0].facts, &ab[i].facts, &m[k],
                                           &SC_ANALYSIS_OPTS_DEFAULT, &c) == 0;
            sc_html_tag(out, "<td>");
            sc_html_text(out, fig);
            if (i && cmp) {
                sc_analysis_cmp_text(&c, text, sizeof(text));
                sc_html_tag(out, " (");
                sc_html_num(out, "%+.1f", sc_metric_change(c.val_a, c.val_b));
                sc_html_tag(out, "%)<br><small>");
                sc_html_text(out, text);
                sc_html_tag(out, "</small>");
            }
            if (cmp)
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

/*
 * The controlled variables of every bundle side by side; rows that differ are marked. The
 * figures and their changes only when the comparison is valid (every bundle usable, at
 * most one variable differs); otherwise only why.
 */
static void sc__comparison(sc_html *out, const sc_analysis_bundle *ab, size_t n, const char *metric)
{
    const sc_bundle_facts *first = &ab[0].facts;
    char names[1024] = "";
    size_t ndiff = 0, used = 0;
    bool refused = false;
    sc_metric m[SC_METRIC_MAX];
    size_t nm = sc_analysis_metrics(first, metric, m, SC_METRIC_MAX);

    sc_html_tag(out, "<h2>Comparison</h2><table><tr><th>controlled variable</th>");
    for (size_t i = 0; i < n; i++) {
        char letter[4] = {(char)('A' + i % 26), ':', ' ', '\0'};
        sc_html_tag(out, "<th>");
        sc_html_text(out, letter);
        sc_html_text(out, ab[i].facts.name);
        sc_html_tag(out, "</th>");
        refused |= !ab[i].usable;
    }
    sc_html_tag(out, "</tr>\n");
    for (size_t v = 0; v < first->n_vars; v++) {
        bool differs = false, counts = false, all_na = true;
        for (size_t i = 0; i < n; i++) {
            bool d = strcmp(ab[i].facts.vars[v].value, first->vars[v].value) != 0;
            differs |= d;
            /* At the default another differing variable gives: not a second difference. */
            counts |= d && !sc_facts_follows(first, &ab[i].facts, v);
            all_na &= strcmp(ab[i].facts.vars[v].value, "n/a") == 0;
        }
        if (all_na)
            continue;
        if (counts) {
            ndiff++;
            if (used < sizeof(names))
                used += (size_t)snprintf(names + used, sizeof(names) - used, "%s%s",
                                         used ? ", " : "", first->vars[v].name);
        }
        sc_html_tag(out, "<tr");
        if (differs)
            sc_html_attr(out, "class", "diff");
        sc_html_tag(out, ">");
        sc__td(out, NULL, first->vars[v].name);
        for (size_t i = 0; i < n; i++)
            sc__td(out, "mono", ab[i].facts.vars[v].value);
        sc_html_tag(out, "</tr>\n");
    }
    sc_html_tag(out, "<tr><th>verdict</th>");
    for (size_t i = 0; i < n; i++) {
        sc_html_tag(out, "<td>");
        sc__verdict(out, &ab[i]);
        sc_html_tag(out, "</td>");
    }
    sc_html_tag(out, "</tr>\n");
    sc__interference_row(out, ab, n);
    bool valid = !refused && ndiff <= 1;
    if (valid)
        sc__metric_rows(out, ab, n, m, nm);
    else {
        sc_html_tag(out, "<tr><th>figures</th><td colspan=\"");
        sc_html_int(out, "%lld", n);
        sc_html_tag(out, "\" class=\"na\">not compared: ");
        sc_html_text(out,
                     refused ? "a bundle is refused" : "more than one controlled variable differs");
        sc_html_tag(out, "</td></tr>\n");
    }
    sc_html_tag(out, "</table>\n");
    if (valid) {
        char method[256];
        sc_analysis_method_text(method, sizeof(method), SC_ANALYSIS_NOISE_BOUND);
        sc_html_tag(out, "<p><small>");
        sc_html_text(out, method);
        sc_html_tag(out, "</small></p>\n");
        sc__figures(out, ab, n, m, nm);
    }
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

/*
 * The rate of every repetition of each function: bytes / its time, that is best rate * min
 * time / its time. The warm-up (repetition 0) is left out, as STREAM's statistics do.
 */
static void sc__rep_rates(sc_html *out, const sc_bundle_facts *f)
{
    bool any = false;

    for (size_t i = 0; i < f->n_rates; i++) {
        const sc_fact_rate *r = &f->rates[i];
        if (r->n_rep < 2 || r->min_s <= 0)
            continue;
        double *x = calloc(r->n_rep, sizeof(double)), *y = calloc(r->n_rep, sizeof(double));
        size_t n = 0;
        for (size_t rep = 1; x && y && rep < r->n_rep; rep++) {
            if (r->rep_s[rep] <= 0)
                continue;
            x[n] = (double)rep;
            y[n++] = r->MBps * r->min_s / r->rep_s[rep];
        }
        char title[96];
        snprintf(title, sizeof(title), "%s: rate of every repetition", r->name);
        if (n)
            sc_svg_xy(out, title, "repetition (the warm-up, 0, left out)", f->rate_unit, x, y, n,
                      false);
        any = any || n;
        free(x);
        free(y);
    }
    if (!any)
        sc_html_tag(
            out,
            "<p class=\"note\">This bundle has no per-repetition times: the whisker above spans "
            "the rates of the slowest and the average repetition (from max and avg time).</p>\n");
}

static void sc__rates(sc_html *out, const sc_bundle_facts *f)
{
    sc_svg_bar bars[8];

    if (!f->n_rates)
        return;
    sc_html_tag(out, "<h3>Rates</h3><table><tr><th>function</th><th>best ");
    sc_html_text(out, f->rate_unit);
    sc_html_tag(out, "</th><th>avg s</th><th>min s</th><th>max s</th></tr>\n");
    for (size_t i = 0; i < f->n_rates; i++) {
        const sc_fact_rate *r = &f->rates[i];
        sc_html_tag(out, "<tr>");
        sc__td(out, NULL, r->name);
        sc__tdf(out, r->MBps, 1);
        sc__tdf(out, r->avg_s, 6);
        sc__tdf(out, r->min_s, 6);
        sc__tdf(out, r->max_s, 6);
        sc_html_tag(out, "</tr>\n");
        /* Rate of an iteration = bytes / its time = best rate * min time / its time. */
        bars[i] = (sc_svg_bar){r->name, r->MBps, r->max_s > 0 ? r->MBps * r->min_s / r->max_s : 0,
                               r->avg_s > 0 ? r->MBps * r->min_s / r->avg_s : 0, false};
    }
    sc_html_tag(out, "</table>\n");
    sc_svg_bars(out, "Best rate per function; whisker: slowest to average iteration", f->rate_unit,
                bars, f->n_rates);
    sc__rep_rates(out, f);
}

/* pairs: all: the latency at the smallest size and the bandwidth at the largest, per node
   pair, as heatmaps (doc/design.md, "Link matrix"). */
static void sc__link_matrix(sc_html *out, const sc_bundle_facts *f)
{
    sc_linkmatrix_data d;
    char why[256], size[24], title[128];
    json_object *kernel = NULL;

    if (sc_linkmatrix_load(f->results, &d, why, sizeof(why)) != 0)
        return;
    sc_html_tag(out, "<h3>Link matrix</h3>\n<p>");
    sc_html_int(out, "%lld", d.n);
    sc_html_tag(out, " nodes, every pair in ");
    sc_html_int(out, "%lld", d.rounds);
    sc_html_tag(out, " rounds of disjoint pairs, ");
    sc_html_num(out, "%.2f", d.total_seconds);
    sc_html_tag(out, " s in all; the rows above are the median time over the pairs.</p>\n");
    if (!json_object_object_get_ex(f->results, "kernel", &kernel) ||
        strcmp(json_object_get_string(kernel), "uniband") != 0) {
        sc_metric_size_name(d.bytes[0], size, sizeof(size));
        snprintf(title, sizeof(title), "Latency per node pair: latency_%s (lower is better)", size);
        sc_svg_heatmap(out, title, "us", (const char *const *)d.nodes, d.n, d.t_usec, false);
    }
    sc_metric_size_name(d.bytes[d.n_sizes - 1], size, sizeof(size));
    snprintf(title, sizeof(title), "Bandwidth per node pair: bw_%s (higher is better)", size);
    sc_svg_heatmap(out, title, "MB/s", (const char *const *)d.nodes, d.n,
                   d.MBps + (d.n_sizes - 1) * d.n * d.n, true);
    sc_linkmatrix_data_free(&d);
}

static void sc__mpi(sc_html *out, const sc_bundle_facts *f)
{
    double x[256], y[256];
    size_t n = f->n_sizes < 256 ? f->n_sizes : 256;

    if (!n)
        return;
    sc_html_tag(out, "<h3>Bandwidth per message size</h3>\n");
    for (size_t i = 0; i < n; i++) {
        x[i] = (double)f->sizes[i].bytes;
        y[i] = f->sizes[i].MBps;
    }
    sc_svg_xy(out, "MPI bandwidth vs message size", "message size (bytes, log scale)", "MB/s", x, y,
              n, true);
    sc_html_tag(out, "<table><tr><th>bytes</th><th>t usec</th><th>MB/s</th></tr>\n");
    for (size_t i = 0; i < n; i++) {
        sc_html_tag(out, "<tr>");
        sc__td_int(out, (long long)f->sizes[i].bytes);
        sc__tdf(out, f->sizes[i].t_usec, 2);
        sc__tdf(out, f->sizes[i].MBps, 1);
        sc_html_tag(out, "</tr>\n");
    }
    sc_html_tag(out, "</table>\n");
    sc__link_matrix(out, f);
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

    sc_html_tag(out, "<h3>Thread placement</h3>\n");
    if (ncpus)
        sc_svg_cpus(out, "Threads per CPU (TRACE_THREAD_BINDING); shaded: the card's cpu_list",
                    ncpus, cells->in_list, cells->label);
    free(cells);
    sc_html_tag(out, "<table><tr><th>thread (trace)</th><th>cpu</th></tr>\n");
    for (size_t i = 0; i < f->n_bindings; i++)
        sc__int_row(out, f->bindings[i].thread, f->bindings[i].cpu);
    if (f->workload == SC_WORKLOAD_MPI_PINGPONG) {
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
    sc_svg_bars(out, "Anonymous memory per NUMA node (numa_maps)", "MiB", bars, (size_t)f->n_nodes);
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
        sc__pre(out, "Inherited environment that changes performance", f->hazards, false);
    sc__pre(out, "The plan: card.yaml", f->card_text, false);
    sc__pre(out, "run.conf (parameters, command line, times, recorded verdicts)", f->run_conf,
            true);
    sc__rates(out, f);
    sc__mpi(out, f);
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

void sc_report_html_head(sc_html *out, const sc_analysis_bundle *ab, size_t n, const char *metric)
{
    char title[64];

    snprintf(title, sizeof(title), "streamcard report: %zu bundle%s", n, n == 1 ? "" : "s");
    sc_report_html_open(out, title);
    sc__summary(out, ab, n);
    if (n > 1)
        sc__comparison(out, ab, n, metric);
}

void sc_report_html_tail(sc_html *out)
{
    sc_html_tail(out);
}

void sc_report_html(sc_html *out, const sc_analysis_bundle *ab, size_t n, const char *metric)
{
    sc_report_html_head(out, ab, n, metric);
    for (size_t i = 0; i < n; i++)
        sc_report_html_bundle(out, &ab[i], i);
    sc_report_html_tail(out);
}
