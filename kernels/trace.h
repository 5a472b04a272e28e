/*
 * trace.h: the trace lines every workload prints, as sc_trace_protocol.h spells them
 * (doc/contracts/trace-protocol.md, "The trace protocol").
 *
 * An observer process reads the workload's stdout through a pipe and reacts to these lines
 * (it snapshots the process at main_loop_begin, checks bindings and thread counts), so each
 * line is written with one stdio call under the stream lock and flushed at once. The
 * functions are safe to call from any thread, e.g. from inside an OpenMP parallel region.
 *
 * All functions write to stdout and return 0, or -EIO when the line could not be written.
 */
#ifndef SC_KERNELS_TRACE_H
#define SC_KERNELS_TRACE_H

#include "sc_trace_protocol.h"

/* "TRACE_THREAD_BINDING thread=<thread> cpu=<cpu>": one line per worker thread. */
int sct_thread_binding(int thread, int cpu);

/*
 * "TRACE_WORKLOAD_PHASE=<name>": name is SC_TRACE_MAIN_LOOP_BEGIN or SC_TRACE_MAIN_LOOP_END.
 * At main_loop_begin, when the observer passed STREAMCARD_READY_FD, waits until it has taken
 * its snapshots, then prints "TRACE_READY_WAIT ms=<ms>".
 */
int sct_phase(const char *name);

/* "Number of Threads requested = <n>": the threads the runtime will use (omp_get_max_threads). */
int sct_threads_requested(int n);

/* "Number of Threads counted = <n>": the threads that actually ran in a parallel region. */
int sct_threads_counted(int n);

#endif
