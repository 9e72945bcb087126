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

/* --id N: a session id, from 1. */
static int set_id(void *field, const char *value, const struct opt *o, char *err, size_t errlen)
{
    uint64_t u = 0;
    if (opt_set_u64(&u, value, o, err, errlen) || !u || u > INT64_MAX)
        return err_set(err, errlen, EINVAL, "--id: '%s' is not a session id", value);
    *(int64_t *)field = (int64_t)u;
    return 0;
}

static const struct opt options[] = {
    {"good", 0, "REV", "the reference that is good (step: default the bisection's\nfirst mark)",
     opt_set_string, FIELD(cfg.good), 0, 0, NULL},
    {"bad", 0, "REV", "the reference that is bad (step: as --good)", opt_set_string, FIELD(cfg.bad),
     0, 0, NULL},
    {"build", 0, "CMD",
     "shell command building the tree, in its top directory;\na commit whose build fails is "
     "skipped, not called bad",
     opt_set_string, FIELD(cfg.build), 0, 0, NULL},
    {"build-timeout", 0, "S", "seconds a build may take (default 3600)", opt_set_real,
     FIELD(cfg.build_timeout), 1, 7 * 86400, NULL},
    {"setup", 0, "CMD", "shell command before each run, in the tree measured", opt_set_string,
     FIELD(cfg.setup), 0, 0, NULL},
    {"experiment", 0, "FILE",
     "boot the file's dut: into each side's build ({commit} in its one variant's boot and "
     "expect) and check its identity",
     opt_set_string, FIELD(cfg.experiment), 0, 0, NULL},
    {"runs", 0, "N", "measured runs per side before the first look (default 5)", opt_set_unsigned,
     FIELD(cfg.runs), 2, 1000, NULL},
    {"max-runs", 0, "M", "sequential looks up to M runs per side (default 20)", opt_set_unsigned,
     FIELD(cfg.max_runs), 2, 1000, NULL},
    {"warmup", 0, "W", "discarded warm-up runs per side (default 0)", opt_set_unsigned,
     FIELD(cfg.warmup), 0, 1000, NULL},
    {"seed", 0, "N", "seed of the order and the bootstrap (default: random)", opt_set_u64,
     FIELD(cfg.seed), 0, 0, NULL},
    {"metric", 0, "M", "the deciding metric (as netab compare; default throughput)", opt_set_string,
     FIELD(cfg.metric), 0, 0, NULL},
    {"lower-is-better", 0, NULL, "direction of a dotted-path metric: smaller is better",
     opt_set_true, FIELD(cfg.lower_is_better), 0, 0, NULL},
    {"higher-is-better", 0, NULL, "direction of a dotted-path metric: larger is better",
     opt_set_false, FIELD(cfg.lower_is_better), 0, 0, NULL},
    {"noise", 0, "PCT", "noise floor of the references (default 1)", opt_set_pct, FIELD(cfg.noise),
     0, 100, NULL},
    CLI_CONFIDENCE_OPT(FIELD(cfg.confidence)),
    {"timeout", 0, "S", "kill a run after S seconds (default as netab compare)", opt_set_real,
     FIELD(cfg.timeout), 1, 86400, NULL},
    CLI_DB_OPT(FIELD(db_given)),
    {"id", 0, "N", "resume: the session (default the newest unfinished one)", set_id, FIELD(id), 0,
     0, NULL},
    {"json", 0, NULL, "one JSON document on stdout", opt_set_true, FIELD(json), 0, 0, NULL},
    {0},
};

const struct opt_table cli_bisect_cmd = {
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
    .given = OPT_GIVEN_AT(struct cli_bisect_args, given),
};

int cli_bisect_parse(int argc, char **argv, struct cli_bisect_args *a)
{
    memset(a, 0, sizeof(*a));
    struct bisect_config *cfg = &a->cfg;
    bisect_config_init(cfg);
    int rc = cli_opts_parse(&cli_bisect_cmd, argc, argv, a);
    if (rc >= 0)
        return rc;
    cfg->direction_given = opt_given(&cli_bisect_cmd, a, "lower-is-better") ||
                           opt_given(&cli_bisect_cmd, a, "higher-is-better");
    if (cli_run_words(CMD, argc, argv, &cfg->common, &cfg->ncommon))
        return EXIT_USAGE;
    char err[NB_ERRLEN];
    if (bisect_config_check(cfg, opt_given(&cli_bisect_cmd, a, "max-runs"), err, sizeof(err)))
        return cli_usage_error(CMD, "%s", err);
    if (store_default_path(a->db_given, a->db, sizeof(a->db), err, sizeof(err)))
        return cli_fail(EXIT_USAGE, CMD, "%s", err);
    cfg->db = a->db;
    return -1;
}
