/* The sets of `netab stats` read into its report (stats_report_sets.h). */
#include "statsreport/stats_report_sets.h"

#include <errno.h>
#include <string.h>

/* Reads set i into r; *total counts the values of every set read so far. */
static int read_set(struct stats_report *r, const struct input_sets *s, size_t i,
                    const struct input_opts *o, size_t *total, char *err, size_t errlen)
{
    char shown[4200];
    struct input_values in = {0};
    input_sets_shown(s, i, shown, sizeof(shown));
    int rc = input_sets_read(s, i, o, shown, total, &in, err, errlen);
    if (rc)
        return rc;
    rc = stats_report_set_values(r, i, shown, input_format_name(in.format), in.metric, in.v, in.n);
    if (!rc)
        r->sets[i].fails = in.fails;
    input_values_free(&in);
    return rc ? err_set(err, errlen, -rc, "%s: %s", shown, strerror(-rc)) : 0;
}

int stats_report_read_sets(struct stats_report *r, const struct input_sets *s,
                           const struct input_opts *o, char *err, size_t errlen)
{
    size_t total = 0;
    if (s->n > STATS_REPORT_MAX_SETS)
        return err_set(err, errlen, E2BIG,
                       "%zu sets given; netab stats compares at most %d, so that each has its "
                       "own mark in the text plot and its own colour and shape in the figure",
                       s->n, STATS_REPORT_MAX_SETS);
    for (size_t i = 0; i < s->n; i++) {
        int rc = read_set(r, s, i, o, &total, err, errlen);
        if (rc)
            return rc;
    }
    /* The sets' unit, when every input names the same one: iperf's bits/s shown in Mbit/s. */
    for (size_t i = 0; i < s->n; i++) {
        double scale;
        const char *u = input_display_unit(r->sets[i].format, r->sets[i].metric, &scale);
        if (!*u || (i && (!r->unit || strcmp(u, r->unit) || scale != r->scale))) {
            r->unit = NULL;
            break;
        }
        r->unit = u;
        r->scale = scale;
    }
    return 0;
}
