/* The command line of `netab bisect run|step|resume` (docs/bisect.md). */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_bisect.h"
#include "cli/cli_common.h"
#include "cli/cli_opts.h"

#define CMD "bisect"

#define FIELD(f) offsetof(struct cli_bisect_args, f)

/* --max-runs: also remembered as given, so that --runs does not raise it. */
static int set_max_runs(void *field, const char *value, const struct cli_opt *o, char *err,
                        size_t errlen)
{
    struct cli_bisect_args *a = field;
    a->max_given = true;
    return cli_set_unsigned(&a->cfg.max_runs, value, o, err, errlen);
}

/* --seed N and --id N: whole numbers (an id from 1). */
static int set_whole(void *field, const char *value, const struct cli_opt *o, char *err,
                     size_t errlen)
{
    struct cli_bisect_args *a = field;
    bool id = !strcmp(o->name, "id");
    char *e;
    errno = 0;
    unsigned long long u = strtoull(value, &e, 10);
    if (e == value || *e || errno || *value == '-' || (id && (!u || u > INT64_MAX)))
        return err_set(err, errlen, EINVAL, "--%s: '%s' is not a %s", o->name, value,
                       id ? "session id" : "whole number");
    if (id) {
        a->id = (int64_t)u;
    } else {
        a->cfg.seed = u;
        a->seed_given = true;
    }
    return 0;
}

static int set_direction(void *field, const char *value, const struct cli_opt *o, char *err,
                         size_t errlen)
{
    struct cli_bisect_args *a = field;
    (void)value;
    (void)err;
    (void)errlen;
    a->cfg.lower_is_better = !strcmp(o->name, "lower-is-better");
    a->cfg.direction_given = true;
    return 0;
}

static const struct cli_opt options[] = {
    {"good", 0, "REV", "the reference that is good (step: default the bisection's\nfirst mark)",
     cli_set_string, FIELD(cfg.good), 0, 0},
    {"bad", 0, "REV", "the reference that is bad (step: as --good)", cli_set_string, FIELD(cfg.bad),
     0, 0},
    {"build", 0, "CMD",
     "shell command building the tree, in its top directory;\na commit whose build fails is "
     "skipped, not called bad",
     cli_set_string, FIELD(cfg.build), 0, 0},
    {"build-timeout", 0, "S", "seconds a build may take (default 3600)", cli_set_real,
     FIELD(cfg.build_timeout), 1, 7 * 86400},
    {"setup", 0, "CMD", "shell command before each run, in the tree measured", cli_set_string,
     FIELD(cfg.setup), 0, 0},
    {"experiment", 0, "FILE",
     "boot the file's dut: into each side's build ({commit} in its one variant's boot and "
     "expect) and check its identity",
     cli_set_string, FIELD(cfg.experiment), 0, 0},
    {"runs", 0, "N", "measured runs per side before the first look (default 5)", cli_set_unsigned,
     FIELD(cfg.runs), 2, 1000},
    {"max-runs", 0, "M", "sequential looks up to M runs per side (default 20)", set_max_runs, 0, 2,
     1000},
    {"warmup", 0, "W", "discarded warm-up runs per side (default 0)", cli_set_unsigned,
     FIELD(cfg.warmup), 0, 1000},
    {"seed", 0, "N", "seed of the order and the bootstrap (default: random)", set_whole, 0, 0, 0},
    {"metric", 0, "M", "the deciding metric (as netab compare; default throughput)", cli_set_string,
     FIELD(cfg.metric), 0, 0},
    {"lower-is-better", 0, NULL, "direction of a dotted-path metric: smaller is better",
     set_direction, 0, 0, 0},
    {"higher-is-better", 0, NULL, "direction of a dotted-path metric: larger is better",
     set_direction, 0, 0, 0},
    {"noise", 0, "PCT", "noise floor of the references (default 1)", cli_set_pct, FIELD(cfg.noise),
     0, 100},
    {"confidence", 0, "P", "confidence level in percent (default 95)", cli_set_pct,
     FIELD(cfg.confidence), 50, 99.99},
    {"timeout", 0, "S", "kill a run after S seconds (default as netab compare)", cli_set_real,
     FIELD(cfg.timeout), 1, 86400},
    {"db", 0, "PATH", "results store (default $NETAB_DB or\n~/.local/share/netab/results.db)",
     cli_set_string, FIELD(db_given), 0, 0},
    {"id", 0, "N", "resume: the session (default the newest unfinished one)", set_whole, 0, 0, 0},
    {"json", 0, NULL, "one JSON document on stdout", cli_set_true, FIELD(json), 0, 0},
    {0},
};

const struct cli_cmd cli_bisect_cmd = {
    .name = CMD,
    .usage = "usage: netab bisect run --good REV --bad REV [options] [-- RUN OPTIONS]\n"
             "       netab bisect step [--good REV --bad REV] [options] [-- RUN OPTIONS]\n"
             "       netab bisect resume [--db PATH] [--id N] [--json]\n"
             "\n"
             "Finds the first commit between GOOD and BAD whose measurement is like BAD's,\n"
             "run in a git work tree. GOOD and BAD are measured interleaved first and must\n"
             "differ beyond the noise floor; then at every step git bisect checks out, the\n"
             "commit is built, and its runs are interleaved with fresh runs of GOOD (whose\n"
             "tree is extracted and built in a temporary directory). The commit is bad when\n"
             "the whole interval of its change against GOOD lies beyond the midpoint between\n"
             "GOOD and BAD, good when wholly before it; undecided after --max-runs: skipped.\n"
             "'step' is one such decision for 'git bisect run' (exit 0 good, 1 bad, 125 skip).\n"
             "\n",
    .tail = "\n"
            "exit status: run/resume: 0 first bad commit found, 1 only skipped commits left\n"
            "(the range is printed), 2 bad usage, refusal, error or a DUT that never came\n"
            "back (resume continues); step: 0 good, 1 bad, 125 skip, 128 error (git bisect\n"
            "run then stops).\n",
    .opts = options,
    .in_order = true,
};

int cli_bisect_parse(int argc, char **argv, struct cli_bisect_args *a)
{
    memset(a, 0, sizeof(*a));

    struct bisect_config *cfg = &a->cfg;
    cfg->runs = 5;
    cfg->max_runs = 20;
    cfg->noise = 0.01;
    cfg->confidence = 0.95;
    cfg->self = "/proc/self/exe";
    int rc = cli_opts_parse(&cli_bisect_cmd, argc, argv, a);
    if (rc >= 0)
        return rc;
    if (optind < argc) {
        if (strcmp(argv[optind - 1], "--"))
            return cli_usage_error(CMD,
                                   "unexpected argument '%s' (options for every run go "
                                   "after --)",
                                   argv[optind]);
        cfg->common = argv + optind;
        cfg->ncommon = (size_t)(argc - optind);
    }
    if (!a->max_given && cfg->max_runs < cfg->runs)
        cfg->max_runs = cfg->runs;
    if (cfg->max_runs < cfg->runs)
        return cli_usage_error(CMD, "--max-runs %u is below --runs %u", cfg->max_runs, cfg->runs);
    char err[NB_ERRLEN];
    if (store_default_path(a->db_given, a->db, sizeof(a->db), err, sizeof(err))) {
        fprintf(stderr, "netab bisect: %s\n", err);
        return EXIT_USAGE;
    }
    cfg->db = a->db;
    return -1;
}
