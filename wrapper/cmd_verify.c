/*
 * cmd_verify.c: `streamcard verify [--keys DIR] [--state-dir DIR] BUNDLE`: prints what
 * sc_verify_bundle_opts() found (every hash and consistency problem, or the gates that
 * failed and why, or that the bundle holds) and what root vouches for (doc/design.md,
 * section 20).
 */
#include "cli.h"
#include "options.h"
#include "sc_text.h"
#include "sc_verify.h"
#include "pair_load.h"
#include "study.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static int sc__usage(FILE *out, int status)
{
    fprintf(out, "usage: streamcard verify [--keys DIR] [--state-dir DIR] BUNDLE|STUDY|PAIR\n\n"
                 "Re-checks SHA256SUMS and recomputes every gate from the raw files; the\n"
                 "platform_state gate only from statements signed by a node key of DIR\n"
                 "(default $STREAMCARD_KEYS, else /etc/streamcard/keys). Exits 0 when the\n"
                 "bundle is intact, consistent and its run passed, 1 otherwise.\n");
    return status;
}

int sc_cmd_verify(int argc, char **argv)
{
    sc_verify_opts opts = {.keys_dir = NULL};
    const char *bundle = NULL;
    sc_verify_report r;
    int status;

    static const struct option table[] = {{"keys", required_argument, NULL, 'k'},
                                          {"state-dir", required_argument, NULL, 's'},
                                          {"help", no_argument, NULL, 'h'},
                                          {NULL, 0, NULL, 0}};
    char line[512];
    int c;

    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", table, NULL)) != -1) {
        if (c == 'h')
            return sc__usage(stdout, SC_EXIT_OK);
        if (c == 'k' || c == 's') {
            *(c == 'k' ? &opts.keys_dir : &opts.state_dir) = optarg;
            continue;
        }
        sc_option_error(table, c, argc, argv, &optind, line, sizeof(line));
        fprintf(stderr, "streamcard: verify: %s (see streamcard verify --help)\n", line);
        return SC_EXIT_USAGE;
    }
    if (optind == argc - 1)
        bundle = argv[optind];
    if (!bundle)
        return sc__usage(stderr, SC_EXIT_USAGE);
    if (sc_study_is(bundle)) /* a study record: its sums, rows and every bundle it names */
        return sc_study_verify(bundle, &opts);
    if (sc_pair_is(bundle)) /* a paired run: both sides, the order, the pairs */
        return sc_pair_verify(bundle, &opts);
    /* The path may be a name a user chose (ESC, newlines): shown escaped, never raw. */
    char shown[1024];
    sc_text_escape(shown, sizeof(shown), bundle, strlen(bundle));
    int rc = sc_verify_bundle_opts(bundle, &opts, &r);
    if (rc < 0) {
        fprintf(stderr, "streamcard: verify: %s: cannot open the bundle: %s\n", shown,
                strerror(-rc));
        sc_verify_report_free(&r);
        return rc == -ENOMEM ? SC_EXIT_ERROR : SC_EXIT_USAGE;
    }
    if (!sc_verify_intact(&r)) {
        sc_diag_print(&r.problems, "streamcard: verify: ", stderr);
        fprintf(stderr, "streamcard: verify: %s: FAILED (%zu problems)\n", shown,
                r.problems.count + r.problems.more);
        status = SC_EXIT_FAILED;
    } else if (!sc_verify_usable(&r)) {
        for (int i = 0; i < SC_GATE_COUNT; i++)
            if (r.gates.g[i].state == SC_GATE_FAIL)
                fprintf(stderr, "streamcard: verify: %s: %s\n", sc_gate_name((sc_gate_id)i),
                        r.gates.g[i].note);
        fprintf(stderr,
                "streamcard: verify: %s: the bundle is intact and consistent, but the "
                "run FAILED its gates:",
                shown);
        for (int i = 0; i < SC_GATE_COUNT; i++)
            if (r.gates.g[i].state == SC_GATE_FAIL)
                fprintf(stderr, " %s", sc_gate_name((sc_gate_id)i));
        fprintf(stderr, "\n");
        status = SC_EXIT_FAILED;
    } else {
        printf("streamcard: verify: %s: intact; every gate recomputed from the raw files holds; "
               "verdict ok\n",
               shown);
        status = SC_EXIT_OK;
    }
    sc_diag_print(&r.attested, "streamcard: verify: ", status == SC_EXIT_OK ? stdout : stderr);
    sc_verify_report_free(&r);
    return status;
}
