/* The figure options shared by stats, compare, report and run. */
#include "cli/cli_plot.h"

#include <errno.h>
#include <stdio.h>

#include "cli/cli.h"
#include "cli/cli_common.h"
#include "plot/plot.h"

int cli_plot_format(const char *path, char *err, size_t errlen)
{
    char why[NB_ERRLEN];
    enum plot_format f;
    if (path && plot_format_of(path, &f, why, sizeof(why)))
        return err_set(err, errlen, EINVAL, "--plot %s", why);
    return 0;
}

int cli_plot_check(const char *cmd, const struct cli_plot *p)
{
    char err[NB_ERRLEN * 2];
    return cli_plot_format(p->path, err, sizeof(err)) ? cli_usage_error(cmd, "%s", err) : 0;
}

int cli_plot_set_size(void *field, const char *value, const struct opt *o, char *err, size_t errlen)
{
    long v;
    char name[64];
    snprintf(name, sizeof(name), "--%s", o->name);
    if (!optval_int(name, value, (long)o->lo, (long)o->hi, &v, err, errlen))
        return -EINVAL;
    *(double *)field = (double)v;
    return 0;
}
