/*
 * bare_paths: the send and receive paths of bench/bare (--path,
 * --skip-rx-copy), each the bare loop of the system calls netab's path of
 * the same name makes (docs/paths.md), and nothing else: the ceiling that
 * netab's path is measured against.
 */
#ifndef BARE_PATHS_H
#define BARE_PATHS_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

enum bare_path {
    BARE_COPY,         /* send() */
    BARE_SENDFILE,     /* sendfile() from a memfd holding one block (netab -Z) */
    BARE_SPLICE,       /* splice() memfd -> pipe -> socket (netab --splice) */
    BARE_MSG_ZEROCOPY, /* send(MSG_ZEROCOPY) from a ring of 16 blocks (netab --msg-zerocopy) */
    BARE_IO_URING,     /* IORING_OP_SEND / IORING_OP_RECV, 4 in flight (netab --io-uring) */
    BARE_IO_URING_ZC,  /* IORING_OP_SEND_ZC, receives as BARE_IO_URING (netab --io-uring=zc) */
};

/* What a sender's kernel did, summed over the pairs for the output line. */
struct bare_path_stats {
    uint64_t calls;          /* sending system calls or io_uring sends that completed */
    uint64_t zc_completions; /* zero-copy sends the kernel reported done */
    uint64_t zc_copied;      /* ... of which it copied anyway */
};

/* The path named NAME ("copy", "sendfile", ...), or -1. */
int bare_path_parse(const char *name);
const char *bare_path_name(enum bare_path path);

/*
 * Sends BLOCK bytes of BUF at a time over FD by PATH until *STOP, then waits
 * for what the kernel still holds of its sends. Returns 0 or an errno value.
 */
int bare_path_send(enum bare_path path, int fd, const char *buf, size_t block,
                   const atomic_bool *stop, struct bare_path_stats *st);

/*
 * Receives over FD with io_uring (4 receives of BUF in flight, recv FLAGS)
 * until end-of-stream, storing the running total in *RECEIVED. 0 or errno.
 */
int bare_path_uring_recv(int fd, char *buf, size_t len, int flags, _Atomic uint64_t *received);

#endif
