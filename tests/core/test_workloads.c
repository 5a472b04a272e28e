/*
 * test_workloads.c: the table of workload modules (sc_workload.h) holds together: every
 * workload of the enum has its module, found by enum and by name; the keys a module lists
 * are card keys; what a workload reads and which gates are its own follow from the lists.
 */
#include "sc_card.h"
#include "sc_metric.h"
#include "sc_test.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void test_lookup(void)
{
    size_t n = 0;

    SC_CHECK(sc_workload_ops_of(SC_WORKLOAD_NONE) == NULL);
    SC_CHECK(sc_workload_ops_of(SC_WORKLOAD_COUNT) == NULL);
    SC_CHECK(sc_workload_lookup("none") == NULL && sc_workload_lookup(NULL) == NULL);
    SC_CHECK_STR_EQ(sc_workload_name(SC_WORKLOAD_NONE), "none");
    for (const sc_workload_ops *ops = NULL; (ops = sc_workload_next(ops)); n++) {
        SC_CHECK(sc_workload_ops_of(ops->id) == ops);
        SC_CHECK(sc_workload_lookup(ops->name) == ops);
        SC_CHECK_STR_EQ(sc_workload_name(ops->id), ops->name);
        /* A kernel of ours, or (foreign) the card's command, found by program_path. */
        if (ops->foreign)
            SC_CHECK(!ops->program && ops->program_path);
        else
            SC_CHECK(ops->program && strncmp(ops->program, "streamcard-", 11) == 0 &&
                     ops->n_metrics > 0 && ops->metric_defaults && ops->metric_primary);
        for (size_t k = 0; k < ops->n_keys; k++)
            SC_CHECK(ops->keys[k] > SC_CF_WORKLOAD && ops->keys[k] < SC_CF_COUNT);
    }
    SC_CHECK_INT_EQ((long)n, (long)SC_WORKLOAD_COUNT - 1);
}

static void test_names(void)
{
    char names[128];

    sc_workload_names(", ", names, sizeof(names));
    SC_CHECK_STR_EQ(names, "stream, ipsearch, mpi-pingpong, exec");
    sc_workload_readers(SC_CF_KERNEL, " or ", names, sizeof(names));
    SC_CHECK_STR_EQ(names, "stream or mpi-pingpong");
    sc_workload_readers(SC_CF_THREADS, " or ", names, sizeof(names));
    SC_CHECK_STR_EQ(names, ""); /* every workload's: no module lists it */
}

/* The table answers for keys and MPI, never naming a workload to its callers. */
static void test_questions(void)
{
    const sc_workload_ops *stream = sc_workload_lookup("stream");
    const sc_workload_ops *ipsearch = sc_workload_lookup("ipsearch");
    const sc_workload_ops *mpi = sc_workload_lookup("mpi-pingpong");
    sc_card card = {0};

    SC_CHECK(stream && ipsearch && mpi);
    SC_CHECK(sc_workload_reads(stream->id, SC_CF_ARRAY_SIZE));
    SC_CHECK(!sc_workload_reads(ipsearch->id, SC_CF_ARRAY_SIZE));
    SC_CHECK(sc_workload_reads(ipsearch->id, SC_CF_BLAS));
    SC_CHECK(!sc_workload_reads(mpi->id, SC_CF_MEMORY_NODE));
    SC_CHECK(sc_workload_reads(mpi->id, SC_CF_CPU_LIST) && sc_workload_reads(0, SC_CF_CPU_LIST));
    SC_CHECK(!sc_workload_reads(SC_WORKLOAD_NONE, SC_CF_ITERATIONS));
    SC_CHECK(sc_workload_own_key(SC_CF_NB) && !sc_workload_own_key(SC_CF_ENV));
    card.workload = mpi->id;
    SC_CHECK(sc_workload_mpi(&card));
    card.workload = stream->id;
    SC_CHECK(!sc_workload_mpi(&card) && !sc_workload_mpi(NULL));
    SC_CHECK(stream->n_gates == 2 && stream->gate && ipsearch->n_gates == 0);
    SC_CHECK(!sc_workload_foreign(&card) && !sc_workload_foreign(NULL));
    card.workload = sc_workload_lookup("exec")->id;
    SC_CHECK(sc_workload_foreign(&card) && !sc_workload_mpi(&card));
    SC_CHECK(sc_workload_reads(card.workload, SC_CF_COMMAND));
    SC_CHECK(!sc_workload_reads(stream->id, SC_CF_COMMAND));
}

typedef struct path_case {
    const char *name;
    const char *path_env; /* PATH while the program is looked up */
    const char *program;  /* command[0] */
    int rc;
    const char *found; /* the path found (rc 0), or the message (rc < 0) */
} path_case;

/* exec: the card's program, as planned: an absolute path that is an executable file, or a
   name found in an absolute directory of PATH; nothing else. */
static void test_exec_program_path(void)
{
    static const path_case cases[] = {
        {"absolute", "/nonexistent", "/usr/bin/dd", 0, "/usr/bin/dd"},
        {"on PATH", "/nonexistent:/usr/bin", "dd", 0, "/usr/bin/dd"},
        {"not on PATH", "/nonexistent:/tmp", "no-such-program-sc", -ENOENT,
         "command: \"no-such-program-sc\" is not an executable file in any absolute directory "
         "of PATH (valid: an absolute path, or a name found on PATH)"},
        {"PATH's relative dirs skipped", ".:bin:", "dd", -ENOENT,
         "command: \"dd\" is not an executable file in any absolute directory of PATH (valid: an "
         "absolute path, or a name found on PATH)"},
        {"a directory is no program", "/", "usr", -ENOENT,
         "command: \"usr\" is not an executable file in any absolute directory of PATH (valid: "
         "an absolute path, or a name found on PATH)"},
        {"absolute, missing", "/usr/bin", "/nonexistent/bench", -ENOENT,
         "command: /nonexistent/bench: No such file or directory (valid: an executable regular "
         "file)"},
        {"absolute, a directory", "/usr/bin", "/usr/bin", -ENOENT,
         "command: /usr/bin: not an executable regular file (valid: an executable regular "
         "file)"},
    };
    const sc_workload_ops *exec = sc_workload_lookup("exec");
    const char *path = getenv("PATH");
    char *saved = path ? strdup(path) : NULL;

    SC_CHECK(exec && exec->program_path);
    for (size_t i = 0; exec && i < sizeof(cases) / sizeof(cases[0]); i++) {
        const path_case *c = &cases[i];
        char *argv[] = {(char *)c->program, NULL}, *found = NULL;
        sc_card card = {.workload = exec->id, .command = argv, .n_command = 1};
        sc_diag d;
        sc_diag_init(&d);
        setenv("PATH", c->path_env, 1);
        int rc = exec->program_path(&card, &found, &d);
        SC_CHECK_MSG(rc == c->rc, "%s: rc %d, expected %d", c->name, rc, c->rc);
        if (rc == 0)
            SC_CHECK_STR_EQ(found, c->found);
        else
            SC_CHECK_MSG(!found && d.count == 1 && !strcmp(d.lines[0], c->found), "%s: got \"%s\"",
                         c->name, d.count ? d.lines[0] : "(no line)");
        free(found);
        sc_diag_free(&d);
    }
    if (saved)
        setenv("PATH", saved, 1);
    free(saved);

    /* A file without execute bits, which access(X_OK) passes for root. */
    char plain[] = "/tmp/sc-test-exec-XXXXXX", *found = NULL, *argv[] = {plain, NULL};
    int fd = mkstemp(plain);
    sc_card card = {.workload = exec ? exec->id : 0, .command = argv, .n_command = 1};
    sc_diag d;
    sc_diag_init(&d);
    SC_CHECK(fd >= 0 && fchmod(fd, 0644) == 0 && close(fd) == 0);
    SC_CHECK(exec && exec->program_path(&card, &found, &d) == -ENOENT && !found && d.count == 1 &&
             strstr(d.lines[0], ": not an executable regular file (valid: an executable regular "
                                "file)"));
    sc_diag_free(&d);
    unlink(plain);
}

/* Each module's metrics are found by name in the registry, as its own. */
static void test_metrics(void)
{
    for (const sc_workload_ops *ops = NULL; (ops = sc_workload_next(ops));) {
        if (ops->foreign)
            continue; /* its card declares its figures, if any */
        sc_card card = {.workload = ops->id, .min_bytes = 8, .max_bytes = 1024};
        sc_metric m[SC_METRIC_MAX], primary;
        size_t n = sc_metric_defaults(&card, NULL, SC_METRIC_ALL, m, SC_METRIC_MAX);
        SC_CHECK_MSG(n > 0, "%s: no default metric", ops->name);
        for (size_t i = 0; i < n; i++)
            SC_CHECK_INT_EQ(m[i].workload, ops->id);
        SC_CHECK(sc_metric_primary(&card, NULL, &primary) == 0 && primary.workload == ops->id);
    }
}

enum { SC_TEST_LONG_LINE = 5000 }; /* above SC_EXEC_MAX_LINE, 4096 */

typedef struct figure_case {
    const char *name;
    const char *log;
    const char *validate; /* the card's validate_pattern, or NULL */
    const char *note;     /* the validation gate's note holds it; NULL: the gate holds */
    double rate;          /* the figure read (rate), when the gate holds */
} figure_case;

/* exec: a figure by pattern comes from exactly one line, is a finite number, and verify
   recomputes it; validate_pattern must match a line. */
static void test_exec_figures(void)
{
    static char long_line[SC_TEST_LONG_LINE];
    static const figure_case cases[] = {
        {"one line", "start\nrate: 5.5 GB/s\nend\n", NULL, NULL, 5.5},
        {"none", "start\nend\n", NULL,
         "metric rate: its pattern matches no line of the log (valid: exactly one)", 0},
        {"twice", "rate: 5 GB/s\nx\nrate: 6 GB/s\n", NULL,
         "metric rate: its pattern matches more than one line of the log (lines 1 and 3; valid: "
         "exactly one)",
         0},
        {"not a number", "rate: 1.2.3 GB/s\n", NULL,
         "metric rate: log line 1: \"1.2.3\" is not a finite number", 0},
        {"validated", "rate: 7 GB/s\nSolution OK\n", "^Solution OK$", NULL, 7},
        {"not validated", "rate: 7 GB/s\nSolution failed\n", "^Solution OK$",
         "no line of the log matches validate_pattern \"^Solution OK$\" (the program's own "
         "check)",
         0},
        {"a line too long is not matched", long_line, NULL, "matches no line of the log", 0},
    };
    const sc_workload_ops *exec = sc_workload_lookup("exec");
    sc_card_metric rate = {.name = "rate",
                           .pattern = "rate: ([0-9.]+) GB/s",
                           .unit = "GB/s",
                           .higher = true,
                           .primary = true,
                           .line = 7};

    memset(long_line, 'x', sizeof(long_line) - 1);
    memcpy(long_line + sizeof(long_line) - 16, "rate: 1 GB/s\n", 14);
    SC_CHECK(exec && exec->validate && exec->results_of_log && exec->verify_results);
    for (size_t i = 0; exec && i < sizeof(cases) / sizeof(cases[0]); i++) {
        const figure_case *c = &cases[i];
        sc_card card = {.workload = exec->id,
                        .metrics = &rate,
                        .n_metrics = 1,
                        .validate_pattern = (char *)c->validate};
        sc_gate g = {.state = SC_GATE_OK};
        exec->validate(&card, c->log, &g);
        SC_CHECK_MSG(c->note ? g.state == SC_GATE_FAIL && strstr(g.note, c->note)
                             : g.state == SC_GATE_OK,
                     "%s: %s", c->name, g.note);
        char *text = exec->results_of_log(&card, c->log);
        json_object *res = text ? json_tokener_parse(text) : NULL, *metrics = NULL, *v;
        SC_CHECK(res && json_object_object_get_ex(res, "metrics", &metrics));
        if (!c->note) {
            SC_CHECK(json_object_object_get_ex(metrics, "rate", &v) &&
                     json_object_get_double(v) == c->rate);
            sc_diag d;
            sc_diag_init(&d);
            exec->verify_results(metrics, NULL, &card, c->log, &d);
            SC_CHECK_MSG(d.count == 0, "%s: %s", c->name, d.count ? d.lines[0] : "");
            json_object_object_add(metrics, "rate", json_object_new_double(c->rate + 1));
            exec->verify_results(metrics, NULL, &card, c->log, &d);
            SC_CHECK(d.count == 1 && strstr(d.lines[0], "results.json: rate ") &&
                     strstr(d.lines[0], ", but stream.log shows "));
            sc_diag_free(&d);
        } else if (c->validate == NULL) {
            SC_CHECK_MSG(json_object_object_length(metrics) == 0, "%s: a figure read", c->name);
        }
        json_object_put(res);
        free(text);
    }
}

typedef struct marker_case {
    const char *name;
    const char *log;
    const char *note;      /* the validation gate's note holds it */
    bool ok;               /* the gate holds */
    size_t n_undeclared;   /* figures the card does not declare (sc_metric_undeclared()) */
} marker_case;

/* exec: a metric declared from: marker is the figure sc_marker_figure reported under its name,
   in its unit, and must be reported; a figure the card does not declare is kept, shown by
   compare (sc_metric_undeclared()) and never judged. */
static void test_exec_marker_figures(void)
{
    static const marker_case cases[] = {
        {"declared", "TRACE_FIGURE name=lat value=2.5 unit=us\n",
         "1 figure(s), each read from one line", true, 0},
        {"another unit", "TRACE_FIGURE name=lat value=2.5 unit=ms\n",
         "figure lat: sc_marker_figure reported it in ms (log line 1), but the card declares it "
         "in us",
         false, 0},
        {"not reported", "lat 2.5\n",
         "metric lat: from: marker, but the program reported no figure lat with "
         "sc_marker_figure (valid: exactly one TRACE_FIGURE line named lat)",
         false, 0},
        {"and one undeclared",
         "TRACE_FIGURE name=lat value=2.5 unit=us\nTRACE_FIGURE name=bw value=900 unit=MB/s\n",
         "2 figure(s), each read from one line of the log (card patterns and sc_marker_figure); "
         "some not declared in the card (no direction: shown, not judged)",
         true, 1},
    };
    const sc_workload_ops *exec = sc_workload_lookup("exec");
    sc_card_metric lat = {.name = "lat", .from_marker = true, .unit = "us", .line = 7};

    for (size_t i = 0; exec && i < sizeof(cases) / sizeof(cases[0]); i++) {
        const marker_case *c = &cases[i];
        sc_card card = {.workload = exec->id, .metrics = &lat, .n_metrics = 1};
        sc_gate g = {.state = SC_GATE_NULL};
        exec->validate(&card, c->log, &g);
        SC_CHECK_MSG(g.state == (c->ok ? SC_GATE_OK : SC_GATE_FAIL) && strstr(g.note, c->note),
                     "%s: %s", c->name, g.note);
        if (!c->ok)
            continue;
        char *text = exec->results_of_log(&card, c->log);
        json_object *res = text ? json_tokener_parse(text) : NULL;
        sc_metric declared[2], undeclared[4];
        double v = 0;
        SC_CHECK(sc_metric_declared(&card, declared, 2) == 1 && declared[0].better == SC_METRIC_LOWER);
        SC_CHECK(sc_metric_value(&declared[0], res, &v) == 0 && v == 2.5);
        size_t n = sc_metric_undeclared(&card, res, undeclared, 4);
        SC_CHECK_MSG(n == c->n_undeclared, "%s: %zu undeclared", c->name, n);
        if (n) {
            SC_CHECK_STR_EQ(undeclared[0].name, "bw");
            SC_CHECK(!undeclared[0].declared && sc_metric_value(&undeclared[0], res, &v) == 0 &&
                     v == 900);
        }
        json_object_put(res);
        free(text);
    }
}

typedef struct phases_case {
    const char *name;
    const char *begin, *end; /* the card's patterns, or NULL */
    const char *log;
    const char *note; /* the phases gate's note holds it */
    bool ok;
} phases_case;

/* exec: the phases are the program's lines its patterns match, or its whole life. */
static void test_exec_phases(void)
{
    static const phases_case cases[] = {
        {"whole process", NULL, NULL, "a\nb\n", "no phase markers: the whole process", true},
        {"begin then end", "^go$", "^stop", "set up\ngo\nwork\nstop now\n",
         "begin_pattern at log line 2, end_pattern at log line 4", true},
        {"an end before the begin does not count", "^go$", "^stop", "stop\ngo\nwork\n",
         "begin_pattern at log line 2, but no line after it matches end_pattern", false},
        {"one line is not both", "go", "go", "go\n",
         "begin_pattern at log line 1, but no line after it matches end_pattern", false},
        {"no begin", "^go$", "^stop", "going\nstop\n",
         "no line of the log matches begin_pattern \"^go$\": the main loop did not begin", false},
    };
    const sc_workload_ops *exec = sc_workload_lookup("exec");

    SC_CHECK(exec && exec->phases);
    for (size_t i = 0; exec && i < sizeof(cases) / sizeof(cases[0]); i++) {
        const phases_case *c = &cases[i];
        sc_card card = {
            .workload = exec->id, .begin_pattern = (char *)c->begin, .end_pattern = (char *)c->end};
        sc_gate g = {.state = SC_GATE_NULL};
        exec->phases(&card, c->log, &g);
        SC_CHECK_MSG(g.state == (c->ok ? SC_GATE_OK : SC_GATE_FAIL) && strstr(g.note, c->note),
                     "%s: %s", c->name, g.note);
    }
}

int main(void)
{
    SC_TEST_RUN(test_lookup);
    SC_TEST_RUN(test_names);
    SC_TEST_RUN(test_questions);
    SC_TEST_RUN(test_metrics);
    SC_TEST_RUN(test_exec_program_path);
    SC_TEST_RUN(test_exec_figures);
    SC_TEST_RUN(test_exec_marker_figures);
    SC_TEST_RUN(test_exec_phases);
    return SC_TEST_RESULT();
}
