/* netdev.c: /proc/self/net/dev readings and their differences (see sc_netdev.h). */
#include "sc_netdev.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* One "  eth0: 1234 5 0 0 0 0 0 0 5678 9 ..." line; 0 when it is one. */
static int sc__netdev_line(const char *line, size_t len, sc_netdev_if *out)
{
    const char *colon = memchr(line, ':', len), *name = line;
    char fields[256];
    unsigned long long v[9];

    if (!colon)
        return -EINVAL;
    while (name < colon && *name == ' ')
        name++;
    size_t n = (size_t)(colon - name), rest = len - (size_t)(colon + 1 - line);
    if (n == 0 || n >= sizeof(out->name) || rest >= sizeof(fields))
        return -EINVAL;
    snprintf(fields, sizeof(fields), "%.*s", (int)rest, colon + 1);
    if (sscanf(fields, "%llu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
               &v[4], &v[5], &v[6], &v[7], &v[8]) != 9)
        return -EINVAL;
    snprintf(out->name, sizeof(out->name), "%.*s", (int)n, name);
    out->rx_bytes = v[0];
    out->tx_bytes = v[8];
    out->kind = SC_NETDEV_KERNEL;
    return 0;
}

int sc_netdev_parse(const char *text, sc_netdev *out)
{
    int line_no = 0;

    out->n = out->dropped = 0;
    if (!text || !strstr(text, "Receive") || !strstr(text, "Transmit"))
        return -EINVAL; /* not the kernel's table */
    for (const char *p = text; *p;) {
        size_t len = strcspn(p, "\n");
        sc_netdev_if one;
        if (line_no++ >= 2 && sc__netdev_line(p, len, &one) == 0) {
            if (out->n < SC_NETDEV_MAX)
                out->ifs[out->n++] = one;
            else
                out->dropped++;
        }
        p += len + (p[len] == '\n');
    }
    return 0;
}

/* "net:[4026531840]" -> "4026531840". */
static void sc__netns(char *buf, size_t len)
{
    char link[64];
    ssize_t n = readlink("/proc/self/ns/net", link, sizeof(link) - 1);
    unsigned long long ino;

    buf[0] = '\0';
    if (n <= 0)
        return;
    link[n] = '\0';
    if (sscanf(link, "net:[%llu]", &ino) == 1)
        snprintf(buf, len, "%llu", ino);
}

int sc_netdev_read(sc_netdev *out)
{
    char text[16384];
    size_t used = 0;
    int rc = 0, fd = open("/proc/self/net/dev", O_RDONLY | O_CLOEXEC);

    memset(out, 0, sizeof(*out));
    if (fd < 0)
        return -errno;
    for (;;) {
        ssize_t n = read(fd, text + used, sizeof(text) - 1 - used);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            rc = -errno;
            break;
        }
        used += (size_t)n;
        if (n == 0 || used == sizeof(text) - 1)
            break; /* the rest of a very long table is dropped, as past SC_NETDEV_MAX */
    }
    close(fd);
    if (rc < 0)
        return rc;
    text[used] = '\0';
    sc__netns(out->netns, sizeof(out->netns));
    return sc_netdev_parse(text, out);
}

void sc_netdev_delta(const sc_netdev *before, const sc_netdev *after, sc_netdev *out)
{
    sc_netdev d = {.n = 0, .dropped = after->dropped};

    snprintf(d.netns, sizeof(d.netns), "%s", after->netns);
    for (size_t i = 0; i < after->n; i++) {
        const sc_netdev_if *a = &after->ifs[i];
        sc_netdev_if *o = &d.ifs[d.n++];
        snprintf(o->name, sizeof(o->name), "%s", a->name);
        o->kind = a->kind;
        o->rx_bytes = o->tx_bytes = 0;
        for (size_t j = 0; j < before->n; j++) {
            const sc_netdev_if *b = &before->ifs[j];
            if (strcmp(a->name, b->name) != 0 || a->kind != b->kind)
                continue;
            o->rx_bytes = a->rx_bytes >= b->rx_bytes ? a->rx_bytes - b->rx_bytes : 0;
            o->tx_bytes = a->tx_bytes >= b->tx_bytes ? a->tx_bytes - b->tx_bytes : 0;
            break;
        }
    }
    *out = d;
}

unsigned long long sc_netdev_tx_total(const sc_netdev *d)
{
    unsigned long long sum = 0;

    for (size_t i = 0; i < d->n; i++)
        if (d->ifs[i].kind == SC_NETDEV_KERNEL)
            sum += d->ifs[i].tx_bytes;
    return sum;
}
