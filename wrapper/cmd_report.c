/*
 * cmd_report.c: `streamcard report BUNDLE... -o report.html`: one self-contained HTML page
 * (report_html.c, plots in report_svg.c) over verified bundles. A bundle that fails
 * verification is shown, marked REFUSED with the reason, and never compared.
 */
#include "cli.h"
#include "outfile.h"
#include "report_html.h"
#include "study.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void sc__report_usage(FILE *out)
{
    fprintf(out,
            "usage: streamcard report BUNDLE... -o FILE\n"
            "       streamcard report STUDY -o FILE\n"
            "\n"
            "Writes one self-contained HTML page (inline CSS and SVG, no script, no\n"
            "network) that takes the window's width: the recomputed verdict and gates of\n"
            "every bundle, its plan (card.yaml, run.conf), its runs with their median and\n"
            "95%% interval, the rates within its first run, MPI latency and bandwidth per\n"
            "message size (log-log) and a link matrix's heatmaps with health's verdict,\n"
            "thread placement, NUMA pages, the platform state before and after, and with\n"
            "several bundles the comparison: the variables that differ, each metric's\n"
            "ratio with its interval and verdict, drawn against the noise bound. A study record\n"
            "(streamcard run of an ablation card) gets its own page: a bar per row\n"
            "with its 95%% interval, the baseline line, alone and in sequence.\n"
            "\n"
            "options:\n"
            "  -o, --output FILE  the page to write (\"-\": stdout)\n"
            "  --metric NAME      compare this metric only (default: the first card's)\n"
            "  --max-interference PCT\n"
            "                     foreign work on a card CPU above which a side is\n"
            "                     contaminated, never faster or slower (default %g), as\n"
            "                     streamcard compare judges\n"
            "  -h, --help         this text\n"
            "\n"
            "Exit status: 0 written and every bundle usable, 1 written but a bundle is\n"
            "refused (failed verification or gates), 2 usage or a bundle that cannot be\n"
            "opened, 3 the page could not be written.\n",
            SC_COMPARE_MAX_INTERFERENCE);
}

typedef struct sc__report_opts {
    const char *output, *metric;
    sc_analysis_opts judge; /* how the comparison judges: compare's defaults */
} sc__report_opts;

static int sc__report_option(void *ctx, int c, const char *arg)
{
    sc__report_opts *o = ctx;

    if (c == 'm')
        o->metric = arg;
    else if (c == 'x')
        return sc_analysis_limit_ok("report", arg, &o->judge.max_interference_pct)
                   ? SC_ANALYSIS_GO_ON
                   : SC_EXIT_USAGE;
    else
        o->output = arg; /* 'o' */
    return SC_ANALYSIS_GO_ON;
}

static int sc__report_check(void *ctx, size_t n)
{
    const sc__report_opts *o = ctx;

    if (!sc_analysis_metric_ok("report", o->metric, true))
        return SC_EXIT_USAGE;
    if (o->output && n > 0)
        return SC_ANALYSIS_GO_ON;
    fprintf(stderr, "streamcard: report: needs bundles and -o FILE (valid: streamcard "
                    "report BUNDLE... -o report.html)\n");
    return SC_EXIT_USAGE;
}

int sc_cmd_report(int argc, char **argv)
{
    static const struct option opts[] = {{"output", required_argument, NULL, 'o'},
                                         {"metric", required_argument, NULL, 'm'},
                                         {"max-interference", required_argument, NULL, 'x'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    static const sc_analysis_cmd cmd = {.name = "report",
                                        .short_opts = ":ho:",
                                        .long_opts = opts,
                                        .usage = sc__report_usage,
                                        .usage_status = SC_EXIT_USAGE,
                                        .option = sc__report_option,
                                        .check = sc__report_check,
                                        .unreadable_hint = " (valid: a bundle directory)",
                                        .unreadable_status = SC_EXIT_USAGE,
                                        .refused_hint = " (shown as REFUSED)"};
    sc__report_opts o = {.judge = SC_ANALYSIS_OPTS_DEFAULT};
    int status, first;

    if (!sc_analysis_options(&cmd, argc, argv, &o, &first, &status))
        return status;
    /* Each bundle's own section is written (to a temporary file) as soon as the bundle is
       read, then only what the summary and the comparison read is kept: memory in
       proportion to the number of bundles, not to their files. */
    size_t n = (size_t)(argc - first);
    if (n == 1 && sc_study_is(argv[first])) /* a study record: its own page */
        return sc_study_report(argv[first], o.output);
    sc_analysis_bundle *ab = calloc(n ? n : 1, sizeof(*ab));
    sc_html *sections = sc_html_tmp(), *page = NULL;
    sc_outfile out = {0};
    char why[4096 + 256];
    if (!ab || !sections) {
        fprintf(stderr,
                "streamcard: report: a temporary file for the bundles' sections: %s (valid: a "
                "writable /tmp)\n",
                strerror(ab ? errno : ENOMEM));
        status = SC_EXIT_ERROR;
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        sc_analysis_load_named(&cmd, &ab[i], argv[first + (int)i], &status);
        /* --metric: the registry's, or one the first card declares */
        if (i == 0 && ab[0].loaded && !sc_analysis_metric_known("report", o.metric, &ab[0].facts)) {
            status = SC_EXIT_USAGE;
            goto out;
        }
        sc_report_html_bundle(sections, &ab[i], i);
        sc_facts_drop_detail(&ab[i].facts);
    }
    if (status != SC_EXIT_USAGE) {
        const char *output = o.output;
        if (sc_outfile_open(&out, output, why, sizeof(why)) < 0 || !(page = sc_html_open(out.f))) {
            if (out.f)
                snprintf(why, sizeof(why), "%s: %s", output, strerror(ENOMEM));
            fprintf(stderr, "streamcard: report: %s\n", why);
            status = SC_EXIT_ERROR;
            goto out;
        }
        sc_report_html_head(page, ab, n, o.metric, &o.judge);
        int copied = sc_html_append(page, sections);
        sc_report_html_tail(page);
        int rc = sc_html_close(page);
        page = NULL;
        if (rc < 0 || copied < 0) {
            fprintf(stderr, "streamcard: report: %s: %s\n", output,
                    copied < 0 ? "the bundles' sections could not be copied" : strerror(-rc));
            status = SC_EXIT_ERROR;
        } else if (sc_outfile_commit(&out, why, sizeof(why)) < 0) {
            fprintf(stderr, "streamcard: report: %s\n", why);
            status = SC_EXIT_ERROR;
        }
    }
out:
    sc_html_close(page);
    sc_outfile_abort(&out); /* nothing once committed */
    sc_html_close(sections);
    for (size_t i = 0; ab && i < n; i++)
        sc_analysis_free(&ab[i]);
    free(ab);
    return status;
}
