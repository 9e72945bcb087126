/*
 * report_fixture DB MODE: records an experiment "fixture" in the store at DB
 * through the store API, for tests/integration/report_cli.sh. Two variants
 * (base, patched), two tcp_stream cells, one warm-up and five measured rounds,
 * one failed attempt. MODE "regress": patched receives 10 % less (a
 * deciding-metric regression); "same": both variants alike; "identity": alike,
 * but with build identities on both ends that share one kernel release and
 * differ in the local kernel's build ID and the remote module's srcversion.
 * MODE "matrix": three variants (a, b, c) over a 2x2 matrix, test
 * [tcp_stream, udp_stream] x streams [1, 4], four measured runs each (48),
 * every figure of the headline: b receives 5 % more over TCP, c 8 % less
 * over UDP with 4 streams, and c's CPU cost per KiB rises 10 % there.
 * MODE "rich": as "regress", with what the other modes leave empty, for
 * tests/integration/report_sections.py: counters (IPC and retransmissions
 * differ), CPU cost per KiB (patched's rises 10 %), turbo on in patched's
 * runs (an environment warning), and patched @ streams=4 failing in all
 * but one round with a reason (no verdict there: exit status 2).
 * Prints the experiment id.
 */
#include <stdio.h>
#include <string.h>

#include "store/store.h"

/* Mode "identity": the runs carry build identities (docs/json.md). */
static int with_identity;

/* The local identity in a run's environment snapshot (env_capture's "identity"). */
static const char *const env_identity[2] = {
    "{\"kernel\": \"6.1\", \"identity\": {\"release\": \"6.1.0-18-amd64\", \"build_id\": "
    "\"aa11aa11\", \"module\": null}}",
    "{\"kernel\": \"6.1\", \"identity\": {\"release\": \"6.1.0-18-amd64\", \"build_id\": "
    "\"bb22bb22\", \"module\": null}}",
};

/* The remote identity in a run's result (host.remote.identity). */
static const char *const remote_identity[2] = {
    "\"host\": {\"remote\": {\"identity\": {\"release\": \"6.2.0-1\", \"build_id\": \"cc33\", "
    "\"module\": {\"name\": \"virtio_net\", \"srcversion\": \"SRC1\", \"build_id\": null}}}}, ",
    "\"host\": {\"remote\": {\"identity\": {\"release\": \"6.2.0-1\", \"build_id\": \"cc33\", "
    "\"module\": {\"name\": \"virtio_net\", \"srcversion\": \"SRC2\", \"build_id\": null}}}}, ",
};

static int record(struct store *db, int64_t exp, int seq, const char *v, const char *c,
                  enum store_run_status st, double mbps, double cpu)
{
    char doc[1024], err[NB_ERRLEN];
    int64_t id;
    int p = strcmp(v, "base") != 0;
    snprintf(doc, sizeof(doc),
             "{%s\"test\": {\"test\": \"tcp_stream\"}, \"error\": null, \"end\": {"
             "\"receiver\": {\"bits_per_second\": %.6f}, \"sender\": {\"bits_per_second\": %.6f},"
             " \"cpu\": {\"local\": {\"total_pct\": %.4f}, \"remote\": {\"total_pct\": %.4f}}}}",
             with_identity ? remote_identity[p] : "", mbps * 1e6, mbps * 1.001e6, cpu, cpu / 2);
    const char *env = with_identity ? env_identity[p]
                      : p           ? "{\"kernel\": \"6.1-p\"}"
                                    : "{\"kernel\": \"6.1\"}";
    if (store_run_begin(db, exp, seq, v, c, NULL, env, &id, err, sizeof(err)) ||
        store_run_finish(db, id, st, st == STORE_RUN_OK ? 0 : 1, NULL, doc, err, sizeof(err))) {
        fprintf(stderr, "report_fixture: %s\n", err);
        return -1;
    }
    return 0;
}

/* One run of mode "rich": round k of variant patched? in cell (streams 4?). */
static int record_rich(struct store *db, int64_t exp, int seq, bool patched, bool four, int k)
{
    char doc[1024], err[NB_ERRLEN];
    int64_t id;
    double wobble = 1 + ((seq * 7) % 5 - 2) * 0.003;
    double mbps = (four ? 40000 : 20000) * wobble * (patched ? 0.9 : 1) * (k ? 1 : 100);
    double cost = 0.40 * (2 - wobble) * (patched ? 1.1 : 1);
    bool failed = patched && four && k >= 2;
    snprintf(doc, sizeof(doc),
             "{\"test\": {\"test\": \"tcp_stream\"}, \"error\": null, \"end\": {"
             "\"receiver\": {\"bits_per_second\": %.6f}, \"sender\": {\"bits_per_second\": %.6f},"
             " \"cpu\": {\"local\": {\"total_pct\": %.4f}, \"remote\": {\"total_pct\": %.4f}},"
             " \"service_demand\": {\"local_us_per_kib\": %.6f, \"remote_us_per_kib\": %.6f},"
             " \"perf\": {\"local\": {\"ipc\": %.4f}}, \"kernel\": {\"local\": {\"Tcp\": "
             "{\"RetransSegs\": %d}}}}}",
             mbps * 1e6, mbps * 1.001e6, 40 * wobble, 20 / wobble, cost, cost * 0.8,
             (patched ? 1.2 : 1.5) * wobble, patched ? 40 + seq % 3 : 10 + seq % 2);
    const char *env = patched ? "{\"kernel\": \"6.1-p\", \"turbo\": {\"enabled\": true}}"
                              : "{\"kernel\": \"6.1\", \"turbo\": {\"enabled\": false}}";
    const char *cell = four ? "streams=4" : "streams=1";
    if (store_run_begin(db, exp, seq, patched ? "patched" : "base", cell, NULL, env, &id, err,
                        sizeof(err)) ||
        store_run_finish(db, id, failed ? STORE_RUN_FAILED : STORE_RUN_OK, failed,
                         failed ? "the server refused the connection" : NULL, failed ? NULL : doc,
                         err, sizeof(err))) {
        fprintf(stderr, "report_fixture: %s\n", err);
        return -1;
    }
    return 0;
}

/* One run of mode "matrix": variant v (0..2) in cell (udp, streams 4?), round k. */
static int record_matrix(struct store *db, int64_t exp, int seq, int v, int udp, int four, int k)
{
    static const char *const names[] = {"a", "b", "c"};
    char doc[1024], err[NB_ERRLEN], cell[64];
    int64_t id;
    /* Deterministic spread, different in each set, so that no set has a zero variance. */
    double wobble = 1 + ((seq * 7 + k * 3) % 5 - 2) * 0.004;
    double mbps = (udp ? 900 : 940) * (four ? 3.9 : 1) * wobble;
    double cost = (udp ? 0.61 : 0.42) * (2 - wobble);
    if (v == 1 && !udp)
        mbps *= 1.05;
    if (v == 2 && udp && four) {
        mbps *= 0.92;
        cost *= 1.10;
    }
    snprintf(cell, sizeof(cell), "test=%s,streams=%d", udp ? "udp_stream" : "tcp_stream",
             four ? 4 : 1);
    snprintf(doc, sizeof(doc),
             "{\"test\": {\"test\": \"%s\"}, \"error\": null, \"end\": {"
             "\"receiver\": {\"bits_per_second\": %.6f%s}, \"sender\": {\"bits_per_second\": "
             "%.6f}, \"cpu\": {\"local\": {\"total_pct\": %.4f}, \"remote\": {\"total_pct\": "
             "%.4f}}, \"service_demand\": {\"local_us_per_kib\": %.6f, \"remote_us_per_kib\": "
             "%.6f}}}",
             udp ? "udp_stream" : "tcp_stream", mbps * 1e6, udp ? ", \"lost_percent\": 0.5" : "",
             mbps * 1.001e6, 40 * wobble, 20 / wobble, cost, cost * 0.8);
    if (store_run_begin(db, exp, seq, names[v], cell, NULL, "{\"kernel\": \"6.1\"}", &id, err,
                        sizeof(err)) ||
        store_run_finish(db, id, STORE_RUN_OK, 0, NULL, doc, err, sizeof(err))) {
        fprintf(stderr, "report_fixture: %s\n", err);
        return -1;
    }
    return 0;
}

static int matrix(const char *path)
{
    static const char spec[] =
        "{\"variants\": [{\"name\": \"a\"}, {\"name\": \"b\"}, {\"name\": \"c\"}], "
        "\"matrix\": [{\"key\": \"test\", \"values\": [\"tcp_stream\", \"udp_stream\"]}, "
        "{\"key\": \"streams\", \"values\": [1, 4]}]}";
    static const char *const names[] = {"a", "b", "c"};
    static char cells[4][64];
    struct store_plan_entry plan[48];
    int n = 0;
    for (int c = 0; c < 4; c++)
        snprintf(cells[c], sizeof(cells[c]), "test=%s,streams=%d",
                 c / 2 ? "udp_stream" : "tcp_stream", c % 2 ? 4 : 1);
    for (int k = 0; k < 4; k++)
        for (int c = 0; c < 4; c++)
            for (int v = 0; v < 3; v++, n++)
                plan[n] = (struct store_plan_entry){n, names[v], cells[c], false, k};
    struct store *db;
    char err[NB_ERRLEN];
    int64_t exp;
    if (store_open(path, STORE_OPEN_CREATE, &db, err, sizeof(err)) ||
        store_experiment_create(db, "matrix", NULL, spec, 7, plan, (size_t)n, &exp, err,
                                sizeof(err))) {
        fprintf(stderr, "report_fixture: %s\n", err);
        return 1;
    }
    int rc = 0;
    for (int i = 0; i < n && !rc; i++)
        rc = record_matrix(db, exp, i, i % 3, (i / 3) % 4 >= 2, (i / 3) % 2, i / 12);
    store_close(db);
    if (!rc)
        printf("%lld\n", (long long)exp);
    return rc ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: report_fixture DB regress|same|identity|matrix|rich\n");
        return 2;
    }
    if (!strcmp(argv[2], "matrix"))
        return matrix(argv[1]);
    bool rich = !strcmp(argv[2], "rich");
    double factor = strcmp(argv[2], "regress") ? 1.0 : 0.9;
    with_identity = !strcmp(argv[2], "identity");
    const char *variants[] = {"base", "patched"}, *cells[] = {"streams=1", "streams=4"};
    struct store_plan_entry plan[2 * 2 * 6];
    int n = 0;
    for (int round = 0; round < 6; round++)
        for (int c = 0; c < 2; c++)
            for (int v = 0; v < 2; v++, n++)
                plan[n] = (struct store_plan_entry){n, variants[v], cells[c], round == 0, round};
    struct store *db;
    char err[NB_ERRLEN];
    int64_t exp;
    if (store_open(argv[1], STORE_OPEN_CREATE, &db, err, sizeof(err)) ||
        store_experiment_create(db, "fixture", NULL,
                                "{\"variants\": [{\"name\": \"base\"}, {\"name\": \"patched\"}]}",
                                7, plan, (size_t)n, &exp, err, sizeof(err))) {
        fprintf(stderr, "report_fixture: %s\n", err);
        return 1;
    }
    int rc = 0;
    for (int i = 0; i < n && !rc; i++) {
        bool patched = !strcmp(plan[i].variant, "patched");
        double wobble = 1 + ((i * 7) % 5 - 2) * 0.003;
        double mbps = (plan[i].cell[8] == '4' ? 40000 : 20000) * wobble * (patched ? factor : 1);
        if (rich)
            rc = record_rich(db, exp, i, patched, plan[i].cell[8] == '4', plan[i].round);
        else if (i == 5)
            rc = record(db, exp, i, plan[i].variant, plan[i].cell, STORE_RUN_FAILED, 1, 1);
        if (!rc && !rich)
            rc = record(db, exp, i, plan[i].variant, plan[i].cell, STORE_RUN_OK,
                        plan[i].warmup ? mbps * 100 : mbps, 40 * wobble);
    }
    store_close(db);
    if (!rc)
        printf("%lld\n", (long long)exp);
    return rc ? 1 : 0;
}
