/*
 * test_card_limits.c: what a card may hold (sc_card.h, card_scan.c) and the bounded list of
 * problems (sc_diag.h): cards made to cost far more than their size to read are refused with
 * one line, the same for every shape, and a card with thousands of problems gives a bounded
 * list. The cost bombs here are the shapes the cluster test sends to the node
 * (tests/cluster/test_plugin_bombs.sh), in their unit form.
 */
#include "sc_card.h"
#include "sc_diag.h"
#include "sc_test.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEAD "version: 1\nexperiment:\n  workload: stream\n  cpu_list: 0-1\n"

/* A text of at most cap bytes: prefix, then item repeated while it fits, then suffix. */
static char *fill(const char *prefix, const char *item, const char *suffix, size_t cap)
{
    size_t lp = strlen(prefix), li = strlen(item), ls = strlen(suffix), len = lp;
    char *text = malloc(cap + 1);

    if (!text)
        return NULL;
    memcpy(text, prefix, lp);
    while (len + li + ls <= cap) {
        memcpy(text + len, item, li);
        len += li;
    }
    memcpy(text + len, suffix, ls);
    text[len + ls] = '\0';
    return text;
}

/* Parses text as `streamcard run` does; returns the parse's result, problems in d. */
static int parse(const char *text, sc_diag *d)
{
    sc_card *card = sc_card_new();
    int rc = card ? sc_card_parse(card, text, strlen(text), "card.yaml", d) : -ENOMEM;

    if (rc == 0 || rc == -EINVAL) {
        int crc = sc_card_check(card, d);
        rc = rc ? rc : crc;
    }
    sc_card_free(card);
    return rc;
}

typedef struct limit_case {
    const char *name;
    char *text;         /* made in test_limits(); freed there */
    const char *expect; /* the one message */
} limit_case;

/*
 * Every shape is refused by the first look at its text, with exactly one line: the parse
 * returns -EBADMSG and nothing else is said.
 */
static void test_limits(void)
{
    char big[SC_CARD_MAX_SCALAR + 2];
    memset(big, 'x', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    char *long_value = NULL, *second = NULL;
    if (asprintf(&long_value, HEAD "  question: \"%s\"\n", big) < 0)
        long_value = NULL;
    if (asprintf(&second, HEAD "---\n" HEAD) < 0)
        second = NULL;
    limit_case cases[] = {
        {"an anchor and its alias", strdup(HEAD "  question: &q text\n  run_name: *q\n"),
         "card.yaml:5: anchors (&) and aliases (*) are not allowed in a card (valid: write "
         "each value out in full)"},
        {"an anchored mapping", strdup("version: 1\nexperiment: &e\n  workload: stream\n"),
         "card.yaml:2: anchors (&) and aliases (*) are not allowed"},
        {"alias-repeat sweep",
         fill(HEAD "  iterations: &i 2\n  array_size: [", "*i, ", "*i]\n", SC_CARD_MAX_BYTES),
         "card.yaml:5: anchors (&) and aliases (*) are not allowed"},
        {"deep nesting", fill(HEAD "  controlled_variables: ", "[", "", SC_CARD_MAX_BYTES),
         "card.yaml:5: mappings and lists nested deeper than 8 levels (valid: at most 8)"},
        {"deep block nesting",
         strdup(HEAD "  env:\n   a:\n    b:\n     c:\n      d:\n       e:\n        f:\n"
                     "         g: 1\n"),
         "card.yaml:12: mappings and lists nested deeper than 8 levels"},
        {"a value longer than a card allows", long_value,
         "card.yaml:5: a key or value of 4097 bytes is longer than a card allows (valid: at "
         "most 4096 bytes)"},
        {"thousands of keys", fill(HEAD "  env:\n", "    A: x\n", "", SC_CARD_MAX_BYTES),
         "card.yaml:262: more than 256 entries in one mapping (valid: at most 256)"},
        {"a long list", fill(HEAD "  controlled_variables: [", "a, ", "a]\n", SC_CARD_MAX_BYTES),
         "card.yaml:5: more than 256 entries in one list (valid: at most 256)"},
        {"a second document", second,
         "card.yaml:5: a second YAML document (valid: one document per card)"},
        /* One byte more than a card may hold, in a comment. */
        {"larger than a card may hold", fill(HEAD "#", "#", "\n", SC_CARD_MAX_BYTES + 1),
         "card.yaml: 65537 bytes is more than a card may hold (valid: at most 65536 bytes)"},
    };
    size_t n = sizeof(cases) / sizeof(cases[0]);
    int failures = 0;
    for (size_t i = 0; i < n; i++) {
        sc_diag d;
        sc_diag_init(&d);
        int rc = cases[i].text ? parse(cases[i].text, &d) : -ENOMEM;
        bool ok =
            rc == -EBADMSG && d.count == 1 && d.more == 0 && strstr(d.lines[0], cases[i].expect);
        if (!ok) {
            fprintf(stderr, "case \"%s\": rc=%d, expected \"%s\", got:\n", cases[i].name, rc,
                    cases[i].expect);
            sc_diag_print(&d, "  ", stderr);
        }
        failures += !ok;
        sc_diag_free(&d);
        free(cases[i].text);
    }
    SC_CHECK_MSG(failures == 0, "%d of the cases failed (see above)", failures);
}

/* The corpus seed with anchors (tests/fuzz/corpus/card/anchors.yaml) is refused. */
static void test_corpus_anchors(void)
{
    sc_card *card = sc_card_new();
    sc_diag d;
    sc_diag_init(&d);
    SC_CHECK(card != NULL);
    SC_CHECK_INT_EQ(sc_card_load_file(card, SC_TEST_CORPUS "/card/anchors.yaml", &d), -EBADMSG);
    SC_CHECK_INT_EQ(d.count, 1);
    SC_CHECK_STR_CONTAINS(d.lines[0],
                          "anchors.yaml:2: anchors (&) and aliases (*) are not allowed");
    sc_diag_free(&d);
    sc_card_free(card);
}

/* A card within the limits: 256 entries of each list, 8 levels, a 4096-byte value. */
static void test_at_the_limits(void)
{
    char value[SC_CARD_MAX_SCALAR + 1];
    memset(value, 'q', sizeof(value) - 1);
    value[sizeof(value) - 1] = '\0';
    char *head = NULL, *text;
    if (asprintf(&head, HEAD "  question: \"%s\"\n  controlled_variables: [", value) < 0)
        head = NULL;
    SC_CHECK(head != NULL);
    text = malloc(strlen(head) + SC_CARD_MAX_ITEMS * 4 + 8);
    SC_CHECK(text != NULL);
    strcpy(text, head);
    for (int i = 0; i < SC_CARD_MAX_ITEMS; i++)
        strcat(text, i ? ", a" : "a");
    strcat(text, "]\n");
    sc_diag d;
    sc_diag_init(&d);
    int rc = parse(text, &d);
    if (rc != 0)
        sc_diag_print(&d, "  ", stderr);
    SC_CHECK_INT_EQ(rc, 0);
    free(text);
    free(head);
    sc_diag_free(&d);
}

/*
 * A name set twice, many times: each repeat said once with the line of the first (found
 * through one hash table), and the list bounded: 20 lines and a count of the rest.
 */
static void test_env_repeats_bounded(void)
{
    size_t len = strlen(HEAD "  env:\n");
    char *text = fill(HEAD "  env:\n", "    A: x\n", "", len + 9 * SC_CARD_MAX_ITEMS);
    sc_diag d;
    sc_diag_init(&d);
    SC_CHECK(text != NULL);
    SC_CHECK_INT_EQ(parse(text, &d), -EINVAL);
    SC_CHECK_INT_EQ(d.count, SC_DIAG_MAX_LINES);
    SC_CHECK_STR_CONTAINS(d.lines[0], "card.yaml:7: env: A is set twice (first on line 6)");
    SC_CHECK_STR_CONTAINS(d.lines[19], "card.yaml:26: env: A is set twice (first on line 6)");
    SC_CHECK_INT_EQ(d.more, SC_CARD_MAX_ITEMS - 1 - SC_DIAG_MAX_LINES);
    free(text);
    sc_diag_free(&d);
}

/* The bounded list: lines past the limit are counted, long lines cut at a character. */
static void test_diag_bounds(void)
{
    char line[2 * SC_DIAG_MAX_LINE];
    sc_diag d, merged;
    sc_diag_init(&d);
    sc_diag_init(&merged);
    for (int i = 0; i < SC_DIAG_MAX_LINES + 5; i++)
        SC_CHECK_INT_EQ(sc_diag_addf(&d, "problem %d", i), 0);
    SC_CHECK_INT_EQ(d.count, SC_DIAG_MAX_LINES);
    SC_CHECK_INT_EQ(d.more, 5);
    /* A line of two-byte characters cut to the limit: never in the middle of one. */
    for (size_t i = 0; i + 2 < sizeof(line); i += 2)
        memcpy(line + i, "\xc3\xa9", 2);
    line[sizeof(line) - 2] = '\0';
    SC_CHECK_INT_EQ(sc_diag_addf(&merged, "%s", line), 0);
    size_t len = strlen(merged.lines[0]);
    SC_CHECK(len <= SC_DIAG_MAX_LINE && len >= SC_DIAG_MAX_LINE - 4);
    SC_CHECK_STR_EQ(merged.lines[0] + len - 3, "...");
    SC_CHECK((len - 3) % 2 == 0);
    /* Merging a full list: the first lines again are not repeated, its count carries over. */
    SC_CHECK_INT_EQ(sc_diag_merge(&merged, &d), 0);
    SC_CHECK_INT_EQ(merged.count, SC_DIAG_MAX_LINES);
    SC_CHECK(merged.more >= 5);
    sc_diag_free(&d);
    sc_diag_free(&merged);
}

/* Printed lines are escaped: a newline in a problem cannot start a line of its own. */
static void test_diag_print_escapes(void)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    sc_diag d;
    sc_diag_init(&d);
    SC_CHECK(f != NULL);
    sc_diag_addf(&d, "card.yaml:3: unknown key \"%s\"", "x\nstreamcard: restore: job 1\x1b[2J");
    for (int i = 0; i < SC_DIAG_MAX_LINES + 2; i++)
        sc_diag_addf(&d, "more");
    sc_diag_print(&d, "streamcard: ", f);
    fclose(f);
    SC_CHECK_STR_CONTAINS(out, "streamcard: card.yaml:3: unknown key \"x\\nstreamcard: restore: "
                               "job 1\\x1b[2J\"\n");
    SC_CHECK_STR_CONTAINS(out, "streamcard: ... and 3 more problems\n");
    SC_CHECK(strstr(out, "\nstreamcard: restore") == NULL);
    free(out);
    sc_diag_free(&d);
}

int main(void)
{
    SC_TEST_RUN(test_limits);
    SC_TEST_RUN(test_corpus_anchors);
    SC_TEST_RUN(test_at_the_limits);
    SC_TEST_RUN(test_env_repeats_bounded);
    SC_TEST_RUN(test_diag_bounds);
    SC_TEST_RUN(test_diag_print_escapes);
    return SC_TEST_RESULT();
}
