/*
 * test_kernel_ipsearch_engine.c: the search engine of streamcard-ipsearch against its naive
 * double-precision reference: the generator, the fused sgemm + top-k, database splits and
 * their merge, ties, and the checks that must catch a wrong result.
 */
#include <math.h>
#include <stdlib.h>

#include "ipsearch_engine.h"
#include "ipsearch_test_util.h"
#include "sc_test.h"

/* Small, odd sizes: tails in every tile, SIMD group and split. */
struct shape {
    size_t nb, nq, dim, k, qb;
};

static const struct shape shapes[] = {
    {1037, 9, 13, 5, 9}, {7, 3, 5, 7, 2},       {1, 1, 1, 1, 1},
    {4099, 4, 1, 3, 4},  {3001, 17, 64, 40, 8},
};

static void test_generator(void)
{
    float a = sct_ips_value(1, SCT_IPS_STREAM_DATABASE, 0);

    SC_CHECK(a == sct_ips_value(1, SCT_IPS_STREAM_DATABASE, 0));
    SC_CHECK(a != sct_ips_value(1, SCT_IPS_STREAM_QUERIES, 0));
    SC_CHECK(a != sct_ips_value(2, SCT_IPS_STREAM_DATABASE, 0));
    for (uint64_t i = 0; i < 100000; i++) {
        float v = sct_ips_value(7, SCT_IPS_STREAM_QUERIES, i);
        SC_CHECK_MSG(v >= 0.0f && v < 1.0f, "value %llu = %g", (unsigned long long)i, v);
    }
}

/* Every shape, one part and three parts: valid, and the same ids either way. */
static void test_search_matches_reference(void)
{
    char msg[256];

    for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); s++) {
        const struct shape *c = &shapes[s];
        struct sct_ips_data d;
        struct sct_ips_results one, three;
        SC_CHECK(sct_ips_data_alloc(&d, c->nb, c->nq, c->dim) == 0);
        sct_ips_data_fill(&d, 42 + s, 2);
        SC_CHECK(sct_ips_results_alloc(&one, c->nq, c->k) == 0);
        SC_CHECK(sct_ips_results_alloc(&three, c->nq, c->k) == 0);
        SC_CHECK(ips_search_all(&d, c->k, c->qb, 1, NULL, &one) == 0);
        SC_CHECK(ips_search_all(&d, c->k, c->qb, 3, NULL, &three) == 0);
        SC_CHECK_MSG(ips_all_valid(&d, &one, msg, sizeof(msg)), "shape %zu: %s", s, msg);
        SC_CHECK_MSG(ips_all_valid(&d, &three, msg, sizeof(msg)), "shape %zu split: %s", s, msg);
        SC_CHECK_MSG(sct_ips_results_checksum(&one) == sct_ips_results_checksum(&three),
                     "shape %zu: a split database changed the ids", s);
        for (size_t j = 1; j < c->nq * c->k; j++)
            if (j % c->k)
                SC_CHECK_MSG(one.score[j - 1] >= one.score[j], "shape %zu: not sorted at %zu", s,
                             j);
        sct_ips_results_free(&one);
        sct_ips_results_free(&three);
        sct_ips_data_free(&d);
    }
}

/* Equal database rows tie exactly: the smaller ids rank first (in whole SIMD groups and in
 * the tail, over a split database), and a result holding another row tied with the k-th
 * score is still accepted. */
static void test_ties(void)
{
    struct sct_ips_data d;
    struct sct_ips_results r;
    double ref_s[4];
    int64_t ref_id[4];
    size_t accepted;
    char msg[256];

    SC_CHECK(sct_ips_data_alloc(&d, 41, 1, 3) == 0);
    for (size_t i = 0; i < 41 * 3; i++)
        d.db[i] = (float)(i / 3 % 4); /* row r holds r % 4: rows 3, 7, 11, ... tie */
    /* Row 17 beats them all and opens its SIMD group, where row 19 then ties with the k-th. */
    d.db[17 * 3] = d.db[17 * 3 + 1] = d.db[17 * 3 + 2] = 5.0f;
    d.q[0] = d.q[1] = d.q[2] = 1.0f;
    SC_CHECK(sct_ips_results_alloc(&r, 1, 4) == 0);
    for (int parts = 1; parts <= 2; parts++) {
        SC_CHECK(ips_search_all(&d, 4, 1, parts, NULL, &r) == 0);
        SC_CHECK_MSG(r.id[0] == 17 && r.id[1] == 3 && r.id[2] == 7 && r.id[3] == 11,
                     "%d parts: ids %lld %lld %lld %lld", parts, (long long)r.id[0],
                     (long long)r.id[1], (long long)r.id[2], (long long)r.id[3]);
    }
    sct_ips_reference(&d, 0, 4, ref_s, ref_id);
    r.id[2] = 39; /* other rows of the k-th score, in another order */
    r.id[3] = 7;
    SC_CHECK_MSG(sct_ips_check_query(&d, &r, 0, ref_s, ref_id, &accepted, msg, sizeof(msg)), "%s",
                 msg);
    SC_CHECK_INT_EQ(accepted, 4);
    sct_ips_results_free(&r);
    sct_ips_data_free(&d);
}

/* Wrong results of every kind fail, with a message naming the query and rank. */
static void test_check_catches_errors(void)
{
    static const struct {
        const char *what;
        int rank;
        int64_t id;      /* -2: keep */
        float add_score; /* added to the score */
        const char *msg;
    } cases[] = {
        {"id out of range", 2, 5000, 0, "is not a database row"},
        {"negative id", 0, -1, 0, "is not a database row"},
        {"duplicate id", 1, -3, 0, "reported twice"},
        {"score off", 0, -2, 0.5f, "its exact score is"},
        {"other id, right score", 4, -4, 0, "scored"},
    };
    struct sct_ips_data d;
    struct sct_ips_results good, bad;
    double ref_s[5];
    int64_t ref_id[5];
    char msg[256];

    SC_CHECK(sct_ips_data_alloc(&d, 2000, 2, 16) == 0);
    sct_ips_data_fill(&d, 3, 1);
    SC_CHECK(sct_ips_results_alloc(&good, 2, 5) == 0);
    SC_CHECK(sct_ips_results_alloc(&bad, 2, 5) == 0);
    SC_CHECK(ips_search_all(&d, 5, 2, 1, NULL, &good) == 0);
    sct_ips_reference(&d, 1, 5, ref_s, ref_id);
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        size_t accepted, j = 5 + (size_t)cases[c].rank; /* query 1 */
        for (size_t i = 0; i < 10; i++) {
            bad.id[i] = good.id[i];
            bad.score[i] = good.score[i];
        }
        if (cases[c].id >= -1)
            bad.id[j] = cases[c].id;
        else if (cases[c].id == -3)
            bad.id[j] = bad.id[j - 1];
        else if (cases[c].id == -4)
            bad.id[j] = (bad.id[j] + 1000) % 2000; /* almost surely not a top-5 row */
        bad.score[j] += cases[c].add_score;
        SC_CHECK_MSG(!sct_ips_check_query(&d, &bad, 1, ref_s, ref_id, &accepted, msg, sizeof(msg)),
                     "%s: accepted", cases[c].what);
        SC_CHECK_STR_CONTAINS(msg, "query 1");
        SC_CHECK_STR_CONTAINS(msg, cases[c].msg);
    }
    sct_ips_results_free(&good);
    sct_ips_results_free(&bad);
    sct_ips_data_free(&d);
}

static void test_checksums(void)
{
    struct sct_ips_data d;

    SC_CHECK(sct_ips_data_alloc(&d, 300, 5, 7) == 0);
    sct_ips_data_fill(&d, 9, 3);
    uint64_t h = sct_ips_checksum(d.db, 300 * 7, 3);
    SC_CHECK(h == sct_ips_checksum(d.db, 300 * 7, 1)); /* order-independent */
    d.db[123] = nextafterf(d.db[123], 2.0f);
    SC_CHECK(h != sct_ips_checksum(d.db, 300 * 7, 2)); /* one bit changes it */
    sct_ips_data_free(&d);
}

int main(void)
{
    SC_TEST_RUN(test_generator);
    SC_TEST_RUN(test_search_matches_reference);
    SC_TEST_RUN(test_ties);
    SC_TEST_RUN(test_check_catches_errors);
    SC_TEST_RUN(test_checksums);
    return SC_TEST_RESULT();
}
