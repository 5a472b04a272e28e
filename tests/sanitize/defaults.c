/*
 * defaults.c: sanitizer settings compiled into every program of the sanitizer build
 * (STREAMCARD_SANITIZE, see the top-level CMakeLists.txt), so that ctest, a run by hand and
 * the ranks mpirun starts all use them without ASAN_OPTIONS/LSAN_OPTIONS in the
 * environment. The runtimes call these hooks at start; a variable in the environment
 * still wins over what they return.
 */
#define SC__SANITIZER_HOOK __attribute__((visibility("default"), used))

SC__SANITIZER_HOOK const char *__asan_default_options(void);
SC__SANITIZER_HOOK const char *__lsan_default_options(void);
SC__SANITIZER_HOOK const char *__lsan_default_suppressions(void);

const char *__asan_default_options(void)
{
    /* Open MPI's libraries are built without frame pointers: with the fast unwinder a
       leak's stack ends in them after one frame and no suppression below can match it. The
       slow unwinder costs little here (the suite takes as long either way). A workload
       runs with a library preloaded ahead of everything when its card's blas: is a path
       (LD_PRELOAD, wrapper.blas_path): the runtime would refuse to start ("ASan runtime does
       not come first"); the preloaded library is not instrumented, nothing is lost. */
    return "fast_unwind_on_malloc=0:verify_asan_link_order=0";
}

const char *__lsan_default_options(void)
{
    /* A leak that a suppression below matches is not an error of ours, but LeakSanitizer
       still prints its "Suppressions used:" table on stderr at exit, so whether a program's
       stderr is exactly its own messages would depend on a race (see below). Tests compare
       stderr line by line: the table is left out. Real leaks are reported as before. */
    return "print_suppressions=0";
}

const char *__lsan_default_suppressions(void)
{
    /* Open MPI keeps what MPI_Init allocates until exit, and part of it belongs to
       components it has dlclose()d by then: not leaks of streamcard's code. Nothing of
       streamcard's own is suppressed. The sanitizer's own bookkeeping of a thread that is
       still starting when the process exits (OpenBLAS starts its workers at load; an early
       exit, such as a usage error, races them) is reported as a leak of glibc's
       pthread_getattr_np called from GetThreadStackTopAndBottom: the runtime's, not ours
       (seen in CI: 32 bytes, every frame inside libasan and libc). */
    return "leak:GetThreadStackTopAndBottom\n"
           "leak:libmpi.so\n"
           "leak:libopen-pal.so\n"
           "leak:libopen-rte.so\n"
           "leak:libevent\n";
}
