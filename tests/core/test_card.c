/* test_card.c: the experiment card: good cards, bad cards and their exact messages. */
#include "sc_card.h"
#include "sc_card_schema.h"
#include "sc_machine.h"
#include "card_cases.h"
#include "sc_test.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

static const card_case static_cases[] = {
    {"good stream card",
     HEAD "  question: \"Copy-only, 16 cores on node 0\"\n  workload: stream\n  kernel: copy\n"
          "  cpu_list: 0-15\n  threads: 16\n  memory_node: 0\n  prefetch: off\n"
          "  governor: performance\n  array_size: 4096000000\n  iterations: 300\n"
          "  expect:\n    min_rate_MBps: 60000\n  env:\n    OMP_WAIT_POLICY: passive\n"
          "  controlled_variables:\n    - \"AOCC 5.0, -O3\"\n",
     {NULL}},
    {"threads above the cpu list",
     HEAD "  workload: stream\n  cpu_list: 0-15\n  threads: 17\n",
     {"card.yaml:5: threads: 17 is more than the 16 CPUs of cpu_list 0-15 (valid: 1-16)"}},
    {"reversed range",
     HEAD "  workload: stream\n  cpu_list: 3-1\n",
     {"card.yaml:4: cpu_list: \"3-1\" is a reversed range (write low-high)"}},
    {"unknown key with suggestion",
     HEAD "  workload: stream\n  cpu_list: 0-1\n  thread: 2\n",
     {"card.yaml:5: unknown key \"thread\" (did you mean threads?)"}},
    {"unknown key far from any",
     HEAD "  workload: stream\n  cpu_list: 0\n  colour: red\n",
     {"card.yaml:5: unknown key \"colour\" in experiment"}},
    {"duplicate key",
     HEAD "  workload: stream\n  cpu_list: 0\n  cpu_list: 1\n",
     {"card.yaml:5: duplicate key cpu_list (first on line 4)"}},
    {"bad workload",
     HEAD "  workload: hpl\n  cpu_list: 0\n",
     {"card.yaml:3: workload: \"hpl\" is not a workload (valid: stream, ipsearch, mpi-pingpong, "
      "exec)"}},
    {"missing workload", HEAD "  cpu_list: 0\n", {"card.yaml: workload: missing"}},
    {"missing cpu list", HEAD "  workload: stream\n", {"card.yaml: cpu_list: missing"}},
    {"bad prefetch",
     HEAD "  workload: stream\n  cpu_list: 0\n  prefetch: maybe\n",
     {"prefetch: \"maybe\" is not allowed (valid: on, off, unchanged)"}},
    {"negative threads",
     HEAD "  workload: stream\n  cpu_list: 0\n  threads: -1\n",
     {"threads: \"-1\" is not a whole number (valid: 1-65536)"}},
    {"iterations too few",
     HEAD "  workload: stream\n  cpu_list: 0\n  iterations: 1\n",
     {"iterations: \"1\" is not in range (valid: 2-1000000000)"}},
    {"key of another workload",
     HEAD "  workload: stream\n  cpu_list: 0\n  nb: 1000\n",
     {"card.yaml:5: nb: not used by workload stream (valid only for ipsearch; remove it)"}},
    {"stream kernel",
     HEAD "  workload: stream\n  cpu_list: 0\n  kernel: daxpy\n",
     {"kernel: \"daxpy\" is not a stream kernel (valid: copy, scale, add, triad, all)"}},
    {"env sets thread count",
     HEAD "  workload: stream\n  cpu_list: 0\n  env:\n    OMP_NUM_THREADS: 4\n",
     {"env: OMP_NUM_THREADS is set from threads"}},
    {"env set twice",
     HEAD "  workload: stream\n  cpu_list: 0\n  env:\n    A: 1\n    B: 2\n    A: 3\n",
     {"card.yaml:8: env: A is set twice"}},
    {"env bad name",
     HEAD "  workload: stream\n  cpu_list: 0\n  env:\n    1BAD: x\n",
     {"env: \"1BAD\" is not a variable name"}},
    {"list for a key that cannot be swept",
     HEAD "  workload: [stream, ipsearch]\n  cpu_list: 0\n",
     {"card.yaml:3: workload: cannot be swept"}},
    /* An env variable sweeps like a key; the card's identity and placement do not. */
    {"an env sweep",
     HEAD "  workload: stream\n  cpu_list: 0\n  env:\n    OMP_WAIT_POLICY: [ACTIVE, PASSIVE]\n",
     {NULL}},
    {"an env sweep of the thread count",
     HEAD "  workload: stream\n  cpu_list: 0\n  env:\n    OMP_NUM_THREADS: [1, 2]\n",
     {"card.yaml:5 (sweep value 1): env: OMP_NUM_THREADS is set from threads",
      "card.yaml:5 (sweep value 2): env: OMP_NUM_THREADS is set from threads"}},
    {"an env sweep value twice",
     HEAD "  workload: stream\n  cpu_list: 0\n  env:\n    OMP_WAIT_POLICY: [ACTIVE, ACTIVE]\n",
     {"card.yaml:6: OMP_WAIT_POLICY: ACTIVE appears twice in the sweep"}},
    {"an env sweep beside a key's sweep",
     HEAD "  workload: stream\n  cpu_list: 0-1\n  threads: [1, 2]\n  env:\n    A: [x, y]\n",
     {"card.yaml:7: env: a card sweeps one variable, and it already sweeps threads"}},
    {"an env sweep and the same name set",
     HEAD "  workload: stream\n  cpu_list: 0\n  env:\n    A: [x, y]\n    A: z\n",
     {"card.yaml:7: env: A is set twice"}},
    {"question cannot be swept",
     HEAD "  workload: stream\n  cpu_list: 0\n  question: [a, b]\n",
     {"card.yaml:5: question: cannot be swept"}},
    {"nodes cannot be swept",
     HEAD "  workload: stream\n  cpu_list: 0\n  nodes: [a, b]\n",
     {"card.yaml:5: nodes: cannot be swept"}},
    {"version cannot be swept",
     "version: [1, 1]\nexperiment:\n  workload: stream\n  cpu_list: 0\n",
     {"card.yaml:1: version: cannot be swept"}},
    /* An ablation study: steps of card changes, read and bounded like the card. */
    {"an ablation study",
     HEAD "  workload: ipsearch\n  cpu_list: 0-1\nablation:\n  - name: pool\n    set: "
          "{pool_threads: 2}\n  - name: wait\n    set: {env: {OMP_WAIT_POLICY: PASSIVE}}\n"
          "  - name: no spin\n    unset: [GOMP_SPINCOUNT]\nmetric: qps\n",
     {NULL}},
    {"an ablation step with an unknown key",
     HEAD "  workload: ipsearch\n  cpu_list: 0-1\nablation:\n  - name: a\n    sett: {k: 2}\n",
     {"card.yaml:7: ablation: unknown key \"sett\" in a step (valid: name, set, unset)",
      "card.yaml:6: ablation: step \"a\" changes nothing"}},
    {"an ablation step that changes the workload",
     HEAD "  workload: ipsearch\n  cpu_list: 0-1\nablation:\n  - name: a\n    set: {workload: "
          "stream}\n",
     {"card.yaml:7: ablation: set: workload cannot be a step",
      "card.yaml:6: ablation: step \"a\" changes nothing"}},
    {"an ablation step of an unknown key",
     HEAD "  workload: ipsearch\n  cpu_list: 0-1\nablation:\n  - name: a\n    set: {pool: 2}\n",
     {"card.yaml:7: ablation: set: unknown key \"pool\"", "step \"a\" changes nothing"}},
    {"an ablation step's bad value",
     HEAD "  workload: ipsearch\n  cpu_list: 0-1\nablation:\n  - name: a\n    set: {threads: 3}\n",
     {"card.yaml:7: threads: 3 is more than the 2 CPUs"}},
    {"two steps of one name",
     HEAD "  workload: ipsearch\n  cpu_list: 0-1\nablation:\n  - name: a\n    set: {k: 2}\n"
          "  - name: a\n    set: {k: 3}\n",
     {"card.yaml:8: ablation: step \"a\" is named twice (first on line 6)"}},
    {"an ablation and a sweep",
     HEAD "  workload: ipsearch\n  cpu_list: 0-1\n  k: [1, 2]\nablation:\n  - name: a\n"
          "    set: {nq: 2}\n",
     {"card.yaml:6: ablation: a study sweeps nothing"}},
    {"an empty ablation",
     HEAD "  workload: ipsearch\n  cpu_list: 0-1\nablation: []\n",
     {"card.yaml:5: ablation: expected a list of 1 to 32 steps"}},
    {"a metric without a study",
     HEAD "  workload: ipsearch\n  cpu_list: 0-1\nmetric: qps\n",
     {"card.yaml:5: metric: only a study chooses its metric"}},
    {"a metric not in the registry",
     HEAD "  workload: ipsearch\n  cpu_list: 0-1\nmetric: speed\nablation:\n  - name: a\n"
          "    set: {k: 2}\n",
     {"card.yaml:5: metric: not a metric of the registry"}},
    {"blas for stream",
     HEAD "  workload: stream\n  cpu_list: 0\n  blas: openblas-serial\n",
     {"card.yaml:5: blas: not used by workload stream"}},
    {"blas unknown",
     HEAD "  workload: ipsearch\n  cpu_list: 0\n  blas: mkl\n",
     {"blas: \"mkl\" is not"}},
    {"mapping where scalar",
     HEAD "  workload: stream\n  cpu_list: {a: 1}\n",
     {"card.yaml:4: cpu_list: expected a single value, got a mapping"}},
    {"a sweep", HEAD "  workload: stream\n  cpu_list: 0-1\n  threads: [1, 2]\n", {NULL}},
    {"an explicit sweep",
     HEAD "  workload: stream\n  cpu_list: 0-1\n  sweep:\n    prefetch: [on, off]\n",
     {NULL}},
    {"two sweeps",
     HEAD "  workload: stream\n  cpu_list: [0, 1]\n  threads: [1, 2]\n",
     {"card.yaml:5: threads: a card sweeps one variable, and it already sweeps cpu_list"}},
    {"a sweep of one",
     HEAD "  workload: stream\n  cpu_list: 0\n  threads: [1]\n",
     {"threads: a sweep needs at least two values"}},
    {"a bad sweep value",
     HEAD "  workload: stream\n  cpu_list: 0-1\n  threads: [1, 3]\n",
     {"card.yaml:5 (sweep value 2): threads: 3 is more than the 2 CPUs"}},
    {"a sweep value twice",
     HEAD "  workload: stream\n  cpu_list: 0-1\n  threads:\n    - 1\n    - 2\n    - 1\n",
     {"card.yaml:8: threads: 1 appears twice in the sweep"}},
    /* The same run spelled twice: the value as the card reads it counts, not its text. */
    {"one cpu list spelled twice",
     HEAD "  workload: stream\n  cpu_list: [0-1, '0,1']\n",
     {"card.yaml:4: cpu_list: 0,1 appears twice in the sweep (as 0-1, value 1)"}},
    {"one number spelled twice",
     HEAD "  workload: stream\n  cpu_list: 0-1\n  threads: [2, 1, 02]\n",
     {"card.yaml:5: threads: 02 appears twice in the sweep (as 2, value 1)"}},
    {"a sweep and a value",
     HEAD
     "  workload: stream\n  cpu_list: 0-1\n  prefetch: on\n  sweep:\n    prefetch: [on, off]\n",
     {"sweep: prefetch also has a single value on line 5"}},
    {"empty value",
     HEAD "  workload: stream\n  cpu_list:\n",
     {"card.yaml:4: cpu_list: has no value"}},
    {"yaml syntax", HEAD "  workload: stream\n cpu_list: 0\n", {"card.yaml:4: not valid YAML"}},
    {"not a mapping", "- a\n- b\n", {"card.yaml:1: the card must be a mapping, got a list"}},
    {"version 2",
     "version: 2\nexperiment:\n  workload: stream\n  cpu_list: 0\n",
     {"card.yaml:1: version: \"2\" is not in range (valid: 1-1)"}},
    {"k above nb",
     HEAD "  workload: ipsearch\n  cpu_list: 0\n  nb: 5\n  k: 10\n",
     {"k: 10 is more than the 5 database vectors nb (valid: 1-5)"}},
    {"mpi sizes reversed",
     HEAD "  workload: mpi-pingpong\n  cpu_list: 0-1\n  min_bytes: 1024\n  max_bytes: 8\n",
     {"min_bytes: 1024 is more than max_bytes 8"}},
    {"uniband with a window",
     HEAD "  workload: mpi-pingpong\n  kernel: uniband\n  cpu_list: 0-1\n  window: 8\n",
     {NULL}},
    {"a window for pingpong",
     HEAD "  workload: mpi-pingpong\n  kernel: pingpong\n  cpu_list: 0-1\n  window: 8\n",
     {"card.yaml:6: window: only the uniband kernel has a window (valid: kernel: uniband, or no "
      "window)"}},
    {"a window out of range",
     HEAD "  workload: mpi-pingpong\n  kernel: uniband\n  cpu_list: 0-1\n  window: 2000\n",
     {"card.yaml:6: window: \"2000\" is not in range (valid: 1-1024)"}},
    {"pairs: all over four nodes",
     HEAD "  workload: mpi-pingpong\n  cpu_list: 0\n  pairs: all\n  nodes: n[1-4]\n"
          "  outlier_mad: 4\n  outlier_min_pct: 15\n",
     {NULL}},
    {"four ranks are not one pair",
     HEAD "  workload: mpi-pingpong\n  cpu_list: 0-1\n  ranks: 4\n",
     {"card.yaml:5: ranks: 4 ranks make more than one pair (valid: 2, or pairs: all)"}},
    {"outlier bounds without a matrix",
     HEAD "  workload: mpi-pingpong\n  cpu_list: 0-1\n  outlier_mad: 2\n",
     {"card.yaml:5: outlier_mad: only with pairs: all (valid: pairs: all, or no outlier_mad)"}},
    {"pairs: all, ranks not one per node",
     HEAD "  workload: mpi-pingpong\n  cpu_list: 0\n  pairs: all\n  nodes: n[1-4]\n  ranks: 3\n",
     {"card.yaml:7: ranks: 3 with pairs: all is one rank per node of n[1-4] (valid: 4)"}},
    {"pairs: some",
     HEAD "  workload: mpi-pingpong\n  cpu_list: 0-1\n  pairs: some\n",
     {"card.yaml:5: pairs:"}},
    {"expect transport on stream",
     HEAD "  workload: stream\n  cpu_list: 0\n  expect:\n    transport: shm\n",
     {"transport: not used by workload stream"}},
    /* The transport a card may expect: exactly the carriers the tool reports (sc_carrier.h). */
    {"transport: a list of carriers, any of them",
     HEAD "  workload: mpi-pingpong\n  cpu_list: 0-1\n  expect:\n    transport: [shm, ofi:cxi]\n",
     {NULL}},
    {"transport: vague ucx",
     HEAD "  workload: mpi-pingpong\n  cpu_list: 0-1\n  expect:\n    transport: ucx\n",
     {"card.yaml:6: transport: \"ucx\" is too vague: it names no UCX transport (valid: shm, tcp, "
      "ofi:PROVIDER (cxi, "}},
    {"transport: vague ofi in a list",
     HEAD "  workload: mpi-pingpong\n  cpu_list: 0-1\n  expect:\n    transport: [shm, ofi]\n",
     {"card.yaml:6: transport: \"ofi\" is too vague: it names no libfabric provider (valid: "}},
    {"transport: ofi:unknown is no evidence",
     HEAD "  workload: mpi-pingpong\n  cpu_list: 0-1\n  expect:\n    transport: ofi:unknown\n",
     {"card.yaml:6: transport: \"ofi:unknown\" is no carrier: unknown means the evidence named "
      "none (valid: "}},
    {"transport: a component's name",
     HEAD "  workload: mpi-pingpong\n  cpu_list: 0-1\n  expect:\n    transport: vader\n",
     {"card.yaml:6: transport: \"vader\" is an Open MPI component, not a carrier (did you mean "
      "shm?)"}},
    {"min rate not a number",
     HEAD "  workload: stream\n  cpu_list: 0\n  expect:\n    min_rate_MBps: fast\n",
     {"min_rate_MBps: \"fast\" is not a positive number"}},
    {"bad hostlist",
     HEAD "  workload: stream\n  cpu_list: 0\n  nodes: node[3-1]\n",
     {"card.yaml:5: nodes: \"3-1\" is not a range like 01-04"}},
    /* One mistake, one line: a refused value is not also "missing" or compared with others. */
    {"a refused value of a related key",
     HEAD "  workload: ipsearch\n  cpu_list: 0\n  nb: many\n  k: 10\n",
     {"card.yaml:5: nb: \"many\" is not a whole number (valid: 1-"}},
    {"a refused workload and cpu list",
     HEAD "  workload: hpl\n  cpu_list: 3-1\n",
     {"card.yaml:3: workload: \"hpl\" is not a workload",
      "card.yaml:4: cpu_list: \"3-1\" is a reversed range"}},
    {"a refused threads value",
     HEAD "  workload: stream\n  cpu_list: 0-1\n  threads: many\n",
     {"card.yaml:5: threads: \"many\" is not a whole number (valid: 1-65536)"}},
    {"a problem every sweep value shares",
     HEAD "  workload: stream\n  cpu_list: 0-1\n  threads: [1, 2]\n  nb: 5\n",
     {"card.yaml:6: nb: not used by workload stream (valid only for ipsearch; remove it)"}},
    {"two problems in one card",
     HEAD "  workload: stream\n  cpu_list: 0-1\n  threads: 3\n  kernel: daxpy\n",
     {"card.yaml:5: threads: 3 is more than the 2 CPUs of cpu_list 0-1 (valid: 1-2)",
      "card.yaml:6: kernel: \"daxpy\" is not a stream kernel"}},
    {"run name with a slash",
     HEAD "  workload: stream\n  cpu_list: 0\n  run_name: ../x\n",
     {"run_name: \"../x\" is not a valid name"}},
};

static void test_static_cases(void)
{
    int failures = card_cases_run(static_cases, sizeof(static_cases) / sizeof(static_cases[0]));

    SC_CHECK_MSG(failures == 0, "%d of the cases failed (see above)", failures);
}

/* Refused flags are reported once, by the flag, and the card rules add nothing about them. */
static void test_refused_flags(void)
{
    sc_card *card = sc_card_new();
    sc_diag d;
    sc_diag_init(&d);
    SC_CHECK(card != NULL);
    SC_CHECK_INT_EQ(sc_card_set_flag(card, "workload", "ipsearch", &d), 0);
    SC_CHECK_INT_EQ(sc_card_set_flag(card, "cpu-list", "3-1", &d), -EINVAL);
    SC_CHECK_INT_EQ(sc_card_set_flag(card, "dim", "0", &d), -EINVAL);
    SC_CHECK_INT_EQ(sc_card_set_flag(card, "nb", "100", &d), 0);
    SC_CHECK_INT_EQ(sc_card_set_flag(card, "k", "200", &d), 0);
    SC_CHECK_INT_EQ(sc_card_check(card, &d), -EINVAL);
    SC_CHECK_INT_EQ(d.count, 3);
    SC_CHECK_STR_CONTAINS(d.lines[0], "--cpu-list: cpu_list: \"3-1\" is a reversed range");
    SC_CHECK_STR_CONTAINS(d.lines[1], "--dim: dim: \"0\" is not in range (valid: 1-");
    SC_CHECK_STR_CONTAINS(d.lines[2], "--k: k: 200 is more than the 100 database vectors nb "
                                      "(valid: 1-100)");
    sc_diag_free(&d);
    sc_card_free(card);
}

static void test_defaults_and_values(void)
{
    const char *yaml = HEAD "  workload: stream\n  kernel: copy\n  cpu_list: 0-3,8\n";
    sc_card *card = sc_card_new();
    sc_diag d;
    sc_diag_init(&d);
    SC_CHECK_INT_EQ(sc_card_parse(card, yaml, strlen(yaml), "c.yaml", &d), 0);
    SC_CHECK_INT_EQ(sc_card_check(card, &d), 0);
    SC_CHECK_INT_EQ(card->threads, 5);
    SC_CHECK_INT_EQ(card->memory_node, -1);
    SC_CHECK_INT_EQ(card->array_size, 10000000);
    SC_CHECK_INT_EQ(card->iterations, 10);
    SC_CHECK_STR_EQ(card->run_name, "stream_copy_5thread");
    SC_CHECK_STR_EQ(card->governor, "unchanged");
    SC_CHECK_INT_EQ(card->prefetch, SC_PREFETCH_UNCHANGED);
    SC_CHECK_INT_EQ(sc_card_memory_bytes(card), 240000000);
    sc_diag_free(&d);
    sc_card_free(card);
}

/* array_size: auto is kept as 0 (resolved where the run is: sc_caches.h), emitted as auto,
   taken by the flag; a word that is not auto is refused naming auto. */
static void test_array_size_auto(void)
{
    const char *yaml = HEAD "  workload: stream\n  cpu_list: 0-1\n  array_size: auto\n";
    sc_card *card = sc_card_new();
    sc_diag d;
    char *text;

    sc_diag_init(&d);
    SC_CHECK_INT_EQ(sc_card_parse(card, yaml, strlen(yaml), "c.yaml", &d), 0);
    SC_CHECK_INT_EQ(sc_card_check(card, &d), 0);
    SC_CHECK_INT_EQ(card->array_size, 0);
    SC_CHECK_INT_EQ(sc_card_memory_bytes(card), 0);
    SC_CHECK((text = sc_card_to_yaml(card)));
    SC_CHECK_STR_CONTAINS(text, "  array_size: auto\n");
    free(text);
    SC_CHECK_INT_EQ(sc_card_set_flag(card, "array-size", "1000", &d), 0);
    SC_CHECK_INT_EQ(card->array_size, 1000);
    SC_CHECK_INT_EQ(sc_card_set_flag(card, "array-size", "auto", &d), 0);
    SC_CHECK_INT_EQ(card->array_size, 0);
    SC_CHECK_INT_EQ(sc_card_set_flag(card, "array-size", "big", &d), -EINVAL);
    SC_CHECK_STR_CONTAINS(d.lines[d.count - 1], "array_size: \"big\" is not a whole number "
                                                "(valid: 16-1099511627776, or auto)");
    sc_diag_free(&d);
    sc_card_free(card);
}

/* One spelling of a transport expectation: canonical carriers, each once, through the flag,
   the YAML list and the resolved card alike. */
static void test_transport_values(void)
{
    static const struct {
        const char *yaml_value, *flag, *want;
    } cases[] = {
        {"tcp+shm", NULL, "shm+tcp"},
        {"[ucx:sm, ucx:tcp, ucx:sm]", NULL, "ucx:sm,ucx:tcp"},
        {"shm", "tcp+shm,ofi:cxi", "shm+tcp,ofi:cxi"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char yaml[256];
        snprintf(yaml, sizeof(yaml),
                 HEAD "  workload: mpi-pingpong\n  cpu_list: 0-1\n  expect:\n    transport: %s\n",
                 cases[i].yaml_value);
        sc_card *card = sc_card_new(), *back = sc_card_new();
        sc_diag d;
        sc_diag_init(&d);
        SC_CHECK_INT_EQ(sc_card_parse(card, yaml, strlen(yaml), "c.yaml", &d), 0);
        if (cases[i].flag)
            SC_CHECK_INT_EQ(sc_card_set_flag(card, "expect-transport", cases[i].flag, &d), 0);
        SC_CHECK_INT_EQ(sc_card_check(card, &d), 0);
        SC_CHECK_STR_EQ(card->expect_transport, cases[i].want);
        char *text = sc_card_to_yaml(card);
        SC_CHECK(text != NULL);
        SC_CHECK_INT_EQ(sc_card_parse(back, text, strlen(text), "resolved.yaml", &d), 0);
        SC_CHECK_STR_EQ(back->expect_transport, cases[i].want);
        free(text);
        sc_diag_free(&d);
        sc_card_free(card);
        sc_card_free(back);
    }
}

/* uniband's window: the kernel's default 64 when the card has none; pingpong has none. */
static void test_mpi_window(void)
{
    static const struct {
        const char *kernel_line;
        long window;
    } cases[] = {{"  kernel: uniband\n", 64}, {"  kernel: pingpong\n", 0}, {"", 0}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char yaml[256];
        snprintf(yaml, sizeof(yaml), HEAD "  workload: mpi-pingpong\n%s  cpu_list: 0-1\n",
                 cases[i].kernel_line);
        sc_card *card = sc_card_new();
        sc_diag d;
        sc_diag_init(&d);
        SC_CHECK_INT_EQ(sc_card_parse(card, yaml, strlen(yaml), "c.yaml", &d), 0);
        SC_CHECK_INT_EQ(sc_card_check(card, &d), 0);
        SC_CHECK_MSG(card->window == cases[i].window, "%s: window %ld, expected %ld",
                     cases[i].kernel_line, card->window, cases[i].window);
        sc_diag_free(&d);
        sc_card_free(card);
    }
}

/* pairs: all takes one rank per node: the nodes' count, or 0 (the allocation's) without nodes. */
static void test_mpi_pairs_ranks(void)
{
    static const struct {
        const char *lines;
        long ranks;
        const char *name;
    } cases[] = {{"  pairs: all\n  nodes: n[01-05]\n", 5, "mpi_pingpong_allpairs"},
                 {"  pairs: all\n", 0, "mpi_pingpong_allpairs"},
                 {"  pairs: first\n", 2, "mpi_pingpong_2rank"}};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char yaml[256];
        snprintf(yaml, sizeof(yaml), HEAD "  workload: mpi-pingpong\n  cpu_list: 0\n%s",
                 cases[i].lines);
        sc_card *card = sc_card_new();
        sc_diag d;
        sc_diag_init(&d);
        SC_CHECK_INT_EQ(sc_card_parse(card, yaml, strlen(yaml), "c.yaml", &d), 0);
        SC_CHECK_INT_EQ(sc_card_check(card, &d), 0);
        SC_CHECK_INT_EQ(card->ranks, cases[i].ranks);
        SC_CHECK_STR_EQ(card->run_name, cases[i].name);
        SC_CHECK(card->outlier_mad == 3 && card->outlier_min_pct == 20);
        sc_diag_free(&d);
        sc_card_free(card);
    }
}

static void test_flags_override_and_roundtrip(void)
{
    const char *yaml = HEAD "  workload: stream\n  kernel: copy\n  cpu_list: 0-15\n  threads: 16\n"
                            "  env:\n    OMP_WAIT_POLICY: passive\n"
                            "  controlled_variables:\n    - \"gcc 12: -O3\"\n";
    sc_card *card = sc_card_new(), *back = sc_card_new();
    sc_diag d;
    sc_diag_init(&d);
    SC_CHECK_INT_EQ(sc_card_parse(card, yaml, strlen(yaml), "c.yaml", &d), 0);
    SC_CHECK_INT_EQ(sc_card_set_flag(card, "threads", "4", &d), 0);
    SC_CHECK_INT_EQ(sc_card_set_flag(card, "cpu-list", "0-3", &d), 0);
    SC_CHECK_INT_EQ(sc_card_set_flag(card, "prefetch", "off", &d), 0);
    SC_CHECK_INT_EQ(sc_card_set_flag(card, "no-such-flag", "1", &d), -ENOENT);
    SC_CHECK_INT_EQ(sc_card_set_flag(card, "threads", "x", &d), -EINVAL);
    SC_CHECK_STR_CONTAINS(d.lines[0], "--threads: threads: \"x\" is not a whole number");
    sc_diag_free(&d);
    SC_CHECK(card->overridden);
    SC_CHECK_INT_EQ(sc_card_check(card, &d), 0);
    char *text = sc_card_to_yaml(card);
    SC_CHECK(text != NULL);
    SC_CHECK_INT_EQ(sc_card_parse(back, text, strlen(text), "resolved.yaml", &d), 0);
    SC_CHECK_INT_EQ(sc_card_check(back, &d), 0);
    SC_CHECK_INT_EQ(back->threads, 4);
    SC_CHECK_STR_EQ(back->cpu_list, "0-3");
    SC_CHECK_INT_EQ(back->prefetch, SC_PREFETCH_OFF);
    SC_CHECK_STR_EQ(back->run_name, card->run_name);
    SC_CHECK_INT_EQ(back->n_env, 1);
    SC_CHECK_STR_EQ(back->env[0].value, "passive");
    SC_CHECK_INT_EQ(back->n_controlled, 1);
    SC_CHECK_STR_EQ(back->controlled[0], "gcc 12: -O3");
    free(text);
    sc_diag_free(&d);
    sc_card_free(card);
    sc_card_free(back);
}

/* ipsearch's pool_threads: absent, the card resolves it to threads but does not write it
 * back (the kernel then takes its default layout); given, it is written and read back as
 * given. */
static void test_pool_threads_given_or_default(void)
{
    const char *yaml = HEAD "  workload: ipsearch\n  cpu_list: 0-1\n  threads: 2\n";
    sc_diag d;
    sc_diag_init(&d);
    for (int given = 0; given < 2; given++) {
        sc_card *card = sc_card_new(), *back = sc_card_new();
        SC_CHECK_INT_EQ(sc_card_parse(card, yaml, strlen(yaml), "i.yaml", &d), 0);
        if (given)
            SC_CHECK_INT_EQ(sc_card_set_flag(card, "pool-threads", "2", &d), 0);
        SC_CHECK_INT_EQ(sc_card_check(card, &d), 0);
        SC_CHECK_INT_EQ(card->pool_threads, 2);
        SC_CHECK(card->present[SC_CF_POOL_THREADS] == (given == 1));
        char *text = sc_card_to_yaml(card);
        SC_CHECK(text != NULL);
        SC_CHECK_MSG((strstr(text, "pool_threads: 2") != NULL) == (given == 1), "%s", text);
        SC_CHECK_INT_EQ(sc_card_parse(back, text, strlen(text), "resolved.yaml", &d), 0);
        SC_CHECK_INT_EQ(sc_card_check(back, &d), 0);
        SC_CHECK_INT_EQ(back->pool_threads, 2);
        SC_CHECK(back->present[SC_CF_POOL_THREADS] == (given == 1));
        free(text);
        sc_card_free(card);
        sc_card_free(back);
    }
    SC_CHECK_INT_EQ(d.count, 0);
    sc_diag_free(&d);
}

/* The card of a job (as submitted: one_per_core not resolved) read on its node, which keeps
   CPUs kept of cpu_list 0-3: *out is the card after sc_card_keep_cpus() returned want_rc
   (NULL when that was not 0). */
static void keep_on_node(const char *body, const char *kept, int want_rc, sc_diag *d, sc_card **out)
{
    sc_card *card = sc_card_new(), *job = sc_card_new();
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    char *text = NULL;
    int rc = -1;

    *out = NULL;
    if (sc_card_parse(card, body, strlen(body), "c.yaml", d) == 0 && sc_card_check(card, d) == 0)
        text = sc_card_to_yaml(card);
    /* The count derived from cpu_list as written is not the job's to keep. */
    if (text && (strstr(text, "  threads:") != NULL) == (strstr(body, "  threads:") != NULL) &&
        sc_card_parse(job, text, strlen(text), "job.yaml", d) == 0 && sc_card_check(job, d) == 0 &&
        hwloc_bitmap_list_sscanf(set, kept) == 0)
        rc = sc_card_keep_cpus(job, set, d);
    SC_CHECK_MSG(rc == want_rc, "%s: returned %d, expected %d; job card:\n%s", kept, rc, want_rc,
                 text ? text : "(none)");
    if (rc == 0 && want_rc == 0) {
        *out = job;
        job = NULL;
    }
    free(text);
    hwloc_bitmap_free(set);
    sc_card_free(card);
    sc_card_free(job);
}

/* one_per_core resolved on the node: the layout follows the kept CPUs, in the name too. */
static const struct keep_case {
    const char *body; /* the experiment's keys after HEAD */
    const char *name;
    long threads, pool; /* pool: -1 for stream */
} keep_cases[] = {
    /* Derived: threads, pool and the name follow the two kept CPUs. */
    {"  workload: ipsearch\n  cpu_list: 0-3\n  one_per_core: on\n", "ipsearch_2thread_2pool", 2, 2},
    /* A study row's derived name (given by the job's card) keeps its suffix; a given pool
       stays. */
    {"  workload: ipsearch\n  run_name: ipsearch_4thread_8pool_seq-4\n  cpu_list: 0-3\n"
     "  one_per_core: on\n  pool_threads: 8\n",
     "ipsearch_2thread_8pool_seq-4", 2, 8},
    /* Threads given: kept, and so is the name. */
    {"  workload: stream\n  cpu_list: 0-3\n  one_per_core: on\n  threads: 1\n",
     "stream_all_1thread", 1, -1},
    /* A name of the user's own is never changed. */
    {"  workload: stream\n  run_name: mine\n  cpu_list: 0-3\n  one_per_core: on\n", "mine", 2, -1},
};

static void test_keep_cpus(void)
{
    char body[512], *text;
    sc_diag d;
    sc_card *c;

    sc_diag_init(&d);
    for (size_t i = 0; i < sizeof(keep_cases) / sizeof(keep_cases[0]); i++) {
        const struct keep_case *k = &keep_cases[i];
        snprintf(body, sizeof(body), HEAD "%s", k->body);
        keep_on_node(body, "0,2", 0, &d, &c);
        if (!c)
            continue;
        SC_CHECK_STR_EQ(c->run_name, k->name);
        SC_CHECK_STR_EQ(c->cpu_list, "0,2");
        SC_CHECK_STR_EQ(c->one_per_core_from, "0-3");
        SC_CHECK_INT_EQ(c->threads, k->threads);
        if (k->pool >= 0)
            SC_CHECK_INT_EQ(c->pool_threads, k->pool);
        /* The bundle's card.yaml: the resolved layout. */
        text = sc_card_to_yaml(c);
        SC_CHECK_MSG(text && strstr(text, "  cpu_list: 0,2\n") &&
                         strstr(text, k->threads == 2 ? "  threads: 2\n" : "  threads: 1\n"),
                     "%s", text ? text : "(none)");
        free(text);
        sc_card_free(c);
    }
    SC_CHECK_INT_EQ(d.count, 0);
    keep_on_node(HEAD "  workload: stream\n  cpu_list: 0-3\n  one_per_core: on\n  threads: 3\n",
                 "0,2", -EINVAL, &d, &c);
    SC_CHECK(c == NULL);
    SC_CHECK_INT_EQ(d.count, 1);
    if (d.count)
        SC_CHECK_STR_EQ(d.lines[0], "threads: 3 is more than the 2 physical cores of cpu_list 0-3 "
                                    "(one_per_core keeps 0,2; valid: 1-2)");
    sc_diag_free(&d);
}

static void test_sweep_select(void)
{
    const char *yaml =
        HEAD "  workload: stream\n  kernel: copy\n  cpu_list: 0-1\n  threads: [1, 2]\n";
    sc_diag d;
    sc_diag_init(&d);
    for (size_t i = 0; i < 2; i++) {
        sc_card *card = sc_card_new();
        SC_CHECK_INT_EQ(sc_card_parse(card, yaml, strlen(yaml), "s.yaml", &d), 0);
        SC_CHECK_INT_EQ(card->n_sweep, 2);
        SC_CHECK_STR_EQ(sc_card_field_name(card->sweep_field), "threads");
        SC_CHECK_INT_EQ(sc_card_sweep_select(card, i, &d), 0);
        SC_CHECK_INT_EQ(card->n_sweep, 0);
        SC_CHECK_INT_EQ(sc_card_check(card, &d), 0);
        SC_CHECK_INT_EQ(card->threads, (long)i + 1);
        SC_CHECK_STR_EQ(card->run_name,
                        i == 0 ? "stream_copy_1thread_threads-1" : "stream_copy_2thread_threads-2");
        /* The resolved card of one run has no sweep left. */
        char *text = sc_card_to_yaml(card);
        SC_CHECK(text && !strstr(text, "["));
        free(text);
        sc_card_free(card);
    }
    /* An env variable's sweep: each run sets it, keeps the card's other variables, and is
       named after it; the card as parsed is unchanged. */
    const char *env = HEAD "  workload: stream\n  kernel: copy\n  cpu_list: 0\n  env:\n"
                           "    A: keep\n    OMP_WAIT_POLICY: [ACTIVE, PASSIVE]\n";
    sc_card *base = sc_card_new();
    SC_CHECK_INT_EQ(sc_card_parse(base, env, strlen(env), "e.yaml", &d), 0);
    SC_CHECK_INT_EQ(base->sweep_field, SC_CF_ENV);
    SC_CHECK_STR_EQ(base->sweep_env, "OMP_WAIT_POLICY");
    for (size_t i = 0; i < 2; i++) {
        sc_card *run = NULL;
        SC_CHECK_INT_EQ(sc_card_sweep_instance(base, i, &run, &d), 0);
        SC_CHECK_INT_EQ(sc_card_check(run, &d), 0);
        SC_CHECK_STR_EQ(sc_card_env_get(run, "OMP_WAIT_POLICY"), i ? "PASSIVE" : "ACTIVE");
        SC_CHECK_STR_EQ(sc_card_env_get(run, "A"), "keep");
        SC_CHECK_INT_EQ(run->n_env, 2);
        SC_CHECK_STR_EQ(run->run_name, i ? "stream_copy_1thread_OMP_WAIT_POLICY-PASSIVE"
                                         : "stream_copy_1thread_OMP_WAIT_POLICY-ACTIVE");
        SC_CHECK_STR_EQ(sc_card_field_name(run->swept), "env");
        sc_card_free(run);
    }
    sc_card_free(base);
    /* A flag for the swept key replaces the sweep. */
    sc_card *card = sc_card_new();
    SC_CHECK_INT_EQ(sc_card_parse(card, yaml, strlen(yaml), "s.yaml", &d), 0);
    SC_CHECK_INT_EQ(sc_card_set_flag(card, "threads", "2", &d), 0);
    SC_CHECK_INT_EQ(card->n_sweep, 0);
    SC_CHECK_INT_EQ(sc_card_check(card, &d), 0);
    SC_CHECK_INT_EQ(d.count, 0);
    sc_card_free(card);
    sc_diag_free(&d);
}

static void test_load_file_errors(void)
{
    sc_card *card = sc_card_new();
    sc_diag d;
    sc_diag_init(&d);
    SC_CHECK_INT_EQ(sc_card_load_file(card, "/nonexistent/card.yaml", &d), -ENOENT);
    SC_CHECK_STR_CONTAINS(d.lines[0], "/nonexistent/card.yaml: cannot read the card");
    sc_diag_free(&d);
    sc_card_free(card);
}

/*
 * Every key of the schema, put in each section where it does not belong (the top level,
 * experiment:, expect:), is named with where it belongs, once: not "unknown key", not a
 * "did you mean" of its own name.
 */
static void test_key_in_wrong_section(void)
{
    static const char *const where[] = {"at the top level", "under experiment:", "under expect:"};
    int failures = 0;

    for (size_t i = 0; i < SC_CF_COUNT; i++) {
        const sc__card_key *key = &sc__card_keys[i];
        const char *name = sc__card_key_name(key);
        int home = !strncmp(key->path, "experiment.expect.", 18) ? 2
                   : !strncmp(key->path, "experiment.", 11)      ? 1
                                                                 : 0;
        SC_CHECK_MSG(sc__card_key_by_name(name) == key, "short name %s is not unique", name);
        for (int place = 0; place < 3; place++) {
            char yaml[512], expect[256];
            if (place == home)
                continue;
            /* The key last: at the top level, in experiment:, or in its expect:. */
            snprintf(yaml, sizeof(yaml),
                     "version: 1\nexperiment:\n  workload: stream\n  cpu_list: 0\n%s%s: 1\n",
                     place == 1   ? "  "
                     : place == 2 ? "  expect:\n    "
                                  : "",
                     name);
            snprintf(expect, sizeof(expect), "%s: belongs %s, not %s (move it there)", name,
                     where[home], where[place]);
            sc_card *card = sc_card_new();
            sc_diag d;
            sc_diag_init(&d);
            sc_card_parse(card, yaml, strlen(yaml), "card.yaml", &d);
            bool ok = d.count == 1 && strstr(d.lines[0], expect);
            if (!ok) {
                const char *const want[SC_MAX_LINES] = {expect};
                report_case(name, want, 0, &d);
            }
            failures += !ok;
            sc_diag_free(&d);
            sc_card_free(card);
        }
    }
    SC_CHECK_MSG(failures == 0, "%d of the misplaced keys were not named right (see above)",
                 failures);
}

int main(void)
{
    SC_TEST_RUN(test_static_cases);
    SC_TEST_RUN(test_refused_flags);
    SC_TEST_RUN(test_defaults_and_values);
    SC_TEST_RUN(test_array_size_auto);
    SC_TEST_RUN(test_mpi_window);
    SC_TEST_RUN(test_mpi_pairs_ranks);
    SC_TEST_RUN(test_transport_values);
    SC_TEST_RUN(test_flags_override_and_roundtrip);
    SC_TEST_RUN(test_pool_threads_given_or_default);
    SC_TEST_RUN(test_keep_cpus);
    SC_TEST_RUN(test_load_file_errors);
    SC_TEST_RUN(test_sweep_select);
    SC_TEST_RUN(test_key_in_wrong_section);
    return SC_TEST_RESULT();
}
