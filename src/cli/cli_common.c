#include "cli/cli_common.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "metric/metric.h"
#include "util/err.h"
#include "util/jsonout.h"
#include "util/printable.h"
#include "util/textwrap.h"

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "netab %s: ", cmd);
    va_start(ap, fmt);
    (void)printable_vfprintf(stderr, fmt, ap); /* it may quote outside text */
    va_end(ap);
    fprintf(stderr, "\n(see 'netab %s --help')\n", cmd);
    return EXIT_USAGE;
}

int cli_fail(int status, const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "netab %s: ", cmd);
    va_start(ap, fmt);
    (void)printable_vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return status;
}

int cli_no_operands(const char *cmd, int argc, char **argv)
{
    if (optind < argc)
        return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
    return 0;
}

int cli_run_words(const char *cmd, int argc, char **argv, char ***words, size_t *n)
{
    if (optind >= argc)
        return 0;
    /* getopt stopped at "--" (and skipped it) or at a stray argument. */
    if (strcmp(argv[optind - 1], "--"))
        return cli_usage_error(cmd, "unexpected argument '%s' (options for every run go after --)",
                               argv[optind]);
    *words = argv + optind;
    *n = (size_t)(argc - optind);
    return 0;
}

void cli_print_metric_names(unsigned flag)
{
    char names[1024];
    metric_names(flag, names, sizeof(names));
    fputs("\nmetric names (--metric):\n", stdout);
    text_wrap(stdout, 78, "  ", "  ", names);
}

bool cli_parse_id(const char *cmd, const char *verb, const char *noun, const char *operand,
                  int64_t *id)
{
    long v;
    char err[NB_ERRLEN];
    bool ok = operand && optval_int(verb, operand, 1, INT64_MAX, &v, err, sizeof(err));
    if (!operand)
        cli_usage_error(cmd, "%s: which %s? (an ID from 'netab %s list')", verb, noun, cmd);
    else if (!ok)
        cli_usage_error(cmd, "%s", err);
    else
        *id = v;
    return ok;
}

int cli_json_print(const char *cmd, json_t *doc)
{
    if (!doc) {
        fprintf(stderr, "netab %s: out of memory\n", cmd);
        return -ENOMEM;
    }
    int rc = jsonout_write(stdout, doc);
    json_decref(doc);
    if (rc) {
        fprintf(stderr, "netab %s: cannot write the JSON document: %s\n", cmd, strerror(errno));
        return -EIO;
    }
    return 0;
}

#define BAR_WIDTH 30

void cli_progress_bar(struct cli_progress *p, size_t done, size_t total, char empty,
                      const char *eta, const char *tail)
{
    if (!p->tty)
        return;
    char bar[BAR_WIDTH + 1];
    size_t fill = total ? done * BAR_WIDTH / total : 0;
    for (size_t i = 0; i < BAR_WIDTH; i++)
        bar[i] = i < fill ? '#' : empty;
    bar[BAR_WIDTH] = '\0';
    fprintf(stderr, "\r\033[K[%s] %zu/%zu  ETA %s  %s", bar, done, total, eta, tail);
    p->shown = true;
    fflush(stderr);
}

void cli_progress_clear(struct cli_progress *p)
{
    if (p->shown)
        fputs("\r\033[K", stderr);
    p->shown = false;
}

void cli_signals_catch(struct cli_signals *s, void (*handler)(int), const int *sigs)
{
    struct sigaction sa = {.sa_handler = handler};
    sigemptyset(&sa.sa_mask);
    *s = (struct cli_signals){0};
    for (size_t i = 0; i < CLI_SIGNALS_MAX && sigs[i]; i++) {
        s->sig[i] = sigs[i];
        sigaction(sigs[i], &sa, &s->old[i]);
    }
}

void cli_signals_restore(const struct cli_signals *s)
{
    for (size_t i = 0; i < CLI_SIGNALS_MAX && s->sig[i]; i++)
        sigaction(s->sig[i], &s->old[i], NULL);
}
