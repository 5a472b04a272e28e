/*
 * sc_results_protocol.h: the results protocol, the keys of the JSON a workload writes at the
 * path given with --json, one file per run (doc/contracts/results.md).
 * Constants only: nothing to link, so the workloads (which link nothing of libstreamcard) and
 * the core include the same text, beside the trace protocol (sc_trace_protocol.h).
 *
 * Writers: kernels/stream.c, kernels/ipsearch.c, mpi/pingpong_report.c (each with json-c).
 * Readers: core/results.c (the best rate, results.json), core/workloads/ (facts, metrics,
 * verify), wrapper/record*.c (the run's figure in run.conf, the link matrix files). A key
 * read and written through these names cannot drift apart on one side.
 */
#ifndef SC_RESULTS_PROTOCOL_H
#define SC_RESULTS_PROTOCOL_H

/* The object every workload's figures sit in; results.json keeps it per run. */
#define SC_RESULT_METRICS "metrics"

/* STREAM (kernels/stream.c): one kernel's best rate in MB/s and its times, at the top of
   "metrics" when one kernel ran; the same per kernel as "rates" (best MB/s by kernel name)
   and "times" (an object of the three times by kernel name); "rep_seconds", every
   repetition's seconds by kernel name, the warm-up first. The best rate is also the key of
   run.conf's figure (doc/contracts/run-conf.md). */
#define SC_RESULT_BEST_RATE_MBPS "best_rate_MBps"
#define SC_RESULT_AVG_TIME_S "avg_time_s"
#define SC_RESULT_MIN_TIME_S "min_time_s"
#define SC_RESULT_MAX_TIME_S "max_time_s"
#define SC_RESULT_RATES "rates"
#define SC_RESULT_TIMES "times"
#define SC_RESULT_REP_SECONDS "rep_seconds"

/* mpi-pingpong (mpi/pingpong_report.c): "sizes", one object per message size, each with its
   "bytes" and its best rate "MBps"; "matrix" (pairs: all), its "nodes", "sizes" (each with
   "bytes") and "passes" (doc/contracts/analysis.md, "Link matrix"). */
#define SC_RESULT_SIZES "sizes"
#define SC_RESULT_BYTES "bytes"
#define SC_RESULT_MBPS "MBps"
#define SC_RESULT_MATRIX "matrix"
#define SC_RESULT_NODES "nodes"
#define SC_RESULT_PASSES "passes"

#endif
