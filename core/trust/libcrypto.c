/* libcrypto.c: OpenSSL's libcrypto, loaded when first needed (see internal/sc_libcrypto.h). */
#include "internal/sc_libcrypto.h"

#include "sc_dynlib.h"

#include <pthread.h>

#define SC__STR(x) #x
#define SC__XSTR(x) SC__STR(x)
#define SC__SONAME "libcrypto.so." SC__XSTR(OPENSSL_VERSION_MAJOR)

static sc_libcrypto sc__table;
static const sc_libcrypto *sc__loaded;
static char sc__error[256];
static pthread_once_t sc__once = PTHREAD_ONCE_INIT;

static void sc__load(void)
{
#define SC__NAME(f) #f,
#define SC__SLOT(f) (void **)&sc__table.f,
    static const char *const names[] = {SC_LIBCRYPTO_FUNCTIONS(SC__NAME)};
    void **const slots[] = {SC_LIBCRYPTO_FUNCTIONS(SC__SLOT)};
#undef SC__NAME
#undef SC__SLOT

    /* Stays loaded: its functions are in use. */
    if (!sc_dynlib_load(SC__SONAME, "signatures need OpenSSL's " SC__SONAME " (Debian: libssl3)",
                        names, slots, sizeof(names) / sizeof(names[0]), sc__error,
                        sizeof(sc__error)))
        return;
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
