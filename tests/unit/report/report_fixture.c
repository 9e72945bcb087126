/*
 * report_fixture DB MODE: records an experiment "fixture" in the store at DB
 * through the store API, for tests/integration/report_cli.sh. Two variants
 * (base, patched), two tcp_stream cells, one warm-up and five measured rounds,
 * one failed attempt. MODE "regress": patched receives 10 % less (a
 * deciding-metric regression); "same": both variants alike; "identity": alike,
 * but with build identities on both ends that share one kernel release and
 * differ in the local kernel's build ID and the remote module's srcversion.
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

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: report_fixture DB regress|same|identity\n");
        return 2;
    }
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
        if (i == 5)
            rc = record(db, exp, i, plan[i].variant, plan[i].cell, STORE_RUN_FAILED, 1, 1);
        if (!rc)
            rc = record(db, exp, i, plan[i].variant, plan[i].cell, STORE_RUN_OK,
                        plan[i].warmup ? mbps * 100 : mbps, 40 * wobble);
    }
    store_close(db);
    if (!rc)
        printf("%lld\n", (long long)exp);
    return rc ? 1 : 0;
}
