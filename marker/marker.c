/*
 * marker.c: the marker library (streamcard/marker.h). The descriptor is read from the
 * environment once, on the first call; each line is formatted on the stack and written with
 * one write(2) (shorter than PIPE_BUF, so a pipe never interleaves it with another writer's).
 * In an MPI rank the transport probe, when preloaded, is told of each main-loop marker
 * (SC_MARKER_PROBE_HOOK): it moves the rank's interference window to the main loop.
 */
#include "streamcard/marker.h"
#include "sc_ready.h"
#include "sc_trace_protocol.h"

#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SC__NAME_MAX 100
#define SC__UNIT_MAX 32

static pthread_once_t sc__once = PTHREAD_ONCE_INIT;
static int sc__fd = -1;                                            /* -1: the calls do nothing */
static pthread_mutex_t sc__ready_lock = PTHREAD_MUTEX_INITIALIZER; /* the handshake, once */
static bool sc__ready_done;
static int (*sc__probe)(int begin); /* the MPI transport probe's hook, when preloaded */

/* STREAMCARD_TRACE_FD: a decimal descriptor number, open, and not read-only. */
static void sc__init(void)
{
    const char *text = getenv(SC_TRACE_FD_ENV);
    char *end = NULL;

    if (!text || !*text)
        return;
    errno = 0;
    long fd = strtol(text, &end, 10);
    if (*end || errno || fd < 1 || fd > 1 << 20)
        return;
    int flags = fcntl((int)fd, F_GETFL);
    if (flags < 0 || (flags & O_ACCMODE) == O_RDONLY)
        return;
    sc__fd = (int)fd;
    /* A function pointer from dlsym's object pointer: POSIX guarantees the conversion. */
    *(void **)&sc__probe = dlsym(RTLD_DEFAULT, SC_MARKER_PROBE_HOOK);
}

/* Whether this process writes the marker line: the probe's word in an MPI rank, else yes. */
static bool sc__probe_says_write(int begin)
{
    return !sc__probe || sc__probe(begin) != 0;
}

static int sc__active_fd(void)
{
    pthread_once(&sc__once, sc__init);
    return sc__fd;
}

/* One line, formatted on the stack, written whole: after stdout's pending output. */
__attribute__((format(printf, 2, 3))) static int sc__line(int fd, const char *fmt, ...)
{
    char line[512];
    va_list ap;

    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof(line))
        return -EINVAL;
    fflush(stdout);
    ssize_t w;
    while ((w = write(fd, line, (size_t)n)) < 0 && errno == EINTR)
        ;
    if (w < 0)
        return -errno;
    return w == n ? 0 : -EIO;
}

static bool sc__phase_ok(const char *phase)
{
    return phase && strcmp(phase, SC_MARKER_MAIN_LOOP) == 0;
}

int sc_marker_begin(const char *phase)
{
    struct timespec t0;
    double waited_ms = 0;
    int fd = sc__active_fd();

    if (!sc__phase_ok(phase))
        return -EINVAL;
    if (fd < 0)
        return 0;
    if (!sc__probe_says_write(1))
        return 0; /* an MPI rank other than 0: its window moved, its line is rank 0's */
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = sc__line(fd, SC_TRACE_PHASE SC_TRACE_MAIN_LOOP_BEGIN "\n");
    /* The readiness handshake (sc_ready.h), at the first begin only: it reads and unsets the
       environment, so one thread does it while the others wait here. */
    pthread_mutex_lock(&sc__ready_lock);
    bool waited = !sc__ready_done && sc_ready_wait(&t0, &waited_ms);
    sc__ready_done = true;
    pthread_mutex_unlock(&sc__ready_lock);
    if (waited)
        sc__line(fd, SC_TRACE_READY_WAIT("%.3f") "\n", waited_ms);
    return rc;
}

int sc_marker_end(const char *phase)
{
    int fd = sc__active_fd();

    if (!sc__phase_ok(phase))
        return -EINVAL;
    if (fd < 0 || !sc__probe_says_write(0))
        return 0;
    return sc__line(fd, SC_TRACE_PHASE SC_TRACE_MAIN_LOOP_END "\n");
}

/* A card metric's name, as sc__card_is_name() (core/card_keys.c) checks it in a card. */
static bool sc__name_ok(const char *name)
{
    size_t n = name ? strlen(name) : 0;

    if (n == 0 || n > SC__NAME_MAX || name[0] == '.' || name[0] == '-')
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)name[i]) && !strchr("._-:", name[i]))
            return false;
    return true;
}

/* One word of printable ASCII, no space. */
static bool sc__unit_ok(const char *unit)
{
    size_t n = unit ? strlen(unit) : 0;

    if (n == 0 || n > SC__UNIT_MAX)
        return false;
    for (size_t i = 0; i < n; i++)
        if (unit[i] <= ' ' || unit[i] > '~')
            return false;
    return true;
}

int sc_marker_figure(const char *name, double value, const char *unit)
{
    int fd = sc__active_fd();

    if (!sc__name_ok(name) || !isfinite(value) || !sc__unit_ok(unit))
        return -EINVAL;
    return fd < 0 ? 0 : sc__line(fd, SC_TRACE_FIGURE("%s", "%.17g", "%s") "\n", name, value, unit);
}

int sc_marker_active(void)
{
    return sc__active_fd() >= 0;
}
