/*
 * Blocking socket I/O bounded by a deadline. Every read netab does on a
 * control or handshake path goes through these, so a silent peer can delay
 * one connection's thread by at most its timeout and never hang a server.
 */
#ifndef NETAB_UTIL_IO_H
#define NETAB_UTIL_IO_H

#include <stddef.h>
#include <stdint.h>

#include "util/err.h"

/*
 * Reads exactly len bytes before deadline_ns (CLOCK_MONOTONIC). Returns 0,
 * -ETIMEDOUT, -ECONNRESET when the peer closed first (*got says how many
 * bytes arrived; may be NULL), or another -errno.
 */
NB_MUST_CHECK int io_read_full(int fd, void *buf, size_t len, uint64_t deadline_ns, size_t *got);

/* Writes exactly len bytes before deadline_ns. Returns 0, -ETIMEDOUT or -errno. */
NB_MUST_CHECK int io_write_full(int fd, const void *buf, size_t len, uint64_t deadline_ns);

#endif
