/*
 * rank_sampler.c: common/'s interference sampler run by every rank, the records gathered
 * to rank 0 (see rank_sampler.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_getaffinity */
#endif
#include "rank_sampler.h"
#include "sc_sampler.h"
#include "sc_trace_protocol.h"
#include "sampler_proc.h"

#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define SCM__TEXT_MAX (256 * 1024) /* one rank's records, at most */
/* The descriptors made room for: the sampler's open stat files, its directories, and what
   MPI itself holds open. */
#define SCM__FD_ROOM (2 * SC_PROC_FDS_MAX)

struct scm_rank_sampler {
    sc_sampler *s;
    int procfd;
};

/* Who a rank is, for the others: its process and its host. */
struct scm__who {
    long pid;
    char host[64];
};

static long long scm__now_ns(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

void scm_rank_sampler_prepare(void)
{
    struct rlimit rl;
    long top = SCM__FD_ROOM - 1;

    if (!getenv(SC_TRACE_OBSERVER_ENV))
        return;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        (rlim_t)top >= rl.rlim_cur)
        top = (long)rl.rlim_cur - 1;
    /* The lowest free descriptor from top on (none taken from anyone): the table grows to
       hold it, and keeps its size once it is closed. Nothing to do when it cannot be. */
    int fd = top > STDERR_FILENO ? fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, (int)top) : -1;
    if (fd >= 0)
        close(fd);
}

/* The observer named by STREAMCARD_OBSERVER when it runs on host; 0 otherwise. */
static pid_t scm__observer_here(const char *value, const char *host)
{
    char *at = NULL;
    long pid = value ? strtol(value, &at, 10) : 0;

    return at && *at == '@' && pid > 0 && strcmp(at + 1, host) == 0 ? (pid_t)pid : 0;
}

/* The sampler of this rank: its CPUs, the job's processes on this host as roots. */
static struct scm_rank_sampler *scm__start(const struct scm__who *all, int size, int rank)
{
    struct scm_rank_sampler *rs = calloc(1, sizeof(*rs));
    pid_t roots[66];
    int cpus[CPU_SETSIZE];
    size_t nroots = 0, ncpus = 0;
    cpu_set_t set;
    char source[32];

    if (!rs)
        return NULL;
    pid_t observer = scm__observer_here(getenv(SC_TRACE_OBSERVER_ENV), all[rank].host);
    if (observer)
        roots[nroots++] = observer;
    for (int r = 0; r < size && nroots < 66; r++)
        if (!strcmp(all[r].host, all[rank].host))
            roots[nroots++] = (pid_t)all[r].pid;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) == 0)
        for (int c = 0; c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &set))
                cpus[ncpus++] = c;
    snprintf(source, sizeof(source), "rank%d", rank);
    sc_sampler_opts o = {cpus, ncpus, roots, nroots, source, all[rank].host, 0};
    rs->procfd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    rs->s = rs->procfd >= 0 ? sc_sampler_new(&o) : NULL;
    if (!rs->s || sc_sampler_sample(rs->s, rs->procfd, SC_SAMPLE_BEGIN, scm__now_ns()) < 0) {
        sc_sampler_free(rs->s);
        if (rs->procfd >= 0)
            close(rs->procfd);
        free(rs);
        return NULL;
    }
    return rs;
}

void scm_rank_sampler_begin(struct scm_rank_sampler **rs, MPI_Comm comm, int rank)
{
    int asked = getenv(SC_TRACE_OBSERVER_ENV) != NULL, all_asked = 0, size = 0;
    struct scm__who me = {.pid = getpid()}, *all;

    *rs = NULL;
    MPI_Allreduce(&asked, &all_asked, 1, MPI_INT, MPI_MIN, comm);
    if (!all_asked)
        return;
    MPI_Comm_size(comm, &size);
    all = calloc((size_t)size, sizeof(*all));
    if (gethostname(me.host, sizeof(me.host) - 1) != 0)
        snprintf(me.host, sizeof(me.host), "unknown");
    /* every rank takes part even without memory: a NULL buffer would break the others */
    MPI_Allgather(&me, (int)sizeof(me), MPI_BYTE, all ? all : &me, all ? (int)sizeof(me) : 0,
                  MPI_BYTE, comm);
    if (all)
        *rs = scm__start(all, size, rank);
    free(all);
}

static int scm__append(void *ctx, const char *line)
{
    char *text = ctx;
    size_t used = strlen(text), n = strlen(line);

    if (used + n + 2 > SCM__TEXT_MAX)
        return -1; /* too many records: the rest is left out, and the gate says so */
    memcpy(text + used, line, n);
    text[used + n] = '\n';
    text[used + n + 1] = '\0';
    return 0;
}

void scm_rank_sampler_drop(struct scm_rank_sampler *rs)
{
    if (!rs)
        return;
    sc_sampler_free(rs->s);
    close(rs->procfd);
    free(rs);
}

/*
 * Closes the window at main_loop_end: the CPU times and the job's own tasks (END_OWN), then
 * every other task's stat (NAMES) only when the window shows foreign CPU time to name: on a
 * quiet node, the one reading of every task at the end that nobody needs is skipped (the
 * observer does the same). 0, or -errno when the window could not be closed.
 */
static int scm__close(struct scm_rank_sampler *rs)
{
    int rc = sc_sampler_sample(rs->s, rs->procfd, SC_SAMPLE_END_OWN, scm__now_ns());

    if (rc == 0 && !sc_sampler_quiet(rs->s))
        (void)sc_sampler_sample(rs->s, rs->procfd, SC_SAMPLE_NAMES, scm__now_ns());
    return rc; /* without NAMES, the intruders are the ones the begin sample saw */
}

void scm_rank_sampler_end(struct scm_rank_sampler *rs, MPI_Comm comm, int rank, FILE *out)
{
    int asked = rs != NULL, any = 0, size = 0, len = 0, *lens = NULL, *offs = NULL;
    char *text = calloc(1, SCM__TEXT_MAX), *all = NULL;

    MPI_Allreduce(&asked, &any, 1, MPI_INT, MPI_MAX, comm);
    if (rs && text && scm__close(rs) == 0)
        sc_sampler_records(rs->s, scm__append, text);
    scm_rank_sampler_drop(rs);
    if (!any) {
        free(text);
        return;
    }
    MPI_Comm_size(comm, &size);
    len = text ? (int)strlen(text) : 0;
    if (rank == 0) {
        lens = calloc((size_t)size, sizeof(int));
        offs = calloc((size_t)size, sizeof(int));
    }
    MPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, comm);
    int total = 0;
    for (int r = 0; rank == 0 && lens && offs && r < size; r++) {
        offs[r] = total;
        total += lens[r];
    }
    if (rank == 0)
        all = calloc((size_t)total + 1, 1);
    MPI_Gatherv(text ? text : "", len, MPI_CHAR, all, lens, offs, MPI_CHAR, 0, comm);
    if (rank == 0 && all) {
        fputs(all, out);
        fflush(out);
    }
    free(all);
    free(lens);
    free(offs);
    free(text);
}
