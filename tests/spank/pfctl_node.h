/*
 * pfctl_node.h: a fake node with a request on it, for the facade's tests (test_pfctl.c,
 * test_pfctl_jobs.c): the node, its journal files, and the evidence's state.env values.
 */
#ifndef SC_TEST_PFCTL_NODE_H
#define SC_TEST_PFCTL_NODE_H

#include "fake_node.h"
#include "pfctl.h"
#include "sc_cpulist.h"
#include "sc_kv.h"

typedef struct node {
    char *root;
    char state[PATH_MAX / 2];
    sc_pfctl_config cfg;
    hwloc_bitmap_t cpus;
    sc_pfctl_request req;
} node;

/* A fake node and a request for cpus with the policy allowing everything. */
static inline int node_make(node *n, const fake_node *spec, const char *cpus, sc_prefetch pf,
                            const char *governor)
{
    memset(n, 0, sizeof(*n));
    n->root = fake_node_make(spec);
    n->cpus = hwloc_bitmap_alloc();
    if (!n->root || !n->cpus || (*cpus && sc_cpulist_parse(cpus, n->cpus, NULL, 0) < 0))
        return -1;
    snprintf(n->state, sizeof(n->state), "%s/state", n->root);
    n->cfg.sysroot = n->root;
    n->cfg.state_dir = n->state;
    n->req = (sc_pfctl_request){pf, governor, n->cpus, true, true, NULL};
    return 0;
}

static inline void node_free(node *n)
{
    hwloc_bitmap_free(n->cpus);
    sysroot_remove(n->root);
}

static inline bool journal_exists(const node *n, unsigned job)
{
    char path[PATH_MAX];
    struct stat st;
    snprintf(path, sizeof(path), "%s/job_%u.journal", n->state, job);
    return stat(path, &st) == 0;
}

/* Number of lines starting with prefix in a journal. */
static inline int journal_count(const node *n, unsigned job, const char *prefix)
{
    char path[PATH_MAX], line[512];
    int count = 0;
    snprintf(path, sizeof(path), "%s/job_%u.journal", n->state, job);
    FILE *f = fopen(path, "r");
    while (f && fgets(line, sizeof(line), f))
        count += strncmp(line, prefix, strlen(prefix)) == 0;
    if (f)
        fclose(f);
    return count;
}

/* The value of key in a state.env text, "" when absent (the gates read it the same way). */
static inline const char *env(const sc_pfctl_evidence *ev, const char *key)
{
    static char buf[8][128];
    static int next;
    char *b = buf[next++ % 8];
    if (!sc_kv_get(ev->state_env, key, b, sizeof(buf[0])))
        b[0] = '\0';
    return b;
}

#endif
