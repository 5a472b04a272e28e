/*
 * capture.c: stdout and stderr through pipes and a copying thread while MPI starts (see
 * capture.h).
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

/* Index of each variable below, for the filter. */
enum { SCM__V_BML, SCM__V_MTL_BASE, SCM__V_OFI, SCM__V_FI_LOG, SCM__V_UCX_LOG };

const struct scm_capture_var scm_capture_vars[SCM_CAPTURE_NVARS] = {
    [SCM__V_BML] = {"OMPI_MCA_btl_base_verbose", "1"},
    [SCM__V_MTL_BASE] = {"OMPI_MCA_mtl_base_verbose", "1"},
    [SCM__V_OFI] = {"OMPI_MCA_mtl_ofi_verbose", "1"},
    [SCM__V_FI_LOG] = {"FI_LOG_LEVEL", "warn"},
    [SCM__V_UCX_LOG] = {"UCX_LOG_LEVEL", "info"},
};

static void scm__write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return; /* the real stream is gone: nothing better to do with the text */
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
        if (cap > SCM_CAPTURE_MAX + 1) {
            c->truncated = 1;
            return; /* the copy is capped; forwarding goes on */
        }
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

/* A line that exists only because this process raised a verbosity (see capture.h). */
static int scm__ours(const struct scm_capture *c, const char *line, size_t n)
{
    char buf[sizeof(((struct scm_capture_stream *)0)->line) + 1];

    snprintf(buf, sizeof(buf), "%.*s", (int)n, line);
    if ((c->injected[SCM__V_OFI] || c->injected[SCM__V_MTL_BASE]) &&
        (strstr(buf, "mtl_ofi") || strstr(buf, "btl_ofi") || strstr(buf, "common_ofi")) &&
        !strstr(buf, "mtl:ofi:prov: ") && !strstr(buf, "mtl:ofi:provider: ") &&
        !strstr(buf, "mtl:ofi:provider:domain: "))
        return 1;
    if (c->injected[SCM__V_FI_LOG] && strstr(buf, "libfabric:"))
        return 1;
    return c->injected[SCM__V_UCX_LOG] && (strstr(buf, "UCX  INFO") || strstr(buf, "UCX  DIAG"));
}

/* Forward text to the real stream, line by line when something is filtered. */
static void scm__forward(struct scm_capture *c, struct scm_capture_stream *s, const char *p,
                         size_t n, int flush)
{
    for (size_t i = 0; i < n; i++) {
        s->line[s->line_len++] = p[i];
        if (p[i] != '\n' && s->line_len < sizeof(s->line))
            continue;
        if (!scm__ours(c, s->line, s->line_len))
            scm__write_all(s->saved, s->line, s->line_len);
        s->line_len = 0;
    }
    if (flush && s->line_len) {
        scm__write_all(s->saved, s->line, s->line_len);
        s->line_len = 0;
    }
}

/* The copying thread: until EOF on both pipes, or a stop request and the pipes drained. */
static void *scm__thread(void *arg)
{
    struct scm_capture *c = arg;
    struct pollfd p[3] = {
        {c->s[0].rd, POLLIN, 0}, {c->s[1].rd, POLLIN, 0}, {c->stop[0], POLLIN, 0}};
    char buf[4096];
    int stopping = 0, open_ends = 2;

    while (open_ends > 0) {
        if (!stopping && poll(p, 3, -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        stopping |= (p[2].revents & POLLIN) != 0;
        int progress = 0;
        for (int i = 0; i < 2; i++) {
            if (p[i].fd < 0)
                continue;
            ssize_t n = read(p[i].fd, buf, sizeof(buf)); /* non-blocking */
            if (n > 0) {
                scm__keep(c, buf, (size_t)n);
                scm__forward(c, &c->s[i], buf, (size_t)n, 0);
                progress = 1;
            } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
                p[i].fd = -1; /* EOF: poll() ignores a negative descriptor */
                open_ends--;
            }
        }
        if (stopping && !progress)
            break; /* drained */
    }
    for (int i = 0; i < 2; i++)
        scm__forward(c, &c->s[i], "", 0, 1);
    return NULL;
}

/* Put stream i's pipe in place of its descriptor. Returns 0 or -errno. */
static int scm__redirect(struct scm_capture_stream *s, int *write_end)
{
    int pfd[2];

    if (pipe2(pfd, O_CLOEXEC) < 0)
        return -errno;
    s->saved = fcntl(s->fd, F_DUPFD_CLOEXEC, 3);
    if (s->saved < 0 || fcntl(pfd[0], F_SETFL, O_NONBLOCK) < 0) {
        int rc = -errno;
        if (s->saved >= 0)
            close(s->saved);
        close(pfd[0]);
        close(pfd[1]);
        s->saved = -1;
        return rc;
    }
    s->rd = pfd[0];
    *write_end = pfd[1];
    return 0;
}

static void scm__close_stream(struct scm_capture_stream *s)
{
    if (s->saved >= 0)
        close(s->saved);
    if (s->rd >= 0)
        close(s->rd);
    s->saved = s->rd = -1;
}

int scm_capture_begin(struct scm_capture *c)
{
    int w[2] = {-1, -1}, rc;

    *c = (struct scm_capture){.stop = {-1, -1}};
    c->s[0] = (struct scm_capture_stream){.fd = STDOUT_FILENO, .saved = -1, .rd = -1};
    c->s[1] = (struct scm_capture_stream){.fd = STDERR_FILENO, .saved = -1, .rd = -1};
    for (int i = 0; i < SCM_CAPTURE_NVARS; i++) {
        c->injected[i] = getenv(scm_capture_vars[i].name) == NULL;
        if (c->injected[i])
            setenv(scm_capture_vars[i].name, scm_capture_vars[i].value, 0);
    }
    fflush(stdout);
    fflush(stderr);
    if (pipe2(c->stop, O_CLOEXEC) < 0) {
        c->stop[0] = c->stop[1] = -1;
        return -errno;
    }
    for (int i = 0; i < 2; i++)
        if ((rc = scm__redirect(&c->s[i], &w[i])) < 0)
            goto out_close;
    if ((rc = pthread_create(&c->thread, NULL, scm__thread, c)) != 0) {
        rc = -rc;
        goto out_close;
    }
    for (int i = 0; i < 2; i++) {
        dup2(w[i], c->s[i].fd); /* the only write ends from here on */
        close(w[i]);
    }
    return 0;

out_close:
    for (int i = 0; i < 2; i++) {
        scm__close_stream(&c->s[i]);
        if (w[i] >= 0)
            close(w[i]);
    }
    close(c->stop[0]);
    close(c->stop[1]);
    c->stop[0] = c->stop[1] = -1; /* the injected flags stay for _end */
    return rc;
}

void scm_capture_end(struct scm_capture *c)
{
    if (c->s[0].saved >= 0) {
        fflush(stdout);
        fflush(stderr);
        for (int i = 0; i < 2; i++) /* closes the pipes' write ends: EOF for the thread */
            dup2(c->s[i].saved, c->s[i].fd);
        (void)!write(c->stop[1], "", 1); /* in case someone else still holds a write end */
        pthread_join(c->thread, NULL);
        for (int i = 0; i < 2; i++)
            scm__close_stream(&c->s[i]);
        close(c->stop[0]);
        close(c->stop[1]);
        c->stop[0] = c->stop[1] = -1;
    }
    /* MPI_Init has read them; nothing started later should inherit them. */
    for (int i = 0; i < SCM_CAPTURE_NVARS; i++)
        if (c->injected[i])
            unsetenv(scm_capture_vars[i].name);
    if (!c->text && (c->text = calloc(1, 1)))
        c->cap = 1;
}

void scm_capture_free(struct scm_capture *c)
{
    free(c->text);
    c->text = NULL;
    c->len = c->cap = 0;
}
