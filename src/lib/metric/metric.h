/*
 * The figures of a run: every number of a `netab run --json` document that
 * netab stores, compares or reports, described once. The store's headline
 * columns, `netab compare`'s named metrics, the campaign report's metric
 * tables and the `--metric` help and validation all derive from metric_all();
 * a new figure is one row in metric.c. A stored one (a column) also needs a
 * migration (store_schema.c) and its field in struct store_run with its
 * binding in store_query.c; tests/unit/metric checks that the store's
 * columns and this table's are the same set, filled from the same paths. A
 * leaf module: it uses util (and jansson, for the spec reader) only.
 */
#ifndef NETAB_METRIC_METRIC_H
#define NETAB_METRIC_METRIC_H

#include <stdbool.h>
#include <stddef.h>

/* The test kinds a figure applies to (bits). */
enum metric_kind {
    METRIC_TCP_STREAM = 1 << 0,
    METRIC_UDP_STREAM = 1 << 1,
    METRIC_RR = 1 << 2,  /* tcp_rr, udp_rr */
    METRIC_CRR = 1 << 3, /* tcp_crr */
    METRIC_UNKNOWN = 1 << 4,
    METRIC_RRUL = 1 << 5, /* rrul: latency under load */
    METRIC_STREAMS = METRIC_TCP_STREAM | METRIC_UDP_STREAM | METRIC_UNKNOWN,
    METRIC_ALL_KINDS = METRIC_STREAMS | METRIC_RR | METRIC_CRR | METRIC_RRUL,
};

/* Which consumers list a figure by default, and its role (bits). */
enum metric_flag {
    METRIC_COMPARE = 1 << 0,     /* one of `netab compare`'s named metrics */
    METRIC_REPORT = 1 << 1,      /* one of the campaign report's built-in metrics */
    METRIC_ALWAYS = 1 << 2,      /* in every tcp_stream result (compare prints it even if absent) */
    METRIC_COST_SYSTEM = 1 << 3, /* the local end's system-wide CPU cost (/proc/stat busy) */
    METRIC_COST_PROCESS = 1 << 4, /* the local end's process CPU cost (getrusage) */
    METRIC_POLLUTION = 1 << 5,    /* other processes' share of the local system-wide busy time */
    /*
     * A --flows figure (end.flows): a run without flows has none, so reports and
     * compare's JSON list it only where some run has it, never as an empty column.
     */
    METRIC_FLOWS = 1 << 6,
    /* An rrul figure (end.rrul): only rrul runs have one, so it is listed as a --flows one is. */
    METRIC_RRUL_FIGURE = 1 << 7,
    /*
     * A --perf hardware-counter figure (metric/perf.h): listed, as a --flows one, only where
     * some run has it; where none has, the report says why in words (no PMU, ...).
     */
    METRIC_PERF = 1 << 8,
    /* The figures listed only where some run has them (compare's JSON, the report's metrics). */
    METRIC_WHERE_PRESENT = METRIC_FLOWS | METRIC_RRUL_FIGURE | METRIC_PERF,
};

struct metric {
    const char *name;   /* "throughput": what --metric accepts */
    const char *path;   /* dotted path into the run document: "end.receiver.bits_per_second" */
    const char *column; /* the store's runs column, or NULL when not stored */
    const char *unit;   /* of the document's value: "bit/s", "us/KiB", "%", "us", "1/s" */
    bool lower_is_better;
    unsigned kinds;      /* enum metric_kind bits */
    unsigned flags;      /* enum metric_flag bits */
    const char *label;   /* short table label, e.g. "recv Mbit/s" */
    const char *title;   /* heading, e.g. "Receive throughput" */
    const char *display; /* display unit, e.g. "Mbit/s" */
    double scale;        /* document value * scale = displayed value */
};

/* Every figure, in report order; *n receives the count. Static storage. */
const struct metric *metric_all(size_t *n);

/*
 * The figure called name: its name, its full path, or its path without the
 * leading "end." ("cpu.local.process_us_per_kib"). NULL when there is none.
 */
const struct metric *metric_find(const char *name);

/* The figure whose store column is column, or NULL. */
const struct metric *metric_by_column(const char *column);

/*
 * The one figure that has flag (METRIC_COST_SYSTEM, METRIC_COST_PROCESS,
 * METRIC_POLLUTION) and applies to a test of kind (one enum metric_kind
 * bit), or NULL.
 */
const struct metric *metric_with_flag(unsigned flag, unsigned kind);

/*
 * "tcp_stream" -> METRIC_TCP_STREAM, ..., "rrul" -> METRIC_RRUL;
 * METRIC_UNKNOWN for NULL or anything else.
 */
unsigned metric_kind_of(const char *test);

/*
 * Writes the names of the figures that have flag into buf as "a, b, c"
 * (truncated to len). Returns buf.
 */
const char *metric_names(unsigned flag, char *buf, size_t len);

#endif
