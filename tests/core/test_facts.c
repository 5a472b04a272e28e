/*
 * test_facts.c: the controlled variables of a bundle (sc_facts.h), read from crafted
 * bundle directories: normalised values, platform drift, the prefetch and governor
 * readback, workload-specific variables, the diff, and the results the report plots.
 */
#include "sc_bundle.h"
#include "sc_facts.h"
#include "sc_test.h"
#include "tmpdir_util.h"

#include <errno.h>
#include <stdlib.h>

static const char card_stream[] = "version: 1\n"
                                  "experiment:\n"
                                  "  workload: stream\n"
                                  "  kernel: copy\n"
                                  "  cpu_list: 0,1\n"
                                  "  array_size: 100000\n"
                                  "  iterations: 3\n"
                                  "  env:\n"
                                  "    A: 1\n"
                                  "    B: two\n";
static const char card_ipsearch[] = "version: 1\n"
                                    "experiment:\n"
                                    "  workload: ipsearch\n"
                                    "  cpu_list: 0-1\n"
                                    "  nb: 1000\n"
                                    "  nq: 10\n"
                                    "  dim: 16\n"
                                    "  k: 5\n";
static const char card_mpi[] = "version: 1\n"
                               "experiment:\n"
                               "  workload: mpi-pingpong\n"
                               "  cpu_list: 0-1\n";
static const char results_mpi[] =
    "{\"host\": \"n01\", \"transport\": {\"transport\": \"shm\", \"pml\": \"ob1\"}, "
    "\"metrics\": {\"sizes\": [{\"bytes\": 8, \"t_usec\": 0.5, \"MBps\": 16.0}, "
    "{\"bytes\": 1048576, \"t_usec\": 80.0, \"MBps\": 13107.2}], \"peak_MBps\": 13107.2}}";
static const char build_json[] = "{\"sha256\": \"abc123\", \"compiler\": \"GNU\", "
                                 "\"compiler_version\": \"12.2.0\", \"flags\": \"-O2\"}";
static const char results_json[] =
    "{\"host\": \"n01\", \"run_name\": \"r\", \"verdict\": \"ok\", "
    "\"ended_at\": \"2026-11-30T06:48:24Z\", \"metrics\": {\"best_rate_MBps\": 2000.5, "
    "\"rates\": {\"copy\": 2000.5}, \"times\": {\"copy\": {\"avg_time_s\": 0.2, "
    "\"min_time_s\": 0.1, \"max_time_s\": 0.4}}}}";
static const char before[] = "thp.enabled=madvise\ncpu0.governor=performance\n"
                             "cpu1.governor=performance\n";
static const char maps[] = "7f00 bind:0 anon=10 dirty=10 N0=6 N1=4 kernelpagesize_kB=4\n"
                           "7f01 bind:0 file=/lib/x.so mapped=3 N0=3 kernelpagesize_kB=4\n";
static const char threads[] = "PID TID PSR STAT COMM\n10 10 0 S k\n10 11 1 R k\n";

typedef struct bundle_files {
    const char *card, *build, *after, *state, *log, *results, *environ_text;
} bundle_files;

/* Writes a bundle under a fresh temporary directory; returns its path (malloc'd). */
static char *write_bundle(const bundle_files *f)
{
    char tmpl[] = "/tmp/sc-facts-test-XXXXXX";
    sc_bundle b;

    if (!mkdtemp(tmpl) || sc_bundle_open(&b, tmpl) < 0)
        return NULL;
    sc_bundle_write_str(&b, "card.yaml", f->card ? f->card : card_stream);
    if (f->build)
        sc_bundle_write_str(&b, "build.json", f->build);
    sc_bundle_write_str(&b, "results.json", f->results ? f->results : results_json);
    sc_bundle_write_str(&b, "platform/before.txt", before);
    sc_bundle_write_str(&b, "platform/after.txt", f->after ? f->after : before);
    if (f->state)
        sc_bundle_write_str(&b, "prefetch/state/state.env", f->state);
    sc_bundle_write_str(&b, "stream.log",
                        f->log ? f->log : "TRACE_THREAD_BINDING thread=0 cpu=1\n");
    sc_bundle_write_str(&b, "numa_maps_at_ready.txt", maps);
    sc_bundle_write_str(&b, "threads_at_ready.txt", threads);
    if (f->environ_text)
        sc_bundle_write_str(&b, "environ_at_ready.txt", f->environ_text);
    sc_bundle_close(&b);
    return strdup(tmpl);
}

static void test_values(void)
{
    static const struct {
        const char *name;
        bundle_files files;
        const char *var, *want;
    } cases[] = {
        {"cpu list normalised", {.build = build_json}, "cpu_list", "0-1"},
        {"build joined", {.build = build_json}, "compiler", "GNU 12.2.0"},
        {"binary", {.build = build_json}, "binary_sha256", "abc123"},
        {"no build.json", {0}, "binary_sha256", "unavailable"},
        {"env of the card by name, inherited not recorded",
         {0},
         "env",
         "A=1 B=two (inherited: not recorded)"},
        {"threads derived", {0}, "threads", "2"},
        {"memory node unset", {0}, "memory_node", "none"},
        {"platform steady", {0}, "thp", "madvise"},
        {"platform drift",
         {.after = "thp.enabled=never\n"},
         "thp",
         "madvise -> never (changed during the run)"},
        {"platform missing", {0}, "numa_balancing", "unavailable"},
        {"prefetch not read back", {0}, "prefetch", "unchanged (not read back)"},
        {"prefetch unchanged by the plugin",
         {.state = "OBSERVED_STATE=unchanged\nSTATE_VALID=1\n"},
         "prefetch",
         "unchanged (not read back)"},
        {"prefetch read back", {.state = "OBSERVED_STATE=off\nSTATE_VALID=1\n"}, "prefetch", "off"},
        {"prefetch invalid",
         {.state = "OBSERVED_STATE=mixed\nSTATE_VALID=0\n"},
         "prefetch",
         "mixed (STATE_VALID=0)"},
        {"governor per cpu", {0}, "governor", "performance"},
        {"governor mixed",
         {.after = "cpu0.governor=performance\ncpu1.governor=powersave\n"},
         "governor",
         "mixed: cpu0=performance cpu1=performance -> powersave (changed during the run)"},
        {"governor set by the plugin",
         {.state = "REQUESTED_GOVERNOR=powersave\nOBSERVED_GOVERNOR=powersave\n"},
         "governor",
         "powersave"},
        {"stores used",
         {.log = "Stores: plain (sse2)\n"},
         "nt_stores",
         "auto (used: plain (sse2))"},
        {"stream has no nb", {0}, "nb", "n/a"},
        {"ipsearch has no array_size", {.card = card_ipsearch}, "array_size", "n/a"},
        {"ipsearch nb", {.card = card_ipsearch}, "nb", "1000"},
        {"host from results", {0}, "host", "n01"},
        {"no expectation", {0}, "expect", "none"},
        {"env inherited and from the card, by name, placement left out",
         {.card = "version: 1\nexperiment:\n  workload: stream\n  cpu_list: 0-1\n"
                  "  env:\n    OMP_WAIT_POLICY: passive\n    ZZ_MINE: 1\n",
          .environ_text = "GOMP_SPINCOUNT=10\nOMP_NUM_THREADS=2\nOMP_PLACES={0},{1}\n"
                          "OMP_PROC_BIND=close\nOMP_WAIT_POLICY=passive\n"},
         "env",
         "GOMP_SPINCOUNT=10 OMP_WAIT_POLICY=passive ZZ_MINE=1"},
        {"env: nothing", {.card = card_mpi, .environ_text = "OMP_NUM_THREADS=2\n"}, "env", "none"},
        {"blas only for ipsearch", {0}, "blas", "n/a"},
        {"blas core from the run",
         {.card = card_ipsearch,
          .build = "{\"blas_corename\": \"Haswell\"}",
          .results = "{\"evidence\": {\"blas\": {\"corename\": \"Sandybridge\"}}}"},
         "blas_core",
         "Sandybridge"},
        {"blas core from the build",
         {.card = card_ipsearch, .build = "{\"blas_corename\": \"Zen\"}"},
         "blas_core",
         "Zen"},
        {"expectations",
         {.card = "version: 1\nexperiment:\n  workload: mpi-pingpong\n  cpu_list: 0-1\n"
                  "  expect:\n    transport: shm\n    min_rate_MBps: 100\n"},
         "expect",
         "transport=shm min_rate_MBps=100"},
        {"mpi kernel default", {.card = card_mpi}, "kernel", "pingpong"},
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *dir = write_bundle(&cases[i].files);
        sc_bundle_facts f;
        SC_CHECK_MSG(dir != NULL, "%s: cannot write the bundle", cases[i].name);
        int rc = sc_facts_load(dir, &f);
        sc_test_rmtree(dir);
        SC_CHECK_MSG(rc == 0, "%s: sc_facts_load: %d", cases[i].name, rc);
        const char *got = sc_facts_get(&f, cases[i].var);
        bool same = got && strcmp(got, cases[i].want) == 0;
        SC_CHECK_MSG(same, "%s: %s = \"%s\", want \"%s\"", cases[i].name, cases[i].var,
                     got ? got : "(null)", cases[i].want);
        sc_facts_free(&f);
    }
}

static void test_results(void)
{
    bundle_files files = {0};
    char *dir = write_bundle(&files);
    sc_bundle_facts f;

    SC_CHECK(dir != NULL);
    SC_CHECK_INT_EQ(sc_facts_load(dir, &f), 0);
    sc_test_rmtree(dir);
    /* The card's metric (kernel copy), read through the registry. */
    double v = 0;
    SC_CHECK_INT_EQ(f.n_metrics, 1);
    SC_CHECK_STR_EQ(f.metrics[0].name, "copy");
    SC_CHECK_INT_EQ(sc_facts_metric(&f, &f.metrics[0], &v), 0);
    SC_CHECK(v > 2000 && v < 2001);
    SC_CHECK_INT_EQ(f.n_rates, 1);
    SC_CHECK_STR_EQ(f.rates[0].name, "copy");
    SC_CHECK(f.rates[0].max_s > 0.39 && f.rates[0].max_s < 0.41);
    SC_CHECK_STR_EQ(f.host, "n01");
    SC_CHECK_STR_EQ(f.cpu_list, "0-1");
    /* numa_maps: only anonymous memory counts, per node. */
    SC_CHECK_INT_EQ(f.n_nodes, 2);
    SC_CHECK_INT_EQ(f.node_bytes[0], 6 * 4096);
    SC_CHECK_INT_EQ(f.node_bytes[1], 4 * 4096);
    SC_CHECK_INT_EQ(f.n_threads, 2);
    SC_CHECK_INT_EQ(f.threads[1].tid, 11);
    SC_CHECK_INT_EQ(f.threads[1].cpu, 1);
    SC_CHECK_INT_EQ(f.n_bindings, 1);
    SC_CHECK_INT_EQ(f.bindings[0].cpu, 1);
    SC_CHECK_INT_EQ(sc_facts_epoch(f.ended_at), 1796021304);
    sc_facts_free(&f);
}

static void test_mpi(void)
{
    bundle_files files = {.card = card_mpi, .results = results_mpi};
    char *dir = write_bundle(&files);
    sc_bundle_facts f;

    SC_CHECK(dir != NULL);
    SC_CHECK_INT_EQ(sc_facts_load(dir, &f), 0);
    sc_test_rmtree(dir);
    SC_CHECK_INT_EQ(f.workload, SC_WORKLOAD_MPI_PINGPONG);
    SC_CHECK_INT_EQ(f.n_sizes, 2);
    SC_CHECK_INT_EQ(f.sizes[1].bytes, 1048576);
    /* Latency at the smallest size and bandwidth at every size; no peak over the sizes. */
    SC_CHECK_INT_EQ(f.n_metrics, 3);
    SC_CHECK_STR_EQ(f.metrics[0].name, "latency_8B");
    SC_CHECK_STR_EQ(f.metrics[2].name, "bw_1MiB");
    SC_CHECK_INT_EQ(f.n_headline, 2);
    double v = 0;
    SC_CHECK_INT_EQ(sc_facts_metric(&f, &f.metrics[2], &v), 0);
    SC_CHECK(v > 13107 && v < 13108);
    SC_CHECK_INT_EQ(f.n_rates, 0);
    sc_facts_free(&f);
}

/* The transport is an outcome of an MPI run, kept beside the controlled variables. */
static void test_transport(void)
{
    static const struct {
        const char *card, *results, *want;
    } cases[] = {
        {card_mpi, results_mpi, "shm"},
        {card_mpi, "{\"metrics\": {\"transport\": \"ofi:cxi\"}}", "ofi:cxi"},
        {card_mpi, "{}", "not recorded"},
        {card_stream, results_mpi, ""},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        bundle_files files = {.card = cases[i].card, .results = cases[i].results};
        char *dir = write_bundle(&files);
        sc_bundle_facts f;
        SC_CHECK(dir != NULL);
        int rc = sc_facts_load(dir, &f);
        sc_test_rmtree(dir);
        SC_CHECK_INT_EQ(rc, 0);
        SC_CHECK_MSG(!strcmp(f.transport, cases[i].want), "case %zu: \"%s\", want \"%s\"", i,
                     f.transport, cases[i].want);
        SC_CHECK_MSG(!sc_facts_get(&f, "transport"), "transport is a controlled variable");
        sc_facts_free(&f);
    }
}

static void test_env_diff(void)
{
    bundle_files a = {.environ_text = "OMP_WAIT_POLICY=active\nFI_PROVIDER=tcp\n"},
                 b = {.environ_text = "OMP_WAIT_POLICY=passive\nUCX_TLS=sm\nFI_PROVIDER=tcp\n"};
    char *da = write_bundle(&a), *db = write_bundle(&b), names[128];
    sc_bundle_facts fa, fb;

    SC_CHECK(da && db);
    SC_CHECK_INT_EQ(sc_facts_load(da, &fa), 0);
    SC_CHECK_INT_EQ(sc_facts_load(db, &fb), 0);
    sc_test_rmtree(da);
    sc_test_rmtree(db);
    SC_CHECK_INT_EQ(sc_facts_env_diff(&fa, &fb, names, sizeof(names)), 2);
    SC_CHECK_STR_EQ(names, "OMP_WAIT_POLICY, UCX_TLS");
    SC_CHECK_STR_EQ(sc_facts_env_get(&fb, "UCX_TLS"), "sm");
    SC_CHECK(sc_facts_env_get(&fa, "UCX_TLS") == NULL);
    SC_CHECK(sc_facts_env_get(&fa, "OMP_WAIT") == NULL);
    SC_CHECK_INT_EQ(sc_facts_env_diff(&fa, &fa, names, sizeof(names)), 0);
    SC_CHECK(sc_facts_unshown("auto (used: not in stream.log)"));
    SC_CHECK(sc_facts_unshown("none (inherited: not recorded)"));
    SC_CHECK(!sc_facts_unshown("none"));
    sc_facts_free(&fa);
    sc_facts_free(&fb);
}

static void test_diff(void)
{
    bundle_files a = {.build = build_json},
                 b = {.build = build_json, .state = "OBSERVED_STATE=off\nSTATE_VALID=1\n"};
    char *da = write_bundle(&a), *db = write_bundle(&b);
    sc_bundle_facts fa, fb;
    size_t idx[SC_FACTS_MAX_VARS];

    SC_CHECK(da && db);
    SC_CHECK_INT_EQ(sc_facts_load(da, &fa), 0);
    SC_CHECK_INT_EQ(sc_facts_load(db, &fb), 0);
    sc_test_rmtree(da);
    sc_test_rmtree(db);
    SC_CHECK_INT_EQ(sc_facts_diff(&fa, &fa, idx), 0);
    SC_CHECK_INT_EQ(sc_facts_diff(&fa, &fb, idx), 1);
    SC_CHECK_STR_EQ(fa.vars[idx[0]].name, "prefetch");
    SC_CHECK(sc_facts_follows(&fa, &fb, idx[0]) == NULL);
    sc_facts_free(&fa);
    sc_facts_free(&fb);
}

/* threads that fill cpu_list in both bundles follow it: one difference, not two. */
static void test_follows(void)
{
    /* card_stream with other CPUs (and threads). */
    static const char card_cpu0[] = "version: 1\nexperiment:\n  workload: stream\n"
                                    "  kernel: copy\n  cpu_list: 0\n  array_size: 100000\n"
                                    "  iterations: 3\n  env:\n    A: 1\n    B: two\n";
    static const char card_cpu0_two[] = "version: 1\nexperiment:\n  workload: stream\n"
                                        "  kernel: copy\n  cpu_list: 0-2\n  threads: 2\n"
                                        "  array_size: 100000\n  iterations: 3\n  env:\n"
                                        "    A: 1\n    B: two\n";
    bundle_files a = {0}, b = {.card = card_cpu0}, c = {.card = card_cpu0_two};
    char *da = write_bundle(&a), *db = write_bundle(&b), *dc = write_bundle(&c);
    sc_bundle_facts fa, fb, fc;
    size_t idx[SC_FACTS_MAX_VARS], n;

    SC_CHECK(da && db && dc);
    SC_CHECK_INT_EQ(sc_facts_load(da, &fa), 0);
    SC_CHECK_INT_EQ(sc_facts_load(db, &fb), 0);
    SC_CHECK_INT_EQ(sc_facts_load(dc, &fc), 0);
    sc_test_rmtree(da);
    sc_test_rmtree(db);
    sc_test_rmtree(dc);
    n = sc_facts_diff(&fa, &fb, idx);
    SC_CHECK_INT_EQ(n, 2);
    SC_CHECK_STR_EQ(fa.vars[idx[0]].name, "cpu_list");
    SC_CHECK(sc_facts_follows(&fa, &fb, idx[0]) == NULL);
    SC_CHECK_STR_EQ(fa.vars[idx[1]].name, "threads");
    SC_CHECK_STR_EQ(sc_facts_follows(&fa, &fb, idx[1]), "cpu_list");
    /* 2 threads on 3 CPUs do not fill the list: against 1 thread, a difference of its own
       (cpu2 has no governor in platform/, so the governor differs too). */
    n = sc_facts_diff(&fb, &fc, idx);
    SC_CHECK_INT_EQ(n, 3);
    SC_CHECK_STR_EQ(fb.vars[idx[1]].name, "threads");
    SC_CHECK(sc_facts_follows(&fb, &fc, idx[1]) == NULL);
    SC_CHECK_STR_EQ(fb.vars[idx[2]].name, "governor");
    sc_facts_free(&fa);
    sc_facts_free(&fb);
    sc_facts_free(&fc);
}

static void test_table(void)
{
    const char *group, *source, *name;
    size_t n = 0;

    for (; (name = sc_facts_var(n, &group, &source)); n++)
        SC_CHECK_MSG(*source && (!strcmp(group, "build") || !strcmp(group, "run") ||
                                 !strcmp(group, "platform")),
                     "%s: group %s, source \"%s\"", name, group, source);
    SC_CHECK(n > 20 && n <= SC_FACTS_MAX_VARS);
    SC_CHECK(sc_facts_var_known("prefetch", 8));
    SC_CHECK(sc_facts_var_known("threads,host", 7));
    SC_CHECK(!sc_facts_var_known("thread", 6));
    SC_CHECK(!sc_facts_var_known("", 0));
    /* The card's table places its keys (each row's role): what runs is a variable (an exec
       card's program and arguments, its declared figures), a gate's bound or how often a
       series measures is not, expect's keys are part of expect but the interference bound. */
    SC_CHECK(sc_facts_var_known("command", 7));
    SC_CHECK(sc_facts_var_known("metrics", 7));
    SC_CHECK(sc_facts_var_known("begin_pattern", 13));
    SC_CHECK(!sc_facts_var_known("runs", 4));
    SC_CHECK(!sc_facts_var_known("cache_resident", 14));
    SC_CHECK(!sc_facts_var_known("validate_pattern", 16));
    SC_CHECK(!sc_facts_var_known("question", 8));
    /* What a study's step declares, as the variables compare sees change. */
    static const struct {
        const char *key, *var;
        bool changes;
    } keys[] = {
        {"threads", "threads", true},
        {"threads", "pool_threads", false},
        {"env.OMP_WAIT_POLICY", "env", true},
        {"env.OMP_WAIT_POLICY", "threads", false},
        {"expect.min_rate_MBps", "expect", true},
        {"expect.max_latency_us", "expect", true},
        {"expect.max_interference_pct", "expect", false},
        {"command", "command", true},
        {"one_per_core", "cpu_list", true},
        {"blas", "blas", true},
        {"blas", "blas_core", true},
        {"governor", "governor", true},
        {"prefetch", "prefetch", true},
        {"cache_resident", "cache_resident", false},
        {"env", "env", true},
        {"one_per_core", "threads", false},
    };
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
        SC_CHECK_MSG(sc_facts_key_changes(keys[i].key, keys[i].var) == keys[i].changes,
                     "key %s, variable %s", keys[i].key, keys[i].var);
    SC_CHECK_INT_EQ(sc_facts_epoch("2026-11-30T06:48:24"), -1);
    SC_CHECK_INT_EQ(sc_facts_epoch("1970-01-01T00:01:00Z"), 60);
    SC_CHECK_INT_EQ(sc_facts_load("/nonexistent/bundle", &(sc_bundle_facts){0}), -ENOENT);
}

int main(void)
{
    SC_TEST_RUN(test_values);
    SC_TEST_RUN(test_results);
    SC_TEST_RUN(test_mpi);
    SC_TEST_RUN(test_transport);
    SC_TEST_RUN(test_env_diff);
    SC_TEST_RUN(test_diff);
    SC_TEST_RUN(test_follows);
    SC_TEST_RUN(test_table);
    return SC_TEST_RESULT();
}
