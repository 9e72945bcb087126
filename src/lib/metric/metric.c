/*
 * The table of a run's figures (metric.h). Each row is the one place where a
 * figure's name, document path, store column, unit and direction are written.
 */
#include "metric/metric.h"

#include <stdio.h>
#include <string.h>

#define CR (METRIC_COMPARE | METRIC_REPORT)
#define LAT (METRIC_RR | METRIC_CRR | METRIC_UNKNOWN)
#define TRAN (METRIC_RR | METRIC_CRR)
/* --flows figures (docs/json.md, end.flows): the spread across flows, each end's client side. */
#define FL (CR | METRIC_FLOWS)
#define FL_RR (TRAN | METRIC_UNKNOWN)
#define FL_TR "end.flows.transactions.client."
#define FL_B "end.flows.bytes."
/* rrul figures (docs/json.md, end.rrul): round trips of the probes, in us, shown in ms. */
#define RU (CR | METRIC_RRUL_FIGURE)
#define RU_L "end.rrul.loaded."

static const struct metric table[] = {
    {"throughput", "end.receiver.bits_per_second", "receiver_bps", "bit/s", false, METRIC_STREAMS,
     CR | METRIC_ALWAYS, "recv Mbit/s", "Receive throughput", "Mbit/s", 1e-6},
    {"sender_throughput", "end.sender.bits_per_second", "sender_bps", "bit/s", false,
     METRIC_STREAMS, CR | METRIC_ALWAYS, "send Mbit/s", "Send throughput", "Mbit/s", 1e-6},
    {"transactions", "end.transactions_per_second", "transactions_per_second", "1/s", false,
     METRIC_RR | METRIC_UNKNOWN, CR, "trans/s", "Transactions per second", "1/s", 1},
    {"connections", "end.connections_per_second", NULL, "1/s", false, METRIC_CRR, CR, "conn/s",
     "Connections per second", "1/s", 1},
    {"latency_p50", "end.latency_us.p50", "latency_p50_us", "us", true, LAT, CR, "p50 us",
     "Latency, median", "us", 1},
    {"latency_p99", "end.latency_us.p99", "latency_p99_us", "us", true, LAT, CR, "p99 us",
     "Latency, 99th percentile", "us", 1},
    {"loss", "end.receiver.lost_percent", "lost_percent", "%", true,
     METRIC_UDP_STREAM | METRIC_UNKNOWN, CR, "loss %", "UDP loss", "%", 1},
    {"cpu_local", "end.cpu.local.total_pct", "cpu_local_pct", "%", true, METRIC_ALL_KINDS,
     METRIC_REPORT, "CPU loc %", "CPU utilisation, local", "%", 1},
    {"cpu_remote", "end.cpu.remote.total_pct", "cpu_remote_pct", "%", true, METRIC_ALL_KINDS,
     METRIC_REPORT, "CPU rem %", "CPU utilisation, remote", "%", 1},
    /*
     * iperf3's figures (an --iperf3 peer, imported -J files): one process's CPU, % of one CPU;
     * never the same metric as the system-wide utilisation above.
     */
    {"cpu_local_process", "end.cpu.local_process.total_pct", NULL, "% of one CPU", true,
     METRIC_ALL_KINDS, METRIC_REPORT, "CPU loc proc %",
     "Local process CPU (iperf3's figure: one process, not system-wide; of one CPU)", "%", 1},
    {"cpu_remote_process", "end.cpu.remote_process.total_pct", NULL, "% of one CPU", true,
     METRIC_ALL_KINDS, CR, "CPU peer proc %",
     "Peer process CPU (iperf3's figure: one process, not system-wide; of one CPU)", "%", 1},
    /* UDP runs have a cost per received KiB too, as TCP runs do. */
    {"local_demand", "end.service_demand.local_us_per_kib", "local_us_per_kib", "us/KiB", true,
     METRIC_STREAMS, CR | METRIC_ALWAYS | METRIC_COST_SYSTEM, "loc us/KiB", "CPU cost, local",
     "us/KiB", 1},
    {"local_process_demand", "end.cpu.local.process_us_per_kib", "local_process_us_per_kib",
     "us/KiB", true, METRIC_STREAMS, CR | METRIC_ALWAYS | METRIC_COST_PROCESS, "loc proc us/KiB",
     "Process CPU cost, local", "us/KiB", 1},
    {"remote_demand", "end.service_demand.remote_us_per_kib", "remote_us_per_kib", "us/KiB", true,
     METRIC_STREAMS, CR | METRIC_ALWAYS, "rem us/KiB", "CPU cost, remote", "us/KiB", 1},
    {"remote_process_demand", "end.cpu.remote.process_us_per_kib", "remote_process_us_per_kib",
     "us/KiB", true, METRIC_STREAMS, CR | METRIC_ALWAYS, "rem proc us/KiB",
     "Process CPU cost, remote", "us/KiB", 1},
    {"local_demand_tran", "end.service_demand.local_us_per_tran", NULL, "us/tran", true, TRAN,
     CR | METRIC_COST_SYSTEM, "loc us/tran", "CPU cost per transaction, local", "us/tran", 1},
    {"local_process_demand_tran", "end.cpu.local.process_us_per_tran", NULL, "us/tran", true, TRAN,
     CR | METRIC_COST_PROCESS, "loc proc us/tran", "Process CPU cost per transaction, local",
     "us/tran", 1},
    {"remote_demand_tran", "end.service_demand.remote_us_per_tran", NULL, "us/tran", true, TRAN, CR,
     "rem us/tran", "CPU cost per transaction, remote", "us/tran", 1},
    {"remote_process_demand_tran", "end.cpu.remote.process_us_per_tran", NULL, "us/tran", true,
     TRAN, CR, "rem proc us/tran", "Process CPU cost per transaction, remote", "us/tran", 1},
    /*
     * --perf's hardware counters per KiB moved and per cycle (metric/perf.h): the cost of the
     * same bytes in cycles, the instructions each cycle retires, the code fetches that missed
     * the L1 instruction cache. Only runs with --perf on a machine with a PMU have them.
     */
    {"cycles_local", "end.perf.local.cycles_per_byte", NULL, "cycles/B", true, METRIC_STREAMS,
     METRIC_REPORT | METRIC_PERF, "loc cyc/KiB", "CPU cycles per KiB, local", "cycles/KiB", 1024},
    {"cycles_remote", "end.perf.remote.cycles_per_byte", NULL, "cycles/B", true, METRIC_STREAMS,
     METRIC_REPORT | METRIC_PERF, "rem cyc/KiB", "CPU cycles per KiB, remote", "cycles/KiB", 1024},
    {"ipc_local", "end.perf.local.ipc", NULL, "instructions/cycle", false, METRIC_ALL_KINDS,
     METRIC_REPORT | METRIC_PERF, "loc IPC", "Instructions per cycle, local", "IPC", 1},
    {"ipc_remote", "end.perf.remote.ipc", NULL, "instructions/cycle", false, METRIC_ALL_KINDS,
     METRIC_REPORT | METRIC_PERF, "rem IPC", "Instructions per cycle, remote", "IPC", 1},
    {"l1i_misses_local", "end.perf.local.l1i_misses_per_kib", NULL, "misses/KiB", true,
     METRIC_STREAMS, METRIC_REPORT | METRIC_PERF, "loc L1i miss/KiB",
     "L1-icache misses per KiB, local", "L1i misses/KiB", 1},
    {"l1i_misses_remote", "end.perf.remote.l1i_misses_per_kib", NULL, "misses/KiB", true,
     METRIC_STREAMS, METRIC_REPORT | METRIC_PERF, "rem L1i miss/KiB",
     "L1-icache misses per KiB, remote", "L1i misses/KiB", 1},
    /*
     * Not compared by compare; the report reads it (not shown unless named by --metric):
     * it says whether the local system-wide CPU figures can be believed.
     */
    {"cpu_others_local", "end.cpu.local.others_pct", NULL, "%", true, METRIC_ALL_KINDS,
     METRIC_REPORT | METRIC_POLLUTION, "others loc %", "Other processes' share of local busy CPU",
     "%", 1},
    /* Last, so that the figures before keep their places in every consumer. */
    {"fairness", FL_TR "fairness", NULL, "index", false, FL_RR, FL, "fairness",
     "Fairness across flows, Jain's index of transactions per flow", "index", 1},
    {"flow_transactions_min", FL_TR "min", NULL, "trans", false, FL_RR, FL, "flow min trans",
     "Transactions per flow, least", "trans", 1},
    {"flow_transactions_median", FL_TR "median", NULL, "trans", false, FL_RR, FL, "flow med trans",
     "Transactions per flow, median", "trans", 1},
    {"flows_with_nothing", FL_TR "flows_with_nothing", NULL, "flows", true, FL_RR, FL, "flows idle",
     "Flows without a transaction", "flows", 1},
    {"flow_latency_p99_median", "end.flows.latency_p99_us.median", NULL, "us", true, FL_RR, FL,
     "flow p99 med us", "Latency, 99th percentile of each flow, median over the flows", "us", 1},
    {"fairness_bytes", FL_B "fairness", NULL, "index", false, METRIC_STREAMS, FL, "fairness B",
     "Fairness across flows, Jain's index of bytes per flow", "index", 1},
    {"flow_bytes_min", FL_B "min", NULL, "bytes", false, METRIC_STREAMS, FL, "flow min MB",
     "Bytes per flow, least", "MB", 1e-6},
    {"flow_bytes_median", FL_B "median", NULL, "bytes", false, METRIC_STREAMS, FL, "flow med MB",
     "Bytes per flow, median", "MB", 1e-6},
    {"flows_without_bytes", FL_B "flows_with_nothing", NULL, "flows", true, METRIC_STREAMS, FL,
     "flows w/o bytes", "Flows that delivered no byte", "flows", 1},
    {"rrul_loaded_p50", RU_L "p50_us", NULL, "us", true, METRIC_RRUL, RU, "load p50 ms",
     "Probe round trip under load, median", "ms", 1e-3},
    {"rrul_loaded_p99", RU_L "p99_us", NULL, "us", true, METRIC_RRUL, RU, "load p99 ms",
     "Probe round trip under load, 99th percentile", "ms", 1e-3},
    {"rrul_idle_p50", "end.rrul.idle.p50_us", NULL, "us", true, METRIC_RRUL, RU, "idle p50 ms",
     "Probe round trip idle, median", "ms", 1e-3},
    {"rrul_increase_p50", "end.rrul.increase.p50_us", NULL, "us", true, METRIC_RRUL, RU,
     "incr p50 ms", "Probe round trip, median, increase from idle to loaded", "ms", 1e-3},
    {"rrul_increase_p99", "end.rrul.increase.p99_us", NULL, "us", true, METRIC_RRUL, RU,
     "incr p99 ms", "Probe round trip, 99th percentile, increase from idle to loaded", "ms", 1e-3},
    /* Responsiveness: 60000 / the trimmed mean (ms) of the loaded round trips (IETF RPM). */
    {"rpm", "end.rrul.rpm", NULL, "1/min", false, METRIC_RRUL, RU, "RPM",
     "Responsiveness under load (round trips per minute)", "1/min", 1},
    {"rrul_probe_loss", RU_L "loss_percent", NULL, "%", true, METRIC_RRUL, RU, "probe loss %",
     "Probe loss under load", "%", 1},
};
#define NTABLE (sizeof(table) / sizeof(table[0]))

const struct metric *metric_all(size_t *n)
{
    *n = NTABLE;
    return table;
}

const struct metric *metric_find(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < NTABLE; i++) {
        const char *p = table[i].path;
        if (!strcmp(name, table[i].name) || !strcmp(name, p) ||
            (!strncmp(p, "end.", 4) && !strcmp(name, p + 4)))
            return &table[i];
    }
    return NULL;
}

const struct metric *metric_by_column(const char *column)
{
    for (size_t i = 0; column && i < NTABLE; i++)
        if (table[i].column && !strcmp(column, table[i].column))
            return &table[i];
    return NULL;
}

const struct metric *metric_with_flag(unsigned flag, unsigned kind)
{
    for (size_t i = 0; i < NTABLE; i++)
        if ((table[i].flags & flag) && (table[i].kinds & kind))
            return &table[i];
    return NULL;
}

unsigned metric_kind_of(const char *test)
{
    static const struct {
        const char *name;
        unsigned kind;
    } kinds[] = {{"tcp_stream", METRIC_TCP_STREAM},
                 {"udp_stream", METRIC_UDP_STREAM},
                 {"tcp_rr", METRIC_RR},
                 {"udp_rr", METRIC_RR},
                 {"tcp_crr", METRIC_CRR},
                 {"rrul", METRIC_RRUL}};
    for (size_t i = 0; test && i < sizeof(kinds) / sizeof(kinds[0]); i++)
        if (!strcmp(test, kinds[i].name))
            return kinds[i].kind;
    return METRIC_UNKNOWN;
}

const char *metric_names(unsigned flag, char *buf, size_t len)
{
    size_t u = 0;
    if (len)
        buf[0] = '\0';
    for (size_t i = 0; i < NTABLE && u < len; i++)
        if (table[i].flags & flag)
            u += (size_t)snprintf(buf + u, len - u, "%s%s", u ? ", " : "", table[i].name);
    return buf;
}
