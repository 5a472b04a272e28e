/*
 * test_interference.c: the interference gate on samplers' records, table-driven. Each case
 * is a main loop worked out by hand (the arithmetic is in its comment): what the scheduler
 * and /proc/stat would show, and the share and verdict the method of sc_interference.h gives.
 */
#include "sc_card.h"
#include "sc_interference.h"
#include "card_util.h"
#include "sc_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define WIN(ns)                                                                                    \
    "TRACE_INTERFERENCE_WINDOW source=observer host=n01 ns=" ns " clk_tck=100 scans=2 "            \
    "sampler_cpu_ns=800000 sampler_loop_cpu_ns=200000 tasks=99\n"
#define CPU(cpu, user, system, steal, softirq)                                                     \
    "TRACE_INTERFERENCE_CPU source=observer cpu=" cpu " user=" user " nice=0 system=" system       \
    " idle=0 iowait=0 irq=0 softirq=" softirq " steal=" steal "\n"
#define TASK(tid, exec, delay, allowed)                                                            \
    "TRACE_INTERFERENCE_TASK source=observer tid=" tid " pid=100 exec_ns=" exec                    \
    " run_delay_ns=" delay " nvcsw=4 allowed=" allowed " comm=stream\n"
/* The time of process 100's threads that ended inside the window, on CPUs allowed. */
#define EXITED(source, exec, allowed)                                                              \
    "TRACE_INTERFERENCE_EXITED source=" source " pid=100 exec_ns=" exec " allowed=" allowed        \
    " comm=stream\n"
/* The thread pinned to cpu 3 ran 690 ms and waited 290 ms; CPU 3 was busy the whole second. */
#define WAIT_290                                                                                   \
    WIN("1000000000")                                                                              \
    CPU("2", "99", "1", "0", "0")                                                                  \
    CPU("3", "99", "1", "0", "0")                                                                  \
    TASK("100", "995000000", "2000000", "2") TASK("101", "690000000", "290000000", "3")
/* The workload's two threads, pinned to 2 and 3, each alone on its CPU for 1 s. */
#define QUIET                                                                                      \
    WIN("1000000000")                                                                              \
    CPU("2", "99", "1", "0", "0")                                                                  \
    CPU("3", "99", "1", "0", "0")                                                                  \
    TASK("100", "995000000", "2000000", "2") TASK("101", "990000000", "1000000", "3")

typedef struct intf_case {
    const char *name;
    const char *card_extra;
    const char *records;
    sc_gate_state expect;
    const char *note;
    double share; /* the worst CPU's share, % (-1: not checked) */
} intf_case;

static const intf_case cases[] = {
    /* cpu 2: waited 2 ms, busy 100 ticks = 1 s minus own 0.995 s minus 2 ticks: < 0 */
    {"quiet", "", QUIET, SC_GATE_OK, "foreign share at most 0.2% (cpu 2) of the 1.00 s main loop",
     0.2},
    /* a busy loop pinned to cpu 3: the thread there ran 0.5 s and waited 0.48 s; the CPU was
       busy 1 s, 0.5 s of it the job's: max(0.48, 1 - 0.5 - 0.02) = 0.48 s, 48% */
    {"busy loop on cpu 3", "",
     WIN("1000000000") CPU("2", "99", "1", "0", "0") CPU("3", "95", "5", "0", "0")
         TASK("100", "995000000", "2000000", "2") TASK(
             "101", "500000000", "480000000",
             "3") "TRACE_INTERFERENCE_INTRUDER source=observer cpu=3 pid=4242 tid=4242 ticks=50 "
                  "seen=2 comm=busy\n",
     SC_GATE_FAIL,
     "cpu 3: 48.0% of the 1.00 s main loop was foreign work (waited 480 ms, busy 480 ms, steal 0 "
     "ms; top intruder busy, pid 4242, 0.50 s), over max_interference_pct 5",
     48.0},
    /* the observer itself (allowed 2-3) ran 30 ms and delayed the thread on cpu 2 by 25 ms:
       the job's own, never foreign: 25 - 30 < 0 */
    {"own observer", "",
     WIN("1000000000") CPU("2", "99", "1", "0", "0") CPU("3", "99", "1", "0", "0")
         TASK("100", "960000000", "25000000", "2") TASK("101", "990000000", "1000000", "3")
             TASK("90", "30000000", "0", "2-3"),
     SC_GATE_OK, "within max_interference_pct 5", -1},
    /* a thread of the job, not pinned, ran 300 ms on cpu 3 and ended inside the window: the
       thread pinned there waited 290 ms for it. Without its time (EXITED) that wait would
       be 29% foreign; with it, 290 - 300 < 0 */
    {"ended own thread", "", WAIT_290 EXITED("observer", "300000000", "unknown"), SC_GATE_OK,
     "within max_interference_pct 5", -1},
    /* the same with only 100 ms ended: 290 - 100 = 190 ms foreign */
    {"ended own thread, too little", "", WAIT_290 EXITED("observer", "100000000", "3"),
     SC_GATE_FAIL, "cpu 3: 19.0%", 19.0},
    /* 300 ms ended, but on cpu 2 only, or another sampler's: nothing of it on cpu 3 */
    {"ended own thread elsewhere", "",
     WAIT_290 EXITED("observer", "300000000", "2") EXITED("rank1", "300000000", "unknown"),
     SC_GATE_FAIL, "cpu 3: 29.0%", 29.0},
    {"ended own thread unrecorded", "", WAIT_290, SC_GATE_FAIL, "cpu 3: 29.0%", 29.0},
    {"malformed exited record", "",
     WIN("1000000000") "TRACE_INTERFERENCE_EXITED source=observer pid=0 exec_ns=1 allowed=0 "
                       "comm=x\n",
     SC_GATE_FAIL, "malformed interference record at line 2", -1},
    /* a negative number would wrap to 2^64 - 1 and explain any wait: refused */
    {"signed number", "",
     WIN("1000000000") CPU("2", "99", "1", "0", "0") CPU("3", "99", "1", "0", "0")
         TASK("100", "995000000", "2000000", "2") TASK("101", "-1", "290000000", "3"),
     SC_GATE_FAIL, "malformed interference record at line 5", -1},
    {"signed exited time", "", WIN("1000000000") EXITED("observer", "-1", "unknown"), SC_GATE_FAIL,
     "malformed interference record at line 2", -1},
    /* a name may start with a minus sign: a word, not a number */
    {"comm with a minus sign", "",
     QUIET "TRACE_INTERFERENCE_EXITED source=observer pid=100 exec_ns=1 allowed=unknown "
           "comm=-bash\n",
     SC_GATE_OK, "within max_interference_pct 5", -1},
    /* steal 11 ticks on cpu 2: 10 ticks after the tick's resolution: 100 ms, 10% */
    {"steal counts", "",
     WIN("1000000000") CPU("2", "89", "0", "11", "0") CPU("3", "99", "1", "0", "0")
         TASK("100", "890000000", "0", "2") TASK("101", "990000000", "1000000", "3"),
     SC_GATE_FAIL, "cpu 2: 10.0% of the 1.00 s main loop", 10.0},
    {"steal within a wider limit", "  expect:\n    max_interference_pct: 20\n",
     WIN("1000000000") CPU("2", "89", "0", "11", "0") CPU("3", "99", "1", "0", "0")
         TASK("100", "890000000", "0", "2") TASK("101", "990000000", "1000000", "3"),
     SC_GATE_OK, "within max_interference_pct 20", 10.0},
    /* softirq is the job's own MPI traffic as often as not: recorded, not counted */
    {"softirq not counted", "",
     WIN("1000000000") CPU("2", "49", "1", "0", "50") CPU("3", "99", "1", "0", "0")
         TASK("100", "500000000", "0", "2") TASK("101", "990000000", "1000000", "3"),
     SC_GATE_OK, "within", -1},
    /* a 50 ms loop: 5 ticks against 50 ms of the job's: the tick's resolution gives nothing */
    {"short loop, no false alarm", "",
     WIN("50000000") CPU("2", "6", "0", "0", "0") CPU("3", "4", "0", "0", "0")
         TASK("100", "50000000", "0", "2") TASK("101", "48000000", "100000", "3"),
     SC_GATE_OK, "of the 50 ms main loop", -1},
    /* a 2 ms loop whose thread on cpu 3 waited 0.12 ms: 6%, said in the note's precision */
    {"2 ms loop, a wait of 0.12 ms", "",
     WIN("2000000") CPU("2", "0", "0", "0", "0") CPU("3", "0", "0", "0", "0")
         TASK("100", "1800000", "10000", "2") TASK("101", "1700000", "120000", "3"),
     SC_GATE_FAIL,
     "cpu 3: 6.0% of the 2.00 ms main loop was foreign work (waited 0.12 ms, busy 0 ms, steal 0 "
     "ms; no foreign task seen on it)",
     6.0},
    /* the same wait, the window's record counting the processes the host started in it */
    {"2 ms loop, processes started", "",
     "TRACE_INTERFERENCE_WINDOW source=observer host=n01 ns=2000000 clk_tck=100 scans=0 "
     "sampler_cpu_ns=800000 sampler_loop_cpu_ns=0 tasks=99 forks=2\n" CPU("2", "0", "0", "0", "0")
         CPU("3", "0", "0", "0", "0") TASK("100", "1800000", "10000", "2")
             TASK("101", "1700000", "120000", "3"),
     SC_GATE_FAIL,
     "(waited 0.12 ms, busy 0 ms, steal 0 ms; no foreign task seen on it; 2 processes "
     "started on n01 in the window)",
     6.0},
    {"forks= not a number", "",
     "TRACE_INTERFERENCE_WINDOW source=observer host=n01 ns=2000000 clk_tck=100 scans=0 "
     "sampler_cpu_ns=800000 sampler_loop_cpu_ns=0 tasks=99 forks=x2\n",
     SC_GATE_FAIL, "malformed interference record at line 1", -1},
    /* no thread of the job on cpu 3 (threads 1): what ran there is seen by its ticks alone:
       60 ticks, nothing of the job's, less 2 ticks: 58% */
    {"idle card cpu taken", "  threads: 1\n",
     WIN("1000000000") CPU("2", "99", "1", "0", "0") CPU("3", "60", "0", "0", "0")
         TASK("100", "995000000", "1000000", "2"),
     SC_GATE_FAIL, "cpu 3: 58.0%", 58.0},
    {"a card cpu without record", "", WIN("1000000000") CPU("2", "99", "1", "0", "0"), SC_GATE_FAIL,
     "not supported by evidence: no interference record of cpu 3", -1},
    {"malformed record", "", WIN("1000000000") "TRACE_INTERFERENCE_CPU source=observer cpu=two\n",
     SC_GATE_FAIL, "malformed interference record at line 2", -1},
    {"accounting off", "  interference_accounting: off\n", "", SC_GATE_NULL,
     "the card turns interference_accounting off", -1},
};

static sc_card *make_card(const char *extra)
{
    char yaml[1024];

    /* threads 2 unless the case sets it */
    snprintf(yaml, sizeof(yaml),
             "version: 1\nexperiment:\n  workload: stream\n  kernel: copy\n  cpu_list: 2-3\n%s%s",
             extra && strstr(extra, "threads") ? "" : "  threads: 2\n", extra);
    return sc_test_card(yaml);
}

static void test_cases(void)
{
    sc_tracelog t;

    SC_CHECK_INT_EQ(sc_tracelog_parse("", &t), 0);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const intf_case *c = &cases[i];
        sc_card *card = make_card(c->card_extra);
        sc_interference rec = {0};
        sc_gate g;
        SC_CHECK_MSG(card, "case \"%s\": card", c->name);
        SC_CHECK_INT_EQ(sc_interference_load(card, c->records, NULL, &rec), 0);
        sc_interference_gate(card, &rec, &t, &g);
        SC_CHECK_MSG(g.state == c->expect, "case \"%s\": state %d, expected %d (%s)", c->name,
                     g.state, c->expect, g.note);
        SC_CHECK_MSG(strstr(g.note, c->note), "case \"%s\": note \"%s\" lacks \"%s\"", c->name,
                     g.note, c->note);
        if (c->share >= 0) {
            sc_intf_share *sh = NULL;
            size_t n = 0;
            double worst = 0;
            SC_CHECK_INT_EQ(sc_interference_shares(&rec, &sh, &n), 0);
            for (size_t k = 0; k < n; k++)
                worst = sh[k].share_pct > worst ? sh[k].share_pct : worst;
            free(sh);
            SC_CHECK_MSG(fabs(worst - c->share) < 1e-9, "case \"%s\": share %.12g, expected %g",
                         c->name, worst, c->share);
        }
        sc_interference_free(&rec);
        sc_card_free(card);
    }
    sc_tracelog_free(&t);
}

/* MPI: each rank's CPU on its host, from the ranks' records in the log. */
#define MPI_LOG(rank1)                                                                             \
    "TRACE_RANK_BINDING rank=0 host=n01 cpu=2 pid=500 allowed=2\n"                                 \
    "TRACE_RANK_BINDING rank=1 host=n02 cpu=3 pid=600 allowed=3\n"                                 \
    "TRACE_INTERFERENCE_WINDOW source=rank0 host=n01 ns=1000000000 clk_tck=100 scans=0 "           \
    "sampler_cpu_ns=1 sampler_loop_cpu_ns=0 tasks=9\n"                                             \
    "TRACE_INTERFERENCE_CPU source=rank0 cpu=2 user=100 nice=0 system=0 idle=0 iowait=0 irq=0 "    \
    "softirq=0 steal=0\n"                                                                          \
    "TRACE_INTERFERENCE_TASK source=rank0 tid=500 pid=500 exec_ns=1000000000 run_delay_ns=0 "      \
    "nvcsw=0 allowed=2 comm=pingpong\n" rank1

/* rank 1's CPU on n02, where its task waited 0.4 s of its 1 s window */
#define RANK1_WAIT_40                                                                              \
    "TRACE_INTERFERENCE_WINDOW source=rank1 host=n02 ns=1000000000 clk_tck=100 scans=0 "           \
    "sampler_cpu_ns=1 sampler_loop_cpu_ns=0 tasks=9\n"                                             \
    "TRACE_INTERFERENCE_CPU source=rank1 cpu=3 user=100 nice=0 system=0 idle=0 iowait=0 "          \
    "irq=0 softirq=0 steal=0\n"                                                                    \
    "TRACE_INTERFERENCE_TASK source=rank1 tid=600 pid=600 exec_ns=600000000 "                      \
    "run_delay_ns=400000000 nvcsw=0 allowed=3 comm=pingpong\n"

static void test_mpi(void)
{
    const char *rank1 = RANK1_WAIT_40;
    char *log = NULL;
    sc_card *card = sc_test_card("version: 1\nexperiment:\n  workload: mpi-pingpong\n  "
                                 "cpu_list: 2-3\n");
    sc_tracelog t;
    sc_gate g;

    SC_CHECK(card);
    /* rank 1's CPU on n02 waited 0.4 s of 1 s */
    SC_CHECK(asprintf(&log, MPI_LOG("%s"), rank1) > 0);
    sc_interference rec = {0};
    SC_CHECK_INT_EQ(sc_tracelog_parse(log, &t), 0);
    SC_CHECK_INT_EQ(sc_interference_load(card, "", log, &rec), 0);
    sc_interference_gate(card, &rec, &t, &g);
    SC_CHECK_INT_EQ(g.state, SC_GATE_FAIL);
    SC_CHECK_STR_CONTAINS(g.note, "cpu 3 of n02: 40.0%");
    sc_interference_free(&rec);
    sc_tracelog_free(&t);
    free(log);
    /* without rank 1's records: not supported */
    log = NULL;
    SC_CHECK(asprintf(&log, MPI_LOG("%s"), "") > 0);
    SC_CHECK_INT_EQ(sc_tracelog_parse(log, &t), 0);
    SC_CHECK_INT_EQ(sc_interference_load(card, "", log, &rec), 0);
    sc_interference_gate(card, &rec, &t, &g);
    SC_CHECK_STR_CONTAINS(g.note, "not supported by evidence: no interference record of rank 1's "
                                  "cpu 3 of n02");
    sc_interference_free(&rec);
    sc_tracelog_free(&t);
    free(log);
    sc_card_free(card);
}

/* The observer's record of a task of process PID (an MPI rank under it), pinned to cpu 2,
   which waited 0.5 s of its 1 s. */
#define RANK_TASK(pid)                                                                             \
    "TRACE_INTERFERENCE_TASK source=observer tid=" pid " pid=" pid " exec_ns=500000000 "           \
    "run_delay_ns=500000000 nvcsw=4 allowed=2 comm=pingpong\n"

/*
 * An MPI program marked by its output's patterns: the observer's window (interference.txt, on
 * n01) stands for rank 0 on its host, whose process (500) it recorded as the job's own, where
 * its cpu 2 waited 0.5 s of 1 s (its own window says 0%); rank 1 on n02 keeps its own (40%).
 * A rank on the observer's host that is not among its tasks (srun's, not adopted) keeps its
 * own too. A card whose ranks bound their own windows ignores the observer's records; without
 * them, the ranks keep their own.
 */
static void test_mpi_patterns(void)
{
    const char *rank1 = RANK1_WAIT_40;
    const char *observer = WIN("1000000000") CPU("2", "100", "0", "0", "0") RANK_TASK("500");
    const char *not_rank = WIN("1000000000") CPU("2", "100", "0", "0", "0") RANK_TASK("501");
    sc_card *patterns = sc_test_card("version: 1\nexperiment:\n  workload: exec\n  command: "
                                     "[prog]\n  ranks: 2\n  cpu_list: 2-3\n  begin_pattern: "
                                     "'^go$'\n  end_pattern: '^done$'\n");
    sc_card *own = sc_test_card("version: 1\nexperiment:\n  workload: mpi-pingpong\n  "
                                "cpu_list: 2-3\n");
    char *log = NULL;
    sc_tracelog t;
    sc_gate g;

    SC_CHECK(patterns && own);
    SC_CHECK(asprintf(&log, MPI_LOG("%s"), rank1) > 0);
    SC_CHECK_INT_EQ(sc_tracelog_parse(log, &t), 0);
    sc_interference rec = {0};
    SC_CHECK_INT_EQ(sc_interference_load(patterns, observer, log, &rec), 0);
    sc_interference_gate(patterns, &rec, &t, &g);
    SC_CHECK_INT_EQ(g.state, SC_GATE_FAIL);
    SC_CHECK_STR_CONTAINS(g.note, "cpu 2 of n01: 50.0%");
    SC_CHECK_STR_CONTAINS(g.note, "; the ranks' interference windows: 1 from the card's patterns "
                                  "(the observer's on n01), 1 from their own (other hosts)");
    sc_interference_free(&rec);
    /* rank 0 is on n01 but the observer recorded another process: rank 0's own window (0%) */
    SC_CHECK_INT_EQ(sc_interference_load(patterns, not_rank, log, &rec), 0);
    sc_interference_gate(patterns, &rec, &t, &g);
    SC_CHECK_INT_EQ(g.state, SC_GATE_FAIL);
    SC_CHECK_STR_CONTAINS(g.note, "cpu 3 of n02: 40.0%");
    SC_CHECK_STR_CONTAINS(g.note, "; the ranks' interference windows: 0 from the card's patterns "
                                  "(the observer's on n01), 1 from their own (other hosts), 1 "
                                  "from their own (on n01, not among the observer's tasks)");
    SC_CHECK(!strstr(g.note, "cpu 2 of n01")); /* rank 0 judged on its own, clean window */
    sc_interference_free(&rec);
    /* one window more than its ranks: refused when loaded, ignored when read unbounded */
    SC_CHECK_INT_EQ(sc_interference_load(own, observer, log, &rec), 0);
    sc_interference_gate(own, &rec, &t, &g);
    SC_CHECK_STR_CONTAINS(g.note, "more sampler windows than the 2 the card has samplers for");
    sc_interference_free(&rec);
    SC_CHECK_INT_EQ(sc_interference_parse(observer, &rec), 0);
    SC_CHECK_INT_EQ(sc_interference_parse(log, &rec), 0);
    sc_interference_gate(own, &rec, &t, &g);
    SC_CHECK_STR_CONTAINS(g.note, "cpu 3 of n02: 40.0%");
    SC_CHECK(!strstr(g.note, "the card's patterns"));
    sc_interference_free(&rec);
    /* no observer's window (srun's ranks): the ranks' own, rank 0's clean, rank 1's 40% */
    SC_CHECK_INT_EQ(sc_interference_load(patterns, "", log, &rec), 0);
    sc_interference_gate(patterns, &rec, &t, &g);
    SC_CHECK_STR_CONTAINS(g.note, "cpu 3 of n02: 40.0%");
    SC_CHECK_STR_CONTAINS(g.note, "; the ranks' interference windows: 2 their own (no observer's "
                                  "window over the card's patterns)");
    sc_interference_free(&rec);
    sc_tracelog_free(&t);
    free(log);
    sc_card_free(patterns);
    sc_card_free(own);
}

/* results.json's summary: the share per CPU, the sampler's cost over the loop. */
static void test_json(void)
{
    sc_card *card = make_card("");
    sc_interference rec = {0};
    json_object *j, *cpus, *samplers, *v;

    SC_CHECK(card);
    SC_CHECK_INT_EQ(sc_interference_load(card, QUIET, NULL, &rec), 0);
    j = sc_interference_json(card, &rec);
    SC_CHECK(j && json_object_object_get_ex(j, "cpus", &cpus));
    SC_CHECK_INT_EQ(json_object_array_length(cpus), 2);
    SC_CHECK(json_object_object_get_ex(json_object_array_get_idx(cpus, 0), "share_pct", &v));
    SC_CHECK(fabs(json_object_get_double(v) - 0.2) < 1e-9);
    SC_CHECK(json_object_object_get_ex(j, "samplers", &samplers));
    /* 0.2 ms of scans during a 1 s loop: 0.02% */
    SC_CHECK(json_object_object_get_ex(json_object_array_get_idx(samplers, 0), "cost_pct", &v));
    SC_CHECK(fabs(json_object_get_double(v) - 0.02) < 1e-9);
    SC_CHECK(!json_object_object_get_ex(json_object_array_get_idx(samplers, 0), "forks", &v));
    json_object_put(j);
    sc_interference_free(&rec);
    /* a window that counted the processes started in it says how many */
    memset(&rec, 0, sizeof(rec));
    SC_CHECK_INT_EQ(sc_interference_load(card,
                                         "TRACE_INTERFERENCE_WINDOW source=observer host=n01 "
                                         "ns=1000000000 clk_tck=100 scans=2 sampler_cpu_ns=1 "
                                         "sampler_loop_cpu_ns=1 tasks=9 forks=4\n",
                                         NULL, &rec),
                    0);
    j = sc_interference_json(card, &rec);
    SC_CHECK(j && json_object_object_get_ex(j, "samplers", &samplers));
    SC_CHECK(json_object_object_get_ex(json_object_array_get_idx(samplers, 0), "forks", &v) &&
             json_object_get_int64(v) == 4);
    json_object_put(j);
    sc_interference_free(&rec);
    /* the ended threads' time: one entry of the tasks, marked */
    memset(&rec, 0, sizeof(rec));
    SC_CHECK_INT_EQ(sc_interference_load(card,
                                         QUIET "TRACE_INTERFERENCE_EXITED source=observer pid=100 "
                                               "exec_ns=7000000 allowed=2-3 comm=stream\n",
                                         NULL, &rec),
                    0);
    j = sc_interference_json(card, &rec);
    json_object *tasks, *last;
    SC_CHECK(j && json_object_object_get_ex(j, "tasks", &tasks));
    SC_CHECK_INT_EQ(json_object_array_length(tasks), 3);
    last = json_object_array_get_idx(tasks, 2);
    SC_CHECK(json_object_object_get_ex(last, "exited_threads", &v) && json_object_get_boolean(v));
    SC_CHECK(json_object_object_get_ex(last, "exec_ms", &v) &&
             fabs(json_object_get_double(v) - 7.0) < 1e-9);
    SC_CHECK(!json_object_object_get_ex(json_object_array_get_idx(tasks, 0), "exited_threads", &v));
    json_object_put(j);
    sc_interference_free(&rec);
    sc_card_free(card);
}

int main(void)
{
    SC_TEST_RUN(test_cases);
    SC_TEST_RUN(test_mpi);
    SC_TEST_RUN(test_mpi_patterns);
    SC_TEST_RUN(test_json);
    return SC_TEST_RESULT();
}
