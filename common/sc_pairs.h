/*
 * sc_pairs.h: the schedule that measures every pair of N nodes in rounds of disjoint pairs
 * (doc/contracts/analysis.md, "Link matrix"). libc only: every MPI rank computes its own partner
 * with it, without talking to the others.
 *
 * The circle method of round-robin tournaments: with m = N slots (N even) or N + 1 (N odd,
 * the extra slot being a bye), slot m-1 stays put and the others turn; in round r node
 * i < m-1 meets (2r - i) mod (m-1), or slot m-1 when that is i itself. That gives m-1 rounds
 * (N-1 for even N, N for odd), every pair exactly once, no node twice in a round.
 */
#ifndef SC_PAIRS_H
#define SC_PAIRS_H

#include <stddef.h>

/* Rounds needed for n nodes: n-1 for even n, n for odd n, 0 below 2. */
size_t sc_pairs_rounds(size_t n);

/* Node i's partner in round r of n nodes, or -1 for a bye (odd n) or i, r out of range. */
long sc_pairs_partner(size_t n, size_t r, size_t i);

#endif
