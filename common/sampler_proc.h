/*
 * sampler_proc.h: the interference sampler's reading of a /proc tree (sampler_proc.c), apart
 * from its accounting (sampler.c): tasks' stat lines, parsed; the stat files kept open
 * between samples; every task of the tree, or of the processes not seen before. Internal to
 * sc_sampler.
 */
#ifndef SC_SAMPLER_PROC_H
#define SC_SAMPLER_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define SC_PROC_FDS_MAX 256 /* stat files kept open between samples (sc_proc_fds) */

/* What one read of a task's stat file gives. */
typedef struct sc_proc_reading {
    pid_t tid, pid, ppid;
    unsigned long long start; /* starttime: tells a reused tid from the task it was */
    unsigned long long ticks; /* utime + stime */
    long threads;             /* num_threads: the process's thread count */
    int cpu;                  /* the CPU it last ran on */
    char state;
    char comm[16];
} sc_proc_reading;

/*
 * Tasks' stat files kept open between samples, by tid (sorted): re-reading one from its
 * start (pread) costs half of opening, reading and closing it (4.5 us against 10 on a 2-core
 * VM), and a sample reads every task, some while a workload waits. At most SC_PROC_FDS_MAX: the
 * process's file limit is not the sampler's to use up; the rest are opened each time. A
 * descriptor reads ESRCH once its task is gone (a tid used again is another task: opened
 * anew). dev and ino: the /proc tree they belong to (a sample of another tree drops them).
 */
typedef struct sc_proc_fds {
    pid_t tid[SC_PROC_FDS_MAX];
    int fd[SC_PROC_FDS_MAX];
    size_t n;
    dev_t dev;
    ino_t ino;
    bool keep_none; /* none kept: every stat file is read and closed (sc_sampler_opts.no_scans) */
} sc_proc_fds;

/* A process of one sample and whether it descends from a root (-1: not known yet). */
typedef struct sc_proc_entry {
    pid_t pid, ppid;
    int own;
} sc_proc_entry;

/* Copies n bytes of src (at most; up to its NUL) into dst, bytes outside '!'..'~' as '?': a
   record stays one line of words. An empty name becomes "?". */
void sc_proc_clean(char *dst, size_t len, const char *src, size_t n);

/* Reads a small file under dirfd into buf (NUL-terminated). Length, or -errno. */
ssize_t sc_proc_read_at(int dirfd, const char *rel, char *buf, size_t len);

/* The cache c, emptied when procfd is another tree than the one it was filled from. */
void sc_proc_fds_check_tree(sc_proc_fds *c, int procfd);

/* Closes every descriptor c keeps. */
void sc_proc_fds_close(sc_proc_fds *c);

/* qsort order of processes: by pid. */
int sc_proc_cmp(const void *a, const void *b);

/* The entry of pid in procs (n of them, sorted by pid), or NULL. */
sc_proc_entry *sc_proc_find(sc_proc_entry *procs, size_t n, pid_t pid);

/*
 * Every task under procfd, through the cache c. *rd malloc'd (n readings). With skip (the
 * processes an earlier sample saw, sorted by pid), a process found there as foreign is left
 * out: only own and new processes are read. 0 or -errno.
 */
int sc_proc_read_tasks(sc_proc_fds *c, int procfd, sc_proc_entry *skip, size_t nskip,
                       sc_proc_reading **rd, size_t *n);

#endif
