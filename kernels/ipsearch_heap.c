/*
 * ipsearch_heap.c: one query's partial top-k heap (see ipsearch_topk.h), apart from the
 * filters so that the portable and the x86 variants both call it and never each other.
 */
#include "ipsearch_topk.h"

#include <math.h>

void sct_ips_heap_reset(float *hs, int64_t *hi, size_t k)
{
    for (size_t j = 0; j < k; j++) {
        hs[j] = -INFINITY;
        hi[j] = -1;
    }
}

/* Sift (s, id) down from the root to its place. */
void sct_ips_heap_replace_top(float *hs, int64_t *hi, size_t k, float s, int64_t id)
{
    size_t i = 0;

    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= k)
            break;
        if (c + 1 < k && sct_ips_worse(hs[c + 1], hi[c + 1], hs[c], hi[c]))
            c++;
        if (!sct_ips_worse(hs[c], hi[c], s, id))
            break;
        hs[i] = hs[c];
        hi[i] = hi[c];
        i = c;
    }
    hs[i] = s;
    hi[i] = id;
}
