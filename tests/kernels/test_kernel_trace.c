/*
 * test_kernel_trace.c: the trace lines (exact text, flushed at once, whole lines from
 * many threads) and the build identity helpers.
 *
 * stdout is pointed at a temporary file and the file is read back through another
 * descriptor without flushing stdout here: a line that the helper did not flush is
 * missing, and the test fails.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <omp.h>
#include <stdlib.h>
#include <unistd.h>

#include "buildinfo.h"
#include "sc_test.h"
#include "trace.h"

/* stdout redirected to a temporary file, and how to undo it. */
struct capture {
    char path[64];
    int saved_stdout;
};

static int capture_begin(struct capture *c)
{
    int fd;

    strcpy(c->path, "/tmp/sc_test_traceXXXXXX");
    fflush(stdout);
    if ((fd = mkstemp(c->path)) < 0)
        return -errno;
    c->saved_stdout = dup(STDOUT_FILENO);
    if (c->saved_stdout < 0 || dup2(fd, STDOUT_FILENO) < 0) {
        close(fd);
        return -errno;
    }
    close(fd);
    return 0;
}

/* Read what reached the file so far (not flushing stdout), then restore stdout. */
static void capture_end(struct capture *c, char *buf, size_t len)
{
    int fd = open(c->path, O_RDONLY);
    ssize_t got = fd >= 0 ? read(fd, buf, len - 1) : -1;

    buf[got > 0 ? got : 0] = '\0';
    if (fd >= 0)
        close(fd);
    fflush(stdout); /* anything a broken helper left in the buffer goes to the file */
    dup2(c->saved_stdout, STDOUT_FILENO);
    close(c->saved_stdout);
    unlink(c->path);
}

static void test_line_formats(void)
{
    struct capture c;
    char buf[1024];

    SC_CHECK_INT_EQ(capture_begin(&c), 0);
    sct_threads_requested(16);
    sct_thread_binding(3, 7);
    sct_threads_counted(16);
    sct_phase(SC_TRACE_MAIN_LOOP_BEGIN);
    sct_phase(SC_TRACE_MAIN_LOOP_END);
    capture_end(&c, buf, sizeof(buf));
    SC_CHECK_STR_EQ(buf, "Number of Threads requested = 16\n"
                         "TRACE_THREAD_BINDING thread=3 cpu=7\n"
                         "Number of Threads counted = 16\n"
                         "TRACE_WORKLOAD_PHASE=main_loop_begin\n"
                         "TRACE_WORKLOAD_PHASE=main_loop_end\n");
}

/* Every thread of a parallel region prints its line; each must arrive whole, once. */
static void test_binding_from_threads(void)
{
    enum { NT = 8 };
    struct capture c;
    char buf[4096], *line, *save = NULL;
    int seen[NT] = {0}, lines = 0;

    SC_CHECK_INT_EQ(capture_begin(&c), 0);
#pragma omp parallel num_threads(NT)
    for (int rep = 0; rep < 4; rep++)
        sct_thread_binding(omp_get_thread_num(), 100 + omp_get_thread_num());
    capture_end(&c, buf, sizeof(buf));

    for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        int t, cpu, end = 0;
        SC_CHECK_MSG(sscanf(line, "TRACE_THREAD_BINDING thread=%d cpu=%d%n", &t, &cpu, &end) == 2 &&
                         line[end] == '\0',
                     "mangled line \"%s\"", line);
        SC_CHECK_MSG(t >= 0 && t < NT && cpu == 100 + t, "line \"%s\"", line);
        seen[t]++;
        lines++;
    }
    SC_CHECK_INT_EQ(lines, NT * 4);
    for (int t = 0; t < NT; t++)
        SC_CHECK_MSG(seen[t] == 4, "thread %d printed %d lines", t, seen[t]);
}

static void test_nt_isa_names(void)
{
    enum sct_nt_isa isa = sct_nt_isa_detect();

    SC_CHECK_STR_EQ(sct_nt_isa_name(SCT_NT_NONE), "none");
    SC_CHECK_STR_EQ(sct_nt_isa_name(SCT_NT_SSE2), "sse2");
    SC_CHECK_STR_EQ(sct_nt_isa_name(SCT_NT_AVX), "avx");
    SC_CHECK_STR_EQ(sct_nt_isa_name(SCT_NT_AVX512F), "avx512f");
#if defined(__x86_64__)
    SC_CHECK_MSG(isa != SCT_NT_NONE, "x86-64 always has SSE2 streaming stores");
#else
    SC_CHECK_INT_EQ(isa, SCT_NT_NONE);
#endif
}

static void test_openmp_runtime_path(void)
{
    char path[PATH_MAX], tiny[4];
    const char *base;
    int threads = 0;

    /* Make sure the runtime is in use, as in a workload. */
#pragma omp parallel
#pragma omp atomic
    threads++;
    SC_CHECK(threads >= 1);
    SC_CHECK_INT_EQ(sct_openmp_runtime_path(path, sizeof(path)), 0);
    SC_CHECK_MSG(path[0] == '/', "not absolute: %s", path);
    SC_CHECK_MSG(access(path, R_OK) == 0, "not a readable file: %s", path);
    base = strrchr(path, '/') + 1;
    SC_CHECK_MSG(strncmp(base, "libgomp", 7) == 0 || strncmp(base, "libomp", 6) == 0 ||
                     strncmp(base, "libiomp5", 8) == 0,
                 "not an OpenMP runtime: %s", path);
    SC_CHECK_INT_EQ(sct_openmp_runtime_path(tiny, sizeof(tiny)), -ENAMETOOLONG);
}

static void test_build_info_keys(void)
{
    static const char *const keys[] = {
        "compiler=",       "compiler_version=",    "flags=",           "openmp_runtime=/",
        "openmp_version=", "nt_stores_available=", "element_bytes=4\n"};
    char buf[8192];
    FILE *f = tmpfile();
    size_t got;
    const char *at = buf;

    SC_CHECK(f != NULL);
    SC_CHECK_INT_EQ(sct_build_info_print(f, 4), 0);
    rewind(f);
    got = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[got] = '\0';
    /* Every key at the start of a line, in this order. */
    for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
        const char *hit = strstr(at, keys[k]);
        SC_CHECK_MSG(hit && (hit == buf || hit[-1] == '\n'), "key %s missing or out of order: %s",
                     keys[k], buf);
        at = hit;
    }
    SC_CHECK_STR_CONTAINS(buf, "openmp_version=20");
}

int main(void)
{
    SC_TEST_RUN(test_line_formats);
    SC_TEST_RUN(test_binding_from_threads);
    SC_TEST_RUN(test_nt_isa_names);
    SC_TEST_RUN(test_openmp_runtime_path);
    SC_TEST_RUN(test_build_info_keys);
    return SC_TEST_RESULT();
}
