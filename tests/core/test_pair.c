/*
 * test_pair.c: a paired run's card side and rules (sc_pair.h): against: read, checked and
 * made into two sides; two cards made into one pair card (run A --against B); the order
 * drawn from a seed; the pairs' stopping rule; the comparison of separate and paired sides
 * with what overrides the interval (contamination, drift, Holm).
 */
#include "card_util.h"
#include "sc_compare.h"
#include "sc_pair.h"
#include "sc_series.h"
#include "sc_test.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define HEAD "version: 1\nexperiment:\n  workload: ipsearch\n  cpu_list: 0\n  nb: 1000\n"

/* The first problem a card gives (parse, then its series), or "" when none. */
static void problem_of(const char *yaml, char *buf, size_t len)
{
    sc_diag d;
    sc_series s;

    sc_diag_init(&d);
    *buf = '\0';
    sc_card *card = sc_test_card_parsed(yaml, &d);
    if (card) { /* the series is freed whether or not its cards passed */
        sc_series_from_card(card, &s, &d);
        sc_series_free(&s);
    }
    if (d.count)
        snprintf(buf, len, "%s", d.lines[0]);
    sc_card_free(card);
    sc_diag_free(&d);
}

/* against: one key: side A as written, side B with the key changed and named after it. */
static void test_against_sides(void)
{
    sc_diag d;
    sc_series s;

    sc_diag_init(&d);
    sc_card *card = sc_test_card_parsed(HEAD "against:\n  nb: 1100\n", &d);
    SC_CHECK(card != NULL && card->against != NULL);
    SC_CHECK_STR_EQ(sc_pair_key(card), "nb");
    SC_CHECK_INT_EQ(sc_series_from_card(card, &s, &d), 0);
    SC_CHECK(s.paired && s.n == 2);
    SC_CHECK_STR_EQ(s.variable, "nb");
    SC_CHECK_INT_EQ(s.runs[0].card->nb, 1000);
    SC_CHECK_INT_EQ(s.runs[1].card->nb, 1100);
    SC_CHECK(s.runs[0].card->against == NULL && s.runs[1].card->against == NULL);
    SC_CHECK_STR_EQ(s.runs[0].card->run_name, "ipsearch_1thread_1pool");
    SC_CHECK_STR_EQ(s.runs[1].card->run_name, "ipsearch_1thread_1pool_nb-1100");
    sc_series_free(&s);
    sc_card_free(card);
    /* an env variable; an A/A pair */
    card = sc_test_card_parsed(HEAD "against:\n  env:\n    OMP_WAIT_POLICY: passive\n", &d);
    SC_CHECK(card != NULL);
    SC_CHECK_STR_EQ(sc_pair_key(card), "env.OMP_WAIT_POLICY");
    SC_CHECK_INT_EQ(sc_series_from_card(card, &s, &d), 0);
    SC_CHECK_STR_EQ(sc_card_env_get(s.runs[1].card, "OMP_WAIT_POLICY"), "passive");
    SC_CHECK(sc_card_env_get(s.runs[0].card, "OMP_WAIT_POLICY") == NULL);
    sc_series_free(&s);
    sc_card_free(card);
    card = sc_test_card_parsed(HEAD "against: {}\n", &d);
    SC_CHECK(card != NULL && sc_pair_key(card) == NULL);
    SC_CHECK_INT_EQ(sc_series_from_card(card, &s, &d), 0);
    SC_CHECK_STR_EQ(s.variable, "none");
    SC_CHECK_STR_EQ(s.runs[1].card->run_name, s.runs[0].card->run_name);
    sc_series_free(&s);
    sc_card_free(card);
    SC_CHECK_INT_EQ(d.count, 0);
    sc_diag_free(&d);
}

/* What against: may not hold, each one line. */
static void test_against_refused(void)
{
    static const struct {
        const char *yaml, *problem;
    } cases[] = {
        {HEAD "against:\n  nb: 1100\n  nq: 10\n",
         "card.yaml:6: against: changes 2 keys (nb, nq): a pair answers one question"},
        {HEAD "against:\n  governor: performance\n",
         "card.yaml:7: against: governor: the sides take turns in one job"},
        {HEAD "against:\n  runs: 6\n",
         "card.yaml:7: against: runs cannot differ between the sides (valid: keys a sweep"},
        {HEAD "  threads: [1, 2]\n  cpu_list: 0-1\nagainst:\n  nb: 1100\n", ""},
        {HEAD "against: 3\n", "card.yaml:6: against: expected a mapping of the one key"},
        {HEAD "  prefetch: off\nagainst: {}\n",
         "card.yaml:7: against: a pair's sides are bundles of their own inside the job's"},
        {HEAD "against:\n  nb: [1, 2]\n", "card.yaml:7: against: nb: expected a single value"},
        {HEAD "against:\n  nb: 0\n", "card.yaml:7 (against): nb:"},
        {HEAD "against: {}\nablation:\n  - name: x\n    set: {nb: 5}\n",
         "card.yaml:6: against: a study is no pair"},
    };
    char got[512];

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        problem_of(cases[i].yaml, got, sizeof(got));
        if (i == 3) { /* a sweep: its own duplicate key or the pair's refusal, never a run */
            SC_CHECK_MSG(*got, "case %zu: accepted", i);
            continue;
        }
        SC_CHECK_MSG(strncmp(got, cases[i].problem, strlen(cases[i].problem)) == 0,
                     "case %zu: \"%s\", expected \"%s...\"", i, got, cases[i].problem);
    }
    problem_of(HEAD "  threads: [1, 2]\nagainst:\n  nb: 1100\n", got, sizeof(got));
    SC_CHECK_MSG(strstr(got, "against: a pair sweeps nothing"), "sweep: \"%s\"", got);
}

/* The pair card's YAML (what a job gets, side A resolved with the against:) reads back as
   the same pair. */
static void test_against_yaml(void)
{
    static const char *const cards[] = {HEAD "against:\n  nb: 1100\n",
                                        HEAD "against:\n  env: {OMP_WAIT_POLICY: passive}\n",
                                        HEAD "  expect:\n    max_interference_pct: 100\n"
                                             "against:\n  expect: {max_interference_pct: 50}\n",
                                        HEAD "against: {}\n"};
    sc_diag d;

    sc_diag_init(&d);
    for (size_t i = 0; i < sizeof(cards) / sizeof(cards[0]); i++) {
        sc_card *card = sc_test_card_parsed(cards[i], &d);
        sc_series s;
        SC_CHECK(card && sc_series_from_card(card, &s, &d) == 0);
        card->overridden = true; /* as --against makes it: emitted, not the text as given */
        char *yaml = sc_pair_card_yaml(card, s.runs[0].card);
        sc_series_free(&s);
        sc_card *back = yaml ? sc_test_card_parsed(yaml, &d) : NULL;
        SC_CHECK_MSG(back && back->against, "case %zu: %s", i, yaml ? yaml : "(null)");
        SC_CHECK_MSG((sc_pair_key(back) == NULL) == (sc_pair_key(card) == NULL) &&
                         (!sc_pair_key(card) || !strcmp(sc_pair_key(back), sc_pair_key(card))) &&
                         (!sc_pair_key(card) ||
                          !strcmp(back->against->set[0].value, card->against->set[0].value)),
                     "case %zu: %s", i, yaml);
        free(yaml);
        sc_card_free(back);
        sc_card_free(card);
    }
    SC_CHECK_INT_EQ(d.count, 0);
    sc_diag_free(&d);
}

#define HEAD2 "version: 1\nexperiment:\n  workload: ipsearch\n  cpu_list: 0\n"

/* run A --against B: their one difference becomes A's against:; more than one, or one a
   pair cannot vary, is refused naming them. */
static void test_against_cards(void)
{
    static const struct {
        const char *b;
        int rc;
        const char *key, *value, *problem;
    } cases[] = {
        {HEAD2 "  nb: 1100\n", 0, "nb", "1100", NULL},
        {HEAD2 "  nb: 1000\n", 0, NULL, NULL, NULL},
        {HEAD2 "  nb: 1000\n  question: other words\n  run_name: other\n", 0, NULL, NULL, NULL},
        {HEAD2 "  nb: 1000\n  threads: 1\n", 0, NULL, NULL, NULL}, /* they fill cpu_list */
        {HEAD2 "  nb: 1000\n  env:\n    OMP_WAIT_POLICY: active\n", 0, "env.OMP_WAIT_POLICY",
         "active", NULL},
        {HEAD2 "  nb: 1100\n  nq: 50\n", -EINVAL, NULL, NULL,
         "differs from a.yaml in 2 keys (nb, nq)"},
        {HEAD2 "  nb: 1000\n  runs: 6\n", -EINVAL, NULL, NULL,
         "differs from a.yaml in runs, which a pair cannot"},
        {HEAD2 "  nb: 1000\n  governor: performance\n", -EINVAL, NULL, NULL,
         "against: governor: the sides"},
    };
    sc_diag d;

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        sc_diag_init(&d);
        sc_card *a = sc_card_new(), *b = sc_card_new();
        const char *a_yaml = HEAD2 "  nb: 1000\n";
        SC_CHECK(sc_card_parse(a, a_yaml, strlen(a_yaml), "a.yaml", &d) == 0 &&
                 sc_card_parse(b, cases[i].b, strlen(cases[i].b), "b.yaml", &d) == 0);
        int rc = sc_pair_against(a, b, &d);
        SC_CHECK_MSG(rc == cases[i].rc, "case %zu: rc %d (%s)", i, rc, d.count ? d.lines[0] : "");
        if (rc == 0) {
            SC_CHECK_MSG(a->against != NULL, "case %zu: no against", i);
            SC_CHECK_MSG((sc_pair_key(a) == NULL) == (cases[i].key == NULL), "case %zu: key %s", i,
                         sc_pair_key(a) ? sc_pair_key(a) : "none");
            if (cases[i].key) {
                SC_CHECK_STR_EQ(sc_pair_key(a), cases[i].key);
                SC_CHECK_STR_EQ(a->against->set[0].value, cases[i].value);
            }
        } else {
            SC_CHECK_MSG(d.count && strstr(d.lines[0], cases[i].problem), "case %zu: \"%s\"", i,
                         d.count ? d.lines[0] : "");
        }
        sc_card_free(a);
        sc_card_free(b);
        sc_diag_free(&d);
    }
}

#define HEAD_EXEC                                                                                 \
    "version: 1\nexperiment:\n  workload: exec\n  command: [/bin/true]\n  cpu_list: 0\n"        \
    "  metrics:\n"
#define RATE(UNIT, BETTER, PRIMARY)                                                               \
    "    - {name: rate, pattern: 'rate ([0-9]+)', unit: " UNIT ", better: " BETTER PRIMARY "}\n"

/* run A --against B of two exec cards: B is made of A's card, so metrics: that B declares
   otherwise (name, unit, better, primary) are refused, naming the first difference. */
static void test_against_metrics(void)
{
    static const struct {
        const char *b;
        int rc;
        const char *problem;
    } cases[] = {
        {HEAD_EXEC RATE("MB/s", "higher", ", primary: true"), 0, NULL},
        {HEAD_EXEC RATE("GB/s", "higher", ", primary: true"), -EINVAL,
         "--against b.yaml: declares other metrics than a.yaml: metric rate: unit MB/s in A, GB/s "
         "in B (valid: cards whose metrics: have the same names, units, directions and primary)"},
        {HEAD_EXEC RATE("MB/s", "lower", ", primary: true"), -EINVAL,
         "metric rate: better higher in A, lower in B"},
        {HEAD_EXEC RATE("MB/s", "higher", ""), -EINVAL,
         "metric rate: primary: true in A, not in B"},
        {HEAD_EXEC RATE("MB/s", "higher", ", primary: true") "    - {name: t, pattern: 't "
                                                             "([0-9]+)', unit: s, better: lower}\n",
         -EINVAL, "metric t: declared by B's card, not by A's"},
        {"version: 1\nexperiment:\n  workload: exec\n  command: [/bin/true]\n  cpu_list: 0\n",
         -EINVAL, "metric rate: declared by A's card, not by B's"},
    };
    const char *a_yaml = HEAD_EXEC RATE("MB/s", "higher", ", primary: true");
    sc_diag d;

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        sc_diag_init(&d);
        sc_card *a = sc_card_new(), *b = sc_card_new();
        SC_CHECK_MSG(sc_card_parse(a, a_yaml, strlen(a_yaml), "a.yaml", &d) == 0 &&
                         sc_card_parse(b, cases[i].b, strlen(cases[i].b), "b.yaml", &d) == 0,
                     "case %zu: %s", i, d.count ? d.lines[0] : "");
        int rc = sc_pair_against(a, b, &d);
        SC_CHECK_MSG(rc == cases[i].rc, "case %zu: rc %d (%s)", i, rc, d.count ? d.lines[0] : "");
        if (rc < 0)
            SC_CHECK_MSG(d.count && strstr(d.lines[0], cases[i].problem), "case %zu: \"%s\"", i,
                         d.count ? d.lines[0] : "");
        sc_card_free(a);
        sc_card_free(b);
        sc_diag_free(&d);
    }
}

/* The order: the same seed gives the same order; each pair draws AB or BA, about half each;
   another seed another order. */
static void test_order(void)
{
    size_t ba = 0, same = 0, longest = 0, run = 0;
    bool last = false;

    for (size_t i = 0; i < 2000; i++) {
        bool b = sc_pair_b_first(7, i);
        SC_CHECK(b == sc_pair_b_first(7, i));
        ba += b;
        same += b == sc_pair_b_first(8, i);
        run = i && b == last ? run + 1 : 1;
        longest = run > longest ? run : longest;
        last = b;
    }
    SC_CHECK_MSG(ba > 900 && ba < 1100, "%zu of 2000 pairs BA", ba);
    SC_CHECK_MSG(same > 900 && same < 1100, "seeds 7 and 8 agree on %zu of 2000", same);
    SC_CHECK_MSG(longest < 20, "%zu pairs in a row in one order", longest);
}

/* A run object with one qps figure. */
static json_object *run_with(double qps)
{
    json_object *o = json_object_new_object(), *m = json_object_new_object();

    json_object_object_add(m, "qps", json_object_new_double(qps));
    json_object_object_add(o, "metrics", m);
    return o;
}

/* The stopping rule: runs: N is N pairs; auto stops once the paired interval of the primary
   metric is within runs_ci_pct, not before 6 pairs, at runs_max at the latest. */
static void test_done(void)
{
    sc_diag d;
    char why[256];

    sc_diag_init(&d);
    sc_card *fixed = sc_test_card_parsed(HEAD "  runs: 3\n", &d),
            *aut = sc_test_card_parsed(HEAD "  runs: auto\n", &d);
    SC_CHECK(fixed && aut && sc_card_check(fixed, &d) == 0 && sc_card_check(aut, &d) == 0);
    json_object *a = json_object_new_array(), *b = json_object_new_array();
    for (int i = 0; i < 5; i++) { /* both sides drift by 10% a pair; B is 0.9 of A in each */
        json_object_array_add(a, run_with(1000 * (1 + 0.1 * i)));
        json_object_array_add(b, run_with(900 * (1 + 0.1 * i)));
    }
    json_object *none = json_object_new_array();
    SC_CHECK(!sc_pair_done(fixed, a, none, false, why, sizeof(why))); /* one side empty */
    json_object_put(none);
    SC_CHECK(sc_pair_done(fixed, a, b, false, why, sizeof(why)));
    SC_CHECK_STR_EQ(why, "runs: 3 pairs done");
    SC_CHECK(!sc_pair_done(aut, a, b, false, why, sizeof(why))); /* 5 pairs: no interval */
    json_object_array_add(a, run_with(1500));
    json_object_array_add(b, run_with(1350));
    SC_CHECK(sc_pair_done(aut, a, b, false, why, sizeof(why)));
    SC_CHECK_MSG(strstr(why, "the paired 95% interval of qps within runs_ci_pct 2% after 6 pairs"),
                 "%s", why);
    SC_CHECK(sc_pair_done(aut, a, b, true, why, sizeof(why)));
    SC_CHECK_STR_EQ(why, "pair 6 failed its gates");
    json_object_put(a);
    json_object_put(b);
    sc_card_free(fixed);
    sc_card_free(aut);
    sc_diag_free(&d);
}

/* results.json-like objects: one run per value, each with its worst foreign share. */
static json_object *results_of(const double *qps, size_t n, double share, const char *start,
                               const char *end)
{
    json_object *r = json_object_new_object(), *runs = json_object_new_array();

    json_object_object_add(r, "workload", json_object_new_string("ipsearch"));
    json_object_object_add(r, "started_at", json_object_new_string(start));
    json_object_object_add(r, "ended_at", json_object_new_string(end));
    for (size_t i = 0; i < n; i++) {
        json_object *run = run_with(qps[i]), *intf = json_object_new_object();
        json_object *cpus = json_object_new_array(), *cpu = json_object_new_object();
        json_object_object_add(cpu, "share_pct", json_object_new_double(share));
        json_object_array_add(cpus, cpu);
        json_object_object_add(intf, "cpus", cpus);
        json_object_object_add(run, "interference", intf);
        json_object_array_add(runs, run);
    }
    json_object_object_add(r, "runs", runs);
    return r;
}

/*
 * What overrides the interval: B's runs 10% slower than A's, both drifting up 3% a run.
 * Separate sides measured apart: drifting host. Paired: B slower. A side above the
 * contamination limit: contaminated, whatever the interval. The same sides measured at once
 * (overlapping times): the interval's verdict.
 */
static void test_compare_overrides(void)
{
    double a[8], b[8];
    sc_metric m;
    sc_comparison c;

    for (int i = 0; i < 8; i++) {
        a[i] = 1000 * (1 + 0.03 * i);
        b[i] = 0.9 * a[i];
    }
    SC_CHECK_INT_EQ(sc_metric_lookup("qps", &m), 0);
    json_object *ra = results_of(a, 8, 1, "2026-01-01T10:00:00Z", "2026-01-01T10:01:00Z");
    json_object *rb = results_of(b, 8, 1, "2026-01-01T10:02:00Z", "2026-01-01T10:03:00Z");
    json_object *rb_now = results_of(b, 8, 1, "2026-01-01T10:00:00Z", "2026-01-01T10:01:00Z");
    json_object *rb_busy = results_of(b, 8, 30, "2026-01-01T10:00:00Z", "2026-01-01T10:01:00Z");
    sc_compare_opts sep = {
        .bound_pct = 5, .max_interference_pct = 5, .apart = sc_compare_apart(ra, rb)};
    sc_compare_opts now = {
        .bound_pct = 5, .max_interference_pct = 5, .apart = sc_compare_apart(ra, rb_now)};
    sc_compare_opts paired = {.bound_pct = 5, .max_interference_pct = 5, .paired = true};

    SC_CHECK(sep.apart && !now.apart);
    SC_CHECK_INT_EQ(sc_compare_metric(ra, rb, &m, &sep, &c), 0);
    SC_CHECK(c.trend_a.tested && c.trend_a.p < 0.05);
    SC_CHECK_INT_EQ(c.verdict, SC_VERDICT_DRIFTING);
    SC_CHECK_STR_EQ(sc_stats_verdict_name(c.verdict), "drifting host: use --against");
    SC_CHECK_INT_EQ(sc_compare_metric(ra, rb_now, &m, &now, &c), 0);
    SC_CHECK_INT_EQ(c.verdict, c.interval);
    SC_CHECK_INT_EQ(sc_compare_metric(ra, rb, &m, &paired, &c), 0);
    SC_CHECK_INT_EQ(c.verdict, SC_VERDICT_SLOWER);
    SC_CHECK(c.r.paired && c.r.ci && fabs(c.r.ratio - 0.9) < 1e-9);
    SC_CHECK_INT_EQ(sc_compare_metric(ra, rb_busy, &m, &paired, &c), 0);
    SC_CHECK_INT_EQ(c.verdict, SC_VERDICT_CONTAMINATED);
    SC_CHECK_INT_EQ(c.interval, SC_VERDICT_SLOWER);
    paired.max_interference_pct = 50; /* a limit the comparison names: the interval again */
    SC_CHECK_INT_EQ(sc_compare_metric(ra, rb_busy, &m, &paired, &c), 0);
    SC_CHECK_INT_EQ(c.verdict, SC_VERDICT_SLOWER);
    json_object_put(ra);
    json_object_put(rb);
    json_object_put(rb_now);
    json_object_put(rb_busy);
}

/* Holm over several figures: a slower verdict that holds alone but not among many becomes
   too noisy to tell; one far beyond the bound keeps it. */
static void test_compare_holm(void)
{
    sc_comparison c[3] = {{.verdict = SC_VERDICT_SLOWER, .p = 0.001},
                          {.verdict = SC_VERDICT_SLOWER, .p = 0.03},
                          {.verdict = SC_VERDICT_SAME, .p = 0.9}};

    SC_CHECK_INT_EQ(sc_compare_holm(c, 3), 0);
    SC_CHECK_INT_EQ(c[0].verdict, SC_VERDICT_SLOWER);
    SC_CHECK_INT_EQ(c[1].verdict, SC_VERDICT_NOISY); /* 0.03 x 2 = 0.06 */
    SC_CHECK_INT_EQ(c[2].verdict, SC_VERDICT_SAME);
    SC_CHECK(c[0].family == 3 && fabs(c[0].p_holm - 0.003) < 1e-12);
}

int main(void)
{
    SC_TEST_RUN(test_against_sides);
    SC_TEST_RUN(test_against_refused);
    SC_TEST_RUN(test_against_yaml);
    SC_TEST_RUN(test_against_cards);
    SC_TEST_RUN(test_against_metrics);
    SC_TEST_RUN(test_order);
    SC_TEST_RUN(test_done);
    SC_TEST_RUN(test_compare_overrides);
    SC_TEST_RUN(test_compare_holm);
    return sc_test_failures ? 1 : 0;
}
