/* The receive and socket paths' lines of the text summary (run_text_path_rx.h). */
#include "runout/run_text_path_rx.h"

#include <jansson.h>

static long long num(const json_t *o, const char *key)
{
    return (long long)json_integer_value(json_object_get(o, key));
}

/* "on", "off", or what null means for a figure the kernel did not give. */
static const char *state(const json_t *v, const char *if_null)
{
    return json_is_null(v) || !v ? if_null : json_is_true(v) ? "on" : "off";
}

static void busy_poll(FILE *f, const json_t *b)
{
    const json_t *got = json_object_get(b, "so_busy_poll_us");
    const json_t *budget = json_object_get(b, "budget");
    fprintf(f, "SO_BUSY_POLL %lld us asked, ", num(b, "asked_us"));
    if (json_is_integer(got))
        fprintf(f, "%lld us read back", (long long)json_integer_value(got));
    else
        fprintf(f, "not read back");
    fprintf(f, ", SO_PREFER_BUSY_POLL %s",
            state(json_object_get(b, "prefer_busy_poll"), "not available"));
    if (json_is_integer(budget))
        fprintf(f, ", budget %lld", (long long)json_integer_value(budget));
    else
        fprintf(f, ", budget not taken");
}

static void mptcp(FILE *f, const json_t *m)
{
    const json_t *sub = json_object_get(m, "subflows");
    fprintf(f, "MPTCP on %lld of %lld connections, subflows", num(m, "mptcp"),
            num(m, "connections"));
    size_t i;
    const json_t *v;
    json_array_foreach(sub, i, v)
    {
        if (json_is_integer(v))
            fprintf(f, "%s%lld", i ? "," : " ", (long long)json_integer_value(v));
        else
            fprintf(f, "%s?", i ? "," : " ");
    }
    if (num(m, "fallback"))
        fprintf(f, " (%lld fell back to TCP)", num(m, "fallback"));
}

static void uring(FILE *f, const json_t *u)
{
    fprintf(f, "io_uring %s, %lld in flight, %lld operations",
            json_string_value(json_object_get(u, "mode")), num(u, "depth"), num(u, "completed"));
    const json_t *notifs = json_object_get(u, "zc_notifications");
    if (!notifs)
        return;
    const json_t *copied = json_object_get(u, "zc_copied");
    fprintf(f, ", %lld zero-copy notifications", (long long)json_integer_value(notifs));
    if (json_is_integer(copied))
        fprintf(f, ", %lld of them copied by the kernel", (long long)json_integer_value(copied));
    else
        fprintf(f, ", copies not reported by this kernel");
}

static void side(FILE *f, const char *label, const json_t *p)
{
    if (!json_is_object(p))
        return;
    const char *sep = "";
    fprintf(f, "rx path %-6s ", label);
    const json_t *v;
    if ((v = json_object_get(p, "skip_rx_copy"))) {
        long long n = num(v, "receivers");
        if (n)
            fprintf(f, "recv MSG_TRUNC on %lld receiver%s (counted, not copied)", n,
                    n == 1 ? "" : "s");
        else
            fprintf(f, "skip-rx-copy: this end only sends");
        sep = "; ";
    }
    if ((v = json_object_get(p, "busy_poll"))) {
        fputs(sep, f);
        busy_poll(f, v);
        sep = "; ";
    }
    if ((v = json_object_get(p, "mptcp"))) {
        fputs(sep, f);
        mptcp(f, v);
        sep = "; ";
    }
    if ((v = json_object_get(p, "io_uring"))) {
        fputs(sep, f);
        uring(f, v);
    }
    fputc('\n', f);
}

void run_text_path_rx(FILE *f, const struct run_result *r)
{
    side(f, "local", r->have_local ? r->local.rx_path : NULL);
    side(f, "remote", r->have_remote ? r->remote.rx_path : NULL);
}
