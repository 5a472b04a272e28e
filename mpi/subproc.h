/*
 * subproc.h: run a helper program (fi_info) and keep what it prints.
 *
 * Used before MPI_Init only: forking an MPI process after MPI_Init is unsafe with some
 * transports (registered memory, e.g. verbs).
 */
#ifndef SCM_SUBPROC_H
#define SCM_SUBPROC_H

/*
 * Run argv[0] (looked up in PATH) with stdin and stderr on /dev/null and collect its stdout
 * (at most 256 KiB) for at most timeout_ms. Returns 0 with *out (malloc'ed, NUL-terminated)
 * when it exited 0; -ENOENT when the program is not installed; -ETIMEDOUT (it was killed),
 * -EIO (it failed) or another -errno otherwise, with *out NULL.
 */
int scm_spawn_capture(char *const argv[], int timeout_ms, char **out);

#endif
