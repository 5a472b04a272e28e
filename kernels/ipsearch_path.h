/*
 * ipsearch_path.h: how streamcard-ipsearch searches a range of the database: the
 * single-pass scan (ipsearch_scan.h) or the sgemm tiles (ipsearch_engine.h), and which.
 *
 * The choice is per run, for the number of queries each compute thread searches at once
 * (its "queries per pass"), from the shapes, the CPU's caches and SIMD, and the BLAS's
 * kernel set alone, nothing timed, so the same card takes the same path on a busy machine
 * and an idle one (a choice measured before the main loop flipped between runs under load,
 * and the two paths' costs differ by a third there):
 *   - at most SCT_IPS_SCAN_ALWAYS queries: the scan, whatever its variant;
 *   - with a SIMD variant, at most SCT_IPS_SCAN_ALWAYS_SIMD queries whose vectors fit the
 *     L1 data cache (queries x dim x 4 bytes): the scan. It reads each database row once
 *     and dots it with every query from L1, bound by reading the database, while sgemm
 *     packs every tile first. Measured per thread CPU time (Xeon, AVX-512, 48 KiB L1d,
 *     dim 128, OpenBLAS's SkylakeX sgemm): the scan 1.27x faster at 32 queries, 1.03x at 64,
 *     0.87x at 96 and 0.53x at 128, where the queries' 64 KiB no longer fit the L1d;
 *   - with a SIMD variant and an OpenBLAS that runs SSE-only kernels on this CPU (its
 *     corename one of the pre-AVX sets, as OpenBLAS 0.3.21 picks Prescott on CPUs newer
 *     than it knows), queries whose vectors fit half the L2 (the scan streams them from
 *     there for every row): the scan. Measured per thread CPU time (Emerald Rapids, 2 MiB
 *     L2, AVX-512 scan, OpenBLAS 0.3.21 Prescott sgemm): at dim 128 the scan 3.0x faster at
 *     64 queries, 2.8x at 96, 1.9x at 128 and 256, 1.8x at 1000 (500 KiB); at dim 960 2.0x
 *     at 256 queries (960 KiB), 0.5x at 1000 (3.7 MiB); with OPENBLAS_CORETYPE=SkylakeX,
 *     sgemm is 2x faster than the scan at 256 queries of dim 128;
 *   - otherwise sgemm, compute bound and near the machine's peak.
 * A forced path (--search-path scan|sgemm) skips the rule. The choice is a pure function of
 * its inputs (struct sct_ips_path_inputs: nothing measured, nothing read inside), which the
 * choice keeps and the output and the JSON record beside the choice and why: a recorded
 * run's choice can be made again from its record.
 */
#ifndef SC_KERNELS_IPSEARCH_PATH_H
#define SC_KERNELS_IPSEARCH_PATH_H

#include <stddef.h>

#include "ipsearch_engine.h"
#include "ipsearch_scan.h"

#define SCT_IPS_SCAN_ALWAYS 4
#define SCT_IPS_SCAN_ALWAYS_SIMD 64
#define SCT_IPS_L1D_DEFAULT (32u << 10) /* when sysconf does not say */
#define SCT_IPS_L2_DEFAULT (512u << 10)

enum sct_ips_path { SCT_IPS_PATH_AUTO, SCT_IPS_PATH_SCAN, SCT_IPS_PATH_SGEMM };

/* "auto", "scan", "sgemm". */
const char *sct_ips_path_name(enum sct_ips_path p);

/* Parse a --search-path value; 0, or -EINVAL for anything else. */
int sct_ips_path_parse(const char *text, enum sct_ips_path *p);

/* Everything the choice depends on. */
struct sct_ips_path_inputs {
    size_t queries;           /* queries per pass */
    size_t dim;               /* the vectors' dimension */
    enum sct_ips_simd simd;   /* the scan's variant (normally sct_ips_simd_best()) */
    size_t l1d_bytes;         /* the L1 data cache (sct_ips_cache_bytes(1)) */
    size_t l2_bytes;          /* the L2 (sct_ips_cache_bytes(2)) */
    enum sct_ips_path forced; /* a path to take as is, or AUTO for the rule */
    const char *blas_core;    /* OpenBLAS's kernel set (corename), NULL or "unknown" if none */
};

/* What a run searches with, and why. */
struct sct_ips_path_choice {
    enum sct_ips_path path;        /* scan or sgemm */
    struct sct_ips_path_inputs in; /* what it was chosen from (in.simd: the scan's variant) */
    char reason[160];
};

/* 1 when core names one of OpenBLAS's kernel sets for x86 CPUs without AVX (SSE only). */
int sct_ips_blas_core_sse_only(const char *core);

/* This CPU's L1 data cache (level 1) or L2 (level 2) in bytes (sysconf), SCT_IPS_L1D_DEFAULT
 * or SCT_IPS_L2_DEFAULT when it does not say. */
size_t sct_ips_cache_bytes(int level);

/* Choose the path from in alone (see above); c keeps a copy of in. */
void sct_ips_path_choose(const struct sct_ips_path_inputs *in, struct sct_ips_path_choice *c);

/* Search queries [q0, q1) against rows [d0, d1) into w's partial results by c's path. */
void sct_ips_search_part(const struct sct_ips_path_choice *c, const struct sct_ips_data *d,
                         size_t q0, size_t q1, size_t d0, size_t d1, struct sct_ips_workspace *w);

#endif
