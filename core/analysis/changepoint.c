/* changepoint.c: Pettitt's test by binary segmentation (see sc_changepoint.h). */
#include "sc_changepoint.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

typedef struct sc__ranked {
    double v;
    size_t i;
} sc__ranked;

static int sc__cmp_ranked(const void *a, const void *b)
{
    const sc__ranked *x = a, *y = b;

    if (x->v != y->v)
        return (x->v > y->v) - (x->v < y->v);
    return (x->i > y->i) - (x->i < y->i);
}

/* Mid-ranks (1-based; ties share their average rank) of x into r. 0, -EINVAL or -ENOMEM. */
static int sc__midranks(const double *x, size_t n, double *r)
{
    sc__ranked *s = malloc(n * sizeof(*s));

    if (!s)
        return -ENOMEM;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(x[i])) {
            free(s);
            return -EINVAL;
        }
        s[i] = (sc__ranked){x[i], i};
    }
    qsort(s, n, sizeof(*s), sc__cmp_ranked);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j + 1 < n && s[j + 1].v == s[i].v)
            j++;
        double mid = (double)(i + j) / 2 + 1; /* ranks i+1..j+1 */
        for (size_t k = i; k <= j; k++)
            r[s[k].i] = mid;
        i = j + 1;
    }
    free(s);
    return 0;
}

double sc_changepoint_pettitt(const double *x, size_t n, size_t min_side, size_t *at)
{
    double *r, sum = 0, best = 0, nn = (double)n;

    *at = 0;
    if (min_side < 1)
        min_side = 1;
    if (n < 2 * min_side)
        return 1;
    if (!(r = malloc(n * sizeof(*r))))
        return -1;
    if (sc__midranks(x, n, r) < 0) {
        free(r);
        return -1;
    }
    for (size_t t = 1; t < n; t++) {
        sum += r[t - 1];
        double u = fabs(2 * sum - (double)t * (nn + 1));
        if (t >= min_side && n - t >= min_side && u > best) {
            best = u;
            *at = t;
        }
    }
    free(r);
    if (best == 0)
        return 1;
    double p = 2 * exp(-6 * best * best / (nn * nn * nn + nn * nn));
    return p < 1 ? p : 1;
}

static int sc__cmp_cp(const void *a, const void *b)
{
    const sc_changepoint *x = a, *y = b;

    return (x->at > y->at) - (x->at < y->at);
}

int sc_changepoint_find(const double *x, size_t n, double alpha, size_t min_side,
                        sc_changepoint *out, size_t max)
{
    /* Segments still to test, [lo, hi): each change adds at most two. */
    size_t stack_lo[2 * SC_CHANGEPOINT_MAX + 2], stack_hi[2 * SC_CHANGEPOINT_MAX + 2];
    size_t top = 0, found = 0;

    if (!(alpha > 0 && alpha < 1))
        return -EINVAL;
    stack_lo[top] = 0;
    stack_hi[top++] = n;
    while (top > 0) {
        size_t lo = stack_lo[--top], hi = stack_hi[top], at;
        double p = sc_changepoint_pettitt(x + lo, hi - lo, min_side, &at);
        if (p < 0) {
            for (size_t i = lo; i < hi; i++)
                if (!isfinite(x[i]))
                    return -EINVAL;
            return -ENOMEM;
        }
        if (p >= alpha || found == max || found == SC_CHANGEPOINT_MAX)
            continue;
        out[found++] = (sc_changepoint){.at = lo + at, .p = p, .lo = lo, .hi = hi};
        stack_lo[top] = lo;
        stack_hi[top++] = lo + at;
        stack_lo[top] = lo + at;
        stack_hi[top++] = hi;
    }
    qsort(out, found, sizeof(*out), sc__cmp_cp);
    return (int)found;
}
