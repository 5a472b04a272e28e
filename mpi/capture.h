/*
 * capture.h: hearing what the MPI library and the fabric libraries say while MPI_Init
 * selects a transport.
 *
 * They say it only when asked, and only on stdout or stderr: Open MPI's BML names the BTL
 * per peer (btl_base_verbose), its OFI MTL the libfabric provider and domain and why it
 * refused others (mtl_ofi_verbose, a synonym of opal_common_ofi_verbose in 5.0), libfabric
 * its providers' warnings (FI_LOG_LEVEL=warn), UCX its lanes per endpoint configuration
 * (UCX_LOG_LEVEL=info, on stdout). scm_capture_begin() sets those variables for MPI_Init
 * (variables the user set are left alone: theirs is recorded instead) and routes this
 * process's stdout and stderr through pipes; a thread copies everything on to the real
 * stdout and stderr as it arrives (nothing is lost if MPI_Init aborts) and keeps a copy.
 * scm_capture_end(), called after MPI_Init and a first exchange with the peer, puts both
 * back and leaves the copy in `text` (the bundle's transport.log, via the rank).
 *
 * What only exists because this process raised a verbosity is kept in the copy but not
 * forwarded: the OFI components' chatter (except the provider and domain they chose),
 * libfabric's log lines, UCX's INFO and DIAG lines. So stream.log reads as without the
 * probe, and transport.log holds every selection and OFI diagnostic line.
 */
#ifndef SCM_CAPTURE_H
#define SCM_CAPTURE_H

#include <pthread.h>
#include <stddef.h>

/* The variables the capture sets when the user did not (what, value, which lines it adds). */
#define SCM_CAPTURE_NVARS 5
extern const struct scm_capture_var {
    const char *name, *value;
} scm_capture_vars[SCM_CAPTURE_NVARS];

/* One captured stream (stdout or stderr). */
struct scm_capture_stream {
    int fd;          /* STDOUT_FILENO or STDERR_FILENO */
    int saved;       /* the real one (a dup), -1 when not capturing */
    int rd;          /* read end of its pipe */
    char line[1024]; /* a line not yet ended, while filtering */
    size_t line_len;
};

struct scm_capture {
    struct scm_capture_stream s[2];
    int stop[2]; /* tells the thread to drain and finish */
    pthread_t thread;
    int injected[SCM_CAPTURE_NVARS]; /* which of scm_capture_vars this process set */
    char *text;                      /* everything captured, NUL-terminated (capped at 1 MiB) */
    size_t len, cap;
    int truncated; /* more than the cap was said */
};

/* Start capturing. Returns 0, or -errno (then nothing is captured; stdout and stderr are as
   they were, the variables set all the same). */
int scm_capture_begin(struct scm_capture *c);

/* Stop capturing: stdout and stderr are the real ones again; c->text holds the copy ("" when
   none). The variables this process set are unset (nothing started later inherits them). */
void scm_capture_end(struct scm_capture *c);

void scm_capture_free(struct scm_capture *c);

#endif
