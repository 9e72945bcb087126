/* Applies a test's socket options to a data connection. */
#ifndef NETAB_ENGINE_SOCKOPT_H
#define NETAB_ENGINE_SOCKOPT_H

#include <stddef.h>
#include <stdint.h>

#include "engine/params.h"
#include "util/err.h"

/*
 * Sets SO_SNDBUF/SO_RCVBUF (-w), TCP_MAXSEG (-M), TCP_NODELAY (-N) and
 * TCP_CONGESTION (-C) on fd. Returns 0 or -errno with a message naming the
 * option that the kernel refused.
 */
NB_MUST_CHECK int sockopt_apply(int fd, const struct test_params *p, char *err, size_t errlen);

/*
 * Sets SO_SNDBUF and SO_RCVBUF to sockbuf (-w; 0 leaves the kernel's
 * default). Returns 0 or -errno with a message.
 */
NB_MUST_CHECK int sockopt_buffers(int fd, uint32_t sockbuf, char *err, size_t errlen);

/* Pins the calling thread to cpu. Returns 0 or -errno. */
int sockopt_pin_thread(int cpu);

#endif
