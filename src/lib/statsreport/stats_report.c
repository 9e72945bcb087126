/*
 * Building the statistics report: sets described, compared with the
 * baseline, warnings collected. Printing is in stats_report_text.c and
 * stats_report_data.c.
 */
#include "statsreport/stats_report.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/*
 * Plot marks, in set order, all different; ministat's x and + come first.
 * Never ' ', nor '|', '_', 'A' and 'M', which draw the mean and median bars.
 */
static const char symbols[] = "x+*%#@O&=~$?^<>!abcdefghijklmnopqrstuvwyzBCDEFGHIJKLNPQRSTUVWXYZ";
_Static_assert(sizeof(symbols) - 1 == STATS_REPORT_MARKS, "one mark per set up to the bound");

int stats_report_init(struct stats_report *r, size_t nsets, const struct stats_opts *o)
{
    memset(r, 0, sizeof(*r));
    r->opts = *o;
    r->plot = true;
    r->sets = calloc(nsets ? nsets : 1, sizeof(*r->sets));
    r->cmps = calloc(nsets ? nsets : 1, sizeof(*r->cmps));
    if (!r->sets || !r->cmps) {
        stats_report_free(r);
        return -ENOMEM;
    }
    r->nsets = nsets;
    for (size_t i = 0; i < nsets; i++)
        r->sets[i].symbol = symbols[i % (sizeof(symbols) - 1)];
    return 0;
}

int stats_report_set_values(struct stats_report *r, size_t i, const char *name, const char *format,
                            const char *metric, const double *v, size_t n)
{
    struct stats_report_set *s = &r->sets[i];
    free(s->name);
    free(s->values);
    s->name = strdup(name);
    s->values = malloc((n ? n : 1) * sizeof(*v));
    s->n = 0;
    if (!s->name || !s->values)
        return -ENOMEM;
    if (n)
        memcpy(s->values, v, n * sizeof(*v));
    s->n = n;
    s->format = format;
    snprintf(s->metric, sizeof(s->metric), "%s", metric ? metric : "");
    return 0;
}

/*
 * Describes set s (s->n >= 1; the intervals need 2): sample, summary, checks
 * and the set's warnings, which name it. Returns 0 or a negative errno
 * (-ENOMEM).
 */
static int describe(struct stats_report_set *s, const struct stats_opts *o,
                    const struct stats_frame *f)
{
    stats_sample_free(&s->sample);
    int rc = stats_sample_init_frame(&s->sample, s->values, s->n, f);
    if (!rc)
        rc = stats_summary_compute(&s->sample, o, &s->sum);
    if (rc)
        return rc;
    stats_checks_compute(&s->sample, s->order_unknown ? STATS_ORDER_UNKNOWN : o->order, &s->checks);
    s->nwarnings = 0;
    stats_checks_warnings(&s->checks, &s->sample, s->name, s->warnings, &s->nwarnings,
                          STATS_WARNING_MAX);
    return 0;
}

static void add_warning(struct stats_report_cmp *m, const char *kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void add_warning(struct stats_report_cmp *m, const char *kind, const char *fmt, ...)
{
    if (m->nwarnings >= STATS_REPORT_CMP_WARNINGS)
        return;
    struct stats_warning *w = &m->warnings[m->nwarnings++];
    w->kind = kind;
    w->set = NULL;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->message, sizeof(w->message), fmt, ap);
    va_end(ap);
}

/*
 * The warnings of comparison m: both sets' own, then those about the
 * comparison itself (too few runs for the noise floor, tests that disagree,
 * no ratio).
 */
static void compare_warnings(struct stats_report_cmp *m, const struct stats_report_set *base,
                             const struct stats_report_set *other, const struct stats_opts *o)
{
    m->nwarnings = 0;
    const struct stats_report_set *two[] = {base, other};
    for (size_t k = 0; k < 2; k++)
        for (size_t i = 0; i < two[k]->nwarnings; i++)
            if (m->nwarnings < STATS_REPORT_CMP_WARNINGS)
                m->warnings[m->nwarnings++] = two[k]->warnings[i];
    const struct stats_comparison *c = &m->c;
    double alpha = 1 - o->confidence;
    size_t n = base->n < other->n ? base->n : other->n;
    if (c->runs_needed > n && c->runs_needed >= STATS_REPORT_RUNS_COUNTABLE)
        add_warning(m, "underpowered",
                    "more than %zu runs per variant would be needed to resolve a %g%% change at "
                    "this spread (80%% power); %zu were given",
                    (size_t)STATS_REPORT_RUNS_COUNTABLE, o->noise * 100, n);
    else if (c->runs_needed > n)
        add_warning(m, "underpowered",
                    "about %zu runs per variant would resolve a %g%% change at this spread "
                    "(80%% power); %zu were given",
                    c->runs_needed, o->noise * 100, n);
    if ((c->welch.p < alpha) != (c->mw.p < alpha))
        add_warning(m, "tests_disagree",
                    "Welch (p = %.3g) and Mann-Whitney (p = %.3g) disagree at alpha = %g; "
                    "skew or outliers may drive the means",
                    c->welch.p, c->mw.p, alpha);
    if (!c->ratio_defined)
        add_warning(m, "ratio_undefined",
                    "the baseline's %g%% interval [%.6g, %.6g] reaches zero, so ratios and "
                    "relative changes are undefined; the verdict is decided on the difference of "
                    "means against %g%% of the baseline's |mean|",
                    o->confidence * 100, c->base_ci_low, c->base_ci_high, o->noise * 100);
}

/*
 * The frame every set is described and compared in (stats/sample.h): the
 * baseline's first value as offset, a power of two as scale. Returns 0 or
 * -ERANGE with a sentence in err.
 */
static int choose_frame(const struct stats_report *r, struct stats_frame *f, char *err,
                        size_t errlen)
{
    const double **v = calloc(r->nsets ? r->nsets : 1, sizeof(*v));
    size_t *n = calloc(r->nsets ? r->nsets : 1, sizeof(*n));
    int rc = -ENOMEM;
    if (v && n) {
        /* The baseline comes first even when it is empty; then it offers no offset. */
        for (size_t i = 0; i < r->nsets; i++) {
            v[i] = r->sets[i].values;
            n[i] = r->sets[i].n;
        }
        rc = stats_frame_choose(v, n, r->nsets, f, err, errlen);
    } else {
        err_set(err, errlen, ENOMEM, "%s", strerror(ENOMEM));
    }
    free(v);
    free(n);
    return rc;
}

int stats_report_analyse(struct stats_report *r, char *err, size_t errlen)
{
    struct stats_frame frame;
    int frc = choose_frame(r, &frame, err, errlen);
    if (frc)
        return frc;
    for (size_t i = 0; i < r->nsets; i++) {
        struct stats_report_set *s = &r->sets[i];
        s->described = false;
        if (!s->n)
            continue;
        int rc = describe(s, &r->opts, &frame);
        if (rc)
            return err_set(err, errlen, -rc, "%s: %s", s->name, strerror(-rc));
        s->described = true;
    }
    for (size_t i = 1; i < r->nsets; i++) {
        struct stats_report_cmp *m = &r->cmps[i - 1];
        m->other = i;
        m->compared = false;
        m->nwarnings = 0;
        if (r->sets[0].n < 2 || r->sets[i].n < 2)
            continue;
        int rc = stats_compare(&r->sets[0].sample, &r->sets[i].sample, &r->opts, &m->c);
        if (rc)
            return err_set(err, errlen, -rc, "comparing %s: %s", r->sets[i].name, strerror(-rc));
        compare_warnings(m, &r->sets[0], &r->sets[i], &r->opts);
        m->compared = true;
    }
    return 0;
}

bool stats_report_regressed(const struct stats_report *r)
{
    for (size_t i = 0; i + 1 < r->nsets; i++)
        if (r->cmps[i].compared && r->cmps[i].c.verdict.kind == STATS_REGRESSED)
            return true;
    return false;
}

void stats_report_free(struct stats_report *r)
{
    for (size_t i = 0; r->sets && i < r->nsets; i++) {
        stats_sample_free(&r->sets[i].sample);
        free(r->sets[i].values);
        free(r->sets[i].name);
    }
    free(r->sets);
    free(r->cmps);
    memset(r, 0, sizeof(*r));
}
