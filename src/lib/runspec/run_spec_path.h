/*
 * send path (issue 32): the options of `netab run` that choose a tcp_stream
 * sender's path and pacing (engine/path_tx.h): their setters, their rows of
 * run_spec_opts[] (RUN_SPEC_PATH_TX_OPTS), the checks across options and
 * their canonical arguments for run_spec_to_argv().
 */
#ifndef NETAB_RUNSPEC_RUN_SPEC_PATH_H
#define NETAB_RUNSPEC_RUN_SPEC_PATH_H

#include <stddef.h>

#include "util/err.h"
#include "util/opttable.h"

struct run_spec;

/* -Z, --splice, --msg-zerocopy: the mode of the row's option; another one already given is refused.
 */
opt_setter run_spec_set_send_path;
/* --fq-rate RATE: bits/s with K/M/G, positive. */
opt_setter run_spec_set_fq_rate;
/* --notsent-lowat BYTES: a size with K/M/G, 1 byte to 1 GiB. */
opt_setter run_spec_set_notsent_lowat;

/* The rows, in --help's order: HEADING and the options (test_params' tx member). */
#define RUN_SPEC_PATH_TX_OPTS                                                                      \
    {"", 0, NULL, "Send path (tcp_stream; the sending end applies it, docs/paths.md):", NULL, 0,   \
     0,  0, NULL},                                                                                 \
        {"zerocopy",                                                                               \
         'Z',                                                                                      \
         NULL,                                                                                     \
         "send with sendfile() from a memfd (as iperf3 -Z)",                                       \
         run_spec_set_send_path,                                                                   \
         offsetof(struct run_spec, params.tx),                                                     \
         0,                                                                                        \
         0,                                                                                        \
         NULL},                                                                                    \
        {"splice",                                                                                 \
         0,                                                                                        \
         NULL,                                                                                     \
         "send with splice(): memfd -> pipe -> socket",                                            \
         run_spec_set_send_path,                                                                   \
         offsetof(struct run_spec, params.tx),                                                     \
         0,                                                                                        \
         0,                                                                                        \
         NULL},                                                                                    \
        {"msg-zerocopy",                                                                           \
         0,                                                                                        \
         NULL,                                                                                     \
         "send(MSG_ZEROCOPY), completions counted from the\nerror queue (loopback: the kernel "    \
         "copies)",                                                                                \
         run_spec_set_send_path,                                                                   \
         offsetof(struct run_spec, params.tx),                                                     \
         0,                                                                                        \
         0,                                                                                        \
         NULL},                                                                                    \
        {"fq-rate",                                                                                \
         0,                                                                                        \
         "RATE",                                                                                   \
         "SO_MAX_PACING_RATE per stream, bits/s with K/M/G\n(fq qdisc, else TCP's own pacing)",    \
         run_spec_set_fq_rate,                                                                     \
         offsetof(struct run_spec, params.tx),                                                     \
         0,                                                                                        \
         0,                                                                                        \
         NULL},                                                                                    \
    {                                                                                              \
        "notsent-lowat", 0, "BYTES", "TCP_NOTSENT_LOWAT on the senders' sockets",                  \
            run_spec_set_notsent_lowat, offsetof(struct run_spec, params.tx), 0, 0, NULL           \
    }

/*
 * The checks across options, in run_spec_parse(): -b with tcp_stream is
 * application pacing (moved into params.tx.pace_bps). Returns 0 or -EINVAL.
 */
NB_MUST_CHECK int run_spec_path_finish(struct run_spec *o, char *err, size_t errlen);

/* Appends the set options' canonical words to argv through push(a, word). */
void run_spec_path_argv(const struct run_spec *s, void (*push)(void *a, const char *word), void *a);

#endif
