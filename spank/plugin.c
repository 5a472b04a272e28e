/*
 * plugin.c: spank_streamcard.so, the option --stream-card=CARD for sbatch, salloc and srun:
 * its callbacks, which Slurm context runs each and as whom, and the work done as root. A
 * thin Slurm adapter over libstreamcard (the card, binding) and the platform layer
 * (pfctl.h: MSRs, governor, restore journal); the card's way to the node is jobcard.c, the
 * bundle's files written as the user are user_bundle.c. Where each callback runs and as
 * whom (measured on Slurm 22.05; doc/contracts/spank.md, "The SPANK plugin"):
 *
 *   slurm_spank_init            every context: registers the option, reads the policy;
 *                               in slurmd (S_CTX_SLURMD): restores what a crash left changed
 *   init_post_opt (allocator,   sbatch/salloc/srun, as the user: reads and checks the card;
 *                  local)       a bad card fails the submission; its bytes and SHA-256 travel
 *                               to the job in SLURM_STREAMCARD_CARD_* (jobcard.h)
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
 *                               (user_bundle.h)
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
 * node's evidence goes into the bundle under its host name (sc_user_bundle_add_node).
 *
 * Nothing here may take slurmstepd down: no exit(), every pointer checked, every message one
 * line "streamcard: <what failed>: <why> (<what would be valid>)".
 */
#include "attest_sign.h"
#include "card_child.h"
#include "exclusive.h"
#include "guardian.h"
#include "journal.h"
#include "jobcard.h"
#include "jobcpus.h"
#include "pfctl.h"
#include "policy.h"
#include "sc_bind.h"
#include "sc_file.h"
#include "sc_kv.h"
#include "sc_machine.h"
#include "sc_sysstate.h"
#include "spank_log.h"
#include "user_bundle.h"

#include <errno.h>
#include <fcntl.h>
#include <slurm/slurm.h>
#include <slurm/spank.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

SPANK_PLUGIN(streamcard, 1);

/* State of this plugin instance (one process: sbatch, one slurmstepd, one epilog). */
static struct {
    sc_policy policy;
    char *option;  /* the value given to --stream-card */
    sc_jobcard jc; /* the card that came with the job; jc.card NULL: none */
    uint32_t job_id;
    bool card_error;       /* the card that came with the job was unusable (already reported) */
    sc_diag card_problems; /* what was wrong with it, said again by the task (job output) */
    bool platform_changed;
    sc_pfctl_evidence ev;
    char *platform_before;
    hwloc_bitmap_t task_cpus; /* the task's allowed CPUs, read before a platform change */
    char *attest;             /* the signed apply statement, for the bundle; NULL: none */
    char run[48];             /* this run of the job (sc_spank_run_id), for a change's statements */
} sc__plug;

static int sc__option_cb(int val, const char *optarg, int remote);

static struct spank_option sc__option = {
    "stream-card",
    "CARD",
    "run the job under the streamcard experiment CARD (YAML): checked now, enforced and "
    "recorded on the node",
    1,
    0,
    sc__option_cb};

static int sc__option_cb(int val, const char *optarg, int remote)
{
    (void)val;
    (void)remote;
    if (!optarg || !*optarg) {
        sc_spank_error("streamcard: --stream-card: needs a card file (valid: "
                       "--stream-card=card.yaml)");
        return -1;
    }
    free(sc__plug.option);
    sc__plug.option = strdup(optarg);
    return sc__plug.option ? 0 : -1;
}

static void sc__log_lines(const char *text)
{
    sc_spank_log_lines("streamcard: ", text);
}

static sc_pfctl_config sc__pfctl_config(void)
{
    return (sc_pfctl_config){.sysroot = sc__plug.policy.sysroot,
                             .state_dir = sc__plug.policy.state_dir};
}

/* True when the card asks to change prefetch or the governor. */
static bool sc__wants_platform(const sc_card *c)
{
    return c->prefetch != SC_PREFETCH_UNCHANGED || strcmp(c->governor, "unchanged") != 0;
}

/* The job's CPUs on this node into set: its cpuset cgroup where task/cgroup made one (right
   in every step), else the task's allowed CPUs (confined to the job's before any change:
   sc__check_confined). Returns 0 or -1. */
static int sc__job_cpuset(hwloc_bitmap_t set)
{
    char *text = NULL;
    int rc = sc_file_read_at(AT_FDCWD, "/proc/self/cgroup", 0, 1 << 16, &text, NULL);

    if (rc == 0)
        rc = sc_job_cpuset(text, sc__plug.job_id, "/sys/fs/cgroup", set);
    free(text);
    if (rc < 0 && sc__plug.task_cpus)
        rc = hwloc_bitmap_copy(set, sc__plug.task_cpus);
    return rc < 0 ? -1 : 0;
}

/* How many of the node's CPUs the job holds: S_JOB_NCPUS when it already counts them all
   (the batch step of an exclusive job), else its cpuset (S_JOB_NCPUS is an srun step's own
   share). */
static int sc__job_cpus_here(spank_t sp, long online)
{
    uint16_t ncpus = 0;
    int n = spank_get_item(sp, S_JOB_NCPUS, &ncpus) == ESPANK_SUCCESS ? (int)ncpus : 0;

    if (n >= online)
        return n;
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    if (set && sc__job_cpuset(set) == 0 && hwloc_bitmap_weight(set) > n)
        n = hwloc_bitmap_weight(set);
    hwloc_bitmap_free(set);
    return n;
}

/*
 * Platform changes and other jobs: with require_exclusive=yes the job must have the node to
 * itself as Slurm knows it (exclusive.h); with no, the change may reach only the job's CPUs
 * (*job_cpus, checked by the facade against the register's scope). Returns 0 or -1 (logged).
 */
static int sc__check_exclusive(spank_t sp, hwloc_bitmap_t *job_cpus)
{
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    char why[1024] = "";

    *job_cpus = NULL;
    if (sc__plug.policy.require_exclusive) {
        if (sc_exclusive_check(sc__plug.job_id, sc__job_cpus_here(sp, online), online, why,
                               sizeof(why)) == 0)
            return 0;
        sc_spank_error("%s", why);
        return -1;
    }
    *job_cpus = hwloc_bitmap_alloc();
    if (*job_cpus && sc__job_cpuset(*job_cpus) == 0)
        return 0;
    hwloc_bitmap_free(*job_cpus);
    *job_cpus = NULL;
    sc_spank_error("streamcard: prefetch/governor: the job's CPUs on this node are unknown, so "
                   "what the change reaches cannot be checked (valid: submit with --exclusive)");
    return -1;
}

/* The machine state before anything changes: platform/before.txt of the bundle. */
static void sc__snapshot_before(void)
{
    sc_fsroot root;
    sc_kv kv;

    sc_kv_init(&kv);
    if (sc_fsroot_open(&root, sc__plug.policy.sysroot) == 0) {
        sc_sysstate_capture(&root, sc__plug.jc.card->cpus, &kv);
        sc_fsroot_close(&root);
    }
    sc__plug.platform_before = kv.failed ? NULL : kv.text;
    if (kv.failed)
        sc_kv_free(&kv);
}

/* slurmstepd, as root, once per step: the card and the state before any change. Never
   fails (that would drain the node): a bad card is remembered and fails the task. */
static int sc__step_side(spank_t sp)
{
    int rc =
        sc_jobcard_receive(sp, &sc__plug.jc, sc__plug.policy.check_user, &sc__plug.card_problems);

    if (rc < 0)
        sc__plug.card_error = true;
    if (rc != 0)
        return 0;
    spank_get_item(sp, S_JOB_ID, &sc__plug.job_id);
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
    sc_card *c = sc__plug.jc.card;

    hwloc_bitmap_t job_cpus = NULL;

    if (!sc__wants_platform(c))
        return 0;
    if (sc__check_exclusive(sp, &job_cpus) < 0)
        return -1;
    sc_pfctl_config cfg = sc__pfctl_config();
    sc_pfctl_request req = {.prefetch = c->prefetch,
                            .governor = c->governor,
                            .cpus = c->cpus,
                            .allow_prefetch = sc__plug.policy.allow_prefetch,
                            .allow_governor = sc__plug.policy.allow_governor,
                            .job_cpus = job_cpus};
    /* The holder is the step's slurmstepd (our parent): it lives as long as the step and
       releases its reference in slurm_spank_exit. */
    int rc = sc_pfctl_apply(&cfg, sc__plug.job_id, getppid(), &req, &sc__plug.ev, why, sizeof(why));
    hwloc_bitmap_free(job_cpus);
    sc__log_lines(sc__plug.ev.node_log);
    if (rc < 0) {
        sc_spank_error("%s", *why ? why : "streamcard: platform change refused");
        return -1;
    }
    sc__plug.platform_changed = true;
    return 0;
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
    sc_spank_error("streamcard: prefetch/governor: cpu_list %s cannot be checked against the "
                   "job's CPUs before the change: the task may still run on %d CPUs, the job has "
                   "%u (valid: submit with --exclusive, or confine jobs to their CPUs: "
                   "TaskPlugin=task/cgroup with ConstrainCores=yes)",
                   sc__plug.jc.card->cpu_list ? sc__plug.jc.card->cpu_list : "(all)", allowed,
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
    int rc = sc_fsroot_open(&root, sc__plug.policy.sysroot);

    if (rc < 0) {
        sc_spank_error("streamcard: cannot open sysroot %s: %s", sc__plug.policy.sysroot,
                       strerror(-rc));
        return -1;
    }
    rc = sc_machine_load(&m, &root);
    sc_fsroot_close(&root);
    if (rc < 0) {
        sc_spank_error("streamcard: cannot read this node's CPUs and memory: %s", strerror(-rc));
        return -1;
    }
    sc_machine_restrict_to_self(&m);
    sc_diag_init(&d);
    /* The plugin is here to make the card's platform changes: platform_control = true. */
    rc = sc_card_check_machine(sc__plug.jc.card, &m, true, &d);
    sc_jobcard_report(&d, NULL);
    sc_diag_free(&d);
    if (rc == 0 && before_change && sc__wants_platform(sc__plug.jc.card)) {
        rc = sc__check_confined(sp, &m);
        hwloc_bitmap_free(sc__plug.task_cpus);
        sc__plug.task_cpus = hwloc_bitmap_dup(m.cpus_allowed);
    }
    sc_machine_free(&m);
    return rc < 0 ? -1 : 0;
}

/* What a statement of this step is made from (attest_sign.h). */
static sc_attest_in sc__attest_in(spank_t sp, const char *role, char *step, size_t steplen)
{
    uint32_t stepid = 0, uid = 0;

    spank_get_item(sp, S_JOB_STEPID, &stepid);
    spank_get_item(sp, S_JOB_UID, &uid);
    if (stepid == SLURM_BATCH_SCRIPT)
        snprintf(step, steplen, "batch");
    else if (stepid == SLURM_EXTERN_CONT)
        snprintf(step, steplen, "extern");
    else
        snprintf(step, steplen, "%u", (unsigned)stepid);
    return (sc_attest_in){.policy = &sc__plug.policy,
                          .jc = &sc__plug.jc,
                          .job_id = sc__plug.job_id,
                          .step = step,
                          .uid = (uid_t)uid,
                          .role = role,
                          .platform_before = sc__plug.platform_before,
                          .ev = sc__plug.platform_changed ? &sc__plug.ev : NULL,
                          .run = sc__plug.run};
}

/* In the task, as root, after the change: the signed statement of what root did and read
   back, for the bundle. A change's statement names the run its restore will close, and,
   when this step started the change, is noted for that restore. Without a key configured
   the node does not sign and says nothing here (slurmd said it once at its start); a
   configured key that cannot be used is an error. Either way the run is not attested and
   the job goes on. */
static void sc__attest_apply(spank_t sp)
{
    char step[32], why[1024] = "";

    snprintf(sc__plug.run, sizeof(sc__plug.run), "unknown");
    if (sc__plug.platform_changed)
        sc_spank_run_id(sc__plug.job_id, sc__plug.run, sizeof(sc__plug.run));
    sc_attest_in in =
        sc__attest_in(sp, sc__role(sp) == SC_ROLE_MAIN ? "main" : "node", step, sizeof(step));
    free(sc__plug.attest);
    sc__plug.attest = NULL;
    if (!sc_policy_key_wanted(&sc__plug.policy))
        return;
    if (sc_spank_attest_apply(&in, &sc__plug.attest, why, sizeof(why)) < 0)
        sc_spank_error("streamcard: job %u: this node's platform statement is not signed, so "
                       "its bundle's platform claims are not attested: %s",
                       sc__plug.job_id, *why ? why : "no key");
    else if (sc__plug.platform_changed && sc__plug.ev.started &&
             sc_spank_attest_note(&in, sc__plug.attest, why, sizeof(why)) < 0)
        sc_spank_error("%s (the restore of job %u will not name this statement)", why,
                       sc__plug.job_id);
}

/* Whether this job holds a journal on the node (a change not yet restored). */
static bool sc__journaled(void)
{
    sc_statedir d;
    uint32_t *jobs = NULL;
    size_t n = 0;
    bool held = false;
    struct stat st;

    /* Looked at, never made: sc_statedir_open() would create a missing directory. */
    if (stat(sc__plug.policy.state_dir, &st) < 0 ||
        sc_statedir_open(&d, sc__plug.policy.state_dir, NULL, 0) < 0)
        return false;
    if (sc_journal_list(&d, &jobs, &n) == 0)
        for (size_t i = 0; i < n; i++)
            held = held || jobs[i] == sc__plug.job_id;
    free(jobs);
    sc_statedir_close(&d);
    return held;
}

/* slurmstepd, root: the step's release restored the job's change on this node (its journal
   was there before and is gone now): the signed restore statement. */
static void sc__attest_restore(spank_t sp, int rc)
{
    char step[32], why[1024] = "";
    sc_attest_in in = sc__attest_in(sp, "main", step, sizeof(step));

    if (!sc_policy_key_wanted(&sc__plug.policy))
        return;
    if (sc_spank_attest_restore(&in, rc, why, sizeof(why)) < 0)
        sc_spank_error("streamcard: job %u: the restore is not attested: %s", sc__plug.job_id,
                       *why ? why : "no key");
}

/* For the bundle, written as the user: what was learnt and done here as root. */
static sc_user_bundle_in sc__bundle_in(void)
{
    return (sc_user_bundle_in){.jc = &sc__plug.jc,
                               .platform_before = sc__plug.platform_before,
                               .ev = sc__plug.platform_changed ? &sc__plug.ev : NULL,
                               .sysroot = sc__plug.policy.sysroot,
                               .attest = sc__plug.attest};
}

/* slurmd's start: the node's key, said once (keys are opt-in: no key configured is an
   info line here and nothing in the jobs; key= naming a missing file is an error). */
static void sc__key_note(void)
{
    char node[256], why[1024] = "";
    sc_spank_node_name(node, sizeof(node));
    int rc = sc_policy_key_state(&sc__plug.policy, node, why, sizeof(why));

    if (rc > 0)
        sc_spank_info("%s", why);
    else if (rc < 0)
        sc_spank_error("%s", why);
}

int slurm_spank_init(spank_t sp, int ac, char **av)
{
    char why[1024] = "";
    spank_context_t ctx = spank_context();

    if (ctx != S_CTX_SLURMD && ctx != S_CTX_JOB_SCRIPT &&
        spank_option_register(sp, &sc__option) != ESPANK_SUCCESS) {
        sc_spank_error("streamcard: cannot register --stream-card");
        return -1;
    }
    if (sc_policy_parse(&sc__plug.policy, ac, av, why, sizeof(why)) < 0) {
        sc_spank_error("streamcard: plugstack.conf: %s", why);
        return -1;
    }
    if (ctx == S_CTX_SLURMD) {
        /* slurmd starts: put back what a crashed step or node left changed. A failure is
           logged loudly but does not keep the node from starting. */
        sc_pfctl_config cfg = sc__pfctl_config();
        char *log = NULL;
        if (sc_pfctl_restore_stale(&cfg, &log) < 0)
            sc_spank_error("streamcard: restoring platform state left by earlier jobs failed; "
                           "see the lines below and %s",
                           sc__plug.policy.state_dir);
        sc__log_lines(log);
        free(log);
        sc__key_note();
        /* Said once at slurmd's start: without the check's account every card job fails. */
        uid_t cu;
        gid_t cg;
        if (sc_card_child_account(sc__plug.policy.check_user, &cu, &cg, why, sizeof(why)) < 0)
            sc_spank_error("streamcard: %s; every --stream-card job on this node fails until then",
                           why);
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
        return sc__plug.option ? sc_jobcard_send(sc__plug.option) : 0;
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
    if (sc__plug.card_error) { /* logged when the card arrived; now for the job's output */
        for (size_t i = 0; i < sc__plug.card_problems.count; i++)
            sc_spank_error("%s", sc__plug.card_problems.lines[i]);
        return -1;
    }
    if (!sc__plug.jc.card || sc__role(sp) == SC_ROLE_NONE)
        return 0;
    /* A card refused here has changed nothing on the node. */
    if (sc__task_check(sp, true) < 0)
        return -1;
    if (sc__apply_platform(sp) < 0)
        return -1;
    sc__attest_apply(sp);
    return 0;
}

int slurm_spank_task_init(spank_t sp, int ac, char **av)
{
    (void)ac;
    (void)av;
    /* The card's binding and bundle belong to the step that runs `streamcard run`: the
       batch script, or an srun given --stream-card outside any batch job. Steps started
       inside the job script find the bundle already in their environment. */
    sc_role role = sc__plug.jc.card ? sc__role(sp) : SC_ROLE_NONE;
    if (role == SC_ROLE_NONE)
        return 0;
    /* A rank is bound to its one CPU of cpu_list by the launcher: checked before the
       change against the step's cpuset, not again here. */
    sc_user_bundle_in in = sc__bundle_in();
    if (role == SC_ROLE_NODE)
        return sc_user_bundle_add_node(sp, &in);
    /* Again, now that task/affinity has bound the task: its binding may be narrower. */
    if (sc__task_check(sp, false) < 0)
        return -1;
    int rc = sc_bind_self(sc__plug.jc.card->cpus, sc__plug.jc.card->memory_node);
    if (rc < 0) {
        sc_spank_error("streamcard: binding to cpu_list %s / memory_node %ld failed: %s",
                       sc__plug.jc.card->cpu_list, sc__plug.jc.card->memory_node, strerror(-rc));
        return -1;
    }
    return sc_user_bundle_create(sp, &in);
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
    if (!sc__plug.jc.card || spank_get_item(sp, S_TASK_EXIT_STATUS, &status) != ESPANK_SUCCESS ||
        !WIFSIGNALED(status) || sc__role(sp) != SC_ROLE_MAIN ||
        spank_get_item(sp, S_TASK_PID, &pid) != ESPANK_SUCCESS)
        return 0;
    int rc = sc_guardian_wait(pid, SC_GUARDIAN_WAIT_MS);
    if (rc == 0)
        sc_spank_info("streamcard: job %u: the task was killed by signal %d; its guardian sealed "
                      "the bundle",
                      sc__plug.job_id, WTERMSIG(status));
    else if (rc < 0)
        sc_spank_error("streamcard: job %u: the task was killed by signal %d; its guardian did not "
                       "end within %d s (the bundle may stay unsealed)",
                       sc__plug.job_id, WTERMSIG(status), SC_GUARDIAN_WAIT_MS / 1000);
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
        sc_spank_error("streamcard: job %u: restoring the platform at the job's end failed "
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
        } else if (sc__plug.jc.card && sc__wants_platform(sc__plug.jc.card)) {
            /* The task (a child) made the change with this slurmstepd as holder. */
            sc_pfctl_config cfg = sc__pfctl_config();
            char *log = NULL;
            bool held = sc__journaled();
            int rc = sc_pfctl_release(&cfg, sc__plug.job_id, getpid(), &log);
            if (rc < 0)
                sc_spank_error("streamcard: job %u: restoring the platform failed (the job's "
                               "end tries again)",
                               sc__plug.job_id);
            sc__log_lines(log);
            free(log);
            if (held && !sc__journaled()) /* this release restored the change */
                sc__attest_restore(sp, rc);
        }
    }
    sc_pfctl_evidence_free(&sc__plug.ev);
    hwloc_bitmap_free(sc__plug.task_cpus);
    sc_jobcard_free(&sc__plug.jc);
    free(sc__plug.platform_before);
    free(sc__plug.attest);
    free(sc__plug.option);
    sc_diag_free(&sc__plug.card_problems);
    memset(&sc__plug, 0, sizeof(sc__plug));
    return 0;
}
