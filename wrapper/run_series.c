/*
 * run_series.c: the loop over a card's runs (see run_series.h). A card that sweeps one
 * variable ("threads: [1, 2]", "sweep: {prefetch: [on, off]}") runs once per value, each
 * run its own sealed bundle, and ends with the table performance engineers otherwise write
 * by hand: the value, the verdict, the figure and its change against the first run. Every
 * run was prepared and checked before the first starts (cmd_run.c), so a bad value stops
 * the series before anything ran.
 */
#include "run_series.h"
#include "cli.h"
#include "sc_bundle.h"
#include "sc_results.h"
#include "sc_verify.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* One row of the table, read back from a finished run's bundle. */
typedef struct sc__row {
    const char *value;
    char verdict[16];
    double figure;
    char *bundle; /* malloc'd, or NULL */
} sc__row;

/* Fills row from the bundle at path (NULL: no bundle); *label gets the figure's name. */
static void sc__read_row(const char *path, sc_workload workload, sc__row *row, const char **label)
{
    sc_bundle b;
    sc_verify_report report;
    char *text = NULL;

    snprintf(row->verdict, sizeof(row->verdict), "no bundle");
    row->figure = 0;
    free(row->bundle);
    row->bundle = path ? strdup(path) : NULL;
    if (!path || sc_bundle_open(&b, path) < 0)
        return;
    /* The verdict is verify's, recomputed from the raw files, not results.json's claim. */
    if (sc_verify_bundle(path, &report) == 0)
        snprintf(row->verdict, sizeof(row->verdict), "%s",
                 sc_verify_usable(&report)   ? "ok"
                 : sc_verify_intact(&report) ? "failed"
                                             : "unverified");
    sc_verify_report_free(&report);
    if (sc_bundle_read(&b, "results.json", &text, NULL) == 0) {
        json_object *root = json_tokener_parse(text), *metrics = NULL;
        if (root)
            json_object_object_get_ex(root, "metrics", &metrics);
        row->figure = sc_results_primary(metrics, workload, label);
        json_object_put(root);
    }
    free(text);
    sc_bundle_close(&b);
}

static void sc__table(FILE *out, const char *key, const sc__row *rows, size_t n, const char *label)
{
    fprintf(out, "| %s | verdict | %s | change vs %s=%s | bundle |\n", key, label, key,
            rows[0].value);
    fprintf(out, "|---|---|---|---|---|\n");
    for (size_t i = 0; i < n; i++) {
        char change[32] = "(baseline)";
        if (i > 0 && rows[0].figure > 0 && rows[i].figure > 0)
            snprintf(change, sizeof(change), "%+.1f%%",
                     100.0 * (rows[i].figure - rows[0].figure) / rows[0].figure);
        else if (i > 0)
            snprintf(change, sizeof(change), "n/a");
        if (strcmp(rows[i].verdict, "ok") != 0)
            snprintf(change, sizeof(change), "not usable");
        fprintf(out, "| %s | %s | %.1f | %s | %s |\n", rows[i].value, rows[i].verdict,
                rows[i].figure, change, rows[i].bundle ? rows[i].bundle : "-");
    }
}

/* Writes the table next to the bundles: <output>/sweep_<key>_<YYYYMMDD_HHMMSS>.md. */
static void sc__save(const char *dir, const char *key, const sc__row *rows, size_t n,
                     const char *label)
{
    char stamp[32], *path = NULL;
    time_t now = time(NULL);
    struct tm tm;

    localtime_r(&now, &tm);
    strftime(stamp, sizeof(stamp), "%Y%m%d_%H%M%S", &tm);
    if (asprintf(&path, "%s/sweep_%s_%s.md", dir, key, stamp) < 0)
        return;
    FILE *f = fopen(path, "wx");
    if (f) {
        fprintf(f, "# streamcard sweep of %s (%zu runs)\n\n", key, n);
        sc__table(f, key, rows, n, label);
        fclose(f);
        printf("SWEEP_TABLE=%s\n", path);
    } else {
        fprintf(stderr, "streamcard: cannot write the sweep table %s: %s\n", path, strerror(errno));
    }
    free(path);
}

/* Prints the table and saves it next to the bundles in dir. */
static void sc__report(const char *dir, const char *key, const sc__row *rows, size_t n,
                       const char *label)
{
    printf("\n");
    sc__table(stdout, key, rows, n, label);
    sc__save(dir, key, rows, n, label);
}

int sc_run_series_execute(const sc_run_series *rs, const sc_executor *ex)
{
    const sc_series *s = rs->series;
    const char *var = s->variable, *label = "figure";
    bool lone = s->n == 1, dry = rs->opts->dry_run, failed = false;
    sc__row *rows = calloc(s->n, sizeof(*rows));
    int status = SC_EXIT_OK;

    if (!rows)
        return SC_EXIT_ERROR;
    int rc = ex->begin ? ex->begin(ex->state, rs) : 0;
    if (rc != 0) {
        free(rows);
        return rc;
    }
    for (size_t i = 0; i < s->n; i++) {
        char *bundle = NULL;
        rows[i].value = s->runs[i].label;
        if (var) {
            printf("--- run %zu of %zu: %s=%s\n", i + 1, s->n, var, rows[i].value);
            fflush(stdout);
        }
        int one = ex->run(ex->state, rs, i, &bundle);
        if (!dry && (var || ex->verify_each)) {
            sc__read_row(bundle, rs->plans[i].card->workload, &rows[i], &label);
            if (ex->verify_each && strcmp(rows[i].verdict, "ok") != 0)
                one = SC_EXIT_FAILED;
        }
        free(bundle);
        failed = failed || one != SC_EXIT_OK;
        if (lone)
            status = one;
    }
    if (dry) {
        printf("%s\n", ex->dry_note);
        goto out;
    }
    if (var)
        sc__report(rs->opts->output_dir, var, rows, s->n, label);
    if (ex->end)
        ex->end(ex->state, rs, failed);
    if (!lone && failed)
        status = SC_EXIT_FAILED;
out:
    for (size_t i = 0; i < s->n; i++)
        free(rows[i].bundle);
    free(rows);
    return status;
}
