/*
 * submit.c: the sbatch executor of `streamcard run CARD --submit` (submit.h): each run of
 * the card (each value of its sweep) becomes a job, `sbatch --stream-card=<that run's
 * card> --wait`, one after the other, so the SPANK plugin sets and restores the platform
 * for each run (a prefetch on/off sweep is only possible this way: nothing else may write
 * the MSRs). The runs' cards and the job script are kept in <output>/streamcard-submit/;
 * each job writes its bundle into <output>; the table of the sweep follows, as for a local
 * sweep.
 */
#include "sc_spawn.h"
#include "submit.h"
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sc_file.h"
#include "sc_text.h"
#include "sc_tracelog.h"

/* The job script: the job runs this streamcard, which finds the card the plugin carried. */
static int sc__write_job(const char *dir, char *path, size_t pathlen)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

    if (n <= 0)
        return -errno;
    self[n] = '\0';
    snprintf(path, pathlen, "%s/job.sh", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return -errno;
    fprintf(f, "#!/bin/bash\n# written by streamcard run --submit: exec, so that a scancel "
               "reaches streamcard\n# first and the run's bundle is still sealed\nexec %s run\n",
            self);
    int rc = fclose(f) == 0 ? 0 : -errno;
    return rc == 0 && chmod(path, 0755) < 0 ? -errno : rc;
}

static int sc__write_card(const char *dir, const sc_plan *plan, char *path, size_t pathlen)
{
    snprintf(path, pathlen, "%s/%s.yaml", dir, plan->card->run_name);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
        return -errno;
    int rc = sc_file_write_all(fd, plan->card_yaml, strlen(plan->card_yaml));
    close(fd);
    return rc;
}

/* The bundle path the job's streamcard printed (BUNDLE=...) in its output file. */
static char *sc__job_bundle(const char *out_dir, const char *run_name, const char *job)
{
    char path[PATH_MAX * 2], value[PATH_MAX] = "", *text = NULL;

    snprintf(path, sizeof(path), "%s/%s-%s.out", out_dir, run_name, job);
    if (sc_file_read_at(AT_FDCWD, path, 0, 16u << 20, &text, NULL) < 0)
        return NULL;
    for (const char *p = strstr(text, "BUNDLE="); p; p = strstr(p + 1, "BUNDLE="))
        if (p == text || p[-1] == '\n')
            snprintf(value, sizeof(value), "%.*s", (int)strcspn(p + 7, "\n"), p + 7);
    free(text);
    return *value ? strdup(value) : NULL;
}

/* Slurm's own line of a job ended from outside ("*** JOB 12 ON n1 CANCELLED AT ... ***",
   "... DUE TO TIME LIMIT ***"): copied into line (trimmed); its line number, or 0. */
static long sc__slurm_end_line(const char *text, char *line, size_t len)
{
    long lineno = 0;

    for (const char *p = text; p && *p;) {
        size_t n = strcspn(p, "\n");
        lineno++;
        const char *star = memmem(p, n, "*** JOB ", 8);
        if (star && (memmem(p, n, " CANCELLED", 10) || memmem(p, n, " DUE TO ", 8))) {
            n -= (size_t)(star - p);
            snprintf(line, len, "%.*s", (int)n, star);
            return lineno;
        }
        p += n + (p[n] == '\n');
    }
    return 0;
}

/* The first cause line of a job's output that is not the plugin's notice that the bundle is
   not attested (a missing key never ends a job); its line number, or 0. */
static long sc__job_output_cause(const char *text, char *line, size_t len)
{
    long base = 0;

    for (const char *p = text; p && *p;) {
        long at = sc_tracelog_first_cause(p, line, len);
        if (at <= 0)
            return 0;
        if (!strstr(line, "not attested"))
            return base + at;
        for (long k = 0; k < at && p; k++) { /* past the notice */
            p = strchr(p, '\n');
            p = p ? p + 1 : NULL;
        }
        base += at;
    }
    return 0;
}

/* Why a job made no bundle: Slurm's word that it was cancelled (or ended by a time limit),
   else the first cause line of its output (the node's refusal, the job's own error), else
   where to look. malloc'd; NULL when out of memory. */
static char *sc__job_cause(const char *out_dir, const char *run_name, const char *job)
{
    char path[PATH_MAX * 2], line[400], shown[480], *text = NULL, *cause = NULL;
    long at = 0;
    bool slurm = false;

    snprintf(path, sizeof(path), "%s/%s-%s.out", out_dir, run_name, job);
    if (sc_file_read_at(AT_FDCWD, path, 0, 16u << 20, &text, NULL) == 0) {
        slurm = (at = sc__slurm_end_line(text, line, sizeof(line))) > 0;
        if (!slurm)
            at = sc__job_output_cause(text, line, sizeof(line));
    }
    if (at > 0) {
        sc_text_escape(shown, sizeof(shown), line, strlen(line)); /* the job's own words */
        if ((slurm ? asprintf(&cause, "job %s: Slurm: %s", job, shown)
                   : asprintf(&cause, "job %s: job output line %ld: %s", job, at, shown)) < 0)
            cause = NULL;
    } else if (asprintf(&cause, "job %s ended without a bundle; see %s", job, path) < 0) {
        cause = NULL;
    }
    free(text);
    return cause;
}

/* Submits run i and waits for it (with a dry run, prints the command): the job makes every
   run of its card (runs: N or auto) into its one bundle. Sets *bundle to the bundle the job
   printed, or *cause to why there is none. Returns 0 when the job completed, else 1. */
static int sc__sbatch_run(void *state, const sc_run_series *rs, size_t i, size_t round, bool *more,
                          char **bundle, char **cause)
{
    const sc_sbatch *sb = state;
    const sc_plan *plan = &rs->plans[i];
    const sc_run_opts *opts = rs->opts;
    (void)round;
    *more = false;
    char card_path[PATH_MAX + 64], opt_card[PATH_MAX + 80], opt_chdir[PATH_MAX + 16];
    char opt_out[PATH_MAX + 128], opt_name[160], out_dir[PATH_MAX], *jobid = NULL;
    const char *argv[64];
    size_t n = 0;

    if (!realpath(opts->output_dir, out_dir))
        snprintf(out_dir, sizeof(out_dir), "%s", opts->output_dir);
    snprintf(card_path, sizeof(card_path), "%s/%s.yaml", sb->dir, plan->card->run_name);
    snprintf(opt_card, sizeof(opt_card), "--stream-card=%s", card_path);
    snprintf(opt_chdir, sizeof(opt_chdir), "--chdir=%s", out_dir);
    snprintf(opt_out, sizeof(opt_out), "--output=%s/%s-%%j.out", out_dir, plan->card->run_name);
    snprintf(opt_name, sizeof(opt_name), "--job-name=%s", plan->card->run_name);
    argv[n++] = "sbatch";
    argv[n++] = "--parsable";
    argv[n++] = "--wait";
    argv[n++] = opt_card;
    argv[n++] = opt_chdir;
    argv[n++] = opt_out;
    argv[n++] = opt_name;
    for (size_t a = 0; a < opts->n_sbatch_args && n < 62; a++)
        argv[n++] = opts->sbatch_args[a];
    argv[n++] = sb->job_sh;
    argv[n] = NULL;
    printf("  ");
    for (size_t a = 0; a < n; a++)
        printf(" %s", argv[a]);
    printf("\n");
    fflush(stdout);
    if (opts->dry_run)
        return SC_EXIT_OK;
    if (sc__write_card(sb->dir, plan, card_path, sizeof(card_path)) < 0) {
        fprintf(stderr, "streamcard: cannot write %s: %s\n", card_path, strerror(errno));
        return SC_EXIT_FAILED;
    }
    int rc = sc_spawn_capture((char *const *)argv, NULL, &jobid);
    if (jobid)
        jobid[strcspn(jobid, "\n;")] = '\0';
    if (!jobid || !*jobid) {
        fprintf(stderr, "streamcard: sbatch did not submit %s (see its messages above)\n",
                plan->card->run_name);
        *cause = strdup("sbatch did not submit it (its messages above)");
        free(jobid);
        return SC_EXIT_FAILED;
    }
    *bundle = sc__job_bundle(out_dir, plan->card->run_name, jobid);
    if (!*bundle)
        *cause = sc__job_cause(out_dir, plan->card->run_name, jobid);
    printf("   job %s ended%s; bundle %s%s%s\n", jobid, rc == 0 ? "" : " with a failure",
           *bundle ? *bundle : "(none: ", *bundle ? "" : (*cause ? *cause : "cause unknown"),
           *bundle ? "" : ")");
    free(jobid);
    return rc == 0 ? SC_EXIT_OK : SC_EXIT_FAILED;
}

/* The folder of the runs' cards and the job script (not made by a dry run). */
static int sc__sbatch_begin(void *state, const sc_run_series *rs)
{
    sc_sbatch *sb = state;
    const char *out = rs->opts->output_dir;

    snprintf(sb->dir, sizeof(sb->dir), "%s/streamcard-submit", out);
    if (!rs->opts->dry_run && ((mkdir(out, 0755) < 0 && errno != EEXIST) ||
                               (mkdir(sb->dir, 0755) < 0 && errno != EEXIST) ||
                               sc__write_job(sb->dir, sb->job_sh, sizeof(sb->job_sh)) < 0)) {
        fprintf(stderr, "streamcard: cannot prepare %s: %s (valid: a writable --output)\n", sb->dir,
                strerror(errno));
        return SC_EXIT_ERROR;
    }
    snprintf(sb->job_sh, sizeof(sb->job_sh), "%s/job.sh", sb->dir);
    return 0;
}

static void sc__sbatch_end(void *state, const sc_run_series *rs, bool failed)
{
    (void)state;
    (void)rs;
    if (failed)
        fprintf(stderr, "ERROR: workload failed in at least one submitted run; its numbers are "
                        "not usable\n");
}

void sc_sbatch_executor(sc_executor *ex, sc_sbatch *sb)
{
    memset(sb, 0, sizeof(*sb));
    *ex = (sc_executor){.begin = sc__sbatch_begin,
                        .run = sc__sbatch_run,
                        .end = sc__sbatch_end,
                        .verify_each = true,
                        .dry_note = "DRY-RUN complete; no files written, nothing submitted.",
                        .state = sb};
}
