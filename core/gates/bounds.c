/* bounds.c: what one run of a card can have printed (see sc_bounds.h). */
#include "sc_bounds.h"

#include <stdint.h>
#include <string.h>

/* The message sizes of an MPI card: min_bytes doubling up to max_bytes (0 counts, then 1),
   as mpi/bench.c's scm_bench_sizes() makes them, at most 64. */
static size_t sc__sizes(const sc_card *card)
{
    size_t n = 0;

    for (uint64_t s = card->min_bytes; s <= card->max_bytes && n < 64; s = s ? 2 * s : 1) {
        n++;
        if (s > card->max_bytes / 2 && s != 0)
            break;
    }
    return n;
}

void sc_bounds_of(const sc_card *card, sc_tracelog_limits *log, sc_interference_limits *intf)
{
    *log = (sc_tracelog_limits){SIZE_MAX, SIZE_MAX, SIZE_MAX};
    *intf = (sc_interference_limits){SIZE_MAX, SIZE_MAX, SIZE_MAX, SIZE_MAX};
    if (!card)
        return;
    size_t cpus = card->cpus ? (size_t)hwloc_bitmap_weight(card->cpus) : 0;
    size_t threads = (size_t)(card->threads > 0 ? card->threads : 1);
    size_t pool = (size_t)(card->pool_threads > 0 ? card->pool_threads : 1);
    bool mpi = sc_workload_mpi(card);
    const sc_workload_ops *ops = sc_workload_ops_of(card->workload);
    /* An MPI card names its ranks, or (pairs: all) runs one per node of the allocation: not
       known to the card, so its lines are bounded by the file's cap only. */
    size_t ranks = mpi ? (size_t)(card->ranks > 0 ? card->ranks : 0) : 0;
    size_t sizes = mpi ? sc__sizes(card) : 0;

    if (!mpi || ranks)
        log->lines = SC_BOUNDS_BASE_LINES + SC_BOUNDS_LINES_PER_THREAD * threads * pool +
                     SC_BOUNDS_LINES_PER_RANK * ranks + SC_BOUNDS_LINES_PER_SIZE * sizes;
    if (ops && ops->table_rows) /* STREAM: one row per function run */
        log->table_rows = ops->table_rows(card);
    log->imb_rows = sizes; /* none for a workload without the IMB table */
    /* The observer accounts the card's CPUs; each MPI rank its own, and the observer too
       when the program's output marks its main loop (sc_workload_observer_window). */
    size_t observer = sc_workload_observer_window(card) ? 1 : 0;
    intf->windows = mpi ? (ranks ? ranks + observer : SIZE_MAX) : 1;
    intf->cpus_per_window = mpi ? SC_BOUNDS_RANK_CPUS : (cpus ? cpus : SC_BOUNDS_RANK_CPUS);
    intf->tasks_per_window = SC_BOUNDS_TASKS;
    intf->intruders_per_cpu = SC_BOUNDS_INTRUDERS_PER_CPU;
}
