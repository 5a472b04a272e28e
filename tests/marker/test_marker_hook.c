/*
 * test_marker_hook.c: the marker library and the MPI transport probe's hook
 * (SC_MARKER_PROBE_HOOK, sc_trace_protocol.h). This program defines the hook itself, exported
 * as the preloaded probe exports it, and links the static library (as the MPI example does),
 * so the library finds it by name: it is called once at each begin and end, before the line,
 * with 1 and 0, and the line is written only when it returns nonzero (rank 0); a figure
 * does not call it. The library reads its descriptor once per process, so each case runs in
 * a child of its own.
 */
#include "sc_test.h"
#include "sc_trace_protocol.h"
#include "streamcard/marker.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int hook_says = 1;   /* what the hook returns: 1 rank 0, 0 another rank */
static char calls[16] = ""; /* one digit per call, its argument */

__attribute__((visibility("default"))) int scm_probe_marker(int begin);
__attribute__((visibility("default"))) int scm_probe_marker(int begin)
{
    size_t n = strlen(calls);

    if (n + 1 < sizeof(calls))
        calls[n] = begin ? '1' : '0';
    return hook_says;
}

/* In a child: the markers and a figure written to a pipe, then a line with the hook's calls
   and the calls' results; what the pipe received (malloc'd), or NULL. */
static char *run_case(int says)
{
    int fds[2];
    char text[16], buf[1024];
    size_t len = 0;
    ssize_t n;

    if (pipe(fds) != 0)
        return NULL;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        hook_says = says;
        snprintf(text, sizeof(text), "%d", fds[1]);
        setenv(SC_TRACE_FD_ENV, text, 1);
        unsetenv(SC_TRACE_READY_FD_ENV);
        int rc = sc_marker_begin(SC_MARKER_MAIN_LOOP) | sc_marker_end(SC_MARKER_MAIN_LOOP) |
                 sc_marker_figure("rate", 2, "MB/s");
        dprintf(fds[1], "calls=%s rc=%d\n", calls, rc);
        _exit(0);
    }
    close(fds[1]);
    while ((n = read(fds[0], buf + len, sizeof(buf) - 1 - len)) > 0)
        len += (size_t)n;
    buf[len] = '\0';
    close(fds[0]);
    return waitpid(pid, NULL, 0) == pid ? strdup(buf) : NULL;
}

static void test_rank_zero_writes(void)
{
    char *got = run_case(1);

    SC_CHECK(got);
    const char *want = SC_TRACE_PHASE SC_TRACE_MAIN_LOOP_BEGIN
        "\n" SC_TRACE_PHASE SC_TRACE_MAIN_LOOP_END
        "\n" SC_TRACE_FIGURE("rate", "2", "MB/s") "\ncalls=10 rc=0\n";

    SC_CHECK_STR_EQ(got, want);
    free(got);
}

static void test_other_ranks_write_no_marker_line(void)
{
    char *got = run_case(0);

    SC_CHECK(got);
    const char *want = SC_TRACE_FIGURE("rate", "2", "MB/s") "\ncalls=10 rc=0\n";

    SC_CHECK_STR_EQ(got, want);
    free(got);
}

int main(void)
{
    SC_TEST_RUN(test_rank_zero_writes);
    SC_TEST_RUN(test_other_ranks_write_no_marker_line);
    return SC_TEST_RESULT();
}
