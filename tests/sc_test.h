/*
 * sc_test.h: the tiny assert header every unit test uses.
 *
 * A test executable is a list of functions registered in main() with SC_TEST_RUN().
 * A failed check prints both values with file and line, marks the current test failed
 * and returns from the test function; main() returns non-zero when any test failed.
 * Table-driven tests loop over a const array of cases and name the case in the message
 * with SC_CHECK_MSG().
 */
#ifndef SC_TEST_H
#define SC_TEST_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int sc_test_failures;
static int sc_test_current_failed;

#define SC_FAIL_(...)                                                                             \
    do {                                                                                          \
        fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                                           \
        fprintf(stderr, __VA_ARGS__);                                                             \
        fputc('\n', stderr);                                                                      \
        sc_test_current_failed = 1;                                                               \
    } while (0)

/* Checks return from the enclosing test function on failure. */
#define SC_CHECK(cond)                                                                            \
    do {                                                                                          \
        if (!(cond)) {                                                                            \
            SC_FAIL_("check failed: %s", #cond);                                                  \
            return;                                                                               \
        }                                                                                         \
    } while (0)

#define SC_CHECK_MSG(cond, ...)                                                                   \
    do {                                                                                          \
        if (!(cond)) {                                                                            \
            SC_FAIL_(__VA_ARGS__);                                                                \
            return;                                                                               \
        }                                                                                         \
    } while (0)

#define SC_CHECK_INT_EQ(a, b)                                                                     \
    do {                                                                                          \
        long long sc_a_ = (long long)(a), sc_b_ = (long long)(b);                                 \
        if (sc_a_ != sc_b_) {                                                                     \
            SC_FAIL_("%s == %s: %lld != %lld", #a, #b, sc_a_, sc_b_);                             \
            return;                                                                               \
        }                                                                                         \
    } while (0)

#define SC_CHECK_STR_EQ(a, b)                                                                     \
    do {                                                                                          \
        const char *sc_a_ = (a), *sc_b_ = (b);                                                    \
        if (!sc_a_ || !sc_b_ || strcmp(sc_a_, sc_b_) != 0) {                                      \
            SC_FAIL_("%s == %s: \"%s\" != \"%s\"", #a, #b, sc_a_ ? sc_a_ : "(null)",              \
                     sc_b_ ? sc_b_ : "(null)");                                                   \
            return;                                                                               \
        }                                                                                         \
    } while (0)

/* Substring check: the usual way to assert on a message without freezing its every word. */
#define SC_CHECK_STR_CONTAINS(hay, needle)                                                        \
    do {                                                                                          \
        const char *sc_h_ = (hay), *sc_n_ = (needle);                                             \
        if (!sc_h_ || !strstr(sc_h_, sc_n_)) {                                                    \
            SC_FAIL_("%s does not contain \"%s\": \"%s\"", #hay, sc_n_,                           \
                     sc_h_ ? sc_h_ : "(null)");                                                   \
            return;                                                                               \
        }                                                                                         \
    } while (0)

#define SC_TEST_RUN(fn)                                                                           \
    do {                                                                                          \
        sc_test_current_failed = 0;                                                               \
        fn();                                                                                     \
        fprintf(stderr, "%s %s\n", sc_test_current_failed ? "FAIL" : "ok  ", #fn);                \
        sc_test_failures += sc_test_current_failed;                                               \
    } while (0)

#define SC_TEST_RESULT() (sc_test_failures ? 1 : 0)

#endif
