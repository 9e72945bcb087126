/* netab bisect's output (docs/bisect.md): text and JSON of a result, one step's line. */
#include "bisect/report.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/redact.h"

void bisect_change_text(const struct bisect_step *s, char *buf, size_t len)
{
    if (isnan(s->rel))
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%+.2f%% [%+.2f, %+.2f]", s->rel * 100, s->lo * 100, s->hi * 100);
}

void bisect_print_text(FILE *out, const struct bisect_result *res)
{
    char ch[96];
    if (res->found)
        fprintf(out, "first bad commit: %s %s\n", res->first_bad, res->first_bad_subject);
    else if (res->only_skipped)
        fprintf(out, "no single first bad commit: only skipped commits are left; it is one of:\n%s",
                res->candidates);
    else if (res->interrupted)
        fprintf(out, "interrupted: continue with netab bisect resume --id %" PRId64 "\n",
                res->session);
    else if (res->dut_lost)
        fprintf(out,
                "the DUT never came back: bring it back, then netab bisect resume --id %" PRId64
                "\n",
                res->session);
    bisect_change_text(&res->refs, ch, sizeof(ch));
    fprintf(out,
            "GOOD %.12s, BAD %.12s: BAD against GOOD %s (%zu+%zu runs, %.4g%% intervals, "
            "session %" PRId64 ", experiment %" PRId64 ")\n",
            res->good, res->bad, ch, res->refs.n_good, res->refs.n_test, res->refs.confidence * 100,
            res->session, res->refs.experiment);
    fprintf(out, "%-4s  %-12s  %-9s  %-28s  %-9s  %-10s  %s\n", "step", "commit", "runs",
            "change vs GOOD", "decision", "experiment", "subject / reason");
    for (size_t i = 0; i < res->nsteps; i++) {
        const struct bisect_step *s = &res->steps[i];
        char runs[32], exp[24];
        bisect_change_text(s, ch, sizeof(ch));
        snprintf(runs, sizeof(runs), "%zu+%zu", s->n_good, s->n_test);
        snprintf(exp, sizeof(exp), "%" PRId64, s->experiment);
        fprintf(out, "%-4zu  %.12s  %-9s  %-28s  %-9s  %-10s  %s%s%s\n", i + 1, s->hash, runs, ch,
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
    return json_pack("{s:s, s:s, s:I, s:I, s:I, s:o, s:o, s:o, s:f, s:s, s:s?, s:s, s:s?}",
                     "commit", s->hash, "subject", s->subject, "experiment",
                     (json_int_t)s->experiment, "runs_good", (json_int_t)s->n_good, "runs_commit",
                     (json_int_t)s->n_test, "change_pct", num_or_null(s->rel), "change_ci_low_pct",
                     num_or_null(s->lo), "change_ci_high_pct", num_or_null(s->hi), "confidence",
                     s->confidence, "decision", bisect_decision_name(s->decision), "reason",
                     *s->reason ? s->reason : NULL, "metric", s->metric, "verdict",
                     *s->verdict ? s->verdict : NULL);
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

json_t *bisect_document(const struct bisect_result *res, int exit_status)
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
    json_t *j = json_pack(
        "{s:o, s:s?, s:s, s:s, s:I, s:o, s:o, s:o, s:b, s:o, s:i}", "first_bad",
        res->found ? json_string(res->first_bad) : json_null(), "first_bad_subject",
        res->found ? res->first_bad_subject : NULL, "good", res->good, "bad", res->bad, "session",
        (json_int_t)res->session, "references", step_json(&res->refs), "steps",
        steps ? steps : json_array(), "candidates", cand ? cand : json_array(), "interrupted",
        res->interrupted, "dut_lost", lost_json(res), "exit_status", exit_status);
    return j;
}

void bisect_print_step(FILE *out, const struct bisect_step *s)
{
    char ch[96];
    bisect_change_text(s, ch, sizeof(ch));
    fprintf(out, "%.12s %s: %s vs GOOD (%zu+%zu runs): %s%s%s\n", s->hash, s->subject, ch,
            s->n_good, s->n_test, bisect_decision_name(s->decision), *s->reason ? ": " : "",
            s->reason);
}

void bisect_lost_text(const struct bisect_result *res, const char *db, char *buf, size_t len)
{
    /* The store as every message names it: a URL's password removed (util/redact). */
    char *shown = redact_url(db);
    snprintf(buf, len,
             "the DUT never came back; the bisection stops. Bring it back (a working kernel), "
             "then: netab bisect resume --db %s --id %" PRId64 " (%s)",
             shown ? shown : "(the results store)", res->session,
             res->nsteps && !res->steps[res->nsteps - 1].lost_on_good
                 ? "the commit whose run lost it is then skipped"
                 : "what was cut short is measured again");
    free(shown);
}
