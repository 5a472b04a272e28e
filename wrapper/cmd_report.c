/*
 * cmd_report.c: `streamcard report BUNDLE... -o report.html`: one self-contained HTML page
 * (report_html.c, plots in report_svg.c) over verified bundles. A bundle that fails
 * verification is shown, marked REFUSED with the reason, and never compared.
 */
#include "cli.h"
#include "report_html.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void sc__report_usage(FILE *out)
{
    fprintf(out, "usage: streamcard report BUNDLE... -o FILE\n"
                 "\n"
                 "Writes one self-contained HTML page (inline CSS and SVG, no script, no\n"
                 "network): the recomputed verdict and gates of every bundle, its plan\n"
                 "(card.yaml, run.conf), rates, MPI bandwidth per message size, thread\n"
                 "placement, NUMA pages, the platform state before and after, and with several\n"
                 "bundles the comparison of their controlled variables.\n"
                 "\n"
                 "options:\n"
                 "  -o, --output FILE  the page to write (\"-\": stdout)\n"
                 "  --metric NAME      compare this metric only (default: the first card's)\n"
                 "  -h, --help         this text\n"
                 "\n"
                 "Exit status: 0 written and every bundle usable, 1 written but a bundle is\n"
                 "refused (failed verification or gates), 2 usage or a bundle that cannot be\n"
                 "opened, 3 the page could not be written.\n");
}

typedef struct sc__report_opts {
    const char *output, *metric;
} sc__report_opts;

static int sc__report_option(void *ctx, int c, const char *arg)
{
    sc__report_opts *o = ctx;

    if (c == 'm')
        o->metric = arg;
    else
        o->output = arg; /* 'o' */
    return SC_ANALYSIS_GO_ON;
}

static int sc__report_check(void *ctx, size_t n)
{
    const sc__report_opts *o = ctx;

    if (!sc_analysis_metric_ok("report", o->metric))
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
    sc__report_opts o = {0};
    sc_analysis_set set;
    int status;

    if (!sc_analysis_begin(&cmd, argc, argv, &o, &set, &status))
        return status;
    if (status != SC_EXIT_USAGE) {
        const char *output = o.output;
        FILE *out = strcmp(output, "-") == 0 ? stdout : fopen(output, "w");
        if (!out) {
            fprintf(stderr, "streamcard: report: %s: %s (valid: a writable file)\n", output,
                    strerror(errno));
            status = SC_EXIT_ERROR;
        } else {
            sc_report_html(out, set.b, set.n, o.metric);
            if ((out == stdout ? fflush(out) : fclose(out)) != 0) {
                fprintf(stderr, "streamcard: report: %s: %s\n", output, strerror(errno));
                status = SC_EXIT_ERROR;
            }
        }
    }
    sc_analysis_set_free(&set);
    return status;
}
