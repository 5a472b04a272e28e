/*
 * sc_hostlist.h: Slurm hostlist expressions ("node[01-02,05],login1"), for the card's
 * nodes: key. Only membership is needed: is this host one the card may run on?
 */
#ifndef SC_HOSTLIST_H
#define SC_HOSTLIST_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Checks the syntax of a hostlist. Returns 0, or -EINVAL with the reason in why.
 * Accepted: comma-separated names, each with at most one bracketed range list
 * "prefix[a-b,c]suffix"; numbers keep their zero padding (node[01-10]).
 */
int sc_hostlist_check(const char *list, char *why, size_t whylen);

/* How many host names list expands to (node[01-04],login1: 5); 0 for a bad list. */
unsigned long sc_hostlist_count(const char *list);

/* True when host (a short name) is one of the names list expands to. */
bool sc_hostlist_contains(const char *list, const char *host);

#endif
