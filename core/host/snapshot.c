/*
 * snapshot.c: the process snapshots the observer takes at main_loop_begin: every
 * thread's CPU (threads_at_ready.txt, the columns of `ps -L -o pid,tid,psr,stat,comm`),
 * /proc/<pid>/status, numa_maps and the per-node page counts that `numastat -p` would
 * derive from it.
 */
#include "sc_snapshot.h"
#include "sc_dir.h"
#include "sc_file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One line "pid tid psr stat comm" from task/<tid>/stat. */
static int sc__thread_line(int taskfd, const char *tid, pid_t pid, FILE *out)
{
    char rel[300], *stat = NULL;
    int rc;

    snprintf(rel, sizeof(rel), "%s/stat", tid);
    rc = sc_file_read_at(taskfd, rel, 0, 1 << 16, &stat, NULL);
    if (rc < 0)
        return rc;
    char *open = strchr(stat, '('), *close = strrchr(stat, ')');
    if (!open || !close || close < open) {
        free(stat);
        return -EINVAL;
    }
    /* After "(comm)": field 3 is the state, field 39 the CPU it last ran on. */
    char state = close[2];
    const char *p = close + 2;
    long psr = -1;
    for (int field = 3; *p; field++) {
        if (field == 39) {
            psr = strtol(p, NULL, 10);
            break;
        }
        p = strchr(p, ' ');
        if (!p)
            break;
        p++;
    }
    fprintf(out, "%d %s %ld %c %.*s\n", (int)pid, tid, psr, state, (int)(close - open - 1),
            open + 1);
    free(stat);
    return psr >= 0 ? 0 : -EINVAL;
}

int sc_snapshot_threads(int procfd, pid_t pid, char **out)
{
    size_t len = 0;
    FILE *mem = open_memstream(out, &len);
    int rc = 0;

    if (!mem)
        return -ENOMEM;
    fprintf(mem, "PID TID PSR STAT COMM\n");
    DIR *dir = sc_dir_openat(procfd, "task", 0);
    if (!dir) {
        rc = -errno;
    } else {
        struct dirent *de;
        while ((de = readdir(dir))) {
            if (de->d_name[0] == '.')
                continue;
            /* A thread that exits between readdir and the read is simply gone. */
            int trc = sc__thread_line(dirfd(dir), de->d_name, pid, mem);
            if (trc < 0 && trc != -ENOENT && trc != -ESRCH)
                rc = trc;
        }
        closedir(dir);
    }
    if (fclose(mem) != 0 && rc == 0)
        rc = -ENOMEM;
    return rc;
}
