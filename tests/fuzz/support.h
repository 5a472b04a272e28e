/*
 * support.h: what the fuzz targets (tests/fuzz/fuzz_*.c) share.
 *
 * Every target defines LLVMFuzzerTestOneInput(). With STREAMCARD_FUZZ (clang) libFuzzer
 * drives it; in every other build replay.c's main() runs each file of the target's corpus
 * (corpus/<target>/) through it once, so the corpus is a regression suite of every build.
 *
 * Targets that take several texts (a log and the snapshots beside it, a list and a host,
 * the arguments of a plugstack.conf line) take them separated by NUL bytes: each part is
 * then exactly the C string the code under test would see, and libFuzzer inserts and drops
 * NUL bytes as easily as any other byte.
 *
 * A property that does not hold (a round trip that changes the card, a forged key=value
 * line) is reported with sc_fuzz_require(), which prints the reason and aborts: libFuzzer
 * saves the input as a crash, the replay run fails.
 */
#ifndef SC_FUZZ_SUPPORT_H
#define SC_FUZZ_SUPPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input as a malloc'd string of exactly size + 1 bytes (ASan sees any read past it). */
char *sc_fuzz_text(const uint8_t *data, size_t size);

/*
 * Splits the input at NUL bytes into at most max malloc'd strings. Returns how many parts
 * the input has (at most max); the parts after them are NULL ("that file does not exist").
 */
size_t sc_fuzz_split(const uint8_t *data, size_t size, char **parts, size_t max);
void sc_fuzz_free_parts(char **parts, size_t max);

/* Prints "fuzz: <what>" on stderr and aborts. */
__attribute__((noreturn)) void sc_fuzz_fail(const char *what);

/* Aborts with "fuzz: <what>" when ok is false (inline: analyzers see that it aborts). */
static inline void sc_fuzz_require(bool ok, const char *what)
{
    if (!ok)
        sc_fuzz_fail(what);
}

/*
 * A private directory for this process (mkdtemp under $TMPDIR or /tmp), created on first
 * use and removed at exit.
 */
const char *sc_fuzz_tmpdir(void);

/*
 * Writes text to rel under dir, creating the parent directories; a NULL text removes the
 * file instead. Aborts when the file cannot be written (the harness is broken, not the
 * code under test).
 */
void sc_fuzz_put(const char *dir, const char *rel, const char *text);

/*
 * A fake machine for the targets that read through a sysroot: <tmpdir>/sysroot, made and
 * opened on first use with the file rel holding text; the same root on every call.
 */
struct sc_fsroot;
const struct sc_fsroot *sc_fuzz_sysroot(const char *rel, const char *text);

#endif
