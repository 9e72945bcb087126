/* Monotonic time helpers. */
#ifndef NETAB_UTIL_CLOCK_H
#define NETAB_UTIL_CLOCK_H

#include <stdint.h>

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t clock_now_ns(void);

/* CLOCK_REALTIME in nanoseconds (the probe stamps between hosts, measure/clocksync.h). */
uint64_t clock_real_ns(void);

/* Milliseconds left until deadline_ns (0 when passed), for poll(). */
int clock_ms_until(uint64_t deadline_ns);

/* Sleeps until the monotonic time deadline_ns (returns at once if passed). */
void clock_sleep_until(uint64_t deadline_ns);

/* Wall-clock time as an ISO 8601 UTC string "2026-11-29T21:52:42Z". */
void clock_iso8601(char *buf, unsigned len);

#endif
