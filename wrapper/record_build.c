/*
 * record_build.c: build.json of a bundle being written (see record.h): the workload
 * binary's and its libraries' hashes (through the per-user hash cache) and the answer of
 * its --build-info, asked with the library path the workload will run with, or remembered
 * from an earlier run (the answer cache) and then checked against what the run loaded
 * (the libraries it mapped, the MPI library its ranks named).
 */
#include "record.h"
#include "cli.h"
#include "record_ranklibs.h"
#include "sc_answercache.h"
#include "sc_file.h"
#include "sc_hashcache.h"
#include "sc_kv.h"
#include "sc_mpistack.h"
#include "sc_ranklibs.h"
#include "sc_runs.h"
#include "sc_spawn.h"
#include "sc_trace_protocol.h"
#include "sc_workload.h"

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

extern char **environ;

/* The keys of --build-info that name a file the answer came from (a library it loaded). */
static const char *const sc__answer_files[] = {"openmp_runtime", "blas_library", NULL};

/* The prefixes of the variables that steer the dynamic loader, the OpenMP runtime and the
   BLAS library: an answer is remembered for one value of each. */
static const char *const sc__steering[] = {
    "LD_", "GLIBC_TUNABLES=", "OMP_", "GOMP_", "KMP_", "OPENBLAS_", "GOTO", "MKL_", "BLIS_", NULL};

static char *sc__cache_dir(char *buf, size_t len)
{
    return sc_hashcache_default_dir(buf, len) == 0 ? buf : NULL;
}

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
    int rc = sc_hashcache_fd(sc__cache_dir(dir, sizeof(dir)), fd, path, sha, NULL);
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

/* The most libraries build.json lists of a program we did not write, and their largest. */
#define SC__MAX_LIBRARIES 128
#define SC__MAX_LIBRARY_BYTES (1LL << 30)

static bool sc__listed(json_object *libs, const char *path)
{
    for (size_t i = 0; i < json_object_array_length(libs); i++) {
        json_object *p;
        if (json_object_object_get_ex(json_object_array_get_idx(libs, i), "path", &p) &&
            !strcmp(json_object_get_string(p), path))
            return true;
    }
    return false;
}

/*
 * A program we did not write: the shared libraries the first run's snapshot shows mapped
 * (numa_maps_at_ready.txt's file= words whose name holds ".so"), each once with its SHA-256,
 * as build.json's "libraries"; a string saying why when there is no snapshot.
 */
static void sc__add_mapped_libraries(const sc_execution *x, json_object *root)
{
    char rel[64], path[1024], sha[SC_HASH_HEX_LEN + 1];
    char *maps = sc_bundle_read_opt(
        &x->b, sc_runs_path(x->plan->card, 0, "numa_maps_at_ready.txt", rel, sizeof(rel)));
    json_object *libs = json_object_new_array();
    struct stat st;

    const char *p = maps ? maps : "";

    while (json_object_array_length(libs) < SC__MAX_LIBRARIES && (p = strstr(p, " file="))) {
        p += 6;
        size_t n = strcspn(p, " \n");
        if (!n || n >= sizeof(path))
            continue;
        memcpy(path, p, n);
        path[n] = '\0';
        if (path[0] != '/' || !strstr(strrchr(path, '/'), ".so") || sc__listed(libs, path))
            continue;
        json_object *lib = json_object_new_object();
        /* The program maps what it likes: a file too large to hash is named, not read. */
        if (stat(path, &st) < 0 || st.st_size > SC__MAX_LIBRARY_BYTES ||
            sc__hash_build_file(path, sha) < 0)
            snprintf(sha, sizeof(sha), "unavailable");
        json_object_object_add(lib, "path", json_object_new_string(path));
        json_object_object_add(lib, "sha256", json_object_new_string(sha));
        json_object_array_add(libs, lib);
    }
    if (maps && strstr(maps, " file=")) {
        json_object_object_add(root, "libraries", libs);
    } else {
        json_object_put(libs);
        json_object_object_add(root, "libraries",
                               json_object_new_string("unavailable: no snapshot of the program's "
                                                      "mapped files (numa_maps_at_ready.txt)"));
    }
    free(maps);
}

static int sc__cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * The answer cache's key of this plan's --build-info (malloc'd), made while the workload's
 * library path is set: the binary's path, this host and boot (the CPU's features and the
 * BLAS kernel it picks), and the steering variables (sorted). NULL when it cannot be made.
 */
static char *sc__answer_key(const sc_plan *plan)
{
    char host[256] = "", boot[64] = "", *key = NULL;
    const char **vars = NULL;
    size_t n = 0, total = 0;
    FILE *mem;

    if (sc_answercache_host_boot(host, sizeof(host), boot, sizeof(boot)) < 0)
        goto out;
    while (environ && environ[total])
        total++;
    if (!(vars = calloc(total + 1, sizeof(*vars))))
        goto out;
    for (size_t i = 0; i < total; i++)
        for (const char *const *p = sc__steering; *p; p++)
            if (!strncmp(environ[i], *p, strlen(*p))) {
                vars[n++] = environ[i];
                break;
            }
    qsort(vars, n, sizeof(*vars), sc__cmp_str);
    size_t len = 0;
    if (!(mem = open_memstream(&key, &len)))
        goto out;
    fprintf(mem, "streamcard --build-info\nbinary %s\nhost %s %s\n", plan->binary, host, boot);
    for (size_t i = 0; i < n; i++)
        fprintf(mem, "env %s\n", vars[i]);
    if (fclose(mem) != 0) {
        free(key);
        key = NULL;
    }
out:
    free(vars);
    return key;
}

/* Remembers a fresh answer with the files it depends on: the binary and what it names. */
static void sc__remember(const sc_execution *x, const char *answer)
{
    char dir[4096], paths[2][1024];
    const char *files[3] = {x->plan->binary};
    size_t n = 1;

    if (!x->build_key || !sc__cache_dir(dir, sizeof(dir)))
        return;
    for (size_t i = 0; sc__answer_files[i]; i++)
        if (sc_kv_get(answer, sc__answer_files[i], paths[i], sizeof(paths[i])) &&
            paths[i][0] == '/')
            files[n++] = paths[i];
    sc_answercache_put(dir, x->build_key, answer, files, n);
}

void sc_record_build_info_start(sc_execution *x)
{
    const sc_plan *plan = x->plan;
    char *const argv[] = {plan->binary, "--build-info", NULL};
    char dir[4096];
    sc_record_libpath saved;

    sc_record_libpath_enter(plan, &saved); /* blas: the workload's BLAS */

    x->build_info.pid = -1;
    if (sc_workload_foreign(plan->card)) { /* a program we did not write is asked nothing */
        sc_record_libpath_leave(&saved);
        return;
    }
    x->build_key = sc__answer_key(plan);
    if (x->build_key && sc__cache_dir(dir, sizeof(dir)) &&
        sc_answercache_get(dir, x->build_key, &x->build_answer) == 0) {
        x->build_cached = true;
    } else if (sc_spawn_start(argv, NULL, &x->build_info) < 0) {
        x->build_info.pid = -1; /* sc_record_build() asks again */
    }
    sc_record_libpath_leave(&saved);
}

/* The variables of the loader the plan may set for the workload's BLAS. */
static const char *const sc__libpath_vars[] = {"LD_LIBRARY_PATH", "LD_PRELOAD"};

int sc_record_libpath_enter(const sc_plan *plan, sc_record_libpath *saved)
{
    memset(saved, 0, sizeof(*saved));
    for (size_t v = 0; v < 2; v++) {
        size_t n = strlen(sc__libpath_vars[v]);
        for (char **e = plan->envp; e && *e; e++) {
            if (strncmp(*e, sc__libpath_vars[v], n) != 0 || (*e)[n] != '=')
                continue;
            const char *old = getenv(sc__libpath_vars[v]);
            if (old && !(saved->old[v] = strdup(old)))
                return -ENOMEM;
            if (setenv(sc__libpath_vars[v], *e + n + 1, 1) < 0)
                return -errno;
            saved->set[v] = true;
            break;
        }
    }
    return 0;
}

void sc_record_libpath_leave(sc_record_libpath *saved)
{
    for (size_t v = 0; v < 2; v++) {
        if (saved->set[v] && saved->old[v])
            setenv(sc__libpath_vars[v], saved->old[v], 1);
        else if (saved->set[v])
            unsetenv(sc__libpath_vars[v]);
        free(saved->old[v]);
        saved->old[v] = NULL;
        saved->set[v] = false;
    }
}

void sc_record_build_info_discard(sc_execution *x)
{
    char *info = NULL;

    if (x->build_info.pid > 0)
        sc_spawn_collect(&x->build_info, &info);
    x->build_info.pid = -1;
    free(info);
    free(x->build_answer);
    free(x->build_key);
    x->build_answer = x->build_key = NULL;
    x->build_cached = false;
}

/* build.json's "blas_preload" (blas: a path): the path the card gives, the file it resolves
   to and that file's SHA-256; what the run mapped is in each snapshot (numa_maps). */
static void sc__add_blas_preload(json_object *root, const sc_card *card)
{
    const char *given = sc_plan_blas_preload(card);
    char real[PATH_MAX], sha[SC_HASH_HEX_LEN + 1];
    json_object *o;

    if (!given || !(o = json_object_new_object()))
        return;
    json_object_object_add(o, "card", json_object_new_string(given));
    json_object_object_add(o, "path", json_object_new_string(realpath(given, real) ? real : ""));
    json_object_object_add(o, "sha256",
                           json_object_new_string(sc__hash_build_file(given, sha) == 0 ? sha : ""));
    json_object_object_add(root, "blas_preload", o);
}

void sc_record_build(sc_execution *x)
{
    const sc_plan *plan = x->plan;
    char *info = NULL, value[1024];
    char *const argv[] = {plan->binary, "--build-info", NULL};
    json_object *root = json_object_new_object();
    static const char *const keys[] = {"compiler",
                                       "compiler_version",
                                       "compiler_path",
                                       "compiler_sha256",
                                       "flags",
                                       "source_sha256",
                                       "source_files",
                                       "source_git_commit",
                                       "source_git_dirty",
                                       "openmp_runtime",
                                       "openmp_version",
                                       "nt_stores_available",
                                       "element_bytes",
                                       "blas_library",
                                       "blas_config",
                                       "blas_corename",
                                       "blas_parallel",
                                       NULL};

    if (sc__hash_build_file(plan->binary, x->binary_sha) < 0)
        strcpy(x->binary_sha, "unavailable");
    json_object_object_add(root, "binary", json_object_new_string(plan->binary));
    json_object_object_add(root, "sha256", json_object_new_string(x->binary_sha));
    /* The answer to the question asked when the bundle was opened (execute.c). Asked
       again after a failure: the answer is deterministic, and one transient failure (a
       sanitizer's check at exit under load, a signal) must not cost the bundle the build's
       identity. */
    int rc = -ECHILD;
    if (sc_workload_foreign(plan->card)) {
        json_object_object_add(root, "build_info",
                               json_object_new_string("none: a program streamcard did not write "
                                                      "(workload: exec) is not asked "
                                                      "--build-info"));
        if (sc_workload_mpi(plan->card)) /* its ranks' libraries, not the launcher's */
            sc_record_rank_libraries(x, root);
        else
            sc__add_mapped_libraries(x, root);
    } else if (x->build_cached) { /* remembered: checked against the run at the end */
        rc = (info = strdup(x->build_answer)) ? 0 : -ENOMEM;
    } else {
        if (x->build_info.pid > 0)
            rc = sc_spawn_collect(&x->build_info, &info);
        x->build_info.pid = -1;
        if (rc < 0) {
            free(info);
            info = NULL;
            sc_record_libpath saved;
            sc_record_libpath_enter(plan, &saved);
            rc = sc_spawn_capture(argv, NULL, &info);
            sc_record_libpath_leave(&saved);
        }
        if (rc == 0)
            sc__remember(x, info);
    }
    if (rc == 0) {
        for (const char *const *k = keys; *k; k++)
            if (sc_kv_get(info, *k, value, sizeof(value)))
                json_object_object_add(root, *k, json_object_new_string(value));
        sc__add_library_hash(root, info, "openmp_runtime");
        sc__add_library_hash(root, info, "blas_library");
    } else if (!sc_workload_foreign(plan->card)) {
        json_object_object_add(root, "build_info",
                               json_object_new_string("unavailable: the binary did not answer "
                                                      "--build-info"));
    }
    free(info);
    sc__add_blas_preload(root, plan->card);
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

/*
 * Whether the MPI library the ranks of run i loaded is the one a remembered answer names by
 * its version (mpi_library): every libmpi its stream.log shows loaded (a TRACE_MPI_LIBRARY
 * line per rank, printed before main_loop_begin) states that version. *seen: one was shown.
 */
static bool sc__mpi_as_answered(const sc_execution *x, size_t i, const char *version, bool *seen)
{
    char rel[64], line[1024];
    char *log =
        sc_bundle_read_opt(&x->b, sc_runs_path(x->plan->card, i, "stream.log", rel, sizeof(rel)));
    const char *tag = SC_TRACE_TAG_MPI_LIBRARY;
    bool ok = true;
    sc_mpi_lib lib;

    for (const char *p = log ? strstr(log, tag) : NULL; ok && p; p = strstr(p + 1, tag)) {
        if (p != log && p[-1] != '\n')
            continue;
        size_t len = strcspn(p + strlen(tag), "\n");
        snprintf(line, sizeof(line), "%.*s", (int)len, p + strlen(tag));
        if (sc_mpi_lib_parse(line, &lib) < 0 || strcmp(lib.name, "libmpi") != 0 ||
            strcmp(lib.loaded, "yes") != 0)
            continue;
        *seen = true;
        ok = !strcmp(lib.version, version);
    }
    free(log);
    return ok;
}

/*
 * For MPI: the launcher's snapshot (numa_maps_at_ready.txt) is mpirun's, not a rank's, so the
 * files an answer names (its OpenMP runtime, BLAS) are looked for in what the ranks mapped
 * (TRACE_RANK_LIBRARY lines, sc_ranklibs.h) where the log has them; without them the
 * version every rank states (above) is the check, and the answer stands for the files'
 * identities and the loader's variables it was remembered with (sc__steering).
 */
static bool sc__ranks_as_answered(const sc_execution *x, size_t n, const char *answer)
{
    char rel[64], path[1024];
    bool ok = true;

    for (size_t i = 0; ok && i < n; i++) {
        char *log = sc_bundle_read_opt(
            &x->b, sc_runs_path(x->plan->card, i, "stream.log", rel, sizeof(rel)));
        sc_strv mapped = {0};
        sc_ranklibs_paths(log, &mapped);
        for (size_t k = 0; ok && mapped.n && sc__answer_files[k]; k++)
            if (sc_kv_get(answer, sc__answer_files[k], path, sizeof(path)) && path[0] == '/') {
                ok = false;
                for (size_t j = 0; !ok && j < mapped.n; j++)
                    ok = !strcmp(mapped.v[j], path);
            }
        sc_strv_free(mapped.v);
        free(log);
    }
    return ok;
}

/*
 * Whether the workload loaded the libraries a remembered answer names: every run that
 * reached main_loop_begin mapped each of them (its numa_maps_at_ready.txt, in the bundle),
 * and at least one run did; an MPI library named by its version (mpi_library): every rank
 * of every run loaded that version, and at least one said so.
 */
static bool sc__loaded_as_answered(const sc_execution *x, size_t n, const char *answer)
{
    char version[256];

    if (sc_kv_get(answer, "mpi_library", version, sizeof(version))) {
        bool ok = true, seen = false;
        for (size_t i = 0; ok && i < n; i++)
            ok = sc__mpi_as_answered(x, i, version, &seen);
        if (!ok || !seen)
            return false;
    }
    if (sc_workload_mpi(x->plan->card))
        return sc__ranks_as_answered(x, n, answer);
    char rel[64], path[1024];
    size_t seen = 0;
    bool ok = true;

    for (size_t i = 0; ok && i < n; i++) {
        char *maps = sc_bundle_read_opt(
            &x->b, sc_runs_path(x->plan->card, i, "numa_maps_at_ready.txt", rel, sizeof(rel)));
        if (!maps)
            continue;
        seen++;
        for (size_t k = 0; ok && sc__answer_files[k]; k++)
            if (sc_kv_get(answer, sc__answer_files[k], path, sizeof(path)) && path[0] == '/')
                ok = sc_file_maps_shows(maps, path);
        free(maps);
    }
    return ok && seen > 0;
}

void sc_record_build_check(sc_execution *x, size_t n)
{
    char dir[4096], *now = NULL;

    if (sc_workload_foreign(x->plan->card)) { /* its libraries: the run's snapshot shows them */
        sc_record_build(x);
        return;
    }
    if (!x->build_cached)
        return;
    /* Still the answer for these files (none changed during the run), and the run loaded
       them: else the binary is asked now and build.json written again. */
    bool same = sc__cache_dir(dir, sizeof(dir)) &&
                sc_answercache_get(dir, x->build_key, &now) == 0 && !strcmp(now, x->build_answer) &&
                sc__loaded_as_answered(x, n, x->build_answer);
    free(now);
    if (same)
        return;
    free(x->build_answer);
    x->build_answer = NULL;
    x->build_cached = false;
    sc_record_build(x);
}
