/*
 * ipsearch_path.c: the choice between the scan and the sgemm path, and the dispatch (see
 * ipsearch_path.h).
 */
#include "ipsearch_path.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

/* Work per measured search, in multiply-adds: enough to time (milliseconds) and at least
   two sgemm tiles, little enough that the rounds of both paths stay well under a second. */
#define SCT__SAMPLE_MADDS (128.0 * 1024 * 1024)
#define SCT__SAMPLE_MIN_ROWS 8192
#define SCT__SAMPLE_ROUNDS 3

static const char *const sct__path_names[] = {"auto", "scan", "sgemm"};

const char *sct_ips_path_name(enum sct_ips_path p)
{
    return (unsigned)p <= SCT_IPS_PATH_SGEMM ? sct__path_names[p] : "unknown";
}

int sct_ips_path_parse(const char *text, enum sct_ips_path *p)
{
    for (int i = SCT_IPS_PATH_AUTO; i <= SCT_IPS_PATH_SGEMM; i++) {
        if (strcmp(text, sct__path_names[i]) == 0) {
            *p = (enum sct_ips_path)i;
            return 0;
        }
    }
    return -EINVAL;
}

void sct_ips_search_part(const struct sct_ips_path_choice *c, const struct sct_ips_data *d,
                         size_t q0, size_t q1, size_t d0, size_t d1, struct sct_ips_workspace *w)
{
    if (c->path == SCT_IPS_PATH_SCAN)
        sct_ips_scan_range(d, q0, q1, d0, d1, w, c->simd);
    else
        sct_ips_search_range(d, q0, q1, d0, d1, w);
}

/* The rows a measurement searches: about SCT__SAMPLE_MADDS of work, whole SIMD groups. */
static size_t sct__sample_rows(const struct sct_ips_data *d, size_t queries)
{
    double rows = SCT__SAMPLE_MADDS / ((double)queries * (double)d->dim);
    size_t n = rows < SCT__SAMPLE_MIN_ROWS ? SCT__SAMPLE_MIN_ROWS : (size_t)rows;

    n = n > d->nb ? d->nb : n;
    return n > 16 ? n / 16 * 16 : n;
}

/* Both paths on the sample, interleaved after one warm-up each: their minima. */
static void sct__measure(const struct sct_ips_data *d, struct sct_ips_workspace *w,
                         struct sct_ips_path_choice *c)
{
    struct sct_ips_path_choice p = *c;
    enum sct_ips_path order[2] = {SCT_IPS_PATH_SCAN, SCT_IPS_PATH_SGEMM};
    double best[2] = {0, 0};

    for (int round = 0; round <= SCT__SAMPLE_ROUNDS; round++) {
        for (int i = 0; i < 2; i++) {
            p.path = order[i];
            double t0 = sct_clock_monotonic(NULL);
            sct_ips_search_part(&p, d, 0, c->queries, 0, c->sample_rows, w);
            double t = sct_clock_monotonic(NULL) - t0;
            if (round == 1 || (round > 1 && t < best[i])) /* round 0 warms up */
                best[i] = t;
        }
    }
    c->scan_s = best[0];
    c->sgemm_s = best[1];
}

void sct_ips_path_choose(const struct sct_ips_data *d, size_t queries, enum sct_ips_path forced,
                         enum sct_ips_simd simd, struct sct_ips_workspace *w,
                         struct sct_ips_path_choice *c)
{
    *c = (struct sct_ips_path_choice){.simd = simd, .queries = queries};
    if (forced != SCT_IPS_PATH_AUTO) {
        c->path = forced;
        snprintf(c->reason, sizeof(c->reason), "forced by --search-path %s",
                 sct_ips_path_name(forced));
    } else if (queries <= SCT_IPS_SCAN_ALWAYS) {
        c->path = SCT_IPS_PATH_SCAN;
        snprintf(c->reason, sizeof(c->reason), "rule: %zu queries per pass <= %d", queries,
                 SCT_IPS_SCAN_ALWAYS);
    } else if (queries <= SCT_IPS_SCAN_ALWAYS_SIMD && simd != SCT_IPS_SIMD_SCALAR) {
        c->path = SCT_IPS_PATH_SCAN;
        snprintf(c->reason, sizeof(c->reason), "rule: %zu queries per pass <= %d with %s", queries,
                 SCT_IPS_SCAN_ALWAYS_SIMD, sct_ips_simd_name(simd));
    } else if (queries > SCT_IPS_SGEMM_ALWAYS) {
        c->path = SCT_IPS_PATH_SGEMM;
        snprintf(c->reason, sizeof(c->reason), "rule: %zu queries per pass > %d", queries,
                 SCT_IPS_SGEMM_ALWAYS);
    } else {
        c->sample_rows = sct__sample_rows(d, queries);
        sct__measure(d, w, c);
        c->path = c->scan_s <= c->sgemm_s ? SCT_IPS_PATH_SCAN : SCT_IPS_PATH_SGEMM;
        snprintf(c->reason, sizeof(c->reason),
                 "measured: %zu queries x %zu rows, scan %.6f s, sgemm %.6f s (best of %d)",
                 queries, c->sample_rows, c->scan_s, c->sgemm_s, SCT__SAMPLE_ROUNDS);
    }
}
