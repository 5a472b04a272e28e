/*
 * junit.h: a JUnit XML report (the format CI systems show: Jenkins, GitLab, GitHub
 * actions' test reporters) of `verify`, `classify` and `history check` (--junit FILE).
 * One <testsuite> of <testcase>s; every text goes through one escape (XML's five, and any
 * character XML 1.0 forbids as '?'), so no bundle or card text can change the document's
 * structure. The file is written whole or not at all, never through a link (outfile.h):
 * opened when the report is made, so a path that cannot be written is said before any work.
 */
#ifndef SC_JUNIT_H
#define SC_JUNIT_H

typedef struct sc_junit sc_junit;

/* The outcome of one test case. */
typedef enum sc_junit_kind {
    SC_JUNIT_PASS,
    SC_JUNIT_FAILURE, /* <failure>: the check found what it looks for (a regression) */
    SC_JUNIT_SKIPPED, /* <skipped>: nothing decided (a suspect change, a skip of classify) */
    SC_JUNIT_ERROR,   /* <error>: the check could not run (a bundle that cannot be read) */
} sc_junit_kind;

/* A report of suite name to be written to path by command cmd ("verify", for messages);
   NULL with one line on stderr when path cannot be written (a symlink, not a regular file,
   no temporary file beside it) or out of memory. */
sc_junit *sc_junit_new(const char *path, const char *suite, const char *cmd);
/* One test case: classname.name, its outcome, a one-line message and a longer text (either
   may be NULL; a pass's text goes to <system-out>). */
void sc_junit_case(sc_junit *j, const char *classname, const char *name, sc_junit_kind kind,
                   const char *message, const char *text);
/* Writes the file whole and frees j. 0, or -errno with a one-line message on stderr (the
   file as it was). */
int sc_junit_write(sc_junit *j);
/* Frees j and writes nothing (the file as it was). NULL: nothing. */
void sc_junit_abort(sc_junit *j);

#endif
