/*
 * test_card_record.c: the card's record (sc_card_record.h): what the check writes reads back
 * as the same card, and the reader, which is root's, refuses every record that is not exactly
 * one for this card and uid, whatever the writer put in it.
 */
#include "sc_card.h"
#include "sc_card_record.h"
#include "sc_test.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SHA "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define OTHER "1123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define HEAD "version: 1\nexperiment:\n"

/* The record of yaml as the check writes it (parsed, checked, uid 1001). */
static char *record_of(const char *yaml, int *rc_out)
{
    sc_card *card = sc_card_new();
    sc_diag d;
    sc_diag_init(&d);
    int rc = sc_card_parse(card, yaml, strlen(yaml), "card.yaml", &d);
    if (rc == 0 || rc == -EINVAL) {
        int crc = sc_card_check(card, &d);
        rc = rc ? rc : crc;
    }
    char *text = sc_card_record_format(card, rc, &d, SHA, 1001);
    sc_card_free(card);
    sc_diag_free(&d);
    if (rc_out)
        *rc_out = rc;
    return text;
}

/* *card: what a record of a valid card reads back as (NULL, a failed check, if it does not). */
static void read_ok(const char *text, const char *name, sc_diag *d, sc_card **card)
{
    char why[600] = "";
    int rc = text ? sc_card_record_read(text, strlen(text), SHA, 1001, name, card, d, why,
                                        sizeof(why))
                  : -ENOMEM;

    SC_CHECK_MSG(rc == 0, "rc %d: %s", rc, why);
}

/* A valid card: the record reads back as the card, every field the node acts on. */
static void test_round_trip(void)
{
    const char *yaml = HEAD "  workload: stream\n  kernel: copy\n  cpu_list: 0-3,8\n"
                            "  threads: 2\n  memory_node: 1\n  prefetch: off\n"
                            "  governor: performance\n  array_size: 1_000_000\n"
                            "  nodes: n[01-04]\n  question: \"many\\nlines\"\n"
                            "  env:\n    A: b\n";
    char *text = record_of(yaml, NULL);
    sc_card *card = NULL;
    sc_diag d;
    char why[600] = "";
    sc_diag_init(&d);
    SC_CHECK(text != NULL);
    SC_CHECK_STR_CONTAINS(text, "verdict=ok\n");
    SC_CHECK_STR_CONTAINS(text, "field=experiment.cpu_list 5 0-3,8\n");
    SC_CHECK(strstr(text, "question") == NULL && strstr(text, "env") == NULL);
    int rc = sc_card_record_read(text, strlen(text), SHA, 1001, "forged.yaml", &card, &d, why,
                                 sizeof(why));
    SC_CHECK_MSG(rc == 0, "rc %d: %s", rc, why);
    SC_CHECK_INT_EQ(card->workload, SC_WORKLOAD_STREAM);
    SC_CHECK_STR_EQ(card->cpu_list, "0-3,8");
    SC_CHECK_INT_EQ(hwloc_bitmap_weight(card->cpus), 5);
    SC_CHECK_INT_EQ(card->threads, 2);
    SC_CHECK_INT_EQ(card->memory_node, 1);
    SC_CHECK_INT_EQ(card->prefetch, SC_PREFETCH_OFF);
    SC_CHECK_STR_EQ(card->governor, "performance");
    SC_CHECK_INT_EQ(card->array_size, 1000000);
    SC_CHECK_STR_EQ(card->nodes, "n[01-04]");
    SC_CHECK_STR_EQ(card->run_name, "stream_copy_2thread");
    SC_CHECK_INT_EQ(card->line[SC_CF_MEMORY_NODE], 7);
    SC_CHECK_STR_EQ(card->source_name, "forged.yaml");
    sc_card_free(card);
    sc_diag_free(&d);
    free(text);
}

/* An exec card (a program's command, metrics and patterns stay in the YAML): its record
   reads back and passes the root side's check, naming the run as the child did; the
   card without its record's origin would be refused for its missing command. */
static void test_exec_round_trip(void)
{
    const char *yaml = HEAD "  workload: exec\n  command: [/usr/bin/dd, count=1]\n"
                            "  markers: patterns\n  begin_pattern: '^go'\n  end_pattern: '^done'\n"
                            "  metrics:\n    - {name: s, pattern: 'in ([0-9.]+) s', unit: s,"
                            " better: lower, primary: true}\n"
                            "  validate_pattern: '^ok'\n  cpu_list: 0\n  threads: 1\n";
    char *text = record_of(yaml, NULL);
    sc_diag d;

    sc_diag_init(&d);
    SC_CHECK(text && strstr(text, "verdict=ok\n") && strstr(text, "field=experiment.markers "));
    SC_CHECK(text && !strstr(text, "command") && !strstr(text, "begin_pattern"));
    sc_card *card = NULL;
    read_ok(text, "dd.yaml", &d, &card);
    SC_CHECK(card && card->from_record && card->workload == SC_WORKLOAD_EXEC);
    SC_CHECK_STR_EQ(card->run_name, "exec_dd_1thread");
    if (card) { /* the same fields outside a record: the command is missing */
        sc_diag_free(&d);
        card->from_record = false;
        SC_CHECK(sc_card_check(card, &d) < 0);
        bool named = false;
        for (size_t i = 0; i < d.count; i++)
            named |= strstr(d.lines[i], "command: missing") != NULL;
        SC_CHECK_MSG(named, "%zu problems, the first: %s", d.count, d.count ? d.lines[0] : "");
    }
    sc_card_free(card);
    sc_diag_free(&d);
    free(text);
}

/* A refused card: the record carries at most 5 problems, escaped, and the count of the rest. */
static void test_refused(void)
{
    char yaml[4096];
    int n = snprintf(yaml, sizeof(yaml), HEAD "  workload: stream\n  cpu_list: 0\n");
    for (int i = 0; i < 8; i++)
        n += snprintf(yaml + n, sizeof(yaml) - (size_t)n, "  \"bad\\nkey%d\": 1\n", i);
    int check_rc = 0;
    char *text = record_of(yaml, &check_rc);
    sc_card *card = NULL;
    sc_diag d;
    char why[600] = "";
    sc_diag_init(&d);
    SC_CHECK(text != NULL && check_rc < 0);
    SC_CHECK_STR_CONTAINS(text, "verdict=refused\n");
    SC_CHECK(strstr(text, "field=") == NULL);
    int rc = sc_card_record_read(text, strlen(text), SHA, 1001, "card.yaml", &card, &d, why,
                                 sizeof(why));
    SC_CHECK_MSG(rc == -EINVAL, "rc %d: %s", rc, why);
    SC_CHECK(card == NULL);
    SC_CHECK_INT_EQ(d.count, SC_CARD_RECORD_PROBLEMS);
    SC_CHECK_INT_EQ(d.more, 3);
    SC_CHECK_STR_CONTAINS(d.lines[0], "card.yaml:5: unknown key \"bad\\nkey0\"");
    sc_diag_free(&d);
    free(text);
}

typedef struct bad_record {
    const char *name;
    const char *text;
    const char *why; /* part of the reason */
} bad_record;

#define REC_HEAD "streamcard-card-record=1\nsha256=" SHA "\nuid=1001\n"
#define REC_OK REC_HEAD "verdict=ok\nmore=0\n"
#define REC_FIELDS                                                                                 \
    "field=experiment.workload 3 stream\nfield=experiment.cpu_list 4 0-1\n"                        \
    "field=experiment.run_name 0 r\n"

/* Every record root must not act on. */
static void test_refused_records(void)
{
    static const bad_record cases[] = {
        {"not a record", "hello\n", "does not start with"},
        {"another card", "streamcard-card-record=1\nsha256=" OTHER "\nuid=1001\nverdict=ok\n",
         "it is for another card"},
        {"another uid",
         "streamcard-card-record=1\nsha256=" SHA "\nuid=0\nverdict=ok\nmore=0\nend=1\n",
         "the check ran as uid 0, not the job's uid 1001"},
        {"no end", REC_OK REC_FIELDS, "it is incomplete"},
        {"text after the end", REC_OK REC_FIELDS "end=1\nfield=experiment.threads 5 2\n",
         "text after end=1"},
        {"a field the schema refuses",
         REC_OK REC_FIELDS "field=experiment.threads 5 99999999\nend=1\n",
         "field threads: r:5: threads: \"99999999\" is not in range"},
        {"a governor that is a path",
         REC_OK REC_FIELDS "field=experiment.governor 5 ../../etc/passwd\nend=1\n",
         "is not a valid name"},
        {"a key that is no key", REC_OK REC_FIELDS "field=experiment.msr_register 5 0x1a4\nend=1\n",
         "field experiment.msr_register is not a card key"},
        {"a list", REC_OK REC_FIELDS "field=experiment.env 5 A=b\nend=1\n", "is not a card key"},
        {"a field given twice", REC_OK REC_FIELDS "field=experiment.cpu_list 4 0\nend=1\n",
         "is not a card key given once"},
        {"a control character", REC_OK REC_FIELDS "field=experiment.kernel 5 co\x1bpy\nend=1\n",
         "is not a card key given once"},
        {"a card the rules refuse", REC_OK REC_FIELDS "field=experiment.threads 5 3\nend=1\n",
         "the card rules refuse it: r:5: threads: 3 is more than the 2 CPUs"},
        {"fields of a refused card",
         REC_HEAD "verdict=refused\nproblem=p\nmore=0\n" REC_FIELDS "end=1\n",
         "unexpected line \"field=experiment.workload"},
        {"refused without a reason", REC_HEAD "verdict=refused\nmore=0\nend=1\n",
         "without saying why"},
        {"a problem that is not printable",
         REC_HEAD "verdict=refused\nproblem=a\tb\nmore=0\nend=1\n", "unexpected line"},
        {"too many problems",
         REC_HEAD "verdict=refused\nproblem=1\nproblem=2\nproblem=3\nproblem=4\nproblem=5\n"
                  "problem=6\nmore=0\nend=1\n",
         "unexpected line \"problem=6\""},
        {"a verdict of its own", REC_HEAD "verdict=maybe\nmore=0\nend=1\n",
         "neither ok nor refused"},
        {"a NUL byte", REC_OK REC_FIELDS "end=1\n\0field=experiment.threads 5 1\n",
         "not lines of text"},
    };
    int failures = 0;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const bad_record *c = &cases[i];
        size_t len = strlen(c->text);
        if (strcmp(c->name, "a NUL byte") == 0)
            len += strlen(c->text + len + 1) + 1;
        sc_card *card = NULL;
        sc_diag d;
        char why[600] = "";
        sc_diag_init(&d);
        int rc = sc_card_record_read(c->text, len, SHA, 1001, "r", &card, &d, why, sizeof(why));
        bool ok = rc == -EBADMSG && !card && strstr(why, c->why);
        if (!ok)
            fprintf(stderr, "case \"%s\": rc %d, why \"%s\", expected \"%s\"\n", c->name, rc, why,
                    c->why);
        failures += !ok;
        sc_card_free(card);
        sc_diag_free(&d);
    }
    SC_CHECK_MSG(failures == 0, "%d of the cases failed (see above)", failures);
}

/* A record longer than the limit is refused without being read. */
static void test_too_long(void)
{
    size_t len = SC_CARD_RECORD_MAX_BYTES + 1;
    char *text = malloc(len);
    sc_card *card = NULL;
    sc_diag d;
    char why[600] = "";
    SC_CHECK(text != NULL);
    memset(text, 'a', len);
    sc_diag_init(&d);
    SC_CHECK_INT_EQ(sc_card_record_read(text, len, SHA, 1001, "r", &card, &d, why, sizeof(why)),
                    -EBADMSG);
    SC_CHECK_STR_CONTAINS(why, "longer than 32768 bytes");
    free(text);
    sc_diag_free(&d);
}

int main(void)
{
    SC_TEST_RUN(test_round_trip);
    SC_TEST_RUN(test_exec_round_trip);
    SC_TEST_RUN(test_refused);
    SC_TEST_RUN(test_refused_records);
    SC_TEST_RUN(test_too_long);
    return SC_TEST_RESULT();
}
