/* jobcpus.c: the job's CPUs on this node from its cpuset cgroup (see jobcpus.h). */
#include "jobcpus.h"
#include "sc_cpulist.h"
#include "sc_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The path of the job's cgroup within one /proc/self/cgroup line's hierarchy: the line's
 * path up to and including the component job_<id>. 0, or -ENOENT when it has none.
 */
static int sc__job_dir(const char *path, size_t len, uint32_t job_id, char *out, size_t outlen)
{
    char comp[32];
    int n = snprintf(comp, sizeof(comp), "/job_%u", (unsigned)job_id);

    for (const char *p = path; p + n <= path + len; p++) {
        p = memchr(p, '/', (size_t)(path + len - p));
        if (!p || p + n > path + len)
            break;
        if (strncmp(p, comp, (size_t)n) == 0 && (p + n == path + len || p[n] == '/')) {
            if ((size_t)(p + n - path) >= outlen)
                return -ENAMETOOLONG;
            memcpy(out, path, (size_t)(p + n - path));
            out[p + n - path] = '\0';
            return 0;
        }
    }
    return -ENOENT;
}

/* True when the controllers field of a /proc/self/cgroup line (between its two first
   colons) is empty (cgroup v2) or names cpuset (v1). */
static bool sc__has_cpuset(const char *ctl, size_t len, bool *v2)
{
    *v2 = len == 0;
    for (const char *w = ctl; w < ctl + len;) {
        size_t wl = strcspn(w, ",:");
        if (wl == 6 && strncmp(w, "cpuset", 6) == 0)
            return true;
        w += wl + 1;
    }
    return *v2;
}

/* The cpuset of the job directory dir (a cgroup path) into out. 0 or -errno. */
static int sc__read_cpuset(const char *root, const char *dir, bool v2, hwloc_bitmap_t out)
{
    char file[1400], *text = NULL;
    int rc;

    snprintf(file, sizeof(file), "%s%s%s/%s", root, v2 ? "" : "/cpuset", dir,
             v2 ? "cpuset.cpus.effective" : "cpuset.cpus");
    if ((rc = sc_file_read_at(AT_FDCWD, file, 0, 1 << 16, &text, NULL)) < 0)
        return rc;
    text[strcspn(text, "\n")] = '\0';
    rc = sc_cpulist_parse(text, out, NULL, 0);
    free(text);
    return rc;
}

int sc_job_cpuset(const char *proc_cgroup, uint32_t job_id, const char *cgroup_root,
                  hwloc_bitmap_t out)
{
    int rc = -ENOENT;

    /* Lines "ID:CONTROLLERS:PATH"; a hybrid system has both v1 lines and a "0::" line, so
       every line that leads to a job directory is tried until one can be read. */
    for (const char *line = proc_cgroup; line && *line && rc < 0;) {
        size_t n = strcspn(line, "\n");
        const char *c1 = memchr(line, ':', n);
        const char *c2 = c1 ? memchr(c1 + 1, ':', n - (size_t)(c1 + 1 - line)) : NULL;
        char dir[1024];
        bool v2;
        if (c2 && sc__has_cpuset(c1 + 1, (size_t)(c2 - c1 - 1), &v2) &&
            sc__job_dir(c2 + 1, (size_t)(line + n - c2 - 1), job_id, dir, sizeof(dir)) == 0) {
            int r = sc__read_cpuset(cgroup_root, dir, v2, out);
            if (r == 0 || rc == -ENOENT)
                rc = r;
        }
        line += n;
        if (*line == '\n')
            line++;
    }
    return rc;
}
