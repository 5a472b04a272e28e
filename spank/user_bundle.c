/* user_bundle.c: the plugin's bundle writes, as the job's user (see user_bundle.h). */
#include "user_bundle.h"
#include "attest_sign.h"
#include "sc_bundle.h"
#include "sc_file.h"
#include "spank_log.h"

#include <errno.h>
#include <fcntl.h>
#include <slurm/slurm.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Writes one evidence text into the bundle (a missing text is skipped). */
static int sc__put(const sc_bundle *b, const char *rel, const char *text)
{
    if (!text)
        return 0;
    int rc = sc_bundle_write_str(b, rel, text);
    if (rc < 0)
        sc_spank_error("streamcard: cannot write %s/%s: %s", b->path, rel, strerror(-rc));
    return rc;
}

/*
 * This node's evidence under per-host names: platform/<host>/before.txt and, when the
 * platform was changed, prefetch/state/<host>/ (control.log, both readbacks, state.env).
 * Once per node per job: the first step on the node creates before.txt exclusively; later
 * steps find it and write nothing (their change only added a reference to the first one's,
 * see pfctl.h).
 */
static int sc__put_host_evidence(const sc_bundle *b, const sc_user_bundle_in *in)
{
    char host[256], rel[512];
    const sc_pfctl_evidence *ev = in->ev;

    sc_spank_node_name(host, sizeof(host));
    snprintf(rel, sizeof(rel), "platform/%s/before.txt", host);
    int fd = sc_bundle_open_file(b, rel, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd == -EEXIST)
        return 0;
    const char *before = in->platform_before ? in->platform_before : "";
    int rc = fd < 0 ? fd : sc_file_write_all(fd, before, strlen(before));
    if (fd >= 0 && close(fd) < 0 && rc == 0)
        rc = -errno;
    if (rc < 0) {
        sc_spank_error("streamcard: cannot write %s/%s: %s", b->path, rel, strerror(-rc));
        return rc;
    }
    /* Root's signed statement of this node, beside the texts it names. */
    snprintf(rel, sizeof(rel), "attest/apply_%s.dsse.json", host);
    rc = sc__put(b, rel, in->attest);
    if (rc < 0 || !ev)
        return rc;
    const struct {
        const char *name, *text;
    } files[] = {{"control.log", ev->control_log},
                 {"msr_readback_before.txt", ev->msr_readback_before},
                 {"msr_readback_after.txt", ev->msr_readback_after},
                 {"state.env", ev->state_env}};
    for (size_t i = 0; rc == 0 && i < 4; i++) {
        snprintf(rel, sizeof(rel), "prefetch/state/%s/%s", host, files[i].name);
        rc = sc__put(b, rel, files[i].text);
    }
    return rc;
}

int sc_user_bundle_add_node(spank_t sp, const sc_user_bundle_in *in)
{
    char path[4096];
    sc_bundle b;

    if (spank_getenv(sp, "STREAMCARD_BUNDLE", path, sizeof(path)) != ESPANK_SUCCESS)
        return 0;
    int rc = sc_bundle_open(&b, path);
    if (rc < 0) {
        sc_spank_error("streamcard: cannot open the bundle %s on this node for its evidence: %s "
                       "(valid: a job working directory shared by the job's nodes)",
                       path, strerror(-rc));
        return -1;
    }
    rc = sc__put_host_evidence(&b, in);
    sc_bundle_close(&b);
    return rc < 0 ? -1 : 0;
}

/* The run's own files: card.yaml, platform/before.txt, the change's evidence. */
static int sc__put_run_files(const sc_bundle *b, const sc_user_bundle_in *in)
{
    const sc_pfctl_evidence *ev = in->ev;
    int rc = sc__put(b, "card.yaml", in->jc->text);

    if (rc == 0)
        rc = sc__put(b, "platform/before.txt", in->platform_before);
    if (rc == 0 && ev) {
        rc = sc__put(b, "prefetch/control.log", ev->control_log);
        if (rc == 0)
            rc = sc__put(b, "prefetch/state/msr_readback_before.txt", ev->msr_readback_before);
        if (rc == 0)
            rc = sc__put(b, "prefetch/state/msr_readback_after.txt", ev->msr_readback_after);
        if (rc == 0)
            rc = sc__put(b, "prefetch/state/state.env", ev->state_env);
    }
    return rc;
}

int sc_user_bundle_create(spank_t sp, const sc_user_bundle_in *in)
{
    sc_bundle b;
    char path[4096];
    int rc = sc_bundle_create(&b, ".", in->jc->card->run_name, time(NULL));

    if (rc < 0) {
        sc_spank_error("streamcard: cannot create the bundle in the job's working directory: %s "
                       "(valid: a directory the job's user can write; sbatch --chdir)",
                       strerror(-rc));
        return -1;
    }
    rc = sc__put_run_files(&b, in);
    if (rc == 0)
        rc = sc__put_host_evidence(&b, in);
    snprintf(path, sizeof(path), "%s/card.yaml", b.path);
    if (rc == 0 && (spank_setenv(sp, "STREAMCARD_BUNDLE", b.path, 1) != ESPANK_SUCCESS ||
                    spank_setenv(sp, "STREAMCARD_CARD", path, 1) != ESPANK_SUCCESS ||
                    spank_setenv(sp, "STREAMCARD_CARD_SHA256", in->jc->sha, 1) != ESPANK_SUCCESS ||
                    (strcmp(in->sysroot, "/") != 0 &&
                     spank_setenv(sp, "STREAMCARD_SYSROOT", in->sysroot, 1) != ESPANK_SUCCESS))) {
        sc_spank_error("streamcard: cannot tell the job where its bundle is");
        rc = -1;
    }
    sc_bundle_close(&b);
    return rc < 0 ? -1 : 0;
}
