/*
 * `netab compare`: runs the variants itself in shuffled, interleaved rounds,
 * shows progress on stderr, then reports every metric like `netab stats` and
 * exits 0 (no regression), 1 (regression) or 2 (usage or run errors).
 */
#include <errno.h>
#include <gsl/gsl_errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "campaign/order.h"
#include "cli/cli_common.h"
#include "cli/cli_compare.h"
#include "compare/document.h"
#include "compare/text.h"
#include "compare/figure.h"
#include "util/clock.h"
#include "util/units.h"

#define BAR_WIDTH 30

/* The process policy: SIGINT and SIGTERM kill the current run and end the comparison. */
static void on_signal(int sig)
{
    campaign_cancel(sig);
}

struct progress {
    bool tty;
    size_t done, total; /* runs, including warm-ups */
    uint64_t start_ns;
    bool bar_shown;
};

static void fmt_value(const struct compare_metric *m, double x, char *buf, size_t len)
{
    if (!isfinite(x))
        snprintf(buf, len, "-");
    else if (!strcmp(m->unit, "bit/s"))
        units_format_rate(x, buf, len);
    else
        snprintf(buf, len, "%.4g%s%s", x, *m->unit ? " " : "", m->unit);
}

static void progress_clear(struct progress *p)
{
    if (p->tty && p->bar_shown)
        fputs("\r\033[K", stderr);
    p->bar_shown = false;
}

/* The bar with the ETA (terminal) or nothing (plain lines are printed per run). */
static void progress_bar(struct progress *p, const char *next)
{
    if (!p->tty)
        return;
    double elapsed = (double)(clock_now_ns() - p->start_ns) / 1e9;
    char eta[32] = "--:--";
    if (p->done) {
        double left = elapsed / (double)p->done * (double)(p->total - p->done);
        snprintf(eta, sizeof(eta), "%d:%02d", (int)left / 60, (int)left % 60);
    }
    char bar[BAR_WIDTH + 1];
    size_t fill = p->total ? p->done * BAR_WIDTH / p->total : 0;
    for (size_t i = 0; i < BAR_WIDTH; i++)
        bar[i] = i < fill ? '#' : '.';
    bar[BAR_WIDTH] = '\0';
    fprintf(stderr, "\r\033[K[%s] %zu/%zu  ETA %s  %s", bar, p->done, p->total, eta, next);
    p->bar_shown = true;
    fflush(stderr);
}

/* One line per finished run; on a terminal only failures get a line of their own. */
static void progress_run(struct progress *p, const struct compare_campaign *c,
                         const struct compare_run *r)
{
    const char *name = c->cfg->variants[r->slot.variant].name;
    if (p->tty && r->status == COMPARE_RUN_OK)
        return;
    progress_clear(p);
    if (r->status == COMPARE_RUN_OK) {
        char v[64];
        fmt_value(&c->metrics[c->decide], r->values[c->decide], v, sizeof(v));
        fprintf(stderr, "netab compare: run %u/%zu round %u%s %s: %s %s (%.1f s)\n", r->slot.seq,
                p->total, r->slot.round, r->slot.warmup ? " (warm-up)" : "", name,
                c->metrics[c->decide].name, v, r->seconds);
    } else {
        fprintf(stderr, "netab compare: run %u/%zu round %u%s %s: FAILED: %s\n", r->slot.seq,
                p->total, r->slot.round, r->slot.warmup ? " (warm-up)" : "", name, r->error);
    }
}

/* Progress of the library's campaign, on stderr. */
static void on_run(const struct compare_result *res, const struct compare_run *r, void *arg)
{
    struct progress *p = arg;
    p->total = res->planned_runs;
    p->done++;
    progress_run(p, res->c, r);
    char last[160];
    snprintf(last, sizeof(last), "last: round %u %s%s", r->slot.round,
             res->c->cfg->variants[r->slot.variant].name, r->slot.warmup ? " (warm-up)" : "");
    progress_bar(p, last);
}

static void on_look(const struct compare_result *res, size_t look, size_t looks, unsigned rounds,
                    bool reached, void *arg)
{
    progress_clear(arg);
    fprintf(stderr,
            "netab compare: look %zu/%zu after %u rounds: widest interval of the relative "
            "change +-%.2f%% (target +-%g%%)%s\n",
            look, looks, rounds, res->worst_halfwidth * 100, res->c->cfg->until_ci * 100,
            reached ? ": reached" : "");
}

static void on_say(const char *msg, void *arg)
{
    progress_clear(arg);
    fprintf(stderr, "netab compare: %s\n", msg);
}

int cli_compare(int argc, char **argv)
{
    struct compare_config cfg;
    int rc = cli_compare_parse(argc, argv, &cfg);
    if (rc >= 0) {
        compare_config_free(&cfg);
        return rc;
    }
    gsl_set_error_handler_off();
    if (!cfg.seed_given)
        cfg.seed = order_fresh_seed();
    struct compare_campaign camp;
    char err[NB_ERRLEN * 4];
    if (compare_campaign_init(&camp, &cfg, err, sizeof(err))) {
        fprintf(stderr, "netab compare: %s\n", err);
        compare_config_free(&cfg);
        return EXIT_USAGE;
    }
    camp.timeout = compare_run_timeout(&cfg);
    struct sigaction sa = {.sa_handler = on_signal}, old_int, old_term;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);

    struct compare_result res = {.c = &camp, .adaptive = cfg.until_ci > 0};
    stats_opts_default(&res.opts);
    res.opts.noise = cfg.noise;
    res.opts.confidence = cfg.confidence;
    res.opts.seed = cfg.seed;
    struct progress p = {.tty = isatty(2), .start_ns = clock_now_ns()};
    fprintf(stderr,
            "netab compare: %zu variants (baseline '%s'), %u run%s each + %u warm-up, "
            "interleaved, seed %llu, timeout %g s per run\n",
            cfg.nvariants, cfg.variants[0].name, cfg.runs, cfg.runs == 1 ? "" : "s", cfg.warmup,
            (unsigned long long)cfg.seed, camp.timeout);
    struct compare_progress prog = {.run = on_run, .look = on_look, .say = on_say, .arg = &p};
    rc = compare_execute(&res, &prog, err, sizeof(err));
    progress_clear(&p);
    if (rc && rc != -ENOMEM)
        fprintf(stderr, "netab compare: %s\n", err);
    if (!rc)
        rc = compare_analyse(&res);
    if (!rc)
        /* cli_json_print() says what went wrong itself: -EIO is not said again below. */
        rc = cfg.json ? (cli_json_print("compare", compare_document(&res)) ? -EIO : 0)
                      : (compare_text_print(stdout, &res), 0);
    if (!rc && cfg.figure) {
        size_t points = 0;
        rc = compare_draw_figure(&res, &points, err, sizeof(err));
        if (rc == -EINVAL)
            fprintf(stderr, "netab compare: %s\n", err);
        else if (!rc)
            fprintf(stderr, "netab compare: figure %s: %zu variants, %zu points\n", cfg.figure,
                    cfg.nvariants, points);
    }
    if (rc) {
        if (rc == -ENOMEM)
            fprintf(stderr, "netab compare: out of memory\n");
        res.exit_code = EXIT_USAGE;
    } else if (fflush(stdout) || ferror(stdout)) {
        fprintf(stderr, "netab compare: cannot write output: %s\n", strerror(errno));
        res.exit_code = EXIT_USAGE;
    } else {
        fprintf(stderr, "netab compare: exit %d: %s\n", res.exit_code, res.exit_reason);
    }
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    int code = res.exit_code;
    compare_result_free(&res);
    compare_campaign_free(&camp);
    compare_config_free(&cfg);
    return code;
}
