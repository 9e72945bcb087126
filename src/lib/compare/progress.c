/* compare/progress.h: what `netab compare` says while it runs. */
#include "compare/progress.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util/units.h"

void compare_result_prepare(struct compare_result *res, struct compare_campaign *camp,
                            const struct compare_config *cfg)
{
    camp->timeout = compare_run_timeout(cfg);
    *res = (struct compare_result){.c = camp, .adaptive = cfg->until_ci > 0};
    stats_opts_default(&res->opts);
    res->opts.noise = cfg->noise;
    res->opts.confidence = cfg->confidence;
    res->opts.seed = cfg->seed;
}

void compare_plan_text(const struct compare_campaign *c, char *buf, size_t len)
{
    const struct compare_config *cfg = c->cfg;
    snprintf(buf, len,
             "%zu variants (baseline '%s'), %u run%s each + %u warm-up, interleaved, seed %llu, "
             "timeout %g s per run",
             cfg->nvariants, cfg->variants[0].name, cfg->runs, cfg->runs == 1 ? "" : "s",
             cfg->warmup, (unsigned long long)cfg->seed, c->timeout);
}

/* x in m's unit: a rate for bit/s, else 4 significant digits; "-" when not finite. */
static void format_value(const struct compare_metric *m, double x, char *buf, size_t len)
{
    if (!isfinite(x))
        snprintf(buf, len, "-");
    else if (!strcmp(m->unit, "bit/s"))
        units_format_rate(x, buf, len);
    else
        snprintf(buf, len, "%.4g%s%s", x, *m->unit ? " " : "", m->unit);
}

void compare_run_text(const struct compare_campaign *c, const struct compare_run *r, size_t total,
                      char *buf, size_t len)
{
    const char *name = c->cfg->variants[r->slot.variant].name;
    const char *warm = r->slot.warmup ? " (warm-up)" : "";
    if (r->status == COMPARE_RUN_OK) {
        char v[64];
        format_value(&c->metrics[c->decide], r->values[c->decide], v, sizeof(v));
        snprintf(buf, len, "run %u/%zu round %u%s %s: %s %s (%.1f s)", r->slot.seq, total,
                 r->slot.round, warm, name, c->metrics[c->decide].name, v, r->seconds);
    } else {
        snprintf(buf, len, "run %u/%zu round %u%s %s: FAILED: %s", r->slot.seq, total,
                 r->slot.round, warm, name, r->error);
    }
}

void compare_look_text(const struct compare_result *res, size_t look, size_t looks, unsigned rounds,
                       bool reached, char *buf, size_t len)
{
    snprintf(buf, len,
             "look %zu/%zu after %u rounds: widest interval of the relative change +-%.2f%% "
             "(target +-%g%%)%s",
             look, looks, rounds, res->worst_halfwidth * 100, res->c->cfg->until_ci * 100,
             reached ? ": reached" : "");
}

void compare_eta_text(double elapsed, size_t done, size_t total, char *buf, size_t len)
{
    if (!done) {
        snprintf(buf, len, "--:--");
        return;
    }
    double left = elapsed / (double)done * (double)(total - done);
    snprintf(buf, len, "%d:%02d", (int)left / 60, (int)left % 60);
}

void compare_last_text(const struct compare_campaign *c, const struct compare_run *r, char *buf,
                       size_t len)
{
    snprintf(buf, len, "last: round %u %s%s", r->slot.round, c->cfg->variants[r->slot.variant].name,
             r->slot.warmup ? " (warm-up)" : "");
}
