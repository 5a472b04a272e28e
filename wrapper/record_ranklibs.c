/* record_ranklibs.c: build.json's libraries of an MPI program's ranks (record_ranklibs.h). */
#include "record_ranklibs.h"
#include "sc_hashcache.h"
#include "sc_ranklibs.h"
#include "sc_runs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* The largest library hashed: a program maps what it likes, and a larger file is named only. */
#define SC__MAX_LIBRARY_BYTES (1LL << 30)

/* The SHA-256 of the file at path into sha, through the user's hash cache; 0 or -errno. */
static int sc__hash(const char *path, char sha[SC_HASH_HEX_LEN + 1])
{
    char dir[4096];
    struct stat st;
    int fd = open(path, O_RDONLY | O_CLOEXEC), rc;

    if (fd < 0)
        return -errno;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > SC__MAX_LIBRARY_BYTES)
        rc = -EFBIG;
    else
        rc = sc_hashcache_fd(sc_hashcache_default_dir(dir, sizeof(dir)) == 0 ? dir : NULL, fd, path,
                             sha, NULL);
    close(fd);
    return rc;
}

void sc_record_rank_libraries(const sc_execution *x, json_object *root)
{
    char rel[64], sha[SC_HASH_HEX_LEN + 1];
    char *log =
        sc_bundle_read_opt(&x->b, sc_runs_path(x->plan->card, 0, "stream.log", rel, sizeof(rel)));
    sc_strv paths = {0};

    sc_ranklibs_paths(log, &paths);
    json_object *libs = paths.n ? json_object_new_array() : NULL;
    for (size_t i = 0; libs && i < paths.n; i++) {
        json_object *lib = json_object_new_object();
        if (sc__hash(paths.v[i], sha) < 0)
            snprintf(sha, sizeof(sha), "unavailable");
        json_object_object_add(lib, "path", json_object_new_string(paths.v[i]));
        json_object_object_add(lib, "sha256", json_object_new_string(sha));
        json_object_array_add(libs, lib);
    }
    json_object_object_add(
        root, "libraries",
        libs ? libs
             : json_object_new_string("unavailable: the ranks' log lists no "
                                      "library they mapped (TRACE_RANK_LIBRARY)"));
    sc_strv_free(paths.v);
    free(log);
}
