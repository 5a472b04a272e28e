/*
 * card_child_helper.c: a stand-in for streamcard-card-check in test_card_child.c. Started
 * the way the plugin starts the card check (as NAME SHA256), it does what NAME says, so the
 * test sees what the child's identity and limits allow and how the parent ends a child that
 * misbehaves:
 *   ids    prints its identity, limits and what it could do (see below), exits 0
 *   spin   burns CPU forever (the CPU limit ends it)
 *   hang   sleeps forever (the deadline ends it)
 *   late   prints a line, closes stdout, then sleeps forever
 *   flood  writes without end (the output limit ends it)
 *   fail   exits 5
 *   fork   forks (the prefilter kills it), and says so if it may
 *   exec   execs /bin/true (killed likewise)
 *   ptrace asks to be traced (killed likewise)
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <unistd.h>

static unsigned long long limit(int which)
{
    struct rlimit l;
    return getrlimit(which, &l) == 0 ? (unsigned long long)l.rlim_cur : 0;
}

/* Identity, limits, and whether it could write a file or take 512 MB. */
static int ids(void)
{
    gid_t groups[64];
    char card[256] = "", cwd[256] = "?";
    int ngroups = getgroups(64, groups), fd;
    ssize_t n = read(0, card, sizeof(card) - 1);

    signal(SIGXFSZ, SIG_IGN); /* a write past RLIMIT_FSIZE then fails with EFBIG */
    fd = open("/tmp/sc-card-child-test-write", O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int wrote = fd >= 0 && write(fd, "x", 1) == 1;
    if (fd >= 0) {
        close(fd);
        unlink("/tmp/sc-card-child-test-write");
    }
    char *big = malloc(512u << 20);
    if (!getcwd(cwd, sizeof(cwd)))
        snprintf(cwd, sizeof(cwd), "?");
    int pdeath = -1;
    prctl(PR_GET_PDEATHSIG, &pdeath, 0, 0, 0);
    printf("uid=%u euid=%u gid=%u egid=%u groups=%d:%u nnp=%d nproc=%llu own_session=%d "
           "pdeath=%d cpu=%llu as=%llu fsize=%llu nofile=%llu core=%llu wrote=%d big=%d cwd=%s "
           "fd3=%d fd4=%d card=%.*s\n",
           (unsigned)getuid(), (unsigned)geteuid(), (unsigned)getgid(), (unsigned)getegid(),
           ngroups, ngroups > 0 ? (unsigned)groups[0] : 0, prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0),
           limit(RLIMIT_NPROC), getsid(0) == getpid() && getpgrp() == getpid(), pdeath,
           limit(RLIMIT_CPU), limit(RLIMIT_AS), limit(RLIMIT_FSIZE), limit(RLIMIT_NOFILE),
           limit(RLIMIT_CORE), wrote, big != NULL, cwd, fcntl(3, F_GETFD) >= 0,
           fcntl(4, F_GETFD) >= 0, (int)(n > 0 ? n : 0), card);
    free(big);
    return 0;
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "";

    if (strcmp(what, "ids") == 0)
        return ids();
    if (strcmp(what, "spin") == 0)
        for (volatile unsigned long i = 0;; i++)
            ;
    if (strcmp(what, "late") == 0) {
        printf("streamcard-card-record 1\n");
        fflush(stdout);
        close(1);
    }
    if (strcmp(what, "hang") == 0 || strcmp(what, "late") == 0)
        for (;;)
            pause();
    if (strcmp(what, "flood") == 0)
        for (;;)
            fputs("streamcard-card-record 1 flood flood flood flood flood flood flood\n", stdout);
    if (strcmp(what, "fail") == 0)
        return 5;
    if (strcmp(what, "fork") == 0) {
        pid_t pid = fork();
        if (pid == 0)
            _exit(0);
        printf("forked: %d\n", (int)pid);
        return 0;
    }
    if (strcmp(what, "exec") == 0) {
        char *const args[] = {(char *)"true", NULL};
        execv("/bin/true", args);
        printf("exec failed\n");
        return 0;
    }
    if (strcmp(what, "ptrace") == 0) {
        long r = ptrace(PTRACE_TRACEME, 0, NULL, NULL);
        printf("ptrace: %ld\n", r);
        return 0;
    }
    return 2;
}
