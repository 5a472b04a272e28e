/*
 * pattern.c: the base pattern, the stamps and the full check (see pattern.h).
 */
#include "pattern.h"

/* Byte off of the base pattern: byte off % 8 of base word off / 8 (little-endian). */
static uint8_t scm__base_byte(uint64_t seed, size_t off)
{
    return (uint8_t)(scm_pattern_mix(seed + off / 8) >> (8 * (off % 8)));
}

/* Byte off of message seq as the receiver must see it. */
static uint8_t scm__expected_byte(size_t size, uint64_t seed, uint64_t seq, size_t rot, size_t off)
{
    size_t start;

    if (size < SCM_PATTERN_SMALL)
        start = off & ~(size_t)7; /* whole message is stamp words at 0 and 8 */
    else if (off < 8)
        start = 0;
    else if (off >= size - 8)
        start = size - 8;
    else if (rot && off >= rot && off < rot + 8)
        start = rot;
    else
        return scm__base_byte(seed, off);
    return (uint8_t)(scm_pattern_stamp_word(seed, seq, start) >> (8 * (off - start)));
}

void scm_pattern_fill(unsigned char *buf, size_t size, uint64_t seed)
{
    size_t words = size / 8;

    for (size_t j = 0; j < words; j++)
        scm__put_word(buf + 8 * j, scm_pattern_mix(seed + j));
    for (size_t off = 8 * words; off < size; off++)
        buf[off] = scm__base_byte(seed, off);
}

/*
 * Count the wrong bytes of buf[lo, hi) byte by byte. `before` is the count found so far:
 * when it is 0, the first wrong byte here is described in *err.
 */
static size_t scm__check_bytes(const unsigned char *buf, size_t size, uint64_t seed, uint64_t seq,
                               size_t rot, size_t lo, size_t hi, size_t before,
                               struct scm_pattern_error *err)
{
    size_t wrong = 0;

    for (size_t off = lo; off < hi; off++) {
        uint8_t want = scm__expected_byte(size, seed, seq, rot, off);
        if (buf[off] == want)
            continue;
        if (before + wrong == 0)
            *err = (struct scm_pattern_error){.offset = off, .want = want, .got = buf[off]};
        wrong++;
    }
    return wrong;
}

size_t scm_pattern_check_full(const unsigned char *buf, size_t size, uint64_t seed, uint64_t seq,
                              struct scm_pattern_error *err)
{
    size_t rot = scm_pattern_rotor(size, seed, seq);
    size_t lo = 8, hi = size >= SCM_PATTERN_SMALL ? (size - 8) / 8 * 8 : 0;
    size_t wrong = 0;

    *err = (struct scm_pattern_error){0};
    if (hi <= lo) { /* nothing but stamps and edges: byte by byte */
        wrong = scm__check_bytes(buf, size, seed, seq, rot, 0, size, 0, err);
    } else {
        /* The bulk word by word against the base; stamps and edges byte by byte. */
        wrong = scm__check_bytes(buf, size, seed, seq, rot, 0, lo, 0, err);
        for (size_t off = lo; off < hi; off += 8)
            if (off == rot || scm__word_differs(buf + off, scm_pattern_mix(seed + off / 8)))
                wrong += scm__check_bytes(buf, size, seed, seq, rot, off, off + 8, wrong, err);
        wrong += scm__check_bytes(buf, size, seed, seq, rot, hi, size, wrong, err);
    }
    err->wrong = wrong;
    return wrong;
}
