/*
 * card_child.c: the card check under its own account, sandboxed, under rlimits, with a
 * wall-clock deadline (see card_child.h). Between fork and exec the child makes system
 * calls only: it is a copy of a multi-threaded slurmstepd, where nothing that takes a lock
 * (malloc, stdio, Slurm's log) may run.
 */
#include "card_child.h"
#include "card_sandbox.h"
#include "sc_card_record.h"
#include "sc_why.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Descriptors the parent hands over sit at or above this, so that placing them on 0-3 in
   the child never finds one already there (slurmstepd may have closed its 0-2). */
#define SC__FD_FLOOR 10

int sc_card_child_helper(char *path, size_t pathlen)
{
    Dl_info info;

    if (!dladdr((void *)sc_card_child_helper, &info) || !info.dli_fname)
        return -ENOENT;
    const char *slash = strrchr(info.dli_fname, '/');
    if (!slash || info.dli_fname[0] != '/')
        return -ENOENT;
    int n = snprintf(path, pathlen, "%.*s/%s", (int)(slash - info.dli_fname), info.dli_fname,
                     SC_CARD_CHILD_NAME);
    return n > 0 && (size_t)n < pathlen ? 0 : -ENAMETOOLONG;
}

int sc_card_child_account(const char *user, uid_t *uid, gid_t *gid, char *why, size_t whylen)
{
    struct passwd pw, *found = NULL;
    char buf[4096];
    int rc = getpwnam_r(user, &pw, buf, sizeof(buf), &found);

    if (rc != 0 || !found) {
        sc__why(why, whylen,
                "the card check's account %s does not exist on this node (valid: install the "
                "streamcard package, or: useradd --system --user-group --no-create-home "
                "--home-dir /nonexistent --shell /usr/sbin/nologin %s)",
                user, user);
        return rc > 0 ? -rc : -ENOENT;
    }
    if (pw.pw_uid == 0 || pw.pw_gid == 0) {
        sc__why(why, whylen,
                "the card check's account %s is root's uid or gid (valid: an unprivileged "
                "system account of its own)",
                user);
        return -EPERM;
    }
    *uid = pw.pw_uid;
    *gid = pw.pw_gid;
    return 0;
}

/* The helper, opened: a regular file owned by root, which neither group nor others may
   write (else whoever could write it would run code as every job's user), executable by
   all. Returns the descriptor or -errno. */
static int sc__open_helper(const char *path, char *why, size_t whylen)
{
    struct stat st;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

    if (fd < 0) {
        int rc = -errno;
        sc__why(why, whylen, "cannot open the card check %s: %s", path, strerror(errno));
        return rc;
    }
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != 0 || (st.st_mode & 022) ||
        (st.st_mode & 0111) != 0111) {
        sc__why(why, whylen,
                "the card check %s is not a root-owned executable that only root can write "
                "(valid: mode 0755, owner root)",
                path);
        close(fd);
        return -EPERM;
    }
    return fd;
}

/* A sealed memfd holding the card: the child's stdin, which it cannot change. */
static int sc__card_fd(const char *text, size_t len)
{
    int fd = memfd_create("streamcard-card", MFD_CLOEXEC | MFD_ALLOW_SEALING), rc = 0;
    size_t done = 0;

    if (fd < 0)
        return -errno;
    while (rc == 0 && done < len) {
        ssize_t n = write(fd, text + done, len - done);
        if (n < 0 && errno != EINTR)
            rc = -errno;
        else if (n > 0)
            done += (size_t)n;
    }
    if (rc == 0 &&
        (fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL) < 0 ||
         lseek(fd, 0, SEEK_SET) < 0))
        rc = -errno;
    if (rc < 0) {
        close(fd);
        return rc;
    }
    return fd;
}

/* fd moved to SC__FD_FLOOR or above (close-on-exec). Returns the new fd or -errno. */
static int sc__raise(int fd)
{
    if (fd < 0 || fd >= SC__FD_FLOOR)
        return fd;
    int high = fcntl(fd, F_DUPFD_CLOEXEC, SC__FD_FLOOR);
    int rc = high < 0 ? -errno : high;
    close(fd);
    return rc;
}

/* The child, between fork and exec: descriptors, signals, its own session, identity,
   limits, the prefilter, exec. Never returns; exits 126 when it cannot take the check's
   identity, 125 when it cannot be confined (the parent reports which). */
static void sc__child(const sc_card_child_in *in, const struct sock_fprog *filter, pid_t parent,
                      int card_fd, int out_fd, int null_fd, int exe_fd)
{
    static const int limits[][2] = {
        {RLIMIT_CORE, 0}, {RLIMIT_FSIZE, 0}, {RLIMIT_NOFILE, 16}, {RLIMIT_MEMLOCK, 0}};
    const struct rlimit zero = {0, 0};
    const struct rlimit cpu = {SC_CARD_CHILD_CPU_S, SC_CARD_CHILD_CPU_S + 1};
    const struct rlimit as = {(rlim_t)SC_CARD_CHILD_AS_MB << 20, (rlim_t)SC_CARD_CHILD_AS_MB << 20};
    char *const argv[] = {(char *)SC_CARD_CHILD_NAME, (char *)in->name, (char *)in->sha, NULL};
    char *const envp[] = {(char *)"PATH=/usr/bin:/bin", (char *)"LC_ALL=C", NULL};
    sigset_t none;
    uid_t r, e, s;

    if (dup2(card_fd, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(null_fd, 2) < 0 ||
        dup2(exe_fd, 3) < 0 || fcntl(3, F_SETFD, FD_CLOEXEC) < 0 || close_range(4, ~0u, 0) < 0)
        _exit(126);
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    for (int sig = 1; sig < NSIG; sig++)
        signal(sig, SIG_DFL); /* a disposition slurmstepd ignores would survive exec */
    /* Its own session and process group: the parent kills the group when the check is done,
       and slurmstepd's terminal and group are out of its reach. */
    if (setsid() < 0 || chdir("/") < 0 || setgroups(1, &in->gid) < 0 ||
        setresgid(in->gid, in->gid, in->gid) < 0 || setresuid(in->uid, in->uid, in->uid) < 0 ||
        getresuid(&r, &e, &s) < 0 || r != in->uid || e != in->uid || s != in->uid)
        _exit(126);
    /* Not dumpable (execve makes it so again: the check says it once more first thing),
       killed with its parent, never more privileges. */
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0 ||
        prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 || getppid() != parent)
        _exit(125);
    /* The limits after the uid change: RLIMIT_NPROC 0 set before it would mark the process as
       over its limit, and the exec would fail. 0 processes: no fork succeeds. */
    for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); i++) {
        const struct rlimit l = {(rlim_t)limits[i][1], (rlim_t)limits[i][1]};
        if (setrlimit(limits[i][0], &l) < 0)
            _exit(125);
    }
    if (setrlimit(RLIMIT_CPU, &cpu) < 0 ||
        (SC_CARD_CHILD_LIMIT_AS && setrlimit(RLIMIT_AS, &as) < 0) ||
        (SC_CARD_CHILD_LIMIT_NPROC && setrlimit(RLIMIT_NPROC, &zero) < 0) ||
        sc_card_sandbox_install(filter) < 0)
        _exit(125);
    fexecve(3, argv, envp);
    _exit(127);
}

static long sc__now_ms(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Reads the child's output until end of file, the size limit or the deadline. */
static int sc__collect(int fd, long deadline, char *buf, size_t *len)
{
    for (;;) {
        long left = deadline - sc__now_ms();
        struct pollfd p = {fd, POLLIN, 0};
        if (left <= 0)
            return -ETIME;
        int n = poll(&p, 1, (int)left);
        if (n < 0 && errno != EINTR)
            return -errno;
        if (n <= 0)
            continue;
        ssize_t got = read(fd, buf + *len, SC_CARD_RECORD_MAX_BYTES + 1 - *len);
        if (got < 0 && errno != EINTR && errno != EAGAIN)
            return -errno;
        if (got == 0)
            return 0;
        if (got > 0 && (*len += (size_t)got) > SC_CARD_RECORD_MAX_BYTES)
            return -EFBIG;
    }
}

/*
 * Waits for the child until the deadline, then kills it. Once it has exited, and before it
 * is reaped (a zombie keeps its pid, and so its group's id, from being reused), its
 * process group is killed: whatever it started ends with it. Its status in *status; -ECHILD
 * when someone else reaped it (slurmstepd may wait for any child), which the caller accepts
 * only with a record it can read.
 */
static int sc__reap(pid_t pid, long deadline, int *status)
{
    const struct timespec tick = {0, 2 * 1000 * 1000};
    bool killed = false;

    for (;;) {
        siginfo_t si;
        memset(&si, 0, sizeof(si));
        int w = waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT | (killed ? 0 : WNOHANG));
        if (w < 0 && errno == ECHILD)
            return -ECHILD;
        if (w < 0 && errno != EINTR)
            return -errno;
        if (w == 0 && si.si_pid == pid) {
            kill(-pid, SIGKILL);
            if (waitpid(pid, status, 0) != pid)
                return -ECHILD;
            return killed ? -ETIME : 0;
        }
        if (!killed && sc__now_ms() >= deadline) {
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL); /* before its setsid, it is not yet the group's leader */
            killed = true;
        } else if (!killed) {
            nanosleep(&tick, NULL);
        }
    }
}

/*
 * The child's end as a result: got is what reading its output gave, reaped what waiting for
 * it gave. A failure gets one line in why. A child reaped by someone else (-ECHILD) is
 * accepted here: its record, read next, must then stand on its own.
 */
static int sc__outcome(const sc_card_child_in *in, int got, int reaped, int status, char *why,
                       size_t whylen)
{
    int rc = got < 0 ? got : reaped == -ECHILD ? 0 : reaped;

    if (rc == -ETIME)
        sc__why(why, whylen, "the card check did not finish within %d ms (killed)",
                in->deadline_ms);
    else if (rc == -EFBIG)
        sc__why(why, whylen, "the card check wrote more than %d bytes (killed)",
                SC_CARD_RECORD_MAX_BYTES);
    else if (rc < 0)
        sc__why(why, whylen, "the card check failed: %s", strerror(-rc));
    else if (reaped == 0 && WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS)
        sc__why(why, whylen,
                "the card check made a system call its sandbox forbids (fork, exec, ptrace or "
                "another; killed by SIGSYS)");
    else if (reaped == 0 && WIFSIGNALED(status))
        sc__why(why, whylen,
                "the card check was killed by signal %d (its limits: %d s of CPU, %d MB of "
                "memory)",
                WTERMSIG(status), SC_CARD_CHILD_CPU_S, SC_CARD_CHILD_AS_MB);
    else if (reaped == 0 && WEXITSTATUS(status) != 0)
        sc__why(why, whylen, "the card check failed (exit status %d%s)", WEXITSTATUS(status),
                WEXITSTATUS(status) == 125   ? ": it could not be confined"
                : WEXITSTATUS(status) == 126 ? ": it could not take its account's identity"
                : WEXITSTATUS(status) == 127 ? ": it could not be started"
                : WEXITSTATUS(status) == 4   ? ": it could not enter its sandbox"
                                             : "");
    else
        return rc;
    return rc < 0 ? rc : -ECHILD;
}

int sc_card_child_run(const sc_card_child_in *in, char **out, size_t *len, char *why, size_t whylen)
{
    int pipefd[2] = {-1, -1}, card_fd = -1, null_fd = -1, exe_fd = -1, status = -1, rc;
    long deadline = sc__now_ms() + in->deadline_ms;
    char *buf = malloc(SC_CARD_RECORD_MAX_BYTES + 1);
    struct sock_fprog filter = {0, NULL};
    pid_t pid = -1;

    *out = NULL;
    *len = 0;
    if (!buf)
        return -ENOMEM;
    if (in->uid == 0 || in->gid == 0) {
        sc__why(why, whylen, "the card check never runs as root (valid: its own account)");
        free(buf);
        return -EPERM;
    }
    rc = exe_fd = sc__raise(sc__open_helper(in->helper, why, whylen));
    if (rc >= 0 && SC_CARD_SANDBOX_SECCOMP && (rc = sc_card_sandbox_prefilter(&filter)) < 0)
        sc__why(why, whylen, "cannot build the card check's seccomp filter: %s", strerror(-rc));
    if (rc >= 0 && (rc = card_fd = sc__raise(sc__card_fd(in->text, in->len))) < 0)
        sc__why(why, whylen, "cannot hand the card to its check: %s", strerror(-rc));
    if (rc >= 0 && (null_fd = sc__raise(open("/dev/null", O_RDWR | O_CLOEXEC))) < 0)
        rc = null_fd;
    if (rc >= 0 && pipe2(pipefd, O_CLOEXEC) < 0)
        rc = -errno;
    if (rc >= 0 &&
        ((pipefd[0] = sc__raise(pipefd[0])) < 0 || (pipefd[1] = sc__raise(pipefd[1])) < 0))
        rc = -EMFILE;
    pid_t parent = getpid();
    if (rc >= 0 && (pid = fork()) < 0)
        rc = -errno;
    if (pid == 0)
        sc__child(in, &filter, parent, card_fd, pipefd[1], null_fd, exe_fd);
    if (pipefd[1] >= 0)
        close(pipefd[1]);
    if (pid > 0) {
        int got = sc__collect(pipefd[0], deadline, buf, len);
        int reaped = sc__reap(pid, got < 0 ? 0 : deadline, &status);
        rc = sc__outcome(in, got, reaped, status, why, whylen);
    } else if (rc < 0 && why && !*why) {
        sc__why(why, whylen, "cannot start the card check: %s", strerror(-rc));
    }
    if (rc >= 0) {
        buf[*len] = '\0';
        *out = buf;
        buf = NULL;
        rc = 0;
    } else {
        *len = 0;
    }
    free(buf);
    sc_card_sandbox_prefilter_free(&filter);
    int fds[] = {pipefd[0], card_fd, null_fd, exe_fd};
    for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
        if (fds[i] >= 0)
            close(fds[i]);
    return rc;
}
