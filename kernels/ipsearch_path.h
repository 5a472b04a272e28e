/*
 * ipsearch_path.h: how streamcard-ipsearch searches a range of the database: the
 * single-pass scan (ipsearch_scan.h) or the sgemm tiles (ipsearch_engine.h), and which.
 *
 * The choice is per run, for the number of queries each compute thread searches at once
 * (its "queries per pass"), by this rule:
 *   - at most SCT_IPS_SCAN_ALWAYS queries, or at most SCT_IPS_SCAN_ALWAYS_SIMD with a SIMD
 *     variant of the scan: the scan. The search is bound by reading the database, which the
 *     scan does once per pass at the core's streaming rate, while sgemm copies (packs)
 *     every tile first (measured with AVX2 on Zen 5, one thread, CPU time: the scan 3x
 *     faster than sgemm at 16 queries, 2.3x at 32, 1.4x at 64, 0.8x at 128);
 *   - more than SCT_IPS_SGEMM_ALWAYS queries: sgemm, which is then compute bound and
 *     near the machine's peak;
 *   - in between: measured on this machine before the main loop, on the first rows of the
 *     database with the run's queries: each path searches them three times, interleaved
 *     after a warm-up, and the faster minimum wins (where the two cross depends on the SIMD
 *     width, the BLAS kernel and the caches, so it is measured rather than fixed).
 * A forced path (--search-path scan|sgemm) skips the rule. The choice, why, and the
 * measured times go into the output and the JSON.
 */
#ifndef SC_KERNELS_IPSEARCH_PATH_H
#define SC_KERNELS_IPSEARCH_PATH_H

#include <stddef.h>

#include "ipsearch_engine.h"
#include "ipsearch_scan.h"

#define SCT_IPS_SCAN_ALWAYS 4
#define SCT_IPS_SCAN_ALWAYS_SIMD 32
#define SCT_IPS_SGEMM_ALWAYS 256

enum sct_ips_path { SCT_IPS_PATH_AUTO, SCT_IPS_PATH_SCAN, SCT_IPS_PATH_SGEMM };

/* "auto", "scan", "sgemm". */
const char *sct_ips_path_name(enum sct_ips_path p);

/* Parse a --search-path value; 0, or -EINVAL for anything else. */
int sct_ips_path_parse(const char *text, enum sct_ips_path *p);

/* What a run searches with, and why. */
struct sct_ips_path_choice {
    enum sct_ips_path path; /* scan or sgemm */
    enum sct_ips_simd simd; /* the scan's variant (also recorded for sgemm runs) */
    size_t queries;         /* queries per pass the choice was made for */
    size_t sample_rows;     /* rows measured on; 0: decided by the rule or forced */
    double scan_s, sgemm_s; /* the measured minima, seconds */
    char reason[160];
};

/*
 * Choose the path for passes of `queries` queries (<= w->qb) over d (forced: a path to
 * take as is, or AUTO for the rule), measuring with w when the rule says so. simd: the
 * scan's variant to use (normally sct_ips_simd_best()).
 */
void sct_ips_path_choose(const struct sct_ips_data *d, size_t queries, enum sct_ips_path forced,
                         enum sct_ips_simd simd, struct sct_ips_workspace *w,
                         struct sct_ips_path_choice *c);

/* Search queries [q0, q1) against rows [d0, d1) into w's partial results by c's path. */
void sct_ips_search_part(const struct sct_ips_path_choice *c, const struct sct_ips_data *d,
                         size_t q0, size_t q1, size_t d0, size_t d1, struct sct_ips_workspace *w);

#endif
