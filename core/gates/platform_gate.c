/* platform_gate.c: the platform_state gate over every node's readback (sc_platform_gate.h). */
#include "sc_platform_gate.h"
#include "sc_kv.h"
#include "sc_readback.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SC_STATE_DIR "prefetch/state/"
#define SC_STATE_FILE "/state.env"

int sc_host_states_read(const sc_bundle *b, sc_host_state **out, size_t *n)
{
    char **paths = NULL;
    size_t count = 0;
    sc_diag ignored; /* odd files are the hash check's business, not this one's */
    int rc;

    *out = NULL;
    *n = 0;
    sc_diag_init(&ignored);
    rc = sc_bundle_list(b, &paths, &count, &ignored);
    sc_diag_free(&ignored);
    if (rc < 0)
        return rc;
    for (size_t i = 0; i < count && rc == 0; i++) {
        const char *p = paths[i];
        size_t dir = strlen(SC_STATE_DIR), file = strlen(SC_STATE_FILE), len = strlen(p);
        if (strncmp(p, SC_STATE_DIR, dir) != 0 || len <= dir + file ||
            strcmp(p + len - file, SC_STATE_FILE) != 0)
            continue;
        size_t hlen = len - dir - file;
        if (hlen >= sizeof((*out)->host) || memchr(p + dir, '/', hlen))
            continue; /* not <host>/state.env directly */
        sc_host_state *grown = realloc(*out, (*n + 1) * sizeof(**out));
        if (!grown) {
            rc = -ENOMEM;
            break;
        }
        *out = grown;
        sc_host_state *h = &grown[*n];
        memcpy(h->host, p + dir, hlen);
        h->host[hlen] = '\0';
        h->state_env = NULL;
        if ((rc = sc_bundle_read(b, p, &h->state_env, NULL)) == 0)
            (*n)++;
    }
    sc_bundle_list_free(paths, count);
    if (rc < 0) {
        sc_host_states_free(*out, *n);
        *out = NULL;
        *n = 0;
    }
    return rc;
}

void sc_host_states_free(sc_host_state *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i].state_env);
    free(v);
}

/*
 * One readback (REQUESTED_x, OBSERVED_x and x_VALID per setting) against the card. where:
 * "" for the batch node's, " on <host>" for a node's own. False after failing g.
 */
static bool sc__readback_holds(const sc_card *card, const char *state_env, const char *where,
                               sc_gate *g, char *observed, size_t olen, char *governor, size_t glen)
{
    char valid[16] = "", gvalid[16] = "";

    if (card->prefetch != SC_PREFETCH_UNCHANGED) {
        sc_kv_get(state_env, "OBSERVED_STATE", observed, olen);
        sc_kv_get(state_env, "STATE_VALID", valid, sizeof(valid));
        if (strcmp(valid, "1") != 0 || strcmp(observed, sc_prefetch_name(card->prefetch)) != 0) {
            sc_gate_set(g, SC_GATE_FAIL, "prefetch%s: card %s, read back %s (STATE_VALID=%s)",
                        where, sc_prefetch_name(card->prefetch), *observed ? observed : "nothing",
                        *valid ? valid : "missing");
            return false;
        }
    }
    if (strcmp(card->governor, "unchanged") != 0) {
        sc_kv_get(state_env, "OBSERVED_GOVERNOR", governor, glen);
        sc_kv_get(state_env, "GOVERNOR_VALID", gvalid, sizeof(gvalid));
        if (strcmp(gvalid, "1") != 0 || strcmp(governor, card->governor) != 0) {
            sc_gate_set(g, SC_GATE_FAIL, "governor%s: card %s, read back %s (GOVERNOR_VALID=%s)",
                        where, card->governor, *governor ? governor : "nothing",
                        *gvalid ? gvalid : "missing");
            return false;
        }
    }
    return true;
}

/* The node's short name, as the plugin names its directory (up to the first dot). */
static bool sc__same_host(const char *rank_host, const char *dir_host)
{
    size_t n = strcspn(rank_host, ".");

    return strlen(dir_host) == n && strncmp(rank_host, dir_host, n) == 0;
}

void sc_platform_gate(const sc_card *card, const char *state_env, const sc_host_state *hosts,
                      size_t n_hosts, const sc_tracelog *t, sc_gate *g)
{
    bool want_prefetch = card->prefetch != SC_PREFETCH_UNCHANGED;
    bool want_governor = strcmp(card->governor, "unchanged") != 0;
    char observed[128] = "", governor[128] = "", where[96];

    if (!want_prefetch && !want_governor) {
        sc_gate_set(g, SC_GATE_NULL, "the card leaves prefetch and governor unchanged");
        return;
    }
    if (!state_env) {
        sc_gate_set(g, SC_GATE_FAIL,
                    "not supported by evidence: no prefetch/state/state.env "
                    "readback from the plugin, nor from streamcard run as root");
        return;
    }
    if (!sc__readback_holds(card, state_env, "", g, observed, sizeof(observed), governor,
                            sizeof(governor)))
        return;
    for (size_t i = 0; i < n_hosts; i++) {
        char o[128] = "", gv[128] = "";
        snprintf(where, sizeof(where), " on %s", hosts[i].host);
        if (!sc__readback_holds(card, hosts[i].state_env, where, g, o, sizeof(o), gv, sizeof(gv)))
            return;
    }
    /* Every node that ran a rank must have changed and read back its own platform. */
    for (size_t r = 0; t && r < t->n_rank_bindings; r++) {
        const char *host = t->rank_bindings[r].host;
        size_t i = 0;
        while (i < n_hosts && !sc__same_host(host, hosts[i].host))
            i++;
        if (i == n_hosts) {
            sc_gate_set(g, SC_GATE_FAIL,
                        "not supported by evidence: rank %ld ran on %s, which has "
                        "no prefetch/state/%.*s/state.env readback",
                        t->rank_bindings[r].rank, host, (int)strcspn(host, "."), host);
            return;
        }
    }
    bool cli = sc_platform_read_by_cli(state_env);
    bool applied = sc_platform_applied_by_cli(state_env);
    sc_gate_set(g, SC_GATE_OK, "read back: prefetch %s, governor %s%s%s%s%s",
                want_prefetch ? observed : "unchanged", want_governor ? governor : "unchanged",
                n_hosts > 1 ? ", on every node" : "", cli ? "; " : "",
                applied ? SC_READBACK_APPLIED_NOTE "; " : "", cli ? SC_PLATFORM_CLI_NOTE : "");
}

bool sc_platform_applied_by_cli(const char *state_env)
{
    char applied[8] = "";

    return sc_platform_read_by_cli(state_env) &&
           sc_kv_get(state_env, "APPLIED", applied, sizeof(applied)) && strcmp(applied, "1") == 0;
}

bool sc_platform_read_by_cli(const char *state_env)
{
    char source[32] = "";

    return state_env && sc_kv_get(state_env, "SOURCE", source, sizeof(source)) &&
           strcmp(source, SC_READBACK_SOURCE) == 0;
}
