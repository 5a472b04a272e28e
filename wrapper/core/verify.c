/*
 * verify.c: is a bundle evidence? (see sc_verify.h). Re-checks SHA256SUMS, recomputes
 * every gate from the raw files and holds run.conf, build.json and results.json to what
 * the raw files show.
 */
#include "sc_verify.h"
#include "sc_bundle.h"
#include "sc_card.h"
#include "sc_hash.h"
#include "sc_kv.h"
#include "sc_results.h"
#include "sc_tracelog.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The raw files of one bundle, each NULL when absent. */
typedef struct sc__files {
    char *card_text, *run_conf, *log, *threads, *status, *maps, *state, *results, *build;
} sc__files;

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
    if (t.imb_peak_MBps > best) /* mpi-pingpong: the IMB table's highest Mbytes/sec */
        best = t.imb_peak_MBps;
    sc_tracelog_free(&t);
    return best;
}

/* Parses card.yaml and checks run.conf's hash of it. The card, or NULL when unusable. */
static sc_card *sc__check_card(const sc__files *f, sc_diag *problems)
{
    char hex[SC_HASH_HEX_LEN + 1], claimed[128] = "";
    sc_card *card;

    if (!f->card_text) {
        sc_diag_addf(problems, "card.yaml: missing: the gates cannot be recomputed");
        return NULL;
    }
    card = sc_card_new();
    if (!card ||
        sc_card_parse(card, f->card_text, strlen(f->card_text), "card.yaml", problems) < 0 ||
        sc_card_check(card, problems) < 0) {
        sc_card_free(card);
        sc_diag_addf(problems, "card.yaml: not a valid card: the gates cannot be recomputed");
        return NULL;
    }
    sc_hash_buf(f->card_text, strlen(f->card_text), hex);
    if (!sc_kv_get(f->run_conf, "card_sha256", claimed, sizeof(claimed)) ||
        strcmp(claimed, hex) != 0)
        sc_diag_addf(problems, "run.conf: card_sha256 %s does not match card.yaml (%s)",
                     *claimed ? claimed : "(missing)", hex);
    return card;
}

static void sc__check_build(const sc__files *f, sc_diag *problems)
{
    char claimed[128] = "";
    json_object *build = f->build ? json_tokener_parse(f->build) : NULL, *sha;

    if (!build) {
        sc_diag_addf(problems, "build.json: missing or not JSON");
        return;
    }
    sc_kv_get(f->run_conf, "binary_sha256", claimed, sizeof(claimed));
    if (!json_object_object_get_ex(build, "sha256", &sha) ||
        strcmp(json_object_get_string(sha), claimed) != 0)
        sc_diag_addf(problems, "run.conf: binary_sha256 %s differs from build.json",
                     *claimed ? claimed : "(missing)");
    json_object_put(build);
}

/* run.conf's X_ok=1|0|NA must say exactly what the recomputed gate says. */
static void sc__check_claims(const sc__files *f, const sc_gates *gates, sc_diag *problems)
{
    char claim[16] = "";

    for (int i = 0; i < SC_GATE_COUNT; i++) {
        const char *key = sc_gate_conf_key((sc_gate_id)i);
        sc_gate_state s = gates->g[i].state;
        const char *truth = s == SC_GATE_OK ? "1" : s == SC_GATE_FAIL ? "0" : "NA";
        if (!sc_kv_get(f->run_conf, key, claim, sizeof(claim)))
            sc_diag_addf(problems, "run.conf: no %s line", key);
        else if (strcmp(claim, truth) != 0)
            sc_diag_addf(problems, "run.conf claims %s=%s but the raw files show %s: %s", key,
                         claim, truth, gates->g[i].note);
    }
    const char *verdict = sc_gates_passed(gates) ? "ok" : "failed";
    *claim = '\0';
    if (!sc_kv_get(f->run_conf, "verdict", claim, sizeof(claim)) || strcmp(claim, verdict) != 0)
        sc_diag_addf(problems, "run.conf claims verdict=%s but the raw files show %s", claim,
                     verdict);
}

static bool sc__gate_agrees(json_object *g, const sc_gate *gate, const char *name)
{
    json_object *gv = NULL;

    if (!json_object_object_get_ex(g, name, &gv))
        return false;
    if (gate->state == SC_GATE_NULL)
        return gv == NULL;
    return gv && json_object_is_type(gv, json_type_boolean) &&
           json_object_get_boolean(gv) == (gate->state == SC_GATE_OK);
}

/* Every STREAM function's rate in results.json must be the one stream.log's table shows. */
static void sc__check_rates(const sc__files *f, json_object *metrics, sc_diag *problems)
{
    json_object *rates;
    sc_tracelog t;
    char name[32];

    if (!metrics || !json_object_object_get_ex(metrics, "rates", &rates) ||
        !json_object_is_type(rates, json_type_object) ||
        sc_tracelog_parse(f->log ? f->log : "", &t) < 0)
        return;
    json_object_object_foreach(rates, key, rate)
    {
        const sc_table_row *row = NULL;
        for (size_t i = 0; i < t.n_rows && !row; i++) {
            snprintf(name, sizeof(name), "%s", t.rows[i].name);
            for (char *p = name; *p; p++)
                *p = (char)tolower((unsigned char)*p);
            if (strcmp(name, key) == 0)
                row = &t.rows[i];
        }
        double claimed = json_object_get_double(rate);
        if (!row)
            sc_diag_addf(problems,
                         "results.json: a %s rate, but stream.log's table has no such row", key);
        else if (fabs(claimed - row->best_rate_MBps) > 0.05 + 1e-9 * claimed)
            sc_diag_addf(problems,
                         "results.json: %s rate %.1f MB/s, but stream.log's table shows %.1f MB/s",
                         key, claimed, row->best_rate_MBps);
    }
    sc_tracelog_free(&t);
}

static void sc__check_results(const sc__files *f, const sc_gates *gates, double log_best,
                              sc_diag *problems)
{
    json_object *root = f->results ? json_tokener_parse(f->results) : NULL, *val = NULL, *g;
    json_object *metrics;
    const char *verdict = sc_gates_passed(gates) ? "ok" : "failed";

    if (!root) {
        sc_diag_addf(problems, "results.json: missing or not JSON");
        return;
    }
    if (!json_object_object_get_ex(root, "verdict", &val) ||
        strcmp(json_object_get_string(val), verdict) != 0)
        sc_diag_addf(problems, "results.json claims verdict %s but the raw files show %s",
                     val ? json_object_get_string(val) : "(missing)", verdict);
    if (json_object_object_get_ex(root, "gates", &g)) {
        for (int i = 0; i < SC_GATE_COUNT; i++)
            if (!sc__gate_agrees(g, &gates->g[i], sc_gate_name((sc_gate_id)i)))
                sc_diag_addf(problems, "results.json: gate %s disagrees with the raw files (%s)",
                             sc_gate_name((sc_gate_id)i), gates->g[i].note);
    } else {
        sc_diag_addf(problems, "results.json: no gates");
    }
    double claimed =
        json_object_object_get_ex(root, "metrics", &metrics) ? sc_results_best_rate(metrics) : 0;
    /* The log prints one decimal: allow that rounding, nothing more. */
    if (claimed > 0 && fabs(claimed - log_best) > 0.05 + 1e-9 * claimed)
        sc_diag_addf(problems,
                     "results.json: best rate %.1f MB/s, but stream.log's table "
                     "shows %.1f MB/s",
                     claimed, log_best);
    sc__check_rates(f, metrics, problems);
    json_object_put(root);
}

static void sc__files_free(sc__files *f)
{
    free(f->card_text);
    free(f->run_conf);
    free(f->log);
    free(f->threads);
    free(f->status);
    free(f->maps);
    free(f->state);
    free(f->results);
    free(f->build);
}

int sc_verify_bundle(const char *path, sc_verify_report *out)
{
    sc__files f = {0};
    sc_bundle b;
    sc_card *card;
    long exit_code = -1, exit_signal = 0, exit_known = 0;

    memset(out, 0, sizeof(*out));
    sc_diag_init(&out->problems);
    int rc = sc_bundle_open(&b, path);
    if (rc < 0)
        return rc;
    sc_bundle_check_sums(&b, &out->problems);
    out->n_hash_problems = out->problems.count;
    f.card_text = sc__opt(&b, "card.yaml");
    f.run_conf = sc__opt(&b, "run.conf");
    f.log = sc__opt(&b, "stream.log");
    f.threads = sc__opt(&b, "threads_at_ready.txt");
    f.status = sc__opt(&b, "workload_status_at_ready.txt");
    f.maps = sc__opt(&b, "numa_maps_at_ready.txt");
    f.state = sc__opt(&b, "prefetch/state/state.env");
    f.results = sc__opt(&b, "results.json");
    f.build = sc__opt(&b, "build.json");
    sc_bundle_close(&b);
    if (!f.run_conf)
        sc_diag_addf(&out->problems, "run.conf: missing");
    card = sc__check_card(&f, &out->problems);
    sc__check_build(&f, &out->problems);
    out->log_best_rate_MBps = sc__log_best_rate(f.log);
    if (card) {
        sc_kv_get_long(f.run_conf, "exit_known", &exit_known);
        sc_kv_get_long(f.run_conf, "exit_code", &exit_code);
        sc_kv_get_long(f.run_conf, "exit_signal", &exit_signal);
        long write_errors = -1;
        char write_error[256] = "";
        sc_kv_get_long(f.run_conf, "write_errors", &write_errors);
        sc_kv_get(f.run_conf, "write_error", write_error, sizeof(write_error));
        sc_evidence ev = {.log = f.log,
                          .write_errors = (int)write_errors,
                          .write_error = write_error,
                          .exit_known = exit_known == 1,
                          .exit_code = (int)exit_code,
                          .exit_signal = (int)exit_signal,
                          .threads_at_ready = f.threads,
                          .status_at_ready = f.status,
                          .numa_maps_at_ready = f.maps,
                          .state_env = f.state,
                          .best_rate_MBps = out->log_best_rate_MBps};
        rc = sc_gates_evaluate(card, &ev, &out->gates);
        if (rc == 0) {
            out->gates_computed = true;
            sc__check_claims(&f, &out->gates, &out->problems);
            sc__check_results(&f, &out->gates, out->log_best_rate_MBps, &out->problems);
        }
    }
    sc_card_free(card);
    sc__files_free(&f);
    return rc < 0 ? rc : 0;
}

void sc_verify_report_free(sc_verify_report *r)
{
    if (r)
        sc_diag_free(&r->problems);
}

bool sc_verify_intact(const sc_verify_report *r)
{
    return r->problems.count == 0;
}

bool sc_verify_usable(const sc_verify_report *r)
{
    return sc_verify_intact(r) && r->gates_computed && sc_gates_passed(&r->gates);
}

void sc_verify_why(const sc_verify_report *r, char *buf, size_t len)
{
    size_t used = 0;

    if (!len)
        return;
    *buf = '\0';
    if (!sc_verify_intact(r)) {
        snprintf(buf, len, "%zu problem%s (%s%s)", r->problems.count,
                 r->problems.count == 1 ? "" : "s", r->problems.lines[0],
                 r->problems.count > 1 ? "; ..." : "");
        return;
    }
    if (!r->gates_computed) {
        snprintf(buf, len, "the gates could not be recomputed");
        return;
    }
    for (int i = 0; i < SC_GATE_COUNT && used < len; i++) {
        sc_gate_state s = r->gates.g[i].state;
        if (s == SC_GATE_FAIL || (s == SC_GATE_NULL && sc_gate_mandatory((sc_gate_id)i)))
            used += (size_t)snprintf(buf + used, len - used, "%s%s",
                                     used ? " " : "failed gates: ", sc_gate_name((sc_gate_id)i));
    }
}
