/*
 * streamcard/marker.h: phase markers and figures for a program streamcard did not write
 * (doc/markers.md). Link with `pkg-config --cflags --libs streamcard-marker`.
 *
 *     sc_marker_begin("main_loop");
 *     for (...) work();
 *     sc_marker_end("main_loop");
 *     sc_marker_figure("triad_rate", mbps, "MB/s");
 *
 * Under `streamcard run` (a card with `workload: exec` and `markers: library`) the calls
 * write the trace protocol's lines to the descriptor named by STREAMCARD_TRACE_FD: the
 * observer snapshots the process at the begin (the call returns once the snapshot is taken,
 * as the built-in kernels do), accounts interference from the begin to the end, and records
 * each figure as a metric of the run. Without the variable, or when it names no descriptor
 * open for writing, every call does nothing and returns 0, so an instrumented program runs
 * anywhere.
 *
 * Every function returns 0 or a negative errno: -EINVAL for an argument outside what is
 * documented (checked with or without the variable, so a mistake shows anywhere), -EIO (or
 * the write's errno) when the line could not be written. The calls are thread-safe (each
 * line is one write(2), never split by another thread's) but not async-signal-safe. Before
 * its line, each call flushes stdout, so the program's own output printed earlier stays
 * before it in the log.
 */
#ifndef STREAMCARD_MARKER_H
#define STREAMCARD_MARKER_H

#ifdef __cplusplus
extern "C" {
#endif

#define SC_MARKER_API __attribute__((visibility("default")))

/* The phase the trace protocol knows: the program's main loop, the part a card measures. */
#define SC_MARKER_MAIN_LOOP "main_loop"

/* The main loop begins (phase: SC_MARKER_MAIN_LOOP). The first begin waits for the observer's
   snapshot (at most 10 s), then returns. */
SC_MARKER_API int sc_marker_begin(const char *phase);

/* The main loop ends (phase: SC_MARKER_MAIN_LOOP). */
SC_MARKER_API int sc_marker_end(const char *phase);

/*
 * A figure of the run: name as a card metric's (letters, digits, '.', '_', '-', ':', at most
 * 100, not starting with '.' or '-'), value finite, unit one word of printable ASCII without
 * space, at most 32 bytes ("MB/s", "s", "1"). Report each name once per run: a name written
 * twice fails the run's validation.
 */
SC_MARKER_API int sc_marker_figure(const char *name, double value, const char *unit);

/* 1 when the calls write (an observer handed over a descriptor), 0 when they do nothing. */
SC_MARKER_API int sc_marker_active(void);

#ifdef __cplusplus
}
#endif

#endif
