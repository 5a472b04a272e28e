/*
 * verify.c: is a bundle evidence? (see sc_verify.h). Re-checks SHA256SUMS, recomputes
 * every gate from the raw files and holds run.conf, build.json and results.json to what
 * the raw files show.
 */
#include "sc_verify.h"
#include "sc_bounds.h"
#include "sc_bundle.h"
#include "sc_caches.h"
#include "sc_card.h"
#include "sc_hash.h"
#include "sc_kv.h"
#include "sc_mpistack.h"
#include "sc_num.h"
#include "sc_platform_gate.h"
#include "sc_results.h"
#include "sc_results_protocol.h"
#include "sc_tracelog.h"
#include "sc_run_files.h"
#include "sc_runs.h"
#include "sc_verify_attest.h"
#include "sc_verify_platform.h"
#include "sc_verify_interference.h"
#include "sc_verify_blas.h"
#include "sc_verify_ranklibs.h"
#include "sc_verify_reps.h"
#include "sc_verify_matrix.h"
#include "sc_verify_times.h"
#include "sc_verify_series.h"
#include "sc_verify_pass.h"
#include "sc_facts_src.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The bundle's own files (each run's are sc_run_files), each NULL when absent; results.json
   parsed once (NULL when absent or not JSON); and the verifying clock (seconds since the
   epoch), which the runs' times are held to. */
typedef struct sc__files {
    char *card_text, *run_conf, *results, *build;
    json_object *res;
    long long now;
} sc__files;

/* The best rate the log's own table shows (STREAM rows), or 0 (t NULL: no log). */
static double sc__log_best_rate(const sc_tracelog *t)
{
    double best = 0;

    for (size_t i = 0; t && i < t->n_rows; i++)
        if (t->rows[i].best_rate_MBps > best)
            best = t->rows[i].best_rate_MBps;
    if (t && t->imb_peak_MBps > best) /* mpi-pingpong: the IMB table's highest Mbytes/sec */
        best = t->imb_peak_MBps;
    return best;
}

/* True when text holds the n bytes at line as one whole line. */
static bool sc__has_line(const char *text, const char *line, size_t n)
{
    for (const char *p = text; p && *p;) {
        size_t len = strcspn(p, "\n");
        if (len == n && !strncmp(p, line, n))
            return true;
        p += len + (p[len] != '\0');
    }
    return false;
}

/* Every number of a JSON file of the bundle is a figure: finite (sc_num.h). One rule for
   every reader after verify: a figure nobody could measure is null, never an infinity that
   a check would let through or a statistic would leave out. */
static void sc__check_finite(const char *name, json_object *doc, sc_diag *problems)
{
    char where[320];

    if (doc && !sc_num_all_finite(doc, where, sizeof(where)))
        sc_diag_addf(problems,
                     "%s: %s, not a finite number (valid: finite numbers only; a figure the "
                     "workload could not measure is null)",
                     name, where);
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

/* The string key of results.json, or NULL. */
static const char *sc__json_str(json_object *root, const char *key)
{
    json_object *v;

    return root && json_object_object_get_ex(root, key, &v) &&
                   json_object_is_type(v, json_type_string)
               ? json_object_get_string(v)
               : NULL;
}

/*
 * Who and where: the run name of the card, run.conf and results.json, and the host of
 * run.conf and results.json, must be one. A bundle whose results.json was edited (and
 * re-sealed) to name another node or run is refused, not exported under that name.
 */
static void sc__check_identity(const sc__files *f, const sc_card *card, sc_diag *problems)
{
    json_object *root = f->res;
    char conf_name[512] = "", conf_host[512] = "";
    const char *res_name = sc__json_str(root, "run_name"), *res_host = sc__json_str(root, "host");
    bool has_name = sc_kv_get(f->run_conf, "run_name", conf_name, sizeof(conf_name));
    bool has_host = sc_kv_get(f->run_conf, "host", conf_host, sizeof(conf_host));

    if (!has_name || !has_host)
        sc_diag_addf(problems, "run.conf: no %s line: the run cannot be named",
                     has_name ? "host" : "run_name");
    if (card && has_name && strcmp(conf_name, card->run_name) != 0)
        sc_diag_addf(problems, "run.conf: run_name %s, but card.yaml names the run %s", conf_name,
                     card->run_name);
    if (root && (!res_name || (has_name && strcmp(res_name, conf_name) != 0)))
        sc_diag_addf(problems, "results.json: run_name %s, but run.conf says %s",
                     res_name ? res_name : "(missing)", conf_name);
    if (root && (!res_host || (has_host && strcmp(res_host, conf_host) != 0)))
        sc_diag_addf(problems, "results.json: host %s, but run.conf says %s",
                     res_host ? res_host : "(missing)", conf_host);
}

/* build.json against run.conf; its top-level scalars into *scalars (NULL: not wanted) for
   the facts, the document itself released here. */
static void sc__check_build(const sc__files *f, sc_diag *problems, json_object **scalars)
{
    char claimed[128] = "";
    json_object *build = f->build ? json_tokener_parse(f->build) : NULL, *sha;

    if (!build) {
        sc_diag_addf(problems, "build.json: missing or not JSON");
        return;
    }
    sc__check_finite("build.json", build, problems);
    sc_kv_get(f->run_conf, "binary_sha256", claimed, sizeof(claimed));
    if (!json_object_object_get_ex(build, "sha256", &sha) ||
        strcmp(json_object_get_string(sha), claimed) != 0)
        sc_diag_addf(problems, "run.conf: binary_sha256 %s differs from build.json",
                     *claimed ? claimed : "(missing)");
    if (scalars)
        *scalars = sc__facts_scalars(build);
    else
        json_object_put(build);
}

/* run.conf's X_ok=1|0|NA must say exactly what the recomputed gate says. */
static void sc__check_claims(const char *conf, const sc_gates *gates, sc_diag *problems)
{
    char claim[16] = "";

    for (int i = 0; i < SC_GATE_COUNT; i++) {
        const char *key = sc_gate_conf_key((sc_gate_id)i);
        sc_gate_state s = gates->g[i].state;
        const char *truth = s == SC_GATE_OK ? "1" : s == SC_GATE_FAIL ? "0" : "NA";
        if (!sc_kv_get(conf, key, claim, sizeof(claim)))
            sc_diag_addf(problems, "run.conf: no %s line", key);
        else if (strcmp(claim, truth) != 0)
            sc_diag_addf(problems, "run.conf claims %s=%s but the raw files show %s: %s", key,
                         claim, truth, gates->g[i].note);
    }
    const char *verdict = sc_gates_passed(gates) ? "ok" : "failed";
    *claim = '\0';
    if (!sc_kv_get(conf, "verdict", claim, sizeof(claim)) || strcmp(claim, verdict) != 0)
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
static void sc__check_rates(const sc_tracelog *t, json_object *metrics, sc_diag *problems)
{
    json_object *rates;

    if (!metrics || !json_object_object_get_ex(metrics, SC_RESULT_RATES, &rates) ||
        !json_object_is_type(rates, json_type_object))
        return;
    json_object_object_foreach(rates, key, rate)
    {
        const sc_table_row *row = sc_tracelog_row(t, key);
        double claimed = NAN;
        sc_num_json(rate, &claimed); /* a figure, or NAN: shown by no log */
        if (!row)
            sc_diag_addf(problems,
                         "results.json: a %s rate, but stream.log's table has no such row", key);
        else if (!sc_tracelog_shows(claimed, row->best_rate_MBps, 0.1)) /* one decimal */
            sc_diag_addf(problems,
                         "results.json: %s rate %.1f MB/s, but stream.log's table shows %.1f MB/s",
                         key, claimed, row->best_rate_MBps);
    }
}

/* The log's derived figures recomputed from its raw ones, by the card's workload. */
static void sc__verify_derived(const sc_tracelog *t, const sc_card *card, sc_diag *problems)
{
    const sc_workload_ops *ops = sc_workload_ops_of(card->workload);

    if (ops && ops->verify_derived)
        ops->verify_derived(t, card, problems);
}

/* build.json's "mpi_stack" (mpi) is exactly what the log's TRACE_MPI_* lines give. */
static void sc__check_mpi_stack(const char *build_text, const sc_tracelog *t, sc_diag *problems)
{
    json_object *build = build_text ? json_tokener_parse(build_text) : NULL, *claimed = NULL;
    json_object *want = t ? sc_mpistack_json(t) : NULL;

    if (build)
        json_object_object_get_ex(build, "mpi_stack", &claimed);
    if (build && !json_object_equal(claimed, want))
        sc_diag_addf(problems, "build.json: %s",
                     !claimed ? "no mpi_stack, but stream.log shows the MPI stack"
                     : !want  ? "an mpi_stack, but stream.log shows no MPI stack"
                              : "mpi_stack is not the MPI stack stream.log shows");
    json_object_put(want);
    json_object_put(build);
}

/*
 * run.conf's figures: best_rate_MBps must be the log's best rate, and (mpi) the transport
 * and MPI stack lines exactly the ones the log's TRACE_TRANSPORT* and TRACE_MPI_* lines
 * give, no more and no fewer.
 */
static void sc__check_conf_figures(const char *conf, const char *build, const sc_card *card,
                                   const sc_tracelog *t, double log_best, sc_diag *problems)
{
    char claimed[64];
    sc_kv want;

    double v = NAN;
    if (sc_kv_get(conf, SC_RESULT_BEST_RATE_MBPS, claimed, sizeof(claimed)) &&
        (sc_num_str(claimed, &v) < 0 || !sc_tracelog_shows(v, log_best, 0.1)))
        sc_diag_addf(problems,
                     "run.conf: " SC_RESULT_BEST_RATE_MBPS "=%s, but stream.log shows %.1f MB/s",
                     claimed, log_best);
    /* ready_wait_ms: the log's TRACE_READY_WAIT, or none without one. */
    double waited = t ? t->ready_wait_ms : -1;
    if (sc_kv_get(conf, "ready_wait_ms", claimed, sizeof(claimed))) {
        bool none = strcmp(claimed, "none") == 0;
        if (none != (waited < 0) ||
            (!none && (sc_num_str(claimed, &v) < 0 || !sc_tracelog_shows(v, waited, 0.001))))
            sc_diag_addf(problems, "run.conf: ready_wait_ms=%s, but stream.log shows %s", claimed,
                         waited < 0 ? "no TRACE_READY_WAIT" : "another TRACE_READY_WAIT");
    }
    if (!sc_workload_mpi(card))
        return;
    if (build) /* the first run's: build.json's mpi_stack is from its log */
        sc__check_mpi_stack(build, t, problems);
    sc_kv_init(&want);
    sc_tracelog_transport_conf(t, &want);
    for (const char *p = want.text; p && *p;) {
        size_t n = strcspn(p, "\n");
        if (!sc__has_line(conf, p, n))
            sc_diag_addf(problems, "run.conf: no line \"%.*s\", which stream.log shows", (int)n, p);
        p += n + (p[n] != '\0');
    }
    for (const char *p = conf; *p;) {
        size_t n = strcspn(p, "\n");
        if (sc_tracelog_is_transport_conf(p) && !sc__has_line(want.text, p, n))
            sc_diag_addf(problems, "run.conf: \"%.*s\", but stream.log does not show it", (int)n,
                         p);
        p += n + (p[n] != '\0');
    }
    sc_kv_free(&want);
}

/* A run's object of results.json (for one run, its top level) against its log as parsed (an
   empty one when there is none) and its gates. */
static void sc__check_results(json_object *root, const sc_tracelog *t, const char *log,
                              const sc_card *card, const sc_gates *gates, double log_best,
                              sc_diag *problems)
{
    json_object *val = NULL, *g, *metrics = NULL;
    const char *verdict = sc_gates_passed(gates) ? "ok" : "failed";

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
    double claimed = json_object_object_get_ex(root, SC_RESULT_METRICS, &metrics)
                         ? sc_results_best_rate(metrics)
                         : 0;
    /* The log prints one decimal: allow that rounding, nothing more (NAN: not a figure). */
    if (claimed != 0 && !sc_tracelog_shows(claimed, log_best, 0.1))
        sc_diag_addf(problems,
                     "results.json: best rate %.1f MB/s, but stream.log's table "
                     "shows %.1f MB/s",
                     claimed, log_best);
    sc__check_rates(t, metrics, problems);
    if (metrics) {
        const sc_workload_ops *ops = sc_workload_ops_of(card->workload);
        if (ops && ops->verify_results)
            ops->verify_results(metrics, t, card, log ? log : "", problems);
        sc_verify_reps(metrics, t, card, problems);
    }
}

/* A file of the bundle through the bounded reader; NULL when absent, and a problem when it
   is there but cannot be read (a fifo, a symlink, over its cap). */
static char *sc__read(const sc_bundle *b, const char *rel, sc_diag *problems)
{
    char *text = NULL, why[128];
    int rc = sc_bundle_read(b, rel, &text, NULL);

    if (rc < 0 && rc != -ENOENT)
        sc_diag_addf(problems, "%s: not read: %s", rel,
                     sc_bundle_read_error(rel, rc, why, sizeof(why)));
    return rc == 0 ? text : NULL;
}

static void sc__files_free(sc__files *f)
{
    free(f->card_text);
    free(f->run_conf);
    free(f->results);
    json_object_put(f->res);
    free(f->build);
}

/* Each line of from, with prefix in front, into to. */
static void sc__merge_prefixed(sc_diag *to, const sc_diag *from, const char *prefix)
{
    for (size_t i = 0; i < from->count; i++)
        sc_diag_addf(to, "%s%s", prefix, from->lines[i]);
}

/*
 * One run against its files: its gates recomputed, its record's claims (run.conf for one
 * run, run-<i>/run.conf for several), its object of results.json and its figures. Its log is
 * read once, parsed once within what a run of the card can print (sc_bounds.h; a log beyond
 * it is a problem, not read further), and freed before the next run's: one log in memory at
 * a time. The first run's parse is kept in first (NULL: not wanted; first->log.over_line < 0
 * when it had no log) for the attestation. Several runs: each problem starts "run-<i>: ".
 */
static int sc__verify_run(const sc_bundle *b, const sc_card *card, const sc__files *f,
                          json_object *root, size_t i, const sc_platform_files *p, sc_gates *g,
                          sc_diag *problems, sc_first_run *first)
{
    bool flat = sc_runs_flat(card);
    json_object *runs = NULL, *run = NULL;
    sc_run_files rf;
    sc_run_end e;
    sc_diag mine;
    char prefix[32];
    sc_tracelog t;
    sc_tracelog_limits lines;
    sc_interference_limits intf; /* sc_interference_load() holds the records to it */

    sc_diag_init(&mine);
    sc_run_files_read(b, card, i, &rf);
    const char *conf = flat ? f->run_conf : rf.conf;
    if (!conf && !flat)
        sc_diag_addf(&mine, "run.conf: missing");
    sc_run_end_from_conf(conf, &e);
    sc_bounds_of(card, &lines, &intf);
    int rc = sc_tracelog_parse_bounded(rf.log ? rf.log : "", &lines, &t);
    if (rc < 0) {
        sc_run_files_free(&rf);
        sc_diag_free(&mine);
        return rc;
    }
    if (t.over_line)
        sc_diag_addf(&mine,
                     "stream.log: line %ld: %s (valid: what a run of the card prints; not read "
                     "further)",
                     t.over_line, t.over_text);
    double log_best = sc__log_best_rate(rf.log ? &t : NULL);
    rc = sc_run_gates(card, &rf, &e, p, log_best, &t, g);
    if (root && json_object_object_get_ex(root, "runs", &runs) &&
        json_object_is_type(runs, json_type_array))
        run = json_object_array_get_idx(runs, i);
    if (rc == 0) {
        if (conf)
            sc__check_claims(conf, g, &mine);
        if (root && flat) {
            sc__check_results(root, &t, rf.log, card, g, log_best, &mine);
            sc_verify_matrix(b, root, &t, &mine); /* its nodes are the ranks' hosts */
        }
        if (run) {
            sc__check_results(run, &t, rf.log, card, g, log_best, &mine);
            sc_verify_interference(card, rf.interference, rf.log, run, &mine);
        } else if (root && (!flat || runs))
            sc_diag_addf(&mine, "results.json: no record of this run in \"runs\"");
        /* When it ran: run.conf (the run's own) and its object of results.json (one run: the
           top level too). */
        json_object *records[2] = {run, flat ? root : NULL};
        sc_verify_times(conf, records, 2, f->now, sc_gates_passed(g), &mine);
        if (conf)
            sc__check_conf_figures(conf, i == 0 ? f->build : NULL, card, rf.log ? &t : NULL,
                                   log_best, &mine);
        if (rf.log)
            sc__verify_derived(&t, card, &mine); /* the log's rates from its own times */
    }
    snprintf(prefix, sizeof(prefix), "run-%zu: ", i + 1);
    sc__merge_prefixed(problems, &mine, flat ? "" : prefix);
    sc_diag_free(&mine);
    if (first && i == 0) {
        first->log = t; /* the caller frees it */
        if (!rf.log)
            first->log.over_line = -1;
        else /* for the facts, which read no log again */
            sc_tracelog_stores(rf.log, lines.lines, first->stores, sizeof(first->stores));
    } else {
        sc_tracelog_free(&t);
    }
    sc_run_files_free(&rf);
    return rc;
}

/* results.json's "capture" says capture; a bundle written before it was recorded has none. */
static bool sc__capture_agrees(json_object *root, const char *capture)
{
    json_object *v;

    return !json_object_object_get_ex(root, "capture", &v) ||
           (json_object_is_type(v, json_type_string) &&
            strcmp(json_object_get_string(v), capture) == 0);
}

/* The run-<i> folders of a bundle of several runs, counted from run-1 up. */
static size_t sc__count_runs(const sc_bundle *b)
{
    char dir[32];
    size_t n = 0;

    while (n < SC_RUNS_MAX) {
        snprintf(dir, sizeof(dir), "run-%zu", n + 1);
        if (faccessat(b->dirfd, dir, F_OK, AT_SYMLINK_NOFOLLOW) < 0)
            break;
        n++;
    }
    return n;
}

/* Every run, the gates over them, the top-level claims, the statistics and the series. */
static int sc__verify_runs(const sc_bundle *b, const sc_card *card, const sc__files *f,
                           bool pair_side, sc_verify_report *out, sc_first_run *first_log)
{
    json_object *root = f->res, *schema = NULL;
    bool flat = sc_runs_flat(card);
    size_t n = flat ? 1 : sc__count_runs(b);
    sc_gates *each = calloc(n + 1, sizeof(*each));
    sc_platform_files p;
    int rc = each ? 0 : -ENOMEM;

    if (!root)
        sc_diag_addf(&out->problems, "results.json: missing or not JSON");
    sc_platform_files_read(b, &p);
    for (size_t i = 0; rc == 0 && i < n; i++)
        rc = sc__verify_run(b, card, f, root, i, &p, &each[i], &out->problems, first_log);
    if (rc == 0) {
        sc_runs_combine_gates(each, n, &out->gates);
        sc_platform_record pr = sc_platform_files_record(&p);
        if (!flat) /* one run held it in its own gates */
            sc_platform_stability(card, &pr, &out->gates.g[SC_GATE_PLATFORM_STATE]);
        long lost = -1;
        char first[256] = "?";
        /* several runs: writes outside every run (results.json, platform/after.txt) */
        if (!flat && !sc_kv_get_long(f->run_conf, "write_errors", &lost))
            sc_gate_set(&out->gates.g[SC_GATE_EVIDENCE], SC_GATE_FAIL,
                        "not supported by evidence: run.conf records no write_errors");
        else if (!flat && lost != 0) {
            sc_kv_get(f->run_conf, "write_error", first, sizeof(first));
            sc_gate_set(&out->gates.g[SC_GATE_EVIDENCE], SC_GATE_FAIL,
                        "%ld writes into the bundle failed, the first: %s", lost, first);
        }
        out->gates_computed = true;
        if (!flat) {
            sc__check_claims(f->run_conf, &out->gates, &out->problems);
            sc_tracelog none; /* the bundle's own object holds no figure of a log */
            if (root && sc_tracelog_parse("", &none) == 0) {
                sc__check_results(root, &none, "", card, &out->gates, 0, &out->problems);
                sc_tracelog_free(&none);
            }
        }
        bool v2 = root && json_object_object_get_ex(root, "schema", &schema) &&
                  json_object_get_int(schema) >= SC_RESULTS_SCHEMA;
        if (root && (v2 || !flat))
            sc_verify_stats(card, root, sc_gates_passed(&out->gates), &out->problems);
        if (!flat) {
            sc_verify_series(card, f->run_conf, root, n, sc_gates_passed(&out->gates), pair_side,
                             &out->problems);
            sc_verify_series_times(f->run_conf, f->now, root, n, &out->problems);
        }
    }
    sc_platform_files_free(&p);
    free(each);
    return rc;
}

void sc__verify_report_init(sc_verify_report *out)
{
    memset(out, 0, sizeof(*out));
    sc_diag_init(&out->problems);
    sc_diag_init(&out->attested);
}

void sc__verify_sums(const sc_bundle *b, sc_verify_report *out)
{
    sc_diag sums;

    sc_diag_init(&sums);
    sc_bundle_check_sums(b, &sums);
    out->n_hash_problems = sums.count;
    sc_diag_append(&sums, &out->problems);
    sc_diag_free(&out->problems);
    out->problems = sums;
}

int sc__verify_at(const sc_bundle *b, const sc_verify_opts *opts, sc_verify_report *out,
                  sc_first_run *first_run)
{
    sc__files f = {0};
    sc_card *card;
    int rc = 0;

    sc_diag *p = &out->problems;
    f.card_text = sc__read(b, "card.yaml", p);
    f.run_conf = sc__read(b, "run.conf", p);
    f.results = sc__read(b, "results.json", p);
    f.build = sc__read(b, "build.json", p);
    f.now = (long long)time(NULL);
    if (!f.run_conf)
        sc_diag_addf(&out->problems, "run.conf: missing");
    card = sc__check_card(&f, &out->problems);
    if (card && sc_workload_reads(card->workload, SC_CF_ARRAY_SIZE) && !card->array_size) {
        char *caches = sc_bundle_read_opt(b, "platform/caches.txt");
        if (sc_caches_resolve_card(card, caches) < 0)
            sc_diag_addf(&out->problems, "card.yaml: array_size: auto, but "
                                         "platform/caches.txt gives no size to resolve it");
        free(caches);
    }
    /* build.json parsed and released before results.json is: one 4 MiB document held as
       json-c objects at a time (doc/contracts/limits.md) */
    sc__check_build(&f, &out->problems, &first_run->build);
    if (card) /* blas: a path: the runs mapped it */
        sc_verify_blas_preload(b, card, f.build, sc_runs_flat(card) ? 1 : sc__count_runs(b), p);
    if (card) /* an MPI program's libraries: its ranks' */
        sc_verify_rank_libraries(b, card, f.build, p);
    f.res = f.results ? json_tokener_parse(f.results) : NULL;
    sc__check_finite("results.json", f.res, p);
    if (f.run_conf)
        sc__check_identity(&f, card, &out->problems);
    char side[8];
    bool pair_side = f.run_conf && sc_kv_get(f.run_conf, "pair_side", side, sizeof(side));
    if (pair_side && !(opts && opts->pair_side))
        sc_diag_addf(&out->problems,
                     "a side (%s) of a paired run: its runs end by the pair's rule (valid: "
                     "streamcard verify, compare or classify of the pair's directory)",
                     side);
    out->capture_note = sc_workload_foreign(card) ? sc_workload_capture(card) : NULL;
    if (card && f.res && !sc__capture_agrees(f.res, sc_workload_capture(card)))
        sc_diag_addf(&out->problems,
                     "results.json: capture disagrees with the card's workload "
                     "(%s)",
                     sc_workload_capture(card));
    if (card) {
        /* the first run's log as parsed; over_line -1: it has none */
        const sc_tracelog *first = &first_run->log;
        rc = sc__verify_runs(b, card, &f, pair_side, out, first_run);
        first_run->parsed = rc == 0;
        bool has_log = first->over_line >= 0;
        out->log_best_rate_MBps = sc__log_best_rate(has_log ? first : NULL);
        if (rc == 0 && out->gates_computed) {
            /* run.conf and results.json say what the bundle's readback shows (checked
               above); the gate itself holds only on what root signed. The runs share the
               platform and its statements; the first run's log names the ranks' hosts. */
            sc_verify_attest_in ain = {.b = b,
                                       .card = card,
                                       .card_text = f.card_text,
                                       .run_conf = f.run_conf ? f.run_conf : "",
                                       .log = has_log ? first : NULL,
                                       .opts = opts};
            sc_gate readback = out->gates.g[SC_GATE_PLATFORM_STATE];
            sc_verify_attest(&ain, &out->gates.g[SC_GATE_PLATFORM_STATE], &out->problems,
                             &out->attested, out->attested_host, sizeof(out->attested_host));
            sc_verify_readback(b, card, &readback, &out->gates.g[SC_GATE_PLATFORM_STATE],
                               &out->problems, &out->attested);
            sc_platform_files pf; /* what root signed says nothing of the run's end */
            sc_platform_files_read(b, &pf);
            sc_platform_record pr = sc_platform_files_record(&pf);
            sc_platform_stability(card, &pr, &out->gates.g[SC_GATE_PLATFORM_STATE]);
            sc_platform_files_free(&pf);
        }
    }
    sc_card_free(card);
    first_run->results = f.res; /* for the facts (sc__first_run_free() else) */
    first_run->json_given = true;
    f.res = NULL;
    sc__files_free(&f);
    return rc < 0 ? rc : 0;
}

void sc_verify_report_free(sc_verify_report *r)
{
    if (r) {
        sc_diag_free(&r->problems);
        sc_diag_free(&r->attested);
    }
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
        size_t n = r->problems.count + r->problems.more;
        snprintf(buf, len, "%zu problem%s (%s%s)", n, n == 1 ? "" : "s", r->problems.lines[0],
                 n > 1 ? "; ..." : "");
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
