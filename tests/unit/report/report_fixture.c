/*
 * report_fixture DB MODE: records an experiment "fixture" in the store at DB
 * through the store API, for tests/integration/report_cli.sh. Two variants
 * (base, patched), two tcp_stream cells, one warm-up and five measured rounds,
 * one failed attempt. MODE "regress": patched receives 10 % less (a
 * deciding-metric regression); "same": both variants alike. Prints the
 * experiment id.
 */
#include <stdio.h>
#include <string.h>

#include "store/store.h"

static int record(struct store *db, int64_t exp, int seq, const char *v, const char *c,
                  enum store_run_status st, double mbps, double cpu)
{
    char doc[512], err[NB_ERRLEN];
    int64_t id;
    snprintf(doc, sizeof(doc),
             "{\"test\": {\"test\": \"tcp_stream\"}, \"error\": null, \"end\": {"
             "\"receiver\": {\"bits_per_second\": %.6f}, \"sender\": {\"bits_per_second\": %.6f},"
             " \"cpu\": {\"local\": {\"total_pct\": %.4f}, \"remote\": {\"total_pct\": %.4f}}}}",
             mbps * 1e6, mbps * 1.001e6, cpu, cpu / 2);
    const char *env = strcmp(v, "base") ? "{\"kernel\": \"6.1-p\"}" : "{\"kernel\": \"6.1\"}";
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
        fprintf(stderr, "usage: report_fixture DB regress|same\n");
        return 2;
    }
    double factor = strcmp(argv[2], "regress") ? 1.0 : 0.9;
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
