/*
 * sc_tracelog.h: what a workload printed (stream.log), read back as evidence.
 *
 * One pass over the log collects the trace protocol of doc/contracts/trace-protocol.md (thread
 * bindings, phase markers, thread counts, the validation verdict) and the result table rows
 * ("Copy:  12345.6  0.001  0.001  0.002"), so `streamcard run` and `streamcard verify`
 * draw their conclusions from the same parser.
 */
#ifndef SC_TRACELOG_H
#define SC_TRACELOG_H

#include <stdbool.h>
#include <stddef.h>

typedef struct sc_binding {
    long thread;
    long cpu;
} sc_binding;

/* "TRACE_RANK_BINDING rank=0 host=n01 cpu=3 pid=123 allowed=3": where an MPI rank ran. */
typedef struct sc_rank_binding {
    long rank;
    char host[128];
    long cpu, pid;
    char allowed[128]; /* the rank's own CPU affinity, a cpulist */
} sc_rank_binding;

/* "TRACE_RANK_THREAD rank=1 host=n01 pid=123 tid=125 cpu=1": a thread of an MPI rank. */
typedef struct sc_rank_thread {
    long rank, pid, tid, cpu;
    char host[128];
} sc_rank_thread;

/* "TRACE_RANK_NUMA rank=1 host=n01 node=0 bytes=4096": a rank's anonymous memory. */
typedef struct sc_rank_numa {
    long rank, node;
    unsigned long long bytes;
    char host[128];
} sc_rank_numa;

/* "TRACE_POOL_THREAD pool=0 thread=1 cpu=3 pin=ok": an ipsearch search thread. */
typedef struct sc_pool_binding {
    long pool, thread, cpu;
    bool pinned; /* pin=ok; pin=failed: sched_setaffinity refused its cpu */
} sc_pool_binding;

typedef struct sc_table_row {
    char name[32]; /* "Copy", "Triad" */
    double best_rate_MBps, avg_s, min_s, max_s;
} sc_table_row;

/* One row of IMB's table: "#bytes #repetitions t[usec] Mbytes/sec". */
typedef struct sc_imb_row {
    unsigned long long bytes, repetitions;
    double t_usec, MBps;
    double t_usec_unit, MBps_unit; /* the last printed digit's place (0.01 for "%.2f") */
} sc_imb_row;

/* A figure of a "name=number name=number ..." line (ipsearch: "qps=1234.5 gflops=9.87"). */
typedef struct sc_figure {
    char name[48];
    double value;
    double unit; /* the last printed digit's place: the log's rounding is half of it */
} sc_figure;

/*
 * The MPI workload's per-rank transport lines (sc_trace_protocol.h), each kept as its text
 * after the tag, in the log's order; run.conf records them under the key of the same index
 * (sc_tracelog_transport_conf()).
 */
typedef enum sc_mpi_line {
    SC_MPI_TRANSPORT_RANK, /* TRACE_TRANSPORT_RANK: candidates, components, fi_info */
    SC_MPI_REFUSED,        /* TRACE_TRANSPORT_REFUSED: a reason a fabric was refused */
    SC_MPI_PAYLOAD,        /* TRACE_PAYLOAD_BYTES: payload sent in the main loop, netns */
    SC_MPI_IFACE,          /* TRACE_IFACE_BYTES: one interface's bytes then */
    SC_MPI_LIBRARY,        /* TRACE_MPI_LIBRARY: a library of the MPI stack */
    SC_MPI_PARAM,          /* TRACE_MPI_PARAM: a setting that steers the transport */
    SC_MPI_FABRIC,         /* TRACE_FABRIC_BYTES: one fabric port's bytes in the main loop */
    SC_MPI_LINES
} sc_mpi_line;

typedef struct sc_text_list {
    char **items;
    size_t n;
} sc_text_list;

/* The most a log may hold (sc_bounds.h gives a card's); SIZE_MAX: no bound. */
typedef struct sc_tracelog_limits {
    size_t lines;      /* lines of the log */
    size_t table_rows; /* STREAM result table rows ("Copy: ...") */
    size_t imb_rows;   /* IMB table rows */
} sc_tracelog_limits;

typedef struct sc_tracelog {
    long threads_requested, threads_counted; /* -1 when not printed */
    sc_binding *bindings;
    size_t n_bindings;
    sc_pool_binding *pool_bindings; /* ipsearch: the threads that search */
    size_t n_pool_bindings;
    long begin_line, end_line; /* line numbers (1-based) of the markers; 0 when absent */
    long validates_line;       /* first "Solution Validates" line; 0 when absent */
    long failed_line;          /* first "Failed Validation" line; 0 when absent */
    long nonfinite_line;       /* first line with a NaN or Inf word; 0 when none */
    char failed_text[256];     /* that line, for messages */
    char nonfinite_text[256];
    sc_table_row rows[8];
    size_t n_rows;
    long malformed_line;       /* first TRACE_ line that did not parse; 0 when none */
    double ready_wait_ms;      /* TRACE_READY_WAIT: marker written -> released; -1 when absent */
    long clock_granularity_us; /* stream: "Clock granularity = N microseconds"; -1 absent */
    /* MPI workloads: ranks instead of threads, the transport, the IMB table. */
    long ranks_requested, ranks_counted; /* -1 when not printed */
    sc_rank_binding *rank_bindings;
    size_t n_rank_bindings;
    sc_rank_thread *rank_threads; /* each rank's threads just before main_loop_begin */
    size_t n_rank_threads;
    sc_rank_numa *rank_numa; /* each rank's anonymous memory per node */
    size_t n_rank_numa;
    char transport[128];      /* from "TRACE_TRANSPORT transport=X ..."; "" when absent */
    char transport_line[512]; /* that line after "TRACE_TRANSPORT ": pml=, btl=, mtl=, provider= */
    sc_text_list mpi[SC_MPI_LINES]; /* the per-rank transport lines, by kind */
    sc_imb_row *imb_rows;           /* "#bytes #repetitions t[usec] Mbytes/sec" rows */
    size_t n_imb_rows;
    double imb_peak_MBps; /* the highest Mbytes/sec of those rows */
    bool in_imb_table;
    sc_figure figures[32]; /* from lines made only of name=number words; the last wins */
    size_t n_figures;
    sc_tracelog_limits limits; /* what the parse held the log to */
    /* The first line beyond the limits (1-based; 0 when none) and what it exceeded: the
       parse stopped there, so what follows it was not read. */
    long over_line;
    char over_text[192];
} sc_tracelog;

/* Parses log (NUL-terminated), without bounds but the file's cap. Returns 0 or -ENOMEM. */
int sc_tracelog_parse(const char *log, sc_tracelog *out);

/* Parses log, stopping at the first line beyond limits (over_line says which). 0 or
   -ENOMEM. */
int sc_tracelog_parse_bounded(const char *log, const sc_tracelog_limits *limits, sc_tracelog *out);
void sc_tracelog_free(sc_tracelog *t);

/* The log's "Stores: ..." line (what STREAM says it stored with) after "Stores: ", looked
   for within its first max_lines lines, into buf; "" when none. */
void sc_tracelog_stores(const char *log, size_t max_lines, char *buf, size_t len);

/* The table row of a function, named as the log ("Copy") or as results.json ("copy") does;
   NULL when there is none. */
const sc_table_row *sc_tracelog_row(const sc_tracelog *t, const char *name);

/* The figure named name ("qps"), or NULL. */
const sc_figure *sc_tracelog_figure(const sc_tracelog *t, const char *name);

/* The IMB row of a message size, or NULL. */
const sc_imb_row *sc_tracelog_imb_row(const sc_tracelog *t, unsigned long long bytes);

/*
 * The first line of a log that says why a run failed: one that speaks of an error, a
 * failure, something unable, impossible, refused, denied, not found, aborted, killed or
 * timed out (an MPI library that cannot start, a workload's own complaint), not a trace
 * line, the validation verdict's own words, an env: record or a report that a measurement
 * is unavailable ("counters: unavailable: perf_event_open ..."). Copies it (trimmed, cut to
 * fit) into buf and returns its line number; 0 when no line does.
 */
long sc_tracelog_first_cause(const char *log, char *buf, size_t len);

/* True when claimed is value as the log printed it: within half its last digit's place
   (plus a relative 1e-9 for the binary value behind the decimal one). */
bool sc_tracelog_shows(double claimed, double value, double unit);

/*
 * True when shown (printed with unit shown_unit) can be num / den, where den was printed
 * as den_shown with unit den_unit: the quotient over den's whole rounding interval,
 * widened by half of shown's last digit and a relative 1e-9. (A derived figure of the log
 * against the raw ones it comes from.)
 */
bool sc_tracelog_quotient_shows(double shown, double shown_unit, double num, double den_shown,
                                double den_unit);

/*
 * mpi-pingpong's transport as run.conf records it: transport=, then transport_pml=,
 * _btl=, _mtl=, _provider= from the TRACE_TRANSPORT line, then one line per per-rank line
 * of the log, in the order of sc_mpi_line: transport_rank=, transport_refused=,
 * transport_payload=, transport_iface=, mpi_library=, mpi_param=, transport_fabric=. t may
 * be NULL (no log): transport=unknown.
 */
struct sc_kv;
void sc_tracelog_transport_conf(const sc_tracelog *t, struct sc_kv *kv);

/*
 * What bounded a rank's byte counts: line is a TRACE_PAYLOAD_BYTES line after its tag (as
 * t->mpi[SC_MPI_PAYLOAD] holds it); out gets its span, an SC_TRACE_SPAN_* word, or "" for a
 * line written before the field (sc_trace_protocol.h). Returns 0, -EINVAL when its fields
 * do not parse, or -EBADMSG when they do but it ends in anything but a known span (the
 * parse calls that line malformed).
 */
int sc_tracelog_bytes_span(const char *line, char *out, size_t len);

/* True when a run.conf line (key=value) is one sc_tracelog_transport_conf() writes. */
bool sc_tracelog_is_transport_conf(const char *line);

#endif
