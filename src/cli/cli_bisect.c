/*
 * `netab bisect run|step|resume`: git bisect with a statistical decision per
 * commit (docs/bisect.md). Progress on stderr; the first bad commit and the
 * table of steps (or --json) on stdout.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "campaign/order.h"
#include "cli/cli.h"
#include "cli/cli_bisect.h"
#include "cli/cli_common.h"
#include "bisect/report.h"

/* git bisect run's contract: 125 skips a commit, above 127 stops the bisection. */
#define EXIT_SKIP 125
#define EXIT_ABORT 128

static void on_say(const char *msg, void *arg)
{
    (void)arg;
    fprintf(stderr, "netab bisect: %s\n", msg);
}

/* run and resume: the bisection to its end, the result printed. */
static int whole(const struct cli_bisect_args *a, bool resume)
{
    struct bisect_progress p = {.say = on_say};
    struct bisect_result res;
    char err[NB_ERRLEN * 2];
    int rc = resume ? bisect_resume(a->cfg.db, a->id, a->cfg.self, &p, &res, err, sizeof(err))
                    : bisect_run(&a->cfg, &p, &res, err, sizeof(err));
    int code = EXIT_USAGE;
    if (rc)
        fprintf(stderr, "netab bisect: %s\n", err);
    else if (res.dut_lost) {
        char lost[PATH_MAX + 256];
        bisect_lost_text(&res, a->cfg.db, lost, sizeof(lost));
        fprintf(stderr, "netab bisect: %s\n", lost);
    } else if (res.found)
        code = EXIT_OK;
    else if (res.only_skipped)
        code = EXIT_FAIL;
    if (!rc)
        code = !a->json ? (bisect_print_text(stdout, &res), code)
               : cli_json_print("bisect", bisect_document(&res, code)) ? EXIT_USAGE
                                                                       : code;
    if (!rc && res.found)
        fprintf(stderr, "netab bisect: first bad commit %.12s %s\n", res.first_bad,
                res.first_bad_subject);
    bisect_result_free(&res);
    return code;
}

/* step: one decision as git bisect run's exit status. */
static int one_step(const struct cli_bisect_args *a)
{
    struct bisect_progress p = {.say = on_say};
    struct bisect_step s;
    char err[NB_ERRLEN * 2];
    if (bisect_step_once(&a->cfg, &p, &s, err, sizeof(err))) {
        fprintf(stderr, "netab bisect step: %s\n", err);
        return EXIT_ABORT;
    }
    bisect_print_step(stdout, &s);
    return s.decision == BISECT_GOOD ? EXIT_OK : s.decision == BISECT_BAD ? EXIT_FAIL : EXIT_SKIP;
}

int cli_bisect(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        opt_table_help(&cli_bisect_cmd, argc < 2 ? stderr : stdout);
        return argc < 2 ? EXIT_USAGE : EXIT_OK;
    }
    const char *sub = argv[1];
    bool run = !strcmp(sub, "run"), step = !strcmp(sub, "step"), resume = !strcmp(sub, "resume");
    if (!run && !step && !resume) {
        static const char *const subs[] = {"run", "step", "resume"};
        char hint[128];
        return cli_usage_error("bisect", "unknown subcommand '%s'%s (run, step or resume)", sub,
                               optmatch_closest(sub, subs, 3, hint, sizeof(hint)));
    }
    struct cli_bisect_args a;
    int rc = cli_bisect_parse(argc - 1, argv + 1, &a);
    if (rc >= 0)
        return step && rc ? EXIT_ABORT : rc;
    if (run && (!a.cfg.good || !a.cfg.bad))
        return cli_usage_error("bisect", "run needs --good REV and --bad REV");
    if (resume && (a.cfg.good || a.cfg.bad || a.cfg.ncommon))
        return cli_usage_error("bisect", "resume takes its options from the store (--db, --id)");
    if (!opt_given(&cli_bisect_cmd, &a, "seed"))
        a.cfg.seed = order_fresh_seed();
    struct cli_signals sigs;
    cli_signals_catch(&sigs, bisect_cancel, (const int[]){SIGINT, SIGTERM, 0});
    rc = step ? one_step(&a) : whole(&a, resume);
    cli_signals_restore(&sigs);
    return rc;
}
