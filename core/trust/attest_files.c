/* attest_files.c: a bundle's signed statements, read bounded (sc_attest.h). */
#include "sc_attest.h"
#include "sc_dir.h"
#include "sc_file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int sc__cmp(const void *a, const void *b)
{
    return strcmp(((const sc_attest_file *)a)->name, ((const sc_attest_file *)b)->name);
}

int sc_attest_bundle_files(int bundle_fd, sc_attest_file **out, size_t *n, bool *more)
{
    DIR *d = sc_dir_openat(bundle_fd, "attest", O_NOFOLLOW);
    sc_attest_file *v = calloc(SC_ATTEST_MAX_FILES, sizeof(*v));
    struct dirent *e;
    size_t count = 0;
    int rc = v ? 0 : -ENOMEM;

    *out = NULL;
    *n = 0;
    *more = false;
    if (!d) {
        free(v);
        return rc < 0 ? rc : 0; /* no attest/: no statement */
    }
    while (rc == 0 && (e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (strncmp(e->d_name, "apply_", 6) != 0 || len >= sizeof(v[0].name))
            continue;
        if (count == SC_ATTEST_MAX_FILES) {
            *more = true;
            break;
        }
        sc_attest_file *f = &v[count];
        memcpy(f->name, e->d_name, len + 1);
        /* Not followed, not a fifo's wait, at most one envelope's size. */
        f->rc = sc_file_read_at(dirfd(d), f->name, O_NOFOLLOW | O_NONBLOCK, SC_ATTEST_MAX_ENVELOPE,
                                &f->text, &f->len);
        if (f->rc == -ENOMEM)
            rc = -ENOMEM;
        count++;
    }
    closedir(d);
    if (rc < 0) {
        sc_attest_files_free(v, count);
        return rc;
    }
    qsort(v, count, sizeof(*v), sc__cmp);
    *out = v;
    *n = count;
    return 0;
}

void sc_attest_files_free(sc_attest_file *v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        free(v[i].text);
    free(v);
}
