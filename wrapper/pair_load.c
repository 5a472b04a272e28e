/*
 * pair_load.c: a paired run's directory read back and checked (see pair_load.h). Every
 * figure of pair.json is recomputed with the functions `streamcard run` wrote it with
 * (sc_pair.h), from the sides' files as verify accepts them.
 */
#include "pair_load.h"
#include "cli.h"
#include "sc_bundle.h"
#include "sc_kv.h"
#include "sc_pair.h"
#include "sc_runs.h"
#include "sc_text.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const sc__sides[2] = {SC_PAIR_SIDE_A, SC_PAIR_SIDE_B};

bool sc_pair_is(const char *path)
{
    sc_bundle b;
    bool is;

    if (sc_bundle_open(&b, path) < 0)
        return false;
    /* a pair cut short may hold one side only, and no pair.json */
    is = faccessat(b.dirfd, SC_PAIR_RECORD, F_OK, AT_SYMLINK_NOFOLLOW) == 0 ||
         faccessat(b.dirfd, "a/run.conf", F_OK, AT_SYMLINK_NOFOLLOW) == 0 ||
         faccessat(b.dirfd, "b/run.conf", F_OK, AT_SYMLINK_NOFOLLOW) == 0;
    sc_bundle_close(&b);
    return is;
}

void sc_pair_loaded_free(sc_pair_loaded *p)
{
    sc_diag_free(&p->problems);
    for (int i = 0; i < 2; i++)
        sc_analysis_free(&p->side[i]);
    json_object_put(p->record);
    p->record = NULL;
}

static const char *sc__str(json_object *o, const char *key)
{
    json_object *v;

    return o && json_object_object_get_ex(o, key, &v) && v &&
                   json_object_is_type(v, json_type_string)
               ? json_object_get_string(v)
               : NULL;
}

/* The pair card (card.yaml): parsed and checked, with its against:. NULL with a problem. */
static sc_card *sc__card(const sc_bundle *b, sc_diag *problems)
{
    char *text = NULL;
    sc_card *card = NULL;
    sc_diag found;

    sc_diag_init(&found);
    if (sc_bundle_read(b, "card.yaml", &text, NULL) < 0) {
        sc_diag_addf(problems, "card.yaml: missing or unreadable");
        goto out;
    }
    card = sc_card_new();
    if (card && (sc_card_parse(card, text, strlen(text), "card.yaml", &found) < 0 ||
                 sc_card_check(card, &found) < 0 || !card->against)) {
        sc_diag_addf(problems, "card.yaml: not the card of a pair (%s)",
                     found.count ? found.lines[0] : "no against:");
        sc_card_free(card);
        card = NULL;
    }
out:
    sc_diag_free(&found);
    free(text);
    return card;
}

/* Each side's card.yaml is what the pair card makes of that side (not checkable with
   one_per_core: the node resolved the CPUs). */
static void sc__check_sides(sc_pair_loaded *p, const sc_series *s)
{
    for (int i = 0; i < 2 && !s->runs[i].card->one_per_core; i++) {
        char *want = sc_card_to_yaml(s->runs[i].card);
        const char *got = p->side[i].facts.card_text;
        if (want && (!got || strcmp(want, got) != 0))
            sc_diag_addf(&p->problems,
                         "%s/card.yaml: not side %c of the pair's card.yaml (valid: the side "
                         "the pair card makes)",
                         sc__sides[i], i ? 'B' : 'A');
        free(want);
    }
}

/* The runs a side's results.json lists. */
static json_object *sc__runs(const sc_pair_loaded *p, int side)
{
    json_object *runs = NULL, *r = p->side[side].facts.results;

    return r && json_object_object_get_ex(r, "runs", &runs) &&
                   json_object_is_type(runs, json_type_array)
               ? runs
               : NULL;
}

/* When run i of a side reached its main loop (main_loop.ready), in ns; -1 when unknown. */
static long long sc__began(const char *path, const sc_card *card, size_t i)
{
    char rel[64], value[64], *text;
    long long sec = -1, ns = 0;
    sc_bundle b;

    if (sc_bundle_open(&b, path) < 0)
        return -1;
    text = sc_bundle_read_opt(&b, sc_runs_path(card, i, "main_loop.ready", rel, sizeof(rel)));
    sc_bundle_close(&b);
    if (!text || !sc_kv_get(text, "main_loop_begin_at", value, sizeof(value)) ||
        sscanf(value, "%lld.%lld", &sec, &ns) != 2)
        sec = -1;
    free(text);
    return sec < 0 ? -1 : sec * 1000000000LL + ns;
}

/*
 * The order: as many pairs begun as the longer side's runs, each pair AB or BA as the seed
 * draws it, a shorter side (a stop request) short only of the last pair's second run, and
 * the runs' own clocks (main_loop.ready) in that order.
 */
static void sc__check_order(sc_pair_loaded *p, const char *path, uint64_t seed, const sc_series *s)
{
    json_object *order = NULL;
    json_object *ra = sc__runs(p, 0), *rb = sc__runs(p, 1);
    size_t na = ra ? json_object_array_length(ra) : 0, nb = rb ? json_object_array_length(rb) : 0;
    size_t began = na > nb ? na : nb;
    char side_path[2][4096];
    long long last = -1;

    if (!json_object_object_get_ex(p->record, "order", &order) ||
        !json_object_is_type(order, json_type_array) || json_object_array_length(order) != began) {
        sc_diag_addf(&p->problems,
                     "pair.json: order does not list the %zu pairs the sides' runs began", began);
        return;
    }
    for (int i = 0; i < 2; i++)
        snprintf(side_path[i], sizeof(side_path[i]), "%s/%s", path, sc__sides[i]);
    for (size_t i = 0; i < began; i++) {
        bool b_first = sc_pair_b_first(seed, i);
        const char *said = json_object_get_string(json_object_array_get_idx(order, i));
        if (!said || strcmp(said, b_first ? "BA" : "AB") != 0) {
            sc_diag_addf(&p->problems, "pair.json: pair %zu's order is %s, but the seed gives %s",
                         i + 1, said ? said : "missing", b_first ? "BA" : "AB");
            return;
        }
        if (na != nb && i + 1 == began && (na > nb) == b_first) {
            sc_diag_addf(&p->problems,
                         "pair %zu: side %c ran without side %c, which the seed put first", began,
                         na > nb ? 'A' : 'B', na > nb ? 'B' : 'A');
            return;
        }
        for (int k = 0; k < 2; k++) {
            int side = b_first ? 1 - k : k;
            if (i >= (side ? nb : na))
                continue;
            long long t = sc__began(side_path[side], s->runs[side].card, i);
            if (t < 0)
                continue; /* a run that never reached its main loop failed its gates */
            if (t <= last) {
                sc_diag_addf(&p->problems,
                             "pair %zu: side %c's run began its main loop before the run the "
                             "order puts before it (its main_loop.ready)",
                             i + 1, side ? 'B' : 'A');
                return;
            }
            last = t;
        }
    }
}

/* The pairs stopped where the pair's rule says, not before, not after (both sides usable:
   otherwise a failure ended them). */
static void sc__check_rule(sc_pair_loaded *p, const sc_card *a_card)
{
    json_object *ra = sc__runs(p, 0), *rb = sc__runs(p, 1);
    size_t n = ra && rb ? json_object_array_length(ra) : 0;
    const char *claimed = sc__str(p->record, "stopped");
    char why[256];

    if (!p->side[0].usable || !p->side[1].usable)
        return;
    if (!ra || !rb || json_object_array_length(rb) != n) {
        sc_diag_addf(&p->problems, "the sides hold unequal runs, and both passed");
        return;
    }
    for (size_t k = 1; k <= n; k++) {
        json_object *pa = json_object_new_array(), *pb = json_object_new_array();
        for (size_t i = 0; pa && pb && i < k; i++) {
            json_object_array_add(pa, json_object_get(json_object_array_get_idx(ra, i)));
            json_object_array_add(pb, json_object_get(json_object_array_get_idx(rb, i)));
        }
        bool done = pa && pb && sc_pair_done(a_card, pa, pb, false, why, sizeof(why));
        json_object_put(pa);
        json_object_put(pb);
        if (k < n && done) {
            sc_diag_addf(&p->problems,
                         "the pairs should have stopped after pair %zu (%s), but %zu were made", k,
                         why, n);
            return;
        }
        if (k == n && !done)
            sc_diag_addf(&p->problems,
                         "the pairs stopped after %zu, but their rule wants more (%s)", n, why);
        else if (k == n && (!claimed || strcmp(claimed, why) != 0))
            sc_diag_addf(&p->problems, "pair.json: stopped \"%s\", but the pairs show: %s",
                         claimed ? claimed : "", why);
    }
}

/* pair.json against what the sides give: the first key that differs. */
static void sc__check_record(sc_pair_loaded *p, const char *variable, uint64_t seed)
{
    json_object *order = NULL, *truth;
    sc_pair_info info = {
        .variable = variable, .seed = seed, .stopped = sc__str(p->record, "stopped")};

    if (json_object_object_get_ex(p->record, "order", &order) &&
        json_object_is_type(order, json_type_array))
        info.started = json_object_array_length(order);
    truth = sc_pair_record(&info, &p->side[0].facts, &p->side[1].facts);
    if (!truth)
        return;
    json_object_object_foreach(truth, key, want)
    {
        json_object *got = NULL;
        if (!json_object_object_get_ex(p->record, key, &got) || !json_object_equal(got, want)) {
            sc_diag_addf(&p->problems, "pair.json: %s is not what the sides' files give (%.200s)",
                         key, json_object_to_json_string(want));
            break;
        }
    }
    if (json_object_object_length(truth) != json_object_object_length(p->record))
        sc_diag_addf(&p->problems, "pair.json: holds keys the pair's record does not have");
    json_object_put(truth);
}

/* The pair's variable: what its card's against: changes (none, or two builds of it). */
static bool sc__variable_ok(sc_pair_loaded *p, const sc_card *card, const char *variable)
{
    const char *key = sc_pair_key(card);

    if (key ? !strcmp(variable, key)
            : !strcmp(variable, SC_PAIR_NONE) || !strcmp(variable, SC_PAIR_BUILD))
        return true;
    sc_diag_addf(&p->problems, "pair.json: variable %s, but the pair's card changes %s",
                 p->variable, key ? key : "nothing");
    return false;
}

static void sc__check(sc_pair_loaded *p, const sc_bundle *b, const char *path)
{
    const char *variable = sc__str(p->record, "variable"), *seed_text = sc__str(p->record, "seed");
    sc_card *card = sc__card(b, &p->problems);
    sc_series s = {0};
    sc_diag found;
    char *end = NULL;
    uint64_t seed = seed_text ? strtoull(seed_text, &end, 10) : 0;

    sc_diag_init(&found);
    if (variable)
        sc_text_escape(p->variable, sizeof(p->variable), variable, strlen(variable));
    if (!variable || !seed_text || !end || *end || !*seed_text) {
        sc_diag_addf(&p->problems, "pair.json: no variable or seed");
        goto out;
    }
    if (!card || sc_series_from_card(card, &s, &found) < 0 || !s.paired || s.n != 2) {
        if (card)
            sc_diag_addf(&p->problems, "card.yaml: its sides cannot be made (%s)",
                         found.count ? found.lines[0] : "not a pair");
        goto out;
    }
    if (!p->side[0].loaded || !p->side[1].loaded)
        goto out;
    if (sc__variable_ok(p, card, variable))
        sc_pair_differences_ok(variable, &p->side[0].facts, &p->side[1].facts, &p->problems);
    sc__check_sides(p, &s);
    sc__check_order(p, path, seed, &s);
    sc__check_rule(p, s.runs[0].card);
    sc__check_record(p, variable, seed);
out:
    sc_series_free(&s);
    sc_card_free(card);
    sc_diag_free(&found);
}

/* Each side verified as a side of this pair, its problems prefixed with its folder. */
static void sc__load_sides(sc_pair_loaded *p, const char *path, const sc_verify_opts *opts)
{
    sc_verify_opts side_opts = opts ? *opts : (sc_verify_opts){.keys_dir = NULL};
    char side_path[4096], mode[8];

    side_opts.pair_side = true;
    for (int i = 0; i < 2; i++) {
        snprintf(side_path, sizeof(side_path), "%s/%s", path, sc__sides[i]);
        if (sc_analysis_load_opts(&p->side[i], side_path, &side_opts) < 0) {
            sc_diag_addf(&p->problems, "%s: %s", sc__sides[i], p->side[i].why);
            continue;
        }
        for (size_t k = 0; k < p->side[i].verify.problems.count; k++)
            sc_diag_addf(&p->problems, "%s: %s", sc__sides[i], p->side[i].verify.problems.lines[k]);
        if (!sc_kv_get(p->side[i].facts.run_conf, "pair_side", mode, sizeof(mode)) ||
            mode[0] != (i ? 'B' : 'A') || mode[1])
            sc_diag_addf(&p->problems, "%s/run.conf: not side %c of a pair", sc__sides[i],
                         i ? 'B' : 'A');
    }
}

int sc_pair_load(const char *path, const sc_verify_opts *opts, sc_pair_loaded *p)
{
    sc_bundle b;
    char *text = NULL;
    int rc;

    memset(p, 0, sizeof(*p));
    sc_diag_init(&p->problems);
    sc_text_escape(p->arg_shown, sizeof(p->arg_shown), path, strlen(path));
    rc = sc_bundle_open(&b, path);
    if (rc < 0)
        return rc;
    sc_bundle_check_sums(&b, &p->problems);
    if (sc_bundle_read(&b, SC_PAIR_RECORD, &text, NULL) < 0 ||
        !(p->record = json_tokener_parse(text)) ||
        !json_object_is_type(p->record, json_type_object))
        sc_diag_addf(&p->problems,
                     "%s: missing or not JSON (an interrupted pair: its sides "
                     "are in a/ and b/)",
                     SC_PAIR_RECORD);
    free(text);
    sc__load_sides(p, path, opts);
    if (p->record)
        sc__check(p, &b, path);
    sc_bundle_close(&b);
    json_object *ra = p->side[0].loaded ? sc__runs(p, 0) : NULL;
    json_object *rb = p->side[1].loaded ? sc__runs(p, 1) : NULL;
    if (ra && rb)
        p->pairs = json_object_array_length(ra) < json_object_array_length(rb)
                       ? json_object_array_length(ra)
                       : json_object_array_length(rb);
    p->usable = !p->problems.count && !p->problems.more && p->side[0].usable && p->side[1].usable;
    if (p->problems.count)
        snprintf(p->why, sizeof(p->why), "%zu problems (%s%s)",
                 p->problems.count + p->problems.more, p->problems.lines[0],
                 p->problems.count > 1 ? "; ..." : "");
    else if (!p->usable)
        snprintf(p->why, sizeof(p->why), "side %c: %.900s", p->side[0].usable ? 'B' : 'A',
                 p->side[0].usable ? p->side[1].why : p->side[0].why);
    return 0;
}

int sc_pair_verify(const char *path, const sc_verify_opts *opts)
{
    sc_pair_loaded p;
    json_object *primary = NULL, *ci = NULL;
    int rc = sc_pair_load(path, opts, &p), status;

    if (rc < 0) {
        fprintf(stderr, "streamcard: verify: %s: cannot open the pair: %s\n", p.arg_shown,
                strerror(-rc));
        sc_pair_loaded_free(&p);
        return SC_EXIT_USAGE;
    }
    if (p.problems.count) {
        sc_diag_print(&p.problems, "streamcard: verify: ", stderr);
        fprintf(stderr, "streamcard: verify: %s: FAILED (%zu problems)\n", p.arg_shown,
                p.problems.count + p.problems.more);
        status = SC_EXIT_FAILED;
    } else if (!p.usable) {
        fprintf(stderr, "streamcard: verify: %s: the pair is intact and consistent, but %s\n",
                p.arg_shown, p.why);
        status = SC_EXIT_FAILED;
    } else {
        json_object_object_get_ex(p.record, "primary", &primary);
        json_object_object_get_ex(primary, "ci95", &ci);
        printf("streamcard: verify: %s: intact; both sides' gates recomputed from the raw files "
               "hold; %zu pairs in the order seed %s gives; %s: %s\n",
               p.arg_shown, p.pairs, sc__str(p.record, "seed"),
               sc__str(primary, "metric") ? sc__str(primary, "metric") : "no metric",
               sc__str(primary, "verdict") ? sc__str(primary, "verdict") : "no verdict");
        status = SC_EXIT_OK;
    }
    sc_pair_loaded_free(&p);
    return status;
}
