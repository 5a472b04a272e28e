/*
 * observe_files.c: the files the observer writes into the bundle (sc_observe_obs.h), each
 * made ahead of its moment, and the record of what could not be captured or written. Both
 * other files of the observer call here; nothing here calls them.
 */
#include "internal/sc_observe_obs.h"
#include "sc_bundle.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The files the observer writes into the bundle, each made ahead of its moment
   (sc_bundle_ahead()) once the workload runs: above all the snapshots at main_loop_begin,
   which the workload waits for (making 8 files took 4-8 ms of that wait on this project's
   ext4 /tmp, 0.8 ms on a tmpfs). */
static const char *const sc__files[] = {
    "workload_status.txt",    "threads_at_ready.txt", "workload_status_at_ready.txt",
    "numa_maps_at_ready.txt", "environ_at_ready.txt", "numastat_at_ready.txt",
    "capture_guard.env",      "main_loop.ready",      "interference.txt"};
_Static_assert(sizeof(sc__files) / sizeof(sc__files[0]) == SC_OBS_NFILES,
               "sc_obs.ahead has one slot per file of sc__files");

/* A file of this run in the bundle: name, or <dir>/name for a run of several. */
static const char *sc__rel(const sc_obs *s, const char *name, char *buf, size_t len)
{
    if (!s->o->dir || !*s->o->dir)
        return name;
    snprintf(buf, len, "%s/%s", s->o->dir, name);
    return buf;
}

/* Writes the bundle file name of this run (one of sc__files), into the file made ahead
   for it when there is one. 0 or -errno. */
int sc_obs_put(sc_obs *s, const char *name, const void *data, size_t len)
{
    char rel[256];
    int fd = -1;

    for (size_t i = 0; i < SC_OBS_NFILES; i++)
        if (!strcmp(sc__files[i], name)) {
            fd = s->ahead[i];
            s->ahead[i] = -1;
        }
    return sc_bundle_write_ahead(s->o->bundle, fd, sc__rel(s, name, rel, sizeof(rel)), data, len);
}

/* Makes the files of sc__files ahead (interference.txt only with a sampler,
   numa_maps_at_ready.txt not for a launcher); a file system without unnamed files is tried
   once. */
void sc_obs_make_ahead(sc_obs *s)
{
    char rel[256];

    for (size_t i = 0; i < SC_OBS_NFILES; i++) {
        if ((!strcmp(sc__files[i], "interference.txt") && !s->sampler) ||
            (!strcmp(sc__files[i], "numa_maps_at_ready.txt") && s->o->launcher))
            continue;
        int fd = sc_bundle_ahead(s->o->bundle, sc__rel(s, sc__files[i], rel, sizeof(rel)));
        if (fd == -EOPNOTSUPP || fd == -EISDIR)
            break;
        s->ahead[i] = fd >= 0 ? fd : -1;
    }
}

/* Closes the files made ahead and not written (a run that ended early). */
void sc_obs_close_ahead(const sc_obs *s)
{
    for (size_t i = 0; i < SC_OBS_NFILES; i++)
        if (s->ahead[i] >= 0)
            close(s->ahead[i]);
}

/* CLOCK_MONOTONIC in nanoseconds. */
long long sc_obs_now_ns(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* Records a capture failure without stopping the run: a failed snapshot is evidence too. */
void sc_obs_capture_fail(sc_obs *s, const char *what, int rc)
{
    s->r->capture_errors++;
    if (!*s->r->capture_error)
        snprintf(s->r->capture_error, sizeof(s->r->capture_error), "%s: %s", what, strerror(-rc));
}

/* Records evidence that could not be written into the bundle (a full or vanished disk). */
void sc_obs_write_fail(sc_obs *s, const char *what, int rc)
{
    s->r->write_errors++;
    if (!*s->r->write_error)
        snprintf(s->r->write_error, sizeof(s->r->write_error), "%s: %s", what, strerror(-rc));
}
