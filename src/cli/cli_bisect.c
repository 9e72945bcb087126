/*
 * `netab bisect run|step|resume`: git bisect with a statistical decision per
 * commit (docs/bisect.md). Progress on stderr; the first bad commit and the
 * table of steps (or --json) on stdout.
 */
#include <errno.h>
#include <gsl/gsl_errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "campaign/order.h"
#include "cli/cli.h"
#include "cli/cli_bisect.h"
#include "cli/cli_common.h"
#include "bisect/report.h"

/* git bisect run's contract: 125 skips a commit, above 127 stops the bisection. */
#define EXIT_SKIP 125
#define EXIT_ABORT 128

static void on_signal(int sig)
{
    bisect_cancel(sig);
}

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
    else if (res.dut_lost)
        fprintf(stderr,
                "netab bisect: the DUT never came back; the bisection stops. Bring it back (a "
                "working kernel), then: netab bisect resume --db %s --id %" PRId64 " (%s)\n",
                a->cfg.db, res.session,
                res.nsteps && !res.steps[res.nsteps - 1].lost_on_good
                    ? "the commit whose run lost it is then skipped"
                    : "what was cut short is measured again");
    else if (res.found)
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
        cli_opts_help(&cli_bisect_cmd, argc < 2 ? stderr : stdout);
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
    if (!a.seed_given)
        a.cfg.seed = order_fresh_seed();
    gsl_set_error_handler_off();
    struct sigaction sa = {.sa_handler = on_signal}, old_int, old_term;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    rc = step ? one_step(&a) : whole(&a, resume);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    return rc;
}
