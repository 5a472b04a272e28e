/* jobcpus.c: the job's CPUs on this node from its cpuset cgroup (see jobcpus.h). */
#include "jobcpus.h"
#include "sc_cpulist.h"
#include "sc_file.h"

#include <ctype.h>
#include <dirent.h>
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

/* "<prefix><n>" with n a canonical 32-bit decimal: its n. */
static bool sc__numbered(const char *name, const char *prefix, uint32_t *n)
{
    size_t lp = strlen(prefix);
    unsigned long long v = 0;
    const char *p = name + lp;

    if (strncmp(name, prefix, lp) != 0 || !isdigit((unsigned char)*p) || (*p == '0' && p[1]))
        return false;
    for (; *p; p++) {
        if (!isdigit((unsigned char)*p) || (v = v * 10 + (unsigned)(*p - '0')) > UINT32_MAX)
            return false;
    }
    *n = (uint32_t)v;
    return true;
}

typedef struct sc__joblist {
    uint32_t *jobs;
    size_t count;
    uint32_t self;
} sc__joblist;

/* Adds job (unless it is the caller's, or listed); -E2BIG past SC_JOBS_BESIDE_MAX. */
static int sc__joblist_add(sc__joblist *l, uint32_t job)
{
    if (job == l->self)
        return 0;
    for (size_t i = 0; i < l->count; i++)
        if (l->jobs[i] == job)
            return 0;
    if (l->count >= SC_JOBS_BESIDE_MAX)
        return -E2BIG;
    uint32_t *grown = realloc(l->jobs, (l->count + 1) * sizeof(*grown));
    if (!grown)
        return -ENOMEM;
    l->jobs = grown;
    l->jobs[l->count++] = job;
    return 0;
}

/* The job_<n> directories of dir; with uids, those of its uid_<n> directories instead. */
static int sc__scan_dir(const char *dir, bool uids, sc__joblist *l)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    uint32_t n;
    int rc = 0;

    if (!d)
        return errno == ENOENT ? 0 : -errno;
    while (rc == 0 && (e = readdir(d))) {
        if (uids && sc__numbered(e->d_name, "uid_", &n)) {
            char sub[1400];
            snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name);
            rc = sc__scan_dir(sub, false, l);
        } else if (!uids && sc__numbered(e->d_name, "job_", &n)) {
            rc = sc__joblist_add(l, n);
        }
    }
    closedir(d);
    return rc;
}

static int sc__cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* True when the controllers field (the name of the hierarchy's mount directory under the
   cgroup root) names one that Slurm gives every job: cpuset or freezer (cgroup v1), or is
   empty (v2). */
static bool sc__job_hierarchy(const char *ctl, size_t len)
{
    if (len == 0)
        return true;
    for (const char *w = ctl; w < ctl + len;) {
        size_t wl = strcspn(w, ",:");
        if ((wl == 6 && strncmp(w, "cpuset", 6) == 0) || (wl == 7 && strncmp(w, "freezer", 7) == 0))
            return true;
        w += wl + 1;
    }
    return false;
}

int sc_jobs_beside(const char *proc_cgroup, uint32_t job_id, const char *cgroup_root,
                   uint32_t **jobs, size_t *count)
{
    sc__joblist l = {NULL, 0, job_id};
    int rc = -ENOENT;

    *jobs = NULL;
    *count = 0;
    for (const char *line = proc_cgroup; line && *line && (rc == 0 || rc == -ENOENT);) {
        size_t n = strcspn(line, "\n");
        const char *c1 = memchr(line, ':', n);
        const char *c2 = c1 ? memchr(c1 + 1, ':', n - (size_t)(c1 + 1 - line)) : NULL;
        char dir[1024], path[1400];
        if (c2 && sc__job_hierarchy(c1 + 1, (size_t)(c2 - c1 - 1)) &&
            sc__job_dir(c2 + 1, (size_t)(line + n - c2 - 1), job_id, dir, sizeof(dir)) == 0) {
            /* dir ends with /job_<id>: the node's part is above it (and above uid_<n>). */
            *strrchr(dir, '/') = '\0';
            const char *last = strrchr(dir, '/');
            uint32_t uid;
            bool v1_uid = last && sc__numbered(last + 1, "uid_", &uid);
            if (v1_uid)
                dir[last - dir] = '\0';
            snprintf(path, sizeof(path), "%s%s%.*s%s", cgroup_root, c2 == c1 + 1 ? "" : "/",
                     c2 == c1 + 1 ? 0 : (int)(c2 - c1 - 1), c1 + 1, dir);
            rc = sc__scan_dir(path, v1_uid, &l); /* an unreadable hierarchy: fail closed */
        }
        line += n;
        if (*line == '\n')
            line++;
    }
    if (rc < 0) {
        free(l.jobs);
        return rc;
    }
    if (l.count > 1)
        qsort(l.jobs, l.count, sizeof(*l.jobs), sc__cmp_u32);
    *jobs = l.jobs;
    *count = l.count;
    return 0;
}
