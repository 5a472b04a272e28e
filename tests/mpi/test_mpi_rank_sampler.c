/*
 * test_mpi_rank_sampler.c: scm_rank_sampler_prepare() makes room in the descriptor table
 * (/proc/self/status FDSize) for the files the sampler opens when accounting was asked for
 * (STREAMCARD_OBSERVER set) and starts the thread that primes the sampler, which ends
 * leaving no descriptor open; it does nothing otherwise.
 */
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rank_sampler.h"
#include "sc_test.h"
#include "sc_trace_protocol.h"

/* A number of this process's /proc/self/status (key with its colon), -1 when unreadable. */
static long status_of(const char *key)
{
    char line[256];
    long n = -1;
    FILE *f = fopen("/proc/self/status", "re");

    while (f && fgets(line, sizeof(line), f))
        if (!strncmp(line, key, strlen(key)))
            n = strtol(line + strlen(key), NULL, 10);
    if (f)
        fclose(f);
    return n;
}

static long fd_size(void)
{
    return status_of("FDSize:");
}

/* Waits up to 10 s for this process to have one thread again: whether it has. */
static bool one_thread_within_10s(void)
{
    for (int i = 0; i < 1000 && status_of("Threads:") != 1; i++)
        usleep(10000);
    return status_of("Threads:") == 1;
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
    SC_CHECK_INT_EQ(status_of("Threads:"), 1); /* no prime */
    SC_CHECK(open_fds() == open);
}

static void test_room_when_asked(void)
{
    int open = open_fds();

    setenv(SC_TRACE_OBSERVER_ENV, "1@nowhere", 1);
    scm_rank_sampler_prepare();
    SC_CHECK_MSG(fd_size() >= 512, "FDSize %ld: no room made for the sampler's files", fd_size());
    /* the prime's thread reads every task of /proc and ends, keeping none of their files */
    SC_CHECK_MSG(one_thread_within_10s(), "%ld threads 10 s after the prime began",
                 status_of("Threads:"));
    SC_CHECK_MSG(open_fds() == open, "%d descriptors open, were %d", open_fds(), open);
}

int main(void)
{
    SC_TEST_RUN(test_nothing_unasked);
    SC_TEST_RUN(test_room_when_asked);
    return SC_TEST_RESULT();
}
