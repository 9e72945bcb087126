/*
 * Which clock the latency-under-load test's probe stamps use, and whether
 * the one-way delays they give mean anything (issue 31; docs/rrul.md,
 * "One-way delay"). A one-way delay subtracts a time read on one host from
 * a time read on the other, so it is only as good as the agreement of the
 * two clocks:
 *
 * - The same boot id (/proc/sys/kernel/random/boot_id) is the same running
 *   kernel, so the same CLOCK_MONOTONIC, across network namespaces too;
 *   only a time namespace (/proc/self/ns/time, Linux 5.6) offsets it, so
 *   both ends' time namespaces must be the same one as well. The stamps are
 *   then CLOCK_MONOTONIC and the delays exact.
 * - Different hosts: the stamps are CLOCK_REALTIME, and the delays count
 *   only when each end's kernel says its clock is synchronised
 *   (adjtimex(): STA_UNSYNC clear) and the sum of the two maxerror bounds,
 *   the largest the two clocks can differ, is at most a tenth of the idle
 *   phase's smaller one-way p50 (CLOCK_SYNC_SHARE).
 *
 * The server sends its clock_info in "accept" (docs/protocol.md, addition
 * 6); the client chooses, before its first probe, and judges after the run.
 */
#ifndef NETAB_MEASURE_CLOCKSYNC_H
#define NETAB_MEASURE_CLOCKSYNC_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

#define CLOCK_BOOT_ID_LEN 36 /* the kernel's form: 8-4-4-4-12 lower-case hex digits */

/* The error bound may be at most this share of the idle phase's smaller one-way p50. */
#define CLOCK_SYNC_SHARE 0.1

struct clock_info {
    char boot_id[CLOCK_BOOT_ID_LEN + 1]; /* "" when unreadable */
    uint64_t time_ns;                    /* the time namespace's inode; 0 = none (before 5.6) */
    bool have_adj;                       /* adjtimex() answered */
    bool synced;                         /* STA_UNSYNC clear */
    int64_t maxerror_us, esterror_us;    /* adjtimex()'s, µs */
};

enum stamp_clock { STAMP_NONE, STAMP_MONOTONIC, STAMP_REALTIME };

/* This host's clock_info. */
void clock_info_capture(struct clock_info *ci);

/* "accept"'s "clock" member; a new reference. */
json_t *clock_info_to_json(const struct clock_info *ci);

/*
 * Reads a "clock" member; -EPROTO with the reason in err when it is
 * malformed (a boot id of another form, a negative or absurd bound).
 */
NB_MUST_CHECK int clock_info_from_json(const json_t *j, struct clock_info *ci, char *err,
                                       size_t len);

/*
 * The clock the stamps use: MONOTONIC when both ends read one clock,
 * REALTIME when both report a synchronised clock, else NONE (the probes ask
 * for no stamp). peer NULL: a server that sent no clock_info (before
 * addition 6). reason gets why not, or what the stamps are.
 */
enum stamp_clock clock_choose(const struct clock_info *local, const struct clock_info *peer,
                              char *reason, size_t len);

/*
 * The server's "accept" read: its "clock" member into *peer (*have_peer
 * false without one: an older server) and the choice as clock_choose()'s.
 * Returns 0, or -EPROTO with err when the member is malformed.
 */
NB_MUST_CHECK int clock_from_accept(const json_t *accept, const struct clock_info *local,
                                    struct clock_info *peer, bool *have_peer, enum stamp_clock *c,
                                    char *reason, size_t rlen, char *err, size_t elen);

/*
 * After the run: whether the one-way delays of stamps on clock c count,
 * given the idle phase's up and down p50 (µs, NAN when none). reason is
 * replaced by the verdict's when it changes.
 */
bool clock_judge(enum stamp_clock c, const struct clock_info *local, const struct clock_info *peer,
                 double idle_up_p50_us, double idle_down_p50_us, char *reason, size_t len);

#endif
