/*
 * classify_rerun.c: `streamcard classify --rerun-baseline BASELINE [CARD]`: a bisection step
 * as a paired run (doc/contracts/run.md, "Paired runs"): side A the baseline's card with the
 * baseline's build (the workload binary build.json names, unchanged since: its SHA-256),
 * side B the candidate: CARD (default: the baseline's card) with this build's workload.
 * Both take turns now, on the same CPUs, so the host's drift between the baseline's day and
 * this step's minute cancels in each pair. The pair is made by `streamcard run --against`
 * (this same program, a child), and its directory is what classify then judges.
 */
#include "classify.h"
#include "cli.h"
#include "plan.h"
#include "sc_bundle.h"
#include "sc_hash.h"
#include "sc_spawn.h"
#include "sc_text.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The baseline's workload binary: build.json's path, still the file whose SHA-256 it names.
   Its folder into dir. Returns 0, or -errno with why (one phrase) in why. */
static int sc__baseline_build(const sc_bundle_facts *base, char *dir, size_t len, char *why,
                              size_t wlen)
{
    sc_bundle b;
    char *text = NULL, hex[SC_HASH_HEX_LEN + 1];
    json_object *build = NULL, *v;
    const char *binary = NULL, *sha = NULL;
    int rc = sc_bundle_open(&b, base->path);

    if (rc == 0) {
        rc = sc_bundle_read(&b, "build.json", &text, NULL);
        sc_bundle_close(&b);
    }
    if (rc == 0 && (build = json_tokener_parse(text))) {
        if (json_object_object_get_ex(build, "binary", &v))
            binary = json_object_get_string(v);
        if (json_object_object_get_ex(build, "sha256", &v))
            sha = json_object_get_string(v);
    }
    if (!binary || !sha || *binary != '/') {
        snprintf(why, wlen, "its build.json names no workload binary");
        rc = -EINVAL;
    } else if ((rc = sc_hash_file_at(AT_FDCWD, binary, hex)) < 0) {
        snprintf(why, wlen, "its workload %s cannot be read: %s", binary, strerror(-rc));
    } else if (strcmp(hex, sha) != 0) {
        snprintf(why, wlen,
                 "its workload %s changed since the baseline was made (SHA-256 %.12s..., the "
                 "baseline's %.12s...)",
                 binary, hex, sha);
        rc = -ESTALE;
    } else {
        snprintf(dir, len, "%s", binary);
        *strrchr(dir, '/') = '\0';
    }
    json_object_put(build);
    free(text);
    return rc;
}

/* The baseline's card.yaml into a private file (the run reads a card from a file). */
static int sc__card_file(const sc_bundle_facts *base, char *path, size_t len)
{
    snprintf(path, len, "/tmp/streamcard-baseline-XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0)
        return -errno;
    size_t n = strlen(base->card_text);
    int rc = write(fd, base->card_text, n) == (ssize_t)n ? 0 : -EIO;
    close(fd);
    if (rc < 0)
        unlink(path);
    return rc;
}

/* The PAIR=<dir> line of the run's output; malloc'd, or NULL. */
static char *sc__pair_line(const char *out)
{
    char value[PATH_MAX] = "";

    for (const char *p = out ? strstr(out, "PAIR=") : NULL; p; p = strstr(p + 1, "PAIR="))
        if (p == out || p[-1] == '\n')
            snprintf(value, sizeof(value), "%.*s", (int)strcspn(p + 5, "\n"), p + 5);
    return *value ? strdup(value) : NULL;
}

int sc_classify_rerun(const sc_classify_opts *o, const sc_analysis_bundle *base, const char *card,
                      char **pair)
{
    char base_dir[PATH_MAX], why[512], card_path[64], self[PATH_MAX], out_dir[PATH_MAX];
    char *current = NULL, *out = NULL, seed[32];
    const char *argv[24];
    size_t n = 0;
    int rc;

    *pair = NULL;
    if (!base->facts.card_text ||
        sc__baseline_build(&base->facts, base_dir, sizeof(base_dir), why, sizeof(why)) < 0) {
        printf("skip: the baseline %s cannot be run again: %s (valid: keep the baseline's "
               "build in a folder of its own, e.g. cmake --install build --prefix DIR)\n",
               base->arg, base->facts.card_text ? why : "it holds no card.yaml");
        return SC_CLASSIFY_ABORT;
    }
    ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (len <= 0 || sc__card_file(&base->facts, card_path, sizeof(card_path)) < 0) {
        fprintf(stderr, "streamcard: classify: cannot prepare the paired run: %s\n",
                strerror(errno));
        return SC_CLASSIFY_ABORT;
    }
    self[len] = '\0';
    /* The candidate's build: where this streamcard takes workloads from (its own folder, or
       STREAMCARD_KERNEL_DIR as the bisection step set it). */
    current = sc_plan_kernel_dir(base->facts.workload, NULL);
    snprintf(out_dir, sizeof(out_dir), "%s", o->output ? o->output : base->facts.path);
    if (!o->output && strrchr(out_dir, '/')) /* beside the baseline */
        *strrchr(out_dir, '/') = '\0';
    else if (!o->output)
        snprintf(out_dir, sizeof(out_dir), ".");
    argv[n++] = self;
    argv[n++] = "run";
    argv[n++] = card_path;
    argv[n++] = "--against";
    argv[n++] = card ? card : card_path;
    argv[n++] = "--output";
    argv[n++] = out_dir;
    argv[n++] = "--quiet";
    if (current && strcmp(current, base_dir) != 0) {
        argv[n++] = "--against-kernel-dir";
        argv[n++] = current;
    }
    if (o->has_seed) {
        snprintf(seed, sizeof(seed), "%llu", (unsigned long long)o->seed);
        argv[n++] = "--seed";
        argv[n++] = seed;
    }
    argv[n] = NULL;
    /* side A's workloads: the baseline's build */
    setenv("STREAMCARD_KERNEL_DIR", base_dir, 1);
    fprintf(stderr, "streamcard: classify: the baseline's card and build (%s) against %s, %s\n",
            base_dir, card ? card : "the same card", current ? current : "this build");
    fflush(stderr);
    rc = sc_spawn_capture((char *const *)argv, &(sc_spawn_opts){.max_bytes = 16u << 20}, &out);
    unlink(card_path);
    *pair = sc__pair_line(out);
    if (!*pair) {
        char shown[600];
        const char *msg = card ? card : "the baseline's card";
        sc_text_escape(shown, sizeof(shown), msg, strlen(msg));
        printf("skip: the paired run of %s against the baseline made no pair (%s; its "
               "messages above)\n",
               shown, rc == -ECHILD ? "streamcard run refused or failed" : strerror(-rc));
    }
    free(current);
    free(out);
    return *pair ? SC_ANALYSIS_GO_ON : SC_CLASSIFY_SKIP;
}
