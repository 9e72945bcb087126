/*
 * Strict checks of the counters a peer sends in its result: everything that
 * comes from the network is type- and range-checked before it is printed or
 * stored, as params_from_json() does for the test parameters.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/counters.h"

#define KERNEL_MAX_COUNTERS 8192

static bool good_name(const char *s, size_t max)
{
    size_t n = strlen(s);
    if (!n || n > max)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') ||
              (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
            return false;
    return true;
}

static bool good_cpu_key(const char *s)
{
    char *e;
    long v = strtol(s, &e, 10);
    return *s >= '0' && *s <= '9' && !*e && v >= 0 && v < PERCPU_MAX;
}

static bool check_softirqs(const json_t *s)
{
    if (json_is_null(s))
        return true;
    if (!json_is_object(s) || json_object_size(s) != 2)
        return false;
    static const char *const rows[] = {"NET_RX", "NET_TX"};
    for (int r = 0; r < 2; r++) {
        json_t *row = json_object_get(s, rows[r]);
        const char *k;
        json_t *v;
        if (!json_is_object(row) || json_object_size(row) > PERCPU_MAX)
            return false;
        json_object_foreach(row, k, v) if (!good_cpu_key(k) || !json_is_integer(v) ||
                                           json_integer_value(v) < 0) return false;
    }
    return true;
}

static bool check_iface(const json_t *i)
{
    static const char *const keys[] = {"rx_packets", "tx_packets", "rx_bytes",   "tx_bytes",
                                       "rx_errors",  "tx_errors",  "rx_dropped", "tx_dropped"};
    if (json_is_null(i))
        return true;
    const char *name = json_string_value(json_object_get(i, "name"));
    if (!json_is_object(i) || json_object_size(i) != 9 || !name || !*name ||
        strlen(name) >= KC_IFNAME_MAX || strchr(name, '/'))
        return false;
    for (int k = 0; k < 8; k++)
        if (!json_is_integer(json_object_get(i, keys[k])))
            return false;
    return true;
}

int counters_kernel_check(const json_t *k, char *err, size_t errlen)
{
    const char *g;
    json_t *grp;
    size_t total = 0;
    if (!json_is_object(k))
        return err_set(err, errlen, EPROTO, "peer's kernel counters are not an object");
    json_object_foreach((json_t *)k, g, grp)
    {
        if (!strcmp(g, "softirqs") || !strcmp(g, "interface")) {
            if (!(g[0] == 's' ? check_softirqs(grp) : check_iface(grp)))
                return err_set(err, errlen, EPROTO, "peer's kernel %s figures are malformed", g);
            continue;
        }
        const char *c;
        json_t *v;
        if (!good_name(g, 31) || !json_is_object(grp))
            return err_set(err, errlen, EPROTO,
                           "peer's kernel counter group \"%.32s\" is malformed", g);
        json_object_foreach(grp, c, v)
        {
            if (!good_name(c, KC_NAME_MAX - 1 - strlen(g) - 1) || !json_is_integer(v) ||
                ++total > KERNEL_MAX_COUNTERS)
                return err_set(err, errlen, EPROTO,
                               "peer's kernel counter %.32s.%.64s is malformed", g, c);
        }
    }
    return 0;
}

static bool is_counter(const char *k)
{
    for (int i = 0; i < PERFCTR_COUNT; i++)
        if (!strcmp(k, perfctr_name(i)))
            return true;
    return !strcmp(k, "cpu_clock");
}

static bool num_or_null(const json_t *v)
{
    return json_is_null(v) ||
           (json_is_number(v) && isfinite(json_number_value(v)) && json_number_value(v) >= 0);
}

/* One target's members: counters, "unavailable" reasons, "multiplexed" fractions. */
static bool check_target(const json_t *o, bool system)
{
    const char *k;
    json_t *v;
    int counters = 0;
    json_object_foreach((json_t *)o, k, v)
    {
        if (is_counter(k)) {
            if (!num_or_null(v) || (system ? !strcmp(k, "task_clock") : !strcmp(k, "cpu_clock")))
                return false;
            counters++;
        } else if (!strcmp(k, "unavailable") || !strcmp(k, "multiplexed")) {
            const char *n;
            json_t *x;
            if (!json_is_object(v))
                return false;
            json_object_foreach(v, n, x)
            {
                if (!is_counter(n))
                    return false;
                if (k[0] == 'u' ? !json_is_string(x) || strlen(json_string_value(x)) > 127
                                : !json_is_number(x) || !(json_number_value(x) >= 0) ||
                                      json_number_value(x) > 1)
                    return false;
            }
        } else if (system && !strcmp(k, "cpu")) {
            if (!json_is_integer(v) || json_integer_value(v) < 0 ||
                json_integer_value(v) >= PERCPU_MAX)
                return false;
        } else if (system || (strcmp(k, "ipc") && strcmp(k, "cycles_per_byte") &&
                              strcmp(k, "instructions_per_kib") && strcmp(k, "branch_miss_pct") &&
                              strcmp(k, "cpus_used") && strcmp(k, "scope") &&
                              strcmp(k, "collection_us") && strcmp(k, "system"))) {
            return false;
        } else if (!strcmp(k, "scope")    ? !json_is_string(v)
                   : !strcmp(k, "system") ? !json_is_null(v) && !check_target(v, true)
                                          : !num_or_null(v)) {
            return false;
        }
    }
    return counters == PERFCTR_COUNT;
}

int counters_perf_check(const json_t *p, char *err, size_t errlen)
{
    if (!json_is_object(p) || !check_target(p, false))
        return err_set(err, errlen, EPROTO, "peer's perf counters are malformed");
    return 0;
}
