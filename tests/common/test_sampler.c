/*
 * test_sampler.c: the interference sampler over /proc trees written by the test (the files
 * and fields the kernel gives, three moments of one window), and once over the real /proc.
 * The records must hold exactly the deltas the trees imply: the job's own tasks (the
 * roots' process trees) with their CPU time, run_delay and context switches; every accounted
 * CPU's ticks; the foreign tasks that ran on an accounted CPU, named, most first.
 */
#include "sc_sampler.h"
#include "sc_test.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char g_root[64];

/* Writes ROOT/<moment>/<rel> (parents made). */
__attribute__((format(printf, 3, 4))) static void put(const char *moment, const char *rel,
                                                      const char *fmt, ...)
{
    char path[512], dir[512];
    va_list ap;

    snprintf(path, sizeof(path), "%s/%s/%s", g_root, moment, rel);
    for (char *p = path + strlen(g_root) + 1; (p = strchr(p, '/')); p++) {
        snprintf(dir, sizeof(dir), "%.*s", (int)(p - path), path);
        mkdir(dir, 0755);
    }
    FILE *f = fopen(path, "w");
    if (!f)
        return;
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    fclose(f);
}

/* The threads of process pid in the trees (num_threads of its tasks' stat): the workload
   (101) has two, every other process one. */
static int threads_of(int pid)
{
    return pid == 101 ? 2 : 1;
}

/* A task: its stat (state, ppid, utime+stime as utime, num_threads, starttime, processor),
   schedstat and status. */
static void task(const char *moment, int pid, int tid, const char *comm, char state, int ppid,
                 unsigned long long ticks, unsigned long long start, int cpu,
                 unsigned long long exec, unsigned long long delay, unsigned long long nvcsw,
                 const char *allowed)
{
    char rel[128];

    snprintf(rel, sizeof(rel), "%d/task/%d/stat", pid, tid);
    put(moment, rel,
        "%d (%s) %c %d %d %d 0 -1 4194304 100 0 0 0 %llu 0 0 0 20 0 %d 0 %llu 1000 100 "
        "18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 %d 0 0 0 0 0\n",
        tid, comm, state, ppid, pid, pid, ticks, threads_of(pid), start, cpu);
    snprintf(rel, sizeof(rel), "%d/task/%d/schedstat", pid, tid);
    put(moment, rel, "%llu %llu 42\n", exec, delay);
    snprintf(rel, sizeof(rel), "%d/task/%d/status", pid, tid);
    put(moment, rel,
        "Name:\t%s\nState:\t%c\nCpus_allowed_list:\t%s\nvoluntary_ctxt_switches:\t7\n"
        "nonvoluntary_ctxt_switches:\t%llu\n",
        comm, state, allowed, nvcsw);
}

static void cpus(const char *moment, unsigned long long user0, unsigned long long user1,
                 unsigned long long steal1)
{
    put(moment, "stat",
        "cpu  0 0 0 0 0 0 0 0 0 0\ncpu0 %llu 1 20 500 2 3 4 5 0 0\ncpu1 %llu 1 30 500 2 3 4 %llu "
        "0 0\ncpu2 9 9 9 9 9 9 9 9 0 0\nintr 12345 0 0\nctxt 1\n",
        user0, user1, steal1);
}

/*
 * The window: the observer (pid 100) runs the workload (101: threads 101 on CPU 0 and 102 on
 * CPU 1); "busy" (200, not the job's) spins on CPU 1; "sleepy" (300) wakes on CPU 0 now and
 * then; "late" (400) starts during the window on CPU 1; init (1) and a process on CPU 2
 * (500, not accounted) are around.
 */
static void write_trees(void)
{
    const char *m[3] = {"begin", "scan", "end"};
    for (int i = 0; i < 3; i++) {
        cpus(m[i], 1000 + 40 * i, 2000 + 50 * i, 5 + 3 * i);
        task(m[i], 1, 1, "init", 'S', 0, 10, 1, 2, 0, 0, 0, "0-2");
        task(m[i], 100, 100, "streamcard", 'S', 1, 5, 50, 2, 1000000 + 10 * i, 0, 0, "0-2");
        task(m[i], 101, 101, "streamcard-str", 'R', 100, 100 + 40 * i, 60, 0,
             5000000000ULL + 400000000ULL * i, 1000 + 2000000 * i, 3 + 2 * i, "0");
        task(m[i], 101, 102, "streamcard-str", 'R', 100, 100 + 25 * i, 60, 1,
             5000000000ULL + 250000000ULL * i, 1000 + 150000000ULL * i, 9 + 30 * i, "1");
        task(m[i], 200, 200, "busy", 'R', 1, 900 + 25 * i, 70, 1, 0, 0, 0, "1");
        task(m[i], 300, 300, "sleepy", i == 2 ? 'R' : 'S', 1, 30 + i, 80, 0, 0, 0, 0, "0-2");
        task(m[i], 500, 500, "other cpu", 'R', 1, 50 + 40 * i, 90, 2, 0, 0, 0, "2");
        if (i > 0) /* born in the window: all its ticks are the window's */
            task(m[i], 400, 400, "late\nTRACE_x", 'R', 1, 7 * i, 95, 1, 0, 0, 0, "0-2");
    }
}

/* The records, one line each, into a buffer. */
static int collect(void *ctx, const char *line)
{
    char *buf = ctx;
    size_t used = strlen(buf);

    snprintf(buf + used, 16384 - used, "%s\n", line);
    return 0;
}

static int open_moment(const char *moment)
{
    char path[256];

    snprintf(path, sizeof(path), "%s/%s", g_root, moment);
    return open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

/* The observer's sampler over CPUs 0 and 1 (root 100), the three moments open, a buffer for
   the records. */
static sc_sampler *observer_of_trees(int fds[3], char **out)
{
    const int acct[] = {0, 1};
    const pid_t roots[] = {100};
    sc_sampler_opts o = {acct, 2, roots, 1, "observer", "n01", 0, false};
    sc_sampler *s = sc_sampler_new(&o);

    *out = calloc(1, 16384);
    fds[0] = open_moment("begin");
    fds[1] = open_moment("scan");
    fds[2] = open_moment("end");
    return s;
}

static void done_with(sc_sampler *s, int fds[3], char *out)
{
    for (int i = 0; i < 3; i++)
        close(fds[i]);
    free(out);
    sc_sampler_free(s);
}

static void test_window(void)
{
    int fds[3];
    char *out;
    sc_sampler *s = observer_of_trees(fds, &out);

    SC_CHECK(s && out && fds[0] >= 0 && fds[1] >= 0 && fds[2] >= 0);
    SC_CHECK_INT_EQ(sc_sampler_records(s, collect, out), -EAGAIN);
    SC_CHECK_INT_EQ(sc_sampler_sample(s, fds[1], SC_SAMPLE_SCAN, 1), -EINVAL); /* BEGIN first */
    SC_CHECK_INT_EQ(sc_sampler_sample(s, fds[0], SC_SAMPLE_BEGIN, 1000000000LL), 0);
    SC_CHECK(sc_sampler_next_scan(s) >= 1100000000LL); /* at least 100 ms later */
    SC_CHECK_INT_EQ(sc_sampler_sample(s, fds[1], SC_SAMPLE_SCAN, 1500000000LL), 0);
    SC_CHECK_INT_EQ(sc_sampler_sample(s, fds[2], SC_SAMPLE_END, 3000000000LL), 0);
    SC_CHECK_INT_EQ(sc_sampler_next_scan(s), 0);
    SC_CHECK_INT_EQ(sc_sampler_records(s, collect, out), 0);
    /* 2 s, one scan between begin and end */
    SC_CHECK_STR_CONTAINS(out, "TRACE_INTERFERENCE_WINDOW source=observer host=n01 "
                               "ns=2000000000 clk_tck=");
    SC_CHECK_STR_CONTAINS(out, " scans=1 ");
    /* CPU ticks: end - begin; CPU 2 is not accounted */
    SC_CHECK_STR_CONTAINS(out, "TRACE_INTERFERENCE_CPU source=observer cpu=0 user=80 nice=0 "
                               "system=0 idle=0 iowait=0 irq=0 softirq=0 steal=0\n");
    SC_CHECK_STR_CONTAINS(out, "TRACE_INTERFERENCE_CPU source=observer cpu=1 user=100 nice=0 "
                               "system=0 idle=0 iowait=0 irq=0 softirq=0 steal=6\n");
    SC_CHECK(!strstr(out, "cpu=2 user"));
    /* own tasks: the observer and both workload threads, deltas end - begin */
    SC_CHECK_STR_CONTAINS(out, "TRACE_INTERFERENCE_TASK source=observer tid=101 pid=101 "
                               "exec_ns=800000000 run_delay_ns=4000000 nvcsw=4 allowed=0 "
                               "comm=streamcard-str\n");
    SC_CHECK_STR_CONTAINS(out, "tid=102 pid=101 exec_ns=500000000 run_delay_ns=300000000 "
                               "nvcsw=60 allowed=1 comm=streamcard-str\n");
    SC_CHECK_STR_CONTAINS(out, "tid=100 pid=100 exec_ns=20 run_delay_ns=0 nvcsw=0 allowed=0-2");
    SC_CHECK(!strstr(out, "TASK source=observer tid=200"));
    SC_CHECK(!strstr(out, "TASK source=observer tid=1 "));
    /* intruders of CPU 1: busy (50 ticks, runnable at the scan and at the end), then late,
       born in the window (14 ticks), its name cleaned of the newline */
    SC_CHECK_STR_CONTAINS(out, "TRACE_INTERFERENCE_INTRUDER source=observer cpu=1 pid=200 "
                               "tid=200 ticks=50 seen=2 comm=busy\n"
                               "TRACE_INTERFERENCE_INTRUDER source=observer cpu=1 pid=400 "
                               "tid=400 ticks=14 seen=2 comm=late?TRACE_x\n");
    /* CPU 0: sleepy, 2 ticks, runnable once; nothing of CPU 2's process */
    SC_CHECK_STR_CONTAINS(out, "cpu=0 pid=300 tid=300 ticks=2 seen=1 comm=sleepy\n");
    SC_CHECK(!strstr(out, "pid=500"));
    done_with(s, fds, out);
}

/*
 * PRIME at the first moment, BEGIN at the second, END at the third: BEGIN reads the CPU times
 * and the own tasks (their baselines are the second moment's) and the process born since
 * PRIME ("late"), and skips the foreign ones PRIME saw, so "busy" counts from PRIME.
 */
static void test_prime(void)
{
    int fds[3];
    char *out;
    sc_sampler *s = observer_of_trees(fds, &out);

    SC_CHECK(s && out && fds[0] >= 0 && fds[1] >= 0 && fds[2] >= 0);
    SC_CHECK_INT_EQ(sc_sampler_sample(s, fds[0], SC_SAMPLE_PRIME, 1), 0);
    SC_CHECK_INT_EQ(sc_sampler_next_scan(s), 0);                                /* no window yet */
    SC_CHECK_INT_EQ(sc_sampler_sample(s, fds[0], SC_SAMPLE_PRIME, 2), -EINVAL); /* once */
    SC_CHECK_INT_EQ(sc_sampler_sample(s, fds[1], SC_SAMPLE_BEGIN, 1000000000LL), 0);
    SC_CHECK_INT_EQ(sc_sampler_sample(s, fds[1], SC_SAMPLE_PRIME, 2), -EINVAL); /* before only */
    SC_CHECK(sc_sampler_next_scan(s) >= 1100000000LL);
    SC_CHECK_INT_EQ(sc_sampler_sample(s, fds[2], SC_SAMPLE_END, 1500000000LL), 0);
    SC_CHECK_INT_EQ(sc_sampler_records(s, collect, out), 0);
    SC_CHECK_STR_CONTAINS(out, " ns=500000000 ");
    SC_CHECK_STR_CONTAINS(out, " scans=0 ");
    /* the CPU times and the own tasks: end - BEGIN's moment */
    SC_CHECK_STR_CONTAINS(out, "cpu=0 user=40 nice=0 ");
    SC_CHECK_STR_CONTAINS(out, "cpu=1 user=50 nice=0 system=0 idle=0 iowait=0 irq=0 softirq=0 "
                               "steal=3\n");
    SC_CHECK_STR_CONTAINS(out, "tid=101 pid=101 exec_ns=400000000 run_delay_ns=2000000 nvcsw=2 ");
    SC_CHECK_STR_CONTAINS(out, "tid=102 pid=101 exec_ns=250000000 run_delay_ns=150000000 "
                               "nvcsw=30 ");
    /* busy from PRIME (950 - 900), late from BEGIN (14 - 7) */
    SC_CHECK_STR_CONTAINS(out, "cpu=1 pid=200 tid=200 ticks=50 seen=1 comm=busy\n");
    SC_CHECK_STR_CONTAINS(out, "cpu=1 pid=400 tid=400 ticks=7 seen=1 ");
    done_with(s, fds, out);
}

/*
 * A root added after PRIME (srun's ranks, which are not the observer's descendants): "busy"
 * (200), seen by PRIME as foreign on CPU 1, is the job's own from BEGIN on: its task is in
 * the records with its CPU time, not among the intruders. Roots are added only before the
 * window opens.
 */
static void test_added_root(void)
{
    int fds[3];
    char *out;
    sc_sampler *s = observer_of_trees(fds, &out);

    SC_CHECK(s && out && fds[0] >= 0 && fds[1] >= 0 && fds[2] >= 0);
    SC_CHECK_INT_EQ(sc_sampler_add_root(s, 0), -EINVAL);
    SC_CHECK_INT_EQ(sc_sampler_sample(s, fds[0], SC_SAMPLE_PRIME, 1), 0);
    SC_CHECK_INT_EQ(sc_sampler_add_root(s, 200), 0);
    SC_CHECK_INT_EQ(sc_sampler_add_root(s, 200), 0); /* once is enough */
    SC_CHECK_INT_EQ(sc_sampler_sample(s, fds[1], SC_SAMPLE_BEGIN, 1000000000LL), 0);
    SC_CHECK_INT_EQ(sc_sampler_add_root(s, 300), -EINVAL); /* the window is open */
    SC_CHECK_INT_EQ(sc_sampler_sample(s, fds[2], SC_SAMPLE_END, 1500000000LL), 0);
    SC_CHECK_INT_EQ(sc_sampler_records(s, collect, out), 0);
    SC_CHECK_STR_CONTAINS(out, "tid=200 pid=200 exec_ns=0 run_delay_ns=0 nvcsw=0 allowed=1 "
                               "comm=busy\n");
    SC_CHECK(!strstr(out, "INTRUDER source=observer cpu=1 pid=200 "));
    SC_CHECK_STR_CONTAINS(out, "cpu=1 pid=400 tid=400 ticks=7 seen=1 "); /* still foreign */
    SC_CHECK(!strstr(out, "pid=300 exec_ns")); /* refused: not the job's */
    done_with(s, fds, out);
}

/*
 * BEGIN at the first moment, END_OWN at the second, NAMES at the third: the window's CPU
 * times and own tasks end at the second moment (END_OWN skips "busy", seen by BEGIN, and
 * reads "late", born since); NAMES adds the foreign CPU time up to the third.
 */
static void test_end_own(void)
{
    int fds[3];
    char *out;
    sc_sampler *s = observer_of_trees(fds, &out);

    SC_CHECK(s && out && fds[0] >= 0 && fds[1] >= 0 && fds[2] >= 0);
    SC_CHECK_INT_EQ(sc_sampler_sample(s, fds[0], SC_SAMPLE_BEGIN, 1000000000LL), 0);
    SC_CHECK_INT_EQ(sc_sampler_sample(s, fds[1], SC_SAMPLE_NAMES, 1), -EINVAL); /* END_OWN first */
    SC_CHECK_INT_EQ(sc_sampler_sample(s, fds[1], SC_SAMPLE_END_OWN, 1250000000LL), 0);
    SC_CHECK_INT_EQ(sc_sampler_next_scan(s), 0);
    SC_CHECK_INT_EQ(sc_sampler_sample(s, fds[1], SC_SAMPLE_END, 1), -EINVAL); /* closed */
    SC_CHECK_INT_EQ(sc_sampler_records(s, collect, out), 0); /* complete, fewer names */
    SC_CHECK_STR_CONTAINS(out, " ns=250000000 ");
    SC_CHECK_STR_CONTAINS(out, "cpu=1 pid=400 tid=400 ticks=7 seen=1 ");
    SC_CHECK(!strstr(out, "pid=200"));
    out[0] = '\0';
    SC_CHECK_INT_EQ(sc_sampler_sample(s, fds[2], SC_SAMPLE_NAMES, 3000000000LL), 0);
    SC_CHECK_INT_EQ(sc_sampler_sample(s, fds[2], SC_SAMPLE_NAMES, 1), -EINVAL); /* once */
    SC_CHECK_INT_EQ(sc_sampler_records(s, collect, out), 0);
    SC_CHECK_STR_CONTAINS(out, " ns=250000000 "); /* the window ended at END_OWN */
    SC_CHECK_STR_CONTAINS(out, "cpu=0 user=40 nice=0 ");
    SC_CHECK_STR_CONTAINS(out, "tid=101 pid=101 exec_ns=400000000 run_delay_ns=2000000 nvcsw=2 ");
    SC_CHECK_STR_CONTAINS(out, "cpu=1 pid=200 tid=200 ticks=50 seen=1 comm=busy\n");
    SC_CHECK_STR_CONTAINS(out, "cpu=1 pid=400 tid=400 ticks=14 seen=2 ");
    done_with(s, fds, out);
}

/* A window of two moments, BEGIN and END, without a scan between: its records into out.
   0, or the first failure. */
static int begin_end(sc_sampler *s, const char *m0, const char *m1, char *out)
{
    int a = open_moment(m0), b = open_moment(m1);
    int rc = a < 0 || b < 0 ? -ENOENT : sc_sampler_sample(s, a, SC_SAMPLE_BEGIN, 0);

    if (rc == 0)
        rc = sc_sampler_sample(s, b, SC_SAMPLE_END, 10);
    if (rc == 0)
        rc = sc_sampler_records(s, collect, out);
    if (a >= 0)
        close(a);
    if (b >= 0)
        close(b);
    return rc;
}

/*
 * One tree sampled twice, its files rewritten in place between the samples (as /proc's are
 * for every read): the stat files the sampler keeps open are read again from their start,
 * so the second sample sees the new figures.
 */
static void test_same_tree(void)
{
    const int acct[] = {0};
    const pid_t roots[] = {100};
    sc_sampler_opts o = {acct, 1, roots, 1, "observer", "n03", 0, false};
    sc_sampler *s = sc_sampler_new(&o);
    char *out = calloc(1, 16384);

    SC_CHECK(s && out);
    cpus("same", 0, 0, 0);
    task("same", 800, 800, "hog", 'R', 1, 100, 30, 0, 0, 0, 0, "0");
    int fd = open_moment("same");
    SC_CHECK(fd >= 0);
    SC_CHECK_INT_EQ(sc_sampler_sample(s, fd, SC_SAMPLE_BEGIN, 0), 0);
    cpus("same", 20, 0, 0);
    task("same", 800, 800, "hog", 'R', 1, 117, 30, 0, 0, 0, 0, "0");
    SC_CHECK_INT_EQ(sc_sampler_sample(s, fd, SC_SAMPLE_END, 10), 0);
    SC_CHECK_INT_EQ(sc_sampler_records(s, collect, out), 0);
    SC_CHECK_STR_CONTAINS(out, "cpu=0 pid=800 tid=800 ticks=17 seen=1 comm=hog\n");
    close(fd);
    free(out);
    sc_sampler_free(s);
}

/*
 * sc_sampler_quiet(): the workload (101, pinned, not a root) ran 0.7 s on CPUs 0 and 1 and
 * the CPUs' ticks show 0.7 s: quiet, nothing to name. Then 0.5 s more busy ticks than the
 * workload ran (a hog), and then steal time: not quiet.
 */
static void test_quiet(void)
{
    const int acct[] = {0, 1};
    const pid_t roots[] = {100};
    sc_sampler_opts o = {acct, 2, roots, 1, "observer", "n04", 0, false};
    /* CPU 0 user, CPU 1 user, CPU 1 steal at the window's end; quiet or not */
    const unsigned long long end[3][3] = {{40, 34, 0}, {80, 44, 0}, {40, 34, 1}};
    const bool quiet[3] = {true, false, false};

    for (int c = 0; c < 3; c++) {
        sc_sampler *s = sc_sampler_new(&o);
        char moment[16];
        SC_CHECK(s != NULL);
        snprintf(moment, sizeof(moment), "quiet%d", c);
        cpus(moment, 0, 0, 0);
        task(moment, 100, 100, "streamcard", 'S', 1, 5, 50, 0, 1000000000ULL, 0, 0, "0-1");
        task(moment, 101, 101, "work", 'R', 100, 0, 60, 0, 0, 0, 0, "0");
        task(moment, 101, 102, "work", 'R', 100, 0, 60, 1, 0, 0, 0, "1");
        int fd = open_moment(moment);
        SC_CHECK(fd >= 0);
        SC_CHECK_INT_EQ(sc_sampler_sample(s, fd, SC_SAMPLE_BEGIN, 0), 0);
        SC_CHECK(!sc_sampler_quiet(s)); /* not closed yet */
        cpus(moment, end[c][0], end[c][1], end[c][2]);
        /* the observer's own second (a root) does not count for the workload */
        task(moment, 100, 100, "streamcard", 'S', 1, 5, 50, 0, 2000000000ULL, 0, 0, "0-1");
        task(moment, 101, 101, "work", 'R', 100, 40, 60, 0, 400000000ULL, 0, 0, "0");
        task(moment, 101, 102, "work", 'R', 100, 30, 60, 1, 300000000ULL, 0, 0, "1");
        SC_CHECK_INT_EQ(sc_sampler_sample(s, fd, SC_SAMPLE_END_OWN, 10), 0);
        if (sc_sampler_quiet(s) != quiet[c])
            SC_CHECK(!"sc_sampler_quiet() gave the other answer");
        close(fd);
        sc_sampler_free(s);
    }
}

/* The records' source named after PRIME (a rank learns its number after MPI_Init), not
   once the window is open. */
static void test_set_source(void)
{
    int fds[3];
    char *out;
    sc_sampler *s = observer_of_trees(fds, &out);

    SC_CHECK(s && out && fds[0] >= 0 && fds[1] >= 0 && fds[2] >= 0);
    SC_CHECK_INT_EQ(sc_sampler_sample(s, fds[0], SC_SAMPLE_PRIME, 1), 0);
    SC_CHECK_INT_EQ(sc_sampler_set_source(s, "rank 3"), 0);
    SC_CHECK_INT_EQ(sc_sampler_sample(s, fds[1], SC_SAMPLE_BEGIN, 1000000000LL), 0);
    SC_CHECK_INT_EQ(sc_sampler_set_source(s, "rank4"), -EINVAL);
    SC_CHECK_INT_EQ(sc_sampler_sample(s, fds[2], SC_SAMPLE_END, 1500000000LL), 0);
    SC_CHECK_INT_EQ(sc_sampler_records(s, collect, out), 0);
    SC_CHECK_STR_CONTAINS(out, "TRACE_INTERFERENCE_WINDOW source=rank?3 ");
    SC_CHECK(!strstr(out, "source=observer") && !strstr(out, "rank4"));
    done_with(s, fds, out);
}

/* A reused tid (another starttime) is another task: its ticks are not the old one's. */
static void test_reused_tid(void)
{
    const int acct[] = {0};
    const pid_t roots[] = {100};
    sc_sampler_opts o = {acct, 1, roots, 1, "rank1", "n02", 1, false};
    sc_sampler *s = sc_sampler_new(&o);
    char *out = calloc(1, 16384);

    SC_CHECK(s && out);
    cpus("reuse0", 0, 0, 0);
    cpus("reuse1", 10, 10, 0);
    task("reuse0", 700, 700, "old", 'S', 1, 1000, 10, 0, 0, 0, 0, "0");
    task("reuse1", 700, 700, "new", 'R', 1, 3, 20, 0, 0, 0, 0, "0");
    SC_CHECK_INT_EQ(begin_end(s, "reuse0", "reuse1", out), 0);
    SC_CHECK_STR_CONTAINS(out, "source=rank1 cpu=0 pid=700 tid=700 ticks=3 seen=1 comm=new\n");
    SC_CHECK(!strstr(out, "comm=old")); /* one intruder named per CPU here */
    free(out);
    sc_sampler_free(s);
}

/* /proc/stat's first line sums every CPU ("cpu  3 ..."): it is no CPU's line, not even that
   of accounted CPU 3, offline at both ends (no line of its own): CPU 3 has no record. */
static void test_offline_cpu(void)
{
    const int acct[] = {0, 3};
    const pid_t roots[] = {100};
    sc_sampler_opts o = {acct, 2, roots, 1, "observer", "n03", 0, false};
    sc_sampler *s = sc_sampler_new(&o);
    char *out = calloc(1, 16384);

    SC_CHECK(s && out);
    put("offline0", "stat", "cpu  3 1 1 1 1 1 1 1 0 0\ncpu0 1 0 0 0 0 0 0 0 0 0\n");
    put("offline1", "stat", "cpu  3 9 9 9 9 9 9 9 0 0\ncpu0 5 0 0 0 0 0 0 0 0 0\n");
    task("offline0", 100, 100, "streamcard", 'R', 1, 1, 10, 0, 0, 0, 0, "0");
    task("offline1", 100, 100, "streamcard", 'R', 1, 2, 10, 0, 0, 0, 0, "0");
    SC_CHECK_INT_EQ(begin_end(s, "offline0", "offline1", out), 0);
    SC_CHECK_STR_CONTAINS(out, "TRACE_INTERFERENCE_CPU source=observer cpu=0 user=4 nice=0 ");
    SC_CHECK_MSG(!strstr(out, "cpu=3 user"), "the sum of all CPUs read as CPU 3's:\n%s", out);
    SC_CHECK(!strstr(out, " forks=")); /* no "processes" line: not recorded */
    free(out);
    sc_sampler_free(s);
}

/* /proc/stat's "processes" counter at both ends: the processes started on the host in the
   window, appended to the window's record (a process that came and went between two samples
   is counted there); a /proc/stat without it (older fixtures, above) gives no forks=. */
static void test_forks(void)
{
    const int acct[] = {0};
    const pid_t roots[] = {100};
    sc_sampler_opts o = {acct, 1, roots, 1, "observer", "n05", 0, false};
    sc_sampler *s = sc_sampler_new(&o);
    char *out = calloc(1, 16384);

    SC_CHECK(s && out);
    put("forks0", "stat",
        "cpu  1 0 0 0 0 0 0 0 0 0\ncpu0 1 0 0 0 0 0 0 0 0 0\nintr 7 0 1\nctxt 90\n"
        "btime 1700000000\nprocesses 1200\nprocs_running 1\n");
    put("forks1", "stat",
        "cpu  9 0 0 0 0 0 0 0 0 0\ncpu0 9 0 0 0 0 0 0 0 0 0\nintr 9 0 1\nctxt 99\n"
        "btime 1700000000\nprocesses 1203\nprocs_running 1\n");
    task("forks0", 100, 100, "streamcard", 'R', 1, 1, 10, 0, 0, 0, 0, "0");
    task("forks1", 100, 100, "streamcard", 'R', 1, 9, 10, 0, 0, 0, 0, "0");
    SC_CHECK_INT_EQ(begin_end(s, "forks0", "forks1", out), 0);
    SC_CHECK_STR_CONTAINS(out, " tasks=1 forks=3\n");
    free(out);
    sc_sampler_free(s);
}

/* A sampler of the real /proc: this process its root, the CPU it runs on accounted, a
   buffer for the records. */
typedef struct real_sampler {
    int cpu, procfd;
    char *out;
    sc_sampler *s;
} real_sampler;

static void real_open(real_sampler *r)
{
    const pid_t roots[] = {getpid()};

    r->cpu = sched_getcpu();
    sc_sampler_opts o = {&r->cpu, 1, roots, 1, "observer", "here", 0, false};
    r->s = sc_sampler_new(&o);
    r->out = calloc(1, 1 << 20);
    r->procfd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

static bool real_ok(const real_sampler *r)
{
    return r->s && r->out && r->procfd >= 0 && r->cpu >= 0;
}

static void real_close(real_sampler *r)
{
    if (r->procfd >= 0)
        close(r->procfd);
    free(r->out);
    sc_sampler_free(r->s);
}

/* The descriptors this process has open (its /proc/self/fd entries, the listing's own
   included). */
static int open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    int n = 0;

    for (struct dirent *de; d && (de = readdir(d));)
        n += de->d_name[0] != '.';
    if (d)
        closedir(d);
    return n;
}

/* The real /proc, PRIME and a window: a sampler that takes no scans (an MPI rank's) keeps no
   stat file open; one that scans keeps them (the real /proc has more than one task). */
static void test_real_no_scans(void)
{
    const pid_t roots[] = {getpid()};
    int cpu = sched_getcpu(), procfd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);

    SC_CHECK(procfd >= 0 && cpu >= 0);
    for (int no_scans = 0; procfd >= 0 && no_scans < 2; no_scans++) {
        sc_sampler_opts o = {&cpu, 1, roots, 1, "rank0", "here", 0, no_scans == 1};
        sc_sampler *s = sc_sampler_new(&o);
        int before = open_fds();
        SC_CHECK(s != NULL);
        SC_CHECK_INT_EQ(sc_sampler_sample(s, procfd, SC_SAMPLE_PRIME, 1), 0);
        SC_CHECK_INT_EQ(sc_sampler_sample(s, procfd, SC_SAMPLE_BEGIN, 2), 0);
        SC_CHECK_INT_EQ(sc_sampler_sample(s, procfd, SC_SAMPLE_END_OWN, 3), 0);
        if (no_scans)
            SC_CHECK_INT_EQ(open_fds(), before);
        else
            SC_CHECK_MSG(open_fds() > before + 1, "%d descriptors kept", open_fds() - before);
        sc_sampler_free(s);
        SC_CHECK_INT_EQ(open_fds(), before);
    }
    if (procfd >= 0)
        close(procfd);
}

/* The real /proc: a child that starts and ends inside the window is never read as a task,
   but the window's record counts it (forks= at least 1: other processes of the host may
   start too). */
static void test_real_forks(void)
{
    real_sampler r;
    unsigned long long forks = 0;

    real_open(&r);
    SC_CHECK(real_ok(&r));
    SC_CHECK_INT_EQ(sc_sampler_sample(r.s, r.procfd, SC_SAMPLE_BEGIN, 0), 0);
    pid_t child = fork();
    if (child == 0)
        _exit(0);
    SC_CHECK(child > 0 && waitpid(child, NULL, 0) == child);
    SC_CHECK_INT_EQ(sc_sampler_sample(r.s, r.procfd, SC_SAMPLE_END, 1), 0);
    SC_CHECK_INT_EQ(sc_sampler_records(r.s, collect, r.out), 0);
    const char *at = strstr(r.out, " forks=");
    SC_CHECK_MSG(at && sscanf(at, " forks=%llu", &forks) == 1 && forks >= 1,
                 "no forks=N >= 1 in the window's record:\n%.300s", r.out);
    real_close(&r);
}

/* The real /proc: this process is its own root, its thread is an own task with the CPUs it
   may use; the CPU it runs on has a record. */
static void test_real_proc(void)
{
    real_sampler r;
    char want[128];
    struct timespec t;
    volatile double x = 0;

    real_open(&r);
    sc_sampler *s = r.s;
    char *out = r.out;
    int procfd = r.procfd, cpu = r.cpu;
    SC_CHECK(real_ok(&r));
    clock_gettime(CLOCK_MONOTONIC, &t);
    SC_CHECK_INT_EQ(sc_sampler_sample(s, procfd, SC_SAMPLE_BEGIN, t.tv_sec * 1000000000LL), 0);
    for (int i = 0; i < 5000000; i++)
        x += i;
    (void)x; /* the loop is the point: CPU time for the sampler */
    SC_CHECK_INT_EQ(sc_sampler_sample(s, procfd, SC_SAMPLE_END, t.tv_sec * 1000000000LL + 1), 0);
    SC_CHECK_INT_EQ(sc_sampler_records(s, collect, out), 0);
    snprintf(want, sizeof(want), "TRACE_INTERFERENCE_TASK source=observer tid=%d pid=%d ",
             (int)getpid(), (int)getpid());
    SC_CHECK_STR_CONTAINS(out, want);
    snprintf(want, sizeof(want), "TRACE_INTERFERENCE_CPU source=observer cpu=%d ", cpu);
    SC_CHECK_STR_CONTAINS(out, want);
    real_close(&r);
}

static void *sc__wait_thread(void *arg)
{
    int *fd = arg;
    char byte;

    while (read(fd[0], &byte, 1) < 0 && errno == EINTR)
        ;
    return NULL;
}

/* The real /proc with a process of two threads: both are read (the main thread's stat says
   there are two, so the task directory is listed), each an own task. */
static void test_real_threads(void)
{
    real_sampler r;
    int fd[2];
    char want[128];
    pthread_t th;
    pid_t tid = 0;

    real_open(&r);
    sc_sampler *s = r.s;
    char *out = r.out;
    int procfd = r.procfd;
    SC_CHECK(real_ok(&r) && pipe(fd) == 0);
    SC_CHECK_INT_EQ(pthread_create(&th, NULL, sc__wait_thread, fd), 0);
    /* its tid: the task directory's other entry */
    for (int tries = 0; !tid && tries < 1000; tries++) {
        DIR *d = opendir("/proc/self/task");
        struct dirent *de;
        while (d && (de = readdir(d)))
            if (de->d_name[0] >= '0' && de->d_name[0] <= '9' && atoi(de->d_name) != getpid())
                tid = (pid_t)atoi(de->d_name);
        if (d)
            closedir(d);
    }
    SC_CHECK(tid > 0);
    SC_CHECK_INT_EQ(sc_sampler_sample(s, procfd, SC_SAMPLE_BEGIN, 0), 0);
    SC_CHECK_INT_EQ(sc_sampler_sample(s, procfd, SC_SAMPLE_END, 1), 0);
    SC_CHECK_INT_EQ(sc_sampler_records(s, collect, out), 0);
    snprintf(want, sizeof(want), "TRACE_INTERFERENCE_TASK source=observer tid=%d pid=%d ",
             (int)getpid(), (int)getpid());
    SC_CHECK_STR_CONTAINS(out, want);
    snprintf(want, sizeof(want), "TRACE_INTERFERENCE_TASK source=observer tid=%d pid=%d ", (int)tid,
             (int)getpid());
    SC_CHECK_STR_CONTAINS(out, want);
    SC_CHECK(write(fd[1], "x", 1) == 1);
    pthread_join(th, NULL);
    close(fd[0]);
    close(fd[1]);
    real_close(&r);
}

/* What a burning thread reports: its tid and the CPU time it burned. */
typedef struct burn {
    pid_t tid;
    double burned;
} burn_report;

static void *sc__burn_thread(void *arg)
{
    struct timespec t;
    burn_report *b = arg;
    volatile double x = 0;

    b->tid = (pid_t)syscall(SYS_gettid);
    do {
        for (int i = 0; i < 100000; i++)
            x += i;
        (void)x;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    } while (t.tv_sec == 0 && t.tv_nsec < 30000000);
    b->burned = (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
    return NULL;
}

static volatile int g_spin;

/* Spins until g_spin is 0: a thread that lives through the whole window. */
static void *sc__spin_thread(void *arg)
{
    volatile double x = 0;

    (void)arg;
    while (g_spin)
        for (int i = 0; i < 10000; i++)
            x += i;
    (void)x;
    return NULL;
}

/* One window on the real /proc with a thread spinning through it and, when burn, a thread
   burning 30 ms that starts after BEGIN and ends before END: *exited, the EXITED time, or 0. */
static void exited_window(bool burn, double *burned, unsigned long long *exited)
{
    real_sampler r;
    char want[128];
    pthread_t spin, th;

    *exited = 0;
    real_open(&r);
    sc_sampler *s = r.s;
    char *out = r.out;
    int procfd = r.procfd;
    SC_CHECK(real_ok(&r));
    g_spin = 1;
    SC_CHECK_INT_EQ(pthread_create(&spin, NULL, sc__spin_thread, NULL), 0);
    SC_CHECK_INT_EQ(sc_sampler_sample(s, procfd, SC_SAMPLE_BEGIN, 0), 0);
    if (burn) {
        burn_report b = {0, 0};
        char task[64];
        SC_CHECK_INT_EQ(pthread_create(&th, NULL, sc__burn_thread, &b), 0);
        pthread_join(th, NULL);
        *burned = b.burned;
        /* pthread_join returns when the thread clears its tid, which can be before the
           kernel drops its task directory (under qemu-user by milliseconds): the window
           ends once it is gone, as the case means. */
        snprintf(task, sizeof(task), "/proc/self/task/%d", (int)b.tid);
        for (int tries = 0; access(task, F_OK) == 0 && tries < 2000; tries++)
            nanosleep(&(struct timespec){0, 1000000}, NULL);
        SC_CHECK_MSG(access(task, F_OK) != 0, "%s still there 2 s after the join", task);
    } else {
        nanosleep(&(struct timespec){0, 30000000}, NULL);
    }
    SC_CHECK_INT_EQ(sc_sampler_sample(s, procfd, SC_SAMPLE_END, 1), 0);
    g_spin = 0;
    pthread_join(spin, NULL);
    SC_CHECK_INT_EQ(sc_sampler_records(s, collect, out), 0);
    snprintf(want, sizeof(want),
             "TRACE_INTERFERENCE_EXITED source=observer pid=%d exec_ns=", (int)getpid());
    const char *line = strstr(out, want);
    if (line)
        *exited = strtoull(line + strlen(want), NULL, 10);
    SC_CHECK_MSG(!burn || line, "no EXITED record in:\n%s", out);
    real_close(&r);
}

/*
 * The real /proc: a thread of this process that starts after BEGIN and ends before END is
 * never read as a task; its CPU time comes from the process's CPU clock, as EXITED, less the
 * time of the tasks that were read (a thread spinning through the window, 30 ms or more: it
 * must not count). Give or take what a schedstat read misses of a running thread's time
 * (brought up to date at the scheduler's tick): 20 ms. Without a thread ending, no EXITED
 * beyond that.
 */
static void test_real_exited(void)
{
    double burned = 0;
    unsigned long long exited;

    exited_window(true, &burned, &exited);

    SC_CHECK_MSG(exited >= burned / 2 && exited < burned + 20e6,
                 "EXITED %llu ns, the ended thread burned %.0f", exited, burned);
    exited_window(false, &burned, &exited);
    SC_CHECK_MSG(exited < 20000000ull, "EXITED %llu ns without a thread ending", exited);
}

int main(void)
{
    snprintf(g_root, sizeof(g_root), "/tmp/sc-sampler-XXXXXX");
    if (!mkdtemp(g_root))
        return 1;
    write_trees();
    SC_TEST_RUN(test_window);
    SC_TEST_RUN(test_prime);
    SC_TEST_RUN(test_end_own);
    SC_TEST_RUN(test_added_root);
    SC_TEST_RUN(test_set_source);
    SC_TEST_RUN(test_reused_tid);
    SC_TEST_RUN(test_same_tree);
    SC_TEST_RUN(test_quiet);
    SC_TEST_RUN(test_offline_cpu);
    SC_TEST_RUN(test_forks);
    SC_TEST_RUN(test_real_proc);
    SC_TEST_RUN(test_real_no_scans);
    SC_TEST_RUN(test_real_forks);
    SC_TEST_RUN(test_real_threads);
    SC_TEST_RUN(test_real_exited);
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", g_root);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", g_root);
    return sc_test_failures ? 1 : 0;
}
