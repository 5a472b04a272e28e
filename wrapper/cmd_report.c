/*
 * cmd_report.c: `streamcard report BUNDLE... -o report.html`: one self-contained HTML page
 * (report_html.c, plots in report_svg.c) over verified bundles. A bundle that fails
 * verification is shown, marked REFUSED with the reason, and never compared.
 */
#include "cli.h"
#include "report_html.h"

#include <errno.h>
#include <getopt.h>
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
                 "  -h, --help         this text\n"
                 "\n"
                 "Exit status: 0 written and every bundle usable, 1 written but a bundle is\n"
                 "refused (failed verification or gates), 2 usage or a bundle that cannot be\n"
                 "opened, 3 the page could not be written.\n");
}

int sc_cmd_report(int argc, char **argv)
{
    static const struct option opts[] = {{"output", required_argument, NULL, 'o'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    const char *output = NULL;
    int c, status = SC_EXIT_OK;

    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":ho:", opts, NULL)) != -1) {
        if (c == 'h') {
            sc__report_usage(stdout);
            return SC_EXIT_OK;
        } else if (c == 'o') {
            output = optarg;
        } else {
            fprintf(stderr, "streamcard: report: %s: %s (see streamcard report --help)\n",
                    argv[optind - 1], c == ':' ? "needs a value" : "unknown option");
            return SC_EXIT_USAGE;
        }
    }
    if (!output || optind >= argc) {
        fprintf(stderr, "streamcard: report: needs bundles and -o FILE (valid: streamcard "
                        "report BUNDLE... -o report.html)\n");
        return SC_EXIT_USAGE;
    }
    size_t n = (size_t)(argc - optind);
    sc_analysis_bundle *ab = calloc(n, sizeof(*ab));
    if (!ab)
        return SC_EXIT_ERROR;
    for (size_t i = 0; i < n; i++) {
        if (sc_analysis_load(&ab[i], argv[optind + (int)i]) < 0) {
            fprintf(stderr, "streamcard: report: %s: %s (valid: a bundle directory)\n", ab[i].arg,
                    ab[i].why);
            status = SC_EXIT_USAGE;
        } else if (!ab[i].usable) {
            fprintf(stderr, "streamcard: report: %s: refused: %s (shown as REFUSED)\n", ab[i].arg,
                    ab[i].why);
            if (status == SC_EXIT_OK)
                status = SC_EXIT_FAILED;
        }
    }
    if (status != SC_EXIT_USAGE) {
        FILE *out = strcmp(output, "-") == 0 ? stdout : fopen(output, "w");
        if (!out) {
            fprintf(stderr, "streamcard: report: %s: %s (valid: a writable file)\n", output,
                    strerror(errno));
            status = SC_EXIT_ERROR;
        } else {
            sc_report_html(out, ab, n);
            if ((out == stdout ? fflush(out) : fclose(out)) != 0) {
                fprintf(stderr, "streamcard: report: %s: %s\n", output, strerror(errno));
                status = SC_EXIT_ERROR;
            }
        }
    }
    for (size_t i = 0; i < n; i++)
        sc_analysis_free(&ab[i]);
    free(ab);
    return status;
}
