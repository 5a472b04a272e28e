/*
 * cmd_health.c: `streamcard health BUNDLE...`: the nodes to drain and the suspect links of
 * a partition, from bundles of mpi-pingpong with pairs: all (doc/contracts/analysis.md, "Link
 * matrix"). Each bundle is verified first; its matrix is judged on the latency at the smallest size
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
            "usage: streamcard health [--guard] BUNDLE...\n"
            "\n"
            "Names the nodes to drain and the suspect links in bundles of mpi-pingpong with\n"
            "pairs: all (a link matrix), one per line with the reason and the figures:\n"
            "  drain NODE: <metric> <its median over its pairs>, <n>%% worse than the nodes'\n"
            "        median <m>\n"
            "  link NODE NODE: <metric> <value>, <n>%% worse than the <m> the two reach with\n"
            "        the other nodes\n"
            "  suspect NODE: re-test: ..., suspect link NODE NODE: re-test: ...: what\n"
            "        some passes name and not all (the vote below)\n"
            "  check NODE: no measurement: check node (none of its pairs has a figure)\n"
            "  missing NODE NODE: no figure, though the schedule planned the pair (round r)\n"
            "The matrix must name the hosts the ranks ran on (verify refuses it otherwise),\n"
            "each once. A node is judged by the median of its pairs, a link against what its\n"
            "two nodes do with the others; each must lie beyond the card's outlier_mad MADs\n"
            "(default 3) and be at least outlier_min_pct %% worse (default 20). Metrics: the\n"
            "latency at the smallest size (kernel pingpong) and the bandwidth at the largest.\n"
            "The card's passes (default 3) vote: the matrix is judged on each pair's median\n"
            "over the passes and on every pass alone; a node is to drain (a link named) only\n"
            "when the medians and every pass name it, with a confidence of at least\n"
            "1 - 0.5^passes (87.5%% at 3 passes; a healthy node named by chance in a pass at\n"
            "most every other time); one pass cannot drain anything. The drain lines are what\n"
            "an admin may act on automatically; a suspect is re-tested.\n"
            "\n"
            "--guard: the bundles are checks of one partition at different times (3 or\n"
            "more): a node or link is named to drain or as a link only when every bundle\n"
            "judged drains it (its passes' vote holds); what only some do is \"suspect ...:\n"
            "re-test\".\n"
            "\n"
            "Exit status: 0 nothing to drain, no suspect link and every pair measured, 1 some\n"
            "(or a bundle refused by verify, or with fewer than 4 nodes: cannot judge), 2\n"
            "usage, a bundle that cannot be opened or holds no link matrix (or a malformed\n"
            "one, or a node named twice).\n");
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
    char why[768];
    bool holds; /* the passes' vote holds for one of its metrics at least */
    /* --guard: the nodes by name (bundles may list them in other orders), how many bundles
       named it, and the first of them */
    char a_name[256], b_name[256], bundle[256];
    size_t times, suspect; /* bundles whose passes' vote held, and that named it else */
} sc__suspect;

typedef struct sc__suspects {
    sc__suspect *s;
    size_t n, cap;
} sc__suspects;

/* --guard: what every bundle named, across the bundles of one partition. */
typedef struct sc__guard {
    bool on;
    size_t judged;   /* bundles judged */
    char *nodes;     /* the first judged bundle's node names, sorted, one per line */
    char first[256]; /* that bundle's name */
    sc__suspects named;
} sc__guard;

static int sc__health_option(void *ctx, int c, const char *arg)
{
    sc__guard *g = ctx;

    (void)arg;
    if (c != 'g')
        return SC_EXIT_USAGE;
    g->on = true;
    return SC_ANALYSIS_GO_ON;
}

/* A new, zeroed entry at the end of all; NULL: out of memory. */
static sc__suspect *sc__suspect_push(sc__suspects *all)
{
    if (all->n == all->cap) {
        size_t want = all->cap ? all->cap * 2 : 8;
        sc__suspect *grown = realloc(all->s, want * sizeof(*grown));
        if (!grown)
            return NULL;
        all->s = grown;
        all->cap = want;
    }
    all->s[all->n] = (sc__suspect){0};
    return &all->s[all->n++];
}

static sc__suspect *sc__suspect_get(sc__suspects *all, const sc_linkmatrix_finding *f)
{
    sc__suspect *one;

    for (size_t i = 0; i < all->n; i++)
        if (all->s[i].kind == f->kind && all->s[i].a == f->a && all->s[i].b == f->b)
            return &all->s[i];
    if ((one = sc__suspect_push(all)))
        *one = (sc__suspect){.kind = f->kind, .a = f->a, .b = f->b};
    return one;
}

/* The findings of one metric (the latency at the smallest size or the bandwidth at the
   largest) into all, each with how the passes voted; a finding holds when any metric's vote
   does. Returns 0, 1 (cannot judge) or -errno. */
static int sc__judge(const sc_linkmatrix_data *d, bool latency, const sc_card *card,
                     sc__suspects *all, size_t *n_nodes)
{
    sc_linkmatrix_votes v;
    char metric[48], size[24], vote[128];
    const char *unit = latency ? "us" : "MB/s";
    int rc = sc_analysis_matrix_votes(d, latency, card, &v);

    if (rc < 0)
        return rc;
    *n_nodes = v.n_nodes;
    sc_metric_size_name(d->bytes[latency ? 0 : d->n_sizes - 1], size, sizeof(size));
    snprintf(metric, sizeof(metric), "%s_%s", latency ? "latency" : "bw", size);
    for (size_t i = 0; rc == 0 && i < v.n; i++) {
        const sc_linkmatrix_vote *f = &v.votes[i];
        sc__suspect *one = sc__suspect_get(all, &f->f);
        size_t used = one ? strlen(one->why) : 0;

        if (!one) {
            rc = -ENOMEM;
            break;
        }
        one->holds |= sc_linkmatrix_vote_holds(f, v.passes);
        snprintf(one->why + used, sizeof(one->why) - used, "%s", used ? "; " : "");
        used += strlen(one->why + used);
        sc_analysis_finding_text(&f->f, metric, unit, one->why + used, sizeof(one->why) - used);
        used += strlen(one->why + used);
        sc_analysis_vote_text(f, v.passes, vote, sizeof(vote));
        snprintf(one->why + used, sizeof(one->why) - used, " (%s)", vote);
    }
    if (rc == 0 && !v.judged)
        rc = 1;
    sc_linkmatrix_votes_free(&v);
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

static int sc__cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* d's node names, sorted, one per line (malloc'd; NULL: out of memory). */
static char *sc__node_set(const sc_linkmatrix_data *d)
{
    const char **sorted = malloc((d->n ? d->n : 1) * sizeof(*sorted));
    size_t len = 1;
    char *out = NULL;

    for (size_t i = 0; sorted && i < d->n; i++) {
        sorted[i] = d->nodes[i];
        len += strlen(d->nodes[i]) + 1;
    }
    if (sorted && (out = malloc(len))) {
        qsort(sorted, d->n, sizeof(*sorted), sc__cmp_str);
        *out = '\0';
        for (size_t i = 0, at = 0; i < d->n; i++)
            at += (size_t)sprintf(out + at, "%s\n", sorted[i]);
    }
    free(sorted);
    return out;
}

/*
 * --guard: bundle's findings (names filled) counted into g, matched by kind and names. Its
 * nodes must be those of the first bundle judged: one partition. Returns 0, or the exit
 * status of a bundle of other nodes (said) or of running out of memory.
 */
static int sc__guard_add(sc__guard *g, const sc_linkmatrix_data *d, const sc__suspects *all,
                         const char *bundle)
{
    char *set = sc__node_set(d);

    if (!set)
        return SC_EXIT_ERROR;
    if (g->nodes && strcmp(g->nodes, set) != 0) {
        fprintf(stderr,
                "streamcard: health: --guard: %s measured other nodes than %s (valid: bundles "
                "of one partition, its nodes in any order)\n",
                bundle, g->first);
        free(set);
        return SC_EXIT_USAGE;
    }
    if (!g->nodes) {
        g->nodes = set;
        snprintf(g->first, sizeof(g->first), "%s", bundle);
    } else {
        free(set);
    }
    g->judged++;
    for (size_t i = 0; i < all->n; i++) {
        const sc__suspect *f = &all->s[i];
        sc__suspect *mine = NULL;
        for (size_t k = 0; k < g->named.n && !mine; k++)
            if (g->named.s[k].kind == f->kind && !strcmp(g->named.s[k].a_name, f->a_name) &&
                !strcmp(g->named.s[k].b_name, f->b_name))
                mine = &g->named.s[k];
        if (!mine) {
            if (!(mine = sc__suspect_push(&g->named)))
                return SC_EXIT_ERROR;
            *mine = *f;
            mine->times = mine->suspect = 0;
            snprintf(mine->bundle, sizeof(mine->bundle), "%s", bundle);
        }
        if (f->holds)
            mine->times++;
        else
            mine->suspect++;
    }
    return 0;
}

/* --guard's lines: drain and link for what every bundle judged named, "suspect ...: re-test"
   for what only some did. Returns the exit status. */
static int sc__guard_print(const sc__guard *g)
{
    int status = SC_EXIT_OK;

    if (g->judged < 2) {
        fprintf(stderr,
                "streamcard: health: --guard: %zu bundle%s judged (valid: 2 or more of one "
                "partition, measured at different times; 3 or more to trust)\n",
                g->judged, g->judged == 1 ? "" : "s");
        return SC_EXIT_USAGE;
    }
    for (size_t i = 0; i < g->named.n; i++) {
        const sc__suspect *s = &g->named.s[i];
        bool every = s->times == g->judged;
        char who[540];

        if (s->kind == SC_LINKMATRIX_NODE)
            snprintf(who, sizeof(who), "%s%s", every ? "drain " : "suspect ", s->a_name);
        else
            snprintf(who, sizeof(who), "%slink %s %s", every ? "" : "suspect ", s->a_name,
                     s->b_name);
        if (every)
            printf("%s: %s [all %zu bundles]\n", who, s->why, g->judged);
        else
            printf("%s: re-test: held in %zu of %zu bundles, a suspect in %zu, first %s: %s\n",
                   who, s->times, g->judged, s->suspect, s->bundle, s->why);
        status = SC_EXIT_FAILED;
    }
    return status;
}

/* One bundle: its lines (--guard: its findings into g), and the exit status it asks for
   (0, 1 or 2). */
static int sc__health_bundle(const sc_analysis_bundle *ab, sc__guard *g)
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
        rc = pingpong ? sc__judge(&d, true, card, &all, &n_nodes) : 0;
        if (rc >= 0) {
            int bw = sc__judge(&d, false, card, &all, &n_nodes);
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
    for (size_t i = 0; rc == 0 && i < all.n; i++) { /* by name, a link's in order */
        sc__suspect *s = &all.s[i];
        const char *x = d.nodes[s->a], *y = d.nodes[s->b];
        bool swap = s->kind == SC_LINKMATRIX_LINK && strcmp(x, y) > 0;
        snprintf(s->a_name, sizeof(s->a_name), "%s", swap ? y : x);
        snprintf(s->b_name, sizeof(s->b_name), "%s", swap ? x : y);
    }
    if (rc == 0 && g->on) {
        int bad = sc__guard_add(g, &d, &all, ab->facts.name);
        status = bad > status ? bad : status;
    }
    for (size_t i = 0; rc == 0 && !g->on && i < all.n; i++) {
        const sc__suspect *s = &all.s[i];
        const char *retest = s->holds ? "" : "re-test: ";
        if (s->kind == SC_LINKMATRIX_NODE)
            printf("%s %s: %s%s [%s]\n", s->holds ? "drain" : "suspect", d.nodes[s->a], retest,
                   s->why, ab->facts.name);
        else
            printf("%slink %s %s: %s%s [%s]\n", s->holds ? "" : "suspect ", d.nodes[s->a],
                   d.nodes[s->b], retest, s->why, ab->facts.name);
        status = SC_EXIT_FAILED;
    }
    free(all.s);
    sc_linkmatrix_data_free(&d);
    sc_card_free(card);
    return status;
}

int sc_cmd_health(int argc, char **argv)
{
    static const struct option opts[] = {
        {"help", no_argument, NULL, 'h'}, {"guard", no_argument, NULL, 'g'}, {NULL, 0, NULL, 0}};
    static const sc_analysis_cmd cmd = {.name = "health",
                                        .short_opts = ":hg",
                                        .long_opts = opts,
                                        .usage = sc__health_usage,
                                        .usage_status = SC_EXIT_USAGE,
                                        .option = sc__health_option,
                                        .check = sc__health_check,
                                        .unreadable_hint = " (valid: a bundle directory)",
                                        .unreadable_status = SC_EXIT_USAGE,
                                        .refused_hint = " (its figures are not judged)"};
    sc_analysis_bundle *ab = calloc(1, sizeof(*ab));
    sc__guard guard = {0};
    int status, first;

    if (!ab)
        return SC_EXIT_ERROR;
    if (!sc_analysis_options(&cmd, argc, argv, &guard, &first, &status)) {
        free(ab);
        return status;
    }
    for (int i = first; i < argc; i++) {
        sc_analysis_load_named(&cmd, ab, argv[i], &status);
        if (ab->loaded && ab->usable) {
            int one = sc__health_bundle(ab, &guard);
            if (one > status)
                status = one;
        }
        sc_analysis_free(ab);
    }
    if (guard.on) {
        int one = sc__guard_print(&guard);
        if (one > status)
            status = one;
    }
    free(guard.named.s);
    free(guard.nodes);
    free(ab);
    return status;
}
