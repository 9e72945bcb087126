/*
 * `netab bisect run|step|resume`: git bisect with a statistical decision per
 * commit (docs/bisect.md). Progress on stderr; the first bad commit and the
 * table of steps (or --json) on stdout.
 */
#include <errno.h>
#include <gsl/gsl_errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "campaign/order.h"
#include "cli/cli.h"
#include "cli/cli_bisect.h"
#include "cli/cli_common.h"

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

static void change_text(const struct bisect_step *s, char *buf, size_t len)
{
    if (isnan(s->rel))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%+.2f%% [%+.2f, %+.2f]", s->rel * 100, s->lo * 100, s->hi * 100);
}

static void print_text(const struct bisect_result *res)
{
    char ch[96];
    if (res->found)
        printf("first bad commit: %s %s\n", res->first_bad, res->first_bad_subject);
    else if (res->only_skipped)
        printf("no single first bad commit: only skipped commits are left; it is one of:\n%s",
               res->candidates);
    else if (res->interrupted)
        printf("interrupted: continue with netab bisect resume --id %" PRId64 "\n", res->session);
    else if (res->dut_lost)
        printf("the DUT never came back: bring it back, then netab bisect resume --id %" PRId64
               "\n",
               res->session);
    change_text(&res->refs, ch, sizeof(ch));
    printf("GOOD %.12s, BAD %.12s: BAD against GOOD %s (%zu+%zu runs, %.4g%% intervals, "
           "session %" PRId64 ", experiment %" PRId64 ")\n",
           res->good, res->bad, ch, res->refs.n_good, res->refs.n_test, res->refs.confidence * 100,
           res->session, res->refs.experiment);
    printf("%-4s  %-12s  %-9s  %-28s  %-9s  %-10s  %s\n", "step", "commit", "runs",
           "change vs GOOD", "decision", "experiment", "subject / reason");
    for (size_t i = 0; i < res->nsteps; i++) {
        const struct bisect_step *s = &res->steps[i];
        char runs[32], exp[24];
        change_text(s, ch, sizeof(ch));
        snprintf(runs, sizeof(runs), "%zu+%zu", s->n_good, s->n_test);
        snprintf(exp, sizeof(exp), "%" PRId64, s->experiment);
        printf("%-4zu  %.12s  %-9s  %-28s  %-9s  %-10s  %s%s%s\n", i + 1, s->hash, runs, ch,
               bisect_decision_name(s->decision), exp, s->subject, *s->reason ? ": " : "",
               s->reason);
    }
}

static json_t *num_or_null(double x)
{
    return isfinite(x) ? json_real(x * 100) : json_null();
}

static json_t *step_json(const struct bisect_step *s)
{
    return json_pack("{s:s, s:s, s:I, s:I, s:I, s:o, s:o, s:o, s:f, s:s, s:s?}", "commit", s->hash,
                     "subject", s->subject, "experiment", (json_int_t)s->experiment, "runs_good",
                     (json_int_t)s->n_good, "runs_commit", (json_int_t)s->n_test, "change_pct",
                     num_or_null(s->rel), "change_ci_low_pct", num_or_null(s->lo),
                     "change_ci_high_pct", num_or_null(s->hi), "confidence", s->confidence,
                     "decision", bisect_decision_name(s->decision), "reason",
                     *s->reason ? s->reason : NULL);
}

/*
 * The DUT that never came back: where (the references, or the last step),
 * on which side, and why; null when it did not happen.
 */
static json_t *lost_json(const struct bisect_result *res)
{
    if (!res->dut_lost)
        return json_null();
    const struct bisect_step *s = res->nsteps ? &res->steps[res->nsteps - 1] : &res->refs;
    const char *side = !res->nsteps      ? (s->lost_on_good ? "good" : "bad")
                       : s->lost_on_good ? "good"
                                         : "commit";
    return json_pack("{s:I, s:s, s:s, s:s}", "step", (json_int_t)res->nsteps, "commit", s->hash,
                     "side", side, "reason", s->reason);
}

static int print_json(const struct bisect_result *res, int code)
{
    json_t *steps = json_array(), *cand = json_array();
    for (size_t i = 0; steps && i < res->nsteps; i++)
        json_array_append_new(steps, step_json(&res->steps[i]));
    for (const char *p = res->candidates; cand && *p;) {
        size_t n = strcspn(p, "\n");
        if (n)
            json_array_append_new(cand, json_stringn(p, n));
        p += n + (p[n] == '\n');
    }
    json_t *j =
        json_pack("{s:o, s:s?, s:s, s:s, s:I, s:o, s:o, s:o, s:b, s:o, s:i}", "first_bad",
                  res->found ? json_string(res->first_bad) : json_null(), "first_bad_subject",
                  res->found ? res->first_bad_subject : NULL, "good", res->good, "bad", res->bad,
                  "session", (json_int_t)res->session, "references", step_json(&res->refs), "steps",
                  steps ? steps : json_array(), "candidates", cand ? cand : json_array(),
                  "interrupted", res->interrupted, "dut_lost", lost_json(res), "exit_status", code);
    if (!j || json_dumpf(j, stdout, JSON_INDENT(2)))
        code = EXIT_USAGE;
    putchar('\n');
    json_decref(j);
    return code;
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
        code = a->json ? print_json(&res, code) : (print_text(&res), code);
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
    char err[NB_ERRLEN * 2], ch[96];
    if (bisect_step_once(&a->cfg, &p, &s, err, sizeof(err))) {
        fprintf(stderr, "netab bisect step: %s\n", err);
        return EXIT_ABORT;
    }
    change_text(&s, ch, sizeof(ch));
    printf("%.12s %s: %s vs GOOD (%zu+%zu runs): %s%s%s\n", s.hash, s.subject, ch, s.n_good,
           s.n_test, bisect_decision_name(s.decision), *s.reason ? ": " : "", s.reason);
    return s.decision == BISECT_GOOD ? EXIT_OK : s.decision == BISECT_BAD ? EXIT_FAIL : EXIT_SKIP;
}

int cli_bisect(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        fputs(cli_bisect_usage, argc < 2 ? stderr : stdout);
        return argc < 2 ? EXIT_USAGE : EXIT_OK;
    }
    const char *sub = argv[1];
    bool run = !strcmp(sub, "run"), step = !strcmp(sub, "step"), resume = !strcmp(sub, "resume");
    if (!run && !step && !resume)
        return cli_usage_error("bisect", "unknown subcommand '%s' (run, step or resume)", sub);
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
