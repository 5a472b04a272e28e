/* verify_attest.c: the platform_state gate from signed claims only (sc_verify_attest.h). */
#include "sc_verify_attest.h"
#include "sc_attest.h"
#include "sc_cpulist.h"
#include "sc_file.h"
#include "sc_hash.h"
#include "sc_kv.h"
#include "sc_platform_gate.h"
#include "sc_tracelog.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SC__PREFIX "apply_"
#define SC__SUFFIX ".dsse.json"
#define SC__STATE_DIR "/run/streamcard"

/* One statement that holds: signed by a trusted key and true of this bundle. */
typedef struct sc__signed {
    sc_attest_claims c;
    char fpr[SC_ATTEST_FPR_LEN + 1];
    char sha256[SC_HASH_HEX_LEN + 1]; /* of its envelope, as the bundle holds it */
    char *state_env;                  /* its signed state, as key=value text */
} sc__signed;

typedef struct sc__ctx {
    const sc_verify_attest_in *in;
    sc_attest_keyring ring;
    sc_diag *problems, *notes;
    sc__signed *ok;
    size_t n_ok;
    char why_none[512]; /* why nothing is attested, when nothing is */
    size_t n_files;     /* statements the bundle holds, valid or not */
} sc__ctx;

/* The node of a statement's file name (apply_<node>.dsse.json), or false. */
static bool sc__file_node(const char *name, char *node, size_t len)
{
    size_t n = strlen(name), p = strlen(SC__PREFIX), s = strlen(SC__SUFFIX);

    if (n <= p + s || strncmp(name, SC__PREFIX, p) != 0 || strcmp(name + n - s, SC__SUFFIX) != 0 ||
        n - p - s >= len)
        return false;
    snprintf(node, len, "%.*s", (int)(n - p - s), name + p);
    return true;
}

/* A signed CPU list names the card's CPUs: the same set, or for one_per_core (resolved on
   the node, one thread per core) a part of it. within: it may hold more (the job's). */
static bool sc__cpus_hold(const sc_card *card, const char *text, bool within)
{
    hwloc_bitmap_t set = hwloc_bitmap_alloc();
    bool ok = set && text && sc_cpulist_parse(text, set, NULL, 0) == 0 && card->cpus;

    if (ok && within)
        ok = hwloc_bitmap_isincluded(card->cpus, set);
    else if (ok)
        ok = card->one_per_core
                 ? hwloc_bitmap_isincluded(set, card->cpus) && !hwloc_bitmap_iszero(set)
                 : hwloc_bitmap_isequal(set, card->cpus);
    hwloc_bitmap_free(set);
    return ok;
}

/* Every signed field that the card decides is the card's: the CPUs root read or changed, the
   settings asked for, and the job's CPUs, which hold the card's. */
static void sc__fields_hold(sc__ctx *x, const char *file, const sc_attest_claims *c)
{
    const sc_card *card = x->in->card;
    const char *cpus = sc_attest_claims_get(c, "CPUS");
    const char *pf = sc_attest_claims_get(c, "REQUESTED_PREFETCH");
    const char *gov = sc_attest_claims_get(c, "REQUESTED_GOVERNOR");

    if (!sc__cpus_hold(card, cpus, false))
        sc_diag_addf(x->problems, "%s: signed for CPUs %s, but card.yaml's cpu_list is %s", file,
                     cpus ? cpus : "(none)", card->cpu_list ? card->cpu_list : "(none)");
    if (!pf || strcmp(pf, sc_prefetch_name(card->prefetch)) != 0)
        sc_diag_addf(x->problems, "%s: signed for prefetch %s, but card.yaml asks for %s", file,
                     pf ? pf : "(none)", sc_prefetch_name(card->prefetch));
    if (!gov || strcmp(gov, card->governor) != 0)
        sc_diag_addf(x->problems, "%s: signed for governor %s, but card.yaml asks for %s", file,
                     gov ? gov : "(none)", card->governor);
    if (strcmp(c->job_cpus, "unknown") != 0 && !sc__cpus_hold(card, c->job_cpus, true))
        sc_diag_addf(x->problems, "%s: the job's CPUs %s, signed, do not hold card.yaml's %s", file,
                     c->job_cpus, card->cpu_list ? card->cpu_list : "(none)");
}

/* The statement is true of this bundle: job, user, host, card, every file it names. */
static bool sc__holds(sc__ctx *x, const char *file, const char *node, const sc_attest_claims *c)
{
    char want[128] = "", hex[SC_HASH_HEX_LEN + 1];
    size_t before = x->problems->count;

    if (strcmp(c->phase, "apply") != 0 || strcmp(c->node, node) != 0)
        sc_diag_addf(x->problems, "%s: the %s statement of node %s, not the apply of %s", file,
                     c->phase, c->node, node);
    sc_kv_get(x->in->run_conf, "slurm_job_id", want, sizeof(want));
    if (strtoul(want, NULL, 10) != c->job_id || strspn(want, "0123456789") != strlen(want))
        sc_diag_addf(x->problems, "%s: signed for job %u, but this bundle is job %s's", file,
                     (unsigned)c->job_id, *want ? want : "(none)");
    *want = '\0';
    sc_kv_get(x->in->run_conf, "uid", want, sizeof(want));
    if (strtoul(want, NULL, 10) != c->uid || !*want)
        sc_diag_addf(x->problems, "%s: signed for uid %u, but run.conf says uid %s", file,
                     (unsigned)c->uid, *want ? want : "(none)");
    *want = '\0';
    sc_kv_get(x->in->run_conf, "host", want, sizeof(want));
    want[strcspn(want, ".")] = '\0';
    if (strcmp(c->role, "main") == 0 && strcmp(want, c->node) != 0)
        sc_diag_addf(x->problems, "%s: signed on node %s, but the run ran on %s", file, c->node,
                     *want ? want : "(none)");
    sc_hash_buf(x->in->card_text, strlen(x->in->card_text), hex);
    if (strcmp(hex, c->card_sha256) != 0)
        sc_diag_addf(x->problems, "%s: signed for card %s, but card.yaml is %s", file,
                     c->card_sha256, hex);
    else
        sc__fields_hold(x, file, c);
    for (size_t i = 0; i < c->n_subjects; i++) {
        const char *name = c->subjects[i].name;
        /* the bytes this pass read of it, else the file as it is */
        if (!sc_bundle_hash_seen(x->in->b, name, hex) &&
            sc_hash_file_at(x->in->b->dirfd, name, hex) < 0)
            sc_diag_addf(x->problems, "%s: names %s, which the bundle does not hold", file, name);
        else if (strcmp(hex, c->subjects[i].sha256) != 0)
            sc_diag_addf(x->problems, "%s: %s is not the text root signed (sha256 %s, signed %s)",
                         file, name, hex, c->subjects[i].sha256);
    }
    return x->problems->count == before;
}

/* The signed state as key=value text (the platform gate's input). */
static char *sc__state_text(const sc_attest_claims *c)
{
    sc_kv kv;

    sc_kv_init(&kv);
    for (size_t i = 0; i < c->n_state; i++)
        sc_kv_addf(&kv, c->state[i].key, "%s", c->state[i].value);
    if (kv.failed) {
        sc_kv_free(&kv);
        return NULL;
    }
    return kv.text ? kv.text : strdup("");
}

static void sc__one(sc__ctx *x, const sc_attest_file *f)
{
    char file[320], node[64], fpr[SC_ATTEST_FPR_LEN + 1], why[512] = "", *payload = NULL;
    sc_attest_claims c;
    int rc = f->rc;

    snprintf(file, sizeof(file), "attest/%s", f->name);
    if (!sc__file_node(f->name, node, sizeof(node)))
        return; /* not a statement's name: SHA256SUMS is the judge of what else is there */
    if (rc == 0)
        rc = sc_attest_open(&x->ring, f->text, f->len, &payload, fpr, why, sizeof(why));
    if (rc == -ENOKEY) {
        if (!*x->why_none) /* "no trusted key in DIR" says more */
            snprintf(x->why_none, sizeof(x->why_none), "%s is %s", file, why);
    } else if (rc < 0) {
        sc_diag_addf(x->problems, "%s: %s", file, *why ? why : strerror(-rc));
    } else if (!payload) { /* sc_attest_open gives one on success; never trusted blindly */
        sc_diag_addf(x->problems, "%s: no payload in the envelope", file);
    } else if (sc_attest_statement_parse(payload, strlen(payload), &c, why, sizeof(why)) < 0) {
        sc_diag_addf(x->problems, "%s: %s", file, why);
    } else if (sc__holds(x, file, node, &c)) {
        sc__signed *grown = realloc(x->ok, (x->n_ok + 1) * sizeof(*grown));
        if (grown) {
            x->ok = grown;
            grown[x->n_ok].c = c;
            memcpy(grown[x->n_ok].fpr, fpr, sizeof(fpr));
            sc_hash_buf(f->text, f->len, grown[x->n_ok].sha256);
            grown[x->n_ok].state_env = sc__state_text(&c);
            x->n_ok++;
        }
    }
    free(payload);
}

/* Every attest/apply_<node>.dsse.json of the bundle, sorted by name. */
static void sc__read_all(sc__ctx *x)
{
    sc_attest_file *files = NULL;
    size_t n = 0;
    bool more = false;

    if (sc_attest_bundle_files(x->in->b->dirfd, &files, &n, &more) < 0)
        sc_diag_addf(x->problems, "attest: cannot be read: %s", strerror(ENOMEM));
    if (more)
        sc_diag_addf(x->problems, "attest: more than %d statements: the rest is not read",
                     SC_ATTEST_MAX_FILES);
    x->n_files = n;
    if (n == 0)
        snprintf(x->why_none, sizeof(x->why_none),
                 "the bundle holds no signed statement (a run outside the plugin, or a node "
                 "without a key)");
    for (size_t i = 0; i < n; i++)
        sc__one(x, &files[i]);
    sc_attest_files_free(files, n);
}

/* The restore is the one of this bundle's run on s's node: same job, node and card, the run
   and apply statement the bundle's apply names, signed after it, for the card's settings and
   CPUs. NULL, or what is not. */
static const char *sc__restore_holds(const sc_card *card, const sc__signed *s,
                                     const sc_attest_claims *c)
{
    const char *run = sc_attest_claims_get(&s->c, "RUN");
    const char *r_run = sc_attest_claims_get(c, "RUN");
    const char *r_apply = sc_attest_claims_get(c, "APPLY_SHA256");
    const char *r_pf = sc_attest_claims_get(c, "REQUESTED_PREFETCH");
    const char *r_gov = sc_attest_claims_get(c, "REQUESTED_GOVERNOR");

    if (strcmp(c->phase, "restore") != 0 || c->job_id != s->c.job_id ||
        strcmp(c->node, s->c.node) != 0 || strcmp(c->card_sha256, s->c.card_sha256) != 0)
        return "it is not a restore of this job, node and card";
    if (!run || !r_run || strcmp(run, r_run) != 0 || !strcmp(run, "unknown"))
        return "it closes another run of the job";
    if (!r_apply || strcmp(r_apply, s->sha256) != 0)
        return "it closes another apply statement than the bundle's";
    if (strcmp(c->time, s->c.time) < 0)
        return "it was signed before the apply statement";
    if (!r_pf || strcmp(r_pf, sc_prefetch_name(card->prefetch)) != 0 || !r_gov ||
        strcmp(r_gov, card->governor) != 0 || !sc__cpus_hold(card, c->job_cpus, false))
        return "it restores other settings or CPUs than card.yaml's";
    return NULL;
}

/* The restore of one node: <state_dir>/attest/job_<id>_<node>_<run>.restore.dsse.json, the
   run being the one the bundle's apply statement names. */
static void sc__restore(sc__ctx *x, const sc__signed *s)
{
    const char *dir = x->in->opts && x->in->opts->state_dir ? x->in->opts->state_dir
                      : getenv("STREAMCARD_STATE_DIR")      ? getenv("STREAMCARD_STATE_DIR")
                                                            : SC__STATE_DIR;
    const char *run = sc_attest_claims_get(&s->c, "RUN");
    char path[1024], fpr[SC_ATTEST_FPR_LEN + 1], why[512] = "", *env = NULL, *payload = NULL;
    size_t len = 0;
    sc_attest_claims c;

    if (!run || strspn(run, "0123456789-") != strlen(run) || !*run) {
        sc_diag_addf(x->notes,
                     "restore not attested on %s: the apply statement names no run of the job "
                     "(RUN %s: slurmctld could not say, or a plugin before restores were bound "
                     "to their run)",
                     s->c.node, run ? run : "missing");
        return;
    }
    snprintf(path, sizeof(path), "%s/attest/job_%u_%s_%s.restore.dsse.json", dir,
             (unsigned)s->c.job_id, s->c.node, run);
    int rc = sc_file_read_at(AT_FDCWD, path, O_NOFOLLOW | O_NONBLOCK, SC_ATTEST_MAX_ENVELOPE, &env,
                             &len);
    if (rc < 0) {
        sc_diag_addf(x->notes,
                     "restore not attested yet on %s (no %s: verify on that node after "
                     "the job, or --state-dir)",
                     s->c.node, path);
        return;
    }
    rc = sc_attest_open(&x->ring, env, len, &payload, fpr, why, sizeof(why));
    if (rc == 0)
        rc = sc_attest_statement_parse(payload, strlen(payload), &c, why, sizeof(why));
    const char *wrong = rc == 0 ? sc__restore_holds(x->in->card, s, &c) : NULL;
    if (wrong) {
        snprintf(why, sizeof(why), "%s (run %s, apply statement %.12s...)", wrong, run, s->sha256);
        rc = -EINVAL;
    }
    if (rc < 0) {
        sc_diag_addf(x->notes, "restore not attested on %s: %s: %s", s->c.node, path, why);
    } else {
        const char *pf = sc_attest_claims_get(&c, "READBACK_PREFETCH");
        const char *gov = sc_attest_claims_get(&c, "READBACK_GOVERNOR");
        const char *ok = sc_attest_claims_get(&c, "RESTORED");
        const char *before = sc_attest_claims_get(&s->c, "BEFORE_PREFETCH");
        sc_diag_addf(x->notes,
                     "restore attested by %s key %s: %s at %s; read back prefetch %s "
                     "(before the job: %s), governor %s",
                     c.node, fpr, ok && !strcmp(ok, "1") ? "restored" : "restore FAILED", c.time,
                     pf ? pf : "?", before ? before : "?", gov ? gov : "?");
    }
    free(payload);
    free(env);
}

/* A card that leaves the platform alone ran on the node as the node is on its own: what root
   read of its CPUs is the node's baseline (no job's change held over them). */
static void sc__baseline(sc__ctx *x, sc_gate *gate)
{
    for (size_t i = 0; i < x->n_ok; i++) {
        const sc_attest_claims *c = &x->ok[i].c;
        const char *pf = sc_attest_claims_get(c, "OBSERVED_STATE");
        const char *gov = sc_attest_claims_get(c, "OBSERVED_GOVERNOR");
        const char *bpf = sc_attest_claims_get(c, "BASELINE_PREFETCH");
        const char *bgov = sc_attest_claims_get(c, "BASELINE_GOVERNOR");
        const char *by = sc_attest_claims_get(c, "CHANGED_BY");
        if (!pf || !gov || !bpf || !bgov) {
            sc_diag_addf(x->notes,
                         "%s's statement reads nothing back (a plugin before readbacks "
                         "of unchanged platforms)",
                         c->node);
            continue;
        }
        if (strcmp(pf, bpf) != 0 || strcmp(gov, bgov) != 0) {
            sc_gate_set(gate, SC_GATE_FAIL,
                        "the card leaves prefetch and governor unchanged, but root read back "
                        "prefetch %s, governor %s on %s's CPUs %s, and the node's own are "
                        "prefetch %s, governor %s (a change held by job %s)",
                        pf, gov, c->node, sc_attest_claims_get(c, "CPUS"), bpf, bgov,
                        by ? by : "?");
            return;
        }
    }
    if (x->n_ok)
        sc_gate_set(gate, SC_GATE_NULL,
                    "the card leaves prefetch and governor unchanged; root read back the node's "
                    "own (attested)");
}

/* The gate over the signed states only: the main step's, every node's, every rank's host. */
static void sc__gate(sc__ctx *x, sc_gate *gate)
{
    const sc_card *card = x->in->card;
    const sc__signed *main = NULL;
    sc_host_state *hosts = calloc(x->n_ok ? x->n_ok : 1, sizeof(*hosts));

    for (size_t i = 0; i < x->n_ok; i++) {
        if (!strcmp(x->ok[i].c.role, "main") && !main)
            main = &x->ok[i];
        if (hosts) {
            snprintf(hosts[i].host, sizeof(hosts[i].host), "%s", x->ok[i].c.node);
            hosts[i].state_env = x->ok[i].state_env;
        }
    }
    if (!main || !main->state_env || !hosts)
        sc_gate_set(gate, SC_GATE_FAIL, "not attested: %s",
                    *x->why_none ? x->why_none
                                 : "no statement of the main step signed by a trusted node key "
                                   "(a run outside the plugin, or a node without a key)");
    else
        sc_platform_gate(card, main->state_env, hosts, x->n_ok, x->in->log, gate);
    if (gate->state == SC_GATE_OK) {
        char note[sizeof(gate->note)];
        snprintf(note, sizeof(note), "%s", gate->note);
        sc_gate_set(gate, SC_GATE_OK, "attested, %s", note);
    }
    free(hosts);
}

void sc_verify_attest(const sc_verify_attest_in *in, sc_gate *gate, sc_diag *problems,
                      sc_diag *notes, char *node, size_t len)
{
    const char *keys = in->opts && in->opts->keys_dir ? in->opts->keys_dir
                       : getenv("STREAMCARD_KEYS")    ? getenv("STREAMCARD_KEYS")
                                                      : SC_ATTEST_DEFAULT_KEYS;
    sc__ctx x = {.in = in, .problems = problems, .notes = notes};
    char why[512] = "";
    bool wants =
        in->card->prefetch != SC_PREFETCH_UNCHANGED || strcmp(in->card->governor, "unchanged") != 0;

    int rc = sc_attest_keyring_load(&x.ring, keys, why, sizeof(why));
    if (rc < 0 || x.ring.n == 0)
        snprintf(x.why_none, sizeof(x.why_none), "no trusted key in %s%s%s", keys, *why ? ": " : "",
                 why);
    sc__read_all(&x);
    if (len)
        *node = '\0';
    for (size_t i = 0; i < x.n_ok; i++) {
        sc_diag_addf(notes, "platform attested by %s key %s", x.ok[i].c.node, x.ok[i].fpr);
        if (len && !*node && !strcmp(x.ok[i].c.role, "main")) /* sc__holds: run.conf's host */
            snprintf(node, len, "%s", x.ok[i].c.node);
    }
    if (x.n_ok == 0)
        sc_diag_addf(notes, "no platform claim is attested: %s",
                     *x.why_none ? x.why_none : "no statement holds");
    if (wants) {
        sc__gate(&x, gate);
        for (size_t i = 0; i < x.n_ok; i++)
            sc__restore(&x, &x.ok[i]);
    } else {
        sc__baseline(&x, gate);
    }
    for (size_t i = 0; i < x.n_ok; i++)
        free(x.ok[i].state_env);
    free(x.ok);
    sc_attest_keyring_free(&x.ring);
}
