/*
 * ipsearch_test_util.h: what the ipsearch engine and scan tests share: a search of all
 * queries over database splits by a given path, merged as a team merges, and the check of
 * every query against the double-precision reference.
 */
#ifndef SC_TESTS_IPSEARCH_TEST_UTIL_H
#define SC_TESTS_IPSEARCH_TEST_UTIL_H

#include <stdlib.h>

#include "ipsearch_engine.h"
#include "ipsearch_path.h"

#define IPS_TEST_MAX_PARTS 4

/* Search all queries in blocks of qb over nparts database splits by path c (NULL: the
 * sgemm path), merging like a team. 0, or -1 when a workspace could not be allocated. */
static inline int ips_search_all(const struct sct_ips_data *d, size_t k, size_t qb, int nparts,
                                 const struct sct_ips_path_choice *c, struct sct_ips_results *r)
{
    struct sct_ips_workspace ws[IPS_TEST_MAX_PARTS], *parts[IPS_TEST_MAX_PARTS];
    struct sct_ips_path_choice sgemm = {.path = SCT_IPS_PATH_SGEMM};
    int rc = 0, made = 0;

    for (; made < nparts && rc == 0; made++) {
        rc = sct_ips_workspace_alloc(&ws[made], qb, k) == 0 ? 0 : -1;
        parts[made] = &ws[made];
    }
    for (size_t q0 = 0; rc == 0 && q0 < d->nq; q0 += qb) {
        size_t q1 = q0 + qb < d->nq ? q0 + qb : d->nq;
        for (int p = 0; p < nparts; p++)
            sct_ips_search_part(c ? c : &sgemm, d, q0, q1, d->nb * (size_t)p / (size_t)nparts,
                                d->nb * (size_t)(p + 1) / (size_t)nparts, &ws[p]);
        sct_ips_merge(parts, nparts, q0, 0, q1 - q0, r);
    }
    for (int p = 0; p < made; p++)
        sct_ips_workspace_free(&ws[p]);
    return rc;
}

/* Every query checked against the reference: 1 when all pass with recall 1. */
static inline int ips_all_valid(const struct sct_ips_data *d, const struct sct_ips_results *r,
                                char *msg, size_t len)
{
    double *ref_s = malloc(r->k * sizeof(double));
    int64_t *ref_id = malloc(r->k * sizeof(int64_t));
    int ok = ref_s && ref_id;

    for (size_t q = 0; ok && q < d->nq; q++) {
        size_t accepted;
        sct_ips_reference(d, q, r->k, ref_s, ref_id);
        ok = sct_ips_check_query(d, r, q, ref_s, ref_id, &accepted, msg, len) && accepted == r->k;
    }
    free(ref_s);
    free(ref_id);
    return ok;
}

#endif
