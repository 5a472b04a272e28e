/*
 * ranksnap.h: what each MPI rank shows of itself just before the main loop: every thread of
 * its process and the CPU it last ran on (/proc/self/task, taskcpu.h), and its anonymous
 * memory per NUMA node (/proc/self/numa_maps). Rank 0 gathers them and prints one
 * TRACE_RANK_THREAD line per thread and one TRACE_RANK_NUMA line per node of every rank
 * (sc_trace_protocol.h), so the bundle describes the ranks on every node, not the launcher
 * that the observer started.
 */
#ifndef SCM_RANKSNAP_H
#define SCM_RANKSNAP_H

#include <mpi.h>

#define SCM_SNAP_MAX_THREADS 64
#define SCM_SNAP_MAX_NODES 64

struct scm_ranksnap {
    int valid, rank;
    long pid;
    char host[64];
    int n_threads; /* how many the snapshot holds (at most SCM_SNAP_MAX_THREADS) */
    int threads_total;
    struct {
        long tid;
        int cpu;
    } threads[SCM_SNAP_MAX_THREADS];
    unsigned long long node_bytes[SCM_SNAP_MAX_NODES];
};

/* Fills s with this process as it is now. */
void scm_ranksnap_take(struct scm_ranksnap *s, int rank);

/* Every rank takes its snapshot; rank 0 prints all of them. Collective over comm. */
void scm_ranksnap_report(MPI_Comm comm, int rank, int size);

#endif
