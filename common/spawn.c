/* spawn.c: posix_spawnp, a pipe and an optional deadline (see sc_spawn.h). */
#include "sc_spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static long long sc__now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The poll() timeout until deadline (0: none, -1); -ETIMEDOUT once it has passed. */
static int sc__wait_ms(long long deadline)
{
    if (!deadline)
        return -1;
    long long left = deadline - sc__now_ms();
    if (left <= 0)
        return -ETIMEDOUT;
    return left > INT_MAX ? INT_MAX : (int)left;
}

/* Reads fd to EOF into a new NUL-terminated buffer of at most max bytes, giving up at
   deadline (0: none). Returns 0 or -errno. */
static int sc__read_all(int fd, size_t max, long long deadline, char **out)
{
    size_t cap = max < 4096 ? max : 4096, len = 0;
    char *buf = malloc(cap + 1);
    int rc = 0;

    if (!buf)
        return -ENOMEM;
    for (;;) {
        if (len == cap) {
            size_t grown = cap * 2 < max ? cap * 2 : max;
            char *bigger = grown > cap ? realloc(buf, grown + 1) : NULL;
            if (!bigger) {
                rc = grown > cap ? -ENOMEM : -EFBIG;
                break;
            }
            buf = bigger;
            cap = grown;
        }
        int wait = sc__wait_ms(deadline);
        struct pollfd p = {fd, POLLIN, 0};
        if (wait == -ETIMEDOUT) {
            rc = wait;
            break;
        }
        int ready = poll(&p, 1, wait);
        if (ready < 0 && errno != EINTR) {
            rc = -errno;
            break;
        }
        if (ready <= 0)
            continue; /* interrupted, or the deadline: checked above */
        ssize_t n = read(fd, buf + len, cap - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            rc = -errno;
            break;
        }
        if (n == 0)
            break;
        len += (size_t)n;
    }
    if (rc < 0) {
        free(buf);
        return rc;
    }
    buf[len] = '\0';
    *out = buf;
    return 0;
}

/* The child's stdout on the pipe; stdin and stderr on /dev/null when quiet. 0 or errno. */
static int sc__file_actions(posix_spawn_file_actions_t *fa, int out_fd, bool quiet)
{
    int rc = posix_spawn_file_actions_init(fa);

    if (rc != 0)
        return rc;
    if (quiet)
        rc = posix_spawn_file_actions_addopen(fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    if (rc == 0)
        rc = posix_spawn_file_actions_adddup2(fa, out_fd, STDOUT_FILENO);
    if (rc == 0 && quiet)
        rc = posix_spawn_file_actions_addopen(fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    if (rc != 0)
        posix_spawn_file_actions_destroy(fa);
    return rc;
}

int sc_spawn_start(char *const argv[], const sc_spawn_opts *opts, sc_spawned *child)
{
    static const sc_spawn_opts defaults;
    posix_spawn_file_actions_t fa;
    int pfd[2], rc;

    *child = (sc_spawned){.pid = -1, .out_fd = -1};
    if (!opts)
        opts = &defaults;
    if (pipe2(pfd, O_CLOEXEC) < 0)
        return -errno;
    rc = sc__file_actions(&fa, pfd[1], opts->quiet);
    if (rc == 0) {
        rc = posix_spawnp(&child->pid, argv[0], &fa, NULL, argv, environ);
        posix_spawn_file_actions_destroy(&fa);
    }
    close(pfd[1]);
    if (rc != 0) {
        close(pfd[0]);
        child->pid = -1;
        return -rc;
    }
    child->out_fd = pfd[0];
    child->deadline = opts->timeout_ms > 0 ? sc__now_ms() + opts->timeout_ms : 0;
    child->max_bytes = opts->max_bytes ? opts->max_bytes : SC_SPAWN_MAX_BYTES;
    return 0;
}

int sc_spawn_collect(sc_spawned *child, char **out)
{
    int status = 0, rc;

    *out = NULL;
    if (child->pid < 0)
        return -ECHILD;
    rc = sc__read_all(child->out_fd, child->max_bytes, child->deadline, out);
    close(child->out_fd);
    if (rc == -ETIMEDOUT)
        kill(child->pid, SIGKILL);
    while (waitpid(child->pid, &status, 0) < 0 && errno == EINTR)
        ;
    child->pid = -1;
    child->out_fd = -1;
    if (rc == 0 && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
        rc = WIFEXITED(status) && WEXITSTATUS(status) == 127 ? -ENOENT : -ECHILD;
    if (rc != 0 && rc != -ECHILD) {
        free(*out);
        *out = NULL;
    }
    return rc;
}

int sc_spawn_capture(char *const argv[], const sc_spawn_opts *opts, char **out)
{
    sc_spawned child;
    int rc = sc_spawn_start(argv, opts, &child);

    *out = NULL;
    return rc < 0 ? rc : sc_spawn_collect(&child, out);
}
