/*
 * sweep.c: a card that sweeps one variable ("threads: [1, 2]", "sweep: {prefetch: [on,
 * off]}") runs once per value, each run its own sealed bundle, and ends with the table
 * performance engineers otherwise write by hand: the value, the verdict, the figure and its
 * change against the first run. Every run is prepared and checked before the first starts,
 * so a bad value stops the sweep before anything ran.
 */
#include "cli.h"
#include "sc_bundle.h"
#include "sc_results.h"
#include "sc_verify.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void sc_sweep_read(const char *path, sc_workload workload, sc_sweep_row *row, const char **label)
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
                 sc_verify_usable(&report) ? "ok" : sc_verify_intact(&report) ? "failed"
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

static void sc__sweep_table(FILE *out, const char *key, const sc_sweep_row *rows, size_t n,
                            const char *label)
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
static void sc__sweep_save(const char *dir, const char *key, const sc_sweep_row *rows, size_t n,
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
        sc__sweep_table(f, key, rows, n, label);
        fclose(f);
        printf("SWEEP_TABLE=%s\n", path);
    } else {
        fprintf(stderr, "streamcard: cannot write the sweep table %s: %s\n", path,
                strerror(errno));
    }
    free(path);
}

void sc_sweep_report(const char *dir, const char *key, const sc_sweep_row *rows, size_t n,
                     const char *label)
{
    printf("\n");
    sc__sweep_table(stdout, key, rows, n, label);
    sc__sweep_save(dir, key, rows, n, label);
}

int sc_run_sweep(int argc, char **argv, const sc_plan *base, bool dry_run)
{
    size_t n = base->card->n_sweep;
    const char *key = sc_card_field_name(base->card->sweep_field);
    sc_plan *plans = calloc(n, sizeof(*plans));
    sc_sweep_row *rows = calloc(n, sizeof(*rows));
    sc_diag diag;
    int status = SC_EXIT_OK;
    const char *label = "figure";

    if (!plans || !rows) {
        free(plans);
        free(rows);
        return SC_EXIT_ERROR;
    }
    sc_diag_init(&diag);
    if (base->adopt_bundle) {
        fprintf(stderr, "streamcard: a sweep inside a --stream-card job cannot change the "
                        "platform between runs (valid: one job per value: streamcard run "
                        "CARD --submit, or a card without a sweep)\n");
        status = SC_EXIT_USAGE;
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        bool ignored = false;
        if (sc_run_prepare(argc, argv, (long)i, &plans[i], &ignored, &diag) < 0)
            status = SC_EXIT_USAGE;
        rows[i].value = base->card->sweep_values[i];
    }
    if (status != SC_EXIT_OK) {
        sc_diag_print(&diag, "streamcard: ", stderr);
        goto out;
    }
    printf("streamcard sweep: %s over %zu values\n", key, n);
    if (dry_run) {
        for (size_t i = 0; i < n; i++) {
            printf("--- run %zu of %zu: %s=%s\n", i + 1, n, key, rows[i].value);
            sc_plan_print(&plans[i], stdout);
        }
        printf("DRY-RUN complete; no files written.\n");
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        printf("--- run %zu of %zu: %s=%s\n", i + 1, n, key, rows[i].value);
        fflush(stdout);
        if (sc_run_execute(&plans[i]) != SC_EXIT_OK)
            status = SC_EXIT_FAILED;
        sc_sweep_read(plans[i].bundle_path, plans[i].card->workload, &rows[i], &label);
    }
    sc_sweep_report(base->output_dir, key, rows, n, label);
    if (status != SC_EXIT_OK)
        fprintf(stderr, "ERROR: workload failed in at least one run of the sweep; its numbers "
                        "are not usable\n");
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
