/*
 * sc_ready.h: the workload's side of the readiness handshake (sc_trace_protocol.h,
 * SC_TRACE_READY_FD_ENV; doc/contracts/trace-protocol.md), shared by the kernels'
 * trace lines (kernels/trace.c) and the marker library for programs we did not write
 * (marker/marker.c), so that both wait for the observer's snapshot the same way.
 * libc only; not thread-safe (it reads and unsets the environment): callers serialize.
 */
#ifndef SC_READY_H
#define SC_READY_H

#include <time.h>

/*
 * After main_loop_begin was written at *since (CLOCK_MONOTONIC): when the observer passed
 * STREAMCARD_READY_FD, waits at most SC_TRACE_READY_WAIT_MAX_MS for one byte (its snapshots
 * are taken) or EOF (it went away) on that descriptor, closes it and unsets the variable
 * (nothing the workload starts inherits it), and sets *waited_ms to the time from *since to
 * the release. Returns 1 when it waited, 0 when no observer asked (variable absent or not a
 * descriptor number >= 3).
 */
int sc_ready_wait(const struct timespec *since, double *waited_ms);

#endif
