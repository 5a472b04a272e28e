/*
 * pair_run.c: a paired run here (sc_pair.h; doc/contracts/run.md, "Paired runs"). The card's two
 * sides take turns as separate processes on the same CPUs: pair i runs A then B, or B then A,
 * as the recorded seed draws it, each side into its own bundle (the local executor,
 * execute.c, keeps both open, each with its guardian), until the pair's rule says the pairs
 * are enough (runs: N pairs, or runs: auto until the primary metric's paired interval is
 * narrow enough). Then each side is sealed, pair.json written from what the sides' files
 * say (sc_pair_record()), and the pair's directory sealed over all of it.
 */
#include "pair_run.h"
#include "cli.h"
#include "execute.h"
#include "sc_bundle.h"
#include "sc_facts.h"
#include "sc_hash.h"
#include "sc_pair.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

uint64_t sc_pair_new_seed(void)
{
    uint64_t seed = 0;

    if (getrandom(&seed, sizeof(seed), 0) != (ssize_t)sizeof(seed))
        seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
    return seed;
}

/* The pair's directory: in a --stream-card job the plugin's bundle (not sealed, holding the
   card announced with the job), else a new one under --output named pair_<A's run
   name>_<time>, its card.yaml the pair's card. */
static int sc__open_pair(const sc_run_opts *opts, const sc_card *card, const sc_plan *a,
                         sc_bundle *pair)
{
    char name[300], *text = sc_pair_card_yaml(card, a->card), sha[SC_HASH_HEX_LEN + 1] = "";
    const char *announced = getenv("STREAMCARD_CARD_SHA256");
    struct stat sums;
    int rc;

    if (!text)
        return -ENOMEM;
    if (opts->adopt_bundle) {
        rc = sc_bundle_open(pair, opts->adopt_bundle);
        if (rc == 0 && fstatat(pair->dirfd, SC_BUNDLE_SUMS, &sums, AT_SYMLINK_NOFOLLOW) == 0 &&
            sums.st_size > 0)
            rc = -EEXIST;
        if (rc == 0 && announced &&
            (sc_hash_buf(text, strlen(text), sha) < 0 || strcmp(sha, announced) != 0))
            rc = -EINVAL;
        if (rc < 0)
            fprintf(stderr,
                    "streamcard: the job's bundle %s cannot hold the pair: %s (valid: an "
                    "unsealed bundle holding the card submitted with the job)\n",
                    opts->adopt_bundle, strerror(-rc));
        if (rc < 0 && pair->dirfd >= 0)
            sc_bundle_close(pair);
        free(text);
        return rc;
    }
    snprintf(name, sizeof(name), "pair_%s", a->card->run_name);
    rc = sc_bundle_create(pair, opts->output_dir, name, time(NULL));
    if (rc == 0)
        rc = sc_bundle_write_str(pair, "card.yaml", text);
    if (rc < 0)
        fprintf(stderr,
                "streamcard: cannot create the pair's directory under %s: %s (valid: a writable "
                "directory, --output DIR)\n",
                opts->output_dir, strerror(-rc));
    free(text);
    return rc;
}

/* The sides' runs so far against the pair's rule. */
static bool sc__enough(sc_local *st, const sc_card *a_card, bool failed, char *why, size_t len)
{
    json_object *a = sc_local_runs(st, 0), *b = sc_local_runs(st, 1);
    bool done = sc_pair_done(a_card, a, b, failed, why, len);

    json_object_put(a);
    json_object_put(b);
    return done;
}

/* pair.json from the sealed sides' files; then the pair's directory sealed. 0 or -errno. */
static int sc__record(sc_bundle *pair, const sc_pair_info *info, const char *path_a,
                      const char *path_b, json_object **out)
{
    sc_bundle_facts fa, fb;
    int rc = sc_facts_load(path_a, &fa);

    if (rc < 0)
        return rc;
    rc = sc_facts_load(path_b, &fb);
    if (rc < 0) {
        sc_facts_free(&fa);
        return rc;
    }
    *out = sc_pair_record(info, &fa, &fb);
    rc = *out ? sc_bundle_write_str(pair, SC_PAIR_RECORD,
                                    json_object_to_json_string_ext(*out, JSON_C_TO_STRING_PRETTY))
              : -ENOMEM;
    if (rc == 0)
        rc = sc_bundle_seal(pair);
    sc_facts_free(&fa);
    sc_facts_free(&fb);
    return rc;
}

static const char *sc__str(json_object *o, const char *key)
{
    json_object *v;

    return o && json_object_object_get_ex(o, key, &v) && v ? json_object_get_string(v) : "";
}

static double sc__num(json_object *o, const char *key)
{
    json_object *v;

    return o && json_object_object_get_ex(o, key, &v) && v ? json_object_get_double(v) : 0;
}

/* The pair's summary: what differs, the primary metric's pairs, ratio, interval, trends. */
static void sc__summary(json_object *record)
{
    json_object *p = NULL, *ci = NULL, *differs = NULL;

    json_object_object_get_ex(record, "primary", &p);
    json_object_object_get_ex(p, "ci95", &ci);
    json_object_object_get_ex(record, "differs", &differs);
    fprintf(stderr, "streamcard: pair: variable %s; %zu pairs (%s)\n", sc__str(record, "variable"),
            (size_t)sc__num(p, "pairs"), sc__str(record, "stopped"));
    for (size_t i = 0; differs && i < json_object_array_length(differs); i++) {
        json_object *d = json_object_array_get_idx(differs, i);
        fprintf(stderr, "streamcard: pair: differs: %s: A %s | B %s\n", sc__str(d, "name"),
                sc__str(d, "a"), sc__str(d, "b"));
    }
    if (!*sc__str(p, "metric"))
        return;
    for (int side = 0; side < 2; side++) {
        json_object *t = NULL;
        json_object_object_get_ex(p, side ? "trend_b" : "trend_a", &t);
        fprintf(stderr,
                "streamcard: pair: side %c: %s median %.6g %s; worst foreign share %.1f%%; trend "
                "with run order: rho %.2f, p %.3f%s%s%s\n",
                side ? 'B' : 'A', sc__str(p, "metric"), sc__num(p, side ? "median_b" : "median_a"),
                sc__str(p, "unit"), sc__num(p, side ? "worst_share_pct_b" : "worst_share_pct_a"),
                sc__num(t, "rho"), sc__num(t, "p"), *sc__str(t, "method") ? " (" : "",
                sc__str(t, "method"), *sc__str(t, "method") ? ")" : "");
    }
    fprintf(stderr, "streamcard: pair: ratio B/A: %s\n", SC_STATS_PAIRED_METHOD);
    if (ci)
        printf("PAIR_RESULT=%s B/A %.3f, 95%% interval [%.3f, %.3f] (%s, %zu pairs): %s\n",
               sc__str(p, "metric"), sc__num(p, "ratio"), sc__num(ci, "low"), sc__num(ci, "high"),
               sc__str(ci, "method"), (size_t)sc__num(p, "pairs"), sc__str(p, "verdict"));
    else
        printf("PAIR_RESULT=%s B/A %.3f, interval unavailable (%zu pairs; %d give one): %s\n",
               sc__str(p, "metric"), sc__num(p, "ratio"), (size_t)sc__num(p, "pairs"),
               SC_STATS_MIN_RUNS, sc__str(p, "verdict"));
}

/* --dry-run: the two plans and the order the seed gives the first pairs. */
static int sc__dry(const sc_run_series *rs, const sc_pair_run *pr)
{
    int status = SC_EXIT_OK;

    printf("streamcard pair: variable %s; A and B take turns, each pair's order drawn from "
           "seed %" PRIu64 ":",
           rs->series->variable, pr->seed);
    for (size_t i = 0; i < 8; i++)
        printf(" %s", sc_pair_b_first(pr->seed, i) ? "BA" : "AB");
    printf(" ...\n");
    for (size_t i = 0; i < 2; i++) {
        printf("--- side %c\n", i ? 'B' : 'A');
        sc_plan_print(&rs->plans[i], stdout);
        if (!rs->plans[i].binary_found)
            status = SC_EXIT_ERROR;
    }
    printf("DRY-RUN complete; no files written.\n");
    return status;
}

int sc_pair_execute(const sc_run_series *rs, const sc_card *card, const sc_pair_run *pr)
{
    sc_plan *plans = rs->plans;
    sc_local st = {.paired = true};
    sc_executor ex;
    sc_bundle pair = {.dirfd = -1};
    char path[2][PATH_MAX], why[256] = "", *bundle[2] = {NULL, NULL}, *cause = NULL;
    json_object *record = NULL;
    size_t started = 0;
    bool failed = false, stop = false;
    int status = SC_EXIT_OK, side_status[2] = {SC_EXIT_OK, SC_EXIT_OK};

    if (rs->opts->dry_run)
        return sc__dry(rs, pr);
    for (size_t i = 0; i < 2; i++)
        if (!plans[i].binary_found && plans[i].binary_why) {
            fprintf(stderr, "streamcard: side %c: %s\n", i ? 'B' : 'A', plans[i].binary_why);
            return SC_EXIT_ERROR;
        } else if (!plans[i].binary_found) {
            fprintf(stderr,
                    "streamcard: side %c: the %s kernel was not found at %s (build it, or set "
                    "STREAMCARD_KERNEL_DIR%s)\n",
                    i ? 'B' : 'A', sc_workload_name(plans[i].card->workload), plans[i].binary,
                    i ? ", --against-kernel-dir" : "");
            return SC_EXIT_ERROR;
        }
    if (sc__open_pair(rs->opts, card, &plans[0], &pair) < 0)
        return SC_EXIT_ERROR;
    for (size_t i = 0; i < 2; i++) {
        snprintf(path[i], sizeof(path[i]), "%s/%s", pair.path, i ? SC_PAIR_SIDE_B : SC_PAIR_SIDE_A);
        plans[i].bundle_at = path[i];
        plans[i].side = i ? 'B' : 'A';
    }
    sc_local_executor(&ex, &st);
    if (ex.begin(ex.state, rs) != 0) {
        sc_bundle_close(&pair);
        return SC_EXIT_ERROR;
    }
    printf("streamcard pair: %s; seed %" PRIu64 "\n", rs->series->variable, pr->seed);
    for (size_t r = 0; !stop; r++) {
        bool b_first = sc_pair_b_first(pr->seed, r);
        started = r + 1;
        printf("--- pair %zu: %s\n", r + 1, b_first ? "B then A" : "A then B");
        fflush(stdout);
        /* A side that fails (or cannot run) ends the pairs after this one: the other side
           still makes its run of it, so both sides hold the pair the failure happened in (a
           candidate that crashes is judged against a baseline that ran beside it). A stop
           request ends at once. */
        for (size_t k = 0; k < 2 && !st.stop_signal; k++) {
            size_t s = b_first ? 1 - k : k;
            bool more = false;
            if (bundle[s])
                continue; /* this side ended already */
            side_status[s] = ex.run(ex.state, rs, s, r, &more, &bundle[s], &cause);
            free(cause);
            cause = NULL;
            if (!more && !stop) { /* the side failed, could not run or was stopped */
                stop = failed = true;
                snprintf(why, sizeof(why), "pair %zu: side %c ended (%s)", r + 1, s ? 'B' : 'A',
                         side_status[s] == SC_EXIT_OK ? "stopped" : "failed");
            }
        }
        stop = stop || st.stop_signal;
        if (!stop && sc__enough(&st, plans[0].card, false, why, sizeof(why)))
            stop = true;
    }
    for (size_t s = 0; s < 2; s++)
        if (!bundle[s])
            side_status[s] = sc_local_close(&st, s, why, &bundle[s]);
    ex.end(ex.state, rs, failed);
    sc_pair_info info = {
        .variable = pr->variable, .seed = pr->seed, .started = started, .stopped = why};
    if (!bundle[0] || !bundle[1] || sc__record(&pair, &info, path[0], path[1], &record) < 0) {
        /* a side that never ran has no record to compare: what ran is sealed, no pair.json
           (verify says the pair was cut short) */
        fprintf(stderr, "streamcard: the pair's record could not be written into %s (%s)\n",
                pair.path, !bundle[0] || !bundle[1] ? "a side made no bundle" : "see above");
        sc_bundle_seal(&pair);
        status = SC_EXIT_FAILED;
    } else {
        sc__summary(record);
    }
    if (side_status[0] != SC_EXIT_OK || side_status[1] != SC_EXIT_OK)
        status = SC_EXIT_FAILED;
    if (status != SC_EXIT_OK)
        fprintf(stderr, "ERROR: a side of the pair failed; its numbers are not usable\n");
    printf("PAIR=%s\nBUNDLE=%s\n", pair.path, pair.path);
    json_object_put(record);
    free(bundle[0]);
    free(bundle[1]);
    sc_bundle_close(&pair);
    return status;
}
