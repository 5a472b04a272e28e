/*
 * ipsearch_path.c: the choice between the scan and the sgemm path, and the dispatch (see
 * ipsearch_path.h).
 */
#include "ipsearch_path.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

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
        sct_ips_scan_range(d, q0, q1, d0, d1, w, c->in.simd);
    else
        sct_ips_search_range(d, q0, q1, d0, d1, w);
}

/* OpenBLAS's x86 kernel sets (its DYNAMIC_ARCH core names) that use no AVX. */
static const char *const sct__sse_only_cores[] = {
    "Katmai",       "Coppermine", "Northwood",  "Prescott", "Banias", "Atom",
    "Core2",        "Penryn",     "Dunnington", "Nehalem",  "Athlon", "Opteron",
    "Opteron_SSE3", "Barcelona",  "Nano",       "Bobcat",
};

int sct_ips_blas_core_sse_only(const char *core)
{
    for (size_t i = 0; core && i < sizeof(sct__sse_only_cores) / sizeof(sct__sse_only_cores[0]);
         i++)
        if (strcasecmp(core, sct__sse_only_cores[i]) == 0)
            return 1;
    return 0;
}

size_t sct_ips_cache_bytes(int level)
{
    long v = sysconf(level == 1 ? _SC_LEVEL1_DCACHE_SIZE : _SC_LEVEL2_CACHE_SIZE);

    if (v >= 4096 && v <= (64L << 20))
        return (size_t)v;
    return level == 1 ? SCT_IPS_L1D_DEFAULT : SCT_IPS_L2_DEFAULT;
}

void sct_ips_path_choose(const struct sct_ips_path_inputs *in, struct sct_ips_path_choice *c)
{
    size_t bytes = in->queries * in->dim * sizeof(float);

    *c = (struct sct_ips_path_choice){.in = *in};
    if (in->forced != SCT_IPS_PATH_AUTO) {
        c->path = in->forced;
        snprintf(c->reason, sizeof(c->reason), "forced by --search-path %s",
                 sct_ips_path_name(in->forced));
    } else if (in->queries <= SCT_IPS_SCAN_ALWAYS) {
        c->path = SCT_IPS_PATH_SCAN;
        snprintf(c->reason, sizeof(c->reason), "rule: %zu queries per pass <= %d", in->queries,
                 SCT_IPS_SCAN_ALWAYS);
    } else if (in->simd != SCT_IPS_SIMD_SCALAR && in->queries <= SCT_IPS_SCAN_ALWAYS_SIMD &&
               bytes <= in->l1d_bytes) {
        c->path = SCT_IPS_PATH_SCAN;
        snprintf(c->reason, sizeof(c->reason),
                 "rule: %zu queries per pass <= %d with %s, their %zu KiB within the %zu KiB "
                 "L1d",
                 in->queries, SCT_IPS_SCAN_ALWAYS_SIMD, sct_ips_simd_name(in->simd), bytes / 1024,
                 in->l1d_bytes / 1024);
    } else if (in->simd != SCT_IPS_SIMD_SCALAR && bytes <= in->l2_bytes / 2 &&
               sct_ips_blas_core_sse_only(in->blas_core)) {
        c->path = SCT_IPS_PATH_SCAN;
        snprintf(c->reason, sizeof(c->reason),
                 "rule: %zu queries per pass with %s, their %zu KiB within half the %zu KiB L2, "
                 "OpenBLAS's %s kernels SSE-only",
                 in->queries, sct_ips_simd_name(in->simd), bytes / 1024, in->l2_bytes / 1024,
                 in->blas_core);
    } else {
        c->path = SCT_IPS_PATH_SGEMM;
        snprintf(c->reason, sizeof(c->reason),
                 "rule: %zu queries per pass (%zu KiB) beyond what the scan keeps in the %zu KiB "
                 "L1d with %s%s",
                 in->queries, bytes / 1024, in->l1d_bytes / 1024, sct_ips_simd_name(in->simd),
                 sct_ips_blas_core_sse_only(in->blas_core) ? ", or in half the L2" : "");
    }
}
