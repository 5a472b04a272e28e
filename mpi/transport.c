/*
 * transport.c: the transport probe: fi_info, the environment, the library's own report
 * captured from stderr, and MPI_T (see transport.h).
 */
#include "transport.h"
#include "sc_trace_protocol.h"
#include "sc_spawn.h"
#include "transport_parse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* fi_info lists every provider in a few KiB; a hung one must not stall the rank. */
static const sc_spawn_opts scm__fi_info_run = {
    .timeout_ms = 10000, .max_bytes = 256 * 1024, .quiet = true};

extern char **environ;

/* The environment that steers the transport: what was forced, before we add anything. */
static void scm__mca_env(char *out, size_t len)
{
    static const char *const prefixes[] = {
        "OMPI_MCA_pml", "OMPI_MCA_btl", "OMPI_MCA_mtl", "OMPI_MCA_opal_common_ofi", "FI_", "UCX_"};
    size_t used = 0;

    out[0] = '\0';
    for (char **e = environ; *e; e++) {
        for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
            if (strncmp(*e, prefixes[i], strlen(prefixes[i])) != 0)
                continue;
            int n = snprintf(out + used, len - used, "%s%s", used ? " " : "", *e);
            if (n < 0 || (size_t)n >= len - used) {
                out[used] = '\0'; /* truncated at a whole entry */
                return;
            }
            used += (size_t)n;
            break;
        }
    }
}

/* `fi_info -l` and `fi_info` on this node, or "unavailable". */
static void scm__fi_info(struct scm_probe *p)
{
    char *list_argv[] = {"fi_info", "-l", NULL}, *usable_argv[] = {"fi_info", NULL};
    char *text = NULL;

    snprintf(p->fi_registered, sizeof(p->fi_registered), "unavailable");
    snprintf(p->fi_usable, sizeof(p->fi_usable), "unavailable");
    if (sc_spawn_capture(list_argv, &scm__fi_info_run, &text) != 0) {
        free(text);
        return;
    }
    scm_parse_fi_list(text, p->fi_registered, sizeof(p->fi_registered));
    free(text);
    if (sc_spawn_capture(usable_argv, &scm__fi_info_run, &text) == 0)
        scm_parse_fi_usable(text, p->fi_usable, sizeof(p->fi_usable));
    else
        snprintf(p->fi_usable, sizeof(p->fi_usable), "%s", SCM_NONE); /* fi_info: no provider */
    free(text);
}

void scm_probe_begin(struct scm_probe *p)
{
    memset(p, 0, sizeof(*p));
    scm__mca_env(p->mca_env, sizeof(p->mca_env));
    scm__fi_info(p);
    p->capturing = scm_capture_begin(&p->capture) == 0;
}

void scm_probe_end(struct scm_probe *p, MPI_Comm comm, int peer)
{
    char out = 0, in = 0;

    if (peer >= 0)
        MPI_Sendrecv(&out, 1, MPI_BYTE, peer, 0, &in, 1, MPI_BYTE, peer, 0, comm,
                     MPI_STATUS_IGNORE);
    scm_capture_end(&p->capture);
}

/* A string control variable's value ("" when it cannot be read). */
static void scm__cvar_string(int index, char *out, size_t len)
{
    MPI_T_cvar_handle h;
    int count = 0;

    out[0] = '\0';
    if (MPI_T_cvar_handle_alloc(index, NULL, &h, &count) != MPI_SUCCESS)
        return;
    size_t cap = (count > 4096 ? (size_t)count : 4096) + 1;
    char *buf = calloc(cap, 1);
    if (buf && MPI_T_cvar_read(h, buf) == MPI_SUCCESS)
        snprintf(out, len, "%s", buf);
    free(buf);
    MPI_T_cvar_handle_free(&h);
}

/*
 * MPI_T after MPI_Init: the components whose variables are still registered, and the
 * selection strings in force.
 */
static void scm__mpit(struct scm_transport *t, char *mtl_open, size_t mtl_len)
{
    int provided, n = 0;

    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS)
        return;
    MPI_T_cvar_get_num(&n);
    for (int i = 0; i < n; i++) {
        char name[256];
        int name_len = sizeof(name), verbosity, bind, scope;
        MPI_Datatype type;
        MPI_T_enum enumtype;
        if (MPI_T_cvar_get_info(i, name, &name_len, &verbosity, &type, &enumtype, NULL, NULL, &bind,
                                &scope) != MPI_SUCCESS)
            continue; /* deregistered: its component was closed */
        scm_component_add(t->pml, sizeof(t->pml), "pml", name);
        scm_component_add(t->btls_open, sizeof(t->btls_open), "btl", name);
        scm_component_add(mtl_open, mtl_len, "mtl", name);
        if (type != MPI_CHAR)
            continue;
        if (!strcmp(name, "pml"))
            scm__cvar_string(i, t->req_pml, sizeof(t->req_pml));
        else if (!strcmp(name, "btl"))
            scm__cvar_string(i, t->req_btl, sizeof(t->req_btl));
        else if (!strcmp(name, "mtl"))
            scm__cvar_string(i, t->req_mtl, sizeof(t->req_mtl));
    }
    MPI_T_finalize();
}

static void scm__or(char *field, size_t len, const char *fallback)
{
    if (!field[0])
        snprintf(field, len, "%s", fallback);
}

void scm_probe_result(struct scm_probe *p, int rank, int peer, struct scm_transport *t)
{
    char btl_peer[64], btl_self[64], mtl_open[64] = "", provider[64], domain[64];
    const char *text = p->capture.text ? p->capture.text : "";

    memset(t, 0, sizeof(*t));
    t->rank = rank;
    if (gethostname(t->host, sizeof(t->host) - 1) != 0)
        snprintf(t->host, sizeof(t->host), "%s", SCM_UNKNOWN);
    snprintf(t->mca_env, sizeof(t->mca_env), "%s", p->mca_env);
    snprintf(t->fi_registered, sizeof(t->fi_registered), "%s", p->fi_registered);
    snprintf(t->fi_usable, sizeof(t->fi_usable), "%s", p->fi_usable);
    scm_parse_bml(text, rank, peer, btl_peer, sizeof(btl_peer), btl_self, sizeof(btl_self),
                  t->evidence, sizeof(t->evidence));
    scm_parse_ofi(text, provider, sizeof(provider), domain, sizeof(domain), t->evidence,
                  sizeof(t->evidence));
    scm__mpit(t, mtl_open, sizeof(mtl_open));
    if (!p->capturing)
        scm_list_add(t->evidence, sizeof(t->evidence), "stderr could not be captured");

    /*
     * The MTL matters under cm only, the BTLs under ob1 only (the others bypass them). The
     * OFI MTL's provider lines count only when cm carried the data: cm's initialisation
     * starts the MTL even when ob1 then wins the selection (the lines stay in the evidence),
     * and the OFI BTL picks its own provider, which Open MPI 4.1 does not report.
     */
    if (scm_list_has(t->pml, "cm")) {
        snprintf(t->mtl, sizeof(t->mtl), "%s", mtl_open[0] ? mtl_open : SCM_UNKNOWN);
        if (!strcmp(t->mtl, "ofi")) {
            snprintf(t->provider, sizeof(t->provider), "%s", provider);
            snprintf(t->domain, sizeof(t->domain), "%s", domain);
        }
    }
    if (scm_list_has(t->pml, "ob1")) {
        snprintf(t->btl, sizeof(t->btl), "%s", btl_peer);
        scm_list_add(t->btl, sizeof(t->btl), btl_self);
    }
    scm__or(t->pml, sizeof(t->pml), SCM_UNKNOWN);
    scm_transport_normalize(t->pml, btl_peer, t->mtl, t->provider, t->transport,
                            sizeof(t->transport));
    scm__or(t->btl, sizeof(t->btl), scm_list_has(t->pml, "ob1") ? SCM_UNKNOWN : SCM_NONE);
    scm__or(t->btls_open, sizeof(t->btls_open), SCM_NONE);
    scm__or(t->mtl, sizeof(t->mtl), SCM_NONE);
    scm__or(t->provider, sizeof(t->provider),
            strncmp(t->transport, "ofi", 3) ? SCM_NONE : SCM_UNKNOWN);
    scm__or(t->domain, sizeof(t->domain), SCM_NONE);
    scm_capture_free(&p->capture);
}

int scm_transport_report(const struct scm_transport *mine, struct scm_transport *all, MPI_Comm comm,
                         char *agreed, size_t len)
{
    int rank, size, rc;

    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    rc = MPI_Gather(mine, (int)sizeof(*mine), MPI_BYTE, all, (int)sizeof(*mine), MPI_BYTE, 0, comm);
    if (rc != MPI_SUCCESS || rank != 0)
        return rc;

    const char *names[size > 0 ? size : 1];
    for (int r = 0; r < size; r++) {
        const struct scm_transport *t = &all[r];
        names[r] = t->transport;
        printf(SC_TRACE_TRANSPORT_RANK("%d", "%s", "%s", "%s", "%s", "%s", "%s", "%s") "\n", r,
               t->host, t->transport, t->pml, t->btl, t->mtl, t->provider, t->fi_registered);
    }
    scm_transport_agree(names, size, agreed, len);
    printf(SC_TRACE_TRANSPORT("%s", "%s", "%s", "%s", "%s") "\n", agreed, all[0].pml, all[0].btl,
           all[0].mtl, all[0].provider);
    fflush(stdout);
    return MPI_SUCCESS;
}
