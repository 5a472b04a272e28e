/*
 * test_pairs: the pair schedule checked exhaustively (every pair once, no node twice in a
 * round, the round count, the byes) for every node count up to 130 and around 256, 512
 * and 1024.
 */
#include "sc_pairs.h"
#include "sc_pairs_csv.h"
#include "sc_test.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* parse(text) of 3 nodes in 2 passes at 8 bytes: its status; why in why. */
static int parse3(const char *text, double *t, double *bw, size_t *lines, char *why)
{
    return sc_pairs_csv_parse(text, strlen(text), 3, 2, 8, t, bw, lines, why, 256);
}

#define H "# streamcard link matrix: bytes=8 nodes=3 passes=2\npass,a,b,t_usec,MBps\n"

/* The raw figures' file: written and read back (a pair not measured in a pass has no line,
   the diagonal stays NaN); every malformed line, a pair twice or out of order, an index or
   a pass out of range, a header of other bytes, nodes or passes, a missing newline and an
   oversized file refused. */
static void test_csv(void)
{
    double t[18], bw[18], t2[18], bw2[18];
    char *text = NULL, why[256], name[64];
    size_t len = 0, lines = 0;
    FILE *f = open_memstream(&text, &len);

    for (size_t c = 0; c < 18; c++)
        t[c] = bw[c] = NAN;
    t[0 * 3 + 1] = t[1 * 3 + 0] = sc_pairs_csv_round(1.0 / 3); /* pass 0 */
    bw[0 * 3 + 1] = bw[1 * 3 + 0] = 24000.5;
    t[9 + 1 * 3 + 2] = t[9 + 2 * 3 + 1] = 7; /* pass 1 */
    bw[9 + 1 * 3 + 2] = bw[9 + 2 * 3 + 1] = 1e-3;
    SC_CHECK(f && sc_pairs_csv_write(f, 3, 2, 9, 8, t, bw) == 0 && fclose(f) == 0);
    SC_CHECK_STR_EQ(text, H "0,0,1,0.333333333,24000.5\n1,1,2,7,0.001\n");
    SC_CHECK_INT_EQ(parse3(text, t2, bw2, &lines, why), 0);
    SC_CHECK_INT_EQ(lines, 2);
    SC_CHECK(t2[1] == t[1] && t2[3] == t[1] && bw2[9 + 5] == 1e-3 && bw2[9 + 7] == 1e-3 &&
             isnan(t2[2]) && isnan(t2[0]) && isnan(t2[9 + 1]));
    free(text);
    static const char *const bad[] = {
        "# streamcard link matrix: bytes=16 nodes=3 passes=2\npass,a,b,t_usec,MBps\n",
        "# streamcard link matrix: bytes=8 nodes=4 passes=2\npass,a,b,t_usec,MBps\n",
        "# streamcard link matrix: bytes=8 nodes=3 passes=3\npass,a,b,t_usec,MBps\n",
        "# streamcard link matrix: bytes=8 nodes=3 passes=2\na,b,t_usec,MBps\n",
        H "0,0,1,1,1",
        H "0,1,0,1,1\n",
        H "0,0,3,1,1\n",
        H "2,0,1,1,1\n",
        H "0,0,1,1,1\n0,0,1,1,1\n",
        H "0,1,2,1,1\n0,0,1,1,1\n",
        H "1,0,1,1,1\n0,1,2,1,1\n",
        H "0,0,1,0,1\n",
        H "0,0,1,1,nan\n",
        H "0,0,1,1,1e999\n",
        H "0,0,1, 1,1\n",
        H "0,-0,1,1,1\n",
        H "0,0,1,1,1,1\n",
        H "0,0,1,,1\n",
        H "0,0,1,1\n",
        H "\n",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        SC_CHECK_MSG(parse3(bad[i], t2, bw2, &lines, why) == -EINVAL, "case %zu accepted", i);
    SC_CHECK_INT_EQ(parse3(H "0,0,1,1,1\n1,0,1,2,2\n", t2, bw2, &lines, why), 0);
    SC_CHECK(lines == 2 && t2[1] == 1 && t2[9 + 1] == 2);
    SC_CHECK_INT_EQ(sc_pairs_csv_parse("", sc_pairs_csv_cap(3, 2) + 1, 3, 2, 8, t2, bw2, &lines,
                                       why, sizeof(why)),
                    -EINVAL);
    SC_CHECK(strstr(why, "larger than") != NULL);
    SC_CHECK_INT_EQ(sc_pairs_csv_name(65536, name, sizeof(name)), 0);
    SC_CHECK_STR_EQ(name, "matrix/65536B.csv");
    SC_CHECK(sc_pairs_csv_cap(4096, 3) >= 4096ull * 4095 / 2 * 3 * SC_PAIRS_CSV_LINE_MAX);
}

int main(void)
{
    SC_TEST_RUN(test_schedule);
    SC_TEST_RUN(test_csv);
    return sc_test_failures ? 1 : 0;
}
