/*
 * linkmatrix_bench FILE N: judges the link matrix of N nodes in FILE (lines "i,j,figure",
 * 0 <= i < j < N, a rate: higher is better; pairs not listed are not measured) as health
 * does (outlier_mad 3, outlier_min_pct 20) and prints one line: the nodes, the findings,
 * the seconds the judgement took (CPU of this process) and its peak RSS in MiB, then one
 * line per finding ("node I" or "link I J"). For tests/bench/health_scale.sh.
 */
#include "sc_linkmatrix.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static double cpu_seconds(void)
{
    struct timespec t;

    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    size_t n = argc == 3 ? strtoul(argv[2], NULL, 10) : 0, np, i, j;
    FILE *in = argc == 3 ? fopen(argv[1], "r") : NULL;
    double *pairs, x, t0, t1;
    sc_linkmatrix_verdict v;
    struct rusage ru;

    if (!in || n < 2 || n > SC_LINKMATRIX_MAX_NODES) {
        fprintf(stderr, "usage: linkmatrix_bench FILE N (2 <= N <= %d)\n", SC_LINKMATRIX_MAX_NODES);
        return 2;
    }
    np = n * (n - 1) / 2;
    pairs = malloc(np * sizeof(*pairs));
    if (!pairs)
        return 1;
    for (size_t p = 0; p < np; p++)
        pairs[p] = NAN;
    while (fscanf(in, "%zu,%zu,%lf", &i, &j, &x) == 3)
        if (i < j && j < n)
            pairs[sc_linkmatrix_pair_index(n, i, j)] = x;
    fclose(in);
    t0 = cpu_seconds();
    if (sc_linkmatrix_judge_pairs(pairs, n, SC_LINKMATRIX_HIGHER, 3, 20, &v) < 0)
        return 1;
    t1 = cpu_seconds();
    getrusage(RUSAGE_SELF, &ru);
    printf("%zu %zu %.3f %.1f\n", n, v.n, t1 - t0, (double)ru.ru_maxrss / 1024);
    for (size_t f = 0; f < v.n; f++)
        if (v.findings[f].kind == SC_LINKMATRIX_NODE)
            printf("node %zu\n", v.findings[f].a);
        else
            printf("link %zu %zu\n", v.findings[f].a, v.findings[f].b);
    sc_linkmatrix_verdict_free(&v);
    free(pairs);
    return 0;
}
