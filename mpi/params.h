/*
 * params.h: the settings in force that steer the transport, each with where it came from:
 *   - Open MPI's MCA variables of the transport frameworks (pml, btl, mtl, bml, osc and the
 *     OFI and UCX common parts: names equal to, or starting with "<framework>_"), from the
 *     environment (OMPI_MCA_<name>, which mpirun --mca sets too) or from the MCA parameter
 *     files (mca_base_param_files, as MPI_T reports it: the user's and the installation's
 *     openmpi-mca-params.conf), the value as set there (after MPI_Init, MPI_T's value of a
 *     closed framework's variable is its reset, not what steered the selection);
 *   - every FI_* (libfabric) and UCX_* variable of the environment;
 *   - what the probe itself set to hear the library (capture.h), source "streamcard".
 * The launcher's own OMPI_MCA_* variables (job ids, URIs) are not transport settings and
 * change with every run: they are left out.
 */
#ifndef SCM_PARAMS_H
#define SCM_PARAMS_H

#include <stddef.h>

#define SCM_MAX_PARAMS 40

struct scm_param {
    char name[64];    /* MCA name ("btl", "mtl_ofi_provider_include") or the variable */
    char source[128]; /* "environment", "file:/etc/openmpi/openmpi-mca-params.conf",
                         "streamcard" */
    char value[192];
};

/* Fixed-size: gathered between ranks as bytes. */
struct scm_params {
    int n, dropped; /* dropped: settings past SCM_MAX_PARAMS */
    struct scm_param p[SCM_MAX_PARAMS];
};

/* True when an MCA variable's name belongs to the transport frameworks (above). */
int scm_params_mca_relevant(const char *name);

/* Before the capture sets its variables: every relevant setting of the environment. */
void scm_params_from_env(struct scm_params *ps, char *const *envp);

/* The variables the capture set (name, value), source "streamcard". */
void scm_params_add(struct scm_params *ps, const char *name, const char *source, const char *value);

/* The relevant entries of the MCA parameter files (a ':'-separated list of paths) that the
   environment does not override. */
void scm_params_from_files(struct scm_params *ps, const char *files);

/* Sorted by name, then source: one order on every rank and in every run. */
void scm_params_sort(struct scm_params *ps);

#endif
