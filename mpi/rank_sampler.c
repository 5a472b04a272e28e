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
#include "textgather.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define SCM__TEXT_MAX (256 * 1024) /* one rank's records, at most */
/* The descriptors made room for: what MPI itself holds open (shared memory, sockets, pipes:
   tens to hundreds with many ranks per node), and the few the sampler opens at a time. */
#define SCM__FD_ROOM 512

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

/*
 * PRIME, taken by a thread of its own that scm_rank_sampler_prepare() starts before MPI_Init
 * and scm__start() joins: every task of the node is read while MPI_Init mostly waits (for
 * the launcher and the other ranks), so the window's BEGIN, where rank 0 and its observer
 * are about to begin the main loop, reads only the job's processes and the ones started
 * since (sc_sampler.h). One per process: its state is this file's.
 */
static struct {
    pthread_t thread;
    pid_t pid;     /* the process that started the thread (0: none): a forked child has not */
    sc_sampler *s; /* primed; NULL when the prime failed */
    int cpus[CPU_SETSIZE]; /* the CPUs it accounts: this process's at its start */
    size_t ncpus;
} scm__prime;

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

/* The observer named by STREAMCARD_OBSERVER when it runs on host; 0 otherwise. */
static pid_t scm__observer_here(const char *value, const char *host)
{
    char *at = NULL;
    long pid = value ? strtol(value, &at, 10) : 0;

    return at && *at == '@' && pid > 0 && strcmp(at + 1, host) == 0 ? (pid_t)pid : 0;
}

/* This process's CPUs into cpus; how many. */
static size_t scm__my_cpus(int *cpus)
{
    cpu_set_t set;
    size_t n = 0;

    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof(set), &set) == 0)
        for (int c = 0; c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &set))
                cpus[n++] = c;
    return n;
}

static void *scm__prime_run(void *unused)
{
    (void)unused;
    int procfd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

    if (procfd < 0 || sc_sampler_sample(scm__prime.s, procfd, SC_SAMPLE_PRIME, scm__now_ns()) < 0) {
        sc_sampler_free(scm__prime.s); /* BEGIN then reads every task, as without a prime */
        scm__prime.s = NULL;
    }
    if (procfd >= 0)
        close(procfd);
    return NULL;
}

/* The prime's sampler (this process and, on this host, its observer as roots) and its thread;
   nothing when either cannot be made. */
static void scm__prime_start(void)
{
    char host[64] = "unknown";
    pid_t roots[2];
    size_t nroots = 0;

    if (gethostname(host, sizeof(host) - 1) != 0)
        snprintf(host, sizeof(host), "unknown");
    pid_t observer = scm__observer_here(getenv(SC_TRACE_OBSERVER_ENV), host);
    if (observer)
        roots[nroots++] = observer;
    roots[nroots++] = getpid();
    scm__prime.ncpus = scm__my_cpus(scm__prime.cpus);
    sc_sampler_opts o = {scm__prime.cpus, scm__prime.ncpus, roots, nroots, "rank", host, 0, true};
    scm__prime.s = sc_sampler_new(&o);
    if (scm__prime.s && pthread_create(&scm__prime.thread, NULL, scm__prime_run, NULL) == 0) {
        scm__prime.pid = getpid();
        return;
    }
    sc_sampler_free(scm__prime.s);
    scm__prime.s = NULL;
}

/* The primed sampler when this process primed one for the CPUs it has now (the thread
   joined); NULL otherwise (one for other CPUs is freed: a launcher that bound the rank
   later than its start). Once. */
static sc_sampler *scm__prime_take(const int *cpus, size_t ncpus)
{
    sc_sampler *s = NULL;

    if (scm__prime.pid != getpid())
        return NULL;
    pthread_join(scm__prime.thread, NULL);
    scm__prime.pid = 0;
    s = scm__prime.s;
    scm__prime.s = NULL;
    if (s && (ncpus != scm__prime.ncpus || memcmp(cpus, scm__prime.cpus, ncpus * sizeof(*cpus)))) {
        sc_sampler_free(s);
        s = NULL;
    }
    return s;
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
    scm__prime_start();
}

/* A sampler of rs's CPUs whose window opens now (0), or -errno; the old one is kept on error.
   primed (may be NULL): the sampler PRIME read, given rs's roots and source here; freed on
   error. */
static int scm__open(struct scm_rank_sampler *rs, sc_sampler *primed)
{
    long long now = scm__now_ns();
    sc_sampler *s = primed ? primed : sc_sampler_new(&rs->o);
    int rc = s ? 0 : -ENOMEM;

    for (size_t i = 0; primed && rc == 0 && i < rs->o.nroots; i++)
        rc = sc_sampler_add_root(s, rs->o.roots[i]);
    if (primed && rc == 0)
        rc = sc_sampler_set_source(s, rs->o.source);
    if (rc == 0)
        rc = sc_sampler_sample(s, rs->procfd, SC_SAMPLE_BEGIN, now);
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
    size_t nroots = 0;

    if (!rs)
        return NULL;
    pid_t observer = scm__observer_here(getenv(SC_TRACE_OBSERVER_ENV), all[rank].host);
    if (observer)
        rs->roots[nroots++] = observer;
    for (int r = 0; r < size && nroots < 66; r++)
        if (!strcmp(all[r].host, all[rank].host))
            rs->roots[nroots++] = (pid_t)all[r].pid;
    size_t ncpus = scm__my_cpus(rs->cpus);
    sc_sampler *primed = scm__prime_take(rs->cpus, ncpus);
    snprintf(rs->source, sizeof(rs->source), "rank%d", rank);
    snprintf(rs->host, sizeof(rs->host), "%s", all[rank].host);
    rs->o = (sc_sampler_opts){rs->cpus, ncpus, rs->roots, nroots, rs->source, rs->host, 0, true};
    rs->span = span;
    rs->procfd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (rs->procfd < 0 || scm__open(rs, primed) < 0) {
        if (rs->procfd < 0)
            sc_sampler_free(primed);
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
        rc = scm__open(rs, NULL);
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
