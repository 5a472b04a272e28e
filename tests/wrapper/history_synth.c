/*
 * history_synth.c: synthetic bundles into a history store, through the same write as
 * `streamcard history add` (sc_history_put(), wrapper/history.h), for the history test and
 * tests/bench/history_scale.sh. Nothing here is evidence: the records are made up (digest
 * "synthetic-<card>-<i>"), so they go only into stores made for a test or a bench.
 *
 *   history_synth DB N [--card NAME] [--host HOST] [--step AT FACTOR] [--noise SD]
 *                 [--seed S] [--batch K] [--cards C]
 *
 * N bundles of STREAM copy, one a day from 2026-01-01, each 6 runs around 10000 MB/s with
 * relative Gaussian noise SD (default 0.05) per bundle and 0.01 between runs; from bundle
 * AT on, FACTOR times as fast, and another binary_sha256 (what differs). --cards C spreads
 * the bundles over C cards (card-0 ... card-C-1) for the bench; --batch K puts K records in
 * one transaction (default 1: one each, as history add does).
 */
#include "history.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t sc__state = 1;

static double sc__uniform(void)
{
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

static int sc__cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    const char *card = "synthetic", *host = "node1";
    long at = -1, batch = 1, cards = 1;
    double factor = 1, sd = 0.05;
    char why[1024];
    sc_history *h;

    if (argc < 3) {
        fprintf(stderr, "usage: history_synth DB N [--card NAME] [--host HOST] [--step AT FACTOR] "
                        "[--noise SD] [--seed S] [--batch K] [--cards C]\n");
        return 2;
    }
    long n = atol(argv[2]);
    for (int i = 3; i < argc; i++) {
        if (!strcmp(argv[i], "--card") && i + 1 < argc)
            card = argv[++i];
        else if (!strcmp(argv[i], "--host") && i + 1 < argc)
            host = argv[++i];
        else if (!strcmp(argv[i], "--step") && i + 2 < argc) {
            at = atol(argv[++i]);
            factor = atof(argv[++i]);
        } else if (!strcmp(argv[i], "--noise") && i + 1 < argc)
            sd = atof(argv[++i]);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            sc__state = strtoull(argv[++i], NULL, 10) * 0x9E3779B97F4A7C15ull + 1;
        else if (!strcmp(argv[i], "--batch") && i + 1 < argc)
            batch = atol(argv[++i]);
        else if (!strcmp(argv[i], "--cards") && i + 1 < argc)
            cards = atol(argv[++i]);
        else {
            fprintf(stderr, "history_synth: %s: unknown argument\n", argv[i]);
            return 2;
        }
    }
    if (sc_history_open(argv[1], true, true, &h, why, sizeof(why)) < 0) {
        fprintf(stderr, "history_synth: %s\n", why);
        return 3;
    }
    for (long i = 0; i < n; i++) {
        char digest[512], name[512], cardname[256];
        double runs[6], median = 10000 * (at >= 0 && i >= at ? factor : 1) * (1 + sd * sc__gauss());
        long c = i % cards;
        long day = i / cards;
        snprintf(cardname, sizeof(cardname), cards > 1 ? "%s-%ld" : "%s", card, c);
        snprintf(digest, sizeof(digest), "synthetic-%s-%s-%ld", cardname, host, day);
        snprintf(name, sizeof(name), "%s_%06ld", cardname, day);
        for (int k = 0; k < 6; k++)
            runs[k] = median * (1 + 0.01 * sc__gauss());
        double sorted[6];
        memcpy(sorted, runs, sizeof(sorted));
        qsort(sorted, 6, sizeof(double), sc__cmp);
        const char *binary = at >= 0 && i >= at ? "bbbb" : "aaaa";
        sc_history_var vars[] = {{"binary_sha256", "build", binary, NULL},
                                 {"threads", "run", "2", "cpu_list"},
                                 {"cpu_list", "run", "0-1", NULL},
                                 {"host", "platform", host, NULL}};
        sc_history_gate gates[] = {{"validation", "ok", "validated"}};
        sc_history_figure fig = {.metric = "copy",
                                 .unit = "MB/s",
                                 .better = "higher",
                                 .runs = 6,
                                 .median = (sorted[2] + sorted[3]) / 2,
                                 .ci = true,
                                 .ci_low = sorted[0],
                                 .ci_high = sorted[5],
                                 .samples = runs};
        const char *env[] = {"OMP_WAIT_POLICY=passive"};
        sc_history_record r = {.digest = digest,
                               .name = name,
                               .path = "/synthetic",
                               .card = cardname,
                               .card_sha256 = "synthetic",
                               .workload = "stream",
                               .kernel = "copy",
                               .host = host,
                               .verdict = "ok",
                               .attested = "synthetic: nothing attested",
                               .streamcard_version = "synthetic",
                               .owner_uid = 0,
                               .started_at = 1767225600 + 86400 * day,
                               .ended_at = 1767225600 + 86400 * day + 60,
                               .usable = true,
                               .vars = vars,
                               .n_vars = 4,
                               .env = env,
                               .n_env = 1,
                               .gates = gates,
                               .n_gates = 1,
                               .figures = &fig,
                               .n_figures = 1};
        if (batch > 1 && i % batch == 0 && sc_history_begin(h) < 0)
            break;
        if (sc_history_put(h, &r) < 0) {
            fprintf(stderr, "history_synth: %s\n", sc_history_error(h));
            sc_history_close(h);
            return 3;
        }
        if (batch > 1 && (i % batch == batch - 1 || i == n - 1) && sc_history_commit(h) < 0) {
            fprintf(stderr, "history_synth: commit: %s\n", sc_history_error(h));
            sc_history_close(h);
            return 3;
        }
    }
    sc_history_close(h);
    return 0;
}
