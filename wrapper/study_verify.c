/*
 * study_verify.c: `streamcard verify STUDY` (see study.h): the record checked by the core
 * (sc_study_load(), core/analysis/study_verify.c), said as verify says a bundle.
 */
#include "study.h"
#include "cli.h"
#include "sc_study.h"
#include "sc_text.h"

#include <stdio.h>
#include <string.h>

int sc_study_verify(const char *path, const sc_verify_opts *opts, char *why, size_t len)
{
    sc_diag d;
    char shown[1024];
    json_object *root = NULL;
    int status = SC_EXIT_FAILED;

    sc_text_escape(shown, sizeof(shown), path, strlen(path));
    sc_diag_init(&d);
    if (sc_study_load(path, opts, &d, &root) < 0) {
        fprintf(stderr, "streamcard: verify: %s: cannot open the study\n", shown);
        snprintf(why, len, "cannot open the study");
        sc_diag_free(&d);
        return SC_EXIT_USAGE;
    }
    if (d.count) {
        size_t n = d.count + d.more;
        sc_diag_print(&d, "streamcard: verify: ", stderr);
        fprintf(stderr, "streamcard: verify: %s: study FAILED (%zu problem%s)\n", shown, n,
                n == 1 ? "" : "s");
        snprintf(why, len, "study FAILED (%zu problem%s): %s", n, n == 1 ? "" : "s", d.lines[0]);
    } else {
        printf("streamcard: verify: %s: study intact; every row recomputed from its bundle "
               "agrees\n",
               shown);
        snprintf(why, len, "study intact; every row recomputed from its bundle agrees");
        status = SC_EXIT_OK;
    }
    json_object_put(root);
    sc_diag_free(&d);
    return status;
}
