/*
 * sc_linkmatrix.h: a partition's link matrix (doc/contracts/analysis.md, "Link matrix"): the
 * judgement that names a bad node or a bad link from the N x N matrix of one figure (the pairs are
 * measured in the rounds of sc_pairs.h).
 *
 * The judgement is robust (median and MAD, no distribution assumed) and on a log scale (a
 * rate halved and a rate doubled are equally far from the middle):
 *   - a node's figure is the median of its pairs with every other node; a node is bad when
 *     its log lies beyond mad_factor x MAD of the logs of the nodes' figures from their
 *     median, on the bad side, AND it is at least min_pct percent worse than the middle (MAD is 0
 * when most nodes agree to the last digit: the relative floor keeps noise from being called a
 * fault);
 *   - a pair's expected figure comes from a symmetric median polish of the healthy nodes'
 *     pairs (log figure = mu + effect(i) + effect(j) + residual): a pair is a bad link when
 *     its residual is beyond mad_factor MADs of the residuals below their median and its
 *     figure at least min_pct percent worse than what its two nodes do with the other
 *     healthy nodes (the median of those pairs: the finding's expected). Pairs that touch a
 *     bad node are the node's fault, not the link's.
 * Fewer than SC_LINKMATRIX_MIN_NODES nodes cannot be judged: one slow pair of three nodes
 * has no majority to be slow against.
 */
#ifndef SC_LINKMATRIX_H
#define SC_LINKMATRIX_H

#include "sc_bundle.h"
#include "sc_card.h"

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

#define SC_LINKMATRIX_MIN_NODES 4
#define SC_LINKMATRIX_MAX_NODES 4096
#define SC_LINKMATRIX_MAD_DEFAULT SC_CARD_OUTLIER_MAD_DEFAULT /* sc_card.h */
#define SC_LINKMATRIX_MIN_PCT_DEFAULT SC_CARD_OUTLIER_MIN_PCT_DEFAULT
#define SC_LINKMATRIX_PASSES_DEFAULT 3 /* pairs: all: passes of the schedule */

/* Which way a figure is better. */
typedef enum sc_linkmatrix_better {
    SC_LINKMATRIX_HIGHER,
    SC_LINKMATRIX_LOWER
} sc_linkmatrix_better;

typedef enum sc_linkmatrix_kind { SC_LINKMATRIX_NODE, SC_LINKMATRIX_LINK } sc_linkmatrix_kind;

/* One finding: a bad node a, or a bad link a-b (a < b). */
typedef struct sc_linkmatrix_finding {
    sc_linkmatrix_kind kind;
    size_t a, b;
    double value;      /* the node's median over its pairs, or the pair's figure */
    double expected;   /* the nodes' median, or what the two nodes do with the others */
    double effect_pct; /* how much worse than expected, in percent (> 0) */
} sc_linkmatrix_finding;

typedef struct sc_linkmatrix_verdict {
    bool judged; /* false: fewer than SC_LINKMATRIX_MIN_NODES nodes with figures */
    size_t n_nodes;
    double node_median; /* the middle of the nodes' figures (exp of the median log) */
    double node_mad;    /* the MAD of their logs */
    size_t n;           /* findings: bad nodes first, then links */
    sc_linkmatrix_finding *findings;
} sc_linkmatrix_verdict;

/*
 * Judges the n x n matrix m (row-major; m[i*n+j] the figure of pair i-j, read from i < j
 * and j < i alike: the mean of the two when both are finite; NaN or infinite: not measured;
 * the diagonal is ignored). mad_factor > 0, min_pct >= 0. Returns 0 (out filled; free it
 * with sc_linkmatrix_verdict_free), -EINVAL (n > SC_LINKMATRIX_MAX_NODES, a bad factor) or
 * -ENOMEM.
 */
int sc_linkmatrix_judge(const double *m, size_t n, sc_linkmatrix_better better, double mad_factor,
                        double min_pct, sc_linkmatrix_verdict *out);

/*
 * The same judgement from the pairs alone: pairs[sc_linkmatrix_pair_index(n, i, j)] (i < j)
 * the figure of pair i-j, NaN when not measured: n(n-1)/2 values, half of what a full matrix
 * takes. What judge does in O(n^2) time and 6 n^2 bytes beside its input
 * (doc/contracts/analysis.md, "Link matrix").
 */
int sc_linkmatrix_judge_pairs(const double *pairs, size_t n, sc_linkmatrix_better better,
                              double mad_factor, double min_pct, sc_linkmatrix_verdict *out);

/* Where pair i-j (i < j < n) lies in a packed list of pairs: row by row, i's pairs with
   i+1..n-1 one after the other. */
size_t sc_linkmatrix_pair_index(size_t n, size_t i, size_t j);

/* Frees what judge allocated (takes a zeroed or already freed verdict). */
void sc_linkmatrix_verdict_free(sc_linkmatrix_verdict *v);

/*
 * The passes' vote (doc/contracts/analysis.md, "Link matrix", "The passes vote"): a matrix measured in P passes
 * is judged P + 1 times, once on each pair's median over the passes and once on each pass
 * alone. A finding holds (a node to drain, a link to name) only when the medians' judgement
 * and every pass's name it, with P >= 2: a healthy node that one pass names by chance with
 * probability q <= 1/2 (a median-based judgement names a typical node at most as often as
 * not) is named by all P with probability q^P <= 0.5^P, so a finding that holds does with
 * a confidence of at least 1 - 0.5^P (87.5% at the default 3 passes, 96.9% at 5). What the
 * medians or some passes name and not all is a suspect: re-test.
 */
typedef struct sc_linkmatrix_vote {
    sc_linkmatrix_finding f; /* as the medians' judgement found it, or (not named there) as
                                the first pass naming it did */
    bool in_medians;         /* the medians' judgement names it */
    size_t passes_naming;    /* how many passes' own judgements name it */
} sc_linkmatrix_vote;

typedef struct sc_linkmatrix_votes {
    bool judged;    /* the medians' judgement: false when fewer than MIN_NODES nodes */
    size_t n_nodes; /* ... its nodes with figures */
    size_t passes;
    size_t n; /* the medians' findings first (their order), then what only passes name */
    sc_linkmatrix_vote *votes;
} sc_linkmatrix_votes;

/*
 * Judges medians (n x n, as sc_linkmatrix_judge takes it) and each of the passes n x n grids
 * of per_pass (pass p at p * n * n; passes >= 1) with the same bounds, and counts for every
 * finding the passes naming it. Returns 0 (out filled; free it with
 * sc_linkmatrix_votes_free), -EINVAL or -ENOMEM.
 */
int sc_linkmatrix_judge_passes(const double *medians, const double *per_pass, size_t passes,
                               size_t n, sc_linkmatrix_better better, double mad_factor,
                               double min_pct, sc_linkmatrix_votes *out);

/* The vote holds: the medians and all of at least 2 passes name it. */
bool sc_linkmatrix_vote_holds(const sc_linkmatrix_vote *v, size_t passes);

/* The confidence of a vote that holds over passes passes: 1 - 0.5^passes (0: fewer than 2). */
double sc_linkmatrix_vote_confidence(size_t passes);

/* Frees what judge_passes allocated (takes a zeroed or already freed one). */
void sc_linkmatrix_votes_free(sc_linkmatrix_votes *v);

/* A link matrix as results.json holds it ("matrix": doc/contracts/results.md). */
#define SC_LINKMATRIX_MAX_SIZES 64
#define SC_LINKMATRIX_MAX_PASSES 100      /* the card's passes: at most */
#define SC_LINKMATRIX_MAX_CELLS (1 << 24) /* sizes x nodes x nodes: 1024 nodes, 16 sizes */

typedef struct sc_linkmatrix_data {
    size_t n;       /* nodes */
    char **nodes;   /* their names, escaped for showing (sc_text_escape) */
    size_t n_sizes; /* message sizes, ascending as measured */
    unsigned long long bytes[SC_LINKMATRIX_MAX_SIZES];
    double *t_usec, *MBps; /* [s * n * n + i * n + j]: each pair's median over the passes;
                              NaN: not measured (the diagonal) */
    size_t passes;         /* of the schedule, each pair measured once a pass (1: older) */
    double *pass_t_usec, *pass_MBps; /* [((s * passes + p) * n + i) * n + j]: pass p's */
    size_t rounds;
    double total_seconds;
} sc_linkmatrix_data;

/*
 * The matrix of a results.json (results: the parsed object) of bundle b. A size's figures are
 * either n x n grids in results.json (bundles before the compact files) or, as runs write
 * them now, the file its entry names (sc_pairs_csv.h: "file": "matrix/<bytes>B.csv", read
 * from b within the cap of n nodes), whose pairs and medians must be the entry's "pairs",
 * "t_usec" and "MBps", exactly: verify loads it so. Everything is checked, as a
 * bundle's files are the user's: at most SC_LINKMATRIX_MAX_NODES nodes and
 * SC_LINKMATRIX_MAX_SIZES sizes, SC_LINKMATRIX_MAX_CELLS cells in all, every grid n x n, every cell
 * null or a finite positive number. Returns 0 (free out with sc_linkmatrix_data_free), -ENOENT (no
 * "matrix": a run of one pair), -EINVAL with a reason in why (a malformed one), or -ENOMEM.
 */
int sc_linkmatrix_load(const sc_bundle *b, json_object *results, sc_linkmatrix_data *out, char *why,
                       size_t whylen);

/* One rank per node (pairs: all): a node named twice is two ranks of one host, which a
   run may do (verify accepts it) but no judgement can use. Returns 0, -EINVAL with the name
   in why, or -ENOMEM. */
int sc_linkmatrix_unique(const sc_linkmatrix_data *d, char *why, size_t whylen);

/* Frees what load allocated (takes a zeroed or freed one). */
void sc_linkmatrix_data_free(sc_linkmatrix_data *d);

#endif
