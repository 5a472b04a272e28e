/* guardian.c: waiting for streamcard run's guardian (see guardian.h). Reads /proc only. */
#include "guardian.h"
#include "sc_bundle.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* Reads comm and pgrp of pid from /proc/<pid>/stat; 0 or -1. */
static int sc__proc_stat(const char *pid, char *comm, size_t commlen, long *pgrp)
{
    char path[300], buf[512];
    FILE *f;
    size_t n;

    snprintf(path, sizeof(path), "/proc/%s/stat", pid);
    f = fopen(path, "re");
    if (!f)
        return -1;
    n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    /* "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses. */
    char *open = strchr(buf, '('), *close = strrchr(buf, ')');
    int ppid;
    char state;
    if (!open || !close || close < open ||
        sscanf(close + 1, " %c %d %ld", &state, &ppid, pgrp) != 3)
        return -1;
    snprintf(comm, commlen, "%.*s", (int)(close - open - 1), open + 1);
    return state == 'Z' ? -1 : 0; /* a zombie has done its work */
}

bool sc_guardian_alive(pid_t pgid)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    bool found = false;

    if (!d)
        return false;
    while (!found && (e = readdir(d))) {
        char comm[64];
        long pgrp;
        if (!isdigit((unsigned char)e->d_name[0]))
            continue;
        if (sc__proc_stat(e->d_name, comm, sizeof(comm), &pgrp) == 0 && pgrp == (long)pgid &&
            strcmp(comm, SC_BUNDLE_GUARDIAN_COMM) == 0)
            found = true;
    }
    closedir(d);
    return found;
}

int sc_guardian_wait(pid_t pgid, unsigned wait_ms)
{
    const struct timespec step = {0, 50 * 1000 * 1000};

    if (pgid <= 0 || !sc_guardian_alive(pgid))
        return 1;
    for (unsigned waited = 0; waited < wait_ms; waited += 50) {
        nanosleep(&step, NULL);
        if (!sc_guardian_alive(pgid))
            return 0;
    }
    return -ETIMEDOUT;
}
