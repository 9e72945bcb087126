#include "cli/cli_opts.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_common.h"
#include "util/err.h"

int cli_opts_parse(const struct opt_table *t, int argc, char **argv, void *args)
{
    /* Room for a long argument quoted in "unknown option '...'". */
    char err[NB_ERRLEN * 16];
    switch (opt_table_parse(t, argc, argv, args, err, sizeof(err))) {
    case OPT_GO_ON:
        return -1;
    case OPT_HELP:
        opt_table_help(t, stdout);
        return EXIT_OK;
    default:
        return cli_usage_error(t->name, "%s", err);
    }
}

int cli_set_pairs(void *field, const char *value, const struct opt *o, char *err, size_t errlen)
{
    (void)o;
    if (strcmp(value, "all") && strcmp(value, "baseline"))
        return err_set(err, errlen, EINVAL, "--pairs: '%s' is not all or baseline", value);
    *(bool *)field = !strcmp(value, "all");
    return 0;
}

int cli_set_noise(void *field, const char *value, const struct opt *o, char *err, size_t errlen)
{
    int rc = opt_set_pct(field, value, o, err, errlen);
    if (!rc && *(double *)field >= 1)
        return err_set(err, errlen, EINVAL,
                       "--noise: '%s' is not a number strictly between 0 and 100", value);
    return rc;
}
