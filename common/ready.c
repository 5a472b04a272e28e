/*
 * ready.c: the readiness handshake, the workload's side (sc_ready.h). An observer that starts
 * the workload with STREAMCARD_READY_FD (a pipe it holds the other end of) wants to snapshot
 * the process the moment its main loop begins, and a short run could otherwise end before
 * the snapshot is taken. So at main_loop_begin the workload waits, before its first timed
 * repetition, for one byte or EOF, at most SC_TRACE_READY_WAIT_MAX_MS.
 */
#include "sc_ready.h"
#include "sc_trace_protocol.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <unistd.h>

int sc_ready_wait(const struct timespec *since, double *waited_ms)
{
    const char *text = getenv(SC_TRACE_READY_FD_ENV);
    char *end = NULL, byte;
    struct timespec now;

    if (!text || !*text)
        return 0;
    long fd = strtol(text, &end, 10);
    if (*end || fd < 3 || fd > 1 << 20)
        return 0;
    struct pollfd p = {(int)fd, POLLIN, 0};
    while (poll(&p, 1, SC_TRACE_READY_WAIT_MAX_MS) < 0 && errno == EINTR)
        ;
    if (p.revents & (POLLIN | POLLHUP))
        while (read((int)fd, &byte, 1) < 0 && errno == EINTR)
            ;
    close((int)fd);
    unsetenv(SC_TRACE_READY_FD_ENV); /* not inherited by anything the workload starts */
    /* The workload's own view of the capture: from writing the marker to being released,
       which includes the observer's wake-up that its own clock cannot see. */
    clock_gettime(CLOCK_MONOTONIC, &now);
    *waited_ms =
        (double)(now.tv_sec - since->tv_sec) * 1e3 + (double)(now.tv_nsec - since->tv_nsec) / 1e6;
    return 1;
}
