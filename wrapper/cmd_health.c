/*
 * cmd_health.c: `streamcard health BUNDLE...`: the nodes to drain and the suspect links of
 * a partition, from bundles of mpi-pingpong with pairs: all (doc/design.md, "Link matrix").
 * Each bundle is verified first; its matrix is judged on the latency at the smallest size
 * (kernel pingpong) and the bandwidth at the largest, with the card's outlier_mad and
 * outlier_min_pct. One line per node or link, its reasons joined; exit 0 when none.
 */
#include "analysis.h"
#include "cli.h"
#include "sc_card.h"
#include "sc_linkmatrix.h"
#include "sc_pairs.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void sc__health_usage(FILE *out)
{
    fprintf(out,
            "usage: streamcard health BUNDLE...\n"
            "\n"
            "Names the nodes to drain and the suspect links in bundles of mpi-pingpong with\n"
            "pairs: all (a link matrix), one per line with the reason and the figures:\n"
            "  drain NODE: <metric> <its median over its pairs>, <n>%% worse than the nodes'\n"
            "        median <m>\n"
            "  link NODE NODE: <metric> <value>, <n>%% worse than the <m> the two reach with\n"
            "        the other nodes\n"
            "  check NODE: no measurement: check node (none of its pairs has a figure)\n"
            "  missing NODE NODE: no figure, though the schedule planned the pair (round r)\n"
            "The matrix must name the hosts the ranks ran on (verify refuses it otherwise),\n"
            "each once. A node is judged by the median of its pairs, a link against what its\n"
            "two nodes do with the others; each must lie beyond the card's outlier_mad MADs\n"
            "(default 3) and be at least outlier_min_pct %% worse (default 20). Metrics: the\n"
            "latency at the smallest size (kernel pingpong) and the bandwidth at the largest.\n"
            "\n"
            "Exit status: 0 nothing to drain, no suspect link and every pair measured, 1 some\n"
            "(or a bundle refused by verify, or with fewer than 4 nodes: cannot judge), 2\n"
            "usage, a bundle that cannot be opened or holds no link matrix (or a malformed\n"
            "one, or a node named twice).\n");
}

static int sc__health_option(void *ctx, int c, const char *arg)
{
    (void)ctx;
    (void)c;
    (void)arg;
    return SC_EXIT_USAGE; /* no options but --help */
}

static int sc__health_check(void *ctx, size_t n)
{
    (void)ctx;
    if (n > 0)
        return SC_ANALYSIS_GO_ON;
    fprintf(stderr, "streamcard: health: no bundle (valid: streamcard health BUNDLE...)\n");
    return SC_EXIT_USAGE;
}

/* One node or link named, with the reasons of every metric that named it. */
typedef struct sc__suspect {
    sc_linkmatrix_kind kind;
    size_t a, b;
    char why[512];
} sc__suspect;

typedef struct sc__suspects {
    sc__suspect *s;
    size_t n, cap;
} sc__suspects;

static sc__suspect *sc__suspect_get(sc__suspects *all, const sc_linkmatrix_finding *f)
{
    for (size_t i = 0; i < all->n; i++)
        if (all->s[i].kind == f->kind && all->s[i].a == f->a && all->s[i].b == f->b)
            return &all->s[i];
    if (all->n == all->cap) {
        size_t want = all->cap ? all->cap * 2 : 8;
        sc__suspect *grown = realloc(all->s, want * sizeof(*grown));
        if (!grown)
            return NULL;
        all->s = grown;
        all->cap = want;
    }
    all->s[all->n] = (sc__suspect){.kind = f->kind, .a = f->a, .b = f->b};
    return &all->s[all->n++];
}

/* The findings of one metric (size s of grid) into all. Returns 0, 1 (cannot judge) or -errno. */
static int sc__judge(const sc_linkmatrix_data *d, const double *grid, size_t s, bool latency,
                     const sc_card *card, sc__suspects *all, size_t *n_nodes)
{
    sc_linkmatrix_verdict v;
    char metric[48], size[24];
    const char *unit = latency ? "us" : "MB/s";
    int rc = sc_linkmatrix_judge(grid + s * d->n * d->n, d->n,
                                 latency ? SC_LINKMATRIX_LOWER : SC_LINKMATRIX_HIGHER,
                                 card->outlier_mad, card->outlier_min_pct, &v);

    if (rc < 0)
        return rc;
    *n_nodes = v.n_nodes;
    sc_metric_size_name(d->bytes[s], size, sizeof(size));
    snprintf(metric, sizeof(metric), "%s_%s", latency ? "latency" : "bw", size);
    for (size_t i = 0; rc == 0 && i < v.n; i++) {
        const sc_linkmatrix_finding *f = &v.findings[i];
        sc__suspect *one = sc__suspect_get(all, f);
        size_t used = one ? strlen(one->why) : 0;

        if (!one) {
            rc = -ENOMEM;
            break;
        }
        snprintf(one->why + used, sizeof(one->why) - used, "%s", used ? "; " : "");
        used += strlen(one->why + used);
        sc_analysis_finding_text(f, metric, unit, one->why + used, sizeof(one->why) - used);
    }
    if (rc == 0 && !v.judged)
        rc = 1;
    sc_linkmatrix_verdict_free(&v);
    return rc;
}

#define SC__HEALTH_MISSING_SHOWN 20 /* missing pairs named one by one; the rest counted */

/* Pair i-j has a figure in grid (either reading). */
static bool sc__has(const double *grid, size_t n, size_t i, size_t j)
{
    return isfinite(grid[i * n + j]) || isfinite(grid[j * n + i]);
}

/*
 * Every pair the schedule planned (pairs: all: every pair) has its figures in the judged
 * grids (a, and b unless NULL), or is named: a node none of whose pairs has one is "no
 * measurement: check node" (its pairs are not listed again), any other pair without one
 * "missing", with the round the schedule (sc_pairs.h) planned it in. Returns how many lines.
 */
static size_t sc__coverage(const sc_linkmatrix_data *d, const double *a, const double *b,
                           const char *bundle)
{
    size_t n = d->n, named = 0, missing = 0, rounds = sc_pairs_rounds(n);
    size_t *have = calloc(n, sizeof(*have));

    if (!have)
        return 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            if (sc__has(a, n, i, j) && (!b || sc__has(b, n, i, j))) {
                have[i]++;
                have[j]++;
            }
    for (size_t i = 0; i < n; i++)
        if (have[i] == 0) {
            printf("check %s: no measurement: check node (none of its %zu pairs has a figure) "
                   "[%s]\n",
                   d->nodes[i], n - 1, bundle);
            named++;
        }
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n && have[i]; j++) {
            if (!have[j] || (sc__has(a, n, i, j) && (!b || sc__has(b, n, i, j))))
                continue;
            if (missing++ >= SC__HEALTH_MISSING_SHOWN)
                continue;
            size_t r = 0;
            while (r < rounds && sc_pairs_partner(n, r, i) != (long)j)
                r++;
            printf("missing %s %s: no figure, though the schedule planned the pair (round %zu "
                   "of %zu) [%s]\n",
                   d->nodes[i], d->nodes[j], r + 1, rounds, bundle);
            named++;
        }
    if (missing > SC__HEALTH_MISSING_SHOWN) {
        printf("missing: %zu more pairs without a figure [%s]\n",
               missing - SC__HEALTH_MISSING_SHOWN, bundle);
        named++;
    }
    free(have);
    return named;
}

/* One bundle: its lines, and the exit status it asks for (0, 1 or 2). */
static int sc__health_bundle(const sc_analysis_bundle *ab)
{
    sc_linkmatrix_data d;
    sc__suspects all = {0};
    sc_card *card = sc_card_new();
    char why[256];
    size_t n_nodes = 0;
    int rc, status = SC_EXIT_OK;

    rc = card ? sc_analysis_matrix_load(&ab->facts, &d, why, sizeof(why)) : -ENOMEM;
    if (rc == -ENOENT || rc == -EINVAL) {
        const char *said = rc == -ENOENT ? "no link matrix" : why;
        fprintf(stderr, "streamcard: health: %s: %s%s\n", ab->arg_shown, said,
                strstr(said, "(valid: ") ? ""
                                         : " (valid: a bundle of mpi-pingpong with pairs: all)");
        sc_card_free(card);
        return SC_EXIT_USAGE;
    }
    if (rc == 0) {
        json_object *kernel = NULL;
        bool pingpong = !json_object_object_get_ex(ab->facts.results, "kernel", &kernel) ||
                        strcmp(json_object_get_string(kernel), "uniband") != 0;
        sc_analysis_link_bounds(&ab->facts, card);
        if (sc__coverage(&d, d.MBps + (d.n_sizes - 1) * d.n * d.n, pingpong ? d.t_usec : NULL,
                         ab->facts.name))
            status = SC_EXIT_FAILED;
        rc = pingpong ? sc__judge(&d, d.t_usec, 0, true, card, &all, &n_nodes) : 0;
        if (rc >= 0) {
            int bw = sc__judge(&d, d.MBps, d.n_sizes - 1, false, card, &all, &n_nodes);
            rc = bw < 0 ? bw : (rc > 0 ? rc : bw);
        }
    }
    if (rc < 0) {
        fprintf(stderr, "streamcard: health: %s: %s\n", ab->arg_shown, strerror(-rc));
        status = SC_EXIT_ERROR;
    } else if (rc == 1) {
        fprintf(stderr,
                "streamcard: health: %s: cannot judge: %zu nodes measured (valid: 4 or more)\n",
                ab->arg_shown, n_nodes);
        status = SC_EXIT_FAILED;
    }
    for (size_t i = 0; rc == 0 && i < all.n; i++) {
        const sc__suspect *s = &all.s[i];
        if (s->kind == SC_LINKMATRIX_NODE)
            printf("drain %s: %s [%s]\n", d.nodes[s->a], s->why, ab->facts.name);
        else
            printf("link %s %s: %s [%s]\n", d.nodes[s->a], d.nodes[s->b], s->why, ab->facts.name);
        status = SC_EXIT_FAILED;
    }
    free(all.s);
    sc_linkmatrix_data_free(&d);
    sc_card_free(card);
    return status;
}

int sc_cmd_health(int argc, char **argv)
{
    static const struct option opts[] = {{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
    static const sc_analysis_cmd cmd = {.name = "health",
                                        .short_opts = ":h",
                                        .long_opts = opts,
                                        .usage = sc__health_usage,
                                        .usage_status = SC_EXIT_USAGE,
                                        .option = sc__health_option,
                                        .check = sc__health_check,
                                        .unreadable_hint = " (valid: a bundle directory)",
                                        .unreadable_status = SC_EXIT_USAGE,
                                        .refused_hint = " (its figures are not judged)"};
    sc_analysis_bundle *ab = calloc(1, sizeof(*ab));
    int status, first;

    if (!ab)
        return SC_EXIT_ERROR;
    if (!sc_analysis_options(&cmd, argc, argv, NULL, &first, &status)) {
        free(ab);
        return status;
    }
    for (int i = first; i < argc; i++) {
        sc_analysis_load_named(&cmd, ab, argv[i], &status);
        if (ab->loaded && ab->usable) {
            int one = sc__health_bundle(ab);
            if (one > status)
                status = one;
        }
        sc_analysis_free(ab);
    }
    free(ab);
    return status;
}
