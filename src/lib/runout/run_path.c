/* send path (issue 32): end.path and the text lines (run_path.h). */
#include "runout/run_path.h"

#include <inttypes.h>

#include "util/units.h"

static json_t *copy_or_null(const json_t *v)
{
    return v ? json_deep_copy(v) : json_null();
}

json_t *run_path_json(const struct run_result *r)
{
    if (!path_tx_params_used(&r->params.tx))
        return NULL;
    return json_pack("{s:s, s:o, s:o}", "send_path", path_tx_mode_name(r->params.tx.mode), "local",
                     copy_or_null(r->local.path), "remote", copy_or_null(r->remote.path));
}

static long long member(const json_t *o, const char *key)
{
    return (long long)json_integer_value(json_object_get(o, key));
}

static void print_zerocopy(FILE *f, const char *who, const json_t *z)
{
    long long done = member(z, "completions"), copied = member(z, "copied");
    fprintf(f, "path %-6s msg_zerocopy: %lld sends, %lld completed, %lld copied by the kernel\n",
            who, member(z, "sends"), done, copied);
    /* The figure a reader could take for zero-copy is not: say so. */
    if (done > 0 && copied == done)
        fprintf(f,
                "path %-6s the kernel copied every send: nothing went zero-copy (on loopback "
                "it always copies)\n",
                who);
}

static void print_rate(FILE *f, const char *who, const char *what, const json_t *asked,
                       const json_t *got, const char *got_name)
{
    char a[32], g[32];
    units_format_rate((double)json_integer_value(asked), a, sizeof(a));
    if (json_is_integer(got)) {
        units_format_rate((double)json_integer_value(got), g, sizeof(g));
        fprintf(f, "path %-6s %s %s asked, %s reads %s\n", who, what, a, got_name, g);
    } else
        fprintf(f, "path %-6s %s %s asked, %s unknown\n", who, what, a, got_name);
}

static void print_side(FILE *f, const char *who, const json_t *p)
{
    if (!p)
        return;
    fprintf(f, "path %-6s %s, %lld sending calls by %lld stream(s)\n", who,
            json_string_value(json_object_get(p, "send_path")), member(p, "calls"),
            member(p, "senders"));
    const json_t *z = json_object_get(p, "msg_zerocopy");
    if (z)
        print_zerocopy(f, who, z);
    const json_t *t = json_object_get(p, "tcp_rate");
    if (t) {
        char a[32];
        units_format_rate((double)member(t, "asked_bps"), a, sizeof(a));
        fprintf(f, "path %-6s -b %s per stream: %lld sends waited for the rate\n", who, a,
                member(t, "waits"));
    }
    const json_t *q = json_object_get(p, "fq_rate");
    if (q) {
        print_rate(f, who, "--fq-rate", json_object_get(q, "asked_bps"),
                   json_object_get(q, "max_pacing_rate_bps"), "SO_MAX_PACING_RATE");
        fprintf(f, "path %-6s (paced by the fq qdisc where the device has it, else by TCP)\n", who);
    }
    const json_t *l = json_object_get(p, "notsent_lowat");
    if (l)
        fprintf(f, "path %-6s --notsent-lowat %lld asked, TCP_NOTSENT_LOWAT reads %lld\n", who,
                member(l, "asked"), member(l, "read_back"));
}

void run_path_text(FILE *f, const struct run_result *r)
{
    if (!path_tx_params_used(&r->params.tx))
        return;
    print_side(f, "local", r->local.path);
    print_side(f, "remote", r->remote.path);
}
