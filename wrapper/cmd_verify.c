/*
 * cmd_verify.c: `streamcard verify BUNDLE`: prints what sc_verify_bundle() found (every hash
 * and consistency problem, or the gates that failed, or that the bundle holds).
 */
#include "cli.h"
#include "sc_text.h"
#include "sc_verify.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int sc_cmd_verify(int argc, char **argv)
{
    sc_verify_report r;
    int status;

    if (argc != 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        fprintf(argc == 2 ? stdout : stderr,
                "usage: streamcard verify BUNDLE\n\n"
                "Re-checks SHA256SUMS and recomputes every gate from the raw files; exits 0\n"
                "when the bundle is intact, consistent and its run passed, 1 otherwise.\n");
        return argc == 2 ? SC_EXIT_OK : SC_EXIT_USAGE;
    }
    /* The path may be a name a user chose (ESC, newlines): shown escaped, never raw. */
    char shown[1024];
    sc_text_escape(shown, sizeof(shown), argv[1], strlen(argv[1]));
    int rc = sc_verify_bundle(argv[1], &r);
    if (rc < 0) {
        fprintf(stderr, "streamcard: verify: %s: cannot open the bundle: %s\n", shown,
                strerror(-rc));
        sc_verify_report_free(&r);
        return rc == -ENOMEM ? SC_EXIT_ERROR : SC_EXIT_USAGE;
    }
    if (!sc_verify_intact(&r)) {
        sc_diag_print(&r.problems, "streamcard: verify: ", stderr);
        fprintf(stderr, "streamcard: verify: %s: FAILED (%zu problems)\n", shown, r.problems.count);
        status = SC_EXIT_FAILED;
    } else if (!sc_verify_usable(&r)) {
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
    sc_verify_report_free(&r);
    return status;
}
