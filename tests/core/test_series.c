/*
 * test_series.c: a card's runs as a series of instances: one run for a card without a
 * sweep, one per value for a sweep, each a checked card of its own that shares nothing
 * with the card it came from; problems said once; values given twice refused.
 */
#include "sc_series.h"
#include "sc_test.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#define HEAD "version: 1\nexperiment:\n"

static sc_card *parse(const char *yaml, sc_diag *d)
{
    sc_card *card = sc_card_new();

    if (card && sc_card_parse(card, yaml, strlen(yaml), "card.yaml", d) != 0) {
        sc_card_free(card);
        return NULL;
    }
    return card;
}

/* A card without a sweep: one checked run, its own copy; the card is left unchecked. */
static void test_lone_run(void)
{
    sc_diag d;
    sc_series s;
    sc_diag_init(&d);
    sc_card *card = parse(HEAD "  workload: stream\n  kernel: copy\n  cpu_list: 0-3\n", &d);
    SC_CHECK(card != NULL);
    SC_CHECK_INT_EQ(sc_series_from_card(card, &s, &d), 0);
    SC_CHECK_INT_EQ(d.count, 0);
    SC_CHECK_INT_EQ(s.n, 1);
    SC_CHECK(s.variable == NULL && s.runs[0].label == NULL);
    SC_CHECK(s.runs[0].card != card);
    SC_CHECK_INT_EQ(s.runs[0].card->threads, 4);
    SC_CHECK_STR_EQ(s.runs[0].card->run_name, "stream_copy_4thread");
    SC_CHECK(card->run_name == NULL && card->threads == 0);
    sc_series_free(&s);
    SC_CHECK(s.runs == NULL && s.n == 0);
    sc_series_free(&s); /* an emptied series may be freed again */
    sc_card_free(card);
    sc_diag_free(&d);
}

/* A sweep: one run per value, in order, each with its value, name and variant. */
static void test_sweep_runs(void)
{
    sc_diag d;
    sc_series s;
    sc_diag_init(&d);
    sc_card *card = parse(HEAD "  workload: stream\n  kernel: copy\n  cpu_list: 0-3\n"
                               "  threads: [1, 2, 4]\n  env:\n    OMP_WAIT_POLICY: passive\n",
                          &d);
    SC_CHECK(card != NULL);
    SC_CHECK_INT_EQ(sc_series_from_card(card, &s, &d), 0);
    SC_CHECK_INT_EQ(d.count, 0);
    SC_CHECK_INT_EQ(s.n, 3);
    SC_CHECK_STR_EQ(s.variable, "threads");
    static const char *const labels[] = {"1", "2", "4"};
    for (size_t i = 0; i < 3; i++) {
        const sc_instance *run = &s.runs[i];
        char name[64];
        snprintf(name, sizeof(name), "stream_copy_%sthread_threads-%s", labels[i], labels[i]);
        SC_CHECK_STR_EQ(run->label, labels[i]);
        SC_CHECK_INT_EQ(run->variant, i);
        SC_CHECK_INT_EQ(run->repeat, 0);
        SC_CHECK_INT_EQ(run->card->threads, atol(labels[i]));
        SC_CHECK_INT_EQ(run->card->n_sweep, 0);
        SC_CHECK(run->card->source == NULL); /* the YAML text stays with the card */
        SC_CHECK_STR_EQ(run->card->run_name, name);
        SC_CHECK_STR_EQ(sc_card_field_name(run->card->swept), "threads");
        SC_CHECK(run->card->overridden);
        SC_CHECK_INT_EQ(run->card->n_env, 1);
        SC_CHECK(run->card->env != card->env && run->card->cpus != card->cpus);
    }
    /* The card keeps its sweep, and the runs outlive it: nothing is shared. */
    SC_CHECK_INT_EQ(card->n_sweep, 3);
    SC_CHECK(card->run_name == NULL);
    sc_card_free(card);
    SC_CHECK_STR_EQ(s.runs[2].card->env[0].value, "passive");
    SC_CHECK_STR_EQ(s.runs[2].card->cpu_list, "0-3");
    sc_series_free(&s);
    sc_diag_free(&d);
}

/* A problem every run shares is one line; a value's own problem names the value. */
static void test_problems_once(void)
{
    sc_diag d, again;
    sc_series s;
    sc_diag_init(&d);
    sc_diag_init(&again);
    sc_card *card = parse(HEAD "  workload: stream\n  cpu_list: 0-1\n  threads: [1, 3, 2]\n"
                               "  nb: 5\n",
                          &d);
    SC_CHECK(card != NULL);
    SC_CHECK_INT_EQ(sc_series_from_card(card, &s, &d), -EINVAL);
    SC_CHECK_INT_EQ(s.n, 3); /* every run's card is there, for its machine checks */
    SC_CHECK_INT_EQ(d.count, 2);
    SC_CHECK_STR_CONTAINS(d.lines[0], "card.yaml:6: nb: not used by workload stream");
    SC_CHECK_STR_CONTAINS(d.lines[1], "card.yaml:5 (sweep value 2): threads: 3 is more than "
                                      "the 2 CPUs of cpu_list 0-1 (valid: 1-2)");
    /* sc_card_check() says the same of the card, and leaves it as it was. */
    SC_CHECK_INT_EQ(sc_card_check(card, &again), -EINVAL);
    SC_CHECK_INT_EQ(again.count, 2);
    SC_CHECK_STR_EQ(again.lines[0], d.lines[0]);
    SC_CHECK_STR_EQ(again.lines[1], d.lines[1]);
    SC_CHECK_INT_EQ(card->n_sweep, 3);
    sc_series_free(&s);
    sc_card_free(card);
    sc_diag_free(&d);
    sc_diag_free(&again);
}

/* A refused value: reported once with its position, and its run still has a card. */
static void test_refused_value(void)
{
    sc_diag d;
    sc_series s;
    sc_diag_init(&d);
    sc_card *card =
        parse(HEAD "  workload: stream\n  cpu_list: 0-1\n  prefetch: [on, maybe]\n", &d);
    SC_CHECK(card != NULL);
    SC_CHECK_INT_EQ(sc_series_from_card(card, &s, &d), -EINVAL);
    SC_CHECK_INT_EQ(s.n, 2);
    SC_CHECK_INT_EQ(d.count, 1);
    SC_CHECK_STR_CONTAINS(d.lines[0], "card.yaml:5 (sweep value 2): prefetch: \"maybe\" is not "
                                      "allowed (valid: on, off, unchanged)");
    SC_CHECK(s.runs[1].card != NULL && s.runs[1].card->invalid[SC_CF_PREFETCH]);
    sc_series_free(&s);
    sc_card_free(card);
    sc_diag_free(&d);
}

/*
 * As many values as a list may hold: every one a run, none taken for another, and a value
 * repeated at the end found among all of them (the values' table wraps around and collides).
 */
static void test_many_values(void)
{
    enum { N = SC_CARD_MAX_ITEMS - 1 };
    size_t cap = 64 + N * 8, len = 0;
    char *yaml = malloc(cap);
    sc_diag d;
    sc_series s;

    SC_CHECK(yaml != NULL);
    sc_diag_init(&d);
    len += (size_t)snprintf(yaml, cap, HEAD "  workload: stream\n  cpu_list: 0\n  array_size: [");
    for (int i = 0; i < N; i++)
        len += (size_t)snprintf(yaml + len, cap - len, "%s%d", i ? ", " : "", 16 + i);
    snprintf(yaml + len, cap - len, "]\n");
    sc_card *card = parse(yaml, &d);
    SC_CHECK(card != NULL);
    SC_CHECK_INT_EQ(sc_series_from_card(card, &s, &d), 0);
    SC_CHECK_INT_EQ(d.count, 0);
    SC_CHECK_INT_EQ(s.n, N);
    SC_CHECK_INT_EQ(s.runs[N - 1].card->array_size, 16 + N - 1);
    sc_series_free(&s);
    sc_card_free(card);
    /* The same list with the 100th value again at its end. */
    snprintf(yaml + len, cap - len, ", 115]\n");
    card = parse(yaml, &d);
    SC_CHECK(card != NULL);
    SC_CHECK_INT_EQ(sc_series_from_card(card, &s, &d), -EINVAL);
    SC_CHECK_INT_EQ(d.count, 1);
    SC_CHECK_STR_CONTAINS(d.lines[0], "array_size: 115 appears twice in the sweep");
    sc_series_free(&s);
    sc_card_free(card);
    sc_diag_free(&d);
    free(yaml);
}

/* sc_card_dup: every key, env and list copied; the copy outlives the original. */
static void test_dup(void)
{
    const char *yaml = HEAD "  question: \"q?\"\n  run_name: r1\n  workload: ipsearch\n"
                            "  cpu_list: 0-3\n  threads: 4\n  memory_node: 0\n  nb: 1000\n"
                            "  nq: 10\n  dim: 8\n  k: 5\n  pool_threads: 2\n  iterations: 3\n"
                            "  nodes: n[01-02]\n  env:\n    A: b\n"
                            "  controlled_variables:\n    - x\n    - y\n";
    sc_diag d;
    sc_diag_init(&d);
    sc_card *card = parse(yaml, &d);
    SC_CHECK(card != NULL);
    SC_CHECK_INT_EQ(sc_card_check(card, &d), 0);
    char *text = sc_card_to_yaml(card);
    sc_card *copy = sc_card_dup(card);
    SC_CHECK(text != NULL && copy != NULL);
    SC_CHECK(copy->source != card->source && copy->question != card->question);
    sc_card_free(card);
    char *again = sc_card_to_yaml(copy);
    SC_CHECK_STR_EQ(again, text);
    SC_CHECK_INT_EQ(copy->n_controlled, 2);
    SC_CHECK_STR_EQ(copy->controlled[1], "y");
    SC_CHECK_STR_CONTAINS(copy->source, "question: \"q?\"");
    free(text);
    free(again);
    sc_card_free(copy);
    sc_diag_free(&d);
}

int main(void)
{
    SC_TEST_RUN(test_lone_run);
    SC_TEST_RUN(test_sweep_runs);
    SC_TEST_RUN(test_problems_once);
    SC_TEST_RUN(test_refused_value);
    SC_TEST_RUN(test_many_values);
    SC_TEST_RUN(test_dup);
    return SC_TEST_RESULT();
}
