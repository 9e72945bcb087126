#include "cli/cli_common.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "metric/metric.h"

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "netab %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n(see 'netab %s --help')\n", cmd);
    return EXIT_USAGE;
}

void cli_print_metric_names(unsigned flag)
{
    char names[1024];
    metric_names(flag, names, sizeof(names));
    fputs("\nmetric names (--metric):\n ", stdout);
    size_t col = 1;
    for (char *save = NULL, *w = strtok_r(names, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        if (col + 1 + strlen(w) > 78) {
            fputs("\n ", stdout);
            col = 1;
        }
        col += (size_t)printf(" %s", w);
    }
    fputs("\n", stdout);
}

int cli_unknown_option(const char *cmd, char *const argv[], const struct option *longopts)
{
    if (optopt)
        return cli_usage_error(cmd, "unknown option '-%c'", optopt);
    char hint[256];
    const char *arg = argv[optind - 1];
    return cli_usage_error(cmd, "unknown option '%s'%s", arg,
                           optmatch_hint(arg, longopts, hint, sizeof(hint)));
}

int cli_json_print(const char *cmd, json_t *doc)
{
    if (!doc) {
        fprintf(stderr, "netab %s: out of memory\n", cmd);
        return -ENOMEM;
    }
    int rc = json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
    json_decref(doc);
    if (rc || fputc('\n', stdout) == EOF) {
        fprintf(stderr, "netab %s: cannot write the JSON document: %s\n", cmd, strerror(errno));
        return -EIO;
    }
    return 0;
}
