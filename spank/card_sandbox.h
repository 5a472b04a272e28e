/*
 * card_sandbox.h: the seccomp filters of the card check (doc/contracts/spank.md, "The card on the
 * node"), made with libseccomp.
 *
 * Two filters, because one that denies execve cannot be installed before the exec it must
 * allow:
 *   the prefilter  built by root in slurmstepd before the fork and installed by the child
 *                  between fork and exec (a raw seccomp(2) call: nothing that allocates may
 *                  run there). It lets everything through but what would reach beyond the
 *                  process: fork, vfork, clone, clone3, execve, ptrace and the cross-process
 *                  calls (process_vm_*, signals to others, pidfds, io_uring, namespaces,
 *                  bpf, perf, keys). execveat stays allowed for the fexecve of the check
 *                  itself. Whatever binary is installed as the check runs under it.
 *   the check's    loaded by streamcard-card-check first thing in main(): it makes the
 *   own filter     process not dumpable again (execve made it dumpable) and allows only what
 *                  reading and checking a card needs: read on stdin, write on stdout and
 *                  stderr, memory (brk, mmap and mprotect without PROT_EXEC, munmap,
 *                  mremap, madvise), fstat, lseek, close, futex, getuid, the clocks, exit.
 * Anything else kills the whole process (SECCOMP_RET_KILL_PROCESS), as does a system call of
 * another architecture. A sanitizer build (tests only: slurmd cannot load a sanitized
 * plugin) installs neither: its runtime makes threads and system calls of its own.
 */
#ifndef SC_SPANK_CARD_SANDBOX_H
#define SC_SPANK_CARD_SANDBOX_H

#include <linux/filter.h>

#if defined(__SANITIZE_ADDRESS__)
#define SC_CARD_SANDBOX_SECCOMP 0
#else
#define SC_CARD_SANDBOX_SECCOMP 1
#endif

/* The prefilter as a BPF program (prog->filter malloc'd; free with ..._free). 0 or -errno. */
int sc_card_sandbox_prefilter(struct sock_fprog *prog);
void sc_card_sandbox_prefilter_free(struct sock_fprog *prog);

/*
 * Installs prog in the calling process, which must have no-new-privileges set. Makes only
 * system calls (safe between fork and exec). 0 or -errno; a build without seccomp: 0.
 */
int sc_card_sandbox_install(const struct sock_fprog *prog);

/*
 * In the check, first thing: not dumpable, then the check's own filter. 0 or -errno (the
 * check then refuses to read the card).
 */
int sc_card_sandbox_enter(void);

#endif
