/*
 * test_mpi_rank_sampler.c: scm_rank_sampler_prepare() makes room in the descriptor table
 * (/proc/self/status FDSize) for the sampler's open stat files when accounting was asked
 * for (STREAMCARD_OBSERVER set), leaves no descriptor open, and does nothing otherwise.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rank_sampler.h"
#include "sc_test.h"
#include "sc_trace_protocol.h"

/* This process's descriptor table size (FDSize), -1 when unreadable. */
static long fd_size(void)
{
    char line[256];
    long n = -1;
    FILE *f = fopen("/proc/self/status", "re");

    while (f && fgets(line, sizeof(line), f))
        if (!strncmp(line, "FDSize:", 7))
            n = strtol(line + 7, NULL, 10);
    if (f)
        fclose(f);
    return n;
}

/* How many descriptors are open now. */
static int open_fds(void)
{
    int n = 0;
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;

    while (d && (e = readdir(d)))
        n += e->d_name[0] != '.';
    if (d)
        closedir(d);
    return n - 1; /* the directory's own */
}

static void test_nothing_unasked(void)
{
    long before = fd_size();
    int open = open_fds();

    unsetenv(SC_TRACE_OBSERVER_ENV);
    scm_rank_sampler_prepare();
    SC_CHECK(before > 0);
    SC_CHECK_MSG(fd_size() == before, "FDSize %ld, was %ld", fd_size(), before);
    SC_CHECK(open_fds() == open);
}

static void test_room_when_asked(void)
{
    int open = open_fds();

    setenv(SC_TRACE_OBSERVER_ENV, "1@nowhere", 1);
    scm_rank_sampler_prepare();
    SC_CHECK_MSG(fd_size() >= 512, "FDSize %ld: no room made for the sampler's files", fd_size());
    SC_CHECK_MSG(open_fds() == open, "%d descriptors open, were %d", open_fds(), open);
}

int main(void)
{
    SC_TEST_RUN(test_nothing_unasked);
    SC_TEST_RUN(test_room_when_asked);
    return SC_TEST_RESULT();
}
