/* test_gates.c: every gate on synthetic evidence, table-driven: one change per case. */
#include "sc_card.h"
#include "sc_cause.h"
#include "sc_gates.h"
#include "card_util.h"
#include "sc_test.h"

#include <stdlib.h>
#include <string.h>

#define GOOD_LOG                                                                                   \
    "Number of Threads requested = 2\n"                                                            \
    "TRACE_THREAD_BINDING thread=0 cpu=2\n"                                                        \
    "TRACE_THREAD_BINDING thread=1 cpu=3\n"                                                        \
    "Number of Threads counted = 2\n"                                                              \
    "Clock granularity = 1 microseconds\n"                                                         \
    "TRACE_WORKLOAD_PHASE=main_loop_begin\n"                                                       \
    "TRACE_WORKLOAD_PHASE=main_loop_end\n"                                                         \
    "Function    Best Rate MB/s  Avg time     Min time     Max time\n"                             \
    "Copy:           52740.8     0.000622     0.000607     0.000661\n"                             \
    "Solution Validates (Copy-only single kernel contract)\n"

/* ipsearch, threads 2 and pool_threads 1: one pool whose team of 2 searches. */
#define IPS_LOG(pool_lines)                                                                        \
    "Number of Threads requested = 2\n"                                                            \
    "TRACE_THREAD_BINDING thread=1 cpu=3\n"                                                        \
    "TRACE_THREAD_BINDING thread=0 cpu=2\n"                                                        \
    "Number of Threads counted = 2\n" pool_lines "TRACE_WORKLOAD_PHASE=main_loop_begin\n"          \
    "TRACE_WORKLOAD_PHASE=main_loop_end\n"                                                         \
    "Solution Validates (ipsearch top-k, 16 sampled queries, recall@k=1.000)\n"
#define IPS_POOL0 "TRACE_POOL_THREAD pool=0 thread=0 cpu=2 pin=ok\n"
#define IPS_POOL1 "TRACE_POOL_THREAD pool=0 thread=1 cpu=3 pin=ok\n"
#define IPS_PIN_FAILED                                                                             \
    "warning: pinning pool 0 thread 1 to cpu 3 failed: Invalid argument\n"                         \
    "TRACE_POOL_THREAD pool=0 thread=1 cpu=2 pin=failed\n"

/* The rest of an ipsearch case's evidence is good; its binding gate is the one looked at. */
#define IPS_BINDING GOOD_THREADS, GOOD_STATUS, GOOD_MAPS, NULL, 0, 0, 0, SC_GATE_BINDING

/* A last-level cache of 4 MiB: the default array (76 MiB each) is above 4 times it. */
#define GOOD_CACHES "llc_level=3\nllc_instances=1\nllc_bytes=4194304\n"
/* A report not believed, and the probe's points: the edge is at 8 MiB. */
#define PROBED_CACHES(EDGE)                                                                        \
    GOOD_CACHES "llc_trusted=no\nllc_untrusted=a hypervisor (cpuinfo's flags)\n"                   \
                "probe_threads=2\nprobe_isa=avx2\nprobe_cpus=2,3\n"                                \
                "probe_points=1048576:100000 2097152:100000 4194304:60000 8388608:15000 "          \
                "16777216:15000 33554432:15000\nprobe_edge_bytes=" EDGE "\n"

#define GOOD_THREADS "PID TID PSR STAT COMM\n100 100 2 R k\n100 101 3 R k\n"
#define GOOD_STATUS "Name:\tk\nCpus_allowed_list:\t2-3\nMems_allowed_list:\t0\n"
#define GOOD_MAPS                                                                                  \
    "7f00 default anon=100 dirty=100 N0=100 kernelpagesize_kB=4\n"                                 \
    "7f10 default file=/usr/lib/libc.so mapped=10 N1=10 kernelpagesize_kB=4\n"

/* A quiet main loop on CPUs 2 and 3: each workload thread had its CPU (common/sampler.c's
   records; the gate itself is tested in test_interference.c). */
#define GOOD_INTERFERENCE                                                                          \
    "TRACE_INTERFERENCE_WINDOW source=observer host=n01 ns=1000000000 clk_tck=100 scans=3 "        \
    "sampler_cpu_ns=900000 sampler_loop_cpu_ns=300000 tasks=120\n"                                 \
    "TRACE_INTERFERENCE_CPU source=observer cpu=2 user=99 nice=0 system=1 idle=0 iowait=0 irq=0 "  \
    "softirq=0 steal=0\n"                                                                          \
    "TRACE_INTERFERENCE_CPU source=observer cpu=3 user=98 nice=0 system=1 idle=1 iowait=0 irq=0 "  \
    "softirq=0 steal=1\n"                                                                          \
    "TRACE_INTERFERENCE_TASK source=observer tid=100 pid=100 exec_ns=995000000 "                   \
    "run_delay_ns=2000000 nvcsw=1 allowed=2 comm=k\n"                                              \
    "TRACE_INTERFERENCE_TASK source=observer tid=101 pid=100 exec_ns=990000000 "                   \
    "run_delay_ns=1000000 nvcsw=1 allowed=3 comm=k\n"

typedef struct gate_case {
    const char *name;
    const char *card_extra; /* appended to the card */
    const char *log, *threads, *status, *maps, *state;
    int exit_code, exit_signal;
    double rate;
    sc_gate_id gate;
    sc_gate_state expect;
    const char *note; /* substring of the gate's note */
} gate_case;

static const gate_case cases[] = {
    {"all good", "", GOOD_LOG, GOOD_THREADS, GOOD_STATUS, GOOD_MAPS, NULL, 0, 0, 0, SC_GATE_BINDING,
     SC_GATE_OK, "2 threads on distinct CPUs"},
    {"thread outside the list", "",
     "Number of Threads requested = 2\nNumber of Threads counted = 2\n"
     "TRACE_THREAD_BINDING thread=0 cpu=2\nTRACE_THREAD_BINDING thread=1 cpu=5\n",
     GOOD_THREADS, GOOD_STATUS, GOOD_MAPS, NULL, 0, 0, 0, SC_GATE_BINDING, SC_GATE_FAIL,
     "thread 1 ran on cpu 5, outside cpu_list 2-3"},
    {"two threads on one cpu", "",
     "TRACE_THREAD_BINDING thread=0 cpu=2\nTRACE_THREAD_BINDING thread=1 cpu=2\n", GOOD_THREADS,
     GOOD_STATUS, GOOD_MAPS, NULL, 0, 0, 0, SC_GATE_BINDING, SC_GATE_FAIL, "two threads on cpu 2"},
    {"a thread missing its trace", "", "TRACE_THREAD_BINDING thread=0 cpu=2\n", GOOD_THREADS,
     GOOD_STATUS, GOOD_MAPS, NULL, 0, 0, 0, SC_GATE_BINDING, SC_GATE_FAIL,
     "1 TRACE_THREAD_BINDING lines for 2 threads"},
    {"malformed trace", "", "TRACE_THREAD_BINDING thread=0 cpu=two\n", GOOD_THREADS, GOOD_STATUS,
     GOOD_MAPS, NULL, 0, 0, 0, SC_GATE_BINDING, SC_GATE_FAIL, "malformed trace line at log line 1"},
    {"snapshot thread elsewhere", "", GOOD_LOG, "PID TID PSR\n100 100 2 R k\n100 101 7 R k\n",
     GOOD_STATUS, GOOD_MAPS, NULL, 0, 0, 0, SC_GATE_BINDING, SC_GATE_FAIL,
     "snapshot: thread 101 was on cpu 7"},
    {"snapshot affinity wider", "", GOOD_LOG, GOOD_THREADS, "Cpus_allowed_list:\t0-3\n", GOOD_MAPS,
     NULL, 0, 0, 0, SC_GATE_BINDING, SC_GATE_FAIL, "Cpus_allowed_list 0-3 is not inside"},
    {"no snapshot", "", GOOD_LOG, NULL, NULL, GOOD_MAPS, NULL, 0, 0, 0, SC_GATE_BINDING,
     SC_GATE_FAIL, "not supported by evidence"},
    {"missing main_loop_end", "", "TRACE_WORKLOAD_PHASE=main_loop_begin\nSolution Validates (x)\n",
     GOOD_THREADS, GOOD_STATUS, GOOD_MAPS, NULL, 0, 0, 0, SC_GATE_PHASES, SC_GATE_FAIL,
     "no main_loop_end"},
    {"no markers", "", "hello\n", GOOD_THREADS, GOOD_STATUS, GOOD_MAPS, NULL, 0, 0, 0,
     SC_GATE_PHASES, SC_GATE_FAIL, "no TRACE_WORKLOAD_PHASE=main_loop_begin"},
    {"failed validation", "", GOOD_LOG "Failed Validation: a 3 elements wrong\n", GOOD_THREADS,
     GOOD_STATUS, GOOD_MAPS, NULL, 0, 0, 0, SC_GATE_VALIDATION, SC_GATE_FAIL,
     "Failed Validation: a 3 elements wrong"},
    {"nan in the table", "",
     GOOD_LOG "Scale:           -nan     0.000622     0.000607     0.000661\n", GOOD_THREADS,
     GOOD_STATUS, GOOD_MAPS, NULL, 0, 0, 0, SC_GATE_VALIDATION, SC_GATE_FAIL, "NaN or Inf"},
    {"inf in the table", "", GOOD_LOG "Add:  inf 1 1 1\n", GOOD_THREADS, GOOD_STATUS, GOOD_MAPS,
     NULL, 0, 0, 0, SC_GATE_VALIDATION, SC_GATE_FAIL, "NaN or Inf"},
    {"words containing inf are fine", "", GOOD_LOG "information: infinite loops avoided\n",
     GOOD_THREADS, GOOD_STATUS, GOOD_MAPS, NULL, 0, 0, 0, SC_GATE_VALIDATION, SC_GATE_OK,
     "Solution Validates"},
    {"an environment record with INFINITY is not a result", "",
     GOOD_LOG "env: GOMP_SPINCOUNT=INFINITY\n", GOOD_THREADS, GOOD_STATUS, GOOD_MAPS, NULL, 0, 0, 0,
     SC_GATE_VALIDATION, SC_GATE_OK, "Solution Validates"},
    /* another user's task may call itself "inf": its name in a rank's interference record
       is not a result */
    {"an intruder named inf", "",
     GOOD_LOG
     "TRACE_INTERFERENCE_INTRUDER source=rank0 cpu=2 pid=7 tid=7 ticks=1 seen=1 comm=inf\n",
     GOOD_THREADS, GOOD_STATUS, GOOD_MAPS, NULL, 0, 0, 0, SC_GATE_VALIDATION, SC_GATE_OK,
     "Solution Validates"},
    {"every evidence file written", "", GOOD_LOG, GOOD_THREADS, GOOD_STATUS, GOOD_MAPS, NULL, 0, 0,
     0, SC_GATE_EVIDENCE, SC_GATE_OK, "every evidence file was written"},
    {"no validation line", "", "TRACE_WORKLOAD_PHASE=main_loop_begin\n", GOOD_THREADS, GOOD_STATUS,
     GOOD_MAPS, NULL, 0, 0, 0, SC_GATE_VALIDATION, SC_GATE_FAIL, "no \"Solution Validates\""},
    {"wrong thread count", "", "Number of Threads requested = 2\nNumber of Threads counted = 1\n",
     GOOD_THREADS, GOOD_STATUS, GOOD_MAPS, NULL, 0, 0, 0, SC_GATE_THREAD_COUNT, SC_GATE_FAIL,
     "requested 2, counted 1, card threads 2"},
    {"thread count not printed", "", "x\n", GOOD_THREADS, GOOD_STATUS, GOOD_MAPS, NULL, 0, 0, 0,
     SC_GATE_THREAD_COUNT, SC_GATE_FAIL, "not supported by evidence"},
    {"non-zero exit", "", GOOD_LOG, GOOD_THREADS, GOOD_STATUS, GOOD_MAPS, NULL, 3, 0, 0,
     SC_GATE_EXIT_CODE, SC_GATE_FAIL, "exit code 3"},
    {"killed by a signal", "", GOOD_LOG, GOOD_THREADS, GOOD_STATUS, GOOD_MAPS, NULL, 0, 9, 0,
     SC_GATE_EXIT_CODE, SC_GATE_FAIL, "killed by signal 9"},
    {"memory on another node", "  memory_node: 1\n", GOOD_LOG, GOOD_THREADS,
     "Name:\tk\nCpus_allowed_list:\t2-3\nMems_allowed_list:\t0-1\n", GOOD_MAPS, NULL, 0, 0, 0,
     SC_GATE_MEMORY_NODE, SC_GATE_FAIL, "0.0 MiB of anonymous memory on node 1, 0.4 MiB elsewhere"},
    {"Mems_allowed without the card's node", "  memory_node: 1\n", GOOD_LOG, GOOD_THREADS,
     GOOD_STATUS, GOOD_MAPS, NULL, 0, 0, 0, SC_GATE_MEMORY_NODE, SC_GATE_FAIL,
     "workload_status_at_ready.txt: Mems_allowed_list 0 does not hold memory_node 1"},
    {"Mems_allowed_list missing", "  memory_node: 0\n", GOOD_LOG, GOOD_THREADS,
     "Name:\tk\nCpus_allowed_list:\t2-3\n", GOOD_MAPS, NULL, 0, 0, 0, SC_GATE_MEMORY_NODE,
     SC_GATE_FAIL, "Mems_allowed_list (missing) does not hold memory_node 0"},
    {"memory on the card's node", "  memory_node: 0\n", GOOD_LOG, GOOD_THREADS, GOOD_STATUS,
     GOOD_MAPS, NULL, 0, 0, 0, SC_GATE_MEMORY_NODE, SC_GATE_OK, "all 0.4 MiB"},
    {"no memory node asked", "", GOOD_LOG, GOOD_THREADS, GOOD_STATUS, GOOD_MAPS, NULL, 0, 0, 0,
     SC_GATE_MEMORY_NODE, SC_GATE_NULL, "sets no memory_node"},
    {"memory node without numa_maps", "  memory_node: 0\n", GOOD_LOG, GOOD_THREADS, GOOD_STATUS,
     NULL, NULL, 0, 0, 0, SC_GATE_MEMORY_NODE, SC_GATE_FAIL, "not supported by evidence"},
    {"prefetch read back differs", "  prefetch: off\n", GOOD_LOG, GOOD_THREADS, GOOD_STATUS,
     GOOD_MAPS, "OBSERVED_STATE=on\nSTATE_VALID=1\n", 0, 0, 0, SC_GATE_PLATFORM_STATE, SC_GATE_FAIL,
     "prefetch: card off, read back on"},
    {"prefetch without readback", "  prefetch: off\n", GOOD_LOG, GOOD_THREADS, GOOD_STATUS,
     GOOD_MAPS, NULL, 0, 0, 0, SC_GATE_PLATFORM_STATE, SC_GATE_FAIL, "not supported by evidence"},
    {"prefetch invalid state", "  prefetch: off\n", GOOD_LOG, GOOD_THREADS, GOOD_STATUS, GOOD_MAPS,
     "OBSERVED_STATE=off\nSTATE_VALID=0\n", 0, 0, 0, SC_GATE_PLATFORM_STATE, SC_GATE_FAIL,
     "STATE_VALID=0"},
    {"prefetch read back off", "  prefetch: off\n", GOOD_LOG, GOOD_THREADS, GOOD_STATUS, GOOD_MAPS,
     "OBSERVED_STATE=off\nSTATE_VALID=1\n", 0, 0, 0, SC_GATE_PLATFORM_STATE, SC_GATE_OK,
     "prefetch off"},
    {"below the minimum rate", "  expect:\n    min_rate_MBps: 60000\n", GOOD_LOG, GOOD_THREADS,
     GOOD_STATUS, GOOD_MAPS, NULL, 0, 0, 52740.8, SC_GATE_MIN_RATE, SC_GATE_FAIL,
     "52740.8 MB/s is below the card's minimum 60000.0"},
    {"above the minimum rate", "  expect:\n    min_rate_MBps: 50000\n", GOOD_LOG, GOOD_THREADS,
     GOOD_STATUS, GOOD_MAPS, NULL, 0, 0, 52740.8, SC_GATE_MIN_RATE, SC_GATE_OK, ">= 50000.0"},
};

/* ipsearch cards: the search threads (TRACE_POOL_THREAD) are gated, not only the idle team. */
static const gate_case ips_cases[] = {
    {"ipsearch: search threads pinned apart", "  pool_threads: 1\n", IPS_LOG(IPS_POOL0 IPS_POOL1),
     IPS_BINDING, SC_GATE_OK, "2 pinned search threads on CPUs of 2-3, each its own"},
    {"ipsearch: no search thread lines", "  pool_threads: 1\n", IPS_LOG(""), IPS_BINDING,
     SC_GATE_FAIL, "not supported by evidence: no TRACE_POOL_THREAD lines"},
    {"ipsearch: a search thread could not be pinned", "  pool_threads: 1\n",
     IPS_LOG(IPS_POOL0 IPS_PIN_FAILED), IPS_BINDING, SC_GATE_FAIL,
     "search thread 1 of pool 0 could not be pinned"},
    {"ipsearch: a search thread outside cpu_list", "  pool_threads: 1\n",
     IPS_LOG(IPS_POOL0 "TRACE_POOL_THREAD pool=0 thread=1 cpu=7 pin=ok\n"), IPS_BINDING,
     SC_GATE_FAIL, "search thread 1 of pool 0 ran on cpu 7, outside cpu_list 2-3"},
    {"ipsearch: two search threads on one cpu", "  pool_threads: 1\n",
     IPS_LOG(IPS_POOL0 "TRACE_POOL_THREAD pool=0 thread=1 cpu=2 pin=ok\n"), IPS_BINDING,
     SC_GATE_FAIL, "two search threads on cpu 2"},
    {"ipsearch: a search thread missing", "  pool_threads: 1\n", IPS_LOG(IPS_POOL0), IPS_BINDING,
     SC_GATE_FAIL, "1 TRACE_POOL_THREAD lines for 2 search threads (1 pools of 2)"},
    {"ipsearch: a search thread reported twice", "  pool_threads: 1\n",
     IPS_LOG(IPS_POOL0 IPS_POOL1 IPS_POOL1), IPS_BINDING, SC_GATE_FAIL,
     "search thread 1 of pool 0 reported twice"},
    {"ipsearch: a pool the card does not have", "  pool_threads: 1\n",
     IPS_LOG(IPS_POOL0 "TRACE_POOL_THREAD pool=1 thread=0 cpu=3 pin=ok\n"), IPS_BINDING,
     SC_GATE_FAIL, "the card has pools 0-0 of 2 threads"},
    {"ipsearch: malformed search thread line", "  pool_threads: 1\n",
     IPS_LOG(IPS_POOL0 "TRACE_POOL_THREAD pool=0 thread=1 cpu=3\n"), IPS_BINDING, SC_GATE_FAIL,
     "malformed trace line at log line 6"},
    /* More handlers than OpenMP threads (the card's choice): they share cpus, allowed. */
    {"ipsearch: more search threads than cpus may share", "  pool_threads: 3\n",
     IPS_LOG(IPS_POOL0 "TRACE_POOL_THREAD pool=1 thread=0 cpu=3 pin=ok\n"
                       "TRACE_POOL_THREAD pool=2 thread=0 cpu=2 pin=ok\n"),
     IPS_BINDING, SC_GATE_OK, "3 pinned search threads on CPUs of 2-3; snapshot agrees"},
};

static sc_card *make_card_of(const char *workload, const char *extra)
{
    char yaml[1024];

    snprintf(yaml, sizeof(yaml), "version: 1\nexperiment:\n%s  cpu_list: 2-3\n  threads: 2\n%s",
             workload, extra);
    return sc_test_card(yaml);
}

static sc_card *make_card(const char *extra)
{
    return make_card_of("  workload: stream\n  kernel: copy\n", extra);
}

static void run_cases(const gate_case *table, size_t n, const char *workload)
{
    for (size_t i = 0; i < n; i++) {
        const gate_case *c = &table[i];
        sc_card *card = make_card_of(workload, c->card_extra);
        sc_gates gates;
        SC_CHECK_MSG(card != NULL, "case %s: card", c->name);
        sc_evidence ev = {.log = c->log,
                          .exit_known = true,
                          .exit_code = c->exit_code,
                          .exit_signal = c->exit_signal,
                          .threads_at_ready = c->threads,
                          .status_at_ready = c->status,
                          .numa_maps_at_ready = c->maps,
                          .state_env = c->state,
                          .caches = GOOD_CACHES,
                          .best_rate_MBps = c->rate};
        SC_CHECK_INT_EQ(sc_gates_evaluate(card, &ev, &gates), 0);
        const sc_gate *g = &gates.g[c->gate];
        sc_card_free(card);
        SC_CHECK_MSG(g->state == c->expect, "case \"%s\": gate %s is %d, expected %d (%s)", c->name,
                     sc_gate_name(c->gate), g->state, c->expect, g->note);
        SC_CHECK_MSG(strstr(g->note, c->note), "case \"%s\": note \"%s\" lacks \"%s\"", c->name,
                     g->note, c->note);
        /* A failed gate always fails the verdict. */
        if (c->expect == SC_GATE_FAIL)
            SC_CHECK_MSG(!sc_gates_passed(&gates), "case \"%s\" passed", c->name);
    }
}

/* The snapshot at the workload's start (workload_status.txt) is held to the card as the one
   at ready: its CPUs inside cpu_list, its memory nodes holding memory_node. */
static void test_start_status(void)
{
    static const struct {
        const char *card_extra, *start;
        sc_gate_id gate;
        sc_gate_state expect;
        const char *note;
    } starts[] = {
        {"", GOOD_STATUS, SC_GATE_BINDING, SC_GATE_OK, "snapshot agrees"},
        {"", "Cpus_allowed_list:\t0-7\nMems_allowed_list:\t0\n", SC_GATE_BINDING, SC_GATE_FAIL,
         "snapshot of workload_status.txt: Cpus_allowed_list 0-7 is not inside cpu_list 2-3"},
        {"  memory_node: 0\n", GOOD_STATUS, SC_GATE_MEMORY_NODE, SC_GATE_OK, "all 0.4 MiB"},
        {"  memory_node: 0\n", "Cpus_allowed_list:\t2-3\nMems_allowed_list:\t1\n",
         SC_GATE_MEMORY_NODE, SC_GATE_FAIL,
         "workload_status.txt: Mems_allowed_list 1 does not hold memory_node 0"},
    };
    char yaml[512];

    for (size_t i = 0; i < sizeof(starts) / sizeof(starts[0]); i++) {
        snprintf(yaml, sizeof(yaml),
                 "version: 1\nexperiment:\n  workload: stream\n  kernel: copy\n"
                 "  cpu_list: 2-3\n  threads: 2\n%s",
                 starts[i].card_extra);
        sc_card *card = sc_test_card(yaml);
        sc_gates gates;
        sc_evidence ev = {.log = GOOD_LOG,
                          .exit_known = true,
                          .threads_at_ready = GOOD_THREADS,
                          .status_at_ready = GOOD_STATUS,
                          .status_at_start = starts[i].start,
                          .numa_maps_at_ready = GOOD_MAPS,
                          .caches = GOOD_CACHES};
        SC_CHECK(card != NULL);
        if (!card)
            continue;
        SC_CHECK_INT_EQ(sc_gates_evaluate(card, &ev, &gates), 0);
        const sc_gate *g = &gates.g[starts[i].gate];
        SC_CHECK_MSG(g->state == starts[i].expect, "start %zu: %d (%s)", i, g->state, g->note);
        SC_CHECK_MSG(strstr(g->note, starts[i].note), "start %zu: \"%s\" lacks \"%s\"", i, g->note,
                     starts[i].note);
        sc_card_free(card);
    }
}

static void test_cases(void)
{
    run_cases(cases, sizeof(cases) / sizeof(cases[0]), "  workload: stream\n  kernel: copy\n");
}

static void test_ipsearch_cases(void)
{
    run_cases(ips_cases, sizeof(ips_cases) / sizeof(ips_cases[0]), "  workload: ipsearch\n");
}

/* A fast Copy row: its fastest repetition (the third column) in seconds. */
#define COPY_ROW(MIN) "Copy:  52740.8  0.000622  " MIN "  0.000661\n"
#define STREAM_LOG(GRANULARITY, ROW)                                                               \
    "Number of Threads requested = 2\nTRACE_THREAD_BINDING thread=0 cpu=2\n"                       \
    "TRACE_THREAD_BINDING thread=1 cpu=3\nNumber of Threads counted = 2\n" GRANULARITY             \
    "TRACE_WORKLOAD_PHASE=main_loop_begin\nTRACE_WORKLOAD_PHASE=main_loop_end\n" ROW               \
    "Solution Validates (x)\n"
#define IMB_LOG                                                                                    \
    "Number of Ranks requested = 2\nNumber of Ranks counted = 2\n"                                 \
    "TRACE_WORKLOAD_PHASE=main_loop_begin\nTRACE_WORKLOAD_PHASE=main_loop_end\n"                   \
    "#bytes #repetitions t[usec] Mbytes/sec\n"                                                     \
    "1 1000 1.50 0.67\n"                                                                           \
    "4096 1000 3.00 1365.33\n"                                                                     \
    "65536 200 40.00 1638.40\n"                                                                    \
    "Solution Validates (x)\n"

#define RANKS_LOG(THREADS)                                                                         \
    "Number of Ranks requested = 2\n"                                                              \
    "TRACE_RANK_BINDING rank=0 host=n1 cpu=2 pid=10 allowed=2\n"                                   \
    "TRACE_RANK_BINDING rank=1 host=n1 cpu=3 pid=11 allowed=3\n"                                   \
    "Number of Ranks counted = 2\n" THREADS "TRACE_RANK_NUMA rank=0 host=n1 node=0 bytes=4096\n"
#define RANK_THREADS_OK                                                                            \
    "TRACE_RANK_THREAD rank=0 host=n1 pid=10 tid=10 cpu=2\n"                                       \
    "TRACE_RANK_THREAD rank=0 host=n1 pid=10 tid=12 cpu=2\n"                                       \
    "TRACE_RANK_THREAD rank=1 host=n1 pid=11 tid=11 cpu=3\n"

/* STREAM's validity rules and the MPI expectations: one change per case. */
static void test_validity(void)
{
    static const struct {
        const char *name, *workload, *extra, *log, *caches;
        sc_gate_id gate;
        sc_gate_state expect;
        const char *note;
    } vcases[] = {
        {"array above 4x the cache", "stream", "", GOOD_LOG, GOOD_CACHES, SC_GATE_STREAM_ARRAY,
         SC_GATE_OK, "each array 76.3 MiB >= 4 x the 4.0 MiB of L3 cache of cpu_list"},
        {"array inside 4x the cache", "stream", "  array_size: 1000000\n", GOOD_LOG, GOOD_CACHES,
         SC_GATE_STREAM_ARRAY, SC_GATE_FAIL,
         "each array 7.6 MiB is below 4 x the 4.0 MiB of L3 cache of cpu_list: the rates measure "
         "the cache, not memory (valid: array_size >= 2097152, 0.05 GiB for 3 arrays; "
         "array_size: auto; or cache_resident: accept)"},
        {"a report not believed: the measured edge", "stream", "", GOOD_LOG,
         PROBED_CACHES("8388608"), SC_GATE_STREAM_ARRAY, SC_GATE_OK,
         "each array 76.3 MiB >= 4 x the last cache's edge, measured at 8.0 MiB by 2 threads "
         "(reported L3 4.0 MiB, unverified)"},
        {"an array inside 4x the measured edge", "stream", "  array_size: 3000000\n", GOOD_LOG,
         PROBED_CACHES("8388608"), SC_GATE_STREAM_ARRAY, SC_GATE_FAIL,
         "each array 22.9 MiB is below 4 x the last cache's edge, measured at 8.0 MiB"},
        {"an edge the points do not give", "stream", "  array_size: 3000000\n", GOOD_LOG,
         PROBED_CACHES("2097152"), SC_GATE_STREAM_ARRAY, SC_GATE_FAIL,
         "not supported by evidence: platform/caches.txt's probe does not hold together"},
        {"a report not believed, no probe", "stream", "  array_size: 3000000\n", GOOD_LOG,
         GOOD_CACHES "llc_trusted=no\nllc_untrusted=a hypervisor\n", SC_GATE_STREAM_ARRAY,
         SC_GATE_OK, "the 4.0 MiB of L3 cache reported (unverified, and no probe was kept)"},
        {"array inside the cache, accepted", "stream",
         "  array_size: 1000000\n  cache_resident: accept\n", GOOD_LOG, GOOD_CACHES,
         SC_GATE_STREAM_ARRAY, SC_GATE_OK, "accepted by the card (cache_resident: accept)"},
        {"caches not recorded", "stream", "", GOOD_LOG, NULL, SC_GATE_STREAM_ARRAY, SC_GATE_FAIL,
         "not supported by evidence: platform/caches.txt"},
        {"caches not recorded, accepted", "stream", "  cache_resident: accept\n", GOOD_LOG, NULL,
         SC_GATE_STREAM_ARRAY, SC_GATE_OK, "the last-level cache was not recorded"},
        {"the array rule is STREAM's", "ipsearch", "", GOOD_LOG, NULL, SC_GATE_STREAM_ARRAY,
         SC_GATE_NULL, "not a STREAM run"},
        {"20 ticks", "stream", "",
         STREAM_LOG("Clock granularity = 1 microseconds\n", COPY_ROW("0.000020")), GOOD_CACHES,
         SC_GATE_STREAM_TIMER, SC_GATE_OK, "took 20 us >= 20 ticks of 1 us"},
        {"19 ticks", "stream", "",
         STREAM_LOG("Clock granularity = 1 microseconds\n", COPY_ROW("0.000019")), GOOD_CACHES,
         SC_GATE_STREAM_TIMER, SC_GATE_FAIL,
         "the fastest repetition (Copy) took 19 us, below 20 ticks of the 1 us clock"},
        {"a coarse clock", "stream", "",
         STREAM_LOG("Clock granularity = 10 microseconds\n", COPY_ROW("0.000150")), GOOD_CACHES,
         SC_GATE_STREAM_TIMER, SC_GATE_FAIL, "took 150 us, below 20 ticks of the 10 us"},
        {"19 ticks, accepted", "stream", "  cache_resident: accept\n",
         STREAM_LOG("Clock granularity = 1 microseconds\n", COPY_ROW("0.000019")), GOOD_CACHES,
         SC_GATE_STREAM_TIMER, SC_GATE_OK, "accepted by the card"},
        {"no granularity", "stream", "", STREAM_LOG("", COPY_ROW("0.000500")), GOOD_CACHES,
         SC_GATE_STREAM_TIMER, SC_GATE_FAIL, "not supported by evidence: no clock granularity"},
        {"rate at the largest size", "mpi-pingpong", "  expect:\n    min_rate_MBps: 1600\n",
         IMB_LOG, NULL, SC_GATE_MIN_RATE, SC_GATE_OK, "1638.4 MB/s at 65536 bytes >= 1600.0"},
        {"rate at at_bytes", "mpi-pingpong",
         "  expect:\n    min_rate_MBps: 1600\n    at_bytes: 4096\n", IMB_LOG, NULL,
         SC_GATE_MIN_RATE, SC_GATE_FAIL, "1365.3 MB/s at 4096 bytes is below the card's minimum"},
        {"at_bytes not measured", "mpi-pingpong",
         "  expect:\n    min_rate_MBps: 1\n    at_bytes: 8\n", IMB_LOG, NULL, SC_GATE_MIN_RATE,
         SC_GATE_FAIL, "not supported by evidence: no bandwidth at at_bytes"},
        {"latency at the smallest size", "mpi-pingpong", "  expect:\n    max_latency_us: 2\n",
         IMB_LOG, NULL, SC_GATE_MAX_LATENCY, SC_GATE_OK, "latency 1.50 us at 1 bytes <= 2.00 us"},
        {"latency above the maximum", "mpi-pingpong", "  expect:\n    max_latency_us: 1.2\n",
         IMB_LOG, NULL, SC_GATE_MAX_LATENCY, SC_GATE_FAIL,
         "latency 1.50 us at 1 bytes is above the card's maximum 1.20 us"},
        {"no latency asked", "mpi-pingpong", "", IMB_LOG, NULL, SC_GATE_MAX_LATENCY, SC_GATE_NULL,
         "sets no max_latency_us"},
        {"the ranks' own threads on their CPUs", "mpi-pingpong", "", RANKS_LOG(RANK_THREADS_OK),
         NULL, SC_GATE_BINDING, SC_GATE_OK, "their 3 threads on their ranks' CPUs"},
        {"a rank's thread elsewhere", "mpi-pingpong", "",
         RANKS_LOG(RANK_THREADS_OK "TRACE_RANK_THREAD rank=1 host=n1 pid=11 tid=13 cpu=2\n"), NULL,
         SC_GATE_BINDING, SC_GATE_FAIL,
         "thread 13 of rank 1 ran on cpu 2 of n1, outside the rank's CPUs 3"},
        {"a rank not seen", "mpi-pingpong", "",
         RANKS_LOG("TRACE_RANK_THREAD rank=0 host=n1 pid=10 tid=10 cpu=2\n"), NULL, SC_GATE_BINDING,
         SC_GATE_FAIL, "not supported by evidence: no TRACE_RANK_THREAD line for rank 1"},
        {"a malformed rank snapshot", "mpi-pingpong", "",
         RANKS_LOG(RANK_THREADS_OK "TRACE_RANK_NUMA rank=1 host=n1 node=x bytes=1\n"), NULL,
         SC_GATE_BINDING, SC_GATE_FAIL, "malformed trace line at log line 8"},
    };
    for (size_t i = 0; i < sizeof(vcases) / sizeof(vcases[0]); i++) {
        char workload[64];
        snprintf(workload, sizeof(workload), "  workload: %s\n", vcases[i].workload);
        sc_card *card = make_card_of(workload, vcases[i].extra);
        sc_gates gates;
        SC_CHECK_MSG(card != NULL, "case %s: card", vcases[i].name);
        sc_evidence ev = {.log = vcases[i].log, .exit_known = true, .caches = vcases[i].caches};
        SC_CHECK_INT_EQ(sc_gates_evaluate(card, &ev, &gates), 0);
        const sc_gate *g = &gates.g[vcases[i].gate];
        sc_card_free(card);
        SC_CHECK_MSG(g->state == vcases[i].expect, "case \"%s\": gate %s is %d (%s)",
                     vcases[i].name, sc_gate_name(vcases[i].gate), g->state, g->note);
        SC_CHECK_MSG(strstr(g->note, vcases[i].note), "case \"%s\": note \"%s\" lacks \"%s\"",
                     vcases[i].name, g->note, vcases[i].note);
    }
}

/* What a failed gate says about the run: its class, and exit_code's by how the run ended. */
static void test_classes(void)
{
    static const struct {
        int exit_code, exit_signal;
        bool by_streamcard;
        sc_gate_class cls;
    } ends[] = {
        {3, 0, false, SC_GATE_OUTCOME},      /* its own non-zero exit */
        {0, 11, false, SC_GATE_OUTCOME},     /* SIGSEGV: a crash of its own */
        {0, 6, false, SC_GATE_OUTCOME},      /* SIGABRT */
        {0, 9, false, SC_GATE_ENVIRONMENT},  /* SIGKILL: from outside */
        {0, 15, false, SC_GATE_ENVIRONMENT}, /* SIGTERM */
        {0, 15, true, SC_GATE_ENVIRONMENT},  /* --timeout */
        {3, 0, true, SC_GATE_ENVIRONMENT},   /* a forwarded signal it turned into an exit */
    };
    sc_card *card = make_card("");
    SC_CHECK(card != NULL);
    for (size_t i = 0; i < sizeof(ends) / sizeof(ends[0]); i++) {
        sc_gates gates;
        sc_evidence ev = {.log = GOOD_LOG,
                          .exit_known = true,
                          .exit_code = ends[i].exit_code,
                          .exit_signal = ends[i].exit_signal,
                          .ended_by_streamcard = ends[i].by_streamcard,
                          .caches = GOOD_CACHES};
        SC_CHECK_INT_EQ(sc_gates_evaluate(card, &ev, &gates), 0);
        SC_CHECK(sc_gates_failed(&gates, SC_GATE_EXIT_CODE));
        SC_CHECK_MSG(sc_gates_failure_class(&gates, SC_GATE_EXIT_CODE) == ends[i].cls,
                     "end %zu: exit %d signal %d: class %s", i, ends[i].exit_code,
                     ends[i].exit_signal,
                     sc_gate_class_name(sc_gates_failure_class(&gates, SC_GATE_EXIT_CODE)));
    }
    sc_card_free(card);
    static const sc_gate_id outcome[] = {SC_GATE_VALIDATION, SC_GATE_EXIT_CODE, SC_GATE_TRANSPORT,
                                         SC_GATE_MIN_RATE, SC_GATE_MAX_LATENCY};
    size_t n_outcome = 0;
    for (int i = 0; i < SC_GATE_COUNT; i++)
        n_outcome += sc_gate_class_of((sc_gate_id)i) == SC_GATE_OUTCOME;
    SC_CHECK_INT_EQ(n_outcome, sizeof(outcome) / sizeof(outcome[0]));
    for (size_t i = 0; i < sizeof(outcome) / sizeof(outcome[0]); i++)
        SC_CHECK(sc_gate_class_of(outcome[i]) == SC_GATE_OUTCOME);
    SC_CHECK_INT_EQ(sc_gate_by_name("transport", 9), SC_GATE_TRANSPORT);
    SC_CHECK_INT_EQ(sc_gate_by_name("transport,x", 9), SC_GATE_TRANSPORT);
    SC_CHECK_INT_EQ(sc_gate_by_name("transpor", 8), SC_GATE_COUNT);
}

/* A failed run's first cause line: the workload's or its library's own words. */
static void test_first_cause(void)
{
    static const struct {
        const char *log, *line;
        long at;
    } causes[] = {
        {"Number of Ranks requested = 2\n----\nAt least one pair of MPI processes are unable "
         "to reach each other\nmore\n",
         "At least one pair of MPI processes are unable to reach each other", 3},
        {"TRACE_THREAD_BINDING thread=0 cpu=error\nSolution Validates (no failures)\n"
         "env: X=fail\nmpirun: Error: node n2 not found  \r\n",
         "mpirun: Error: node n2 not found", 4},
        {"all fine\nSolution Validates (x)\n", "", 0},
        /* A measurement the workload could not make is its report, not an error. */
        {"counters: unavailable: perf_event_open cycles: No such file or directory (x)\n"
         "simd_share: unavailable: no counters\nrank 1: Error: cannot reach rank 0\n",
         "rank 1: Error: cannot reach rank 0", 3},
        {"", "", 0},
    };
    char buf[128];

    for (size_t i = 0; i < sizeof(causes) / sizeof(causes[0]); i++) {
        long at = sc_tracelog_first_cause(causes[i].log, buf, sizeof(buf));
        SC_CHECK_MSG(at == causes[i].at && !strcmp(buf, causes[i].line),
                     "case %zu: line %ld \"%s\"", i, at, buf);
    }
}

/* gates with every gate OK, then the failures of fail ("gate=note" pairs, NULL-ended). */
static void cause_gates(sc_gates *g, const char *const *fail)
{
    memset(g, 0, sizeof(*g));
    for (int i = 0; i < SC_GATE_COUNT; i++)
        sc_gate_set(&g->g[i], SC_GATE_OK, "ok");
    for (size_t i = 0; fail[i]; i++) {
        const char *eq = strchr(fail[i], '=');
        sc_gate_set(&g->g[sc_gate_by_name(fail[i], (size_t)(eq - fail[i]))], SC_GATE_FAIL, "%s",
                    eq + 1);
    }
}

/* The cause line: the failed gates first, the most telling with its note, then the first
   error of the workload's log where its words can explain a gate, labelled as such. */
static void test_cause(void)
{
    static const char *const counters_log =
        "counters: unavailable: perf_event_open cycles: No such file or directory (x)\n"
        "Solution Validates\n";
    static const char *const mpi_log = "Number of Ranks requested = 2\n"
                                       "At least one pair of MPI processes are unable to reach "
                                       "each other\n";
    static const struct {
        const char *fail[4];
        bool outside, signalled;
        const char *log, *cause;
    } cause_cases[] = {
        /* Only the interference gate: its note, never the counters' report. */
        {{"interference=cpu 1: 12.0% foreign (kworker)", NULL},
         false,
         false,
         counters_log,
         "gate interference failed: cpu 1: 12.0% foreign (kworker)"},
        /* An MPI library that could not start: the exit first (an outcome with evidence), the
           environment's consequences after it, then the library's words. */
        {{"thread_count=not supported by evidence: no line", "phases=no main_loop_begin",
          "exit_code=exit code 1", NULL},
         false,
         false,
         mpi_log,
         "gate exit_code failed: exit code 1; also failed: phases, thread_count; workload log "
         "line 2: At least one pair of MPI processes are unable to reach each other"},
        /* A crash: the signal, not the validation line its end left missing. */
        {{"validation=no \"Solution Validates\" in the log", "exit_code=killed by signal 11", NULL},
         false,
         true,
         NULL,
         "gate exit_code failed: killed by signal 11; also failed: validation"},
        /* A cancelled run: the cancellation, and nothing the workload said as it stopped. */
        {{"validation=no \"Solution Validates\" in the log",
          "exit_code=killed by signal 15 (Terminated)", NULL},
         true,
         true,
         mpi_log,
         "gate exit_code failed: killed by signal 15 (Terminated), from outside the workload; "
         "also failed: validation"},
        /* A note quoting the log's line is not followed by the same line again. */
        {{"validation=log line 2: At least one pair of MPI processes are unable to reach each "
          "other",
          NULL},
         false,
         false,
         mpi_log,
         "gate validation failed: log line 2: At least one pair of MPI processes are unable to "
         "reach each other"},
        {{NULL}, false, false, mpi_log, ""},
    };
    char buf[1024];
    sc_gates g;

    for (size_t i = 0; i < sizeof(cause_cases) / sizeof(cause_cases[0]); i++) {
        cause_gates(&g, cause_cases[i].fail);
        g.ended_from_outside = cause_cases[i].outside;
        g.signalled = cause_cases[i].signalled;
        size_t n = sc_cause_of_run(&g, cause_cases[i].log, buf, sizeof(buf));
        SC_CHECK_MSG(n == strlen(buf) && !strcmp(buf, cause_cases[i].cause), "case %zu: \"%s\"", i,
                     buf);
    }
    /* Cut to a small buffer: a whole text, ending "...". */
    cause_gates(&g, cause_cases[1].fail);
    sc_cause_of_run(&g, mpi_log, buf, 24);
    SC_CHECK_STR_EQ(buf, "gate exit_code fail...");
}

static void test_verdict(void)
{
    sc_card *card = make_card("");
    sc_gates gates;
    sc_evidence ev = {.log = GOOD_LOG,
                      .exit_known = true,
                      .threads_at_ready = GOOD_THREADS,
                      .status_at_ready = GOOD_STATUS,
                      .numa_maps_at_ready = GOOD_MAPS,
                      .caches = GOOD_CACHES,
                      .interference = GOOD_INTERFERENCE};
    SC_CHECK(card != NULL);
    SC_CHECK_INT_EQ(sc_gates_evaluate(card, &ev, &gates), 0);
    SC_CHECK(sc_gates_passed(&gates));
    /* The end of the run not seen: no verdict can be ok. */
    ev.exit_known = false;
    SC_CHECK_INT_EQ(sc_gates_evaluate(card, &ev, &gates), 0);
    SC_CHECK(!sc_gates_passed(&gates));
    /* Evidence that could not be written, or whose writing is not recorded, fails it. */
    ev.write_errors = 2;
    ev.write_error = "platform/after.txt: No space left on device";
    SC_CHECK_INT_EQ(sc_gates_evaluate(card, &ev, &gates), 0);
    SC_CHECK_INT_EQ(gates.g[SC_GATE_EVIDENCE].state, SC_GATE_FAIL);
    SC_CHECK_STR_CONTAINS(gates.g[SC_GATE_EVIDENCE].note, "2 writes into the bundle failed");
    SC_CHECK(!sc_gates_passed(&gates));
    ev.write_errors = -1;
    SC_CHECK_INT_EQ(sc_gates_evaluate(card, &ev, &gates), 0);
    SC_CHECK_STR_CONTAINS(gates.g[SC_GATE_EVIDENCE].note, "not supported by evidence");
    SC_CHECK(!sc_gates_passed(&gates));
    ev.write_errors = 0;
    /* A mandatory gate without evidence (NULL state) fails the verdict too. */
    ev.exit_known = true;
    SC_CHECK_INT_EQ(sc_gates_evaluate(card, &ev, &gates), 0);
    gates.g[SC_GATE_BINDING].state = SC_GATE_NULL;
    SC_CHECK(!sc_gates_passed(&gates));
    SC_CHECK_STR_EQ(sc_gate_conf_key(SC_GATE_BINDING), "thread_binding_ok");
    SC_CHECK_STR_EQ(sc_gate_conf_key(SC_GATE_VALIDATION), "validation_ok");
    /* Without its interference records the run proves nothing about foreign work. */
    ev.interference = NULL;
    SC_CHECK_INT_EQ(sc_gates_evaluate(card, &ev, &gates), 0);
    SC_CHECK_STR_CONTAINS(gates.g[SC_GATE_INTERFERENCE].note, "not supported by evidence");
    SC_CHECK(!sc_gates_passed(&gates));
    sc_card_free(card);
}

int main(void)
{
    SC_TEST_RUN(test_cases);
    SC_TEST_RUN(test_start_status);
    SC_TEST_RUN(test_ipsearch_cases);
    SC_TEST_RUN(test_verdict);
    SC_TEST_RUN(test_first_cause);
    SC_TEST_RUN(test_cause);
    SC_TEST_RUN(test_validity);
    SC_TEST_RUN(test_classes);
    return SC_TEST_RESULT();
}
