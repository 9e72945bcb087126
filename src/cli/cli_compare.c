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
#include "cli/cli_compare.h"
#include "compare/session.h"
#include "report/stats_report_plot.h"
#include "util/clock.h"
#include "util/units.h"

#define MAX_LOOKS 64
#define BAR_WIDTH 30

static volatile sig_atomic_t stop_flag;

/* The process policy: SIGINT and SIGTERM end the comparison after the current run. */
static void on_signal(int sig)
{
    stop_flag = 1;
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

/* What the campaign engine's progress callback needs to record and show each run. */
struct engine_ctx {
    struct cli_compare_result *res;
    struct progress *p;
    int rc; /* -ENOMEM once a record could not be made */
};

/* Records one finished run of the campaign engine and shows it. */
static void on_run(const struct campaign_event *ev, const char *msg, void *arg)
{
    struct engine_ctx *x = arg;
    struct cli_compare_result *res = x->res;
    if (!ev) {
        progress_clear(x->p);
        fprintf(stderr, "netab compare: %s\n", msg);
        return;
    }
    if (ev->status == STORE_RUN_INTERRUPTED || x->rc)
        return; /* a run that a signal cut short measured nothing */
    if (res->nruns == res->cap) {
        size_t cap = res->cap ? res->cap * 2 : 64;
        struct compare_run *runs = realloc(res->runs, cap * sizeof(*runs));
        if (!runs) {
            x->rc = -ENOMEM;
            return;
        }
        res->runs = runs;
        res->cap = cap;
    }
    struct compare_run *r = &res->runs[res->nruns];
    if (compare_run_from_event(res->c, ev, r)) {
        compare_run_free(r);
        x->rc = -ENOMEM;
        return;
    }
    res->nruns++;
    x->p->done++;
    progress_run(x->p, res->c, r);
    char last[160];
    snprintf(last, sizeof(last), "last: round %u %s%s", r->slot.round,
             res->c->cfg->variants[r->slot.variant].name, r->slot.warmup ? " (warm-up)" : "");
    progress_bar(x->p, last);
}

/*
 * Runs the planned rounds through round `through` (warm-ups included) on the
 * campaign engine. Returns 0, -ENOMEM, or another negative errno with the
 * reason printed.
 */
static int run_rounds(struct cli_compare_result *res, struct compare_session *s, struct progress *p,
                      unsigned through)
{
    struct engine_ctx x = {.res = res, .p = p};
    char err[NB_ERRLEN * 4];
    int signo;
    int rc = compare_session_run(s, through, on_run, &x, &signo, err, sizeof(err));
    if (rc) {
        progress_clear(p);
        fprintf(stderr, "netab compare: %s\n", err);
        return rc;
    }
    return x.rc;
}

/*
 * --plot FILE: the deciding metric's distribution per variant and its changes
 * against the baseline, and one line on stderr saying what was drawn.
 * Returns 0, -ENOMEM, or -EINVAL after printing why.
 */
static int draw_figure(const struct cli_compare_result *res)
{
    const struct compare_config *cfg = res->c->cfg;
    struct cli_compare_metric_report m;
    if (cli_compare_analyse_metric(res, res->c->decide, &m))
        return -ENOMEM;
    int rc = 0;
    char err[NB_ERRLEN], axis[160];
    size_t n = 0;
    if (!m.ok) {
        fprintf(stderr, "netab compare: no figure: %s\n", m.why);
        rc = -EINVAL;
    } else {
        struct report_plot_opts po;
        report_plot_opts_default(&po);
        po.width = cfg->figure_w > 0 ? cfg->figure_w : po.width;
        po.height = cfg->figure_h > 0 ? cfg->figure_h : po.height;
        po.log = cfg->figure_log;
        snprintf(axis, sizeof(axis), "%s (%s)", m.m->name, *m.m->unit ? m.m->unit : "as measured");
        po.axis = cfg->figure_axis ? cfg->figure_axis : axis;
        if (stats_report_plot(&m.r, &po, cfg->figure, &n, err, sizeof(err))) {
            fprintf(stderr, "netab compare: %s\n", err);
            rc = -EINVAL;
        } else {
            fprintf(stderr, "netab compare: figure %s: %zu variants, %zu points\n", cfg->figure,
                    m.r.nsets, n);
        }
    }
    cli_compare_metric_free(&m);
    return rc;
}

/* At a look: is every relative change's interval within +-until_ci? Returns 0 or -ENOMEM. */
static int look(struct cli_compare_result *res, bool *reached)
{
    struct cli_compare_metric_report m;
    *reached = false;
    if (cli_compare_analyse_metric(res, res->c->decide, &m))
        return -ENOMEM;
    double worst = m.ok ? 0 : INFINITY;
    for (size_t v = 1; m.ok && v < m.r.nsets; v++) {
        const struct stats_verdict *vd = &m.r.cmps[v - 1].c.verdict;
        double hw = fmax(vd->rel - vd->rel_low, vd->rel_high - vd->rel);
        worst = isfinite(hw) ? fmax(worst, hw) : INFINITY;
    }
    cli_compare_metric_free(&m);
    res->worst_halfwidth = worst;
    *reached = worst <= res->c->cfg->until_ci;
    return 0;
}

/*
 * The whole schedule on the campaign engine, with looks when adaptive.
 * Returns 0, -ENOMEM, or another negative errno whose reason was printed.
 */
static int campaign(struct cli_compare_result *res, struct progress *p)
{
    const struct compare_config *cfg = res->c->cfg;
    unsigned looks[MAX_LOOKS] = {0};
    size_t k = 1;
    looks[0] = cfg->runs;
    if (res->adaptive) {
        unsigned first =
            cfg->runs > CLI_COMPARE_MIN_FIRST_LOOK ? cfg->runs : CLI_COMPARE_MIN_FIRST_LOOK;
        k = compare_looks(first, cfg->max_runs, looks, MAX_LOOKS);
        if (k > MAX_LOOKS)
            k = MAX_LOOKS; /* cannot happen below 100,000 runs with growth 1.5 */
    }
    res->looks_planned = (unsigned)k;
    if (res->adaptive) /* Bonferroni over the planned looks: see docs/compare.md */
        res->opts.confidence = compare_look_confidence(cfg->confidence, k);
    p->total = (size_t)(cfg->warmup + looks[0]) * cfg->nvariants;
    struct compare_session s;
    char err[NB_ERRLEN * 4];
    int rc = compare_session_open(&s, cfg, (long)(cfg->warmup + looks[0]), err, sizeof(err));
    if (rc) {
        fprintf(stderr, "netab compare: %s\n", err);
        return rc;
    }
    for (size_t i = 0; i < k; i++) {
        unsigned target = cfg->warmup + looks[i];
        p->total = (size_t)target * cfg->nvariants;
        rc = run_rounds(res, &s, p, target);
        if (rc)
            break;
        if (stop_flag) {
            res->interrupted = true;
            break;
        }
        res->rounds = looks[i];
        res->looks_done = (unsigned)i + 1;
        if (!res->adaptive)
            break;
        bool reached;
        if ((rc = look(res, &reached)))
            break;
        progress_clear(p);
        fprintf(stderr,
                "netab compare: look %zu/%zu after %u rounds: widest interval of the relative "
                "change +-%.2f%% (target +-%g%%)%s\n",
                i + 1, k, looks[i], res->worst_halfwidth * 100, cfg->until_ci * 100,
                reached ? ": reached" : "");
        if (reached) {
            res->target_reached = true;
            break;
        }
    }
    compare_session_close(&s);
    progress_clear(p);
    return rc;
}

static void free_result(struct cli_compare_result *res)
{
    for (size_t i = 0; i < res->nruns; i++)
        compare_run_free(&res->runs[i]);
    free(res->runs);
    if (res->metrics)
        for (size_t i = 0; i < res->c->nmetrics; i++)
            cli_compare_metric_free(&res->metrics[i]);
    free(res->metrics);
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
    char err[NB_ERRLEN];
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

    struct cli_compare_result res = {.c = &camp, .adaptive = cfg.until_ci > 0};
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
    rc = campaign(&res, &p);
    if (!rc)
        rc = cli_compare_analyse(&res);
    if (!rc)
        rc = cfg.json ? cli_compare_print_json(&res) : (cli_compare_print_text(&res), 0);
    if (!rc && cfg.figure)
        rc = draw_figure(&res);
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
    free_result(&res);
    compare_campaign_free(&camp);
    compare_config_free(&cfg);
    return code;
}
