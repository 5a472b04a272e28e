/*
 * stack.c: the libraries of the MPI stack a rank loaded, watched through MPI_Init (see
 * stack.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dl_iterate_phdr, RTLD_NEXT */
#endif
#include "stack.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <openssl/evp.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if __has_include(<rdma/fabric.h>)
#include <rdma/fabric.h>
#define SCM_HAVE_FABRIC_H 1
#endif

/* File name prefixes of the libraries, in the order of the SCM_LIB_* constants. */
static const char *const scm__prefix[SCM_LIB_COUNT] = {"libmpi.so", "libfabric.so", "libucp.so",
                                                       "libucs.so", "libcxi.so"};

/* What the watch has seen; the dlclose() hook runs in whichever thread unloads. */
static struct {
    atomic_int watching;
    atomic_int in_hook;
    char path[SCM_LIB_COUNT][256];
    void *held[SCM_LIB_COUNT]; /* one dlopen reference each, until scm_stack_end() */
} scm__watch;

const char *scm_stack_lib_name(int which)
{
    static const char *const names[SCM_LIB_COUNT] = {"libmpi", "libfabric", "libucp", "libucs",
                                                     "libcxi"};

    return which >= 0 && which < SCM_LIB_COUNT ? names[which] : "unknown";
}

static int (*scm__real_dlclose(void))(void *)
{
    static int (*real)(void *);

    if (!real)
        real = (int (*)(void *))dlsym(RTLD_NEXT, "dlclose");
    return real;
}

/* dl_iterate_phdr: record the path of each library of the stack found loaded. */
static int scm__note_one(struct dl_phdr_info *info, size_t size, void *data)
{
    char(*paths)[256] = data;
    const char *name = info->dlpi_name, *base = name ? strrchr(name, '/') : NULL;

    (void)size;
    base = base ? base + 1 : name;
    for (int i = 0; base && *base && i < SCM_LIB_COUNT; i++)
        if (!strncmp(base, scm__prefix[i], strlen(scm__prefix[i])) && !paths[i][0])
            snprintf(paths[i], sizeof(paths[i]), "%s", name);
    return 0;
}

/* Note the stack's libraries now and hold each one found (see stack.h). */
static void scm__note(void)
{
    dl_iterate_phdr(scm__note_one, scm__watch.path);
    for (int i = 0; i < SCM_LIB_COUNT; i++)
        if (scm__watch.path[i][0] && !scm__watch.held[i])
            scm__watch.held[i] = dlopen(scm__watch.path[i], RTLD_LAZY | RTLD_NOLOAD);
}

/*
 * Open MPI unloads a component with dlclose(); this executable's definition comes first in
 * the global scope (exported: mpi/CMakeLists.txt), so the call passes here. While watching,
 * the libraries about to go with the component are noted first.
 */
int dlclose(void *handle)
{
    int (*real)(void *) = scm__real_dlclose();

    if (atomic_load(&scm__watch.watching) && !atomic_exchange(&scm__watch.in_hook, 1)) {
        scm__note();
        atomic_store(&scm__watch.in_hook, 0);
    }
    return real ? real(handle) : -1;
}

void scm_stack_begin(void)
{
    memset(scm__watch.path, 0, sizeof(scm__watch.path));
    atomic_store(&scm__watch.watching, 1);
}

/* SHA-256 of the file at path, as hex; "unavailable" when it cannot be read. */
static void scm__sha256(const char *path, char *hex, size_t len)
{
    unsigned char buf[65536], md[EVP_MAX_MD_SIZE];
    unsigned mdlen = 0;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    int fd = open(path, O_RDONLY | O_CLOEXEC), ok = ctx && fd >= 0;
    ssize_t n = 0;

    snprintf(hex, len, "unavailable");
    if (ok)
        ok = EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) == 1;
    while (ok && (n = read(fd, buf, sizeof(buf))) > 0)
        ok = EVP_DigestUpdate(ctx, buf, (size_t)n) == 1;
    if (ok && n == 0 && EVP_DigestFinal_ex(ctx, md, &mdlen) == 1 && len > 2 * (size_t)mdlen)
        for (unsigned i = 0; i < mdlen; i++)
            snprintf(hex + 2 * i, len - 2 * i, "%02x", md[i]);
    if (fd >= 0)
        close(fd);
    EVP_MD_CTX_free(ctx);
}

/* The version a library states itself, "-" when it has no such call. */
static void scm__version(int which, void *h, const char *mpi_library, char *out, size_t len)
{
    snprintf(out, len, "-");
    if (which == SCM_LIB_MPI && mpi_library) {
        snprintf(out, len, "%s", mpi_library);
    } else if (which == SCM_LIB_FABRIC && h) {
        uint32_t (*fv)(void) = (uint32_t(*)(void))dlsym(h, "fi_version");
        if (fv)
            snprintf(out, len, "%u.%u", fv() >> 16, fv() & 0xffff);
    } else if (which == SCM_LIB_UCP && h) {
        const char *(*uv)(void) = (const char *(*)(void))dlsym(h, "ucp_get_version_string");
        if (uv && uv())
            snprintf(out, len, "%s", uv());
    }
}

#ifdef SCM_HAVE_FABRIC_H
/* fi_getinfo's providers through the held libfabric (h), each once. What libfabric prints
   meanwhile (its log level is the capture's) goes to the caller, not to stream.log. */
static void scm__fi_providers(void *h, char *out, size_t len)
{
    typedef int (*getinfo_fn)(uint32_t, const char *, const char *, uint64_t,
                              const struct fi_info *, struct fi_info **);
    getinfo_fn gi = h ? (getinfo_fn)dlsym(h, "fi_getinfo") : NULL;
    void (*fr)(struct fi_info *) = h ? (void (*)(struct fi_info *))dlsym(h, "fi_freeinfo") : NULL;
    uint32_t (*fv)(void) = h ? (uint32_t(*)(void))dlsym(h, "fi_version") : NULL;
    struct fi_info *info = NULL;
    size_t used = 0;

    if (!gi || !fr || !fv) {
        snprintf(out, len, "unavailable: libfabric was not loaded by this rank's MPI library");
        return;
    }
    uint32_t want = FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION);
    int rc = gi(fv() < want ? fv() : want, NULL, NULL, 0, NULL, &info);
    out[0] = '\0';
    for (struct fi_info *i = info; rc == 0 && i; i = i->next) {
        const char *p = i->fabric_attr ? i->fabric_attr->prov_name : NULL;
        size_t n = p ? strlen(p) : 0;
        int seen = 0;
        for (const char *q = out; n && (q = strstr(q, p)); q += n)
            seen |= (q == out || q[-1] == ',') && (q[n] == ',' || q[n] == '\0');
        if (!n || seen || strchr(p, ',') || used + n + 2 > len)
            continue;
        used += (size_t)snprintf(out + used, len - used, "%s%s", used ? "," : "", p);
    }
    if (rc != 0)
        snprintf(out, len, "none: fi_getinfo returned %d", rc);
    if (info)
        fr(info);
}
#else
static void scm__fi_providers(void *h, char *out, size_t len)
{
    (void)h;
    snprintf(out, len, "unavailable: streamcard-pingpong was built without libfabric's headers");
}
#endif

/* Runs fn(h, out, len) with stderr in a temporary file; returns what was written there
   (malloc'd, NULL when nothing or on failure). */
static char *scm__stderr_of(void (*fn)(void *, char *, size_t), void *h, char *out, size_t len)
{
    FILE *tmp = tmpfile();
    int saved = -1;
    char *said = NULL;

    fflush(stderr);
    if (tmp && (saved = dup(STDERR_FILENO)) >= 0)
        dup2(fileno(tmp), STDERR_FILENO);
    fn(h, out, len);
    fflush(stderr);
    if (saved >= 0) {
        dup2(saved, STDERR_FILENO);
        close(saved);
    }
    long n = tmp && fseek(tmp, 0, SEEK_END) == 0 ? ftell(tmp) : 0;
    if (n > 0 && n < (1 << 20) && (said = calloc(1, (size_t)n + 1))) {
        rewind(tmp);
        if (fread(said, 1, (size_t)n, tmp) != (size_t)n) {
            free(said);
            said = NULL;
        }
    }
    if (tmp)
        fclose(tmp);
    return said;
}

void scm_stack_end(struct scm_stack *st, const char *mpi_library, char **fi_said)
{
    char now[SCM_LIB_COUNT][256];
    int (*real)(void *) = scm__real_dlclose();

    atomic_store(&scm__watch.watching, 0);
    memset(st, 0, sizeof(*st));
    scm__note();
    *fi_said = scm__stderr_of(scm__fi_providers, scm__watch.held[SCM_LIB_FABRIC], st->fi_providers,
                              sizeof(st->fi_providers));
    for (int i = 0; i < SCM_LIB_COUNT; i++) {
        struct scm_lib *l = &st->lib[i];
        snprintf(l->path, sizeof(l->path), "%s", scm__watch.path[i]);
        scm__version(i, scm__watch.held[i], mpi_library, l->version, sizeof(l->version));
        if (scm__watch.held[i] && real)
            real(scm__watch.held[i]);
        scm__watch.held[i] = NULL;
        if (l->path[0])
            scm__sha256(l->path, l->sha256, sizeof(l->sha256));
    }
    memset(now, 0, sizeof(now));
    dl_iterate_phdr(scm__note_one, now); /* without our references: what the library kept */
    for (int i = 0; i < SCM_LIB_COUNT; i++)
        st->lib[i].unloaded = st->lib[i].path[0] && !now[i][0];
}
