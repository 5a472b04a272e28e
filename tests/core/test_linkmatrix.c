/*
 * test_linkmatrix: the judgement of a link matrix on synthetic matrices: a bad node (bandwidth
 * and latency), a bad link between two healthy nodes, both at once, noise alone, identical
 * figures, missing pairs, too few nodes.
 */
#include "sc_linkmatrix.h"
#include "sc_test.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A symmetric matrix of n nodes around base, with a deterministic +/-jitter_pct wobble. */
static double *matrix(size_t n, double base, double jitter_pct)
{
    double *m = calloc(n * n, sizeof(*m));

    for (size_t i = 0; m && i < n; i++)
        for (size_t j = 0; j < n; j++) {
            double wobble = (double)((i * 7 + j * 7 + i * j * 3) % 11) / 10.0 - 0.5;

            m[i * n + j] = i == j ? NAN : base * (1 + 2 * wobble * jitter_pct / 100);
        }
    return m;
}

static void set_pair(double *m, size_t n, size_t i, size_t j, double v)
{
    m[i * n + j] = m[j * n + i] = v;
}

static void test_bad_node(void)
{
    const size_t n = 6, slow = 4;
    double *m = matrix(n, 1000, 5);
    sc_linkmatrix_verdict v;

    SC_CHECK(m);
    for (size_t j = 0; j < n; j++)
        if (j != slow)
            set_pair(m, n, slow, j, 300);
    SC_CHECK_INT_EQ(sc_linkmatrix_judge(m, n, SC_LINKMATRIX_HIGHER, 3, 20, &v), 0);
    SC_CHECK(v.judged);
    SC_CHECK_INT_EQ(v.n, 1); /* the node only: its pairs are not links to blame */
    SC_CHECK_INT_EQ(v.findings[0].kind, SC_LINKMATRIX_NODE);
    SC_CHECK_INT_EQ(v.findings[0].a, slow);
    SC_CHECK(fabs(v.findings[0].effect_pct - 70) < 3);
    sc_linkmatrix_verdict_free(&v);
    free(m);
}

/* Latency: lower is better; a node with 5x the latency is bad, with 4 nodes (the fewest). */
static void test_bad_node_latency(void)
{
    const size_t n = 4;
    double *m = matrix(n, 10, 5);
    sc_linkmatrix_verdict v;

    SC_CHECK(m);
    for (size_t j = 1; j < n; j++)
        set_pair(m, n, 0, j, 50);
    SC_CHECK_INT_EQ(sc_linkmatrix_judge(m, n, SC_LINKMATRIX_LOWER, 3, 20, &v), 0);
    SC_CHECK(v.judged);
    SC_CHECK_INT_EQ(v.n, 1);
    SC_CHECK_INT_EQ(v.findings[0].kind, SC_LINKMATRIX_NODE);
    SC_CHECK_INT_EQ(v.findings[0].a, 0);
    sc_linkmatrix_verdict_free(&v);
    free(m);
}

static void test_bad_link(void)
{
    static const size_t sizes[] = {4, 5, 8, 33};

    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        size_t n = sizes[s];
        double *m = matrix(n, 1000, 5);
        sc_linkmatrix_verdict v;

        SC_CHECK(m);
        set_pair(m, n, 1, 2, 400);
        SC_CHECK_INT_EQ(sc_linkmatrix_judge(m, n, SC_LINKMATRIX_HIGHER, 3, 20, &v), 0);
        SC_CHECK(v.judged);
        SC_CHECK_MSG(v.n == 1, "n=%zu: %zu findings", n, v.n);
        SC_CHECK_INT_EQ(v.findings[0].kind, SC_LINKMATRIX_LINK);
        SC_CHECK_INT_EQ(v.findings[0].a, 1);
        SC_CHECK_INT_EQ(v.findings[0].b, 2);
        SC_CHECK(v.findings[0].value == 400);
        SC_CHECK_MSG(fabs(v.findings[0].expected - 1000) < 60, "n=%zu: expected %g", n,
                     v.findings[0].expected);
        sc_linkmatrix_verdict_free(&v);
        free(m);
    }
}

/*
 * Measured on four namespaced nodes sharing one loaded 2-CPU machine, scn1 -> scn2 shaped to
 * 4 Mbit/s (bw_64KiB, MB/s): the healthy pairs spread over a factor of 6, the slow link is
 * 50x below them. On a linear scale their MAD hides it; on the log scale it stands out.
 */
static void test_bad_link_noisy(void)
{
    const double nan = NAN;
    const double m[16] = {nan,  0.9,   21.0, 81.7, 0.9,  nan,  104.5, 17.2,
                          21.0, 104.5, nan,  29.3, 81.7, 17.2, 29.3,  nan};
    sc_linkmatrix_verdict v;

    SC_CHECK_INT_EQ(sc_linkmatrix_judge(m, 4, SC_LINKMATRIX_HIGHER, 3, 80, &v), 0);
    SC_CHECK(v.judged);
    SC_CHECK_INT_EQ(v.n, 1);
    SC_CHECK(v.findings[0].kind == SC_LINKMATRIX_LINK && v.findings[0].a == 0 &&
             v.findings[0].b == 1);
    sc_linkmatrix_verdict_free(&v);
}

/* A bad node and, elsewhere, a bad link: both named, the link's nodes not. */
static void test_node_and_link(void)
{
    const size_t n = 8;
    double *m = matrix(n, 1000, 5);
    sc_linkmatrix_verdict v;

    SC_CHECK(m);
    for (size_t j = 0; j < n; j++)
        if (j != 7)
            set_pair(m, n, 7, j, 100);
    set_pair(m, n, 2, 5, 500);
    SC_CHECK_INT_EQ(sc_linkmatrix_judge(m, n, SC_LINKMATRIX_HIGHER, 3, 20, &v), 0);
    SC_CHECK_INT_EQ(v.n, 2);
    SC_CHECK(v.findings[0].kind == SC_LINKMATRIX_NODE && v.findings[0].a == 7);
    SC_CHECK(v.findings[1].kind == SC_LINKMATRIX_LINK && v.findings[1].a == 2 &&
             v.findings[1].b == 5);
    sc_linkmatrix_verdict_free(&v);
    free(m);
}

/* Noise within the floor, identical figures (MAD 0) and missing pairs: nothing named. */
static void test_healthy(void)
{
    double *noisy = matrix(16, 1000, 8), *flat = matrix(5, 1000, 0), *holes = matrix(6, 1000, 5);
    sc_linkmatrix_verdict v;

    SC_CHECK(noisy && flat && holes);
    set_pair(holes, 6, 0, 3, NAN);
    SC_CHECK_INT_EQ(sc_linkmatrix_judge(noisy, 16, SC_LINKMATRIX_HIGHER, 3, 20, &v), 0);
    SC_CHECK(v.judged && v.n == 0);
    sc_linkmatrix_verdict_free(&v);
    /* MAD 0: a 1% slower pair is beyond every multiple of it, but below the floor */
    set_pair(flat, 5, 0, 1, 990);
    SC_CHECK_INT_EQ(sc_linkmatrix_judge(flat, 5, SC_LINKMATRIX_HIGHER, 3, 20, &v), 0);
    SC_CHECK(v.judged && v.n == 0 && v.node_mad == 0);
    sc_linkmatrix_verdict_free(&v);
    /* the same with no floor is a finding: the floor is what held it back */
    SC_CHECK_INT_EQ(sc_linkmatrix_judge(flat, 5, SC_LINKMATRIX_HIGHER, 3, 0, &v), 0);
    SC_CHECK(v.n == 1 && v.findings[0].kind == SC_LINKMATRIX_LINK);
    sc_linkmatrix_verdict_free(&v);
    SC_CHECK_INT_EQ(sc_linkmatrix_judge(holes, 6, SC_LINKMATRIX_HIGHER, 3, 20, &v), 0);
    SC_CHECK(v.judged && v.n == 0);
    sc_linkmatrix_verdict_free(&v);
    free(noisy);
    free(flat);
    free(holes);
}

static void test_cannot_judge(void)
{
    double *m = matrix(3, 1000, 0);
    sc_linkmatrix_verdict v;

    SC_CHECK(m);
    set_pair(m, 3, 0, 1, 1);
    SC_CHECK_INT_EQ(sc_linkmatrix_judge(m, 3, SC_LINKMATRIX_HIGHER, 3, 20, &v), 0);
    SC_CHECK(!v.judged && v.n == 0 && v.n_nodes == 3);
    sc_linkmatrix_verdict_free(&v);
    SC_CHECK_INT_EQ(sc_linkmatrix_judge(m, 3, SC_LINKMATRIX_HIGHER, 0, 20, &v), -EINVAL);
    SC_CHECK_INT_EQ(sc_linkmatrix_judge(m, 3, SC_LINKMATRIX_HIGHER, 3, -1, &v), -EINVAL);
    SC_CHECK_INT_EQ(
        sc_linkmatrix_judge(m, SC_LINKMATRIX_MAX_NODES + 1, SC_LINKMATRIX_HIGHER, 3, 20, &v),
        -EINVAL);
    free(m);
}

/* Three passes of 6 nodes: node 4 slow in every pass, node 1 in the second pass only. The
   medians over the passes (here: of pass values 1000-ish, 300 and 1000-ish for node 1's
   pairs) name node 4 only; the vote holds for node 4 (3 of 3 and the medians, confidence
   87.5%), node 1 is a suspect (1 of 3, not in the medians). One pass holds nothing. */
static void test_vote(void)
{
    const size_t n = 6, passes = 3;
    double *per = calloc(passes * n * n, sizeof(*per)), *med = matrix(n, 1000, 5);
    sc_linkmatrix_votes v;

    SC_CHECK(per && med);
    for (size_t p = 0; p < passes; p++) {
        double *m = matrix(n, 1000 * (1 + 0.01 * (double)p), 5);
        SC_CHECK(m);
        for (size_t j = 0; j < n; j++) {
            if (j != 4)
                set_pair(m, n, 4, j, 300);
            if (p == 1 && j != 1 && j != 4)
                set_pair(m, n, 1, j, 400);
        }
        memcpy(per + p * n * n, m, n * n * sizeof(*m));
        free(m);
    }
    for (size_t j = 0; j < n; j++)
        if (j != 4)
            set_pair(med, n, 4, j, 300);
    SC_CHECK_INT_EQ(sc_linkmatrix_judge_passes(med, per, passes, n, SC_LINKMATRIX_HIGHER, 3, 20,
                                               &v),
                    0);
    SC_CHECK(v.judged && v.passes == passes);
    SC_CHECK_INT_EQ(v.n, 2);
    SC_CHECK(v.votes[0].f.kind == SC_LINKMATRIX_NODE && v.votes[0].f.a == 4);
    SC_CHECK(v.votes[0].in_medians && v.votes[0].passes_naming == 3);
    SC_CHECK(sc_linkmatrix_vote_holds(&v.votes[0], passes));
    SC_CHECK(v.votes[1].f.kind == SC_LINKMATRIX_NODE && v.votes[1].f.a == 1);
    SC_CHECK(!v.votes[1].in_medians && v.votes[1].passes_naming == 1);
    SC_CHECK(!sc_linkmatrix_vote_holds(&v.votes[1], passes));
    SC_CHECK(fabs(sc_linkmatrix_vote_confidence(3) - 0.875) < 1e-12);
    SC_CHECK(fabs(sc_linkmatrix_vote_confidence(5) - 0.96875) < 1e-12);
    SC_CHECK(sc_linkmatrix_vote_confidence(1) == 0);
    sc_linkmatrix_votes_free(&v);
    /* one pass: named, never held */
    SC_CHECK_INT_EQ(sc_linkmatrix_judge_passes(med, med, 1, n, SC_LINKMATRIX_HIGHER, 3, 20, &v), 0);
    SC_CHECK(v.n == 1 && v.votes[0].in_medians && v.votes[0].passes_naming == 1);
    SC_CHECK(!sc_linkmatrix_vote_holds(&v.votes[0], 1));
    sc_linkmatrix_votes_free(&v);
    SC_CHECK_INT_EQ(sc_linkmatrix_judge_passes(med, per, 0, n, SC_LINKMATRIX_HIGHER, 3, 20, &v),
                    -EINVAL);
    free(per);
    free(med);
}

int main(void)
{
    SC_TEST_RUN(test_vote);
    SC_TEST_RUN(test_bad_node);
    SC_TEST_RUN(test_bad_node_latency);
    SC_TEST_RUN(test_bad_link);
    SC_TEST_RUN(test_bad_link_noisy);
    SC_TEST_RUN(test_node_and_link);
    SC_TEST_RUN(test_healthy);
    SC_TEST_RUN(test_cannot_judge);
    return sc_test_failures ? 1 : 0;
}
