/*
 * test_pairs: the pair schedule checked exhaustively (every pair once, no node twice in a
 * round, the round count, the byes) for every node count up to 130 and around 256, 512
 * and 1024.
 */
#include "sc_pairs.h"
#include "sc_test.h"

#include <stdlib.h>

/* Partners are symmetric and every pair meets in exactly one round: every n up to 130 and
   the sizes either side of the powers of two up to 1024. */
static void test_schedule(void)
{
    static const size_t big[] = {255, 256, 257, 511, 512, 513, 1000, 1023, 1024};

    for (size_t c = 2; c <= 130 + sizeof(big) / sizeof(big[0]); c++) {
        size_t n = c <= 130 ? c : big[c - 131];
        size_t rounds = sc_pairs_rounds(n), pairs = 0;
        unsigned char *met = calloc(n * n, 1);

        SC_CHECK(met);
        SC_CHECK_INT_EQ(rounds, n % 2 == 0 ? n - 1 : n);
        for (size_t r = 0; r < rounds; r++) {
            size_t byes = 0;

            for (size_t i = 0; i < n; i++) {
                long p = sc_pairs_partner(n, r, i);

                if (p < 0) {
                    byes++;
                    continue;
                }
                /* one partner per node per round: the partner's partner is i */
                SC_CHECK_MSG(p != (long)i && (size_t)p < n &&
                                 sc_pairs_partner(n, r, (size_t)p) == (long)i,
                             "n=%zu round %zu: node %zu -> %ld", n, r, i, p);
                if ((size_t)p > i) {
                    SC_CHECK_MSG(!met[i * n + (size_t)p], "n=%zu: pair %zu-%ld twice", n, i, p);
                    met[i * n + (size_t)p] = 1;
                    pairs++;
                }
            }
            SC_CHECK_MSG(byes == n % 2, "n=%zu round %zu: %zu byes", n, r, byes);
        }
        SC_CHECK_INT_EQ(pairs, n * (n - 1) / 2);
        free(met);
    }
    SC_CHECK_INT_EQ(sc_pairs_rounds(1), 0);
    SC_CHECK_INT_EQ(sc_pairs_partner(4, 3, 0), -1);
    SC_CHECK_INT_EQ(sc_pairs_partner(4, 0, 4), -1);
}

int main(void)
{
    SC_TEST_RUN(test_schedule);
    return sc_test_failures ? 1 : 0;
}
