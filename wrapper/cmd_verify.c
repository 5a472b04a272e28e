/*
 * cmd_verify.c: `streamcard verify [--keys DIR] [--state-dir DIR] [--junit FILE] BUNDLE...`:
 * prints what sc_verify_bundle_opts() found for each bundle (every hash and consistency
 * problem, or the gates that failed and why, or that the bundle holds) and what root vouches
 * for (doc/contracts/attestation.md); --junit: one test case per bundle or study, as CI
 * systems show them.
 */
#include "cli.h"
#include "junit.h"
#include "sc_bundle_view.h"
#include "options.h"
#include "pair_load.h"
#include "sc_text.h"
#include "sc_verify.h"
#include "study.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int sc__usage(FILE *out, int status)
{
    fprintf(out, "usage: streamcard verify [--keys DIR] [--state-dir DIR] [--junit FILE]\n"
                 "                         BUNDLE|STUDY|PAIR...\n\n"
                 "Re-checks SHA256SUMS and recomputes every gate from the raw files; the\n"
                 "platform_state gate only from statements signed by a node key of DIR\n"
                 "(default $STREAMCARD_KEYS, else /etc/streamcard/keys). Exits 0 when every\n"
                 "bundle is intact, consistent and its run passed, 1 otherwise.\n\n"
                 "  --junit FILE  a JUnit XML report for CI, one test case per bundle (a\n"
                 "                failure says why)\n");
    return status;
}

/* What one bundle's check said, for the JUnit report: the outcome, one line, the rest. */
typedef struct sc__said {
    sc_junit_kind kind;
    char message[1024];
    char *text; /* malloc'd (open_memstream), may be NULL */
    size_t len;
} sc__said;

/* The problems of an intact bundle's failed gates ("gate: note"), to f; their names to buf. */
static void sc__failed_gates(const sc_verify_report *r, FILE *f, char *buf, size_t len)
{
    size_t used = 0;

    *buf = '\0';
    for (int i = 0; i < SC_GATE_COUNT; i++) {
        if (r->gates.g[i].state != SC_GATE_FAIL)
            continue;
        fprintf(stderr, "streamcard: verify: %s: %s\n", sc_gate_name((sc_gate_id)i),
                r->gates.g[i].note);
        if (f)
            fprintf(f, "%s: %s\n", sc_gate_name((sc_gate_id)i), r->gates.g[i].note);
        if (used < len)
            used += (size_t)snprintf(buf + used, len - used, " %s", sc_gate_name((sc_gate_id)i));
    }
}

/* One bundle: said as verify always said it; returns its exit status. */
static int sc__verify_bundle(const char *bundle, const sc_verify_opts *opts, sc__said *said)
{
    /* The path may be a name a user chose (ESC, newlines): shown escaped, never raw. */
    char shown[1024], gates[512];
    sc_bundle_view v; /* verify's verdict; the facts are not needed */
    sc_bundle_view_opts vo = {.verify = opts, .no_facts = true};
    const sc_verify_report *r = &v.verify;
    FILE *f = open_memstream(&said->text, &said->len);
    int status, rc;

    sc_text_escape(shown, sizeof(shown), bundle, strlen(bundle));
    rc = sc_bundle_view_open(bundle, &vo, &v);
    if (rc < 0) {
        fprintf(stderr, "streamcard: verify: %s: cannot open the bundle: %s\n", shown,
                strerror(-rc));
        said->kind = SC_JUNIT_ERROR;
        snprintf(said->message, sizeof(said->message), "cannot open the bundle: %s", strerror(-rc));
        status = rc == -ENOMEM ? SC_EXIT_ERROR : SC_EXIT_USAGE;
    } else if (v.verdict == SC_VIEW_UNVERIFIED) {
        size_t n = r->problems.count + r->problems.more;
        sc_diag_print(&r->problems, "streamcard: verify: ", stderr);
        fprintf(stderr, "streamcard: verify: %s: FAILED (%zu problems)\n", shown, n);
        said->kind = SC_JUNIT_FAILURE;
        snprintf(said->message, sizeof(said->message), "FAILED (%zu problem%s): %s", n,
                 n == 1 ? "" : "s", r->problems.count ? r->problems.lines[0] : "");
        if (f)
            sc_diag_print(&r->problems, "", f);
        status = SC_EXIT_FAILED;
    } else if (v.verdict == SC_VIEW_FAILED) {
        sc__failed_gates(r, f, gates, sizeof(gates));
        fprintf(stderr,
                "streamcard: verify: %s: the bundle is intact and consistent, but the "
                "run FAILED its gates:%s\n",
                shown, gates);
        said->kind = SC_JUNIT_FAILURE;
        snprintf(said->message, sizeof(said->message),
                 "intact and consistent, but the run FAILED its gates:%s", gates);
        status = SC_EXIT_FAILED;
    } else {
        printf("streamcard: verify: %s: intact; every gate recomputed from the raw files holds; "
               "verdict ok\n",
               shown);
        said->kind = SC_JUNIT_PASS;
        if (f)
            fprintf(f, "intact; every gate recomputed from the raw files holds; verdict ok\n");
        status = SC_EXIT_OK;
    }
    if (rc == 0 && r->capture_note)
        fprintf(status == SC_EXIT_OK ? stdout : stderr, "streamcard: verify: capture: %s\n",
                r->capture_note);
    if (rc == 0) {
        sc_diag_print(&r->attested, "streamcard: verify: ", status == SC_EXIT_OK ? stdout : stderr);
        if (f)
            sc_diag_print(&r->attested, "", f);
    }
    if (f)
        fclose(f);
    sc_bundle_view_close(&v);
    return status;
}

/* The worse of two exit statuses: could not run (3), usage or unreadable (2), failed (1). */
static int sc__worse(int a, int b)
{
    return a > b ? a : b;
}

int sc_cmd_verify(int argc, char **argv)
{
    sc_verify_opts opts = {.keys_dir = NULL};
    const char *junit = NULL;
    sc_junit *j = NULL;
    int status = SC_EXIT_OK;

    static const struct option table[] = {{"keys", required_argument, NULL, 'k'},
                                          {"state-dir", required_argument, NULL, 's'},
                                          {"junit", required_argument, NULL, 'j'},
                                          {"help", no_argument, NULL, 'h'},
                                          {NULL, 0, NULL, 0}};
    char line[512];
    int c;

    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", table, NULL)) != -1) {
        if (c == 'h')
            return sc__usage(stdout, SC_EXIT_OK);
        if (c == 'k' || c == 's' || c == 'j') {
            *(c == 'k' ? &opts.keys_dir : c == 's' ? &opts.state_dir : &junit) = optarg;
            continue;
        }
        sc_option_error(table, c, argc, argv, &optind, line, sizeof(line));
        fprintf(stderr, "streamcard: verify: %s (see streamcard verify --help)\n", line);
        return SC_EXIT_USAGE;
    }
    if (optind >= argc)
        return sc__usage(stderr, SC_EXIT_USAGE);
    if (junit && !(j = sc_junit_new(junit, "streamcard verify", "verify")))
        return SC_EXIT_ERROR;
    for (int i = optind; i < argc; i++) {
        sc__said said = {.kind = SC_JUNIT_PASS};
        char shown[1024];
        int one;
        sc_text_escape(shown, sizeof(shown), argv[i], strlen(argv[i]));
        bool record = sc_study_is(argv[i]) || sc_pair_is(argv[i]);
        if (sc_study_is(argv[i])) /* a study record: its sums, rows and every bundle it names */
            one = sc_study_verify(argv[i], &opts, said.message, sizeof(said.message));
        else if (sc_pair_is(argv[i])) { /* a paired run: both sides, the order, the pairs */
            one = sc_pair_verify(argv[i], &opts);
            if (one != SC_EXIT_OK)
                snprintf(said.message, sizeof(said.message),
                         "the paired run does not verify (see the command's output)");
        } else
            one = sc__verify_bundle(argv[i], &opts, &said);
        if (j) {
            if (record)
                said.kind = one == SC_EXIT_OK       ? SC_JUNIT_PASS
                            : one == SC_EXIT_FAILED ? SC_JUNIT_FAILURE
                                                    : SC_JUNIT_ERROR;
            sc_junit_case(j, "verify", shown, said.kind,
                          said.kind == SC_JUNIT_PASS ? NULL : said.message,
                          said.len          ? said.text
                          : said.message[0] ? said.message
                                            : NULL);
        }
        free(said.text);
        status = sc__worse(status, one);
    }
    if (j && sc_junit_write(j) < 0)
        status = sc__worse(status, SC_EXIT_ERROR);
    return status;
}
