/* ranksnap.c: each rank's threads, CPUs and NUMA pages, printed by rank 0 (see ranksnap.h). */
#include "ranksnap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sc_numa_maps.h"
#include "sc_trace_protocol.h"
#include "taskcpu.h"

static void scm__add_node(long node, unsigned long long bytes, void *ctx)
{
    struct scm_ranksnap *s = ctx;

    if (node >= 0 && node < SCM_SNAP_MAX_NODES)
        s->node_bytes[node] += bytes;
}

/* /proc/self/numa_maps, whole (it may be long); NULL when unreadable. */
static char *scm__numa_maps(void)
{
    FILE *f = fopen("/proc/self/numa_maps", "re");
    char *text = NULL;
    size_t len = 0;
    FILE *mem = f ? open_memstream(&text, &len) : NULL;
    char buf[4096];
    size_t n;

    while (mem && (n = fread(buf, 1, sizeof(buf), f)) > 0)
        fwrite(buf, 1, n, mem);
    if (mem && fclose(mem) != 0) {
        free(text);
        text = NULL;
    }
    if (f)
        fclose(f);
    return text;
}

void scm_ranksnap_take(struct scm_ranksnap *s, int rank)
{
    struct sct_task_snapshot tasks;
    char *maps;

    memset(s, 0, sizeof(*s));
    s->valid = 1;
    s->rank = rank;
    s->pid = (long)getpid();
    if (gethostname(s->host, sizeof(s->host) - 1) != 0)
        snprintf(s->host, sizeof(s->host), "unknown");
    if (sct_task_snapshot_take(&tasks) == 0) {
        s->threads_total = (int)tasks.n;
        for (size_t i = 0; i < tasks.n && s->n_threads < SCM_SNAP_MAX_THREADS; i++) {
            s->threads[s->n_threads].tid = (long)tasks.t[i].tid;
            s->threads[s->n_threads++].cpu = tasks.t[i].cpu;
        }
        sct_task_snapshot_free(&tasks);
    }
    maps = scm__numa_maps();
    if (maps)
        sc_numa_maps_anon(maps, scm__add_node, s);
    free(maps);
}

static void scm__print(const struct scm_ranksnap *s)
{
    for (int i = 0; i < s->n_threads; i++)
        printf(SC_TRACE_RANK_THREAD("%d", "%s", "%ld", "%ld", "%d") "\n", s->rank, s->host, s->pid,
               s->threads[i].tid, s->threads[i].cpu);
    if (s->threads_total > s->n_threads)
        printf("warning: rank %d has %d threads; the snapshot shows the first %d\n", s->rank,
               s->threads_total, s->n_threads);
    for (int node = 0; node < SCM_SNAP_MAX_NODES; node++)
        if (s->node_bytes[node])
            printf(SC_TRACE_RANK_NUMA("%d", "%s", "%d", "%llu") "\n", s->rank, s->host, node,
                   s->node_bytes[node]);
}

void scm_ranksnap_report(MPI_Comm comm, int rank, int size)
{
    struct scm_ranksnap me, *all = rank == 0 ? calloc((size_t)size, sizeof(*all)) : NULL;

    scm_ranksnap_take(&me, rank);
    MPI_Gather(&me, (int)sizeof(me), MPI_BYTE, all, (int)sizeof(me), MPI_BYTE, 0, comm);
    for (int r = 0; all && r < size; r++)
        if (all[r].valid && all[r].rank == r)
            scm__print(&all[r]);
    fflush(stdout);
    free(all);
}
