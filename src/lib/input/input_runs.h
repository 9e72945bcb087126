/*
 * Whole runs of other tools, for `netab import` (docs/store.md): each run an
 * iperf3 -J document or an iperf2 text report holds, with its throughput and
 * where it came from, turned into a document shaped like `netab run --json`
 * so that the results store and `netab report` treat it as one of netab's.
 *
 * The values are the ones `netab stats` reads from the same files
 * (docs/stats.md): iperf3's receiver view (end.sum_received; end.sum for old
 * UDP documents without it), and iperf2's [SUM] or single stream's final
 * line, for UDP the server report. Pure computation: nothing is read here.
 */
#ifndef NETAB_INPUT_INPUT_RUNS_H
#define NETAB_INPUT_INPUT_RUNS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "input/input.h"
#include "util/err.h"

/* One imported run. */
struct input_run {
    enum input_format tool; /* INPUT_IPERF3, INPUT_IPERF2 or INPUT_PLAIN */
    size_t index;           /* 0-based place among the file's runs */
    size_t line;         /* iperf3: the line its document starts on; plain: its line; iperf2: 0 */
    const char *test;    /* "tcp_stream" or "udp_stream" (static) */
    double receiver_bps; /* the run's throughput as netab stats reads it */
    double sender_bps;   /* iperf3: end.sum_sent (TCP) or the sender's sum; else NAN */
    double lost_percent; /* UDP: the receiver's loss; else NAN */
    double jitter_ms;    /* UDP: the receiver's jitter; else NAN */
    /* iperf3: end.cpu_utilization_percent.host_total, the process's CPU; else NAN */
    double cpu_local_pct;
    double cpu_remote_pct; /* iperf3: ...remote_total, the peer process's; else NAN */
    double timesecs;       /* iperf3: start.timestamp.timesecs (Unix time); else NAN */
    char kernel[96];       /* iperf3: the release in start.system_info ("Linux host REL ..."); "" */
    json_t *original;      /* iperf3: the document itself (owned); iperf2: NULL */
    /* plain: the failure word written instead of a number ("-EINTR"); "" for a number */
    char failed[INPUT_FAIL_WORD_MAX + 1];
    bool order_unknown; /* the file's order says nothing of run order (recorded as such) */
};

/*
 * Reads every run of buf[0..len-1] (NUL-terminated; name is used in
 * messages) as format f: INPUT_IPERF3, INPUT_IPERF2, INPUT_PLAIN (one
 * number per line, as `netab stats` reads them, each a run whose
 * throughput it is, a failure word a failed run) or INPUT_AUTO (JSON
 * when it starts with '{', or with '[' followed by '{', '[' or ']', as
 * `netab stats` detects it; else iperf2).
 * A file without any run, a JSON document that is not iperf3's (a netab
 * document is named as such), a run that reported an error or has no
 * finite throughput is -EINVAL with "name:line: ..." in err. On success
 * *out (caller has ownership; input_runs_free()) holds *n >= 1 runs.
 */
NB_MUST_CHECK int input_runs_parse(const char *name, const char *buf, size_t len,
                                   enum input_format f, struct input_run **out, size_t *n,
                                   char *err, size_t errlen);

void input_runs_free(struct input_run *runs, size_t n);

/*
 * The run as a document shaped like `netab run --json` (docs/store.md,
 * "Imported runs"): "import" {tool, file, index, line, order ("run" or
 * "unknown")}, "test" {"test"}, "error" (a failed run's word, else null),
 * "end" with the headline figures, "host" {"local": {"kernel"}} when the
 * kernel release is known, and the original: "iperf3" (the
 * document) or "iperf2_text" (text, the whole file; with text NULL,
 * "iperf2_text_in_index": 0 says the file's first run holds it). file is
 * recorded as given. NULL when out of memory; caller has ownership.
 */
json_t *input_run_document(const struct input_run *r, const char *file, const char *text);

#endif
