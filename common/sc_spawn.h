/*
 * sc_spawn.h: run a program to its end and keep what it prints on stdout. The one
 * spawn-and-capture of the tree: the `streamcard` command asks sbatch --wait and a
 * workload's --build-info (started early, collected later: sc_spawn_start/collect);
 * streamcard-pingpong asks fi_info, before MPI_Init (forking an MPI process after MPI_Init is
 * unsafe with some transports: registered memory, verbs).
 */
#ifndef SC_SPAWN_H
#define SC_SPAWN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* How to run it; a zeroed struct (or NULL) means: no deadline, 1 MiB, inherit. */
typedef struct sc_spawn_opts {
    int timeout_ms;   /* killed (SIGKILL) when still printing after this; 0: no deadline */
    size_t max_bytes; /* the most stdout kept, more is an error; 0: SC_SPAWN_MAX_BYTES */
    bool quiet;       /* stdin and stderr on /dev/null; otherwise this process's */
} sc_spawn_opts;

#define SC_SPAWN_MAX_BYTES ((size_t)1 << 20)

/*
 * Runs argv[0] (a path, or a name looked up in PATH) with argv and this process's
 * environment, to its end, collecting its stdout. Returns 0 when it exited 0;
 * -ECHILD when it ran and exited otherwise or was killed by a signal; -ENOENT when the
 * program is not there (exit 127 too, a shell's "not found"); -ETIMEDOUT when the
 * deadline killed it; -EFBIG when it printed more than max_bytes; another -errno
 * otherwise. *out is what it printed (malloc'ed, NUL-terminated) after 0 and -ECHILD (what
 * a failing program said is often the point), and NULL after any other result.
 */
int sc_spawn_capture(char *const argv[], const sc_spawn_opts *opts, char **out);

/*
 * sc_spawn_capture() in two steps, so that the caller works while the program runs:
 * sc_spawn_start() starts it (a deadline counts from here), sc_spawn_collect() reads what
 * it prints and waits for its end, with sc_spawn_capture()'s results. Every started
 * program must be collected; collecting one that did not start returns -ECHILD.
 */
typedef struct sc_spawned {
    pid_t pid; /* -1: nothing started */
    int out_fd;
    long long deadline; /* CLOCK_MONOTONIC milliseconds; 0: none */
    size_t max_bytes;
} sc_spawned;
int sc_spawn_start(char *const argv[], const sc_spawn_opts *opts, sc_spawned *child);
int sc_spawn_collect(sc_spawned *child, char **out);

#endif
