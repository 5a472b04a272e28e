/*
 * sc_snapshot.h: snapshots of a running process (internal to the observer, shared with
 * tests): its threads with the CPU each last ran on.
 */
#ifndef SC_SNAPSHOT_H
#define SC_SNAPSHOT_H

#include <sys/types.h>

/*
 * Lists every thread of the process whose /proc/<pid> directory is procfd as
 * "PID TID PSR STAT COMM" lines (header first). malloc'd text in *out. 0 or -errno.
 */
int sc_snapshot_threads(int procfd, pid_t pid, char **out);

#endif
