/* attest_sign.c: the plugin's signed statements, as root (see attest_sign.h). */
#include "attest_sign.h"
#include "attest_store.h"
#include "journal.h"
#include "platform.h"
#include "sc_attest.h"
#include "sc_cpulist.h"
#include "sc_file.h"
#include "sc_hash.h"
#include "sc_kv.h"
#include "sc_sysstate.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <slurm/slurm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void sc_spank_node_name(char *buf, size_t len)
{
    char host[256];

    if (gethostname(host, sizeof(host) - 1) < 0)
        host[0] = '\0';
    host[sizeof(host) - 1] = '\0';
    host[strcspn(host, ".")] = '\0';
    if (!*host || strchr(host, '/') || host[0] == '.')
        snprintf(host, sizeof(host), "unknown");
    snprintf(buf, len, "%s", host);
}

void sc_spank_run_id(uint32_t job_id, char *buf, size_t len)
{
    job_info_msg_t *msg = NULL;

    snprintf(buf, len, "unknown");
    if (slurm_load_job(&msg, job_id, SHOW_DETAIL) == SLURM_SUCCESS && msg && msg->record_count > 0)
        snprintf(buf, len, "%u-%lld", (unsigned)msg->job_array[0].restart_cnt,
                 (long long)msg->job_array[0].start_time);
    if (msg)
        slurm_free_job_info_msg(msg);
}

/* The SHA-256 of this plugin's own file: its build identity. */
static void sc__plugin_build(char hex[SC_HASH_HEX_LEN + 1])
{
    Dl_info info;

    snprintf(hex, SC_HASH_HEX_LEN + 1, "unknown");
    if (dladdr((void *)sc_spank_attest_apply, &info) && info.dli_fname &&
        info.dli_fname[0] == '/' && sc_hash_file_at(AT_FDCWD, info.dli_fname, hex) < 0)
        snprintf(hex, SC_HASH_HEX_LEN + 1, "unknown");
}

/* A value of /proc/self/status ("Cpus_allowed_list"), or "unknown". */
static void sc__status_value(const char *status, const char *key, char *out, size_t len)
{
    size_t k = strlen(key);

    snprintf(out, len, "unknown");
    for (const char *p = status; p && *p;) {
        size_t n = strcspn(p, "\n");
        if (n > k + 1 && strncmp(p, key, k) == 0 && p[k] == ':') {
            const char *v = p + k + 1;
            while (*v == '\t' || *v == ' ')
                v++;
            snprintf(out, len, "%.*s", (int)(n - (size_t)(v - p)), v);
            return;
        }
        p += n + (p[n] != '\0');
    }
}

/* What every statement says: who, where, when, the card, the build. */
static void sc__common(const sc_attest_in *in, const char *phase, sc_attest_claims *c)
{
    struct passwd pw, *found = NULL;
    char pwbuf[4096], *status = NULL;
    struct tm tm;
    time_t now = time(NULL);

    memset(c, 0, sizeof(*c));
    snprintf(c->phase, sizeof(c->phase), "%s", phase);
    snprintf(c->role, sizeof(c->role), "%s", in->role);
    c->job_id = in->job_id;
    snprintf(c->step, sizeof(c->step), "%s", in->step);
    c->uid = (uint32_t)in->uid;
    bool named = getpwuid_r(in->uid, &pw, pwbuf, sizeof(pwbuf), &found) == 0 && found;
    snprintf(c->user, sizeof(c->user), "%s", named ? found->pw_name : "unknown");
    sc_spank_node_name(c->node, sizeof(c->node));
    gmtime_r(&now, &tm);
    strftime(c->time, sizeof(c->time), "%Y-%m-%dT%H:%M:%SZ", &tm);
    snprintf(c->card_sha256, sizeof(c->card_sha256), "%s", in->jc->sha);
    sc_file_read_at(AT_FDCWD, "/proc/self/status", 0, 1 << 16, &status, NULL);
    sc__status_value(status, "Cpus_allowed_list", c->job_cpus, sizeof(c->job_cpus));
    sc__status_value(status, "Mems_allowed_list", c->job_mems, sizeof(c->job_mems));
    free(status);
    const char *before = in->platform_before;
    if (!before ||
        !sc_kv_get(before, "kernel.tainted", c->kernel_tainted, sizeof(c->kernel_tainted)))
        snprintf(c->kernel_tainted, sizeof(c->kernel_tainted), "unknown");
    if (!before || !sc_kv_get(before, "cpu.microcode", c->microcode, sizeof(c->microcode)))
        snprintf(c->microcode, sizeof(c->microcode), "unknown");
    snprintf(c->plugin_version, sizeof(c->plugin_version), "%s", STREAMCARD_VERSION);
    sc__plugin_build(c->plugin_build);
}

/* Signs c with the node's key into *envelope. */
static int sc__sign(const sc_attest_in *in, const sc_attest_claims *c, char **envelope, char *why,
                    size_t whylen)
{
    char path[1024], *json = NULL;
    sc_attest_key *k = NULL;
    int rc = sc_policy_key_path(in->policy, c->node, path, sizeof(path));

    *envelope = NULL;
    if (rc == 0)
        rc = sc_attest_key_load_private(path, &k, why, whylen);
    if (rc == -ENOENT) /* named with the command that makes it */
        sc_policy_key_missing(path, why, whylen);
    if (rc == 0)
        rc = sc_attest_statement_make(c, &json);
    if (rc == 0)
        rc = sc_attest_sign(k, json, strlen(json), envelope);
    sc_attest_key_free(k); /* the private key lives no longer than this call */
    free(json);
    return rc;
}

/* The subjects: the card root received and root's evidence texts, by their bundle paths
   (the batch node's under both names: the run's own and its host's). */
static int sc__subjects(const sc_attest_in *in, sc_attest_claims *c)
{
    const sc_pfctl_evidence *ev = in->ev;
    const char *names[] = {"control.log", "msr_readback_before.txt", "msr_readback_after.txt",
                           "state.env"};
    const char *texts[] = {ev ? ev->control_log : NULL, ev ? ev->msr_readback_before : NULL,
                           ev ? ev->msr_readback_after : NULL, ev ? ev->state_env : NULL};
    bool main = strcmp(in->role, "main") == 0;
    char rel[512];
    int rc = 0;

    if (c->n_subjects < SC_ATTEST_MAX_SUBJECTS) {
        sc_attest_subject *s = &c->subjects[c->n_subjects++];
        snprintf(s->name, sizeof(s->name), "card.yaml");
        snprintf(s->sha256, sizeof(s->sha256), "%s", in->jc->sha);
    }
    const char *before = in->platform_before ? in->platform_before : "";
    snprintf(rel, sizeof(rel), "platform/%s/before.txt", c->node);
    rc = sc_attest_claims_subject(c, rel, before);
    if (rc == 0 && main && in->platform_before)
        rc = sc_attest_claims_subject(c, "platform/before.txt", before);
    for (size_t i = 0; rc == 0 && i < 4; i++) {
        if (!texts[i])
            continue;
        snprintf(rel, sizeof(rel), "prefetch/state/%s/%s", c->node, names[i]);
        rc = sc_attest_claims_subject(c, rel, texts[i]);
        if (rc == 0 && main) {
            snprintf(rel, sizeof(rel), "prefetch/%s%s", i ? "state/" : "", names[i]);
            rc = sc_attest_claims_subject(c, rel, texts[i]);
        }
    }
    return rc;
}

/* The prefetch state the originals had (msr_readback_before.txt's state= words). */
static void sc__before_prefetch(const char *text, char *out, size_t len)
{
    snprintf(out, len, "unchanged");
    for (const char *p = text ? strstr(text, "state=") : NULL; p; p = strstr(p + 6, "state=")) {
        size_t n = strcspn(p + 6, " \n");
        if (!strcmp(out, "unchanged"))
            snprintf(out, len, "%.*s", (int)n, p + 6);
        else if (strncmp(out, p + 6, n) != 0 || out[n] != '\0')
            snprintf(out, len, "mixed");
    }
}

/* A card that leaves the platform alone: what root reads of its CPUs now, and the node's own
   state (the journals' originals where a job holds a change). Never a constant. */
static int sc__unchanged_state(const sc_attest_in *in, sc_attest_claims *c)
{
    const sc_card *card = in->jc->card;
    sc_pfctl_config cfg = {.sysroot = in->policy->sysroot, .state_dir = in->policy->state_dir};
    sc_pfctl_readback rb;
    char state[1024];
    char *cpus = sc_cpulist_format(card->cpus);

    sc_pfctl_read(&cfg, card->cpus, &rb); /* what it could not read says unknown */
    snprintf(state, sizeof(state),
             "REQUESTED_PREFETCH=unchanged\nOBSERVED_STATE=%s\nSTATE_VALID=1\n"
             "REQUESTED_GOVERNOR=unchanged\nOBSERVED_GOVERNOR=%s\nGOVERNOR_VALID=1\nARCH=%s\n"
             "CPUS=%.200s\nBEFORE_PREFETCH=%s\nBASELINE_PREFETCH=%s\nBASELINE_GOVERNOR=%s\n"
             "CHANGED_BY=%s\n",
             rb.prefetch, rb.governor, rb.arch, cpus ? cpus : "unknown", rb.base_prefetch,
             rb.base_prefetch, rb.base_governor, rb.changed_by);
    free(cpus);
    return sc_attest_claims_state(c, state);
}

int sc_spank_attest_apply(const sc_attest_in *in, char **envelope, char *why, size_t whylen)
{
    sc_attest_claims c;
    char before[16], state[512];
    int rc;

    *envelope = NULL;
    sc__common(in, "apply", &c);
    rc = sc__subjects(in, &c);
    if (rc == 0 && in->ev && in->ev->state_env) {
        rc = sc_attest_claims_state(&c, in->ev->state_env);
        sc__before_prefetch(in->ev->msr_readback_before, before, sizeof(before));
        /* The run whose restore will close this change (restart count and start time). */
        snprintf(state, sizeof(state), "BEFORE_PREFETCH=%s\nRUN=%s\n", before,
                 in->run ? in->run : "unknown");
        if (rc == 0)
            rc = sc_attest_claims_state(&c, state);
    } else if (rc == 0) {
        rc = sc__unchanged_state(in, &c);
    }
    if (rc < 0) {
        snprintf(why, whylen, "streamcard: attest: the statement does not fit: %s", strerror(-rc));
        return rc;
    }
    return sc__sign(in, &c, envelope, why, whylen);
}

int sc_spank_attest_note(const sc_attest_in *in, const char *envelope, char *why, size_t whylen)
{
    char node[64], hex[SC_HASH_HEX_LEN + 1];
    sc_statedir d;

    sc_spank_node_name(node, sizeof(node));
    int rc = sc_hash_buf(envelope, strlen(envelope), hex);
    if (rc == 0)
        rc = sc_statedir_open(&d, in->policy->state_dir, why, whylen);
    if (rc < 0)
        return rc;
    int dirfd = sc_attest_store_open(&d);
    rc = dirfd < 0
             ? dirfd
             : sc_attest_store_note(dirfd, in->job_id, node, in->run ? in->run : "unknown", hex);
    if (rc < 0)
        snprintf(why, whylen,
                 "streamcard: attest: cannot note the apply statement in %s/attest: %s",
                 in->policy->state_dir, strerror(-rc));
    if (dirfd >= 0)
        close(dirfd);
    sc_statedir_close(&d);
    return rc;
}

/* The restore's signed state: what it restored, what root reads back now, and the apply it
   closes (run, statement). */
static int sc__restore_state(const sc_attest_in *in, int result, const char *run, const char *apply,
                             sc_attest_claims *c)
{
    const sc_card *card = in->jc->card;
    sc_pfctl_config cfg = {.sysroot = in->policy->sysroot, .state_dir = in->policy->state_dir};
    sc_pfctl_readback rb;
    char state[512];

    sc_pfctl_read(&cfg, card->cpus, &rb);
    snprintf(state, sizeof(state),
             "REQUESTED_PREFETCH=%s\nREQUESTED_GOVERNOR=%s\nRESTORED=%d\n"
             "READBACK_PREFETCH=%s\nREADBACK_GOVERNOR=%s\nRUN=%s\nAPPLY_SHA256=%s\n",
             sc_prefetch_name(card->prefetch), card->governor, result == 0, rb.prefetch,
             rb.governor, run, apply);
    int rc = sc_attest_claims_state(c, state);
    if (rc == 0 && c->n_subjects < SC_ATTEST_MAX_SUBJECTS) {
        sc_attest_subject *s = &c->subjects[c->n_subjects++];
        snprintf(s->name, sizeof(s->name), "card.yaml");
        snprintf(s->sha256, sizeof(s->sha256), "%s", in->jc->sha);
    }
    return rc;
}

int sc_spank_attest_restore(const sc_attest_in *in, int result, char *why, size_t whylen)
{
    sc_attest_claims c;
    sc_statedir d;
    char name[320], tmp[336], run[SC_ATTEST_RUN_MAX] = "unknown", apply[65] = "unknown";
    char *env = NULL;
    const sc_card *card = in->jc->card;

    sc__common(in, "restore", &c);
    snprintf(c.job_cpus, sizeof(c.job_cpus), "%s", card->cpu_list ? card->cpu_list : "unknown");
    snprintf(c.job_mems, sizeof(c.job_mems), "unknown"); /* slurmstepd's own are not the job's */
    c.result = result;
    int rc = sc_statedir_open(&d, in->policy->state_dir, why, whylen);
    if (rc < 0)
        return rc;
    int dirfd = sc_attest_store_open(&d);
    if (dirfd >= 0) /* the apply this restore closes, noted when the change started */
        sc_attest_store_take_note(dirfd, in->job_id, c.node, run, sizeof(run), apply);
    rc = dirfd < 0 ? dirfd : sc__restore_state(in, result, run, apply, &c);
    if (rc == 0)
        rc = sc__sign(in, &c, &env, why, whylen);
    sc_attest_store_restore_name(name, sizeof(name), in->job_id, c.node, run);
    snprintf(tmp, sizeof(tmp), ".%s.tmp", name);
    if (rc == 0)
        rc = env ? sc_file_replace_at(dirfd, name, tmp, env, strlen(env), 0644) : -EINVAL;
    if (rc < 0 && !*why)
        snprintf(why, whylen, "streamcard: attest: cannot write %s/attest/%s: %s",
                 in->policy->state_dir, name, strerror(-rc));
    /* Bounded: the newest attest_keep statements, none older than attest_days. */
    if (dirfd >= 0) {
        sc_attest_store_prune(dirfd, (size_t)in->policy->attest_keep,
                              in->policy->attest_days * 86400L, time(NULL));
        close(dirfd);
    }
    sc_statedir_close(&d);
    free(env);
    return rc;
}
