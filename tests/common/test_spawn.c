/*
 * test_spawn.c: sc_spawn_capture, the one spawn-and-capture of the tree, against real
 * programs (/bin/sh): what it keeps of stdout, each result code, the deadline, the size
 * limit, where stdin and stderr go with and without quiet; and the same in two steps.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sc_spawn.h"
#include "sc_test.h"

/* One run of `sh -c SCRIPT` and what it must give. */
struct spawn_case {
    const char *name, *script;
    sc_spawn_opts opts;
    int rc;
    const char *out; /* NULL: *out must be NULL */
};

static const struct spawn_case cases[] = {
    {"stdout kept", "printf 'a\\nb'", {0}, 0, "a\nb"},
    {"empty output", "true", {0}, 0, ""},
    {"failing program keeps its words", "echo partial; exit 3", {0}, -ECHILD, "partial\n"},
    {"killed by a signal", "echo before; kill -9 $$", {0}, -ECHILD, "before\n"},
    {"shell's not found", "exit 127", {0}, -ENOENT, NULL},
    {"deadline", "echo started; exec sleep 30", {.timeout_ms = 200}, -ETIMEDOUT, NULL},
    {"deadline not reached", "echo quick", {.timeout_ms = 60000}, 0, "quick\n"},
    {"more than max_bytes", "head -c 5000 /dev/zero", {.max_bytes = 1000}, -EFBIG, NULL},
    {"within max_bytes", "printf 12345", {.max_bytes = 1000}, 0, "12345"},
    {"grows past its first buffer", "head -c 100000 /dev/zero | tr '\\0' x | wc -c", {0}, 0,
     "100000\n"},
    {"quiet: stdin is /dev/null", "cat; echo end", {.quiet = true}, 0, "end\n"},
};

static void test_cases(void)
{
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const struct spawn_case *c = &cases[i];
        char *argv[] = {"/bin/sh", "-c", (char *)c->script, NULL}, *out = (char *)"unset";
        int rc = sc_spawn_capture(argv, &c->opts, &out);
        SC_CHECK_MSG(rc == c->rc, "%s: rc %d, want %d", c->name, rc, c->rc);
        if (!c->out) {
            SC_CHECK_MSG(out == NULL, "%s: out \"%s\", want NULL", c->name, out);
            continue;
        }
        SC_CHECK_MSG(out && strcmp(out, c->out) == 0, "%s: out \"%s\", want \"%s\"", c->name,
                     out ? out : "(null)", c->out);
        free(out);
    }
}

/* A program that is not there: by path, and by a name looked up in PATH. */
static void test_not_found(void)
{
    char *by_path[] = {"/nonexistent/sc-no-such-program", NULL};
    char *by_name[] = {"sc-no-such-program-in-path", NULL};
    char *out = (char *)"unset";

    SC_CHECK_INT_EQ(sc_spawn_capture(by_path, NULL, &out), -ENOENT);
    SC_CHECK(out == NULL);
    out = (char *)"unset";
    SC_CHECK_INT_EQ(sc_spawn_capture(by_name, NULL, &out), -ENOENT);
    SC_CHECK(out == NULL);
}

/* Every child is reaped, the killed one too: nothing is left to wait for. */
static void test_no_child_left(void)
{
    char *argv[] = {"/bin/sh", "-c", "exec sleep 30", NULL}, *out = NULL;
    sc_spawn_opts opts = {.timeout_ms = 100};

    SC_CHECK_INT_EQ(sc_spawn_capture(argv, &opts, &out), -ETIMEDOUT);
    errno = 0;
    SC_CHECK_INT_EQ(waitpid(-1, NULL, WNOHANG), -1);
    SC_CHECK_INT_EQ(errno, ECHILD);
}

/* stderr is this process's unless quiet, which sends it to /dev/null. */
static void test_stderr(void)
{
    char path[] = "/tmp/sc_test_spawnXXXXXX", seen[256] = "";
    char *loud[] = {"/bin/sh", "-c", "echo visible >&2", NULL};
    char *hushed[] = {"/bin/sh", "-c", "echo hidden >&2", NULL};
    sc_spawn_opts quiet = {.quiet = true};
    char *out = NULL;
    int fd = mkstemp(path), saved = dup(STDERR_FILENO);

    SC_CHECK(fd >= 0 && saved >= 0);
    unlink(path);
    dup2(fd, STDERR_FILENO);
    int rc_loud = sc_spawn_capture(loud, NULL, &out);
    free(out);
    int rc_hushed = sc_spawn_capture(hushed, &quiet, &out);
    free(out);
    dup2(saved, STDERR_FILENO);
    close(saved);
    ssize_t n = pread(fd, seen, sizeof(seen) - 1, 0);
    close(fd);
    seen[n > 0 ? n : 0] = '\0';
    SC_CHECK_INT_EQ(rc_loud, 0);
    SC_CHECK_INT_EQ(rc_hushed, 0);
    SC_CHECK_STR_EQ(seen, "visible\n");
}

/* Started, then collected later: two at once, collected in the other order; a deadline
 * counts from the start; a child never started is not collected. */
static void test_start_then_collect(void)
{
    char *one[] = {"/bin/sh", "-c", "echo one", NULL}, *two[] = {"/bin/sh", "-c", "echo two", NULL};
    char *slow[] = {"/bin/sh", "-c", "exec sleep 30", NULL}, *out = NULL;
    sc_spawn_opts deadline = {.timeout_ms = 50};
    sc_spawned a, b, c, none = {.pid = -1, .out_fd = -1};
    struct timespec pause = {0, 200 * 1000 * 1000};

    SC_CHECK_INT_EQ(sc_spawn_start(one, NULL, &a), 0);
    SC_CHECK_INT_EQ(sc_spawn_start(two, NULL, &b), 0);
    SC_CHECK_INT_EQ(sc_spawn_start(slow, &deadline, &c), 0);
    nanosleep(&pause, NULL); /* the caller's own work; c's deadline passes meanwhile */
    SC_CHECK_INT_EQ(sc_spawn_collect(&b, &out), 0);
    SC_CHECK_STR_EQ(out, "two\n");
    free(out);
    SC_CHECK_INT_EQ(sc_spawn_collect(&a, &out), 0);
    SC_CHECK_STR_EQ(out, "one\n");
    free(out);
    SC_CHECK_INT_EQ(sc_spawn_collect(&c, &out), -ETIMEDOUT);
    SC_CHECK(out == NULL);
    SC_CHECK_INT_EQ(sc_spawn_collect(&none, &out), -ECHILD);
    SC_CHECK_INT_EQ(sc_spawn_collect(&a, &out), -ECHILD); /* collected once only */
    errno = 0;
    SC_CHECK_INT_EQ(waitpid(-1, NULL, WNOHANG), -1);
    SC_CHECK_INT_EQ(errno, ECHILD);
}

int main(void)
{
    SC_TEST_RUN(test_cases);
    SC_TEST_RUN(test_not_found);
    SC_TEST_RUN(test_no_child_left);
    SC_TEST_RUN(test_stderr);
    SC_TEST_RUN(test_start_then_collect);
    return SC_TEST_RESULT();
}
