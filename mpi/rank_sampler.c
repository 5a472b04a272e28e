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
#include "textgather.h"

#include <errno.h>
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

/* Where a rank is in its program's markers (scm_rank_sampler_mark). */
enum scm__marked {
    SCM__UNMARKED,   /* no marker yet: the window opened at the sampler's start */
    SCM__IN_LOOP,    /* after the main loop's begin: the window reopened there */
    SCM__LOOP_DONE,  /* after its end: the window closed there */
    SCM__MARK_FAILED /* the begin's window could not open: the first one stays */
};

struct scm_rank_sampler {
    sc_sampler *s;
    int procfd;
    sc_sampler_opts o; /* what a sampler of this rank accounts, for one that moves (mark) */
    pid_t roots[66];
    int cpus[CPU_SETSIZE];
    char source[32], host[64];
    const char *span;                    /* what bounds the window now */
    long long init_ns, begin_ns, end_ns; /* end_ns 0: the window is open */
    enum scm__marked marked;
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

/* A sampler of rs's CPUs whose window opens now (0), or -errno; the old one is kept on error. */
static int scm__open(struct scm_rank_sampler *rs)
{
    long long now = scm__now_ns();
    sc_sampler *s = sc_sampler_new(&rs->o);

    if (!s)
        return -ENOMEM;
    int rc = sc_sampler_sample(s, rs->procfd, SC_SAMPLE_BEGIN, now);
    if (rc < 0) {
        sc_sampler_free(s);
        return rc;
    }
    sc_sampler_free(rs->s);
    rs->s = s;
    rs->begin_ns = now;
    return 0;
}

/* The sampler of this rank: its CPUs, the job's processes on this host as roots. */
static struct scm_rank_sampler *scm__start(const struct scm__who *all, int size, int rank,
                                           const char *span)
{
    struct scm_rank_sampler *rs = calloc(1, sizeof(*rs));
    size_t nroots = 0, ncpus = 0;
    cpu_set_t set;

    if (!rs)
        return NULL;
    pid_t observer = scm__observer_here(getenv(SC_TRACE_OBSERVER_ENV), all[rank].host);
    if (observer)
        rs->roots[nroots++] = observer;
    for (int r = 0; r < size && nroots < 66; r++)
        if (!strcmp(all[r].host, all[rank].host))
            rs->roots[nroots++] = (pid_t)all[r].pid;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) == 0)
        for (int c = 0; c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &set))
                rs->cpus[ncpus++] = c;
    snprintf(rs->source, sizeof(rs->source), "rank%d", rank);
    snprintf(rs->host, sizeof(rs->host), "%s", all[rank].host);
    rs->o = (sc_sampler_opts){rs->cpus, ncpus, rs->roots, nroots, rs->source, rs->host, 0};
    rs->span = span;
    rs->procfd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (rs->procfd < 0 || scm__open(rs) < 0) {
        if (rs->procfd >= 0)
            close(rs->procfd);
        free(rs);
        return NULL;
    }
    rs->init_ns = rs->begin_ns;
    return rs;
}

void scm_rank_sampler_begin(struct scm_rank_sampler **rs, MPI_Comm comm, int rank, const char *span)
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
        *rs = scm__start(all, size, rank, span);
    free(all);
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

int scm_rank_sampler_mark(struct scm_rank_sampler *rs, int begin)
{
    int rc = 0;

    if (!rs || !rs->s || rs->marked != (begin ? SCM__UNMARKED : SCM__IN_LOOP))
        return 0; /* no window, or not the next marker: the first begin, then its end */
    if (begin) {  /* a new window from now; if it cannot open, the old one stays, said so */
        rc = scm__open(rs);
        rs->marked = rc == 0 ? SCM__IN_LOOP : SCM__MARK_FAILED;
        if (rc == 0)
            rs->span = SC_TRACE_SPAN_MAIN_LOOP;
        return rc;
    }
    rs->marked = SCM__LOOP_DONE;
    rc = scm__close(rs);
    rs->end_ns = scm__now_ns(); /* the window holds the END sample's reading (sc_sampler.h) */
    if (rc < 0) {               /* no records: the gate says this rank's are missing */
        sc_sampler_free(rs->s);
        rs->s = NULL;
    }
    return rc;
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

/* This rank's records into text: the window closed now unless the main loop's end closed it,
   then what bounded it (SC_TRACE_RANK_WINDOW). */
static void scm__records(struct scm_rank_sampler *rs, int rank, char *text)
{
    long long now = scm__now_ns();
    char line[256];

    if (!rs->s)
        return;
    if (rs->marked == SCM__IN_LOOP) /* a begin without its end: the loop did not finish */
        rs->span = SC_TRACE_SPAN_BEGIN_TO_FINALIZE;
    /* unless the main loop's end closed it, the window closes now, once END has read /proc */
    if (rs->marked != SCM__LOOP_DONE) {
        if (scm__close(rs) < 0)
            return;
        rs->end_ns = now = scm__now_ns();
    }
    sc_sampler_records(rs->s, scm__append, text);
    snprintf(line, sizeof(line), SC_TRACE_RANK_WINDOW("%d", "%s", "%lld", "%lld", "%lld", "%lld"),
             rank, rs->span, rs->begin_ns, rs->end_ns, rs->init_ns, now);
    scm__append(text, line);
}

void scm_rank_sampler_end(struct scm_rank_sampler *rs, MPI_Comm comm, int rank, FILE *out)
{
    int asked = rs != NULL, any = 0;
    char *text = calloc(1, SCM__TEXT_MAX), *all;

    MPI_Allreduce(&asked, &any, 1, MPI_INT, MPI_MAX, comm);
    if (rs && text)
        scm__records(rs, rank, text);
    scm_rank_sampler_drop(rs);
    if (!any) {
        free(text);
        return;
    }
    all = scm_text_gather(comm, rank, text);
    if (rank == 0 && all) {
        fputs(all, out);
        fflush(out);
    }
    free(all);
    free(text);
}
