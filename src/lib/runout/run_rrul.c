#include "runout/run_rrul.h"

#include <math.h>

#include "util/units.h"

/* A figure, or null where it cannot exist (NAN: no probe answered, no idle to compare with). */
static json_t *num(double x)
{
    return isfinite(x) ? json_real(x) : json_null();
}

static json_t *phase_json(const struct rrul_phase *p)
{
    json_t *o = json_pack("{s:I, s:I, s:I, s:o, s:I, s:I}", "probes_sent", (json_int_t)p->sent,
                          "probes_received", (json_int_t)p->received, "probes_lost",
                          (json_int_t)p->lost, "loss_percent", num(p->loss_percent), "duplicates",
                          (json_int_t)p->duplicates, "reordered", (json_int_t)p->reordered);
    if (!o)
        return NULL;
    const struct {
        const char *name;
        double v;
    } f[] = {
        {"p50_us", p->p50_us},
        {"p90_us", p->p90_us},
        {"p99_us", p->p99_us},
        {"p999_us", p->p999_us},
        {"max_us", p->max_us},
        {"min_us", p->min_us},
        {"mean_us", p->mean_us},
        {"tcp_transactions_per_second", p->tcp_tps},
        {"tcp_p50_us", p->tcp_p50_us},
        {"tcp_p99_us", p->tcp_p99_us},
        {"up_bits_per_second", p->up_bps},
        {"down_bits_per_second", p->down_bps},
        {"load_srtt_us", p->load_srtt_us},
    };
    for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
        json_object_set_new(o, f[i].name, num(f[i].v));
    return o;
}

json_t *run_rrul_end_json(const struct rrul_end *e)
{
    static const char *const names[RRUL_PHASES] = {"idle", "loaded", "recovery"};
    json_t *o = json_pack("{s:f, s:i, s:s}", "probe_rate", e->probe_rate, "load_flows",
                          e->load_flows, "load", e->load ? e->load : "both");
    json_t *phases = json_object();
    if (!o || !phases) {
        json_decref(o);
        json_decref(phases);
        return NULL;
    }
    for (int i = 0; i < RRUL_PHASES; i++) {
        json_object_set_new(phases, names[i], json_pack("[f, f]", e->start[i], e->end[i]));
        json_object_set_new(o, names[i], phase_json(&e->phase[i]));
    }
    json_object_set_new(o, "phases", phases);
    json_object_set_new(o, "increase",
                        json_pack("{s:o, s:o, s:o, s:o}", "p50_us", num(e->inc_p50_us), "p50_ratio",
                                  num(e->inc_p50_ratio), "p99_us", num(e->inc_p99_us), "p99_ratio",
                                  num(e->inc_p99_ratio)));
    json_object_set_new(o, "rpm", num(e->rpm));
    json_object_set_new(o, "rpm_ci_low", num(e->rpm_lo));
    json_object_set_new(o, "rpm_ci_high", num(e->rpm_hi));
    json_t *ow = json_pack("{s:b, s:s}", "available", e->one_way, "reason", e->one_way_reason);
    if (ow) {
        json_object_set_new(ow, "clock",
                            e->one_way_clock ? json_string(e->one_way_clock) : json_null());
        json_object_set_new(ow, "error_bound_us", num(e->one_way_error_us));
    }
    for (int i = 0; ow && e->one_way && i < RRUL_PHASES; i++)
        json_object_set_new(ow, names[i],
                            json_pack("{s:o, s:o, s:o, s:o}", "up_p50_us", num(e->ow[i].up_p50_us),
                                      "up_p99_us", num(e->ow[i].up_p99_us), "down_p50_us",
                                      num(e->ow[i].down_p50_us), "down_p99_us",
                                      num(e->ow[i].down_p99_us)));
    json_object_set_new(o, "one_way", ow);
    return o;
}

json_t *run_rrul_interval_json(const struct rrul_interval *r)
{
    return json_pack("{s:s, s:o, s:o, s:I, s:f, s:f}", "phase", rrul_phase_name(r->phase), "p50_us",
                     num(r->p50_us), "p99_us", num(r->p99_us), "probes_lost", (json_int_t)r->lost,
                     "up_bits_per_second", r->up_bps, "down_bits_per_second", r->down_bps);
}

void run_rrul_header(FILE *f, const struct run_result *r)
{
    const struct rrul_end *e = &r->rrul;
    char port[16] = "";
    if (!r->in_process)
        snprintf(port, sizeof(port), " port %u", r->port);
    fprintf(f,
            "netab %s: rrul with %s%s%s: %d TCP flow%s %s for %g s between an idle and a "
            "recovery phase, UDP probes at %g/s and a TCP request/response probe throughout\n",
            NETAB_VERSION, r->server, port, r->in_process ? " (in-process server)" : "",
            e->load_flows, e->load_flows == 1 ? "" : "s",
            !e->load || e->load[0] == 'b' ? "each way"
            : e->load[0] == 'u'           ? "up (client to server)"
                                          : "down (server to client)",
            r->params.duration_s, e->probe_rate);
}

/* A round trip in ms, or "-" where none was measured. */
static const char *ms(double us, char *buf, size_t len)
{
    if (isfinite(us))
        snprintf(buf, len, "%.3f", us / 1e3);
    else
        snprintf(buf, len, "-");
    return buf;
}

static void phase_line(FILE *f, const char *name, const struct rrul_end *e, int i)
{
    const struct rrul_phase *p = &e->phase[i];
    char a[24], b[24], c[24], d[24], up[32], down[32], tps[24];
    units_format_rate(p->up_bps, up, sizeof(up));
    units_format_rate(p->down_bps, down, sizeof(down));
    if (isfinite(p->tcp_tps))
        snprintf(tps, sizeof(tps), "%.0f", p->tcp_tps);
    else
        snprintf(tps, sizeof(tps), "-");
    fprintf(f, "%-9s %5.1f-%-5.1f %7llu %6llu %9s %9s %9s %9s %9s %13s %13s\n", name, e->start[i],
            e->end[i], (unsigned long long)p->sent, (unsigned long long)p->lost,
            ms(p->p50_us, a, sizeof(a)), ms(p->p99_us, b, sizeof(b)), ms(p->max_us, c, sizeof(c)),
            ms(p->tcp_p50_us, d, sizeof(d)), tps, up, down);
}

static void intervals_text(FILE *f, const struct run_result *r)
{
    bool any = false;
    for (size_t i = 0; i < r->nintervals; i++) {
        const struct interval_report *iv = &r->intervals[i];
        if (!iv->have_rrul)
            continue;
        if (!any)
            fprintf(f, "%-17s %-9s %9s %9s %6s %13s %13s\n", "Interval", "Phase", "p50 ms",
                    "p99 ms", "Lost", "Up", "Down");
        any = true;
        char a[24], b[24], up[32], down[32], when[32];
        units_format_rate(iv->rrul.up_bps, up, sizeof(up));
        units_format_rate(iv->rrul.down_bps, down, sizeof(down));
        snprintf(when, sizeof(when), "%.2f-%.2f sec", iv->start, iv->end);
        fprintf(f, "%-17s %-9s %9s %9s %6llu %13s %13s\n", when, rrul_phase_name(iv->rrul.phase),
                ms(iv->rrul.p50_us, a, sizeof(a)), ms(iv->rrul.p99_us, b, sizeof(b)),
                (unsigned long long)iv->rrul.lost, up, down);
    }
}

void run_rrul_text(FILE *f, const struct run_result *r)
{
    if (!r->have_rrul)
        return;
    const struct rrul_end *e = &r->rrul;
    intervals_text(f, r);
    fprintf(f, "- - - - - - - - - - - - - - - - - - - - - - - - - - - - - -\n");
    fprintf(f, "%-9s %-11s %7s %6s %9s %9s %9s %9s %9s %13s %13s\n", "Phase", "Seconds", "Probes",
            "Lost", "p50 ms", "p99 ms", "max ms", "TCP p50", "TCP tr/s", "Up", "Down");
    for (int i = 0; i < RRUL_PHASES; i++)
        phase_line(f, rrul_phase_name(i), e, i);
    if (isfinite(e->inc_p50_us))
        fprintf(f, "idle -> loaded: p50 %+.3f ms (x%.2f), p99 %+.3f ms (x%.2f)\n",
                e->inc_p50_us / 1e3, e->inc_p50_ratio, e->inc_p99_us / 1e3, e->inc_p99_ratio);
    else
        fprintf(f, "idle -> loaded: no increase: a phase had no answered probe\n");
    if (isfinite(e->rpm))
        fprintf(f,
                "RPM %.0f (95%% interval %.0f-%.0f): 60000 / the trimmed mean of the loaded "
                "probes' round trips in ms\n",
                e->rpm, e->rpm_lo, e->rpm_hi);
    else
        fprintf(f, "RPM: none: no probe of the loaded phase was answered\n");
    if (isfinite(e->phase[1].load_srtt_us))
        fprintf(f, "load flows' smoothed RTT (tcp_info, mean over intervals): %.3f ms\n",
                e->phase[1].load_srtt_us / 1e3);
    if (!e->one_way) {
        fprintf(f, "one-way delay: %s\n", e->one_way_reason);
        return;
    }
    fprintf(f, "one-way delay: %s\n", e->one_way_reason);
    for (int i = 0; i < RRUL_PHASES; i++) {
        char a[24], b[24], c[24], d[24];
        fprintf(f, "  %-9s up p50 %s p99 %s ms, down p50 %s p99 %s ms\n", rrul_phase_name(i),
                ms(e->ow[i].up_p50_us, a, sizeof(a)), ms(e->ow[i].up_p99_us, b, sizeof(b)),
                ms(e->ow[i].down_p50_us, c, sizeof(c)), ms(e->ow[i].down_p99_us, d, sizeof(d)));
    }
}
