/*
 * record_say.c: what the end of a bundle says (see record.h): whether anything in it is
 * attested, the gates over every run, the runs' statistics, the inherited environment that
 * changes performance, why the first failed run failed, and BUNDLE=<path> on stdout.
 */
#include "record.h"
#include "sc_attest.h"
#include "sc_cause.h"
#include "sc_envhazard.h"
#include "sc_platform_gate.h"
#include "sc_runs.h"
#include "sc_stats.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether anything root signed is in the bundle: the readback a run checks is otherwise the
   user's own word (doc/contracts/attestation.md), and the run says so. */
static void sc__print_attested(const sc_card *card, const sc_bundle *b)
{
    sc_attest_file *v = NULL;
    size_t n = 0;
    bool more = false;

    if (card->prefetch == SC_PREFETCH_UNCHANGED && strcmp(card->governor, "unchanged") == 0)
        return;
    char *state = sc_bundle_read_opt(b, "prefetch/state/state.env");
    bool cli = sc_platform_read_by_cli(state);
    free(state);
    if (cli)
        fprintf(stderr,
                "streamcard: platform_state: %s: the card's prefetch and governor were "
                "expected, not set (streamcard verify holds the gate to this readback "
                "and says it is not attested)\n",
                SC_PLATFORM_CLI_NOTE);
    else if (sc_attest_bundle_files(b->dirfd, &v, &n, &more) == 0 && n > 0)
        fprintf(stderr, "streamcard: platform_state: the readback comes with a statement signed "
                        "by the node (streamcard verify checks it against trusted keys)\n");
    else
        fprintf(stderr, "streamcard: platform_state: no platform claim is attested: no statement "
                        "signed by a node key (outside the plugin, the readback is the user's own "
                        "word; streamcard verify fails it)\n");
    sc_attest_files_free(v, n);
}

/* Why the first failed run failed, so that it shows even with --quiet: its failed gates,
   the first with its note, then the first error of its log where the workload's words can
   explain a gate (an MPI library that could not start; sc_cause.h). */
static void sc__print_cause(const sc_execution *x, const sc_gates *each, size_t n)
{
    char cause[1024], rel[64];

    for (size_t i = 0; i < n; i++) {
        if (sc_gates_passed(&each[i]))
            continue;
        const char *name = sc_runs_path(x->plan->card, i, "stream.log", rel, sizeof(rel));
        char *log = sc_bundle_read_opt(&x->b, name);
        sc_cause_of_run(&each[i], log, cause, sizeof(cause));
        free(log);
        if (sc_runs_flat(x->plan->card))
            fprintf(stderr, "streamcard: cause: %s\n", cause);
        else
            fprintf(stderr, "streamcard: cause: run %zu (%s): %s\n", i + 1, name, cause);
        return;
    }
}

/* "copy MB/s: median 50123.4 in [49800.1, 50555.0] (+-0.8%), 6 runs" for each figure. */
static void sc__print_stats(const char *results)
{
    json_object *root = results ? json_tokener_parse(results) : NULL, *stats = NULL, *ci, *v;

    if (!root || !json_object_object_get_ex(root, "stats", &stats) || !stats) {
        json_object_put(root);
        return;
    }
    json_object_object_foreach(stats, name, fig)
    {
        double median =
            json_object_object_get_ex(fig, "median", &v) ? json_object_get_double(v) : 0;
        const char *unit =
            json_object_object_get_ex(fig, "unit", &v) ? json_object_get_string(v) : "";
        long n = json_object_object_get_ex(fig, "n", &v) ? (long)json_object_get_int64(v) : 0;
        json_object_object_get_ex(fig, "ci95", &ci);
        if (ci && json_object_object_get_ex(ci, "low", &v)) {
            double low = json_object_get_double(v), high = 0, pct = 0;
            if (json_object_object_get_ex(ci, "high", &v))
                high = json_object_get_double(v);
            if (json_object_object_get_ex(ci, "half_width_pct", &v))
                pct = json_object_get_double(v);
            fprintf(stderr,
                    "  %-15s median %.6g %s, 95%% interval [%.6g, %.6g] (+-%.2f%%), "
                    "%ld runs\n",
                    name, median, unit, low, high, pct, n);
        } else {
            fprintf(stderr,
                    "  %-15s median %.6g %s, %ld run%s (interval unavailable: fewer "
                    "than %d runs)\n",
                    name, median, unit, n, n == 1 ? "" : "s", SC_STATS_MIN_RUNS);
        }
    }
    json_object_put(root);
}

void sc_record_say(const sc_execution *x, const sc_gates *gates, const sc_gates *each, size_t n,
                   const char *results)
{
    sc__print_attested(x->plan->card, &x->b);
    fprintf(stderr, "streamcard: gates%s:\n", n > 1 ? " over every run" : "");
    for (int i = 0; i < SC_GATE_COUNT; i++) {
        sc_gate_state s = gates->g[i].state;
        fprintf(stderr, "  %-15s %-4s %s\n", sc_gate_name((sc_gate_id)i),
                s == SC_GATE_OK     ? "ok"
                : s == SC_GATE_FAIL ? "FAIL"
                                    : "-",
                gates->g[i].note);
    }
    if (!sc_runs_flat(x->plan->card)) {
        fprintf(stderr, "streamcard: %zu runs (%s):\n", n, x->stopped);
        sc__print_stats(results);
    }
    /* What the workload inherited that changes its performance, said here, not only kept. */
    size_t hazards = 0;
    char *lines = sc_envhazard_of_bundle(&x->b, x->plan->card, &hazards);
    if (hazards)
        fprintf(stderr, "streamcard: inherited environment and library choices that change performance (not set "
                        "by the card; doc/contracts/environment.md):\n");
    for (const char *p = hazards ? lines : NULL; p && *p;) {
        size_t len = strcspn(p, "\n");
        fprintf(stderr, "  %.*s\n", (int)len, p);
        p += len + (p[len] == '\n');
    }
    free(lines);
    if (!sc_gates_passed(gates)) {
        sc__print_cause(x, each, n);
        fprintf(stderr, "ERROR: workload failed; do not use its numbers. Failed gates:");
        for (int i = 0; i < SC_GATE_COUNT; i++)
            if (gates->g[i].state == SC_GATE_FAIL)
                fprintf(stderr, " %s", sc_gate_name((sc_gate_id)i));
        fprintf(stderr, "\n");
    }
    printf("BUNDLE=%s\n", x->b.path);
    fflush(stdout);
}
