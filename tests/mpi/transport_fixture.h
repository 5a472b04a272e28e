/*
 * transport_fixture.h: the fixtures of the MPI library's reports (the .txt files of
 * tests/fuzz/corpus/transport), read by the unit test of mpi/transport_parse.c and by its
 * fuzz target.
 *
 * A fixture is what one rank's MPI library and fabric libraries said while MPI_Init ran,
 * after "# " comment lines that say where it comes from and, among them, what the probe
 * knows besides the text: "# ompi: 4" (Open MPI's major version), "# self: 0", "# peer: 1"
 * (the ranks), "# pml: ob1" and "# mtl: none" (what MPI_T reports selected).
 */
#ifndef SCM_TRANSPORT_FIXTURE_H
#define SCM_TRANSPORT_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct scm_fixture {
    int ompi, self, peer;
    char pml[64], mtl[64];
    const char *text; /* after the comment lines */
};

/* Reads the header of data (NUL-terminated); absent keys: ompi 0, ranks 0 and 1, ob1, none. */
static inline void scm_fixture_parse(const char *data, struct scm_fixture *f)
{
    *f = (struct scm_fixture){.ompi = 0, .self = 0, .peer = 1, .pml = "ob1", .mtl = "none"};
    const char *p = data;
    while (p[0] == '#') {
        size_t n = strcspn(p, "\n");
        char line[128];
        snprintf(line, sizeof(line), "%.*s", (int)(n < sizeof(line) ? n : sizeof(line) - 1), p);
        if (sscanf(line, "# ompi: %d", &f->ompi) != 1 &&
            sscanf(line, "# self: %d", &f->self) != 1 &&
            sscanf(line, "# peer: %d", &f->peer) != 1 && sscanf(line, "# pml: %63s", f->pml) != 1)
            (void)sscanf(line, "# mtl: %63s", f->mtl);
        p += n + (p[n] == '\n');
    }
    f->text = p;
}

#endif
