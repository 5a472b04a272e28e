/*
 * card_child.h: the card check on the compute node, run under an account of its own
 * (doc/contracts/spank.md, "The card on the node").
 *
 * slurmstepd (root) never parses the card's YAML. It hands the card's bytes to a child that
 * takes a session of its own and the check's account (SC_CARD_CHILD_USER, the policy's
 * check_user=: an unprivileged system account that is neither root nor the job's user, so
 * the job's user can neither ptrace nor signal it), is made not dumpable and killed with
 * its parent, gets no new privileges, rlimits (CPU, address space, no file writes, few
 * descriptors, no process of its own, no core dump) and the seccomp prefilter
 * (card_sandbox.h: no fork, clone, execve or ptrace), and execs streamcard-card-check
 * (installed next to the plugin), which enters its own filter, reads the card on its stdin
 * (a sealed memfd), parses and checks it with the core, and writes the card's record
 * (core/card/sc_card_record.h) on its stdout, a pipe. Root reads at most
 * SC_CARD_RECORD_MAX_BYTES of it, waits at most deadline_ms of wall clock, kills the child
 * when that passes, kills the child's process group once it has exited, and reads the
 * record field by field. Whatever the card holds, root's own work is a base64 decode, a
 * SHA-256 and the reading of a record, all bounded.
 */
#ifndef SC_SPANK_CARD_CHILD_H
#define SC_SPANK_CARD_CHILD_H

#include <stddef.h>
#include <sys/types.h>

#define SC_CARD_CHILD_NAME "streamcard-card-check" /* the helper, next to the plugin */
#define SC_CARD_CHILD_USER "streamcard-check"      /* its account (policy check_user=) */
#define SC_CARD_CHILD_CPU_S 1                      /* RLIMIT_CPU, soft (hard: + 1) */
#define SC_CARD_CHILD_AS_MB 256                    /* RLIMIT_AS */
#define SC_CARD_CHILD_DEADLINE_MS 5000             /* wall clock, then SIGKILL */
/* AddressSanitizer reserves terabytes of address space at start, and its leak check at exit
   starts a thread (which RLIMIT_NPROC 0 refuses): a sanitizer build (tests only; slurmd
   cannot load a sanitized plugin) sets neither RLIMIT_AS nor RLIMIT_NPROC. */
#if defined(__SANITIZE_ADDRESS__)
#define SC_CARD_CHILD_LIMIT_AS 0
#define SC_CARD_CHILD_LIMIT_NPROC 0
#else
#define SC_CARD_CHILD_LIMIT_AS 1
#define SC_CARD_CHILD_LIMIT_NPROC 1
#endif

typedef struct sc_card_child_in {
    const char *helper; /* absolute path of streamcard-card-check */
    const char *text;   /* the card's bytes */
    size_t len;
    const char *sha;  /* their SHA-256, computed by the caller */
    const char *name; /* the card's name for messages */
    uid_t uid;        /* the check's account and its group (never 0) */
    gid_t gid;
    int deadline_ms;
} sc_card_child_in;

/*
 * Runs the check as described above. Returns 0 with the child's whole output in *out
 * (malloc'd, *len bytes) when it exited 0 within the deadline; otherwise -errno with one line
 * in why: -EPERM (the helper is not a root-owned file that only root can write, or the
 * account is root's), -ETIME (killed at the deadline), -EFBIG (it wrote more than
 * SC_CARD_RECORD_MAX_BYTES), -ECHILD (it failed or was killed: by RLIMIT_CPU, or by its
 * sandbox for a forbidden system call), or what fork, exec or the privilege drop failed
 * with. Must run as root.
 */
int sc_card_child_run(const sc_card_child_in *in, char **out, size_t *len, char *why,
                      size_t whylen);

/*
 * The check's account user: its uid and gid. -ENOENT when it does not exist, -EPERM when its
 * uid or gid is root's; one line in why naming the fix. Not between fork and exec.
 */
int sc_card_child_account(const char *user, uid_t *uid, gid_t *gid, char *why, size_t whylen);

/* The helper's path next to the shared object holding this code (the plugin). 0 or -errno. */
int sc_card_child_helper(char *path, size_t pathlen);

#endif
