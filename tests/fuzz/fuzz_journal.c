/*
 * fuzz_journal.c: the plugin's restore journal, which root reads back after a crash to put
 * the MSRs and governors back (sc_journal_parse()). A journal that parses must format and
 * parse back to the same journal: formatting it again gives the very same text.
 */
#include "support.h"

#include "journal.h"

#include <stdlib.h>
#include <string.h>

#define SC__JOB 4242 /* the job id of the seeds' job= lines */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = sc_fuzz_text(data, size), why[256];
    sc_journal j, again;

    sc_fuzz_require(sc_journal_init(&j, SC__JOB) == 0, "out of memory");
    if (sc_journal_parse(text, &j, why, sizeof(why)) == 0) {
        char *first = sc_journal_format(&j), *second;
        sc_fuzz_require(first != NULL, "sc_journal_format: out of memory");
        sc_fuzz_require(sc_journal_init(&again, SC__JOB) == 0, "out of memory");
        sc_fuzz_require(sc_journal_parse(first, &again, why, sizeof(why)) == 0,
                        "a formatted journal does not parse");
        second = sc_journal_format(&again);
        sc_fuzz_require(second && strcmp(first, second) == 0,
                        "a journal changed in the format/parse round trip");
        sc_fuzz_require(sc_journal_same_request(&j, again.prefetch, again.governor, again.cpus),
                        "the round trip changed the request");
        free(first);
        free(second);
        sc_journal_free(&again);
    }
    sc_journal_free(&j);
    free(text);
    return 0;
}
