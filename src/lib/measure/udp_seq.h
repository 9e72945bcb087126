/*
 * Receiver-side accounting of one UDP stream from the sender's 64-bit
 * sequence numbers, which start at 0 and go up by one per datagram.
 *
 * Per datagram, with "highest" the largest sequence number seen so far:
 *   - seq > highest: new and in order. The numbers skipped between highest
 *     and seq are added to `gap_seqs` (a gap of that many datagrams, which
 *     may still arrive late).
 *   - seq <= highest, within the window and not seen: unique, out of order,
 *     and a `fill_in` of an earlier gap.
 *   - seq <= highest, within the window and seen: a duplicate (counted only
 *     as a duplicate, not as out of order).
 *   - seq <= highest - UDP_SEQ_WINDOW: older than the window, `too_late`.
 *     Whether it is a duplicate cannot be known any more; it is counted as
 *     unique, out of order and a fill-in, so a duplicate that late inflates
 *     `unique` by one (and the final loss is then one too low).
 *   - seq >= UDP_SEQ_INVALID (2^63): no sender numbers that far, so it is a
 *     corrupt or forged datagram; it is counted in `invalid` and otherwise
 *     ignored.
 *
 * Loss: the final figure is sent - unique, with the sender's count (see
 * udp_seq_final_loss). While the test runs, lost_so_far = gap_seqs -
 * fill_ins is the number of sequence numbers below the highest that have
 * not arrived yet; datagrams lost at the very end only show in the final
 * figure, and reordered ones are counted lost until they arrive.
 *
 * Cost: O(1) per in-order datagram; a gap clears at most UDP_SEQ_WINDOW bits
 * a word at a time, so even a forged jump to 10^12 costs one 8 KiB clear.
 * Nothing is allocated; the struct is 8,192 bytes of window plus 64 bytes of counters.
 *
 * Concurrency: one writer calls udp_seq_record; other threads may call
 * udp_seq_read at any time (the counters are relaxed atomics, written with
 * a load and a store by the single writer).
 */
#ifndef NETAB_MEASURE_UDP_SEQ_H
#define NETAB_MEASURE_UDP_SEQ_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "util/err.h"

#define UDP_SEQ_WINDOW 65536 /* bits: how far back duplicates are recognised */
#define UDP_SEQ_INVALID ((uint64_t)1 << 63)

struct udp_seq_counts {
    uint64_t unique;       /* distinct datagrams received (too_late included) */
    uint64_t duplicates;   /* copies of a datagram already received */
    uint64_t out_of_order; /* unique datagrams that came after a higher one */
    uint64_t too_late;     /* older than the window; also in out_of_order */
    uint64_t gap_seqs;     /* sequence numbers skipped over, summed */
    uint64_t fill_ins;     /* of those, how many arrived later */
    uint64_t lost_so_far;  /* gap_seqs - fill_ins, never negative */
    uint64_t invalid;      /* sequence numbers >= UDP_SEQ_INVALID, ignored */
    uint64_t next;         /* highest sequence number seen + 1; 0 if none */
};

struct udp_seq {
    _Atomic uint64_t unique, duplicates, out_of_order, too_late;
    _Atomic uint64_t gap_seqs, fill_ins, invalid, next;
    /* Bit (seq % UDP_SEQ_WINDOW) is set when seq, within the window, arrived. */
    uint64_t seen[UDP_SEQ_WINDOW / 64];
};

/* Starts the accounting of a new stream. */
void udp_seq_init(struct udp_seq *s);

/* udp_seq_record() for any datagram: in order, after a gap, late, duplicate or invalid. */
bool udp_seq_record_any(struct udp_seq *s, uint64_t seq);

/*
 * Accounts for one received datagram. Single writer. Returns true when it
 * counted as unique (too_late ones included), false for a duplicate or an
 * invalid number, so the caller need not read `unique` before and after.
 * The next number in order, nearly every datagram, is handled inline: its
 * ring bit is set, next and unique go up by one, and no gap is added.
 */
static inline bool udp_seq_record(struct udp_seq *s, uint64_t seq)
{
    uint64_t next = atomic_load_explicit(&s->next, memory_order_relaxed);
    if (seq != next || seq >= UDP_SEQ_INVALID)
        return udp_seq_record_any(s, seq);
    s->seen[(seq % UDP_SEQ_WINDOW) / 64] |= 1ULL << (seq % 64);
    atomic_store_explicit(&s->next, seq + 1, memory_order_relaxed);
    atomic_store_explicit(&s->unique, atomic_load_explicit(&s->unique, memory_order_relaxed) + 1,
                          memory_order_relaxed);
    return true;
}

/* Copies the counters (safe while another thread records). */
void udp_seq_read(const struct udp_seq *s, struct udp_seq_counts *out);

/*
 * The final loss against the sender's count: *lost = sent - unique. Returns
 * 0, or -ERANGE (with *lost = 0) when more unique datagrams arrived than
 * were sent, which the caller must report: a sender miscount, a forged
 * datagram, or duplicates older than the window.
 */
NB_MUST_CHECK int udp_seq_final_loss(const struct udp_seq *s, uint64_t sent, uint64_t *lost);

#endif
