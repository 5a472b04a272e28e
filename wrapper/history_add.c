/*
 * history_add.c: `streamcard history add BUNDLE|DIR...` (doc/contracts/analysis.md, "History"):
 * each bundle verified as every analysis command does (sc_analysis_load()), refused with why
 * when it is not intact, else put into the store as one record: its identity (the digest of
 * its SHA256SUMS), card, host, times, verdict, gates and attestation, its controlled
 * variables and env, and, when every gate held, each metric's runs with their median and
 * interval; a link matrix adds its per-node and per-link figures and verdicts. A DIR that
 * is not a bundle is searched one level down for bundles (a runs/ folder).
 */
#include "analysis.h"
#include "cli.h"
#include "history.h"
#include "history_cli.h"

#include "sc_bundle.h"
#include "sc_hash.h"
#include "sc_linkmatrix.h"
#include "sc_runs.h"
#include "sc_text.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The digest that names a bundle in the store: SHA-256 of its SHA256SUMS. */
static int sc__digest(const char *path, char hex[SC_HASH_HEX_LEN + 1])
{
    sc_bundle b;
    int rc = sc_bundle_open(&b, path);

    if (rc < 0)
        return rc;
    rc = sc_bundle_hash(&b, SC_BUNDLE_SUMS, hex);
    sc_bundle_close(&b);
    return rc;
}

/* Everything a record points to, owned here. */
typedef struct sc__rec {
    sc_history_record r;
    sc_history_var vars[SC_FACTS_MAX_VARS];
    sc_history_gate gates[SC_GATE_COUNT];
    sc_history_figure figs[SC_METRIC_MAX];
    double *samples[SC_METRIC_MAX];
    sc_metric metrics[SC_METRIC_MAX];
    sc_history_cell *cells;
    char cell_metric[2][SC_METRIC_NAME_MAX];
    char attested[1024], path[4096], card_hash[SC_HASH_HEX_LEN + 1];
    sc_linkmatrix_data matrix;
    bool has_matrix;
} sc__rec;

static void sc__rec_free(sc__rec *x)
{
    for (size_t i = 0; i < SC_METRIC_MAX; i++)
        free(x->samples[i]);
    free(x->cells);
    if (x->has_matrix)
        sc_linkmatrix_data_free(&x->matrix);
}

static const char *sc__gate_state(sc_gate_state s)
{
    return s == SC_GATE_OK ? "ok" : s == SC_GATE_NULL ? "na" : "failed";
}

/* Each metric the bundle holds: its runs, their median and interval. */
static int sc__figures(sc__rec *x, const sc_bundle_facts *f)
{
    size_t n = sc_facts_available(f, x->metrics, SC_METRIC_MAX);

    for (size_t i = 0; i < n; i++) {
        const sc_metric *m = &x->metrics[i];
        sc_history_figure *g = &x->figs[x->r.n_figures];
        sc_stats s;
        double *v = malloc(SC_RUNS_MAX * sizeof(*v));
        if (!v)
            return -ENOMEM;
        size_t runs = sc_metric_samples(m, f->results, v, SC_RUNS_MAX);
        if (runs == 0 || sc_stats_describe(v, runs, &s) < 0) {
            free(v);
            continue;
        }
        x->samples[x->r.n_figures] = v;
        *g = (sc_history_figure){.metric = m->name,
                                 .unit = m->unit,
                                 .better = m->better == SC_METRIC_HIGHER ? "higher" : "lower",
                                 .runs = runs,
                                 .median = s.median,
                                 .ci = s.ci,
                                 .ci_low = s.ci_low,
                                 .ci_high = s.ci_high,
                                 .samples = v};
        x->r.n_figures++;
    }
    return 0;
}

/* The mean of the two readings of pair i-j (NaN when neither is finite). */
static double sc__pair(const double *grid, size_t n, size_t i, size_t j)
{
    double a = grid[i * n + j], b = grid[j * n + i];

    if (isfinite(a) && isfinite(b))
        return (a + b) / 2;
    return isfinite(a) ? a : b;
}

static int sc__cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One metric of the matrix (the latency at the smallest size or the bandwidth at the
   largest): every node's median over its pairs and every pair's figure, each with health's
   verdict (a node "drain" when the passes' vote holds, "suspect" when only some name it). */
static int sc__matrix_metric(sc__rec *x, bool latency, const sc_card *card, int which)
{
    const sc_linkmatrix_data *d = &x->matrix;
    size_t n = d->n, s = latency ? 0 : d->n_sizes - 1;
    const double *g = (latency ? d->t_usec : d->MBps) + s * n * n;
    sc_linkmatrix_votes v;
    char size[24];
    double *row = malloc(n * sizeof(*row));
    int rc = row ? sc_analysis_matrix_votes(d, latency, card, &v) : -ENOMEM;

    if (rc < 0) {
        free(row);
        return rc;
    }
    sc_metric_size_name(d->bytes[s], size, sizeof(size));
    snprintf(x->cell_metric[which], sizeof(x->cell_metric[which]), "%s_%s",
             latency ? "latency" : "bw", size);
    for (size_t i = 0; i < n; i++) {
        size_t k = 0;
        for (size_t j = 0; j < n; j++) {
            double p = j == i ? NAN : sc__pair(g, n, i, j);
            if (isfinite(p))
                row[k++] = p;
            if (j > i && isfinite(p)) {
                const char *verdict = "ok";
                for (size_t f = 0; f < v.n; f++)
                    if (v.votes[f].f.kind == SC_LINKMATRIX_LINK && v.votes[f].f.a == i &&
                        v.votes[f].f.b == j)
                        verdict = "suspect";
                x->cells[x->r.n_cells++] = (sc_history_cell){.metric = x->cell_metric[which],
                                                             .a = d->nodes[i],
                                                             .b = d->nodes[j],
                                                             .value = p,
                                                             .verdict = verdict};
            }
        }
        if (k == 0)
            continue;
        qsort(row, k, sizeof(*row), sc__cmp_double);
        const char *verdict = "ok";
        for (size_t f = 0; f < v.n; f++)
            if (v.votes[f].f.kind == SC_LINKMATRIX_NODE && v.votes[f].f.a == i)
                verdict = sc_linkmatrix_vote_holds(&v.votes[f], v.passes) ? "drain" : "suspect";
        x->cells[x->r.n_cells++] =
            (sc_history_cell){.metric = x->cell_metric[which],
                              .a = d->nodes[i],
                              .b = NULL,
                              .value = k % 2 ? row[k / 2] : (row[k / 2 - 1] + row[k / 2]) / 2,
                              .verdict = verdict};
    }
    sc_linkmatrix_votes_free(&v);
    free(row);
    return 0;
}

/* A link matrix's cells (a bundle of pairs: all), judged as `streamcard health` does. */
static int sc__matrix(sc__rec *x, const sc_bundle_facts *f)
{
    char why[256];
    int rc = sc_analysis_matrix_load(f, &x->matrix, why, sizeof(why));

    if (rc == -ENOENT || rc == -EINVAL)
        return 0; /* no matrix, or one health refuses: no cells */
    if (rc < 0)
        return rc;
    x->has_matrix = true;
    size_t n = x->matrix.n;
    if (!(x->cells = calloc(2 * (n * (n - 1) / 2 + n) + 1, sizeof(*x->cells))))
        return -ENOMEM;
    sc_card *card = sc_card_new();
    if (!card)
        return -ENOMEM;
    sc_analysis_link_bounds(f, card);
    const char *kernel = sc_facts_get(f, "kernel");
    bool pingpong = !kernel || strcmp(kernel, "uniband") != 0;
    rc = pingpong ? sc__matrix_metric(x, true, card, 0) : 0;
    if (rc == 0)
        rc = sc__matrix_metric(x, false, card, 1);
    sc_card_free(card);
    return rc;
}

/* The record of a loaded bundle. */
static int sc__record(sc__rec *x, const sc_analysis_bundle *ab, const char *digest)
{
    const sc_bundle_facts *f = &ab->facts;
    const char *kernel = sc_facts_get(f, "kernel"),
               *version = sc_facts_get(f, "streamcard_version");
    char real[4096];
    int rc;

    memset(x, 0, sizeof(*x));
    if (realpath(ab->path, real))
        sc_text_escape(x->path, sizeof(x->path), real, strlen(real));
    else
        snprintf(x->path, sizeof(x->path), "%s", ab->arg);
    if (!f->card_text || sc_hash_buf(f->card_text, strlen(f->card_text), x->card_hash) < 0)
        x->card_hash[0] = '\0';
    for (size_t i = 0, used = 0; i < ab->verify.attested.count && used < sizeof(x->attested); i++)
        used += (size_t)snprintf(x->attested + used, sizeof(x->attested) - used, "%s%s",
                                 i ? "; " : "", ab->verify.attested.lines[i]);
    x->r = (sc_history_record){.digest = digest,
                               .name = f->name,
                               .path = x->path,
                               .card = f->run_name,
                               .card_sha256 = x->card_hash,
                               .workload = sc_workload_name(f->workload),
                               .kernel = kernel && strcmp(kernel, "n/a") ? kernel : "",
                               .host = f->host,
                               .verdict = ab->usable ? "ok" : "failed",
                               .attested = x->attested,
                               .streamcard_version = version ? version : "",
                               .owner_uid = f->owner_uid,
                               .started_at = sc_facts_epoch(f->started_at),
                               .ended_at = sc_facts_epoch(f->ended_at),
                               .usable = ab->usable,
                               .vars = x->vars,
                               .n_vars = f->n_vars,
                               .env = (const char *const *)f->env,
                               .n_env = f->n_env,
                               .gates = x->gates,
                               .figures = x->figs};
    for (size_t i = 0; i < f->n_vars; i++)
        x->vars[i] = (sc_history_var){f->vars[i].name, f->vars[i].group, f->vars[i].value,
                                      f->vars[i].follows};
    for (int i = 0; ab->verify.gates_computed && i < SC_GATE_COUNT; i++) {
        const sc_gate *g = &ab->verify.gates.g[i];
        x->gates[x->r.n_gates++] =
            (sc_history_gate){sc_gate_name((sc_gate_id)i), sc__gate_state(g->state), g->note};
    }
    /* A failed run's figures are not to be used: its verdict and gates only. */
    if (!ab->usable)
        return 0;
    if ((rc = sc__figures(x, f)) < 0 || (rc = sc__matrix(x, f)) < 0)
        return rc;
    x->r.cells = x->cells;
    return 0;
}

/* Adds one bundle; its line on stdout or stderr. Returns the exit status it asks for. */
static int sc__add_bundle(sc_history *h, const char *path, const sc_history_add_opts *o)
{
    static const sc_analysis_cmd cmd = {.name = "history add"};
    sc_analysis_bundle *ab = calloc(1, sizeof(*ab));
    char before[SC_HASH_HEX_LEN + 1], after[SC_HASH_HEX_LEN + 1];
    int status = SC_EXIT_OK, rc;
    sc__rec *x = calloc(1, sizeof(*x));

    if (!ab || !x) {
        free(ab);
        free(x);
        return SC_EXIT_ERROR;
    }
    rc = sc__digest(path, before);
    sc_analysis_load_named(&cmd, ab, path, &status);
    if (rc == 0 && ab->loaded)
        rc = sc__digest(path, after);
    if (!ab->loaded || rc < 0) {
        fprintf(stderr, "streamcard: history add: %s: %s (valid: a bundle directory)\n", ab->arg,
                ab->loaded ? strerror(-rc) : ab->why);
        status = SC_EXIT_FAILED;
    } else if (!sc_verify_intact(&ab->verify) || !ab->verify.gates_computed) {
        fprintf(stderr,
                "streamcard: history add: %s: refused: %s (valid: a bundle that streamcard "
                "verify finds intact)\n",
                ab->arg, ab->why);
        status = SC_EXIT_FAILED;
    } else if (strcmp(before, after) != 0) {
        fprintf(stderr,
                "streamcard: history add: %s: refused: SHA256SUMS changed while it was "
                "read (valid: a finished bundle)\n",
                ab->arg);
        status = SC_EXIT_FAILED;
    } else if ((rc = sc__record(x, ab, after)) < 0) {
        fprintf(stderr, "streamcard: history add: %s: %s\n", ab->arg, strerror(-rc));
        status = SC_EXIT_ERROR;
    } else if ((rc = sc_history_put(h, &x->r)) < 0) {
        fprintf(stderr, "streamcard: history add: %s: %s: %s\n", ab->arg, o->db,
                sc_history_error(h));
        status = SC_EXIT_ERROR;
    } else if (!o->quiet) {
        printf("%s %s%s%s\n", rc == 1 ? "added" : "already there", ab->arg,
               ab->usable ? "" : ": failed gates, no figures: ", ab->usable ? "" : ab->why);
    }
    if (status == SC_EXIT_OK)
        o->counts[rc == 1 ? 0 : 1]++;
    else
        o->counts[2]++;
    sc__rec_free(x);
    free(x);
    sc_analysis_free(ab);
    free(ab);
    return status;
}

static bool sc__is_bundle(const char *path)
{
    char sums[4096];
    struct stat st;

    snprintf(sums, sizeof(sums), "%s/%s", path, SC_BUNDLE_SUMS);
    return lstat(sums, &st) == 0;
}

static int sc__cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A folder of bundles: each bundle one level down, in name order. */
static int sc__add_dir(sc_history *h, const char *dir, const sc_history_add_opts *o)
{
    DIR *d = opendir(dir);
    char **names = NULL;
    size_t n = 0, cap = 0;
    int status = SC_EXIT_OK;
    struct dirent *e;

    if (!d) {
        fprintf(stderr, "streamcard: history add: %s: %s (valid: a bundle or a folder of them)\n",
                dir, strerror(errno));
        return SC_EXIT_FAILED;
    }
    while ((e = readdir(d))) {
        char *p;
        if (e->d_name[0] == '.' || asprintf(&p, "%s/%s", dir, e->d_name) < 0)
            continue;
        if (n == cap) {
            char **grown = realloc(names, (cap ? 2 * cap : 64) * sizeof(*names));
            if (!grown) {
                free(p);
                break;
            }
            names = grown;
            cap = cap ? 2 * cap : 64;
        }
        if (sc__is_bundle(p))
            names[n++] = p;
        else
            free(p);
    }
    closedir(d);
    if (n)
        qsort(names, n, sizeof(*names), sc__cmp_str);
    for (size_t i = 0; i < n; i++) {
        int one = sc__add_bundle(h, names[i], o);
        if (one > status)
            status = one;
        free(names[i]);
    }
    free(names);
    if (n == 0)
        fprintf(stderr,
                "streamcard: history add: %s: no bundle in it (valid: a bundle or a folder "
                "of them)\n",
                dir);
    return n ? status : SC_EXIT_FAILED;
}

int sc_history_add(sc_history *h, char **paths, size_t n, const sc_history_add_opts *o)
{
    int status = SC_EXIT_OK;

    for (size_t i = 0; i < n; i++) {
        int one =
            sc__is_bundle(paths[i]) ? sc__add_bundle(h, paths[i], o) : sc__add_dir(h, paths[i], o);
        if (one > status)
            status = one;
    }
    return status;
}
