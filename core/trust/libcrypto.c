/* libcrypto.c: OpenSSL's libcrypto, loaded when first needed (see internal/sc_libcrypto.h). */
#include "internal/sc_libcrypto.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#define SC__STR(x) #x
#define SC__XSTR(x) SC__STR(x)
#define SC__SONAME "libcrypto.so." SC__XSTR(OPENSSL_VERSION_MAJOR)

static sc_libcrypto sc__table;
static void *sc__lib; /* stays loaded: its functions are in use */
static const sc_libcrypto *sc__loaded;
static char sc__error[256];
static pthread_once_t sc__once = PTHREAD_ONCE_INIT;

static void sc__load(void)
{
    sc__lib = dlopen(SC__SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!sc__lib) {
        const char *why = dlerror();
        snprintf(sc__error, sizeof(sc__error),
                 "signatures need OpenSSL's " SC__SONAME " (Debian: libssl3): %s",
                 why ? why : "not found");
        return;
    }
    /* POSIX's way to take a function from dlsym: through the member's storage. */
#define SC__RESOLVE(f)                                                                         \
    *(void **)(&sc__table.f) = dlsym(sc__lib, #f);                                             \
    if (!sc__table.f) {                                                                        \
        snprintf(sc__error, sizeof(sc__error), SC__SONAME " has no %s", #f);                   \
        dlclose(sc__lib);                                                                      \
        sc__lib = NULL;                                                                        \
        return;                                                                                \
    }
    SC_LIBCRYPTO_FUNCTIONS(SC__RESOLVE)
#undef SC__RESOLVE
    sc__table.OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT, NULL);
    sc__loaded = &sc__table;
}

const sc_libcrypto *sc_libcrypto_get(void)
{
    pthread_once(&sc__once, sc__load);
    return sc__loaded;
}

const char *sc_libcrypto_error(void)
{
    return sc__error;
}
