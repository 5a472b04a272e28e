/*
 * sc_trace_protocol.h: the trace protocol, the lines a workload prints on its stdout for
 * the observer that runs it (doc/contracts/trace-protocol.md). Constants only: nothing to
 * link, so the workloads (which link nothing of libstreamcard) and the core include the same
 * text. Writers: kernels/trace.c, kernels/ipsearch_pool.c, mpi/pingpong.c,
 * mpi/transport_report.c, marker/marker.c (programs we did not write) and the stream/ipsearch
 * validation lines. Readers: core/card/tracelog.c (the whole log) and
 * core/capture/observe.c (main_loop_begin as it happens, and the readiness handshake).
 *
 * A line with fields is one macro whose arguments are the fields' conversions: the writer
 * passes printf's, the reader scanf's, and both get the same words in the same order:
 *   printf(SC_TRACE_THREAD_BINDING("%d", "%d") "\n", thread, cpu);
 *   sscanf(line, SC_TRACE_THREAD_BINDING("%ld", "%ld") "%n", &thread, &cpu, &used);
 * Every such line starts with its tag (SC_TRACE_TAG_*), which a reader matches first.
 */
#ifndef SC_TRACE_PROTOCOL_H
#define SC_TRACE_PROTOCOL_H

/* Each line's words stay as they print, not as clang-format would wrap them. */
/* clang-format off */

/* Every protocol line that is not one of the counts or validation lines below. */
#define SC_TRACE_TAG "TRACE_"

/* The format of a line after its tag, for a reader that keeps lines without their tag:
   sscanf(rest, SC_TRACE_AFTER_TAG(SC_TRACE_IFACE_BYTES(...), SC_TRACE_TAG_IFACE_BYTES), ...). */
#define SC_TRACE_AFTER_TAG(FORMAT, TAG) ((FORMAT) + sizeof(TAG) - 1)

/* "TRACE_WORKLOAD_PHASE=main_loop_begin" just before the first timed repetition (and after
   the warm-up barrier of MPI), "TRACE_WORKLOAD_PHASE=main_loop_end" after the last. */
#define SC_TRACE_PHASE SC_TRACE_TAG "WORKLOAD_PHASE="
#define SC_TRACE_MAIN_LOOP_BEGIN "main_loop_begin"
#define SC_TRACE_MAIN_LOOP_END "main_loop_end"

/*
 * The marker library (marker/, streamcard/marker.h; doc/markers.md) for a program we did not
 * write: the observer of a `workload: exec` run names in SC_TRACE_FD_ENV the descriptor the
 * program writes its trace lines to (the same pipe as its stdout, so they land in its log in
 * the order written). Besides the phase lines above, one line per figure the program
 * reports: NAME as a card metric's name, VALUE a finite number ("%.17g"), UNIT a word
 * ([!-~], no space).
 */
#define SC_TRACE_FD_ENV "STREAMCARD_TRACE_FD"
#define SC_TRACE_TAG_FIGURE SC_TRACE_TAG "FIGURE "
#define SC_TRACE_FIGURE(NAME, VALUE, UNIT)                                                       \
    SC_TRACE_TAG_FIGURE "name=" NAME " value=" VALUE " unit=" UNIT
/* The transport probe of an MPI program (mpi/probe_preload.c) exports this function when it
   is preloaded into a rank; the marker library finds it by name (dlsym) and calls it at each
   main-loop marker, before the line: int hook(int begin), begin 1 at sc_marker_begin, 0 at
   sc_marker_end. It moves the rank's interference window to the marker and returns whether
   this rank writes the line (rank 0 only: one main loop per run). */
#define SC_MARKER_PROBE_HOOK "scm_probe_marker"

/* One line per worker thread: which CPU it runs on. */
#define SC_TRACE_TAG_THREAD_BINDING SC_TRACE_TAG "THREAD_BINDING "
#define SC_TRACE_THREAD_BINDING(THREAD, CPU)                                                     \
    SC_TRACE_TAG_THREAD_BINDING "thread=" THREAD " cpu=" CPU

/* One line per ipsearch search thread: its pool, its thread in the pool, its CPU, and
   whether pinning it worked (SC_TRACE_PIN_OK or SC_TRACE_PIN_FAILED). */
#define SC_TRACE_TAG_POOL_THREAD SC_TRACE_TAG "POOL_THREAD "
#define SC_TRACE_POOL_THREAD(POOL, THREAD, CPU, PIN)                                             \
    SC_TRACE_TAG_POOL_THREAD "pool=" POOL " thread=" THREAD " cpu=" CPU " pin=" PIN
#define SC_TRACE_PIN_OK "ok"
#define SC_TRACE_PIN_FAILED "failed"

/* One line per MPI rank (printed by rank 0): host, CPU, pid and allowed CPUs (a cpulist). */
#define SC_TRACE_TAG_RANK_BINDING SC_TRACE_TAG "RANK_BINDING "
#define SC_TRACE_RANK_BINDING(RANK, HOST, CPU, PID, ALLOWED)                                     \
    SC_TRACE_TAG_RANK_BINDING "rank=" RANK " host=" HOST " cpu=" CPU " pid=" PID                 \
                              " allowed=" ALLOWED

/* What each MPI rank shows of itself just before main_loop_begin (printed by rank 0 for
   every rank, on every node): each thread of the rank's process and the CPU it last ran on,
   and the rank's anonymous memory per NUMA node. */
#define SC_TRACE_TAG_RANK_THREAD SC_TRACE_TAG "RANK_THREAD "
#define SC_TRACE_RANK_THREAD(RANK, HOST, PID, TID, CPU)                                          \
    SC_TRACE_TAG_RANK_THREAD "rank=" RANK " host=" HOST " pid=" PID " tid=" TID " cpu=" CPU
#define SC_TRACE_TAG_RANK_NUMA SC_TRACE_TAG "RANK_NUMA "
#define SC_TRACE_RANK_NUMA(RANK, HOST, NODE, BYTES)                                              \
    SC_TRACE_TAG_RANK_NUMA "rank=" RANK " host=" HOST " node=" NODE " bytes=" BYTES

/*
 * MPI: how the data went (doc/contracts/gates.md, "Carriers"). Before main_loop_begin, per rank
 * (printed by rank 0): the carriers its MPI library's selection allowed, the components, and
 * libfabric's providers (fi_getinfo through the libfabric the MPI library loaded); each
 * reason a fabric was refused (the rest of the line: the library's or the fabric's words);
 * each library of the MPI stack (the rest of the line: the version it states); each
 * setting that steers the transport (the rest of the line: its value).
 */
#define SC_TRACE_TAG_TRANSPORT_RANK SC_TRACE_TAG "TRANSPORT_RANK "
#define SC_TRACE_TRANSPORT_RANK(RANK, HOST, CANDIDATES, PML, BTL, MTL, PROVIDER, FI_INFO)       \
    SC_TRACE_TAG_TRANSPORT_RANK "rank=" RANK " host=" HOST " candidates=" CANDIDATES " pml=" PML \
                                " btl=" BTL " mtl=" MTL " provider=" PROVIDER " fi_info=" FI_INFO
#define SC_TRACE_TAG_TRANSPORT_REFUSED SC_TRACE_TAG "TRANSPORT_REFUSED "
#define SC_TRACE_TRANSPORT_REFUSED(RANK, SUBJECT)                                                \
    SC_TRACE_TAG_TRANSPORT_REFUSED "rank=" RANK " subject=" SUBJECT " why="
#define SC_TRACE_TAG_MPI_LIBRARY SC_TRACE_TAG "MPI_LIBRARY "
#define SC_TRACE_MPI_LIBRARY(RANK, NAME, LOADED, SHA256, PATH)                                  \
    SC_TRACE_TAG_MPI_LIBRARY "rank=" RANK " name=" NAME " loaded=" LOADED " sha256=" SHA256      \
                             " path=" PATH " version="
#define SC_TRACE_TAG_MPI_PARAM SC_TRACE_TAG "MPI_PARAM "
#define SC_TRACE_MPI_PARAM(RANK, NAME, SOURCE)                                                   \
    SC_TRACE_TAG_MPI_PARAM "rank=" RANK " name=" NAME " source=" SOURCE " value="
/*
 * After main_loop_end, per rank: the payload bytes it sent in the main loop and its network
 * namespace, then the bytes of each interface of that namespace that moved any (loopback
 * always) over the same time; then the run's carrier as the bytes decided it
 * (sc_carrier.h), and rank 0's components. The payload line ends with SC_TRACE_BYTES_SPAN:
 * what bounded the rank's counts, one of the SC_TRACE_SPAN_* words of TRACE_RANK_WINDOW
 * below (streamcard-pingpong: its main loop; the probe of a program we did not write: the
 * marker library's sc_marker_begin to sc_marker_end when the rank's begin came, else
 * MPI_Init to MPI_Finalize). A line without it is from before the field (a pingpong's main
 * loop, a probe's MPI_Init to MPI_Finalize); any other ending is malformed.
 */
#define SC_TRACE_TAG_PAYLOAD_BYTES SC_TRACE_TAG "PAYLOAD_BYTES "
#define SC_TRACE_PAYLOAD_BYTES(RANK, NETNS, SENT, UNCOUNTED)                                     \
    SC_TRACE_TAG_PAYLOAD_BYTES "rank=" RANK " netns=" NETNS " sent=" SENT                       \
                               " uncounted_ifaces=" UNCOUNTED
#define SC_TRACE_BYTES_SPAN(SPAN) " span=" SPAN
#define SC_TRACE_TAG_IFACE_BYTES SC_TRACE_TAG "IFACE_BYTES "
#define SC_TRACE_IFACE_BYTES(RANK, NETNS, IFACE, RX, TX)                                         \
    SC_TRACE_TAG_IFACE_BYTES "rank=" RANK " netns=" NETNS " iface=" IFACE " rx=" RX " tx=" TX
/* Then per rank, each fabric port of its host whose own counters moved bytes over the main
   loop (sc_netdev.h: InfiniBand "mlx5_0:1", CXI "cxi0"); the host's, whatever the namespace. */
#define SC_TRACE_TAG_FABRIC_BYTES SC_TRACE_TAG "FABRIC_BYTES "
#define SC_TRACE_FABRIC_BYTES(RANK, HOST, PORT, RX, TX)                                          \
    SC_TRACE_TAG_FABRIC_BYTES "rank=" RANK " host=" HOST " port=" PORT " rx=" RX " tx=" TX
#define SC_TRACE_TAG_TRANSPORT SC_TRACE_TAG "TRANSPORT "
#define SC_TRACE_TRANSPORT_FIRST "transport=" /* TRANSPORT's first word */
#define SC_TRACE_TRANSPORT(TRANSPORT, PML, BTL, MTL, PROVIDER)                                   \
    SC_TRACE_TAG_TRANSPORT SC_TRACE_TRANSPORT_FIRST TRANSPORT " pml=" PML " btl=" BTL            \
                                                    " mtl=" MTL " provider=" PROVIDER

/*
 * The readiness handshake. An observer that wants to snapshot the workload at
 * main_loop_begin starts it with SC_TRACE_READY_FD_ENV=<fd>, the read end of a pipe (and may
 * name the process it started in SC_TRACE_READY_PID_ENV). After printing
 * main_loop_begin the workload waits, at most SC_TRACE_READY_WAIT_MAX_MS, for one byte or
 * EOF on it, then prints READY_WAIT: milliseconds from writing the marker to being released.
 */
#define SC_TRACE_READY_FD_ENV "STREAMCARD_READY_FD"
#define SC_TRACE_READY_PID_ENV "STREAMCARD_READY_PID"
#define SC_TRACE_READY_WAIT_MAX_MS 10000
#define SC_TRACE_TAG_READY_WAIT SC_TRACE_TAG "READY_WAIT "
#define SC_TRACE_READY_WAIT(MS) SC_TRACE_TAG_READY_WAIT "ms=" MS
/* streamcard-pingpong's rank 0: whether the inherited descriptor was the observer's pipe. */
#define SC_TRACE_READY_HANDSHAKE(RANK, FD, USED, WHY)                                            \
    SC_TRACE_TAG "READY_HANDSHAKE rank=" RANK " fd=" FD " used=" USED " why=" WHY

/* The counts the thread (rank) count gate compares: requested, and counted in a parallel
   region (gathered from the ranks). */
#define SC_TRACE_THREADS_REQUESTED(N) "Number of Threads requested = " N
#define SC_TRACE_THREADS_COUNTED(N) "Number of Threads counted = " N

/* stream: the granularity of the clock its repetitions are timed with, as STREAM's
   checktick() measures it (whole microseconds, at least 1). The stream_timer gate wants
   every function's fastest repetition to last 20 of these. */
#define SC_TRACE_CLOCK_GRANULARITY(US) "Clock granularity = " US " microseconds"
#define SC_TRACE_RANKS_REQUESTED(N) "Number of Ranks requested = " N
#define SC_TRACE_RANKS_COUNTED(N) "Number of Ranks counted = " N

/* Validation: a line that starts with SC_TRACE_VALIDATES when every result checked, and
   one that holds SC_TRACE_FAILED_VALIDATION for a wrong one (each followed by the
   workload's own words). */
#define SC_TRACE_VALIDATES "Solution Validates"
#define SC_TRACE_FAILED_VALIDATION "Failed Validation"

/*
 * Interference records (doc/contracts/gates.md, "Interference"): what a sampler (common/sampler.c)
 * saw on the CPUs it accounts over a workload's main loop, one record per line. The
 * observer writes them into the bundle's interference.txt; each MPI rank's are gathered and
 * printed by rank 0 after main_loop_end. SOURCE names the sampler ("observer", "rank1");
 * counts are deltas over the window: CPU ticks of /proc/stat (CLK_TCK per second), task
 * times in nanoseconds. COMM is always last (a task's name, bytes outside ! to ~ as ?).
 */
#define SC_TRACE_TAG_INTERFERENCE SC_TRACE_TAG "INTERFERENCE_"
#define SC_TRACE_TAG_INTERFERENCE_WINDOW SC_TRACE_TAG_INTERFERENCE "WINDOW "
#define SC_TRACE_INTERFERENCE_WINDOW(SOURCE, HOST, NS, CLK_TCK, SCANS, CPU_NS, LOOP_CPU_NS, TASKS) \
    SC_TRACE_TAG_INTERFERENCE_WINDOW "source=" SOURCE " host=" HOST " ns=" NS " clk_tck=" CLK_TCK \
    " scans=" SCANS " sampler_cpu_ns=" CPU_NS " sampler_loop_cpu_ns=" LOOP_CPU_NS " tasks=" TASKS
/* Appended to a WINDOW record when the host's /proc/stat has its "processes" counter at both
   ends: the processes started on the host over the window (every fork, the job's own
   included). A task that starts and ends between two samples is never read as a task; this
   counts it. */
#define SC_TRACE_INTERFERENCE_WINDOW_FORKS(FORKS) " forks=" FORKS
#define SC_TRACE_TAG_INTERFERENCE_CPU SC_TRACE_TAG_INTERFERENCE "CPU "
#define SC_TRACE_INTERFERENCE_CPU(SOURCE, CPU, USER, NICE, SYSTEM, IDLE, IOWAIT, IRQ, SOFTIRQ, STEAL) \
    SC_TRACE_TAG_INTERFERENCE_CPU "source=" SOURCE " cpu=" CPU " user=" USER " nice=" NICE        \
    " system=" SYSTEM " idle=" IDLE " iowait=" IOWAIT " irq=" IRQ " softirq=" SOFTIRQ " steal=" STEAL
/* One of the job's own tasks: its CPU time, the time it waited for a CPU while runnable
   (run_delay), its involuntary context switches, the CPUs it may run on. */
#define SC_TRACE_TAG_INTERFERENCE_TASK SC_TRACE_TAG_INTERFERENCE "TASK "
#define SC_TRACE_INTERFERENCE_TASK(SOURCE, TID, PID, EXEC_NS, DELAY_NS, NVCSW, ALLOWED, COMM)   \
    SC_TRACE_TAG_INTERFERENCE_TASK "source=" SOURCE " tid=" TID " pid=" PID " exec_ns=" EXEC_NS \
    " run_delay_ns=" DELAY_NS " nvcsw=" NVCSW " allowed=" ALLOWED " comm=" COMM
/* The CPU time of a job's process's threads that ended inside the window (or were never
   read): the process's CPU clock's advance less its TASK records' exec_ns. They may have run
   on the CPUs ALLOWED ("unknown": any), the process's tasks' when they all agree. */
#define SC_TRACE_TAG_INTERFERENCE_EXITED SC_TRACE_TAG_INTERFERENCE "EXITED "
#define SC_TRACE_INTERFERENCE_EXITED(SOURCE, PID, EXEC_NS, ALLOWED, COMM)                        \
    SC_TRACE_TAG_INTERFERENCE_EXITED "source=" SOURCE " pid=" PID " exec_ns=" EXEC_NS            \
                                     " allowed=" ALLOWED " comm=" COMM
/* A task that is not the job's: CPU ticks it spent while last seen on CPU, scans that saw it
   runnable there. */
#define SC_TRACE_TAG_INTERFERENCE_INTRUDER SC_TRACE_TAG_INTERFERENCE "INTRUDER "
#define SC_TRACE_INTERFERENCE_INTRUDER(SOURCE, CPU, PID, TID, TICKS, SEEN, COMM)                \
    SC_TRACE_TAG_INTERFERENCE_INTRUDER "source=" SOURCE " cpu=" CPU " pid=" PID " tid=" TID     \
    " ticks=" TICKS " seen=" SEEN " comm=" COMM
/* The shared objects the ranks of an MPI program we did not write mapped at MPI_Init
   (mpi/ranklibs.c, dl_iterate_phdr): one line per host and absolute PATH (always last, the
   rest of the line), RANKS the ranks on that host that mapped it. build.json's "libraries"
   of such a run are these paths, each with its SHA-256, and verify holds the two together. */
#define SC_TRACE_TAG_RANK_LIBRARY SC_TRACE_TAG "RANK_LIBRARY "
#define SC_TRACE_RANK_LIBRARY(HOST, RANKS, PATH)                                                 \
    SC_TRACE_TAG_RANK_LIBRARY "host=" HOST " ranks=" RANKS " path=" PATH

/* An MPI rank's interference window (mpi/rank_sampler.c), printed with its records: SPAN
   says what bounded it, SC_TRACE_SPAN_MAIN_LOOP (the workload's main loop: streamcard-pingpong's,
   or the marker library's sc_marker_begin to sc_marker_end in a program we did not write) or
   SC_TRACE_SPAN_MPI (MPI_Init to MPI_Finalize: a program without markers on that rank) or
   SC_TRACE_SPAN_BEGIN_TO_FINALIZE (its sc_marker_begin, but no sc_marker_end after it);
   BEGIN and END its CLOCK_MONOTONIC times (ns), INIT and FINALIZE those of the sampler's
   start after MPI_Init and its end before MPI_Finalize. */
#define SC_TRACE_TAG_RANK_WINDOW SC_TRACE_TAG "RANK_WINDOW "
#define SC_TRACE_RANK_WINDOW(RANK, SPAN, BEGIN, END, INIT, FINALIZE)                              \
    SC_TRACE_TAG_RANK_WINDOW "rank=" RANK " span=" SPAN " begin_ns=" BEGIN " end_ns=" END        \
    " mpi_init_ns=" INIT " mpi_finalize_ns=" FINALIZE
#define SC_TRACE_SPAN_MAIN_LOOP "main_loop"
#define SC_TRACE_SPAN_MPI "mpi_init_to_finalize"
#define SC_TRACE_SPAN_BEGIN_TO_FINALIZE "main_loop_begin_to_finalize"
/* Set by the observer for the workload when it accounts interference: "<pid>@<host>", the
   process whose tree is the job's own; an MPI rank that finds it samples its own CPUs. */
#define SC_TRACE_OBSERVER_ENV "STREAMCARD_OBSERVER"

/* An MPI program we did not write (workload: exec with ranks:): the wrapper preloads the
   transport probe (SC_MPIPROBE_LIBRARY, mpi/probe_preload.c) into every rank, and names in
   SC_TRACE_TRANSPORT_LOG_ENV the file rank 0 writes what MPI_Init said to (the run's
   transport.log; a program of ours is given --transport-log instead). */
#define SC_MPIPROBE_LIBRARY "libstreamcard-mpiprobe.so"
#define SC_TRACE_TRANSPORT_LOG_ENV "STREAMCARD_TRANSPORT_LOG"

/* The cache probe (streamcard-stream --cache-probe, kernels/cacheprobe.c; read by
   sc_caches_probe_parse() of core/capture/caches.c; doc/contracts/gates.md, "The gates": stream_array): one
   set-up line (the threads, the read loop's instruction set, the CPUs as a comma list), then
   one line per working set: its bytes and the best read rate in MB/s (10^6 bytes/s). */
#define SC_PROBE_TAG "cache_probe "
#define SC_PROBE_SETUP(THREADS, ISA, CPUS) SC_PROBE_TAG "threads=" THREADS " isa=" ISA " cpus=" CPUS
#define SC_PROBE_POINT(BYTES, MBPS) SC_PROBE_TAG "bytes=" BYTES " MBps=" MBPS

/* clang-format on */

#endif
