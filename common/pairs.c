/*
 * pairs.c: the round-robin schedule of node pairs (sc_pairs.h).
 */
#include "sc_pairs.h"

size_t sc_pairs_rounds(size_t n)
{
    if (n < 2)
        return 0;
    return n % 2 == 0 ? n - 1 : n;
}

long sc_pairs_partner(size_t n, size_t r, size_t i)
{
    size_t m = n % 2 == 0 ? n : n + 1; /* slots; slot n is the bye when n is odd */
    size_t turning = m - 1;            /* odd, so i = r is the one with 2r - i = i */
    size_t p;

    if (n < 2 || i >= n || r >= sc_pairs_rounds(n))
        return -1;
    if (i == m - 1) /* the fixed slot meets the one that would meet itself */
        p = r;
    else {
        p = (2 * r % turning + turning - i % turning) % turning;
        if (p == i)
            p = m - 1;
    }
    return p >= n ? -1 : (long)p;
}
