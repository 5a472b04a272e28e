/*
 * stack.h: which MPI stack a rank actually ran: the libmpi, libfabric, libucp, libucs and
 * libcxi loaded into it (path, SHA-256 of the file, version string), and libfabric's own
 * list of providers (fi_getinfo through the libfabric that libmpi loaded, not an fi_info
 * that happens to be first on PATH: on a Cray node the two need not match).
 *
 * Open MPI built with components as shared objects loads libfabric with its OFI
 * components during MPI_Init and unloads it again when they lose the selection or fail:
 * exactly the fall-back this tool exists to catch. So the stack is watched while MPI_Init
 * runs: this executable exports dlclose(), which Open MPI's dl framework calls to unload a
 * component; while watching, it notes the libraries still loaded and holds libfabric (one
 * more dlopen reference) until scm_stack_end() has asked it for its providers. Outside
 * the watch it only passes the call on.
 *
 * Call order: scm_stack_begin() before MPI_Init, scm_stack_end() after MPI_Init and the
 * capture (capture.h): what libfabric says while answering is not the library's selection.
 */
#ifndef SCM_STACK_H
#define SCM_STACK_H

#include <stddef.h>

enum { SCM_LIB_MPI, SCM_LIB_FABRIC, SCM_LIB_UCP, SCM_LIB_UCS, SCM_LIB_CXI, SCM_LIB_COUNT };

/* One library: "" path when it was not loaded. Fixed-size: gathered as bytes. */
struct scm_lib {
    char path[256];
    char sha256[65];  /* of the file at path, "unavailable" when it could not be read */
    char version[96]; /* from the library itself: fi_version(), ucp_get_version_string(),
                         Open MPI's MPI_Get_library_version; "-" where it has none */
    int unloaded;     /* loaded during MPI_Init, unloaded by the MPI library before its end */
};

struct scm_stack {
    struct scm_lib lib[SCM_LIB_COUNT];
    char fi_providers[384]; /* fi_getinfo's providers ("cxi,tcp;ofi_rxm,shm"), or why not */
};

/* The library's name in trace lines and JSON: "libmpi", "libfabric", ... */
const char *scm_stack_lib_name(int which);

/* Before MPI_Init: start watching the MPI library's dlclose() calls. */
void scm_stack_begin(void);

/*
 * After MPI_Init: stop watching, note what is loaded now, ask libfabric for its providers,
 * hash every library found and release what was held. mpi_library is Open MPI's version
 * line (MPI_Get_library_version). *fi_said: what libfabric printed on stderr while it
 * answered (malloc'd, NULL when nothing), kept out of stream.log for transport.log.
 */
void scm_stack_end(struct scm_stack *st, const char *mpi_library, char **fi_said);

#endif
