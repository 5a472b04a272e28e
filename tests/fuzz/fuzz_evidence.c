/*
 * fuzz_evidence.c: the evidence of a run as `streamcard run` and `streamcard verify` read
 * it back. Input: RUN_CONF NUL STREAM_LOG NUL THREADS_AT_READY NUL STATUS_AT_READY NUL
 * NUMA_MAPS NUL STATE_ENV; a part that is absent is a file that does not exist.
 *
 * run.conf is read with sc_kv_get() as verify does (exit_known, exit_code, exit_signal,
 * write_errors, plus transport, best_rate_MBps and workload to pick one of two cards), the log
 * with sc_tracelog_parse(), and everything goes through sc_gates_evaluate(). The writer
 * side of sc_kv is held to its promise: a value added with sc_kv_addf() reads back with
 * control characters replaced, and can never forge a line of its own. A gate that holds
 * must be right: binding OK means every reported CPU is in cpu_list, memory_node OK means
 * no anonymous page elsewhere.
 */
#include "support.h"

#include "sc_card.h"
#include "sc_cpulist.h"
#include "sc_diag.h"
#include "sc_gates.h"
#include "sc_kv.h"
#include "sc_tracelog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PART_CONF, PART_LOG, PART_THREADS, PART_STATUS, PART_MAPS, PART_STATE, PART_COUNT };

static sc_card *sc__card(const char *yaml)
{
    sc_card *card = sc_card_new();
    sc_diag d;

    sc_diag_init(&d);
    sc_fuzz_require(card != NULL, "out of memory");
    if (sc_card_parse(card, yaml, strlen(yaml), "fixed.yaml", &d) != 0 ||
        sc_card_check(card, &d) != 0) {
        sc_diag_print(&d, "  ", stderr);
        sc_fuzz_require(false, "the fixed card of the harness does not check");
    }
    sc_diag_free(&d);
    return card;
}

/* Two fixed cards that ask for every optional gate between them. */
static const sc_card *sc__pick_card(const char *workload)
{
    static sc_card *stream, *mpi;

    if (!stream) {
        stream = sc__card("version: 1\n"
                          "experiment:\n"
                          "  workload: stream\n"
                          "  kernel: copy\n"
                          "  cpu_list: 0-3\n"
                          "  threads: 2\n"
                          "  memory_node: 0\n"
                          "  prefetch: off\n"
                          "  governor: performance\n"
                          "  expect:\n"
                          "    min_rate_MBps: 1000\n");
        mpi = sc__card("version: 1\n"
                       "experiment:\n"
                       "  workload: mpi-pingpong\n"
                       "  cpu_list: 0-1\n"
                       "  expect:\n"
                       "    transport: shm\n");
    }
    return strcmp(workload, "mpi-pingpong") == 0 ? mpi : stream;
}

/* sc_kv's writer: a value never starts a line of its own, and reads back sanitized. */
static void sc__kv_writer(const char *value)
{
    char *expect = strdup(value), *got = malloc(strlen(value) + 1), probe[64];
    sc_kv kv;

    sc_fuzz_require(expect && got, "out of memory");
    for (char *p = expect; *p; p++)
        if ((unsigned char)*p < 0x20 && *p != '\t')
            *p = '?';
    sc_kv_init(&kv);
    sc_kv_addf(&kv, "note", "%s", value);
    sc_kv_addf(&kv, "end", "1");
    sc_fuzz_require(!kv.failed, "sc_kv_addf: out of memory");
    sc_fuzz_require(sc_kv_get(kv.text, "note", got, strlen(value) + 1) && strcmp(got, expect) == 0,
                    "sc_kv: a value did not read back as written");
    sc_fuzz_require(!sc_kv_get(kv.text, "verdict", probe, sizeof(probe)),
                    "sc_kv: a value forged a line of its own");
    sc_fuzz_require(sc_kv_get(kv.text, "end", probe, sizeof(probe)) && strcmp(probe, "1") == 0,
                    "sc_kv: a value changed the line after it");
    sc_kv_free(&kv);
    free(expect);
    free(got);
}

/* A CPU number the card names (a number that only matches after a cast does not count). */
static bool sc__card_cpu(const sc_card *card, long cpu)
{
    return cpu >= 0 && cpu <= SC_CPULIST_MAX_CPU && hwloc_bitmap_isset(card->cpus, (unsigned)cpu);
}

/*
 * A binding gate that holds: every thread (MPI: every rank) the log reports ran on a CPU
 * of the card.
 */
static void sc__binding_holds(const sc_card *card, const char *log)
{
    sc_tracelog t;

    if (!log || sc_tracelog_parse(log, &t) != 0)
        return;
    if (sc_workload_mpi(card)) {
        for (size_t i = 0; i < t.n_rank_bindings; i++)
            sc_fuzz_require(sc__card_cpu(card, t.rank_bindings[i].cpu),
                            "the binding gate holds for a rank outside cpu_list");
    } else {
        for (size_t i = 0; i < t.n_bindings; i++)
            sc_fuzz_require(sc__card_cpu(card, t.bindings[i].cpu),
                            "the binding gate holds for a thread outside cpu_list");
    }
    sc_tracelog_free(&t);
}

/*
 * A memory_node gate that holds: no line with anonymous memory has pages on another node,
 * however long the line. Inputs whose byte counts overflow 64 bits are not judged.
 */
static void sc__memory_node_holds(const sc_card *card, const char *numa_maps)
{
    unsigned long long elsewhere = 0;
    bool overflow = false;

    for (const char *next = numa_maps; next && *next;) {
        size_t n = strcspn(next, "\n");
        char *line = strndup(next, n), *save = NULL;
        sc_fuzz_require(line != NULL, "out of memory");
        next += n + (next[n] == '\n');
        const char *ps = strstr(line, "kernelpagesize_kB=");
        unsigned long long page_kb = ps ? strtoull(ps + 18, NULL, 10) : 4, bytes;
        bool anon = strstr(line, " anon=") != NULL;
        for (char *tok = strtok_r(line, " ", &save); anon && tok;
             tok = strtok_r(NULL, " ", &save)) {
            long node;
            unsigned long long pages;
            if (sscanf(tok, "N%ld=%llu", &node, &pages) == 2 && node != card->memory_node)
                overflow |= __builtin_mul_overflow(pages, page_kb * 1024, &bytes) ||
                            page_kb > ~0ull / 1024 ||
                            __builtin_add_overflow(elsewhere, bytes, &elsewhere);
        }
        free(line);
    }
    sc_fuzz_require(overflow || elsewhere == 0,
                    "the memory_node gate holds with anonymous pages on another node");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *part[PART_COUNT], workload[32] = "", transport[64] = "", rate[64] = "";
    long exit_known = 0, exit_code = -1, exit_signal = 0, write_errors = -1;
    sc_tracelog t;
    sc_gates gates;

    sc_fuzz_split(data, size, part, PART_COUNT);
    const char *conf = part[PART_CONF];
    sc_kv_get(conf, "workload", workload, sizeof(workload));
    sc_kv_get(conf, "transport", transport, sizeof(transport));
    sc_kv_get(conf, "best_rate_MBps", rate, sizeof(rate));
    sc_kv_get_long(conf, "exit_known", &exit_known);
    sc_kv_get_long(conf, "exit_code", &exit_code);
    sc_kv_get_long(conf, "exit_signal", &exit_signal);
    sc_kv_get_long(conf, "write_errors", &write_errors);
    char tiny[1];
    sc_kv_get(conf, "exit_code", tiny, sizeof(tiny)); /* a buffer too small for any value */

    if (part[PART_LOG] && sc_tracelog_parse(part[PART_LOG], &t) == 0) {
        (void)sc_tracelog_row(&t, "Copy");
        sc_tracelog_free(&t);
    }

    sc_evidence ev = {.log = part[PART_LOG],
                      .exit_known = exit_known == 1,
                      .exit_code = (int)exit_code,
                      .exit_signal = (int)exit_signal,
                      .threads_at_ready = part[PART_THREADS],
                      .status_at_ready = part[PART_STATUS],
                      .numa_maps_at_ready = part[PART_MAPS],
                      .state_env = part[PART_STATE],
                      .best_rate_MBps = strtod(rate, NULL),
                      .transport = *transport ? transport : NULL,
                      .write_errors = (int)write_errors,
                      .write_error =
                          write_errors > 0 ? "stream.log: No space left on device" : NULL};
    const sc_card *card = sc__pick_card(workload);
    if (sc_gates_evaluate(card, &ev, &gates) == 0) {
        (void)sc_gates_passed(&gates);
        if (gates.g[SC_GATE_BINDING].state == SC_GATE_OK)
            sc__binding_holds(card, ev.log);
        if (gates.g[SC_GATE_MEMORY_NODE].state == SC_GATE_OK)
            sc__memory_node_holds(card, ev.numa_maps_at_ready);
        for (int i = 0; i < SC_GATE_COUNT; i++)
            sc_fuzz_require(sc_gate_name((sc_gate_id)i) && sc_gate_conf_key((sc_gate_id)i) &&
                                memchr(gates.g[i].note, '\0', sizeof(gates.g[i].note)),
                            "a gate without a name or an unterminated note");
    }
    sc__kv_writer(conf);
    sc_fuzz_free_parts(part, PART_COUNT);
    return 0;
}
