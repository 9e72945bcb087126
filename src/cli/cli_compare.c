/*
 * `netab compare`: runs the variants itself in shuffled, interleaved rounds,
 * shows progress on stderr, then reports every metric like `netab stats` and
 * exits 0 (no regression), 1 (regression) or 2 (usage or run errors).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "campaign/order.h"
#include "cli/cli_common.h"
#include "cli/cli_compare.h"
#include "compare/document.h"
#include "compare/text.h"
#include "compare/ktap.h"
#include "compare/figure.h"
#include "compare/progress.h"
#include "util/clock.h"

struct progress {
    struct cli_progress bar;
    size_t done, total; /* runs, including warm-ups */
    uint64_t start_ns;
};

/*
 * Progress of the library's campaign, on stderr: one line per finished run
 * (on a terminal only failures get a line of their own) and, on a terminal,
 * the bar with the ETA.
 */
static void on_run(const struct compare_result *res, const struct compare_run *r, void *arg)
{
    struct progress *p = arg;
    p->total = res->planned_runs;
    p->done++;
    char line[512], eta[32], last[160];
    if (!p->bar.tty || r->status != COMPARE_RUN_OK) {
        cli_progress_clear(&p->bar);
        compare_run_text(res->c, r, p->total, line, sizeof(line));
        fprintf(stderr, "netab compare: %s\n", line);
    }
    if (!p->bar.tty)
        return;
    compare_eta_text((double)(clock_now_ns() - p->start_ns) / 1e9, p->done, p->total, eta,
                     sizeof(eta));
    compare_last_text(res->c, r, last, sizeof(last));
    cli_progress_bar(&p->bar, p->done, p->total, '.', eta, last);
}

static void on_say(const char *msg, void *arg)
{
    struct progress *p = arg;
    cli_progress_clear(&p->bar);
    fprintf(stderr, "netab compare: %s\n", msg);
}

static void on_look(const struct compare_result *res, size_t look, size_t looks, unsigned rounds,
                    bool reached, void *arg)
{
    char line[256];
    compare_look_text(res, look, looks, rounds, reached, line, sizeof(line));
    on_say(line, arg);
}

int cli_compare(int argc, char **argv)
{
    struct compare_config cfg;
    int rc = cli_compare_parse(argc, argv, &cfg);
    if (rc >= 0) {
        compare_config_free(&cfg);
        return rc;
    }
    if (!cfg.seed_given)
        cfg.seed = order_fresh_seed();
    struct compare_campaign camp;
    char err[NB_ERRLEN * 4];
    if (compare_campaign_init(&camp, &cfg, err, sizeof(err))) {
        compare_config_free(&cfg);
        return cli_fail(EXIT_USAGE, "compare", "%s", err);
    }
    /* The process policy: SIGINT and SIGTERM kill the current run and end the comparison. */
    struct cli_signals sigs;
    cli_signals_catch(&sigs, campaign_cancel, (const int[]){SIGINT, SIGTERM, 0});

    struct compare_result res;
    compare_result_prepare(&res, &camp, &cfg);
    struct progress p = {.bar.tty = isatty(2), .start_ns = clock_now_ns()};
    compare_plan_text(&camp, err, sizeof(err));
    fprintf(stderr, "netab compare: %s\n", err);
    struct compare_progress prog = {.run = on_run, .look = on_look, .say = on_say, .arg = &p};
    rc = compare_execute(&res, &prog, err, sizeof(err));
    cli_progress_clear(&p.bar);
    if (rc && rc != -ENOMEM)
        fprintf(stderr, "netab compare: %s\n", err);
    if (!rc)
        rc = compare_analyse(&res);
    if (!rc)
        /* cli_json_print() says what went wrong itself: -EIO is not said again below. */
        rc = cfg.json ? (cli_json_print("compare", compare_document(&res)) ? -EIO : 0)
                      : ((cfg.ktap ? compare_ktap_print : compare_text_print)(stdout, &res), 0);
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
        res.exit_code = cli_fail(EXIT_USAGE, "compare", "cannot write output: %s", strerror(errno));
    } else {
        fprintf(stderr, "netab compare: exit %d: %s\n", res.exit_code, res.exit_reason);
    }
    cli_signals_restore(&sigs);
    int code = res.exit_code;
    compare_result_free(&res);
    compare_campaign_free(&camp);
    compare_config_free(&cfg);
    return code;
}
