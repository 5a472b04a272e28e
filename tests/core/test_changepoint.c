/*
 * test_changepoint.c: Pettitt's test and its binary segmentation (core/analysis/changepoint.c,
 * doc/contracts/analysis.md, "History"): a hand-worked case, then synthetic histories of 200
 * bundles whose answer is known: a 10% step at bundle 120 under 5% noise (Gaussian, and with one
 * disturbed run in twenty 30% low) must be found within +-3 bundles, exactly once, in each
 * of 20 trials (18 of 20 with the disturbed runs); the same noise without a step must give no
 * change point in 20 trials (the false-alarm count is printed; at alpha 0.001 about 0.02 are
 * expected). The noise is from a fixed-seed generator, so the counts are the same on every machine.
 */
#include "sc_changepoint.h"
#include "sc_test.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>

#define N 200
#define STEP_AT 120
#define TRIALS 20

static uint64_t sc__state;

static double sc__uniform(void)
{
    /* xorshift64*: enough for test noise, and the same sequence everywhere. */
    sc__state ^= sc__state >> 12;
    sc__state ^= sc__state << 25;
    sc__state ^= sc__state >> 27;
    return (double)((sc__state * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}

static double sc__gauss(void)
{
    double u = sc__uniform(), v = sc__uniform();
    return sqrt(-2 * log(u > 0 ? u : 1e-300)) * cos(2 * M_PI * v);
}

/* A history of N medians around 1000 with relative noise sd; from STEP_AT on times step;
   outliers: one value in twenty 30% low. */
static void sc__history(double *x, uint64_t seed, double step, double sd, int outliers)
{
    sc__state = seed * 0x9E3779B97F4A7C15ull + 1;
    for (size_t i = 0; i < N; i++) {
        x[i] = 1000 * (i >= STEP_AT ? step : 1) * (1 + sd * sc__gauss());
        if (outliers && sc__uniform() < 0.05)
            x[i] *= 0.7;
    }
}

static void test_pettitt_by_hand(void)
{
    /* ranks 1..6; at t = 3: U = 2 (1 + 2 + 3) - 3 x 7 = -9, K = 9,
       p = 2 exp(-6 x 81 / (216 + 36)) = 2 exp(-1.928571) = 0.290711 */
    const double x[] = {1, 2, 3, 10, 11, 12};
    size_t at;
    double p = sc_changepoint_pettitt(x, 6, 1, &at);

    SC_CHECK_INT_EQ(at, 3);
    SC_CHECK_MSG(fabs(p - 0.290711) < 1e-5, "p %.6f", p);
    /* all equal: no change, p 1; too short for two sides of 3: p 1 */
    const double same[] = {5, 5, 5, 5, 5, 5};
    SC_CHECK(sc_changepoint_pettitt(same, 6, 1, &at) == 1);
    SC_CHECK(sc_changepoint_pettitt(x, 5, 3, &at) == 1);
    const double bad[] = {1, NAN, 3};
    SC_CHECK(sc_changepoint_pettitt(bad, 3, 1, &at) < 0);
    sc_changepoint cp[4];
    SC_CHECK_INT_EQ(sc_changepoint_find(bad, 3, 0.01, 1, cp, 4), -EINVAL);
    SC_CHECK_INT_EQ(sc_changepoint_find(x, 6, 0, 1, cp, 4), -EINVAL);
}

/* The trials (of TRIALS) whose one change point lies within +-3 bundles of the step. */
static int sc__step_trials(int outliers)
{
    double x[N];
    sc_changepoint cp[8];
    int hits = 0;

    for (uint64_t t = 1; t <= TRIALS; t++) {
        sc__history(x, t, 0.9, 0.05, outliers);
        int n = sc_changepoint_find(x, N, SC_CHANGEPOINT_ALPHA, SC_CHANGEPOINT_MIN_SIDE, cp, 8);
        long off = n == 1 ? (long)cp[0].at - STEP_AT : 1000;
        if (off >= -3 && off <= 3)
            hits++;
        else
            printf("trial %d: %d change points, the first at %zu (the step is at %d)\n", (int)t, n,
                   n > 0 ? cp[0].at : 0, STEP_AT);
    }
    printf("step: %d of %d trials found it, once, within +-3 bundles (outliers: %s)\n", hits,
           TRIALS, outliers ? "one run in twenty 30% low" : "none");
    return hits;
}

static void test_step_found(void)
{
    SC_CHECK_INT_EQ(sc__step_trials(0), TRIALS);
}

/* A disturbed run in twenty, 30% low, can pull the split: 18 of 20 (measured; the
   seeds are fixed, so a change of the method that moves this is seen). */
static void test_step_found_with_outliers(void)
{
    SC_CHECK(sc__step_trials(1) >= TRIALS - 2);
}

/* Change points in TRIALS flat histories at level alpha. */
static int sc__false_alarms(double alpha, int outliers)
{
    double x[N];
    sc_changepoint cp[SC_CHANGEPOINT_MAX];
    int alarms = 0;

    for (uint64_t t = 1; t <= TRIALS; t++) {
        sc__history(x, 1000 + t, 1, 0.05, outliers);
        int n = sc_changepoint_find(x, N, alpha, SC_CHANGEPOINT_MIN_SIDE, cp, SC_CHANGEPOINT_MAX);
        alarms += n > 0;
    }
    return alarms;
}

static void test_flat_no_alarm(void)
{
    int plain = sc__false_alarms(SC_CHANGEPOINT_ALPHA, 0);
    int dirty = sc__false_alarms(SC_CHANGEPOINT_ALPHA, 1);

    printf("flat: %d and %d false alarms in %d trials each (Gaussian; with outliers)\n", plain,
           dirty, TRIALS);
    SC_CHECK_INT_EQ(plain, 0);
    SC_CHECK_INT_EQ(dirty, 0);
    /* The test can fail: at a level of 0.5 the same flat histories do show changes. */
    SC_CHECK(sc__false_alarms(0.5, 0) > 3);
}

static void test_two_steps(void)
{
    /* 1000 for 60 points, 1200 for 60, 1000 again for 80, 2% noise: both found. */
    double x[N];
    sc_changepoint cp[8];

    sc__state = 7;
    for (size_t i = 0; i < N; i++)
        x[i] = (i >= 60 && i < 120 ? 1200 : 1000) * (1 + 0.02 * sc__gauss());
    int n = sc_changepoint_find(x, N, SC_CHANGEPOINT_ALPHA, SC_CHANGEPOINT_MIN_SIDE, cp, 8);
    SC_CHECK_INT_EQ(n, 2);
    SC_CHECK_MSG(cp[0].at >= 58 && cp[0].at <= 62, "first at %zu", cp[0].at);
    SC_CHECK_MSG(cp[1].at >= 118 && cp[1].at <= 122, "second at %zu", cp[1].at);
}

int main(void)
{
    SC_TEST_RUN(test_pettitt_by_hand);
    SC_TEST_RUN(test_step_found);
    SC_TEST_RUN(test_step_found_with_outliers);
    SC_TEST_RUN(test_flat_no_alarm);
    SC_TEST_RUN(test_two_steps);
    return SC_TEST_RESULT();
}
