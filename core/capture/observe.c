/* observe.c: run a workload and watch its trace lines (see sc_observe.h). Its interference
   window is observe_sampler.c's, the bundle's files observe_files.c's (sc_observe_obs.h). */
#include "sc_observe.h"
#include "internal/sc_observe_obs.h"
#include "sc_rankadopt.h"
#include "sc_bind.h"
#include "sc_file.h"
#include "sc_kv.h"
#include "sc_sampler.h"
#include "sc_runenv.h"
#include "sc_snapshot.h"
#include "sc_sysstate.h"
#include "sc_trace_protocol.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <regex.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#define SC__MARKER_BEGIN SC_TRACE_PHASE SC_TRACE_MAIN_LOOP_BEGIN
#define SC__MARKER_END SC_TRACE_PHASE SC_TRACE_MAIN_LOOP_END

static double sc__ms_between(const struct timespec *a, const struct timespec *b)
{
    return (double)(b->tv_sec - a->tv_sec) * 1e3 + (double)(b->tv_nsec - a->tv_nsec) / 1e6;
}

static void sc__copy_proc_file(sc_obs *s, const char *proc_rel, const char *bundle_rel, char **keep)
{
    char *text = NULL;
    size_t len = 0;
    int rc = sc_file_read_at(s->procfd, proc_rel, 0, SC_FILE_MAX_READ, &text, &len);

    if (rc < 0)
        sc_obs_capture_fail(s, bundle_rel, rc);
    else if ((rc = sc_obs_put(s, bundle_rel, text, len)) < 0)
        sc_obs_write_fail(s, bundle_rel, rc);
    if (keep)
        *keep = text;
    else
        free(text);
}

/* environ_at_ready.txt: the variables the runtimes read in the workload's environment as
   it started (/proc/<pid>/environ), inherited or set by the card; nothing else of it. */
static void sc__copy_runenv(sc_obs *s)
{
    char *block = NULL, *text = NULL;
    size_t len = 0;
    int rc = sc_file_read_at(s->procfd, "environ", 0, SC_FILE_MAX_READ, &block, &len);

    if (rc == 0)
        rc = sc_runenv_filter(block, len, &text);
    if (rc < 0)
        sc_obs_capture_fail(s, "environ_at_ready.txt", rc);
    else if ((rc = sc_obs_put(s, "environ_at_ready.txt", text ? text : "",
                              text ? strlen(text) : 0)) < 0)
        sc_obs_write_fail(s, "environ_at_ready.txt", rc);
    free(block);
    free(text);
}

static void sc__write_guard(sc_obs *s)
{
    sc_kv kv;

    sc_kv_init(&kv);
    sc_kv_addf(&kv, "PID", "%d", (int)s->r->pid);
    sc_kv_addf(&kv, "LOG", "%s", s->o->log_path ? s->o->log_path : "");
    sc_kv_addf(&kv, "BUNDLE", "%s", s->o->bundle->path);
    sc_kv_addf(&kv, "READY_AT", "%lld.%09ld", (long long)s->r->ready_at.tv_sec,
               s->r->ready_at.tv_nsec);
    if (s->o->guard_extra)
        sc_kv_append(&kv, s->o->guard_extra);
    int rc = kv.failed ? -ENOMEM : sc_obs_put(s, "capture_guard.env", kv.text, kv.len);
    if (rc < 0)
        sc_obs_write_fail(s, "capture_guard.env", rc);
    sc_kv_free(&kv);
}

/* Ends the readiness handshake: the workload waiting at main_loop_begin goes on. */
static void sc__release_workload(sc_obs *s)
{
    if (s->ready_wr < 0)
        return;
    (void)!write(s->ready_wr, "r", 1);
    close(s->ready_wr);
    s->ready_wr = -1;
}

/*
 * The snapshots at main_loop_begin, most time-critical first: where the threads are
 * right now, then the status, then numa_maps (a page-table walk, slower on big runs).
 */
static void sc__capture_ready(sc_obs *s)
{
    struct timespec t0, t1;
    char *text = NULL;
    int rc;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    s->r->mono_ready = t0;
    clock_gettime(CLOCK_REALTIME, &s->r->ready_at);
    s->r->ready_seen = true;
    rc = sc_snapshot_threads(s->procfd, s->r->pid, &text);
    if (rc < 0)
        sc_obs_capture_fail(s, "threads_at_ready.txt", rc);
    else if ((rc = sc_obs_put(s, "threads_at_ready.txt", text, strlen(text))) < 0)
        sc_obs_write_fail(s, "threads_at_ready.txt", rc);
    free(text);
    text = NULL;
    sc__copy_proc_file(s, "status", "workload_status_at_ready.txt", NULL);
    if (!s->o->launcher)
        sc__copy_proc_file(s, "numa_maps", "numa_maps_at_ready.txt", NULL);
    sc__copy_runenv(s);
    /* The machine's NUMA counters per node, as numastat prints them (/sys, not numa_maps:
       numa_maps_at_ready.txt already holds the process's pages). */
    sc_fsroot root;
    sc_kv table;
    sc_kv_init(&table);
    rc = sc_fsroot_open(&root, NULL);
    if (rc == 0)
        rc = sc_sysstate_numastat(&root, &table, NULL);
    sc_fsroot_close(&root);
    if (rc < 0)
        sc_obs_capture_fail(s, "numastat_at_ready.txt", rc);
    else if ((rc = sc_obs_put(s, "numastat_at_ready.txt", table.text ? table.text : "",
                              table.len)) < 0)
        sc_obs_write_fail(s, "numastat_at_ready.txt", rc);
    sc_kv_free(&table);
    sc__write_guard(s);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    s->r->ready_capture_ms = sc__ms_between(&t0, &t1);
    char ready[128];
    snprintf(ready, sizeof(ready), "main_loop_begin_at=%lld.%09ld\ncapture_ms=%.3f\n",
             (long long)s->r->ready_at.tv_sec, s->r->ready_at.tv_nsec, s->r->ready_capture_ms);
    rc = sc_obs_put(s, "main_loop.ready", ready, strlen(ready));
    if (rc < 0)
        sc_obs_write_fail(s, "main_loop.ready", rc);
    sc_obs_make_way(s);
    sc_obs_sampler_begin(s);
    sc__release_workload(s);
    clock_gettime(CLOCK_MONOTONIC, &s->r->mono_released);
    if (s->o->echo_fd >= 0)
        dprintf(s->o->echo_fd, "streamcard: READY PID=%d log=%s bundle=%s (captured in %.1f ms)\n",
                (int)s->r->pid, s->o->log_path ? s->o->log_path : "", s->o->bundle->path,
                s->r->ready_capture_ms);
}

static void sc__take_status(sc_obs *s)
{
    if (s->status_taken || s->procfd < 0)
        return;
    s->status_taken = true;
    sc__copy_proc_file(s, "status", "workload_status.txt", NULL);
}

/*
 * srun's ranks (sc_observe_opts.adopt_ranks): a TRACE_RANK_BINDING line before the window
 * opens names a rank; one that sc_rankadopt_line() holds to be this run's (this host, started
 * after the workload, its environment naming this observer and job) becomes a root of the
 * sampler, so that its tasks are the job's own over the patterns' window (its TASK records in
 * interference.txt name it). Any other rank keeps its own window (the gate finds no task of
 * it in the observer's records).
 */
static void sc__adopt_rank(sc_obs *s)
{
    if (!s->o->adopt_ranks || !s->sampler || s->r->ready_seen)
        return;
    if (!s->workload_start) /* read once: every rank is held to it */
        s->workload_start = sc_rankadopt_start_ticks(s->procfd, "stat");
    sc_rankadopt a = {s->proc_root, s->host, getpid(), getenv("SLURM_JOB_ID"), s->workload_start};
    pid_t pid = sc_rankadopt_line(&a, s->line);
    int rc = pid > 0 ? sc_sampler_add_root(s->sampler, pid) : 0;
    if (rc < 0)
        sc_obs_capture_fail(s, "interference.txt (a rank of srun as the job's own)", rc);
}

/* A program's own lines as its markers: the first matching begin_pattern, then the first
   after it matching end_pattern. */
static void sc__scan_patterns(sc_obs *s)
{
    if (!s->r->ready_seen && regexec(&s->begin_re, s->line, 0, NULL, 0) == 0) {
        sc__capture_ready(s);
    } else if (s->r->ready_seen && !s->r->end_seen &&
               regexec(&s->end_re, s->line, 0, NULL, 0) == 0) {
        s->r->end_seen = true;
        sc_obs_sampler_close(s);
    }
}

/* Feeds output bytes to the line scanner; reacts to the first main_loop_begin and end (not
   with begin_at_start: a program without markers cannot end its window by printing one). */
static void sc__scan(sc_obs *s, const char *buf, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (buf[i] != '\n') {
            if (s->line_len < sizeof(s->line) - 1)
                s->line[s->line_len++] = buf[i];
            else
                s->line_overflow = true;
            continue;
        }
        s->line[s->line_len] = '\0';
        if (s->line_len && s->line[s->line_len - 1] == '\r')
            s->line[s->line_len - 1] = '\0';
        if (s->patterns && !s->line_overflow) {
            sc__adopt_rank(s);
            sc__scan_patterns(s);
        } else if (!s->line_overflow && !s->r->ready_seen &&
                   strcmp(s->line, SC__MARKER_BEGIN) == 0) {
            sc__take_status(s);
            sc__capture_ready(s);
        } else if (!s->line_overflow && s->r->ready_seen && !s->r->end_seen &&
                   !s->o->begin_at_start && strcmp(s->line, SC__MARKER_END) == 0) {
            s->r->end_seen = true;
            sc_obs_sampler_close(s);
        }
        s->line_len = 0;
        s->line_overflow = false;
    }
}

/* In the child, between fork and exec: placement, output, then the workload. */
static void sc__child(const sc_observe_opts *o, char *const *envp, int out_fd, int ready_rd,
                      int err_pipe)
{
    int err = 0;
    sigset_t none;

    /* The workload starts with no blocked signals and default dispositions, whatever the
       caller blocked to receive them through the signalfd. */
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    signal(SIGPIPE, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    err = -sc_bind_self(o->cpus, o->memory_node);
    if (!err) {
        int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (devnull >= 0 && devnull != 0)
            dup2(devnull, 0);
        if (dup2(out_fd, 1) < 0 || dup2(out_fd, 2) < 0 || fcntl(ready_rd, F_SETFD, 0) < 0 ||
            (o->trace_fd && fcntl(out_fd, F_SETFD, 0) < 0))
            err = errno; /* out_fd stays open for the marker library (STREAMCARD_TRACE_FD) */
    }
    if (!err) {
        execve(o->argv[0], o->argv, envp);
        err = errno;
    }
    (void)!write(err_pipe, &err, sizeof(err));
    _exit(127);
}

/*
 * Whole-process capture (begin_at_start): the snapshots of main_loop_begin once the program
 * has loaded its libraries and started its threads, at its first output or 50 ms after its
 * exec (or at its end, when it ends before either), and the window opened there.
 */
static void sc__begin_whole(sc_obs *s)
{
    if (s->o->begin_at_start && !s->patterns && !s->r->ready_seen)
        sc__capture_ready(s);
}

static void sc__reap(sc_obs *s)
{
    int status;
    siginfo_t info = {0};

    /* Whole-process capture: the window closes at the program's end while it is still a
       zombie, so that the CPU time of its tasks counts as the job's own. */
    if (s->o->begin_at_start && !s->r->end_seen &&
        waitid(P_PID, (id_t)s->r->pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
        info.si_pid == s->r->pid) {
        sc__begin_whole(s);
        s->r->end_seen = true;
        sc_obs_sampler_close(s);
    }
    pid_t w = waitpid(s->r->pid, &status, WNOHANG);

    if (w != s->r->pid)
        return;
    s->r->exit_known = true;
    clock_gettime(CLOCK_MONOTONIC, &s->r->mono_exit);
    clock_gettime(CLOCK_REALTIME, &s->r->ended_at);
    if (WIFEXITED(status))
        s->r->exit_code = WEXITSTATUS(status);
    else if (WIFSIGNALED(status))
        s->r->exit_signal = WTERMSIG(status);
}

static void sc__forward(sc_obs *s, int sig)
{
    if (s->r->exit_known)
        return;
    /* The first request to stop is passed on; a second one kills the workload. */
    if (s->r->caller_signal)
        sig = SIGKILL;
    else
        s->r->caller_signal = sig;
    kill(-s->r->pid, sig);
}

/* The poll loop: output, signals, the start-up status snapshot and the timeout. */
static int sc__loop(sc_obs *s, int out_rd, int sigfd)
{
    struct timespec t_start, now;
    char buf[65536];
    bool out_open = true, term_sent = false;
    double eof_grace_ms = -1;

    clock_gettime(CLOCK_MONOTONIC, &t_start);
    while (out_open || !s->r->exit_known) {
        struct pollfd fds[2] = {{out_open ? out_rd : -1, POLLIN, 0}, {sigfd, POLLIN, 0}};
        int rc = poll(fds, 2, 20);
        if (rc < 0 && errno != EINTR)
            return -errno;
        clock_gettime(CLOCK_MONOTONIC, &now);
        double elapsed = sc__ms_between(&t_start, &now);
        if (!s->status_taken && elapsed >= 50)
            sc__take_status(s);
        if (elapsed >= 50)
            sc__begin_whole(s);
        if (fds[1].revents & POLLIN) {
            struct signalfd_siginfo si;
            while (read(sigfd, &si, sizeof(si)) == sizeof(si)) {
                if (si.ssi_signo == SIGCHLD)
                    sc__reap(s);
                else
                    sc__forward(s, (int)si.ssi_signo);
            }
        }
        if (out_open && (fds[0].revents & (POLLIN | POLLHUP | POLLERR))) {
            ssize_t n = read(out_rd, buf, sizeof(buf));
            if (n > 0) {
                if (!s->status_taken)
                    sc__take_status(s);
                sc__begin_whole(s);
                int wrc = sc_file_write_all(s->o->log_fd, buf, (size_t)n);
                if (wrc < 0)
                    sc_obs_write_fail(s, "stream.log", wrc);
                if (s->o->echo_fd >= 0)
                    (void)!sc_file_write_all(s->o->echo_fd, buf, (size_t)n);
                sc__scan(s, buf, (size_t)n);
            } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
                out_open = false;
            }
        }
        sc_obs_sampler_tick(s);
        if (!s->r->exit_known)
            sc__reap(s);
        /* The workload ended but something it started still holds the pipe: wait 2 s. */
        if (s->r->exit_known && out_open) {
            if (eof_grace_ms < 0)
                eof_grace_ms = elapsed;
            else if (elapsed - eof_grace_ms > 2000)
                out_open = false;
        }
        if (s->o->timeout_s > 0 && !s->r->exit_known && elapsed > s->o->timeout_s * 1e3) {
            if (!term_sent) {
                s->r->timed_out = true;
                term_sent = true;
                kill(-s->r->pid, SIGTERM);
            } else if (elapsed > (s->o->timeout_s + 10) * 1e3) {
                kill(-s->r->pid, SIGKILL);
            }
        }
    }
    return 0;
}

/*
 * The workload's environment: the caller's plus STREAMCARD_READY_FD=<fd>, with trace_fd
 * STREAMCARD_TRACE_FD=<out_fd> and, with interference accounting,
 * STREAMCARD_OBSERVER=<pid>@<host>. *added: how many were added (the last ones, malloc'd).
 */
static char **sc__ready_env(const sc_observe_opts *o, int fd, int out_fd, size_t *added)
{
    size_t n = 0;
    char host[64] = "unknown";

    *added = 0;
    while (o->envp && o->envp[n])
        n++;
    char **env = calloc(n + 4, sizeof(*env));
    if (!env)
        return NULL;
    for (size_t i = 0; i < n; i++)
        env[i] = o->envp[i];
    gethostname(host, sizeof(host) - 1);
    size_t k = n;
    bool ok = asprintf(&env[k++], SC_TRACE_READY_FD_ENV "=%d", fd) >= 0;
    if (ok && o->trace_fd)
        ok = asprintf(&env[k++], SC_TRACE_FD_ENV "=%d", out_fd) >= 0;
    if (ok && o->interference)
        ok = asprintf(&env[k++], SC_TRACE_OBSERVER_ENV "=%d@%s", (int)getpid(), host) >= 0;
    if (!ok) {
        env[--k] = NULL; /* asprintf left the failed one undefined */
        while (k > n)
            free(env[--k]);
        free(env);
        return NULL;
    }
    *added = k - n;
    return env;
}

/* A started run: the observer's state and what the loop needs (sc_observe.h). */
struct sc_observe {
    sc_obs s;
    int out_rd, err_rd, sigfd;
    sigset_t old;
    char **envp;
    size_t nenv, added;
};

/* Closes what the handle holds and restores the signal mask; frees it. */
static void sc__observe_free(sc_observe *h)
{
    if (h->sigfd >= 0)
        close(h->sigfd);
    sigprocmask(SIG_SETMASK, &h->old, NULL);
    if (h->out_rd >= 0)
        close(h->out_rd);
    if (h->err_rd >= 0)
        close(h->err_rd);
    sc__release_workload(&h->s);
    if (h->s.procfd >= 0)
        close(h->s.procfd);
    if (h->s.proc_root >= 0)
        close(h->s.proc_root);
    sc_obs_close_ahead(&h->s); /* made ahead and never written: they vanish */
    sc_sampler_free(h->s.sampler);
    if (h->s.patterns) {
        regfree(&h->s.begin_re);
        regfree(&h->s.end_re);
    }
    for (size_t i = 0; h->envp && i < h->added; i++)
        free(h->envp[h->nenv - 1 - i]);
    free(h->envp);
    free(h);
}

int sc_observe_start(const sc_observe_opts *o, sc_observe_result *r, sc_observe **out)
{
    int outp[2] = {-1, -1}, errp[2] = {-1, -1}, ready[2] = {-1, -1}, rc = 0;
    sigset_t block;
    char procpath[64];
    sc_observe *h = calloc(1, sizeof(*h));

    *out = NULL;
    memset(r, 0, sizeof(*r));
    r->pid = -1;
    if (!h)
        return -ENOMEM;
    h->s = (sc_obs){.o = o, .r = r, .procfd = -1, .ready_wr = -1, .proc_root = -1};
    for (size_t i = 0; i < SC_OBS_NFILES; i++)
        h->s.ahead[i] = -1;
    h->out_rd = h->err_rd = h->sigfd = -1;
    sigprocmask(SIG_BLOCK, NULL, &h->old);
    if (o->begin_at_start && o->begin_pattern && o->end_pattern) { /* checked by the card */
        if (regcomp(&h->s.begin_re, o->begin_pattern, REG_EXTENDED | REG_NOSUB) != 0) {
            rc = -EINVAL;
            goto fail;
        }
        if (regcomp(&h->s.end_re, o->end_pattern, REG_EXTENDED | REG_NOSUB) != 0) {
            regfree(&h->s.begin_re);
            rc = -EINVAL;
            goto fail;
        }
        h->s.patterns = true;
    }
    if (pipe2(outp, O_CLOEXEC) < 0 || pipe2(errp, O_CLOEXEC) < 0 || pipe2(ready, O_CLOEXEC) < 0) {
        rc = -errno;
        goto fail;
    }
    h->envp = sc__ready_env(o, ready[0], outp[1], &h->added);
    if (!h->envp) {
        rc = -ENOMEM;
        goto fail;
    }
    while (h->envp[h->nenv])
        h->nenv++;
    sigemptyset(&block);
    sigaddset(&block, SIGCHLD);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    sigaddset(&block, SIGQUIT);
    sigprocmask(SIG_BLOCK, &block, NULL);
    h->sigfd = signalfd(-1, &block, SFD_NONBLOCK | SFD_CLOEXEC);
    if (h->sigfd < 0) {
        rc = -errno;
        goto fail;
    }
    clock_gettime(CLOCK_REALTIME, &r->started_at);
    r->pid = fork();
    if (r->pid < 0) {
        rc = -errno;
        r->spawn_error = errno;
        goto fail;
    }
    if (r->pid == 0)
        sc__child(o, h->envp, outp[1], ready[0], errp[1]);
    setpgid(r->pid, r->pid); /* also in the parent: no race with an early kill(-pid) */
    close(outp[1]);
    close(errp[1]);
    close(ready[0]);
    h->out_rd = outp[0];
    h->err_rd = errp[0];
    h->s.ready_wr = ready[1];
    snprintf(procpath, sizeof(procpath), "/proc/%d", (int)r->pid);
    h->s.procfd = open(procpath, O_PATH | O_DIRECTORY | O_CLOEXEC);
    *out = h;
    return 0;
fail:
    for (int i = 0; i < 2; i++) {
        if (outp[i] >= 0)
            close(outp[i]);
        if (errp[i] >= 0)
            close(errp[i]);
        if (ready[i] >= 0)
            close(ready[i]);
    }
    sc__observe_free(h);
    return rc < 0 ? rc : -EIO;
}

void sc_observe_close_in_child(const sc_observe *h)
{
    int fds[] = {h->out_rd, h->err_rd, h->sigfd, h->s.ready_wr, h->s.procfd, h->s.proc_root};

    for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
        if (fds[i] >= 0)
            close(fds[i]);
    sc_obs_close_ahead(&h->s);
}

int sc_observe_wait(sc_observe *h)
{
    if (!h)
        return -EINVAL;
    sc_obs *s = &h->s;
    sc_observe_result *r = s->r;
    int child_err = 0;

    /* The exec closed the pipe's other end (O_CLOEXEC), or the child wrote why it failed. */
    ssize_t n = read(h->err_rd, &child_err, sizeof(child_err));
    r->started = n != (ssize_t)sizeof(child_err);
    r->spawn_error = r->started ? 0 : child_err;
    if (r->started) {
        sc_obs_sampler_prime(s);
        sc_obs_make_ahead(s); /* while the workload starts up, not while it waits */
    }
    if (r->started && s->o->begin_at_start)
        sc__take_status(s);
    int rc = sc__loop(s, h->out_rd, h->sigfd);
    if (s->line_len > 0)
        sc__scan(s, "\n", 1); /* a last line without newline still counts */
    sc_obs_sampler_write(s);  /* the foreign tasks now (or the window closes with the workload) */
    sc__observe_free(h);
    return rc;
}

int sc_observe_run(const sc_observe_opts *o, sc_observe_result *r)
{
    sc_observe *h;
    int rc = sc_observe_start(o, r, &h);

    return rc < 0 ? rc : sc_observe_wait(h); /* h is set when rc is 0 */
}
