/*
 * capture.h: hearing what the MPI library says about itself while it starts.
 *
 * Open MPI reports the BTL it picked for each peer ("mca: bml: Using vader btl for send to
 * [[7705,1],1] on node n01", btl_base_verbose >= 1) and the libfabric provider its OFI MTL
 * picked ("mtl:ofi:prov: cxi", mtl_base_verbose/mtl_ofi_verbose >= 1), but only on stderr.
 * scm_capture_begin() raises those verbosities through the environment (OMPI_MCA_*, read
 * by MPI_Init; variables the user set are left alone) and routes this process's stderr
 * through a pipe; a thread copies everything on to the real stderr as it arrives (nothing
 * is lost if MPI_Init aborts) and keeps a copy. scm_capture_end(), called after MPI_Init
 * and a first exchange with the peer, puts stderr back and leaves the copy in `text`.
 *
 * When this process raised the OFI MTL's verbosity, its chatter (one line per provider it
 * skips) is not forwarded; its decisive lines (the provider and domain chosen) are.
 */
#ifndef SCM_CAPTURE_H
#define SCM_CAPTURE_H

#include <pthread.h>
#include <stddef.h>

struct scm_capture {
    int saved;   /* the real stderr (a dup), -1 when not capturing */
    int rd;      /* read end of the capture pipe */
    int stop[2]; /* tells the thread to drain and finish */
    pthread_t thread;
    int filter_ofi;  /* drop the OFI MTL's chatter we asked for */
    int injected[3]; /* which verbosity variables this process set */
    char *text;      /* everything captured, NUL-terminated (capped at 1 MiB) */
    size_t len, cap;
    char line[1024]; /* a line not yet ended, while filtering */
    size_t line_len;
};

/* Start capturing. Returns 0, or -errno (then nothing is captured and stderr is as it was). */
int scm_capture_begin(struct scm_capture *c);

/* Stop capturing: stderr is the real one again; c->text holds the copy ("" when none). */
void scm_capture_end(struct scm_capture *c);

void scm_capture_free(struct scm_capture *c);

#endif
