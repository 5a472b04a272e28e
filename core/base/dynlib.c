/* dynlib.c: a shared library loaded when first needed (see sc_dynlib.h). */
#include "sc_dynlib.h"
#include "sc_why.h"

#include <dlfcn.h>

void *sc_dynlib_load(const char *soname, const char *need, const char *const *names,
                     void **const *slots, size_t n, char *why, size_t whylen)
{
    void *lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL);

    if (!lib) {
        const char *err = dlerror();
        sc__why(why, whylen, "%s: %s", need, err ? err : "not found");
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        if (!(*slots[i] = dlsym(lib, names[i]))) {
            sc__why(why, whylen, "%s has no %s", soname, names[i]);
            dlclose(lib);
            return NULL;
        }
    return lib;
}
