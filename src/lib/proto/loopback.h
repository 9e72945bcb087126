/*
 * The zero set-up test: netab's own server on loopback, in this process, on
 * an ephemeral port, serving exactly the one test this client runs.
 */
#ifndef NETAB_PROTO_LOOPBACK_H
#define NETAB_PROTO_LOOPBACK_H

#include "engine/params.h"
#include "engine/run_result.h"
#include "proto/client.h"

/*
 * Runs test p against an in-process server on 127.0.0.1 (::1 when
 * cfg->family is AF_INET6); cfg->host and cfg->port are ignored. The server
 * spends the caller's own memory, so it has no per-test send-buffer cap and
 * takes every stream the protocol allows. Sets res->in_process. Returns like
 * client_run().
 */
int loopback_run(const struct client_config *cfg, const struct test_params *p,
                 struct run_result *res);

#endif
