/*
 * fuzz_bundle.c: a finished bundle as `streamcard verify`, `compare` and `report` read it.
 * Input: RESULTS_JSON NUL BUILD_JSON NUL PLATFORM_BEFORE NUL PLATFORM_AFTER NUL STATE_ENV
 * NUL CARD_YAML NUL STREAM_LOG NUL THREADS_AT_READY NUL NUMA_MAPS NUL RUN_CONF; a part that
 * is absent is a file that does not exist.
 *
 * The parts are written into a bundle directory and sealed (SHA256SUMS over them, so that
 * verify judges the contents, not the hashes), which goes through sc_analysis_load()
 * (sc_verify_bundle(), then sc_facts_load()) and sc_report_html(), as the analysis
 * commands do. Loading is deterministic: the same bundle loaded twice has no controlled
 * variable that differs (compare's rule), and every variable has a value.
 */
#include "support.h"

#include "analysis.h"
#include "report_html.h"
#include "sc_bundle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    PART_RESULTS,
    PART_BUILD,
    PART_BEFORE,
    PART_AFTER,
    PART_STATE,
    PART_CARD,
    PART_LOG,
    PART_THREADS,
    PART_MAPS,
    PART_CONF,
    PART_COUNT
};

/* Where each part goes in the bundle. */
static const char *const sc__file[PART_COUNT] = {
    "results.json",
    "build.json",
    "platform/before.txt",
    "platform/after.txt",
    "prefetch/state/state.env",
    "card.yaml",
    "stream.log",
    "threads_at_ready.txt",
    "numa_maps_at_ready.txt",
    "run.conf",
};

/* The report goes nowhere: rendering it is what is fuzzed, not the page. */
static FILE *sc__devnull(void)
{
    static FILE *out;

    if (!out)
        out = fopen("/dev/null", "w");
    sc_fuzz_require(out != NULL, "cannot open /dev/null");
    return out;
}

/* Writes the bundle's SHA256SUMS over the files just put there. */
static void sc__seal(const char *dir)
{
    sc_bundle b;

    sc_fuzz_require(sc_bundle_open(&b, dir) == 0, "cannot open the bundle just written");
    sc_fuzz_require(sc_bundle_seal(&b) == 0, "cannot seal the bundle");
    sc_bundle_close(&b);
}

/* The facts of one bundle loaded twice agree, and every controlled variable has a value. */
static void sc__facts_deterministic(const char *dir, const sc_bundle_facts *first)
{
    sc_bundle_facts again;
    size_t idx[SC_FACTS_MAX_VARS];

    sc_fuzz_require(sc_facts_load(dir, &again) == 0, "a bundle loaded once did not load again");
    sc_fuzz_require(sc_facts_diff(first, &again, idx) == 0,
                    "the same bundle loaded twice has a controlled variable that differs");
    for (size_t i = 0; i < first->n_vars; i++) {
        sc_fuzz_require(first->vars[i].value != NULL, "a controlled variable without a value");
        sc_fuzz_require(sc_facts_get(first, first->vars[i].name) == first->vars[i].value,
                        "sc_facts_get does not find a variable of the table");
    }
    sc_facts_free(&again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *part[PART_COUNT], dir[4096];
    sc_analysis_bundle ab;

    snprintf(dir, sizeof(dir), "%s/fuzz_run_20250101_000000", sc_fuzz_tmpdir());
    sc_fuzz_split(data, size, part, PART_COUNT);
    for (int i = 0; i < PART_COUNT; i++)
        sc_fuzz_put(dir, sc__file[i], part[i]);
    sc__seal(dir);
    if (sc_analysis_load(&ab, dir) == 0) {
        char why[1024];
        sc_verify_why(&ab.verify, why, sizeof(why));
        sc_fuzz_require(memchr(why, '\0', sizeof(why)) && !strchr(why, '\n'),
                        "sc_verify_why: not one line");
        if (ab.loaded)
            sc__facts_deterministic(dir, &ab.facts);
        sc_html *page = sc_html_open(sc__devnull());
        sc_fuzz_require(page != NULL, "out of memory");
        sc_report_html(page, &ab, 1, NULL);
        sc_html_close(page);
    }
    sc_analysis_free(&ab);
    sc_fuzz_free_parts(part, PART_COUNT);
    return 0;
}
