#include "compare/metrics.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "input/json_path.h"
#include "util/pattern.h"

static const struct compare_metric builtins[] = {
    {"throughput", "end.receiver.bits_per_second", "bit/s", false, true},
    {"sender_throughput", "end.sender.bits_per_second", "bit/s", false, true},
    {"local_demand", "end.service_demand.local_us_per_kib", "us/KiB", true, true},
    {"remote_demand", "end.service_demand.remote_us_per_kib", "us/KiB", true, true},
    {"latency_p50", "end.latency_us.p50", "us", true, false},
    {"latency_p99", "end.latency_us.p99", "us", true, false},
    {"loss", "end.receiver.lost_percent", "%", true, false},
    {"transactions", "end.transactions_per_second", "1/s", false, false},
    {"connections", "end.connections_per_second", "1/s", false, false},
    {"local_demand_tran", "end.service_demand.local_us_per_tran", "us/tran", true, false},
    {"remote_demand_tran", "end.service_demand.remote_us_per_tran", "us/tran", true, false},
    /* An iperf3 peer's CPU (--iperf3): its process's, % of one CPU; never system-wide CPU. */
    {"cpu_remote_process", "end.cpu.remote_process.total_pct", "% of one CPU", true, false},
};

const struct compare_metric *compare_builtin_metrics(size_t *n)
{
    *n = sizeof(builtins) / sizeof(builtins[0]);
    return builtins;
}

const struct compare_metric *compare_metric_find(const char *name)
{
    for (size_t i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++)
        if (!strcmp(name, builtins[i].name) || !strcmp(name, builtins[i].path))
            return &builtins[i];
    return NULL;
}

int compare_metric_from_json(const char *text, const char *path, double *out, char *err,
                             size_t errlen)
{
    json_error_t je;
    json_t *doc = json_loads(text, 0, &je);
    if (!doc)
        return err_set(err, errlen, EINVAL, "output is not one JSON document: %s (line %d)",
                       je.text, je.line);
    int rc = 0;
    json_t *v = input_json_path(doc, path);
    if (!v || json_is_null(v))
        rc = err_set(err, errlen, ENOENT, "the output has no '%s'", path);
    else if (!json_is_number(v) || !isfinite(json_number_value(v)))
        rc = err_set(err, errlen, EINVAL, "'%s' is not a finite number", path);
    else
        *out = json_number_value(v);
    json_decref(doc);
    return rc;
}

int compare_regex_check(const char *re, char *err, size_t errlen)
{
    struct pattern *p;
    int rc = pattern_compile(&p, re, 0, err, errlen);
    if (rc)
        return rc;
    size_t groups = pattern_groups(p);
    pattern_free(p);
    if (groups != 1)
        return err_set(err, errlen, EINVAL,
                       "'%s' has %zu capture groups; it needs exactly one around the number", re,
                       groups);
    return 0;
}

int compare_metric_from_regex(const char *text, const char *re, double *out, char *err,
                              size_t errlen)
{
    struct pattern *p;
    int rc = pattern_compile(&p, re, 0, err, errlen);
    if (rc)
        return rc;
    size_t m[4], so = 0, eo = 0, from = 0, end = strlen(text);
    bool found = false;
    while (from <= end && (rc = pattern_find(p, text, end, from, m, err, errlen)) == 1) {
        if (m[2] != SIZE_MAX) {
            found = true;
            so = m[2];
            eo = m[3];
        }
        from = pattern_next_from(m);
    }
    pattern_free(p);
    if (rc < 0)
        return rc;
    if (!found)
        return err_set(err, errlen, ENOENT, "no match for /%s/ in the output", re);
    char num[64];
    size_t len = eo - so;
    if (len == 0 || len >= sizeof(num))
        return err_set(err, errlen, EINVAL, "/%s/ captured %s", re,
                       len ? "a value too long to be a number" : "an empty string");
    memcpy(num, text + so, len);
    num[len] = '\0';
    char *e;
    errno = 0;
    double v = strtod(num, &e);
    if (e == num || *e || errno || !isfinite(v))
        return err_set(err, errlen, EINVAL, "/%s/ captured '%s', which is not a number", re, num);
    *out = v;
    return 0;
}
