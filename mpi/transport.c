/*
 * transport.c: the transport probe: the environment, the stack, the library's own report
 * captured from stdout and stderr, and MPI_T (see transport.h).
 */
#include "transport.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

void scm_probe_library(char *buf, size_t len)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int n = 0;

    MPI_Get_library_version(lib, &n);
    lib[strcspn(lib, "\n")] = '\0';
    snprintf(buf, len, "%s", lib[0] ? lib : "unknown");
}

void scm_probe_begin(struct scm_probe *p)
{
    memset(p, 0, sizeof(*p));
    scm_params_from_env(&p->params, environ); /* before the capture sets its own */
    scm_stack_begin();
    p->capturing = scm_capture_begin(&p->capture) == 0;
    for (int i = 0; i < SCM_CAPTURE_NVARS; i++) {
        const char *name = scm_capture_vars[i].name;
        if (!p->capture.injected[i])
            continue; /* the user's own setting: recorded from the environment above */
        if (!strncmp(name, "OMPI_MCA_", 9))
            name += 9; /* recorded by its MCA name, as the environment's are */
        scm_params_add(&p->params, name, "streamcard", scm_capture_vars[i].value);
    }
}

void scm_probe_end(struct scm_probe *p, MPI_Comm comm, int peer, const char *mpi_library)
{
    char out = 0, in = 0;

    if (peer >= 0)
        MPI_Sendrecv(&out, 1, MPI_BYTE, peer, 0, &in, 1, MPI_BYTE, peer, 0, comm,
                     MPI_STATUS_IGNORE);
    scm_capture_end(&p->capture);
    scm_stack_end(&p->stack, mpi_library, &p->fi_said);
}

void scm_probe_free(struct scm_probe *p)
{
    scm_capture_free(&p->capture);
    free(p->fi_said);
    p->fi_said = NULL;
}

/* A string control variable's value ("" when it cannot be read or is not a string). */
static void scm__cvar_string(int index, MPI_Datatype type, char *out, size_t len)
{
    MPI_T_cvar_handle h;
    int count = 0;

    out[0] = '\0';
    if (type != MPI_CHAR || MPI_T_cvar_handle_alloc(index, NULL, &h, &count) != MPI_SUCCESS)
        return;
    size_t cap = (count > 4096 ? (size_t)count : 4096) + 1;
    char *buf = calloc(cap, 1);
    if (buf && MPI_T_cvar_read(h, buf) == MPI_SUCCESS)
        snprintf(out, len, "%s", buf);
    free(buf);
    MPI_T_cvar_handle_free(&h);
}

/*
 * MPI_T after MPI_Init: the components whose variables are still registered, the selection
 * strings in force, and the parameter files' settings.
 */
static void scm__mpit(struct scm_transport *t, struct scm_params *ps, char *mtl_open,
                      size_t mtl_len)
{
    int provided, n = 0;
    char files[1024] = "";

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
        if (!strcmp(name, "pml"))
            scm__cvar_string(i, type, t->req_pml, sizeof(t->req_pml));
        else if (!strcmp(name, "btl"))
            scm__cvar_string(i, type, t->req_btl, sizeof(t->req_btl));
        else if (!strcmp(name, "mtl"))
            scm__cvar_string(i, type, t->req_mtl, sizeof(t->req_mtl));
        else if (!strcmp(name, "mca_base_param_files"))
            scm__cvar_string(i, type, files, sizeof(files));
    }
    MPI_T_finalize();
    scm_params_from_files(ps, files);
}

static void scm__or(char *field, size_t len, const char *fallback)
{
    if (!field[0])
        snprintf(field, len, "%s", fallback);
}

/* The components that moved the data, as far as the evidence names them. */
static void scm__components(struct scm_transport *t, const char *text, const char *mtl_open,
                            const char *btl_peer, const char *btl_self)
{
    char provider[64], domain[64];

    scm_parse_ofi(text, t->ompi_major, provider, sizeof(provider), domain, sizeof(domain),
                  t->evidence, sizeof(t->evidence));
    scm_parse_ucx(text, t->ucx, sizeof(t->ucx), t->evidence, sizeof(t->evidence));
    /*
     * The MTL matters under cm only, the BTLs under ob1 only (the others bypass them). The
     * OFI MTL's provider lines count only when cm carried the data: cm's initialisation
     * starts the MTL even when ob1 then wins the selection (the lines stay in the evidence),
     * and the OFI BTL picks its own provider, which Open MPI does not report.
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
}

void scm_probe_result(struct scm_probe *p, int rank, int peer, const char *mpi_library,
                      struct scm_transport *t)
{
    char btl_peer[64], btl_self[64], mtl_open[64] = "";
    const char *text = p->capture.text ? p->capture.text : "";

    memset(t, 0, sizeof(*t));
    t->rank = rank;
    t->ompi_major = scm_ompi_major(mpi_library);
    if (gethostname(t->host, sizeof(t->host) - 1) != 0)
        snprintf(t->host, sizeof(t->host), "%s", SCM_UNKNOWN);
    t->params = p->params;
    t->stack = p->stack;
    scm_parse_bml(text, rank, peer, btl_peer, sizeof(btl_peer), btl_self, sizeof(btl_self),
                  t->evidence, sizeof(t->evidence));
    scm__mpit(t, &t->params, mtl_open, sizeof(mtl_open));
    scm_params_sort(&t->params);
    if (!p->capturing)
        scm_list_add(t->evidence, sizeof(t->evidence), "the output could not be captured");
    scm__components(t, text, mtl_open, btl_peer, btl_self);
    t->n_refusals = (int)scm_parse_refusals(text, t->ompi_major, t->refusals, SCM_MAX_REFUSALS);
    scm__or(t->pml, sizeof(t->pml), SCM_UNKNOWN);
    scm_transport_candidates(t->pml, btl_peer, t->mtl, t->provider, t->ucx, t->candidates,
                             sizeof(t->candidates));
    scm__or(t->btl, sizeof(t->btl), scm_list_has(t->pml, "ob1") ? SCM_UNKNOWN : SCM_NONE);
    scm__or(t->btls_open, sizeof(t->btls_open), SCM_NONE);
    scm__or(t->mtl, sizeof(t->mtl), SCM_NONE);
    scm__or(t->provider, sizeof(t->provider),
            scm_list_has(t->candidates, "ofi:" SCM_UNKNOWN) ? SCM_UNKNOWN : SCM_NONE);
    scm__or(t->domain, sizeof(t->domain), SCM_NONE);
    scm__or(t->ucx, sizeof(t->ucx), SCM_NONE);
}
