/*
 * Build identity of a host: which kernel build (not only which release) and
 * which build of the module that serves the test interface ran a test. Two
 * kernels built from different trees can share a `uname -r`; their build
 * IDs (the GNU build-id ELF note the linker writes) differ. See
 * docs/environment.md ("Build identity").
 *
 * Every capture function takes a root directory under which proc/, sys/ and
 * boot/ are read, so that unit tests run on fixture trees; NULL means the
 * real "/". Reads are bounded and non-blocking: the server captures its
 * identity after every test.
 */
#ifndef NETAB_MEASURE_IDENTITY_H
#define NETAB_MEASURE_IDENTITY_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/err.h"

/* Longest build ID accepted, in bytes (GNU ld writes 20: SHA-1; 16 for md5/uuid). */
#define IDENTITY_BUILD_ID_MAX 64
#define IDENTITY_HEX_LEN (2 * IDENTITY_BUILD_ID_MAX + 1)

/* The module of the interface; every string empty when unknown. */
struct identity_module {
    char name[64];                   /* "virtio_net"; empty: the interface has no driver */
    int builtin;                     /* 1 built into the kernel, 0 loadable, -1 unknown */
    char srcversion[64];             /* /sys/module/NAME/srcversion */
    char build_id[IDENTITY_HEX_LEN]; /* from /sys/module/NAME/notes/.note.gnu.build-id */
};

/* Every string is empty when the fact could not be read (JSON null). */
struct identity {
    char release[128];               /* proc/sys/kernel/osrelease (uname -r) */
    char version[512];               /* the whole of proc/version, without its newline */
    char build_id[IDENTITY_HEX_LEN]; /* from sys/kernel/notes, lower-case hex */
    char config_sha256[65];          /* of the kernel config text, lower-case hex */
    char config_source[320];         /* "/proc/config.gz" or "/boot/config-RELEASE" */
    char cmdline[4096];              /* proc/cmdline */
    char iface[64];                  /* the interface the module is that of; empty: none */
    struct identity_module module;
};

/*
 * Finds the GNU build-ID note (name "GNU", type NT_GNU_BUILD_ID) among the
 * ELF notes in buf[0..len) (Elf_Nhdr headers; names and descriptors padded
 * to 4 bytes, the layout of /sys/kernel/notes and of a module's
 * .note.gnu.build-id) and writes its descriptor as lower-case hex into hex
 * (hexlen >= IDENTITY_HEX_LEN). Pure: no I/O. Returns 0; -ENOENT when the
 * notes are well formed but hold no build ID; -EINVAL with a sentence in
 * err when a note is truncated, its sizes overflow or its build ID is empty
 * or longer than IDENTITY_BUILD_ID_MAX.
 */
NB_MUST_CHECK int identity_parse_build_id(const uint8_t *buf, size_t len, char *hex, size_t hexlen,
                                          char *err, size_t errlen);

/*
 * Fills id with this host's identity as seen under root (NULL: "/"), the
 * module being that of interface ifname (NULL or "lo": none). Never fails:
 * a fact that cannot be read stays empty.
 */
void identity_capture(struct identity *id, const char *root, const char *ifname);

/*
 * The name of the local interface that holds the local address of the
 * connected socket fd (getsockname, then getifaddrs; an IPv4-mapped IPv6
 * address counts as IPv4; a loopback address no interface holds exactly
 * gives "lo"). Returns 0 or a negative errno (-ENODEV: no interface).
 */
NB_MUST_CHECK int identity_iface_of_socket(int fd, char *ifname, size_t len);

/* identity_capture() of this host for the interface that carries socket fd. */
void identity_capture_socket(struct identity *id, int fd);

/*
 * The identity as the JSON object documented in docs/json.md ("identity"):
 * unknown facts are null. NULL only when out of memory. Caller has
 * ownership.
 */
json_t *identity_to_json(const struct identity *id);

/*
 * Decodes an identity received from a peer or read from the store, checking
 * every member: strings that fit, hex where hex is due, no control
 * characters. Missing members are unknown. Returns 0 or -EPROTO with a
 * sentence naming the member.
 */
NB_MUST_CHECK int identity_from_json(const json_t *obj, struct identity *id, char *err,
                                     size_t errlen);

/*
 * Writes the composite text of docs/environment.md: one "key: value" line
 * per fact in a fixed order (release, version, build_id, config_sha256,
 * cmdline, module), "unknown" for a fact not read. This is what `netab env
 * --identity` prints and what a DUT's `expect:` patterns match.
 */
void identity_write_text(const struct identity *id, FILE *f);

#endif
