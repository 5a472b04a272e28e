/*
 * test_mpi_pattern.c: the ping-pong payload: a sender's buffer stamped message after
 * message always passes the receiver's checks; a damaged byte anywhere fails the full
 * check at exactly that offset; stale, foreign or damaged-at-the-stamps messages fail the
 * per-message check; the rotating stamp wanders over the whole message.
 */
#include <stdlib.h>

#include "pattern.h"
#include "sc_test.h"

static const size_t sizes[] = {0,  1,  2,  3,  7,  8,  9,   15,   16,   17,   23,
                               24, 25, 31, 32, 33, 64, 100, 4096, 4099, 65536};
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

/* Every message of a sender passes both checks, and only as the message it is. */
static void test_stamped_messages_pass(void)
{
    for (size_t i = 0; i < NSIZES; i++) {
        size_t n = sizes[i];
        unsigned char *buf = malloc(n + 1);
        uint64_t seed = scm_pattern_seed(n, 0), other = scm_pattern_seed(n, 1);
        struct scm_pattern_error err;
        SC_CHECK(buf != NULL);
        scm_pattern_fill(buf, n, seed);
        for (uint64_t seq = 0; seq < 50; seq++) {
            scm_pattern_stamp(buf, n, seed, seq);
            SC_CHECK_MSG(!scm_pattern_check_stamps(buf, n, seed, seq), "size %zu seq %llu", n,
                         (unsigned long long)seq);
            SC_CHECK_MSG(scm_pattern_check_full(buf, n, seed, seq, &err) == 0,
                         "size %zu seq %llu: %zu wrong, first at %zu", n, (unsigned long long)seq,
                         err.wrong, err.offset);
            if (n == 0)
                continue;
            /* A stale message (the receiver expects the next one) and a foreign one fail. */
            SC_CHECK_MSG(scm_pattern_check_stamps(buf, n, seed, seq + 1), "stale, size %zu", n);
            SC_CHECK_MSG(scm_pattern_check_stamps(buf, n, other, seq), "foreign, size %zu", n);
            SC_CHECK_MSG(scm_pattern_check_full(buf, n, seed, seq + 1, &err) > 0,
                         "stale full, size %zu", n);
        }
        free(buf);
    }
}

/* One damaged byte: the full check finds exactly it, with the right bytes. */
static void test_damage_is_found_at_its_offset(void)
{
    for (size_t i = 0; i < NSIZES; i++) {
        size_t n = sizes[i];
        unsigned char *buf = malloc(n + 1);
        uint64_t seed = scm_pattern_seed(n, 1), seq = 7;
        struct scm_pattern_error err;
        SC_CHECK(buf != NULL);
        scm_pattern_fill(buf, n, seed);
        for (uint64_t s = 0; s <= seq; s++)
            scm_pattern_stamp(buf, n, seed, s);
        size_t rot = scm_pattern_rotor(n, seed, seq);
        /* Every offset of small messages; edges, stamps and a stride of the big ones. */
        for (size_t off = 0; off < n; off += (n <= 128 || off < 16 || off + 16 > n) ? 1 : 97) {
            uint8_t good = buf[off];
            buf[off] ^= 0x5A;
            size_t wrong = scm_pattern_check_full(buf, n, seed, seq, &err);
            SC_CHECK_MSG(wrong == 1 && err.offset == off && err.want == good &&
                             err.got == (uint8_t)(good ^ 0x5A),
                         "size %zu offset %zu: %zu wrong, first at %zu", n, off, wrong, err.offset);
            buf[off] = good;
        }
        if (rot) { /* the rotating word is checked by the cheap check too */
            buf[rot + 3] ^= 1;
            SC_CHECK_MSG(scm_pattern_check_stamps(buf, n, seed, seq), "rotor, size %zu", n);
            buf[rot + 3] ^= 1;
        }
        if (n > 0) { /* and the first and last bytes always */
            buf[0] ^= 1;
            SC_CHECK(scm_pattern_check_stamps(buf, n, seed, seq));
            buf[0] ^= 1;
            buf[n - 1] ^= 1;
            SC_CHECK(scm_pattern_check_stamps(buf, n, seed, seq));
            buf[n - 1] ^= 1;
        }
        free(buf);
    }
}

/* Several damaged bytes are all counted; the first is reported. */
static void test_damage_is_counted(void)
{
    size_t n = 4099;
    unsigned char *buf = malloc(n);
    uint64_t seed = scm_pattern_seed(n, 0);
    struct scm_pattern_error err;

    SC_CHECK(buf != NULL);
    scm_pattern_fill(buf, n, seed);
    scm_pattern_stamp(buf, n, seed, 0);
    for (size_t off = 1000; off < 1100; off++)
        buf[off] = (uint8_t)~buf[off];
    SC_CHECK_INT_EQ(scm_pattern_check_full(buf, n, seed, 0, &err), 100);
    SC_CHECK_INT_EQ(err.wrong, 100);
    SC_CHECK_INT_EQ(err.offset, 1000);
    free(buf);
}

/* The rotating stamp visits many places, always an aligned word clear of the edges. */
static void test_rotor_wanders(void)
{
    size_t n = 4096, seen = 0;
    unsigned char hit[4096 / 8] = {0};
    uint64_t seed = scm_pattern_seed(n, 0);

    for (uint64_t seq = 0; seq < 2000; seq++) {
        size_t rot = scm_pattern_rotor(n, seed, seq);
        SC_CHECK_MSG(rot >= 8 && rot + 16 <= n && rot % 8 == 0, "seq %llu: rotor %zu",
                     (unsigned long long)seq, rot);
        seen += !hit[rot / 8];
        hit[rot / 8] = 1;
    }
    SC_CHECK_MSG(seen > 400, "only %zu of 510 words visited", seen);
    SC_CHECK_INT_EQ(scm_pattern_rotor(23, seed, 5), 0);
    SC_CHECK_INT_EQ(scm_pattern_rotor(24, seed, 5), 8);
}

int main(void)
{
    SC_TEST_RUN(test_stamped_messages_pass);
    SC_TEST_RUN(test_damage_is_found_at_its_offset);
    SC_TEST_RUN(test_damage_is_counted);
    SC_TEST_RUN(test_rotor_wanders);
    return SC_TEST_RESULT();
}
