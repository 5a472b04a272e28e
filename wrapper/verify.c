/*
 * verify.c: `streamcard verify BUNDLE`: re-checks SHA256SUMS and recomputes every gate
 * from the raw files (card.yaml, stream.log, the snapshots, state.env), then holds
 * run.conf and results.json to what the raw files show. Nothing recorded is trusted:
 * a verdict is only as good as the evidence under it.
 */
#include "cli.h"
#include "sc_bundle.h"
#include "sc_gates.h"
#include "sc_hash.h"
#include "sc_kv.h"
#include "sc_results.h"
#include "sc_tracelog.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct sc__verify {
    sc_bundle b;
    sc_diag problems;
    char *card_text, *run_conf, *log, *threads, *status, *maps, *state, *results, *build;
    sc_card *card;
} sc__verify;

static char *sc__opt(const sc_bundle *b, const char *rel)
{
    char *text = NULL;
    return sc_bundle_read(b, rel, &text, NULL) == 0 ? text : NULL;
}

/* The best rate the log's own table shows (STREAM rows), or 0. */
static double sc__log_best_rate(const char *log)
{
    sc_tracelog t;
    double best = 0;

    if (!log || sc_tracelog_parse(log, &t) < 0)
        return 0;
    for (size_t i = 0; i < t.n_rows; i++)
        if (t.rows[i].best_rate_MBps > best)
            best = t.rows[i].best_rate_MBps;
    sc_tracelog_free(&t);
    return best;
}

static void sc__check_card(sc__verify *v)
{
    char hex[SC_HASH_HEX_LEN + 1], claimed[128];

    if (!v->card_text) {
        sc_diag_addf(&v->problems, "card.yaml: missing: the gates cannot be recomputed");
        return;
    }
    v->card = sc_card_new();
    if (!v->card || sc_card_parse(v->card, v->card_text, strlen(v->card_text), "card.yaml",
                                  &v->problems) < 0 ||
        sc_card_check(v->card, &v->problems) < 0) {
        sc_card_free(v->card);
        v->card = NULL;
        sc_diag_addf(&v->problems, "card.yaml: not a valid card: the gates cannot be recomputed");
        return;
    }
    sc_hash_buf(v->card_text, strlen(v->card_text), hex);
    if (!sc_kv_get(v->run_conf, "card_sha256", claimed, sizeof(claimed)) ||
        strcmp(claimed, hex) != 0)
        sc_diag_addf(&v->problems, "run.conf: card_sha256 %s does not match card.yaml (%s)",
                     *claimed ? claimed : "(missing)", hex);
}

static void sc__check_build(sc__verify *v)
{
    char claimed[128] = "";
    json_object *build = v->build ? json_tokener_parse(v->build) : NULL, *sha;

    if (!build) {
        sc_diag_addf(&v->problems, "build.json: missing or not JSON");
        return;
    }
    sc_kv_get(v->run_conf, "binary_sha256", claimed, sizeof(claimed));
    if (!json_object_object_get_ex(build, "sha256", &sha) ||
        strcmp(json_object_get_string(sha), claimed) != 0)
        sc_diag_addf(&v->problems, "run.conf: binary_sha256 %s differs from build.json",
                     *claimed ? claimed : "(missing)");
    json_object_put(build);
}

/* run.conf's X_ok=1|0|NA must say exactly what the recomputed gate says. */
static void sc__check_claims(sc__verify *v, const sc_gates *gates)
{
    char claim[16];

    for (int i = 0; i < SC_GATE_COUNT; i++) {
        const char *key = sc_gate_conf_key((sc_gate_id)i);
        sc_gate_state s = gates->g[i].state;
        const char *truth = s == SC_GATE_OK ? "1" : s == SC_GATE_FAIL ? "0" : "NA";
        if (!sc_kv_get(v->run_conf, key, claim, sizeof(claim)))
            sc_diag_addf(&v->problems, "run.conf: no %s line", key);
        else if (strcmp(claim, truth) != 0)
            sc_diag_addf(&v->problems, "run.conf claims %s=%s but the raw files show %s: %s", key,
                         claim, truth, gates->g[i].note);
    }
    const char *verdict = sc_gates_passed(gates) ? "ok" : "failed";
    if (!sc_kv_get(v->run_conf, "verdict", claim, sizeof(claim)) || strcmp(claim, verdict) != 0)
        sc_diag_addf(&v->problems, "run.conf claims verdict=%s but the raw files show %s", claim,
                     verdict);
}

static void sc__check_results(sc__verify *v, const sc_gates *gates, double log_best)
{
    json_object *root = v->results ? json_tokener_parse(v->results) : NULL, *val, *g, *metrics;
    const char *verdict = sc_gates_passed(gates) ? "ok" : "failed";

    if (!root) {
        sc_diag_addf(&v->problems, "results.json: missing or not JSON");
        return;
    }
    if (!json_object_object_get_ex(root, "verdict", &val) ||
        strcmp(json_object_get_string(val), verdict) != 0)
        sc_diag_addf(&v->problems, "results.json claims verdict %s but the raw files show %s",
                     val ? json_object_get_string(val) : "(missing)", verdict);
    if (json_object_object_get_ex(root, "gates", &g)) {
        for (int i = 0; i < SC_GATE_COUNT; i++) {
            json_object *gv = NULL;
            bool has = json_object_object_get_ex(g, sc_gate_name((sc_gate_id)i), &gv);
            sc_gate_state s = gates->g[i].state;
            bool same = has && (s == SC_GATE_NULL ? gv == NULL
                                                  : (gv && json_object_is_type(gv, json_type_boolean) &&
                                                     json_object_get_boolean(gv) == (s == SC_GATE_OK)));
            if (!same)
                sc_diag_addf(&v->problems, "results.json: gate %s disagrees with the raw files (%s)",
                             sc_gate_name((sc_gate_id)i), gates->g[i].note);
        }
    } else {
        sc_diag_addf(&v->problems, "results.json: no gates");
    }
    double claimed = json_object_object_get_ex(root, "metrics", &metrics)
                         ? sc_results_best_rate(metrics)
                         : 0;
    /* The log prints one decimal: allow that rounding, nothing more. */
    if (claimed > 0 && fabs(claimed - log_best) > 0.05 + 1e-9 * claimed)
        sc_diag_addf(&v->problems, "results.json: best rate %.1f MB/s, but stream.log's table "
                                   "shows %.1f MB/s",
                     claimed, log_best);
    json_object_put(root);
}

static void sc__verify_free(sc__verify *v)
{
    free(v->card_text);
    free(v->run_conf);
    free(v->log);
    free(v->threads);
    free(v->status);
    free(v->maps);
    free(v->state);
    free(v->results);
    free(v->build);
    sc_card_free(v->card);
    sc_diag_free(&v->problems);
    sc_bundle_close(&v->b);
}

int sc_cmd_verify(int argc, char **argv)
{
    sc__verify v = {0};
    sc_gates gates;
    long exit_code = -1, exit_signal = 0, exit_known = 0;
    int status;

    if (argc != 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        fprintf(argc == 2 ? stdout : stderr,
                "usage: streamcard verify BUNDLE\n\n"
                "Re-checks SHA256SUMS and recomputes every gate from the raw files; exits 0\n"
                "when the bundle is intact, consistent and its run passed, 1 otherwise.\n");
        return argc == 2 ? SC_EXIT_OK : SC_EXIT_USAGE;
    }
    sc_diag_init(&v.problems);
    int rc = sc_bundle_open(&v.b, argv[1]);
    if (rc < 0) {
        fprintf(stderr, "streamcard: verify: %s: cannot open the bundle: %s\n", argv[1],
                strerror(-rc));
        return SC_EXIT_USAGE;
    }
    sc_bundle_check_sums(&v.b, &v.problems);
    v.card_text = sc__opt(&v.b, "card.yaml");
    v.run_conf = sc__opt(&v.b, "run.conf");
    v.log = sc__opt(&v.b, "stream.log");
    v.threads = sc__opt(&v.b, "threads_at_ready.txt");
    v.status = sc__opt(&v.b, "workload_status_at_ready.txt");
    v.maps = sc__opt(&v.b, "numa_maps_at_ready.txt");
    v.state = sc__opt(&v.b, "prefetch/state/state.env");
    v.results = sc__opt(&v.b, "results.json");
    v.build = sc__opt(&v.b, "build.json");
    if (!v.run_conf)
        sc_diag_addf(&v.problems, "run.conf: missing");
    sc__check_card(&v);
    sc__check_build(&v);
    if (v.card) {
        sc_kv_get_long(v.run_conf, "exit_known", &exit_known);
        sc_kv_get_long(v.run_conf, "exit_code", &exit_code);
        sc_kv_get_long(v.run_conf, "exit_signal", &exit_signal);
        double log_best = sc__log_best_rate(v.log);
        sc_evidence ev = {.log = v.log, .exit_known = exit_known == 1, .exit_code = (int)exit_code,
                          .exit_signal = (int)exit_signal, .threads_at_ready = v.threads,
                          .status_at_ready = v.status, .numa_maps_at_ready = v.maps,
                          .state_env = v.state, .best_rate_MBps = log_best};
        if (sc_gates_evaluate(v.card, &ev, &gates) == 0) {
            sc__check_claims(&v, &gates);
            sc__check_results(&v, &gates, log_best);
        }
    }
    if (v.problems.count) {
        sc_diag_print(&v.problems, "streamcard: verify: ", stderr);
        fprintf(stderr, "streamcard: verify: %s: FAILED (%zu problems)\n", argv[1],
                v.problems.count);
        status = SC_EXIT_FAILED;
    } else if (!sc_gates_passed(&gates)) {
        fprintf(stderr, "streamcard: verify: %s: the bundle is intact and consistent, but the "
                        "run FAILED its gates:",
                argv[1]);
        for (int i = 0; i < SC_GATE_COUNT; i++)
            if (gates.g[i].state == SC_GATE_FAIL)
                fprintf(stderr, " %s", sc_gate_name((sc_gate_id)i));
        fprintf(stderr, "\n");
        status = SC_EXIT_FAILED;
    } else {
        printf("streamcard: verify: %s: intact; every gate recomputed from the raw files holds; "
               "verdict ok\n",
               argv[1]);
        status = SC_EXIT_OK;
    }
    sc__verify_free(&v);
    return status;
}
