#include "runout/run_text_counters.h"

#include "runout/run_text.h"
#include "util/units.h"

void run_text_pinned(FILE *f, const struct run_result *r, uint64_t bytes)
{
    const struct side_report *sides[2] = {&r->local, &r->remote};
    for (int k = 0; k < 2; k++) {
        const struct percpu_usage *u = side_report_pinned_usage(sides[k]);
        if (!u)
            continue;
        fprintf(f, "CPU %s %d: %.1f%% (user %.1f%%, system %.1f%%, softirq %.1f%%, irq %.1f%%)",
                k ? "remote" : "local", u->cpu, u->total_pct, u->user_pct, u->system_pct,
                u->softirq_pct, u->irq_pct);
        if (bytes)
            fprintf(f, "; %.3f us/KiB on that CPU", u->busy_us / ((double)bytes / 1024.0));
        fputc('\n', f);
    }
}

/* "4 MiB" for a buffer size, or "?" when the peer did not say. */
static const char *buf_text(int v, char *b, size_t len)
{
    if (!v)
        return "?";
    units_format_bytes((double)v, b, len);
    return b;
}

static void print_buffers(FILE *f, const struct run_result *r)
{
    const struct side_report *sides[2] = {&r->local, &r->remote};
    fprintf(f, "buffers  ");
    for (int k = 0; k < 2; k++) {
        if (!sides[k]->n)
            continue;
        char a[32], b[32];
        const struct side_stream *s = &sides[k]->streams[0];
        fprintf(f, "%s%s send %s, receive %s", k ? "; " : "", k ? "remote" : "local",
                buf_text(s->sndbuf, a, sizeof(a)), buf_text(s->rcvbuf, b, sizeof(b)));
    }
    if (r->params.sockbuf)
        fprintf(f, " (-w %u; the kernel doubles what it grants)\n", r->params.sockbuf);
    else if (params_is_udp(r->params.kind))
        fprintf(f, " (%s)\n",
                r->params.udp_default_buffers
                    ? "kernel default, --udp-default-buffers"
                    : "netab's 4 MiB request, capped at net.core.[rw]mem_max");
    else
        fprintf(f, " (kernel default and autotuning)\n");
}

static void print_udp_drops(FILE *f, const struct run_result *r)
{
    const struct side_report *rx = r->params.reverse ? &r->local : &r->remote;
    if (r->params.kind != TEST_UDP_STREAM || r->params.bidir || !rx->kernel)
        return;
    long long rcvbuf, inerr;
    side_report_udp_drops(rx, &rcvbuf, &inerr);
    fprintf(f,
            "receiver kernel: %lld datagrams dropped at the socket (Udp.RcvbufErrors), %lld "
            "InErrors in all%s\n",
            rcvbuf, inerr, r->in_process ? " (loopback: both ends share these counters)" : "");
}

static void print_perf(FILE *f, const char *label, const struct side_report *s)
{
    double ipc, cpb, brm, l1i, tc, cs, mig, pf;
    if (!s->perf)
        return;
    fprintf(f, "perf %s:", label);
    if (side_report_perf_get(s, "ipc", &ipc)) {
        fprintf(f, " %.2f IPC", ipc);
        if (side_report_perf_get(s, "cycles_per_byte", &cpb))
            fprintf(f, ", %.2f cycles/byte", cpb);
        if (side_report_perf_get(s, "branch_miss_pct", &brm))
            fprintf(f, ", %.2f%% branch misses", brm);
        if (side_report_perf_get(s, "l1i_misses", &l1i))
            fprintf(f, ", %.2f Mi L1i misses", l1i / 1048576.0);
        fputc(';', f);
    }
    if (side_report_perf_get(s, "task_clock", &tc) &&
        side_report_perf_get(s, "context_switches", &cs) &&
        side_report_perf_get(s, "cpu_migrations", &mig) &&
        side_report_perf_get(s, "page_faults", &pf))
        fprintf(f, " task-clock %.3f s, %.0f context switches, %.0f migrations, %.0f page faults",
                tc / 1e9, cs, mig, pf);
    const char *why =
        json_string_value(json_object_get(json_object_get(s->perf, "unavailable"), "cycles"));
    if (why)
        fprintf(f, "; no hardware counters (%s)", why);
    fputc('\n', f);
}

void run_text_counters(FILE *f, const struct run_result *r)
{
    print_udp_drops(f, r);
    print_buffers(f, r);
    print_perf(f, "local", &r->local);
    print_perf(f, "remote", &r->remote);
    run_text_profile(f, r);
}
