/*
 * sc_fsroot.h: read machine files under a root directory (hwloc's HWLOC_FSROOT idea).
 *
 * Every machine file the core and the plugin read (/proc/cpuinfo, /sys/devices/system/cpu,
 * /proc/sys/kernel, /sys/kernel/mm/transparent_hugepage, /dev/cpu/N/msr) is looked up
 * under a root: "/" in production, a fake tree in tests. Paths are resolved with
 * openat2(RESOLVE_IN_ROOT), so symlinks inside /sys (cpuN/cpufreq -> ../cpufreq/policyN)
 * stay inside the root.
 */
#ifndef SC_FSROOT_H
#define SC_FSROOT_H

#include <stddef.h>

typedef struct sc_fsroot {
    int fd;     /* O_PATH directory descriptor of the root */
    char *path; /* its path, for messages */
} sc_fsroot;

/* Opens path (NULL means "/") as a root. Returns 0 or -errno. */
int sc_fsroot_open(sc_fsroot *root, const char *path);
/* Closes the root; accepts a root that was never opened (fd < 0) after zeroing. */
void sc_fsroot_close(sc_fsroot *root);

/* Opens rel (e.g. "sys/devices/system/cpu/online") under the root. Returns fd or -errno. */
int sc_fsroot_openat(const sc_fsroot *root, const char *rel, int flags);

/* Reads a whole file under the root into a malloc'd NUL-terminated buffer. */
int sc_fsroot_read(const sc_fsroot *root, const char *rel, char **out);

/*
 * Reads the first line of a file under the root, trimmed, into buf. The path is a format.
 * Returns 0 or -errno.
 */
int sc_fsroot_read_linef(const sc_fsroot *root, char *buf, size_t buflen, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
