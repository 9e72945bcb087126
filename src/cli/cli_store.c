/*
 * `netab store copy`: experiments from one results store into another
 * (SQLite <-> PostgreSQL), with the target's own ids and nothing copied
 * twice (store/store_copy.h, docs/store.md "Copying between stores").
 */
#include <errno.h>
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_common.h"
#include "cli/cli_opts.h"
#include "store/store.h"
#include "store/store_copy.h"

static const char usage_text[] =
    "usage: netab store copy [--from STORE] --to STORE [--experiment ID]...\n"
    "\n"
    "Copies experiments (their plans, finished runs and intervals) and the\n"
    "single runs from one results store into another: an SQLite file or a\n"
    "PostgreSQL database (postgresql://... or postgres://...). The target\n"
    "gives them ids of its own; an experiment already copied is recognised\n"
    "(name, creation time, seed) and only its new runs are added, so copying\n"
    "twice duplicates nothing. Runs still running are left for a later copy.\n"
    "\n"
    "options:\n";

static const char usage_tail[] =
    "\n"
    "Passwords belong in ~/.pgpass (PGPASSFILE), a service file (PGSERVICE) or\n"
    "PGPASSWORD, not in the URL (docs/store.md). exit status: 0 copied; 2 a bad\n"
    "command line, or a store that cannot be read or written (each experiment\n"
    "is copied whole or not at all).\n";

#define MAX_IDS 256

struct copy_args {
    const char *from, *to;
    int64_t ids[MAX_IDS];
    size_t nids;
};

/* --experiment ID, repeatable. */
static int set_experiment(void *field, const char *value, const struct opt *o, char *err,
                          size_t errlen)
{
    struct copy_args *a = field;
    char *end;
    (void)o;
    errno = 0;
    long long v = strtoll(value, &end, 10);
    if (errno || end == value || *end || v <= 0)
        return err_set(err, errlen, EINVAL, "--experiment: '%s' is not an experiment id", value);
    if (a->nids == MAX_IDS)
        return err_set(err, errlen, EINVAL, "more than %d --experiment options", MAX_IDS);
    a->ids[a->nids++] = v;
    return 0;
}

static const struct opt options[] = {
    {"from", 0, "STORE",
     "the source (default: $NETAB_DB, else\n$XDG_DATA_HOME/netab/results.db); read only",
     opt_set_string, offsetof(struct copy_args, from), 0, 0, NULL},
    {"to", 0, "STORE", "the target (created if it is a file that does not exist)", opt_set_string,
     offsetof(struct copy_args, to), 0, 0, NULL},
    {"experiment", 0, "ID",
     "copy only this experiment of the source (repeatable;\ndefault: every experiment and the "
     "single runs)",
     set_experiment, 0, 0, 0, NULL},
    {0},
};

static const struct opt_table copy_cmd = {
    .name = "store copy",
    .usage = usage_text,
    .tail = usage_tail,
    .opts = options,
};

/* Returns -1 to go on, else the exit code. */
static int parse_args(int argc, char **argv, struct copy_args *a)
{
    memset(a, 0, sizeof(*a));
    int rc = cli_opts_parse(&copy_cmd, argc, argv, a);
    if (rc >= 0)
        return rc;
    if (cli_no_operands("store copy", argc, argv))
        return EXIT_USAGE;
    if (!a->to || !*a->to)
        return cli_usage_error("store copy", "where to? (--to STORE)");
    return -1;
}

static int store_copy_cmd(int argc, char **argv)
{
    struct copy_args a;
    int ex = parse_args(argc, argv, &a);
    if (ex >= 0)
        return ex;
    char from_path[4096], err[NB_ERRLEN * 2];
    if (store_default_path(a.from, from_path, sizeof(from_path), err, sizeof(err)) ||
        store_check_path(a.to, err, sizeof(err)))
        return cli_fail(EXIT_USAGE, "store copy", "%s", err);
    if (!strcmp(from_path, a.to))
        return cli_usage_error("store copy", "--from and --to are the same store");
    struct store *from = NULL, *to = NULL;
    ex = store_open(from_path, STORE_OPEN_READONLY, &from, err, sizeof(err)) ||
                 store_open(a.to, STORE_OPEN_CREATE, &to, err, sizeof(err)) ||
                 store_copy_all(from, to, a.ids, a.nids, stdout, err, sizeof(err))
             ? cli_fail(EXIT_ERROR, "store copy", "%s", err)
             : EXIT_OK;
    store_close(from);
    store_close(to);
    return ex;
}

int cli_store(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "copy"))
        return store_copy_cmd(argc - 1, argv + 1);
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        opt_table_help(&copy_cmd, stdout);
        return EXIT_OK;
    }
    if (argc < 2)
        return cli_usage_error("store", "which subcommand? (copy)");
    return cli_usage_error("store", "unknown subcommand '%s' (known: copy)", argv[1]);
}
