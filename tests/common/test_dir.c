/*
 * test_dir.c: sc_dir_openat on a scratch tree: a directory's entries read through a handle,
 * "." for the handle itself, and each refusal with its errno (a missing path, a regular file,
 * a symbolic link under O_NOFOLLOW) leaving no descriptor open.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sc_dir.h"
#include "sc_test.h"

static char root[] = "/tmp/sc-test-dir.XXXXXX";

/* How many descriptors this process has open (its /proc/self/fd, less the listing's own). */
static int open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    int n = -1;

    if (!d)
        return -1;
    while (readdir(d))
        n++;
    closedir(d);
    return n - 2; /* "." and ".." */
}

static int count_entries(DIR *d, const char *name)
{
    struct dirent *e;
    int seen = 0;

    while ((e = readdir(d)))
        seen += strcmp(e->d_name, name) == 0;
    return seen;
}

static void test_open_and_refuse(void)
{
    char path[256];
    int rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

    SC_CHECK(rootfd >= 0);
    snprintf(path, sizeof(path), "%s/sub", root);
    SC_CHECK_INT_EQ(mkdir(path, 0700), 0);
    snprintf(path, sizeof(path), "%s/sub/entry", root);
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    SC_CHECK(fd >= 0);
    close(fd);
    snprintf(path, sizeof(path), "%s/link", root);
    SC_CHECK_INT_EQ(symlink("sub", path), 0);

    DIR *d = sc_dir_openat(rootfd, "sub", 0);
    SC_CHECK(d != NULL);
    SC_CHECK_INT_EQ(count_entries(d, "entry"), 1);
    closedir(d);
    d = sc_dir_openat(rootfd, ".", 0);
    SC_CHECK(d != NULL);
    SC_CHECK_INT_EQ(count_entries(d, "sub"), 1);
    closedir(d);
    d = sc_dir_openat(rootfd, "link", 0);
    SC_CHECK(d != NULL); /* followed without O_NOFOLLOW */
    closedir(d);

    int before = open_fds();
    static const struct {
        const char *path;
        int flags, err;
    } refused[] = {
        {"missing", 0, ENOENT}, {"sub/entry", 0, ENOTDIR}, {"link", O_NOFOLLOW, ENOTDIR}};
    for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
        errno = 0;
        d = sc_dir_openat(rootfd, refused[i].path, refused[i].flags);
        SC_CHECK_MSG(d == NULL, "%s: opened", refused[i].path);
        SC_CHECK_MSG(errno == refused[i].err, "%s: errno %d, expected %d", refused[i].path, errno,
                     refused[i].err);
    }
    SC_CHECK_INT_EQ(open_fds(), before);
    close(rootfd);
}

int main(void)
{
    if (!mkdtemp(root))
        return 1;
    SC_TEST_RUN(test_open_and_refuse);
    char cmd[64];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
    if (system(cmd) != 0)
        return 1;
    return SC_TEST_RESULT();
}
