/*
 * test_card_lines.c: a card's cpu_list, prefetch and governor read from its lines without a
 * YAML parser (sc_card_lines.h). Each case says what the scan must find; every case is also
 * read by the card's YAML reader (libyaml), and the scan must never disagree with it: a key
 * it finds has the value the reader gives, a key it finds absent the reader does not give,
 * or it stops (unclear). The cases include the texts YAML reads differently from how they
 * look: quoted text running over lines at any indentation, a lone CR or a Unicode line
 * break, a block scalar ended early by a less indented line.
 */
#include "card_lines_util.h"
#include "sc_card.h"
#include "sc_card_lines.h"
#include "sc_test.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEAD "version: 1\nexperiment:\n  workload: stream\n"

typedef struct lines_case {
    const char *name;
    const char *yaml;
    int unclear_line; /* 0: the scan follows the whole card */
    /* per key (cpu_list, prefetch, governor): NULL absent, "?" unclear, else the value */
    const char *want[SC_CARD_LINES_KEYS];
} lines_case;

static const lines_case cases[] = {
    {"plain",
     HEAD "  cpu_list: 0-1\n  prefetch: off\n  governor: performance\n",
     0,
     {"0-1", "off", "performance"}},
    {"quoted and commented",
     HEAD "  cpu_list: \"0-3,8\"\n  prefetch: 'off'   # no prefetch\n",
     0,
     {"0-3,8", "off", NULL}},
    {"crlf", "version: 1\r\nexperiment:\r\n  cpu_list: 2\r\n", 0, {"2", NULL, NULL}},
    {"byte order mark",
     "\xef\xbb\xbfversion: 1\nexperiment:\n  cpu_list: 1\n",
     0,
     {"1", NULL, NULL}},
    {"document start", "---\nversion: 1\nexperiment:\n    cpu_list: 0\n", 0, {"0", NULL, NULL}},
    {"comments anywhere",
     HEAD "# prefetch: off\n  # governor: x\n  cpu_list: 0\n",
     0,
     {"0", NULL, NULL}},
    {"block scalar skipped",
     HEAD "  question: |\n    prefetch: off\n\n    governor: x\n  cpu_list: 0\n",
     0,
     {"0", NULL, NULL}},
    {"block scalar in a list",
     HEAD "  controlled_variables:\n  - |\n     prefetch: off\n  cpu_list: 0\n",
     0,
     {"0", NULL, NULL}},
    {"nested keys are not experiment's",
     HEAD "  sweep:\n    prefetch: [on, off]\n  cpu_list: 0\n",
     0,
     {"0", NULL, NULL}},
    {"another top-level key",
     HEAD "  cpu_list: 0\nablation:\n  prefetch: off\n",
     0,
     {"0", NULL, NULL}},
    {"sequence at the key's indentation",
     HEAD "  controlled_variables:\n  - a\n  - \"b\"\n  prefetch: on\n",
     0,
     {NULL, "on", NULL}},
    {"a list item that is not a key's", HEAD "  cpu_list: 0\n  - a\n", 5, {NULL, NULL, NULL}},
    {"flow on one line",
     HEAD "  controlled_variables: [a, \"b\", {c: d}]\n  cpu_list: 0\n",
     0,
     {"0", NULL, NULL}},
    /* What YAML reads as text although it looks like a key: the scan stops. */
    {"double quotes over lines",
     HEAD "  question: \"foo\n  prefetch: off\n  \"\n  cpu_list: 0\n",
     4,
     {NULL, NULL, NULL}},
    {"single quotes over lines",
     HEAD "  question: 'foo\n  prefetch: off'\n  cpu_list: 0\n",
     4,
     {NULL, NULL, NULL}},
    {"quotes under the key's indentation",
     HEAD "  env:\n    A: \"x\n  prefetch: off\"\n",
     5,
     {NULL, NULL, NULL}},
    {"flow over lines",
     HEAD "  controlled_variables: [a,\n  prefetch: off]\n  cpu_list: 0\n",
     4,
     {NULL, NULL, NULL}},
    {"flow key in quotes",
     HEAD "  x: {\"a\":\"b}\n  prefetch: off\n  c\"}\n",
     4,
     {NULL, NULL, NULL}},
    {"block scalar ended early",
     HEAD
     "  controlled_variables:\n  - a: |\n      text\n    b: \"x\n  prefetch: off\n  foo: bar\"\n",
     7,
     {NULL, NULL, NULL}},
    {"indented first key",
     "  version: 1\nx: 1\nexperiment:\n  cpu_list: 0-1\n",
     1,
     {NULL, NULL, NULL}},
    {"lone carriage return",
     HEAD "  question: foo\r  prefetch: off\n  cpu_list: 0\n",
     4,
     {NULL, NULL, NULL}},
    {"NEL", HEAD "  question: foo\xc2\x85  prefetch: off\n", 4, {NULL, NULL, NULL}},
    {"line separator", HEAD "  question: foo\xe2\x80\xa8  prefetch: off\n", 4, {NULL, NULL, NULL}},
    {"tab indentation", HEAD "\tcpu_list: 0\n", 4, {NULL, NULL, NULL}},
    {"anchor", HEAD "  cpu_list: &c 0\n", 4, {NULL, NULL, NULL}},
    {"tag", HEAD "  prefetch: !!str off\n", 4, {NULL, NULL, NULL}},
    {"flow experiment",
     "version: 1\nexperiment: {cpu_list: 0, prefetch: off}\n",
     2,
     {NULL, NULL, NULL}},
    {"experiment twice", HEAD "  cpu_list: 0\nexperiment:\n  cpu_list: 1\n", 5, {"0", NULL, NULL}},
    {"second document",
     HEAD "  cpu_list: 0\n---\nexperiment:\n  prefetch: off\n",
     5,
     {"0", NULL, NULL}},
    {"quoted key", HEAD "  \"prefetch\": off\n", 4, {NULL, NULL, NULL}},
    {"less indented line", HEAD "  cpu_list: 0\n prefetch: off\n", 5, {"0", NULL, NULL}},
    {"blank lines more indented than the block",
     HEAD "  question: |\n        \n    a\n  cpu_list: 0\n",
     6,
     {NULL, NULL, NULL}},
    /* One key the scan does not read; the others it does. */
    {"value goes on", HEAD "  prefetch: of\n    f\n  cpu_list: 0\n", 0, {"0", "?", NULL}},
    {"value on the next line", HEAD "  prefetch:\n    off\n  cpu_list: 0\n", 0, {"0", "?", NULL}},
    {"twice", HEAD "  cpu_list: 0\n  cpu_list: 1\n", 0, {"?", NULL, NULL}},
    {"block value", HEAD "  governor: |\n    performance\n  cpu_list: 0\n", 0, {"0", NULL, "?"}},
    {"odd characters", HEAD "  governor: perf ormance\n  cpu_list: 0\n", 0, {"0", NULL, "?"}},
    {"text after quotes", HEAD "  prefetch: \"off\" on\n  cpu_list: 0\n", 0, {"0", "?", NULL}},
    {"escapes", HEAD "  prefetch: \"o\\x66f\"\n  cpu_list: 0\n", 0, {"0", "?", NULL}},
};

static void test_cases(void)
{
    int failures = 0;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const lines_case *c = &cases[i];
        sc_card_lines l;
        sc_card_lines_scan(c->yaml, strlen(c->yaml), &l);
        bool ok = l.unclear_line == c->unclear_line;
        for (int k = 0; ok && !c->unclear_line && k < SC_CARD_LINES_KEYS; k++) {
            const sc_card_line *got = &l.key[k];
            const char *want = c->want[k];
            if (!want)
                ok = got->state == SC_CARD_LINE_ABSENT;
            else if (!strcmp(want, "?"))
                ok = got->state == SC_CARD_LINE_UNCLEAR;
            else
                ok = got->state == SC_CARD_LINE_FOUND && got->len == strlen(want) &&
                     !memcmp(c->yaml + got->off, want, got->len);
        }
        if (!ok)
            fprintf(stderr, "case \"%s\": unclear at line %d (%s), expected %d\n", c->name,
                    l.unclear_line, l.unclear_why ? l.unclear_why : "-", c->unclear_line);
        failures += !ok;
        failures += sc_test_lines_disagree(c->name, c->yaml, strlen(c->yaml));
    }
    SC_CHECK_MSG(failures == 0, "%d case(s) failed (see above)", failures);
}

/* The check, as root runs it on a record and sbatch on the card it read. */
static void test_check(void)
{
    const char *yaml = HEAD "  cpu_list: 0-1\n  prefetch: off\n";
    sc_card *card = sc_card_new();
    sc_diag d;
    sc_diag_init(&d);
    SC_CHECK(sc_card_parse(card, yaml, strlen(yaml), "card.yaml", &d) == 0);
    SC_CHECK_INT_EQ(sc_card_lines_check(yaml, strlen(yaml), card, "card.yaml", &d), 0);
    /* A record of another card: narrower CPUs, another prefetch, a governor not written. */
    hwloc_bitmap_only(card->cpus, 0);
    SC_CHECK_INT_EQ(sc_card_lines_check(yaml, strlen(yaml), card, "card.yaml", &d), -EBADMSG);
    SC_CHECK_STR_CONTAINS(d.lines[d.count - 1],
                          "card.yaml:4: cpu_list: the card's line says 0-1, but the card as read "
                          "says 0-1 (valid: what the line says)");
    hwloc_bitmap_set_range(card->cpus, 0, 1);
    card->prefetch = SC_PREFETCH_ON;
    SC_CHECK_INT_EQ(sc_card_lines_check(yaml, strlen(yaml), card, "card.yaml", &d), -EBADMSG);
    SC_CHECK_STR_CONTAINS(d.lines[d.count - 1], "prefetch: the card's line says off, but the card "
                                                "as read says on");
    card->prefetch = SC_PREFETCH_OFF;
    card->present[SC_CF_GOVERNOR] = true;
    card->line[SC_CF_GOVERNOR] = 9;
    SC_CHECK_INT_EQ(sc_card_lines_check(yaml, strlen(yaml), card, "card.yaml", &d), -EBADMSG);
    SC_CHECK_STR_CONTAINS(d.lines[d.count - 1],
                          "card.yaml:9: governor: the node finds no line \"governor: VALUE\"");
    card->present[SC_CF_GOVERNOR] = false;
    card->present[SC_CF_PREFETCH] = false;
    SC_CHECK_INT_EQ(sc_card_lines_check(yaml, strlen(yaml), card, "card.yaml", &d), -EBADMSG);
    SC_CHECK_STR_CONTAINS(d.lines[d.count - 1],
                          "card.yaml:5: the line prefetch: off is not a key of the card as read");
    const char *flow = "version: 1\nexperiment: {workload: stream, cpu_list: 0}\n";
    SC_CHECK_INT_EQ(sc_card_lines_check(flow, strlen(flow), card, "card.yaml", &d), -EBADMSG);
    SC_CHECK_STR_CONTAINS(d.lines[d.count - 1],
                          "card.yaml:2: the node reads cpu_list, prefetch and governor from the "
                          "card's lines without a YAML parser, and cannot read past experiment: "
                          "not followed by its keys on their own lines (valid: block style");
    sc_card_free(card);
    sc_diag_free(&d);
}

/* The cards the project ships read the same by the scan and by YAML (but a sweep, which a
   job never carries: one job runs one card). */
static void test_shipped_cards(void)
{
    DIR *dir = opendir(SC_TEST_CARDS);
    struct dirent *e;
    int checked = 0;
    SC_CHECK(dir != NULL);
    while (dir && (e = readdir(dir)) != NULL) {
        size_t n = strlen(e->d_name);
        if (n < 6 || strcmp(e->d_name + n - 5, ".yaml") != 0)
            continue;
        char path[4096], *text = calloc(1, SC_CARD_MAX_BYTES + 1);
        snprintf(path, sizeof(path), "%s/%s", SC_TEST_CARDS, e->d_name);
        FILE *f = fopen(path, "r");
        size_t len = f && text ? fread(text, 1, SC_CARD_MAX_BYTES, f) : 0;
        if (f)
            fclose(f);
        sc_card *card = sc_card_new();
        sc_diag d;
        sc_diag_init(&d);
        SC_CHECK_MSG(sc_card_parse(card, text, len, e->d_name, &d) == 0, "%s", e->d_name);
        if (card->n_sweep == 0) {
            SC_CHECK_MSG(sc_card_lines_check(text, len, card, e->d_name, &d) == 0, "%s: %s",
                         e->d_name, d.count ? d.lines[0] : "?");
            checked++;
        }
        SC_CHECK_INT_EQ(sc_test_lines_disagree(e->d_name, text, len), 0);
        sc_card_free(card);
        sc_diag_free(&d);
        free(text);
    }
    if (dir)
        closedir(dir);
    SC_CHECK_MSG(checked >= 3, "only %d cards without a sweep in %s", checked, SC_TEST_CARDS);
}

int main(void)
{
    SC_TEST_RUN(test_cases);
    SC_TEST_RUN(test_check);
    SC_TEST_RUN(test_shipped_cards);
    return SC_TEST_RESULT();
}
