/*
 * submit.c: `streamcard run CARD --submit`: each run of the card (each value of its
 * sweep) becomes a job, `sbatch --stream-card=<that run's card> --wait`, one after the
 * other, so the SPANK plugin sets and restores the platform for each run (a prefetch
 * on/off sweep is only possible this way: nothing else may write the MSRs). The runs'
 * cards and the job script are kept in <output>/streamcard-submit/; each job writes its
 * bundle into <output>; the table of the sweep follows, as for a local sweep.
 */
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

/* Submits one run and waits for it; fills row. Returns 0 when the job completed. */
static int sc__submit_one(const sc_plan *base, const sc_plan *plan, const char *dir,
                          const char *job_sh, bool dry_run, sc_sweep_row *row, const char **label)
{
    char card_path[PATH_MAX + 64], opt_card[PATH_MAX + 80], opt_chdir[PATH_MAX + 16];
    char opt_out[PATH_MAX + 128], opt_name[160], out_dir[PATH_MAX], *jobid = NULL;
    const char *argv[64];
    size_t n = 0;

    if (!realpath(base->output_dir, out_dir))
        snprintf(out_dir, sizeof(out_dir), "%s", base->output_dir);
    snprintf(card_path, sizeof(card_path), "%s/%s.yaml", dir, plan->card->run_name);
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
    for (size_t i = 0; i < base->n_sbatch_args && n < 62; i++)
        argv[n++] = base->sbatch_args[i];
    argv[n++] = job_sh;
    argv[n] = NULL;
    printf("  ");
    for (size_t i = 0; i < n; i++)
        printf(" %s", argv[i]);
    printf("\n");
    fflush(stdout);
    if (dry_run)
        return 0;
    if (sc__write_card(dir, plan, card_path, sizeof(card_path)) < 0) {
        fprintf(stderr, "streamcard: cannot write %s: %s\n", card_path, strerror(errno));
        return -1;
    }
    int rc = sc_spawn_capture((char *const *)argv, NULL, &jobid);
    if (jobid)
        jobid[strcspn(jobid, "\n;")] = '\0';
    if (!jobid || !*jobid) {
        fprintf(stderr, "streamcard: sbatch did not submit %s (see its messages above)\n",
                plan->card->run_name);
        free(jobid);
        return -1;
    }
    char *bundle = sc__job_bundle(out_dir, plan->card->run_name, jobid);
    printf("   job %s ended%s; bundle %s\n", jobid, rc == 0 ? "" : " with a failure",
           bundle ? bundle : "(none)");
    sc_sweep_read(bundle, plan->card->workload, row, label);
    free(bundle);
    free(jobid);
    return rc == 0 ? 0 : -1;
}

int sc_run_submit(int argc, char **argv, const sc_plan *base, bool dry_run)
{
    size_t n = base->card->n_sweep ? base->card->n_sweep : 1;
    const char *key = base->card->n_sweep ? sc_card_field_name(base->card->sweep_field) : NULL;
    sc_plan *plans = calloc(n, sizeof(*plans));
    sc_sweep_row *rows = calloc(n, sizeof(*rows));
    char dir[PATH_MAX + 32], job_sh[PATH_MAX + 64];
    const char *label = "figure";
    sc_diag diag;
    int status = SC_EXIT_OK;

    if (!plans || !rows) {
        free(plans);
        free(rows);
        return SC_EXIT_ERROR;
    }
    sc_diag_init(&diag);
    for (size_t i = 0; i < n; i++) {
        bool ignored = false;
        if (sc_run_prepare(argc, argv, key ? (long)i : -1, &plans[i], &ignored, &diag) < 0)
            status = SC_EXIT_USAGE;
        rows[i].value = key ? base->card->sweep_values[i] : "-";
    }
    if (status != SC_EXIT_OK) {
        sc_diag_print(&diag, "streamcard: ", stderr);
        goto out;
    }
    snprintf(dir, sizeof(dir), "%s/streamcard-submit", base->output_dir);
    if (!dry_run && ((mkdir(base->output_dir, 0755) < 0 && errno != EEXIST) ||
                     (mkdir(dir, 0755) < 0 && errno != EEXIST) ||
                     sc__write_job(dir, job_sh, sizeof(job_sh)) < 0)) {
        fprintf(stderr, "streamcard: cannot prepare %s: %s (valid: a writable --output)\n", dir,
                strerror(errno));
        status = SC_EXIT_ERROR;
        goto out;
    }
    snprintf(job_sh, sizeof(job_sh), "%s/job.sh", dir);
    for (size_t i = 0; i < n; i++) {
        if (key)
            printf("--- run %zu of %zu: %s=%s\n", i + 1, n, key, rows[i].value);
        if (sc__submit_one(base, &plans[i], dir, job_sh, dry_run, &rows[i], &label) < 0)
            status = SC_EXIT_FAILED;
    }
    if (dry_run) {
        printf("DRY-RUN complete; no files written, nothing submitted.\n");
        goto out;
    }
    if (key)
        sc_sweep_report(base->output_dir, key, rows, n, label);
    for (size_t i = 0; i < n; i++)
        if (strcmp(rows[i].verdict, "ok") != 0)
            status = SC_EXIT_FAILED;
    if (status != SC_EXIT_OK)
        fprintf(stderr, "ERROR: workload failed in at least one submitted run; its numbers are "
                        "not usable\n");
out:
    for (size_t i = 0; i < n; i++) {
        sc_plan_free(&plans[i]);
        free(rows[i].bundle);
    }
    free(plans);
    free(rows);
    sc_diag_free(&diag);
    return status;
}
