/*
 * capture.c: stderr through a pipe and a copying thread while MPI starts (see capture.h).
 */
#include "capture.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SCM_CAPTURE_MAX (1 << 20)

/* The verbosities that make Open MPI name its choices; index 1 and 2 are the OFI MTL's. */
static const char *const scm__verbose_vars[3] = {
    "OMPI_MCA_btl_base_verbose",
    "OMPI_MCA_mtl_base_verbose",
    "OMPI_MCA_mtl_ofi_verbose",
};

static void scm__write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return; /* stderr is gone: nothing better to do with the text */
        p += w;
        n -= (size_t)w;
    }
}

static void scm__keep(struct scm_capture *c, const char *p, size_t n)
{
    if (c->len + n + 1 > c->cap) {
        size_t cap = c->cap ? c->cap : 16384;
        while (cap < c->len + n + 1)
            cap *= 2;
        if (cap > SCM_CAPTURE_MAX + 1)
            return; /* the copy is capped; forwarding goes on */
        char *grown = realloc(c->text, cap);
        if (!grown)
            return;
        c->text = grown;
        c->cap = cap;
    }
    memcpy(c->text + c->len, p, n);
    c->len += n;
    c->text[c->len] = '\0';
}

/* The OFI MTL's verbose lines other than the provider and domain it chose. */
static int scm__ofi_chatter(const char *line, size_t n)
{
    char buf[sizeof(((struct scm_capture *)0)->line) + 1];

    snprintf(buf, sizeof(buf), "%.*s", (int)n, line);
    return strstr(buf, "mtl_ofi_component.c:") && !strstr(buf, "mtl:ofi:prov: ") &&
           !strstr(buf, "mtl:ofi:provider: ");
}

/* Forward text to the real stderr, line by line when the OFI chatter is filtered. */
static void scm__forward(struct scm_capture *c, const char *p, size_t n, int flush)
{
    if (!c->filter_ofi) {
        scm__write_all(c->saved, p, n);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        c->line[c->line_len++] = p[i];
        if (p[i] != '\n' && c->line_len < sizeof(c->line))
            continue;
        if (!scm__ofi_chatter(c->line, c->line_len))
            scm__write_all(c->saved, c->line, c->line_len);
        c->line_len = 0;
    }
    if (flush && c->line_len) {
        scm__write_all(c->saved, c->line, c->line_len);
        c->line_len = 0;
    }
}

/* The copying thread: until EOF on the pipe, or a stop request and the pipe drained. */
static void *scm__thread(void *arg)
{
    struct scm_capture *c = arg;
    struct pollfd p[2] = {{c->rd, POLLIN, 0}, {c->stop[0], POLLIN, 0}};
    char buf[4096];
    int stopping = 0;

    for (;;) {
        if (!stopping && poll(p, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        stopping |= (p[1].revents & POLLIN) != 0;
        ssize_t n = read(c->rd, buf, sizeof(buf)); /* non-blocking */
        if (n > 0) {
            scm__keep(c, buf, (size_t)n);
            scm__forward(c, buf, (size_t)n, 0);
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0 || stopping || errno != EAGAIN)
            break;
    }
    scm__forward(c, "", 0, 1);
    return NULL;
}

int scm_capture_begin(struct scm_capture *c)
{
    int pfd[2], rc;

    *c = (struct scm_capture){.saved = -1, .rd = -1, .stop = {-1, -1}};
    for (int i = 0; i < 3; i++) {
        c->injected[i] = getenv(scm__verbose_vars[i]) == NULL;
        if (c->injected[i])
            setenv(scm__verbose_vars[i], "1", 0);
    }
    c->filter_ofi = c->injected[1] || c->injected[2];
    fflush(stderr);
    if (pipe2(pfd, O_CLOEXEC) < 0)
        return -errno;
    if (pipe2(c->stop, O_CLOEXEC) < 0) {
        rc = -errno;
        goto out_close_pipe;
    }
    c->saved = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
    if (c->saved < 0 || fcntl(pfd[0], F_SETFL, O_NONBLOCK) < 0) {
        rc = -errno;
        goto out_close_stop;
    }
    c->rd = pfd[0];
    if ((rc = pthread_create(&c->thread, NULL, scm__thread, c)) != 0) {
        rc = -rc;
        goto out_close_stop;
    }
    dup2(pfd[1], STDERR_FILENO); /* the only write end from here on */
    close(pfd[1]);
    return 0;

out_close_stop:
    if (c->saved >= 0)
        close(c->saved);
    close(c->stop[0]);
    close(c->stop[1]);
out_close_pipe:
    close(pfd[0]);
    close(pfd[1]);
    c->saved = c->rd = c->stop[0] = c->stop[1] = -1; /* the injected flags stay for _end */
    return rc;
}

void scm_capture_end(struct scm_capture *c)
{
    if (c->saved >= 0) {
        fflush(stderr);
        dup2(c->saved, STDERR_FILENO);   /* closes the pipe's write end: EOF for the thread */
        (void)!write(c->stop[1], "", 1); /* in case someone else still holds a write end */
        pthread_join(c->thread, NULL);
        close(c->saved);
        close(c->rd);
        close(c->stop[0]);
        close(c->stop[1]);
        c->saved = c->rd = c->stop[0] = c->stop[1] = -1;
    }
    /* MPI_Init has read them; nothing started later should inherit them. */
    for (int i = 0; i < 3; i++)
        if (c->injected[i])
            unsetenv(scm__verbose_vars[i]);
    if (!c->text && (c->text = calloc(1, 1)))
        c->cap = 1;
}

void scm_capture_free(struct scm_capture *c)
{
    free(c->text);
    c->text = NULL;
    c->len = c->cap = 0;
}
