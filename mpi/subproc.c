/*
 * subproc.c: posix_spawnp, a pipe and a deadline (see subproc.h).
 */
#include "subproc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SCM_SPAWN_MAX (256 * 1024)

extern char **environ;

static long long scm__now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Read fd to EOF into a new buffer, giving up at the deadline. Returns 0 or -errno. */
static int scm__read_until(int fd, long long deadline, char **out)
{
    size_t len = 0;
    char *buf = malloc(SCM_SPAWN_MAX + 1);

    if (!buf)
        return -ENOMEM;
    for (;;) {
        long long left = deadline - scm__now_ms();
        struct pollfd p = {fd, POLLIN, 0};
        if (left <= 0) {
            free(buf);
            return -ETIMEDOUT;
        }
        int r = poll(&p, 1, (int)left);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            continue; /* the deadline check above ends it */
        ssize_t n = read(fd, buf + len, SCM_SPAWN_MAX - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0 || (len += (size_t)n) == SCM_SPAWN_MAX)
            break;
    }
    buf[len] = '\0';
    *out = buf;
    return 0;
}

int scm_spawn_capture(char *const argv[], int timeout_ms, char **out)
{
    posix_spawn_file_actions_t fa;
    int pfd[2], status = 0, rc;
    pid_t pid;

    *out = NULL;
    if (pipe2(pfd, O_CLOEXEC) < 0)
        return -errno;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, pfd[1], STDOUT_FILENO);
    posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(pfd[1]);
    if (rc != 0) {
        close(pfd[0]);
        return -rc;
    }
    rc = scm__read_until(pfd[0], scm__now_ms() + timeout_ms, out);
    close(pfd[0]);
    if (rc == -ETIMEDOUT)
        kill(pid, SIGKILL);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (rc == 0 && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
        rc = WIFEXITED(status) && WEXITSTATUS(status) == 127 ? -ENOENT : -EIO;
    if (rc != 0) {
        free(*out);
        *out = NULL;
    }
    return rc;
}
