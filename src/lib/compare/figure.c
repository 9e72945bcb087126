/* `netab compare --plot FILE`: the deciding metric's figure. */
#include "compare/figure.h"

#include <errno.h>
#include <stdio.h>

#include "statsreport/stats_report_plot.h"

int compare_draw_figure(const struct compare_result *res, size_t *points, char *err, size_t errlen)
{
    const struct compare_config *cfg = res->c->cfg;
    struct compare_metric_report m;
    if (compare_analyse_metric(res, res->c->decide, &m))
        return -ENOMEM;
    int rc = 0;
    char axis[160];
    if (!m.ok) {
        rc = err_set(err, errlen, EINVAL, "no figure: %s", m.why);
    } else {
        struct report_plot_opts po;
        report_plot_opts_default(&po);
        po.width = cfg->figure_w > 0 ? cfg->figure_w : po.width;
        po.height = cfg->figure_h > 0 ? cfg->figure_h : po.height;
        po.log = cfg->figure_log;
        snprintf(axis, sizeof(axis), "%s (%s)", m.m->name, *m.m->unit ? m.m->unit : "as measured");
        po.axis = cfg->figure_axis ? cfg->figure_axis : axis;
        if (stats_report_plot(&m.r, &po, cfg->figure, points, err, errlen))
            rc = -EINVAL;
    }
    compare_metric_report_free(&m);
    return rc;
}
