/*
 * observe_sampler.c: the observer's interference window (sc_observe_obs.h). The sampler of
 * /proc is primed while the workload starts, opened at main_loop_begin (the last thing
 * before the release), scanned while the main loop runs, closed at main_loop_end, and its
 * records written into interference.txt once the workload is gone
 * (doc/contracts/gates.md, "Interference").
 */
#include "internal/sc_observe_obs.h"
#include "sc_kv.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

/* The sampler's first failure: said once, and no interference.txt (the gate says so). */
static void sc__sampler_fail(sc_obs *s, int rc)
{
    sc_obs_capture_fail(s, "interference.txt", rc);
    sc_sampler_free(s->sampler);
    s->sampler = NULL;
}

/*
 * The sampler, primed while the workload starts up (right after the fork: reading every
 * task of /proc takes milliseconds the workload would otherwise wait for at main_loop_begin).
 */
void sc_obs_sampler_prime(sc_obs *s)
{
    pid_t self = getpid();

    if (!s->o->interference || !s->o->n_acct_cpus)
        return;
    snprintf(s->host, sizeof(s->host), "unknown");
    gethostname(s->host, sizeof(s->host) - 1);
    sc_sampler_opts so = {.cpus = s->o->acct_cpus,
                          .ncpus = s->o->n_acct_cpus,
                          .roots = &self,
                          .nroots = 1,
                          .source = "observer",
                          .host = s->host};
    s->proc_root = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    s->sampler = s->proc_root >= 0 ? sc_sampler_new(&so) : NULL;
    int rc = s->sampler
                 ? sc_sampler_sample(s->sampler, s->proc_root, SC_SAMPLE_PRIME, sc_obs_now_ns())
                 : -errno;
    if (rc < 0)
        sc__sampler_fail(s, rc);
}

/* A sample of the sampler's window, if there is one; the first failure ends it. */
static bool sc__sampler_take(sc_obs *s, sc_sample_kind kind)
{
    int rc = s->sampler ? sc_sampler_sample(s->sampler, s->proc_root, kind, sc_obs_now_ns()) : 0;

    if (rc < 0)
        sc__sampler_fail(s, rc);
    return s->sampler != NULL;
}

/* Opens the interference window: the last thing before the workload is released. */
void sc_obs_sampler_begin(sc_obs *s)
{
    sc__sampler_take(s, SC_SAMPLE_BEGIN);
}

static int sc__append_line(void *ctx, const char *line)
{
    sc_kv *kv = ctx;

    sc_kv_append(kv, line);
    sc_kv_append(kv, "\n");
    return kv->failed ? -ENOMEM : 0;
}

/*
 * Closes the window at main_loop_end, exactly and cheaply: the CPU times and the job's own
 * tasks (END_OWN). The foreign tasks are read once the workload is gone (sc_obs_sampler_write):
 * read now, they would compete with its exit for the CPUs.
 */
void sc_obs_sampler_close(sc_obs *s)
{
    clock_gettime(CLOCK_MONOTONIC, &s->r->mono_end);
    s->names_pending = sc__sampler_take(s, SC_SAMPLE_END_OWN);
}

/* After the workload: the foreign tasks' last sample when the window had foreign CPU time
   (or, without main_loop_end, the window closes with the workload) and interference.txt. */
void sc_obs_sampler_write(sc_obs *s)
{
    sc_kv kv;

    if (!s->sampler)
        return;
    /* A window without foreign CPU time has nobody to name: its last reading is skipped. */
    bool names = s->names_pending && !sc_sampler_quiet(s->sampler);
    int rc = names || !s->names_pending
                 ? sc_sampler_sample(s->sampler, s->proc_root,
                                     names ? SC_SAMPLE_NAMES : SC_SAMPLE_END, sc_obs_now_ns())
                 : 0;
    if (rc < 0 && s->names_pending) {
        sc_obs_capture_fail(s, "interference.txt (the foreign tasks' last sample)", rc);
        rc = 0; /* the window's records stand; the intruders are the earlier samples' */
    }
    sc_kv_init(&kv);
    sc_kv_append(&kv, "# streamcard interference records: "
                      "doc/contracts/gates.md, \"Interference\"\n");
    if (rc == 0)
        rc = sc_sampler_records(s->sampler, sc__append_line, &kv);
    if (rc < 0)
        sc_obs_capture_fail(s, "interference.txt", rc);
    else if ((rc = sc_obs_put(s, "interference.txt", kv.text, kv.len)) < 0)
        sc_obs_write_fail(s, "interference.txt", rc);
    sc_kv_free(&kv);
    sc_sampler_free(s->sampler);
    s->sampler = NULL;
}

/* A scan of /proc while the main loop runs, when one is due (none before its window opens
   or after it closed: next_scan is 0 then, and a scan would be refused). */
void sc_obs_sampler_tick(sc_obs *s)
{
    long long now = sc_obs_now_ns(), due = s->sampler ? sc_sampler_next_scan(s->sampler) : 0;

    if (due > 0 && now >= due) {
        int rc = sc_sampler_sample(s->sampler, s->proc_root, SC_SAMPLE_SCAN, now);
        if (rc < 0)
            sc_obs_capture_fail(s, "interference.txt (scan)", rc);
    }
}

/*
 * Before the window opens, the observer leaves its CPU for a moment. Its snapshots preempted
 * the job's threads on the CPUs it ran on (the main thread, which wrote main_loop_begin,
 * often before it reached its wait for the release); the kernel adds a queued thread's wait
 * to its run_delay only when it runs again, which would be inside the window, as a wait for a
 * CPU that no foreign task caused. Asleep, the observer lets them run now: their wait lands
 * before the window's first reading. 20 us asked (the timer slack makes it ~70).
 */
void sc_obs_make_way(const sc_obs *s)
{
    if (s->sampler)
        nanosleep(&(struct timespec){0, 20000}, NULL);
}
