/*
 * Parsing of sizes, rates and durations given on the command line.
 *
 * netab follows iperf3: K/M/G are powers of 1024 for sizes and powers of
 * 1000 for rates; Ki/Mi/Gi are always powers of 1024, and lower-case k/m/g
 * behave like their capitals. Every function returns 0 or
 * -EINVAL / -ERANGE and then writes a sentence naming the bad value into err.
 */
#ifndef NETAB_UTIL_UNITS_H
#define NETAB_UTIL_UNITS_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

/* A byte count: "131072", "128K", "1M", "2Gi". Suffix K/M/G = 1024^n. */
NB_MUST_CHECK int units_parse_size(const char *s, uint64_t *out, char *err, size_t errlen);

/* A rate in bits/s: "100M", "1G", "1.5G", "10Mi". Suffix K/M/G = 1000^n, Ki/Mi/Gi = 1024^n. */
NB_MUST_CHECK int units_parse_rate(const char *s, uint64_t *out, char *err, size_t errlen);

/* Seconds, possibly fractional and non-negative: "10", "0.5". */
NB_MUST_CHECK int units_parse_seconds(const char *s, double *out, char *err, size_t errlen);

/* A decimal integer in [min, max]. */
NB_MUST_CHECK int units_parse_int(const char *s, long min, long max, long *out, char *err,
                                  size_t errlen);

/* Human formatting: "9.41 Gbit/s" (1000-based), "1.10 GiB" (1024-based). */
void units_format_rate(double bits_per_second, char *buf, size_t len);
void units_format_bytes(double bytes, char *buf, size_t len);

#endif
