/*
 * plugin.c: spank_streamcard.so, the option --stream-card=CARD for sbatch, salloc and srun.
 * A thin Slurm adapter over libstreamcard (the card, binding, the bundle) and the platform
 * layer (pfctl.h: MSRs, governor, restore journal). Where each callback runs and as whom
 * (measured on Slurm 22.05; doc/design.md, "The SPANK plugin"):
 *
 *   slurm_spank_init            every context: registers the option, reads the policy;
 *                               in slurmd (S_CTX_SLURMD): restores what a crash left changed
 *   init_post_opt (allocator,   sbatch/salloc/srun, as the user: reads and checks the card;
 *                  local)       a bad card fails the submission; its bytes and SHA-256 travel
 *                               to the job in SLURM_STREAMCARD_CARD_* (SLURM_ variables reach
 *                               the job even with --export=NONE)
 *   init_post_opt (remote)      slurmstepd, root, once per step: the card from the job's
 *                               environment (never a user-named path) and the machine state
 *                               before anything changes. It never fails: a failure here makes
 *                               Slurm 22.05 drain the node (measured), so problems are kept
 *                               and reported by the task, where they fail the job instead
 *   task_init_privileged        the task, root, before exec: first the card against the
 *                               job's CPUs, memory and host (a refused card changes
 *                               nothing), then prefetch and governor applied, journaled,
 *                               read back (holder: the step's slurmstepd, the task's
 *                               parent); a refusal fails the job
 *   task_init                   the task, as the user, in the job's working directory:
 *                               checks the card again (task/affinity has bound the task
 *                               by now), binds, writes the bundle's first files as the
 *                               user, and tells `streamcard run` where they are
 *   task_exit                   slurmstepd, root, as a task ends: when `streamcard run` was
 *                               killed, its guardian gets time to seal the bundle before
 *                               slurmstepd kills what is left of the step (guardian.h)
 *   slurm_spank_exit (remote)   slurmstepd, root: the step's reference is dropped; the last
 *                               one restores the platform. In the extern step (Slurm's
 *                               per-job container, PrologFlags=Contain), whose end is the
 *                               job's end on the node, whatever is left is restored: the
 *                               job epilog's work (a killed slurmstepd) without the epilog's
 *                               cost; defining slurm_spank_job_epilog makes slurmd start an
 *                               extra process for every job, ~25 ms each (measured)
 *
 * The task callbacks act in the first task of the step running `streamcard run` and, in
 * steps started inside the job (the card's ranks), in the first task on each node: the
 * checks and the platform change then happen on every node the card runs on, and each
 * node's evidence goes into the bundle under its host name (sc__put_host_evidence).
 *
 * Nothing here may take slurmstepd down: no exit(), every pointer checked, every message one
 * line "streamcard: <what failed>: <why> (<what would be valid>)".
 */
#include "guardian.h"
#include "jobcpus.h"
#include "pfctl.h"
#include "policy.h"
#include "sc_bind.h"
#include "sc_bundle.h"
#include "sc_card.h"
#include "sc_codec.h"
#include "sc_file.h"
#include "sc_hash.h"
#include "sc_kv.h"
#include "sc_machine.h"
#include "sc_sysstate.h"
#include "spank_log.h"

#include <errno.h>
#include <fcntl.h>
#include <slurm/slurm.h>
#include <slurm/spank.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

SPANK_PLUGIN(streamcard, 1);

#define SC_ENV_CARD_B64 "SLURM_STREAMCARD_CARD_B64"
#define SC_ENV_CARD_SHA "SLURM_STREAMCARD_CARD_SHA256"
#define SC_ENV_CARD_NAME "SLURM_STREAMCARD_CARD_NAME"
#define SC_CARD_MAX_BYTES 65536 /* a card is a few dozen lines; this bounds the variable */

/* State of this plugin instance (one process: sbatch, one slurmstepd, one epilog). */
static struct {
    sc_policy policy;
    char *option; /* the value given to --stream-card */
    sc_card *card;
    char *card_text;
    char card_sha[SC_HASH_HEX_LEN + 1];
    uint32_t job_id;
    bool card_error; /* the card that came with the job was unusable (already reported) */
    bool card_arriving; /* slurmstepd is reading the job's card: keep its problems */
    sc_diag card_problems; /* what was wrong with it, said again by the task (job output) */
    bool platform_changed;
    sc_pfctl_evidence ev;
    char *platform_before;
} sc_plug;

static int sc__option_cb(int val, const char *optarg, int remote);

static struct spank_option sc__option = {
    "stream-card", "CARD",
    "run the job under the streamcard experiment CARD (YAML): checked now, enforced and "
    "recorded on the node",
    1, 0, sc__option_cb};

static int sc__option_cb(int val, const char *optarg, int remote)
{
    (void)val;
    (void)remote;
    if (!optarg || !*optarg) {
        slurm_error("streamcard: --stream-card: needs a card file (valid: "
                    "--stream-card=card.yaml)");
        return -1;
    }
    free(sc_plug.option);
    sc_plug.option = strdup(optarg);
    return sc_plug.option ? 0 : -1;
}

/* One problem with the card: logged now and, in slurmstepd (whose messages reach only
   slurmd's log), kept for the task to say again where the user reads it, the job's output. */
static void sc__card_problem(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void sc__card_problem(const char *fmt, ...)
{
    char line[1024];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    slurm_error("%s", line);
    if (sc_plug.card_arriving)
        sc_diag_addf(&sc_plug.card_problems, "%s", line);
}

static void sc__report(const sc_diag *d)
{
    for (size_t i = 0; i < d->count; i++)
        sc__card_problem("streamcard: %s", d->lines[i]);
}

static void sc__log_lines(const char *text)
{
    sc_spank_log_lines("streamcard: ", text);
}

static sc_pfctl_config sc__pfctl_config(void)
{
    return (sc_pfctl_config){.sysroot = sc_plug.policy.sysroot,
                             .state_dir = sc_plug.policy.state_dir};
}

/* Parses and checks card text (the same rules as `streamcard run --dry-run`, minus the
   machine). Keeps the card in sc_plug. Returns 0 or -1 with every problem reported. */
static int sc__load_card(const char *text, size_t len, const char *name)
{
    sc_diag d;
    int rc;

    sc_diag_init(&d);
    sc_card_free(sc_plug.card);
    sc_plug.card = sc_card_new();
    rc = sc_plug.card ? sc_card_parse(sc_plug.card, text, len, name, &d) : -ENOMEM;
    /* Key and value errors are reported together with the card's other problems. */
    if (rc == 0 || rc == -EINVAL) {
        int crc = sc_card_check(sc_plug.card, &d);
        rc = rc < 0 ? rc : crc;
    }
    if (rc < 0 && !d.count)
        sc__card_problem("streamcard: %s: %s", name, strerror(-rc));
    sc__report(&d);
    sc_diag_free(&d);
    return rc < 0 ? -1 : 0;
}

/* sbatch/salloc/srun, as the user: check the card and send its bytes with the job. */
static int sc__submit_side(spank_t sp)
{
    char *text = NULL, *b64 = NULL, sha[SC_HASH_HEX_LEN + 1];
    size_t len = 0;
    int rc;

    (void)sp;
    if (!sc_plug.option)
        return 0;
    /* srun inside a --stream-card job inherits the option: the card already travelled. */
    if (getenv("SLURM_JOB_ID") && getenv(SC_ENV_CARD_B64))
        return 0;
    rc = sc_file_read_at(AT_FDCWD, sc_plug.option, 0, SC_CARD_MAX_BYTES, &text, &len);
    if (rc < 0) {
        slurm_error("streamcard: %s: cannot read the card: %s", sc_plug.option,
                    rc == -EFBIG ? "larger than 64 KiB" : strerror(-rc));
        return -1;
    }
    if (sc__load_card(text, len, sc_plug.option) < 0) {
        free(text);
        return -1;
    }
    b64 = sc_base64_encode(text, len);
    rc = b64 ? sc_hash_buf(text, len, sha) : -ENOMEM;
    const char *base = strrchr(sc_plug.option, '/');
    if (rc == 0 && (setenv(SC_ENV_CARD_B64, b64, 1) < 0 || setenv(SC_ENV_CARD_SHA, sha, 1) < 0 ||
                    setenv(SC_ENV_CARD_NAME, base ? base + 1 : sc_plug.option, 1) < 0))
        rc = -errno;
    if (rc < 0)
        slurm_error("streamcard: cannot pass the card to the job: %s", strerror(-rc));
    free(b64);
    free(text);
    return rc < 0 ? -1 : 0;
}

/* The card that travelled with the job, checked against its SHA-256. 1 when there is
   none (not a streamcard job), 0 when loaded, -1 on error. */
static int sc__card_from_job(spank_t sp)
{
    char *b64 = malloc(SC_CARD_MAX_BYTES * 2), sha[SC_HASH_HEX_LEN + 1] = "", name[256] = "card";
    char *text = NULL;
    size_t len = 0;
    int rc = 1;

    if (!b64)
        return -1;
    if (spank_getenv(sp, SC_ENV_CARD_B64, b64, SC_CARD_MAX_BYTES * 2) != ESPANK_SUCCESS)
        goto out;
    spank_getenv(sp, SC_ENV_CARD_SHA, sha, sizeof(sha));
    spank_getenv(sp, SC_ENV_CARD_NAME, name, sizeof(name));
    rc = -1;
    if (sc_base64_decode(b64, &text, &len) < 0 || sc_hash_buf(text, len, sc_plug.card_sha) < 0 ||
        strcmp(sc_plug.card_sha, sha) != 0) {
        sc__card_problem("streamcard: the card in %s does not match its SHA-256 %s (resubmit "
                         "the job)", SC_ENV_CARD_B64, sha);
        goto out;
    }
    if (sc__load_card(text, len, name) < 0)
        goto out;
    sc_plug.card_text = text;
    text = NULL;
    rc = 0;
out:
    free(text);
    free(b64);
    return rc;
}

/* True when the card asks to change prefetch or the governor. */
static bool sc__wants_platform(const sc_card *c)
{
    return c->prefetch != SC_PREFETCH_UNCHANGED || strcmp(c->governor, "unchanged") != 0;
}

/* The job's CPUs on this node: S_JOB_NCPUS when it already counts them all (the batch
   step of an exclusive job), else the job's cpuset cgroup where task/cgroup made one
   (right in every step; S_JOB_NCPUS is an srun step's own share). */
static int sc__job_cpus_here(spank_t sp, long online)
{
    uint16_t ncpus = 0;
    char *text = NULL;
    int n = spank_get_item(sp, S_JOB_NCPUS, &ncpus) == ESPANK_SUCCESS ? (int)ncpus : 0;

    if (n >= online)
        return n;
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    if (set && sc_file_read_at(AT_FDCWD, "/proc/self/cgroup", 0, 1 << 16, &text, NULL) == 0 &&
        sc_job_cpuset(text, sc_plug.job_id, "/sys/fs/cgroup", set) == 0 &&
        hwloc_bitmap_weight(set) > n)
        n = hwloc_bitmap_weight(set);
    free(text);
    hwloc_bitmap_free(set);
    return n;
}

/* Platform changes need the node to themselves when the policy says so. */
static int sc__check_exclusive(spank_t sp)
{
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    int ncpus;

    if (!sc_plug.policy.require_exclusive)
        return 0;
    if ((ncpus = sc__job_cpus_here(sp, online)) < online || online < 1) {
        slurm_error("streamcard: prefetch/governor change the whole node, and this node's "
                    "policy requires the job to have it to itself: it has %d of %ld CPUs "
                    "(valid: submit with --exclusive, or leave prefetch and governor unchanged)",
                    ncpus, online);
        return -1;
    }
    return 0;
}

/* The machine state before anything changes: platform/before.txt of the bundle. */
static void sc__snapshot_before(void)
{
    sc_fsroot root;
    sc_kv kv;

    sc_kv_init(&kv);
    if (sc_fsroot_open(&root, sc_plug.policy.sysroot) == 0) {
        sc_sysstate_capture(&root, sc_plug.card->cpus, &kv);
        sc_fsroot_close(&root);
    }
    sc_plug.platform_before = kv.failed ? NULL : kv.text;
    if (kv.failed)
        sc_kv_free(&kv);
}

/* slurmstepd, as root, once per step: the card and the state before any change. Never
   fails (that would drain the node): a bad card is remembered and fails the task. */
static int sc__step_side(spank_t sp)
{
    sc_plug.card_arriving = true;
    int rc = sc__card_from_job(sp);
    sc_plug.card_arriving = false;

    if (rc < 0)
        sc_plug.card_error = true;
    if (rc != 0)
        return 0;
    spank_get_item(sp, S_JOB_ID, &sc_plug.job_id);
    sc__snapshot_before();
    return 0;
}

/* What a task of a --stream-card job does for the card (see slurm_spank_task_init). */
typedef enum sc_role {
    SC_ROLE_NONE, /* nothing: not the first task of its step on this node */
    SC_ROLE_MAIN, /* the step that runs `streamcard run`: checks, platform, bundle, binding */
    SC_ROLE_NODE, /* a step started inside the job (the card's ranks, on every node):
                     checks, platform and this node's evidence in the existing bundle */
} sc_role;

static sc_role sc__role(spank_t sp)
{
    uint32_t step = 0;
    int task = -1;
    char inherited[8];

    if (spank_get_item(sp, S_TASK_ID, &task) != ESPANK_SUCCESS || task != 0)
        return SC_ROLE_NONE;
    spank_get_item(sp, S_JOB_STEPID, &step);
    if (step != SLURM_BATCH_SCRIPT &&
        spank_getenv(sp, "STREAMCARD_BUNDLE", inherited, sizeof(inherited)) != ESPANK_ENV_NOEXIST)
        return SC_ROLE_NODE;
    return SC_ROLE_MAIN;
}

/* In the task, as root, before exec: apply the card's platform settings for the job. */
static int sc__apply_platform(spank_t sp)
{
    char why[1024] = "";
    sc_card *c = sc_plug.card;

    if (!sc__wants_platform(c))
        return 0;
    if (sc__check_exclusive(sp) < 0)
        return -1;
    sc_pfctl_config cfg = sc__pfctl_config();
    sc_pfctl_request req = {.prefetch = c->prefetch,
                            .governor = c->governor,
                            .cpus = c->cpus,
                            .allow_prefetch = sc_plug.policy.allow_prefetch,
                            .allow_governor = sc_plug.policy.allow_governor};
    /* The holder is the step's slurmstepd (our parent): it lives as long as the step and
       releases its reference in slurm_spank_exit. */
    int rc = sc_pfctl_apply(&cfg, sc_plug.job_id, getppid(), &req, &sc_plug.ev, why, sizeof(why));
    if (rc < 0) {
        slurm_error("%s", *why ? why : "streamcard: platform change refused");
        return -1;
    }
    sc_plug.platform_changed = true;
    return 0;
}

/* Writes one evidence text into the bundle (as the user; a missing text is skipped). */
static int sc__put(const sc_bundle *b, const char *rel, const char *text)
{
    if (!text)
        return 0;
    int rc = sc_bundle_write_str(b, rel, text);
    if (rc < 0)
        slurm_error("streamcard: cannot write %s/%s: %s", b->path, rel, strerror(-rc));
    return rc;
}

/* The job's CPUs are known to this task only once it is confined to them. With a cpuset
   cgroup (task/cgroup) that happens before task_init_privileged; task/affinity alone
   binds the task after it (measured on 22.05), so until then it may run on every CPU of
   the node. A platform change is then refused unless the job has the whole node, since
   cpu_list cannot be checked before the change. */
static int sc__check_confined(spank_t sp, const sc_machine *m)
{
    uint16_t ncpus = 0;
    int allowed = hwloc_bitmap_weight(m->cpus_allowed);

    if (spank_get_item(sp, S_JOB_NCPUS, &ncpus) == ESPANK_SUCCESS && allowed <= ncpus)
        return 0;
    slurm_error("streamcard: prefetch/governor: cpu_list %s cannot be checked against the "
                "job's CPUs before the change: the task may still run on %d CPUs, the job has "
                "%u (valid: submit with --exclusive, or confine jobs to their CPUs: "
                "TaskPlugin=task/cgroup with ConstrainCores=yes)",
                sc_plug.card->cpu_list ? sc_plug.card->cpu_list : "(all)", allowed,
                (unsigned)ncpus);
    return -1;
}

/* In the task: the job's real CPUs and memory (this task's cpuset, Mems_allowed), the
   card's nodes: and sizes against the card. before_change: called before any platform
   write, which also needs the task confined to the job's CPUs. It only reads (the
   admin's sysroot and /proc/self), so it may run as root. */
static int sc__task_check(spank_t sp, bool before_change)
{
    sc_fsroot root;
    sc_machine m;
    sc_diag d;
    int rc = sc_fsroot_open(&root, sc_plug.policy.sysroot);

    if (rc < 0) {
        slurm_error("streamcard: cannot open sysroot %s: %s", sc_plug.policy.sysroot,
                    strerror(-rc));
        return -1;
    }
    rc = sc_machine_load(&m, &root);
    sc_fsroot_close(&root);
    if (rc < 0) {
        slurm_error("streamcard: cannot read this node's CPUs and memory: %s", strerror(-rc));
        return -1;
    }
    sc_machine_restrict_to_self(&m);
    sc_diag_init(&d);
    /* The plugin is here to make the card's platform changes: platform_control = true. */
    rc = sc_card_check_machine(sc_plug.card, &m, true, &d);
    sc__report(&d);
    sc_diag_free(&d);
    if (rc == 0 && before_change && sc__wants_platform(sc_plug.card))
        rc = sc__check_confined(sp, &m);
    sc_machine_free(&m);
    return rc < 0 ? -1 : 0;
}

/*
 * This node's evidence under per-host names, as the user: platform/<host>/before.txt and,
 * when the platform was changed, prefetch/state/<host>/ (control.log, both readbacks,
 * state.env). Once per node per job: the first step on the node creates before.txt
 * exclusively; later steps find it and write nothing (their change only added a
 * reference to the first one's, see pfctl.h).
 */
static int sc__put_host_evidence(const sc_bundle *b)
{
    char host[256], rel[512];
    const sc_pfctl_evidence *ev = &sc_plug.ev;

    if (gethostname(host, sizeof(host) - 1) < 0)
        strcpy(host, "unknown");
    host[sizeof(host) - 1] = '\0';
    host[strcspn(host, ".")] = '\0';
    if (!*host || strchr(host, '/'))
        strcpy(host, "unknown");
    snprintf(rel, sizeof(rel), "platform/%s/before.txt", host);
    int fd = sc_bundle_open_file(b, rel, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd == -EEXIST)
        return 0;
    const char *before = sc_plug.platform_before ? sc_plug.platform_before : "";
    int rc = fd < 0 ? fd : sc_file_write_all(fd, before, strlen(before));
    if (fd >= 0 && close(fd) < 0 && rc == 0)
        rc = -errno;
    if (rc < 0) {
        slurm_error("streamcard: cannot write %s/%s: %s", b->path, rel, strerror(-rc));
        return rc;
    }
    const struct {
        const char *name, *text;
    } files[] = {{"control.log", ev->control_log},
                 {"msr_readback_before.txt", ev->msr_readback_before},
                 {"msr_readback_after.txt", ev->msr_readback_after},
                 {"state.env", ev->state_env}};
    for (size_t i = 0; sc_plug.platform_changed && rc == 0 && i < 4; i++) {
        snprintf(rel, sizeof(rel), "prefetch/state/%s/%s", host, files[i].name);
        rc = sc__put(b, rel, files[i].text);
    }
    return rc;
}

/* In a step started inside the job (the card's ranks), as the user: this node's evidence
   in the bundle the job's `streamcard run` made (STREAMCARD_BUNDLE). */
static int sc__task_node_evidence(spank_t sp)
{
    char path[4096];
    sc_bundle b;

    if (spank_getenv(sp, "STREAMCARD_BUNDLE", path, sizeof(path)) != ESPANK_SUCCESS)
        return 0;
    int rc = sc_bundle_open(&b, path);
    if (rc < 0) {
        slurm_error("streamcard: cannot open the bundle %s on this node for its evidence: %s "
                    "(valid: a job working directory shared by the job's nodes)",
                    path, strerror(-rc));
        return -1;
    }
    rc = sc__put_host_evidence(&b);
    sc_bundle_close(&b);
    return rc < 0 ? -1 : 0;
}

/* In the task, as the user, in the job's working directory: the bundle's first files. */
static int sc__task_bundle(spank_t sp)
{
    sc_bundle b;
    char path[4096];
    int rc = sc_bundle_create(&b, ".", sc_plug.card->run_name, time(NULL));

    if (rc < 0) {
        slurm_error("streamcard: cannot create the bundle in the job's working directory: %s "
                    "(valid: a directory the job's user can write; sbatch --chdir)",
                    strerror(-rc));
        return -1;
    }
    rc = sc__put(&b, "card.yaml", sc_plug.card_text);
    if (rc == 0)
        rc = sc__put(&b, "platform/before.txt", sc_plug.platform_before);
    if (rc == 0 && sc_plug.platform_changed) {
        rc = sc__put(&b, "prefetch/control.log", sc_plug.ev.control_log);
        if (rc == 0)
            rc = sc__put(&b, "prefetch/state/msr_readback_before.txt",
                         sc_plug.ev.msr_readback_before);
        if (rc == 0)
            rc =
                sc__put(&b, "prefetch/state/msr_readback_after.txt", sc_plug.ev.msr_readback_after);
        if (rc == 0)
            rc = sc__put(&b, "prefetch/state/state.env", sc_plug.ev.state_env);
    }
    if (rc == 0)
        rc = sc__put_host_evidence(&b);
    snprintf(path, sizeof(path), "%s/card.yaml", b.path);
    if (rc == 0 &&
        (spank_setenv(sp, "STREAMCARD_BUNDLE", b.path, 1) != ESPANK_SUCCESS ||
         spank_setenv(sp, "STREAMCARD_CARD", path, 1) != ESPANK_SUCCESS ||
         spank_setenv(sp, "STREAMCARD_CARD_SHA256", sc_plug.card_sha, 1) != ESPANK_SUCCESS ||
         (strcmp(sc_plug.policy.sysroot, "/") != 0 &&
          spank_setenv(sp, "STREAMCARD_SYSROOT", sc_plug.policy.sysroot, 1) != ESPANK_SUCCESS))) {
        slurm_error("streamcard: cannot tell the job where its bundle is");
        rc = -1;
    }
    sc_bundle_close(&b);
    return rc < 0 ? -1 : 0;
}

int slurm_spank_init(spank_t sp, int ac, char **av)
{
    char why[1024] = "";
    spank_context_t ctx = spank_context();

    if (ctx != S_CTX_SLURMD && ctx != S_CTX_JOB_SCRIPT &&
        spank_option_register(sp, &sc__option) != ESPANK_SUCCESS) {
        slurm_error("streamcard: cannot register --stream-card");
        return -1;
    }
    if (sc_policy_parse(&sc_plug.policy, ac, av, why, sizeof(why)) < 0) {
        slurm_error("streamcard: plugstack.conf: %s", why);
        return -1;
    }
    if (ctx == S_CTX_SLURMD) {
        /* slurmd starts: put back what a crashed step or node left changed. A failure is
           logged loudly but does not keep the node from starting. */
        sc_pfctl_config cfg = sc__pfctl_config();
        char *log = NULL;
        if (sc_pfctl_restore_stale(&cfg, &log) < 0)
            slurm_error("streamcard: restoring platform state left by earlier jobs failed; "
                        "see the lines below and %s",
                        sc_plug.policy.state_dir);
        sc__log_lines(log);
        free(log);
    }
    return 0;
}

int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
    (void)ac;
    (void)av;
    switch (spank_context()) {
    case S_CTX_ALLOCATOR:
    case S_CTX_LOCAL:
        return sc__submit_side(sp);
    case S_CTX_REMOTE:
        return sc__step_side(sp);
    default:
        return 0;
    }
}

int slurm_spank_task_init_privileged(spank_t sp, int ac, char **av)
{
    (void)ac;
    (void)av;
    if (sc_plug.card_error) { /* logged when the card arrived; now for the job's output */
        for (size_t i = 0; i < sc_plug.card_problems.count; i++)
            slurm_error("%s", sc_plug.card_problems.lines[i]);
        return -1;
    }
    if (!sc_plug.card || sc__role(sp) == SC_ROLE_NONE)
        return 0;
    /* A card refused here has changed nothing on the node. */
    if (sc__task_check(sp, true) < 0)
        return -1;
    return sc__apply_platform(sp);
}

int slurm_spank_task_init(spank_t sp, int ac, char **av)
{
    (void)ac;
    (void)av;
    /* The card's binding and bundle belong to the step that runs `streamcard run`: the
       batch script, or an srun given --stream-card outside any batch job. Steps started
       inside the job script find the bundle already in their environment. */
    sc_role role = sc_plug.card ? sc__role(sp) : SC_ROLE_NONE;
    if (role == SC_ROLE_NONE)
        return 0;
    /* A rank is bound to its one CPU of cpu_list by the launcher: checked before the
       change against the step's cpuset, not again here. */
    if (role == SC_ROLE_NODE)
        return sc__task_node_evidence(sp);
    /* Again, now that task/affinity has bound the task: its binding may be narrower. */
    if (sc__task_check(sp, false) < 0)
        return -1;
    int rc = sc_bind_self(sc_plug.card->cpus, sc_plug.card->memory_node);
    if (rc < 0) {
        slurm_error("streamcard: binding to cpu_list %s / memory_node %ld failed: %s",
                    sc_plug.card->cpu_list, sc_plug.card->memory_node, strerror(-rc));
        return -1;
    }
    return sc__task_bundle(sp);
}

/* slurmstepd, root, as a task of a --stream-card job ends: a task killed by a signal may
   be `streamcard run` SIGKILLed, whose guardian is still sealing the bundle. */
int slurm_spank_task_exit(spank_t sp, int ac, char **av)
{
    int status = 0;
    pid_t pid = 0;

    (void)ac;
    (void)av;
    /* Only the task that runs `streamcard run` (task 0 of the main step) has a guardian. */
    if (!sc_plug.card || spank_get_item(sp, S_TASK_EXIT_STATUS, &status) != ESPANK_SUCCESS ||
        !WIFSIGNALED(status) || sc__role(sp) != SC_ROLE_MAIN ||
        spank_get_item(sp, S_TASK_PID, &pid) != ESPANK_SUCCESS)
        return 0;
    int rc = sc_guardian_wait(pid, SC_GUARDIAN_WAIT_MS);
    if (rc == 0)
        slurm_info("streamcard: job %u: the task was killed by signal %d; its guardian sealed "
                   "the bundle",
                   sc_plug.job_id, WTERMSIG(status));
    else if (rc < 0)
        slurm_error("streamcard: job %u: the task was killed by signal %d; its guardian did not "
                    "end within %d s (the bundle may stay unsealed)",
                    sc_plug.job_id, WTERMSIG(status), SC_GUARDIAN_WAIT_MS / 1000);
    return 0;
}

/* The job is over on this node: restore whatever a killed step left changed. */
static void sc__restore_job_end(spank_t sp)
{
    uint32_t job_id = 0;
    char *log = NULL;

    if (spank_get_item(sp, S_JOB_ID, &job_id) != ESPANK_SUCCESS)
        return;
    sc_pfctl_config cfg = sc__pfctl_config();
    if (sc_pfctl_restore_job(&cfg, job_id, &log) < 0)
        slurm_error("streamcard: job %u: restoring the platform at the job's end failed "
                    "(the next slurmd start tries again)",
                    job_id);
    sc__log_lines(log);
    free(log);
}

int slurm_spank_exit(spank_t sp, int ac, char **av)
{
    uint32_t step = 0;

    (void)ac;
    (void)av;
    if (spank_context() == S_CTX_REMOTE) {
        spank_get_item(sp, S_JOB_STEPID, &step);
        if (step == SLURM_EXTERN_CONT) {
            sc__restore_job_end(sp);
        } else if (sc_plug.card && sc__wants_platform(sc_plug.card)) {
            /* The task (a child) made the change with this slurmstepd as holder. */
            sc_pfctl_config cfg = sc__pfctl_config();
            char *log = NULL;
            if (sc_pfctl_release(&cfg, sc_plug.job_id, getpid(), &log) < 0)
                slurm_error("streamcard: job %u: restoring the platform failed (the job's "
                            "end tries again)",
                            sc_plug.job_id);
            sc__log_lines(log);
            free(log);
        }
    }
    sc_pfctl_evidence_free(&sc_plug.ev);
    sc_card_free(sc_plug.card);
    free(sc_plug.card_text);
    free(sc_plug.platform_before);
    free(sc_plug.option);
    sc_diag_free(&sc_plug.card_problems);
    memset(&sc_plug, 0, sizeof(sc_plug));
    return 0;
}
