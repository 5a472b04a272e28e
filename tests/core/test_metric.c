/*
 * test_metric.c: the metric registry: names and their spellings, units and directions,
 * values read from results.json texts as the workloads write them, the defaults a card
 * gives (kernel all: every kernel on its own, no best-of figure), and the loss direction.
 */
#include "sc_metric.h"
#include "sc_test.h"

#include <errno.h>
#include <math.h>

static const char sc__stream_all[] =
    "{\"workload\":\"stream\",\"kernel\":\"all\",\"metrics\":{\"best_rate_MBps\":9000,"
    "\"rates\":{\"copy\":8000,\"scale\":7000,\"add\":9000,\"triad\":8500}}}";
static const char sc__stream_copy[] =
    "{\"workload\":\"stream\",\"kernel\":\"copy\",\"metrics\":{\"best_rate_MBps\":6000}}";
static const char sc__ipsearch[] =
    "{\"workload\":\"ipsearch\",\"kernel\":null,\"metrics\":{\"qps\":1200.5,"
    "\"total_thread_seconds\":3.25}}";
static const char sc__mpi[] =
    "{\"workload\":\"mpi-pingpong\",\"kernel\":\"pingpong\",\"metrics\":{\"sizes\":["
    "{\"bytes\":1,\"t_usec\":0.4,\"MBps\":2.5},{\"bytes\":8,\"t_usec\":0.5,\"MBps\":16},"
    "{\"bytes\":1048576,\"t_usec\":100,\"MBps\":10485.76}],\"peak_MBps\":10485.76}}";
static const char sc__uniband[] =
    "{\"workload\":\"mpi-pingpong\",\"kernel\":\"uniband\",\"metrics\":{\"sizes\":["
    "{\"bytes\":8,\"t_usec\":0.1,\"MBps\":80}]}}";

static void test_lookup(void)
{
    static const struct {
        const char *name, *canonical, *unit;
        sc_metric_better better;
        unsigned long long bytes;
    } cases[] = {
        {"copy", "copy", "MB/s", SC_METRIC_HIGHER, 0},
        {"triad", "triad", "MB/s", SC_METRIC_HIGHER, 0},
        {"qps", "qps", "queries/s", SC_METRIC_HIGHER, 0},
        {"thread_seconds", "thread_seconds", "s", SC_METRIC_LOWER, 0},
        {"latency_8B", "latency_8B", "us", SC_METRIC_LOWER, 8},
        {"latency_0B", "latency_0B", "us", SC_METRIC_LOWER, 0},
        {"bw_1MiB", "bw_1MiB", "MB/s", SC_METRIC_HIGHER, 1048576},
        {"bw_1048576B", "bw_1MiB", "MB/s", SC_METRIC_HIGHER, 1048576},
        {"bw_1024KiB", "bw_1MiB", "MB/s", SC_METRIC_HIGHER, 1048576},
        {"bw_1536B", "bw_1536B", "MB/s", SC_METRIC_HIGHER, 1536},
        {"bw_2GiB", "bw_2GiB", "MB/s", SC_METRIC_HIGHER, 2ULL << 30},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        sc_metric m;
        SC_CHECK_MSG(sc_metric_lookup(cases[i].name, &m) == 0, "%s not found", cases[i].name);
        SC_CHECK_STR_EQ(m.name, cases[i].canonical);
        SC_CHECK_STR_EQ(m.unit, cases[i].unit);
        SC_CHECK_MSG(m.better == cases[i].better, "%s: direction", cases[i].name);
        SC_CHECK_MSG(m.bytes == cases[i].bytes, "%s: bytes %llu", cases[i].name, m.bytes);
    }
    static const char *const bad[] = {"",           "best",    "Copy",   "latency_",
                                      "latency_8",  "bw_1MB",  "bw_-1B", "latency_x8B",
                                      "bw_2048GiB", "copy_8B", NULL};
    for (size_t i = 0; bad[i]; i++) {
        sc_metric m;
        SC_CHECK_MSG(sc_metric_lookup(bad[i], &m) == -EINVAL, "\"%s\" accepted", bad[i]);
    }
    SC_CHECK(sc_metric_lookup(NULL, NULL) == -EINVAL);
}

static double sc__value(const char *json, const char *name, int *rc)
{
    json_object *root = json_tokener_parse(json);
    sc_metric m;
    double v = NAN;

    *rc = sc_metric_lookup(name, &m);
    if (*rc == 0)
        *rc = sc_metric_value(&m, root, &v);
    json_object_put(root);
    return v;
}

static void test_values(void)
{
    static const struct {
        const char *json, *name;
        int rc;
        double value;
    } cases[] = {
        {sc__stream_all, "copy", 0, 8000},
        {sc__stream_all, "scale", 0, 7000},
        {sc__stream_all, "add", 0, 9000},
        {sc__stream_all, "triad", 0, 8500},
        {sc__stream_copy, "copy", 0, 6000},     /* one kernel: its best rate */
        {sc__stream_copy, "triad", -ENOENT, 0}, /* not this kernel */
        {sc__stream_copy, "qps", -ENOENT, 0},   /* another workload */
        {sc__ipsearch, "qps", 0, 1200.5},
        {sc__ipsearch, "thread_seconds", 0, 3.25},
        {sc__mpi, "latency_1B", 0, 0.4},
        {sc__mpi, "latency_8B", 0, 0.5},
        {sc__mpi, "bw_8B", 0, 16},
        {sc__mpi, "bw_1MiB", 0, 10485.76},
        {sc__mpi, "bw_2MiB", -ENOENT, 0}, /* a size not measured */
        {sc__mpi, "copy", -ENOENT, 0},
        {sc__uniband, "bw_8B", 0, 80},
        {sc__uniband, "latency_8B", -ENOENT, 0}, /* uniband's time is not a latency */
        {"{\"workload\":\"stream\",\"metrics\":{\"rates\":{\"copy\":null}}}", "copy", -ENOENT, 0},
        {"{\"workload\":\"stream\",\"metrics\":{\"rates\":{\"copy\":\"fast\"}}}", "copy", -ENOENT,
         0},
        {"[]", "copy", -ENOENT, 0},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int rc;
        double v = sc__value(cases[i].json, cases[i].name, &rc);
        SC_CHECK_MSG(rc == cases[i].rc, "case %zu (%s): rc %d, expected %d", i, cases[i].name, rc,
                     cases[i].rc);
        SC_CHECK_MSG(rc < 0 || v == cases[i].value, "case %zu (%s): %g, expected %g", i,
                     cases[i].name, v, cases[i].value);
    }
}

/* An exec card's own metrics: elapsed (s, lower) and rate (GB/s, higher, primary). */
#define SC__EXEC_HEAD                                                                              \
    "version: 1\nexperiment:\n  workload: exec\n  command: [true]\n  cpu_list: 0\n"
#define SC__EXEC_CARD                                                                              \
    SC__EXEC_HEAD "  metrics:\n"                                                                   \
                  "    - {name: elapsed, pattern: 's=([0-9.]+)', unit: s, better: lower}\n"        \
                  "    - {name: rate, pattern: 'r=([0-9.]+)', unit: GB/s, better: higher, "        \
                  "primary: true}\n"
#define SC__EXEC_CARD_NO_PRIMARY                                                                   \
    SC__EXEC_HEAD "  metrics:\n"                                                                   \
                  "    - {name: elapsed, pattern: 's=([0-9.]+)', unit: s, better: lower}\n"        \
                  "    - {name: rate, pattern: 'r=([0-9.]+)', unit: GB/s, better: higher}\n"

/* The names of the defaults of a card given as YAML, joined by spaces. */
static void sc__defaults(const char *yaml, const char *json, unsigned which, char *buf, size_t len)
{
    sc_card *card = sc_card_new();
    sc_diag diag;
    json_object *root = json ? json_tokener_parse(json) : NULL;
    sc_metric m[SC_METRIC_MAX];
    size_t used = 0;

    sc_diag_init(&diag);
    *buf = '\0';
    if (card && sc_card_parse(card, yaml, strlen(yaml), "t.yaml", &diag) == 0 &&
        sc_card_check(card, &diag) == 0) {
        size_t n = sc_metric_defaults(card, root, which, m, SC_METRIC_MAX);
        for (size_t i = 0; i < n && used < len; i++)
            used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? " " : "", m[i].name);
    }
    sc_diag_free(&diag);
    sc_card_free(card);
    json_object_put(root);
}

static void test_defaults(void)
{
    static const struct {
        const char *yaml, *json;
        unsigned which;
        const char *names;
    } cases[] = {
        {"version: 1\nexperiment:\n  workload: stream\n  kernel: triad\n  cpu_list: 0\n", NULL,
         SC_METRIC_ALL, "triad"},
        {"version: 1\nexperiment:\n  workload: stream\n  kernel: all\n  cpu_list: 0\n", NULL,
         SC_METRIC_ALL, "copy scale add triad"},
        {"version: 1\nexperiment:\n  workload: stream\n  cpu_list: 0\n", NULL, SC_METRIC_HEADLINE,
         "copy scale add triad"},
        {"version: 1\nexperiment:\n  workload: ipsearch\n  cpu_list: 0\n", NULL, SC_METRIC_ALL,
         "qps"},
        {"version: 1\nexperiment:\n  workload: mpi-pingpong\n  cpu_list: 0-1\n", sc__mpi,
         SC_METRIC_ALL, "latency_1B bw_1B bw_8B bw_1MiB"},
        {"version: 1\nexperiment:\n  workload: mpi-pingpong\n  cpu_list: 0-1\n", sc__mpi,
         SC_METRIC_HEADLINE, "latency_1B bw_1MiB"},
        /* Nothing measured: the card's smallest and largest sizes. */
        {"version: 1\nexperiment:\n  workload: mpi-pingpong\n  cpu_list: 0-1\n  min_bytes: 8\n"
         "  max_bytes: 4096\n",
         NULL, SC_METRIC_ALL, "latency_8B bw_8B bw_4KiB"},
        {"version: 1\nexperiment:\n  workload: mpi-pingpong\n  kernel: uniband\n  cpu_list: 0-1\n",
         sc__uniband, SC_METRIC_ALL, "bw_8B"},
        /* exec: every metric its card declares, in its order */
        {SC__EXEC_CARD, NULL, SC_METRIC_ALL, "elapsed rate"},
        {"version: 1\nexperiment:\n  workload: exec\n  command: [true]\n  cpu_list: 0\n", NULL,
         SC_METRIC_ALL, ""},
    };
    char names[512];

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        sc__defaults(cases[i].yaml, cases[i].json, cases[i].which, names, sizeof(names));
        SC_CHECK_MSG(strcmp(names, cases[i].names) == 0, "case %zu: \"%s\", expected \"%s\"", i,
                     names, cases[i].names);
    }
}

/* The primary metric of a card given as YAML (""  when it has none). */
static void sc__primary(const char *yaml, const char *json, char *buf, size_t len)
{
    sc_card *card = sc_card_new();
    sc_diag diag;
    json_object *root = json ? json_tokener_parse(json) : NULL;
    sc_metric m;

    sc_diag_init(&diag);
    *buf = '\0';
    if (card && sc_card_parse(card, yaml, strlen(yaml), "t.yaml", &diag) == 0 &&
        sc_card_check(card, &diag) == 0 && sc_metric_primary(card, root, &m) == 0)
        snprintf(buf, len, "%s", m.name);
    sc_diag_free(&diag);
    sc_card_free(card);
    json_object_put(root);
}

/* One primary metric per workload (doc/contracts/analysis.md, "Metrics"). */
static void test_primary(void)
{
    static const struct {
        const char *yaml, *json, *name;
    } cases[] = {
        {"version: 1\nexperiment:\n  workload: stream\n  kernel: copy\n  cpu_list: 0\n", NULL,
         "copy"},
        {"version: 1\nexperiment:\n  workload: stream\n  kernel: all\n  cpu_list: 0\n", NULL,
         "triad"},
        {"version: 1\nexperiment:\n  workload: ipsearch\n  cpu_list: 0\n", NULL, "qps"},
        /* no rate asked for: the latency at the smallest size measured */
        {"version: 1\nexperiment:\n  workload: mpi-pingpong\n  cpu_list: 0-1\n", sc__mpi,
         "latency_1B"},
        {"version: 1\nexperiment:\n  workload: mpi-pingpong\n  cpu_list: 0-1\n  min_bytes: 8\n",
         NULL, "latency_8B"},
        /* a rate asked for at a size: the bandwidth there */
        {"version: 1\nexperiment:\n  workload: mpi-pingpong\n  cpu_list: 0-1\n  expect:\n"
         "    min_rate_MBps: 100\n    at_bytes: 8\n",
         sc__mpi, "bw_8B"},
        {"version: 1\nexperiment:\n  workload: mpi-pingpong\n  cpu_list: 0-1\n"
         "  max_bytes: 1048576\n  expect:\n    min_rate_MBps: 100\n",
         sc__mpi, "bw_1MiB"},
        /* uniband has no latency: the bandwidth at the largest size */
        {"version: 1\nexperiment:\n  workload: mpi-pingpong\n  kernel: uniband\n  cpu_list: 0-1\n",
         sc__uniband, "bw_8B"},
        /* exec: the card's primary: true, else the first it declares */
        {SC__EXEC_CARD, NULL, "rate"},
        {SC__EXEC_CARD_NO_PRIMARY, NULL, "elapsed"},
    };
    char name[64];

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        sc__primary(cases[i].yaml, cases[i].json, name, sizeof(name));
        SC_CHECK_MSG(strcmp(name, cases[i].name) == 0, "case %zu: \"%s\", expected \"%s\"", i, name,
                     cases[i].name);
    }
}

static void test_available(void)
{
    static const struct {
        const char *json, *names;
    } cases[] = {
        {sc__stream_all, "copy scale add triad"},
        {sc__stream_copy, "copy"},
        {sc__ipsearch, "qps thread_seconds"},
        {sc__mpi, "latency_1B latency_8B latency_1MiB bw_1B bw_8B bw_1MiB"},
        {sc__uniband, "bw_8B"},
        {"{}", ""},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        json_object *root = json_tokener_parse(cases[i].json);
        sc_metric m[SC_METRIC_MAX];
        char names[512] = "";
        size_t used = 0, n = sc_metric_available(NULL, root, m, SC_METRIC_MAX);
        for (size_t j = 0; j < n; j++)
            used += (size_t)snprintf(names + used, sizeof(names) - used, "%s%s", j ? " " : "",
                                     m[j].name);
        json_object_put(root);
        SC_CHECK_MSG(strcmp(names, cases[i].names) == 0, "case %zu: \"%s\", expected \"%s\"", i,
                     names, cases[i].names);
    }
}

/* The declared metrics of a card given as YAML, into m: how many (0 when it is refused). */
static size_t sc__declared(const char *yaml, sc_metric *m)
{
    sc_card *card = sc_card_new();
    sc_diag diag;
    size_t n = 0;

    sc_diag_init(&diag);
    if (card && sc_card_parse(card, yaml, strlen(yaml), "t.yaml", &diag) == 0 &&
        sc_card_check(card, &diag) == 0)
        n = sc_metric_declared(card, m, SC_METRIC_MAX);
    sc_diag_free(&diag);
    sc_card_free(card);
    return n;
}

/* A card's own metrics: their unit and direction, their values read by name (each run's
   metrics), and two cards' declarations told apart. */
static void test_declared(void)
{
    sc_metric a[SC_METRIC_MAX], b[SC_METRIC_MAX];
    size_t na = sc__declared(SC__EXEC_CARD, a), nb;
    char why[256];
    double s[8];
    json_object *root = json_tokener_parse("{\"workload\": \"exec\", \"runs\": ["
                                           "{\"metrics\": {\"rate\": 2.5, \"elapsed\": 1}},"
                                           "{\"metrics\": {\"rate\": 3.5}}]}");

    SC_CHECK_INT_EQ(na, 2);
    SC_CHECK_STR_EQ(a[1].name, "rate");
    SC_CHECK_STR_EQ(a[1].unit, "GB/s");
    SC_CHECK(a[1].better == SC_METRIC_HIGHER && a[0].better == SC_METRIC_LOWER && a[1].declared);
    SC_CHECK_INT_EQ(sc_metric_samples(&a[1], root, s, 8), 2);
    SC_CHECK(s[0] == 2.5 && s[1] == 3.5);
    SC_CHECK_INT_EQ(sc_metric_samples(&a[0], root, s, 8), 1);
    SC_CHECK(sc_metric_lookup("rate", &b[0]) < 0); /* not a name of the registry */
    SC_CHECK(sc_metric_same_declared(a, na, a, na, why, sizeof(why)));
    nb = sc__declared(SC__EXEC_CARD_NO_PRIMARY, b); /* primary is not a declaration's */
    SC_CHECK(sc_metric_same_declared(a, na, b, nb, why, sizeof(why)));
    snprintf(b[1].unit, sizeof(b[1].unit), "MB/s");
    SC_CHECK(!sc_metric_same_declared(a, na, b, nb, why, sizeof(why)));
    SC_CHECK_STR_EQ(why, "metric rate: unit GB/s in A, MB/s in B");
    b[1] = a[1];
    b[0].better = SC_METRIC_HIGHER;
    SC_CHECK(!sc_metric_same_declared(a, na, b, nb, why, sizeof(why)));
    SC_CHECK_STR_EQ(why, "metric elapsed: better lower in A, higher in B");
    SC_CHECK(!sc_metric_same_declared(a, na, b + 1, 1, why, sizeof(why)));
    SC_CHECK_STR_EQ(why, "metric elapsed: declared by A's card, not by B's");
    SC_CHECK(!sc_metric_same_declared(b + 1, 1, a, na, why, sizeof(why)));
    SC_CHECK_STR_EQ(why, "metric elapsed: declared by B's card, not by A's");
    json_object_put(root);
}

static void test_loss_and_samples(void)
{
    sc_metric copy, lat;
    double s[4];

    SC_CHECK(sc_metric_lookup("copy", &copy) == 0 && sc_metric_lookup("latency_8B", &lat) == 0);
    SC_CHECK(fabs(sc_metric_loss(&copy, 100, 80) - 20) < 1e-9);  /* slower: worse */
    SC_CHECK(fabs(sc_metric_loss(&copy, 100, 120) + 20) < 1e-9); /* faster: better */
    SC_CHECK(fabs(sc_metric_loss(&lat, 2, 3) - 50) < 1e-9);      /* longer: worse */
    SC_CHECK(fabs(sc_metric_loss(&lat, 2, 1) + 50) < 1e-9);
    SC_CHECK(sc_metric_loss(&copy, 0, 5) == 0);
    SC_CHECK(fabs(sc_metric_change(200, 150) + 25) < 1e-9);
    json_object *root = json_tokener_parse(sc__mpi);
    SC_CHECK_INT_EQ(sc_metric_samples(&lat, root, s, 4), 1);
    SC_CHECK(s[0] == 0.5);
    SC_CHECK_INT_EQ(sc_metric_samples(&copy, root, s, 4), 0);
    json_object_put(root);
}

static void test_families(void)
{
    const char *unit, *better, *workload, *source, *name;
    size_t n = 0;

    for (; (name = sc_metric_family(n, &unit, &better, &workload, &source)); n++)
        SC_CHECK_MSG(*unit && *workload && *source &&
                         (!strcmp(better, "higher") || !strcmp(better, "lower") ||
                          (!strcmp(better, "card's") && !strcmp(workload, "exec"))),
                     "family %s incomplete", name);
    SC_CHECK_INT_EQ(n, 9);
    char size[24];
    sc_metric_size_name(0, size, sizeof(size));
    SC_CHECK_STR_EQ(size, "0B");
    sc_metric_size_name(3ULL << 20, size, sizeof(size));
    SC_CHECK_STR_EQ(size, "3MiB");
}

int main(void)
{
    SC_TEST_RUN(test_lookup);
    SC_TEST_RUN(test_values);
    SC_TEST_RUN(test_defaults);
    SC_TEST_RUN(test_primary);
    SC_TEST_RUN(test_available);
    SC_TEST_RUN(test_declared);
    SC_TEST_RUN(test_loss_and_samples);
    SC_TEST_RUN(test_families);
    return SC_TEST_RESULT();
}
