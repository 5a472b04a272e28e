/*
 * record_build.c: build.json of a bundle being written (see record.h): the workload
 * binary's and its libraries' hashes (through the per-user hash cache) and the answer of
 * its --build-info, asked with the library path the workload will run with.
 */
#include "record.h"
#include "cli.h"
#include "sc_file.h"
#include "sc_hashcache.h"
#include "sc_kv.h"
#include "sc_mpistack.h"
#include "sc_spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * The SHA-256 of a file of the build (the binary, its libraries) into sha, through the
 * user's hash cache (sc_hashcache.h): a 36 MB BLAS library is read once, not before every
 * run. 0 or -errno.
 */
static int sc__hash_build_file(const char *path, char sha[SC_HASH_HEX_LEN + 1])
{
    char dir[4096];
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    if (fd < 0)
        return -errno;
    int rc = sc_hashcache_fd(sc_hashcache_default_dir(dir, sizeof(dir)) == 0 ? dir : NULL, fd, path,
                             sha, NULL);
    close(fd);
    return rc;
}

/* build.json's "<key>_sha256": the SHA-256 of the library the binary's --build-info names. */
static void sc__add_library_hash(json_object *root, const char *info, const char *key)
{
    char path[1024], sha[SC_HASH_HEX_LEN + 1], name[64];

    if (!sc_kv_get(info, key, path, sizeof(path)) || sc__hash_build_file(path, sha) < 0)
        return;
    snprintf(name, sizeof(name), "%s_sha256", key);
    json_object_object_add(root, name, json_object_new_string(sha));
}

int sc_record_libpath_enter(const sc_plan *plan, char **saved)
{
    *saved = NULL;
    for (char **e = plan->envp; e && *e; e++) {
        if (strncmp(*e, "LD_LIBRARY_PATH=", 16) != 0)
            continue;
        const char *old = getenv("LD_LIBRARY_PATH");
        if (old && !(*saved = strdup(old)))
            return -ENOMEM;
        return setenv("LD_LIBRARY_PATH", *e + 16, 1) == 0 ? 1 : -errno;
    }
    return 0;
}

void sc_record_libpath_leave(int entered, char *saved)
{
    if (entered > 0 && saved)
        setenv("LD_LIBRARY_PATH", saved, 1);
    else if (entered > 0)
        unsetenv("LD_LIBRARY_PATH");
    free(saved);
}

void sc_record_build_info_discard(sc_execution *x)
{
    char *info = NULL;

    if (x->build_info.pid > 0)
        sc_spawn_collect(&x->build_info, &info);
    x->build_info.pid = -1;
    free(info);
}

void sc_record_build(sc_execution *x)
{
    const sc_plan *plan = x->plan;
    char *info = NULL, value[1024];
    char *const argv[] = {plan->binary, "--build-info", NULL};
    json_object *root = json_object_new_object();
    static const char *const keys[] = {"compiler",       "compiler_version", "flags",
                                       "openmp_runtime", "openmp_version",   "nt_stores_available",
                                       "element_bytes",  "blas_library",     "blas_config",
                                       "blas_corename",  "blas_parallel",    NULL};

    if (sc__hash_build_file(plan->binary, x->binary_sha) < 0)
        strcpy(x->binary_sha, "unavailable");
    json_object_object_add(root, "binary", json_object_new_string(plan->binary));
    json_object_object_add(root, "sha256", json_object_new_string(x->binary_sha));
    /* The answer to the question asked when the bundle was opened (execute.c). Asked
       again after a failure: the answer is deterministic, and one transient failure (a
       sanitizer's check at exit under load, a signal) must not cost the bundle the build's
       identity. */
    int rc = -ECHILD;
    if (x->build_info.pid > 0)
        rc = sc_spawn_collect(&x->build_info, &info);
    x->build_info.pid = -1;
    if (rc < 0) {
        free(info);
        info = NULL;
        char *saved;
        int entered = sc_record_libpath_enter(plan, &saved);
        rc = sc_spawn_capture(argv, NULL, &info);
        sc_record_libpath_leave(entered, saved);
    }
    if (rc == 0) {
        for (const char *const *k = keys; *k; k++)
            if (sc_kv_get(info, *k, value, sizeof(value)))
                json_object_object_add(root, *k, json_object_new_string(value));
        sc__add_library_hash(root, info, "openmp_runtime");
        sc__add_library_hash(root, info, "blas_library");
    } else {
        json_object_object_add(root, "build_info",
                               json_object_new_string("unavailable: the binary did not answer "
                                                      "--build-info"));
    }
    free(info);
    /* The workload's own sizes and settings, as the card resolved them. */
    json_object *sizes = json_object_new_object();
    sc_card_param params[SC_CARD_MAX_PARAMS];
    size_t n = sc_card_run_parameters(plan->card, params);
    json_object_object_add(sizes, "threads", json_object_new_int64(plan->card->threads));
    for (size_t i = 0; i < n; i++)
        json_object_object_add(sizes, params[i].name,
                               params[i].text ? json_object_new_string(params[i].text)
                                              : json_object_new_int64((int64_t)params[i].number));
    json_object_object_add(root, "run_parameters", sizes);
    json_object_object_add(root, "streamcard_version", json_object_new_string(STREAMCARD_VERSION));
    sc_record_put(x, "build.json",
                  json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY |
                                                           JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put(root);
}
