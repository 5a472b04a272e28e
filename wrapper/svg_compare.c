/*
 * svg_compare.c: one metric of several bundles (see report_svg.h), as the comparison judges
 * it (doc/contracts/analysis.md, "Statistics of runs"): each bundle's median as a bar with its 95%
 * interval as a whisker; against the first bundle the ratio B/A with its interval on a ratio
 * axis, where 1 is a line and the noise bound a band, so that the verdict can be seen: an
 * interval inside the band is no detectable difference, one wholly beyond it faster or slower,
 * one across its edge too noisy to tell.
 */
#include "report_svg.h"
#include "sc_text.h"
#include "svg_util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define SC__W 1200.0
#define SC__ROW 34.0
#define SC__TOP 74.0
/* The columns: names, the bars, their figures, the ratio axis, the verdicts. */
#define SC__NAME_R 230.0
#define SC__BAR_L 240.0
#define SC__BAR_R 560.0
#define SC__FIG_L 572.0
#define SC__RAT_L 800.0
#define SC__RAT_R 1010.0
#define SC__VER_L 1024.0

/* The class that colours a verdict. */
static const char *sc__tone(sc_verdict v)
{
    switch (v) {
    case SC_VERDICT_FASTER:
        return "v better";
    case SC_VERDICT_SLOWER:
        return "v worse";
    case SC_VERDICT_NOISY:
        return "v noisy";
    default:
        return "v same";
    }
}

/* The ratio axis' range: 1, the noise band twice over and every interval, padded. */
static void sc__ratio_range(const sc_svg_cmp_row *rows, size_t n, double bound, double *lo,
                            double *hi)
{
    *lo = 1 - 2 * bound;
    *hi = 1 + 2 * bound;
    for (size_t i = 0; i < n; i++) {
        if (!rows[i].has_ratio)
            continue;
        *lo = fmin(*lo, rows[i].ratio_ci ? rows[i].ratio_lo : rows[i].ratio);
        *hi = fmax(*hi, rows[i].ratio_ci ? rows[i].ratio_hi : rows[i].ratio);
    }
    double pad = (*hi - *lo) * 0.06;
    *lo = fmax(*lo - pad, 0);
    *hi += pad;
}

/* The legend line: what a bar, a whisker, the band and a dot are. */
static void sc__legend(sc_html *out, double bound_pct)
{
    char buf[128];

    sc_svg_rect(out, "bar", 0, 28, 22, 12);
    sc_svg_label(out, "legend", 28, 38, "start", "median of the bundle's runs");
    const double w[] = {216, 34, 246, 216, 28, 40, 246, 28, 40};
    sc_svg_path(out, "whisker", "M# #H#M# #V#M# #V#", w, 9);
    sc_svg_label(out, "legend", 252, 38, "start", "its 95% interval");
    sc_svg_rect(out, "noise", 380, 27, 22, 14);
    snprintf(buf, sizeof(buf), "the noise bound, 1 +-%g%%: inside it, no detectable difference",
             bound_pct);
    sc_svg_label(out, "legend", 408, 38, "start", buf);
    sc_svg_dot(out, "v same", 846, 34, 5, NULL);
    sc_svg_label(out, "legend", 856, 38, "start",
                 "B/A against the first bundle, with its 95% interval");
}

void sc_svg_compare(sc_html *out, const char *title, const char *unit, bool higher_better,
                    const sc_svg_cmp_row *rows, size_t n, double bound_pct)
{
    double max = 0, rlo, rhi, bound = bound_pct / 100, t[8];
    double bottom = SC__TOP + SC__ROW * (double)n, h = bottom + 44;
    char buf[256], num[3][64];

    for (size_t i = 0; i < n; i++)
        max = fmax(max, fmax(rows[i].median, rows[i].ci ? rows[i].hi : 0));
    max = max > 0 ? max * 1.04 : 1;
    sc__ratio_range(rows, n, bound, &rlo, &rhi);
    sc_svg_begin(out, "plot wide compare", SC__W, h, title);
    sc__legend(out, bound_pct);
#define SC__BX(v) (SC__BAR_L + (SC__BAR_R - SC__BAR_L) * (v) / max)
#define SC__RX(v) (SC__RAT_L + (SC__RAT_R - SC__RAT_L) * ((v)-rlo) / (rhi - rlo))
    snprintf(buf, sizeof(buf), "median (%s), %s is better", unit,
             higher_better ? "higher" : "lower");
    sc_svg_label(out, "axis", SC__BAR_L, SC__TOP - 12, "start", buf);
    sc_svg_label(out, "axis", SC__RAT_L, SC__TOP - 12, "start", "ratio to the first, B/A");
    sc_svg_label(out, "axis", SC__VER_L, SC__TOP - 12, "start", "verdict");
    /* the axes: grid lines and ticks of both panels */
    size_t nt = sc_svg_lin_ticks(0, max, t, 5);
    for (size_t k = 0; k < nt; k++) {
        const double d[] = {SC__BX(t[k]), SC__TOP - 4, bottom};
        sc_svg_path(out, "grid", "M# #V#", d, 3);
        sc_svg_label(out, "tick", SC__BX(t[k]), bottom + 16, "middle",
                     sc_svg_short(buf, sizeof(buf), t[k]));
    }
    sc_svg_rect(out, "noise", SC__RX(1 - bound), SC__TOP - 4, SC__RX(1 + bound) - SC__RX(1 - bound),
                bottom - SC__TOP + 4);
    nt = sc_svg_lin_ticks(rlo, rhi, t, 5);
    for (size_t k = 0; k < nt; k++) {
        const double d[] = {SC__RX(t[k]), SC__TOP - 4, bottom};
        sc_svg_path(out, "grid", "M# #V#", d, 3);
        snprintf(buf, sizeof(buf), "%g", t[k]);
        sc_svg_label(out, "tick", SC__RX(t[k]), bottom + 16, "middle", buf);
    }
    const double one[] = {SC__RX(1), SC__TOP - 4, bottom};
    sc_svg_path(out, "one", "M# #V#", one, 3);
    for (size_t i = 0; i < n; i++) {
        const sc_svg_cmp_row *r = &rows[i];
        double y = SC__TOP + SC__ROW * (double)i, mid = y + SC__ROW / 2;
        /* a long name cut where it still fits the column, never inside a character */
        snprintf(buf, sizeof(buf), "%.*s", (int)sc_text_cut(r->label, strlen(r->label), 30),
                 r->label);
        sc_svg_label(out, NULL, SC__NAME_R, mid + 4, "end", buf);
        sc_svg_rect(out, "bar", SC__BAR_L, mid - 9, SC__BX(r->median) - SC__BAR_L, 18);
        if (r->ci) {
            const double d[] = {SC__BX(r->lo), mid,           SC__BX(r->hi), SC__BX(r->lo), mid - 7,
                                mid + 7,       SC__BX(r->hi), mid - 7,       mid + 7};
            sc_svg_path(out, "whisker", "M# #H#M# #V#M# #V#", d, 9);
            snprintf(buf, sizeof(buf), "%s [%s, %s], %zu runs",
                     sc_fmt_sig(num[0], sizeof(num[0]), r->median, 5),
                     sc_fmt_sig(num[1], sizeof(num[1]), r->lo, 5),
                     sc_fmt_sig(num[2], sizeof(num[2]), r->hi, 5), r->runs);
        } else {
            snprintf(buf, sizeof(buf), "%s, %zu run%s: no interval",
                     sc_fmt_sig(num[0], sizeof(num[0]), r->median, 5), r->runs,
                     r->runs == 1 ? "" : "s");
        }
        sc_svg_label(out, "fig", SC__FIG_L, mid + 4, "start", buf);
        if (!r->has_ratio) {
            sc_svg_label(out, "legend", SC__RX(1) + 6, mid + 4, "start", "the reference");
            continue;
        }
        if (r->ratio_ci) {
            const double d[] = {SC__RX(r->ratio_lo), mid,     SC__RX(r->ratio_hi),
                                SC__RX(r->ratio_lo), mid - 7, mid + 7,
                                SC__RX(r->ratio_hi), mid - 7, mid + 7};
            sc_svg_path(out, "whisker", "M# #H#M# #V#M# #V#", d, 9);
            snprintf(buf, sizeof(buf), "B/A %.3f in [%.3f, %.3f]", r->ratio, r->ratio_lo,
                     r->ratio_hi);
        } else {
            snprintf(buf, sizeof(buf), "B/A %.3f (no interval)", r->ratio);
        }
        sc_svg_dot(out, sc__tone(r->verdict), SC__RX(r->ratio), mid, 5.5, buf);
        sc_svg_label(out, sc__tone(r->verdict), SC__VER_L, mid, "start",
                     sc_stats_verdict_name(r->verdict));
        sc_svg_label(out, "small", SC__VER_L, mid + 13, "start", buf);
    }
#undef SC__BX
#undef SC__RX
    sc_svg_end(out);
}
