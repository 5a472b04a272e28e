/*
 * pattern.h: the payload every ping-pong message carries, and the checks that prove it
 * arrived intact, cheaply enough not to disturb the timing.
 *
 * A sender's buffer for one message size holds a base pattern, a pure function of
 * (size, sender rank, byte offset), written once per size outside the timed loop. Before
 * each send the sender stamps three 8-byte words with values that also depend on the
 * message number `seq`: the first word, the last word and one "rotating" word whose place
 * changes with every message (the previous rotating word is restored to the base first, so
 * the buffer is always base + the current stamps). Messages shorter than 16 bytes are all
 * stamp. The receiver checks the stamps of every message (three loads, O(1) per message,
 * catching lost, stale, reordered or misdirected messages and, over many messages, damage
 * anywhere), and after the timed loop checks every byte of the last message of each size
 * (catching damage the stamps did not sample).
 *
 * Bytes are defined little-endian, so ranks of different byte order agree on them. The
 * contract for senders: after scm_pattern_fill(), call scm_pattern_stamp() with seq = 0, 1,
 * 2, ... in order.
 */
#ifndef SCM_PATTERN_H
#define SCM_PATTERN_H

#include <endian.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Messages shorter than this are stamped whole. */
#define SCM_PATTERN_SMALL 16

/* The first wrong byte of a message, for the failure report. */
struct scm_pattern_error {
    size_t wrong;  /* bytes that differ from the expected message */
    size_t offset; /* the first of them */
    uint8_t want;  /* the expected byte there */
    uint8_t got;   /* the byte received */
};

/* splitmix64's finaliser: a cheap, well-mixed 64-bit function. */
static inline uint64_t scm_pattern_mix(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

/* The seed of the base pattern a rank sends at one message size. */
static inline uint64_t scm_pattern_seed(size_t size, int rank)
{
    return scm_pattern_mix((uint64_t)size * 0x100000001B3ULL ^ (uint64_t)(unsigned)rank << 48);
}

/*
 * The stamp word of message seq at byte offset off. Cheap on purpose (one multiply in the
 * loop: the offset term is constant per size): it only has to differ from the same word of
 * any other message and from the base, which an odd multiplier of seq guarantees for the
 * former and makes a 2^-64 coincidence for the latter.
 */
static inline uint64_t scm_pattern_stamp_word(uint64_t seed, uint64_t seq, size_t off)
{
    return (seed ^ ((uint64_t)off * 0xD1B54A32D192ED03ULL)) + (seq + 1) * 0x9E3779B97F4A7C15ULL;
}

/*
 * Offset of the rotating stamp word of message seq, or 0 when the message has none (shorter
 * than 24 bytes). A hash of seq picks one of the aligned words in [8, size - 8), mapped to
 * the range by a multiply instead of a division.
 */
static inline size_t scm_pattern_rotor(size_t size, uint64_t seed, uint64_t seq)
{
    uint64_t slots = size >= 24 ? (size - 16) / 8 : 0;
    uint64_t h = (((seq + 1) * 0xD6E8FEB86659FD93ULL) ^ seed) >> 32;

    return slots ? 8 * (1 + (size_t)((h * slots) >> 32)) : 0;
}

static inline void scm__put_word(unsigned char *p, uint64_t v)
{
    v = htole64(v);
    memcpy(p, &v, sizeof(v));
}

static inline int scm__word_differs(const unsigned char *p, uint64_t want)
{
    uint64_t got;

    memcpy(&got, p, sizeof(got));
    return got != htole64(want);
}

/* A message shorter than 16 bytes is its stamp words at 0 and 8, cut to size. */
static inline void scm__small_stamp(unsigned char w[16], uint64_t seed, uint64_t seq)
{
    scm__put_word(w, scm_pattern_stamp_word(seed, seq, 0));
    scm__put_word(w + 8, scm_pattern_stamp_word(seed, seq, 8));
}

/*
 * Stamp message seq into a buffer that holds the base pattern and the stamps of seq - 1
 * (or, for seq 0, the base pattern alone). Inline: it runs inside the timed loop.
 */
static inline void scm_pattern_stamp(unsigned char *buf, size_t size, uint64_t seed, uint64_t seq)
{
    if (size == 8) { /* the latency size: one word */
        scm__put_word(buf, scm_pattern_stamp_word(seed, seq, 0));
        return;
    }
    if (size < SCM_PATTERN_SMALL) {
        unsigned char w[16];
        scm__small_stamp(w, seed, seq);
        memcpy(buf, w, size);
        return;
    }
    size_t old = seq > 0 ? scm_pattern_rotor(size, seed, seq - 1) : 0;
    size_t rot = scm_pattern_rotor(size, seed, seq);
    if (old) /* rotating words are aligned: a whole base word goes back */
        scm__put_word(buf + old, scm_pattern_mix(seed + old / 8));
    scm__put_word(buf, scm_pattern_stamp_word(seed, seq, 0));
    scm__put_word(buf + size - 8, scm_pattern_stamp_word(seed, seq, size - 8));
    if (rot)
        scm__put_word(buf + rot, scm_pattern_stamp_word(seed, seq, rot));
}

/*
 * The per-message check: 0 when the stamps of message seq are where they belong, 1 when
 * not. Inline: it runs inside the timed loop.
 */
static inline int scm_pattern_check_stamps(const unsigned char *buf, size_t size, uint64_t seed,
                                           uint64_t seq)
{
    if (size == 8)
        return scm__word_differs(buf, scm_pattern_stamp_word(seed, seq, 0));
    if (size < SCM_PATTERN_SMALL) {
        unsigned char w[16];
        scm__small_stamp(w, seed, seq);
        return memcmp(buf, w, size) != 0;
    }
    size_t rot = scm_pattern_rotor(size, seed, seq);
    return scm__word_differs(buf, scm_pattern_stamp_word(seed, seq, 0)) |
           scm__word_differs(buf + size - 8, scm_pattern_stamp_word(seed, seq, size - 8)) |
           (rot && scm__word_differs(buf + rot, scm_pattern_stamp_word(seed, seq, rot)));
}

/* Write the base pattern of `seed` over buf[0, size). */
void scm_pattern_fill(unsigned char *buf, size_t size, uint64_t seed);

/*
 * The full check: compare every byte of buf with message seq of `seed`. Returns the number
 * of wrong bytes (0: intact) and, when there are any, describes the first in *err.
 */
size_t scm_pattern_check_full(const unsigned char *buf, size_t size, uint64_t seed, uint64_t seq,
                              struct scm_pattern_error *err);

#endif
