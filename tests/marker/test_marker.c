/*
 * test_marker.c: the marker library (marker/, streamcard/marker.h) as a program links it.
 * The library reads STREAMCARD_TRACE_FD once per process, so every case runs in a child of
 * its own: without the variable and with bad values it does nothing; with a descriptor it
 * writes the protocol's lines as sc_trace_protocol.h spells them, waits for the observer at
 * the first begin (STREAMCARD_READY_FD), refuses bad arguments anywhere, and keeps the
 * lines of many threads whole.
 */
#include "sc_test.h"
#include "sc_trace_protocol.h"
#include "streamcard/marker.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The body runs in a child; its checks' verdict comes back as its exit status. */
static void forked(void (*body)(void))
{
    int status = -1;

    fflush(NULL);
    pid_t pid = fork();
    SC_CHECK(pid >= 0);
    if (pid == 0) {
        sc_test_current_failed = 0;
        body();
        fflush(NULL);
        _exit(sc_test_current_failed ? 1 : 0);
    }
    SC_CHECK(waitpid(pid, &status, 0) == pid);
    SC_CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                 "the case's process failed (status 0x%x)", status);
}

/* Everything the descriptor fd received (a file or a pipe's read end), malloc'd. */
static char *slurp(int fd)
{
    size_t len = 0, cap = 1 << 16;
    char *buf = malloc(cap + 1);
    ssize_t n;

    lseek(fd, 0, SEEK_SET);
    while (buf && (n = read(fd, buf + len, cap - len)) > 0) {
        len += (size_t)n;
        if (len == cap) {
            char *more = realloc(buf, 2 * cap + 1);
            if (!more) {
                free(buf);
                return NULL;
            }
            buf = more;
            cap *= 2;
        }
    }
    if (buf)
        buf[len] = '\0';
    return buf;
}

/* Arguments outside the documented ones: -EINVAL, with or without an observer. */
static void check_refusals(void)
{
    SC_CHECK_INT_EQ(sc_marker_begin("warmup"), -EINVAL);
    SC_CHECK_INT_EQ(sc_marker_end(NULL), -EINVAL);
    SC_CHECK_INT_EQ(sc_marker_figure("two words", 1, "s"), -EINVAL);
    SC_CHECK_INT_EQ(sc_marker_figure(".hidden", 1, "s"), -EINVAL);
    SC_CHECK_INT_EQ(sc_marker_figure("rate", NAN, "s"), -EINVAL);
    SC_CHECK_INT_EQ(sc_marker_figure("rate", INFINITY, "s"), -EINVAL);
    SC_CHECK_INT_EQ(sc_marker_figure("rate", 1, "M B"), -EINVAL);
    SC_CHECK_INT_EQ(sc_marker_figure("rate", 1, ""), -EINVAL);
    SC_CHECK_INT_EQ(sc_marker_figure("rate", 1, NULL), -EINVAL);
}

static void case_no_env(void)
{
    unsetenv(SC_TRACE_FD_ENV);
    SC_CHECK_INT_EQ(sc_marker_active(), 0);
    SC_CHECK_INT_EQ(sc_marker_begin(SC_MARKER_MAIN_LOOP), 0);
    SC_CHECK_INT_EQ(sc_marker_end(SC_MARKER_MAIN_LOOP), 0);
    SC_CHECK_INT_EQ(sc_marker_figure("rate", 2.5, "MB/s"), 0);
    check_refusals();
}

static void test_no_env_is_a_no_op(void)
{
    forked(case_no_env);
}

/* A value the case sets before the library's first call. */
static const char *bad_value;

static void case_bad_fd(void)
{
    setenv(SC_TRACE_FD_ENV, bad_value, 1);
    SC_CHECK_MSG(sc_marker_active() == 0, "STREAMCARD_TRACE_FD=\"%s\" made the calls write",
                 bad_value);
    SC_CHECK_INT_EQ(sc_marker_begin(SC_MARKER_MAIN_LOOP), 0);
    SC_CHECK_INT_EQ(sc_marker_figure("rate", 2.5, "MB/s"), 0);
    SC_CHECK_INT_EQ(sc_marker_end(SC_MARKER_MAIN_LOOP), 0);
}

static void test_bad_fd_is_a_no_op(void)
{
    char closed[16], read_only[16];
    int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    int gone = dup(fd);

    SC_CHECK(fd >= 0 && gone >= 0);
    close(gone);
    snprintf(closed, sizeof(closed), "%d", gone);
    snprintf(read_only, sizeof(read_only), "%d", fd);
    const char *values[] = {"", "abc", "3x", "-1", "0", "99999999999", closed, read_only};
    for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
        bad_value = values[i];
        forked(case_bad_fd);
        if (sc_test_current_failed)
            break;
    }
    close(fd);
}

static int out_fd = -1; /* where the case's lines go */

static void case_lines(void)
{
    char text[16];

    snprintf(text, sizeof(text), "%d", out_fd);
    setenv(SC_TRACE_FD_ENV, text, 1);
    unsetenv(SC_TRACE_READY_FD_ENV);
    SC_CHECK_INT_EQ(sc_marker_active(), 1);
    SC_CHECK_INT_EQ(sc_marker_begin(SC_MARKER_MAIN_LOOP), 0);
    SC_CHECK_INT_EQ(sc_marker_end(SC_MARKER_MAIN_LOOP), 0);
    SC_CHECK_INT_EQ(sc_marker_figure("triad_rate", 1.5, "MB/s"), 0);
    SC_CHECK_INT_EQ(sc_marker_figure("a.b:c-d_e", -0.1, "1"), 0);
    check_refusals(); /* and nothing written for them */
}

static void test_lines_as_written(void)
{
    char path[] = "/tmp/sc_test_marker_XXXXXX";

    out_fd = mkstemp(path);
    SC_CHECK(out_fd >= 0);
    unlink(path);
    forked(case_lines);
    char *got = slurp(out_fd);
    close(out_fd);
    SC_CHECK(got);
    const char *want = SC_TRACE_PHASE SC_TRACE_MAIN_LOOP_BEGIN
        "\n" SC_TRACE_PHASE SC_TRACE_MAIN_LOOP_END
        "\n" SC_TRACE_FIGURE("triad_rate", "1.5", "MB/s") "\n" SC_TRACE_FIGURE(
            "a.b:c-d_e", "-0.10000000000000001", "1") "\n";
    if (strcmp(got, want) != 0)
        SC_FAIL_("the lines written:\n%s\nnot:\n%s", got, want);
    free(got);
}

static int ready_fd = -1; /* the observer's end of the handshake, as the child sees it */

static void case_ready(void)
{
    char text[16];

    snprintf(text, sizeof(text), "%d", out_fd);
    setenv(SC_TRACE_FD_ENV, text, 1);
    snprintf(text, sizeof(text), "%d", ready_fd);
    setenv(SC_TRACE_READY_FD_ENV, text, 1);
    SC_CHECK_INT_EQ(sc_marker_begin(SC_MARKER_MAIN_LOOP), 0);
    SC_CHECK_MSG(!getenv(SC_TRACE_READY_FD_ENV), "STREAMCARD_READY_FD is still set after begin");
    SC_CHECK_MSG(fcntl(ready_fd, F_GETFD) < 0, "the handshake's descriptor is still open");
    SC_CHECK_INT_EQ(sc_marker_begin(SC_MARKER_MAIN_LOOP), 0); /* no second wait */
}

static void test_begin_waits_for_the_observer(void)
{
    char path[] = "/tmp/sc_test_marker_XXXXXX";
    int p[2];

    out_fd = mkstemp(path);
    SC_CHECK(out_fd >= 0);
    unlink(path);
    SC_CHECK(pipe(p) == 0);
    SC_CHECK(write(p[1], "r", 1) == 1); /* the observer's snapshots are taken */
    ready_fd = p[0];
    forked(case_ready);
    close(p[0]);
    close(p[1]);
    char *got = slurp(out_fd);
    close(out_fd);
    SC_CHECK(got);
    const char *begin = SC_TRACE_PHASE SC_TRACE_MAIN_LOOP_BEGIN "\n";
    SC_CHECK_MSG(strncmp(got, begin, strlen(begin)) == 0, "first line: %s", got);
    const char *wait = got + strlen(begin);
    SC_CHECK_MSG(
        strncmp(wait, SC_TRACE_TAG_READY_WAIT "ms=", strlen(SC_TRACE_TAG_READY_WAIT) + 3) == 0,
        "no READY_WAIT line after the begin: %s", got);
    const char *third = strchr(wait, '\n');
    SC_CHECK(third);
    SC_CHECK_STR_EQ(third + 1, begin); /* the second begin, without a wait */
    free(got);
}

#define THREADS 4
#define PER_THREAD 500

static long thread_ids[THREADS];
static int thread_failed[THREADS];

static void *figures_of_thread(void *arg)
{
    long t = *(const long *)arg;
    char name[32];

    for (long i = 0; i < PER_THREAD; i++) {
        snprintf(name, sizeof(name), "t%ld_%ld", t, i);
        if (sc_marker_figure(name, (double)(t * PER_THREAD + i), "1") != 0) {
            thread_failed[t] = 1;
            break;
        }
    }
    return NULL;
}

static void case_threads(void)
{
    char text[16];
    pthread_t th[THREADS];

    snprintf(text, sizeof(text), "%d", out_fd);
    setenv(SC_TRACE_FD_ENV, text, 1);
    for (long t = 0; t < THREADS; t++) {
        thread_ids[t] = t;
        SC_CHECK(pthread_create(&th[t], NULL, figures_of_thread, &thread_ids[t]) == 0);
    }
    for (long t = 0; t < THREADS; t++) {
        SC_CHECK(pthread_join(th[t], NULL) == 0);
        SC_CHECK_MSG(!thread_failed[t], "thread %ld: a call failed", t);
    }
}

static void test_threads_keep_lines_whole(void)
{
    char path[] = "/tmp/sc_test_marker_XXXXXX";
    static unsigned char seen[THREADS * PER_THREAD];

    int made = mkstemp(path);
    SC_CHECK(made >= 0);
    close(made);
    out_fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC); /* every thread's write at the end */
    SC_CHECK(out_fd >= 0);
    forked(case_threads);
    close(out_fd);
    int rd = open(path, O_RDONLY | O_CLOEXEC);
    unlink(path);
    SC_CHECK(rd >= 0);
    char *got = slurp(rd);
    close(rd);
    SC_CHECK(got);
    long lines = 0;
    char *save = NULL;
    for (char *line = strtok_r(got, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save), lines++) {
        long t, i;
        double v;
        int used = -1;
        if (sscanf(line, SC_TRACE_FIGURE("t%ld_%ld", "%lf", "1") "%n", &t, &i, &v, &used) != 3 ||
            line[used] || t < 0 || t >= THREADS || i < 0 || i >= PER_THREAD ||
            v != (double)(t * PER_THREAD + i) || seen[t * PER_THREAD + i]++) {
            SC_FAIL_("line %ld is not one whole figure line of its own: \"%s\"", lines + 1, line);
            break;
        }
    }
    free(got);
    SC_CHECK_INT_EQ(lines, THREADS * PER_THREAD);
}

int main(void)
{
    SC_TEST_RUN(test_no_env_is_a_no_op);
    SC_TEST_RUN(test_bad_fd_is_a_no_op);
    SC_TEST_RUN(test_lines_as_written);
    SC_TEST_RUN(test_begin_waits_for_the_observer);
    SC_TEST_RUN(test_threads_keep_lines_whole);
    return SC_TEST_RESULT();
}
