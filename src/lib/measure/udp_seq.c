/* UDP sequence accounting; see udp_seq.h for the definitions. */
#include "measure/udp_seq.h"

#include <errno.h>
#include <string.h>

#define LD(p) atomic_load_explicit((p), memory_order_relaxed)
#define ST(p, v) atomic_store_explicit((p), (v), memory_order_relaxed)
/* The single writer increments with a load and a store; no locked instruction. */
#define INC(p, n) ST((p), LD(p) + (n))

_Static_assert(UDP_SEQ_WINDOW % 64 == 0, "the window is whole words");
_Static_assert(sizeof(struct udp_seq) == 8256, "udp_seq.h states the size");

void udp_seq_init(struct udp_seq *s)
{
    ST(&s->unique, 0);
    ST(&s->duplicates, 0);
    ST(&s->out_of_order, 0);
    ST(&s->too_late, 0);
    ST(&s->gap_seqs, 0);
    ST(&s->fill_ins, 0);
    ST(&s->invalid, 0);
    ST(&s->next, 0);
    memset(s->seen, 0, sizeof(s->seen));
}

/* Clears the n (<= UDP_SEQ_WINDOW) ring bits of sequence numbers from, from+1, ... */
static void clear_ring(uint64_t *seen, uint64_t from, uint64_t n)
{
    while (n) {
        unsigned pos = (unsigned)(from % UDP_SEQ_WINDOW);
        unsigned bit = pos % 64;
        uint64_t take = 64 - bit < n ? 64 - bit : n;
        uint64_t mask = (take == 64 ? ~0ULL : ((1ULL << take) - 1)) << bit;
        seen[pos / 64] &= ~mask;
        from += take;
        n -= take;
    }
}

bool udp_seq_record_any(struct udp_seq *s, uint64_t seq)
{
    if (seq >= UDP_SEQ_INVALID) {
        INC(&s->invalid, 1);
        return false;
    }
    uint64_t *word = &s->seen[(seq % UDP_SEQ_WINDOW) / 64];
    uint64_t bit = 1ULL << (seq % 64);
    uint64_t next = LD(&s->next);

    if (seq >= next) {
        /*
         * The ring positions of next..seq last held numbers that now fall out
         * of the window; clear them, then mark seq. In order, that is one bit.
         */
        uint64_t gap = seq - next;
        if (gap >= UDP_SEQ_WINDOW)
            memset(s->seen, 0, sizeof(s->seen));
        else if (gap)
            clear_ring(s->seen, next, gap);
        *word |= bit;
        ST(&s->next, seq + 1);
        INC(&s->gap_seqs, gap);
        INC(&s->unique, 1);
        return true;
    }
    if (next - 1 - seq >= UDP_SEQ_WINDOW) {
        /* Its bit has been reused; count it as a unique late arrival. */
        INC(&s->too_late, 1);
    } else if (*word & bit) {
        INC(&s->duplicates, 1);
        return false;
    } else {
        *word |= bit;
    }
    INC(&s->unique, 1);
    INC(&s->out_of_order, 1);
    INC(&s->fill_ins, 1);
    return true;
}

void udp_seq_read(const struct udp_seq *s, struct udp_seq_counts *out)
{
    out->unique = LD(&s->unique);
    out->duplicates = LD(&s->duplicates);
    out->out_of_order = LD(&s->out_of_order);
    out->too_late = LD(&s->too_late);
    out->gap_seqs = LD(&s->gap_seqs);
    out->fill_ins = LD(&s->fill_ins);
    out->invalid = LD(&s->invalid);
    out->next = LD(&s->next);
    /* Late duplicates counted as fill-ins can push fill_ins past gap_seqs. */
    out->lost_so_far = out->gap_seqs > out->fill_ins ? out->gap_seqs - out->fill_ins : 0;
}

int udp_seq_final_loss(const struct udp_seq *s, uint64_t sent, uint64_t *lost)
{
    uint64_t unique = LD(&s->unique);
    if (unique > sent) {
        *lost = 0;
        return -ERANGE;
    }
    *lost = sent - unique;
    return 0;
}
