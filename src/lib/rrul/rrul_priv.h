/* The latency-under-load test's parts shared by its two files (rrul.c, rrul_figures.c). */
#ifndef NETAB_RRUL_RRUL_PRIV_H
#define NETAB_RRUL_RRUL_PRIV_H

#include "engine/probe_log.h"
#include "rrul/rrul.h"

/* One load interval as its client reported it, placed on the clock. */
struct rrul_load_iv {
    uint64_t end_ns;
    double seconds;
    uint64_t sent, received;
    bool have_srtt;
    double srtt_us;
};

struct rrul_load_ivs {
    struct rrul_load_iv *v;
    size_t n, cap;
};

/* What the figures are computed from, once every part has ended. */
struct rrul_parts {
    const struct rrul_opts *o;
    struct probe_log *log;         /* both probes' */
    const struct run_result *load; /* the load's run */
    const struct rrul_load_ivs *ivs;
};

/*
 * The figures into res->rrul (have_rrul) and each of res's intervals (the
 * probes' run's). Returns 0 or -ENOMEM.
 */
int rrul_figures(const struct rrul_parts *parts, struct run_result *res);

#endif
