/*
 * One `netab run` test from its specification: the result prepared and the
 * test run against the right server (run_spec.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "engine/flows.h"
#include "engine/path_rx.h"
#include "proto/auth.h"
#include "proto/client.h"
#include "proto/iperf3_client.h"
#include "proto/loopback.h"
#include "runspec/run_spec.h"
#include "util/printable.h"

void run_spec_result_init(const struct run_spec *spec, struct run_result *res)
{
    run_result_init(res);
    res->params = spec->params;
    res->in_process = spec->host == NULL;
    snprintf(res->server, sizeof(res->server), "%s",
             spec->host                        ? spec->host
             : spec->client.family == AF_INET6 ? "::1"
                                               : "127.0.0.1");
    res->port = spec->host ? spec->client.port : 0;
    res->per_flow = spec->per_flow;
    if (spec->rrul) {
        res->rrul_test = true;
        res->rrul.probe_rate = spec->rrul_opts.probe_rate;
        res->rrul.load_flows = spec->rrul_opts.load_flows;
        res->rrul.load = rrul_load_name(spec->rrul_opts.load);
        res->rrul_load = spec->params;
        res->rrul_load.streams = spec->rrul_opts.load_flows;
        res->rrul_load.reverse = spec->rrul_opts.load == RRUL_LOAD_DOWN;
        res->rrul_load.bidir = spec->rrul_opts.load == RRUL_LOAD_BOTH;
    }
}

/*
 * A UDP stream test in which some direction's receivers got none of the
 * datagrams its senders sent measured nothing: failures are data, so the run
 * fails (-EIO) with the counts in res->error instead of reporting 0 bit/s as
 * a result. Returns 0 otherwise.
 */
static int all_lost(struct run_result *res)
{
    if (res->params.kind != TEST_UDP_STREAM)
        return 0;
    for (int dir = 0; dir < 2; dir++) {
        struct direction_totals t;
        run_result_totals(res, dir, &t);
        if (t.sender_packets && !t.receiver_packets) {
            snprintf(
                res->error, sizeof(res->error), "100%% loss: %llu datagrams sent %s, none received",
                (unsigned long long)t.sender_packets, dir ? "from the server" : "to the server");
            return -EIO;
        }
    }
    return 0;
}

int run_spec_execute(struct run_spec *spec, struct run_result *res, bool *bad_key)
{
    struct auth_key *key = NULL;
    int rc = spec->auth_key_file
                 ? auth_key_load(spec->auth_key_file, &key, res->error, sizeof(res->error))
                 : 0;
    *bad_key = rc != 0;
    spec->client.auth_key = key;
    spec->client.host = spec->host;
    if (!rc && spec->params.flows)
        /* On loopback both ends' fds are this process's; a tcp_crr server's flow holds two. */
        rc = flows_reserve_fds(params_connections(&spec->params),
                               (spec->host ? 1 : 2) +
                                   (spec->params.kind == TEST_TCP_CRR && !spec->host),
                               res->error, sizeof(res->error));
    /* receive and socket paths (issue 32): a path this kernel lacks is refused before the run. */
    if (!rc && path_rx_any(&spec->params))
        rc = path_rx_preflight(&spec->params, res->error, sizeof(res->error));
    if (rc) {
        /* A bad key file, too few open files or a missing path: nothing is run; res->error says
         * why. */
    } else if (spec->rrul) {
        rc = rrul_run(&spec->client, spec->host, &spec->params, &spec->rrul_opts, res);
    } else if (spec->host && spec->client.iperf3) {
        rc = iperf3_client_run(&spec->client, &spec->params, res);
    } else if (spec->host) {
        rc = client_run(&spec->client, &spec->params, res);
    } else {
        rc = loopback_run(&spec->client, &spec->params, res);
    }
    auth_key_free(key);
    spec->client.auth_key = NULL;
    if (!rc)
        rc = all_lost(res);
    /* The error may quote a peer (netab's or iperf3's server): it is printed, so printable. */
    char shown[sizeof(res->error)];
    printable_copy(shown, sizeof(shown), res->error);
    memcpy(res->error, shown, sizeof(shown));
    return rc;
}
