/*
 * `netab store copy`: experiments from one results store into another
 * (SQLite <-> PostgreSQL), with the target's own ids and nothing copied
 * twice (store/store_copy.h, docs/store.md "Copying between stores").
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_common.h"
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
    "options:\n"
    "  --from STORE        the source (default: $NETAB_DB, else\n"
    "                      $XDG_DATA_HOME/netab/results.db); read only\n"
    "  --to STORE          the target (created if it is a file that does not exist)\n"
    "  --experiment ID     copy only this experiment of the source (repeatable;\n"
    "                      default: every experiment and the single runs)\n"
    "  -h, --help          this text\n"
    "\n"
    "Passwords belong in ~/.pgpass (PGPASSFILE), a service file (PGSERVICE) or\n"
    "PGPASSWORD, not in the URL (docs/store.md). exit status: 0 copied; 2 a bad\n"
    "command line, or a store that cannot be read or written (each experiment\n"
    "is copied whole or not at all).\n";

enum { OPT_FROM = 256, OPT_TO, OPT_EXPERIMENT };

static const struct option long_opts[] = {
    {"from", required_argument, NULL, OPT_FROM},
    {"to", required_argument, NULL, OPT_TO},
    {"experiment", required_argument, NULL, OPT_EXPERIMENT},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

#define MAX_IDS 256

struct copy_args {
    const char *from, *to;
    int64_t ids[MAX_IDS];
    size_t nids;
};

/* Returns -1 to go on, else the exit code. */
static int parse_args(int argc, char **argv, struct copy_args *a)
{
    memset(a, 0, sizeof(*a));
    opterr = 0;
    optind = 1;
    int c;
    while ((c = optmatch_next(argc, argv, ":h", long_opts)) != -1) {
        char *end;
        switch (c) {
        case OPT_FROM:
            a->from = optarg;
            break;
        case OPT_TO:
            a->to = optarg;
            break;
        case OPT_EXPERIMENT:
            errno = 0;
            long long v = strtoll(optarg, &end, 10);
            if (errno || end == optarg || *end || v <= 0)
                return cli_usage_error("store copy", "--experiment: '%s' is not an experiment id",
                                       optarg);
            if (a->nids == MAX_IDS)
                return cli_usage_error("store copy", "more than %d --experiment options", MAX_IDS);
            a->ids[a->nids++] = v;
            break;
        case 'h':
            fputs(usage_text, stdout);
            return EXIT_OK;
        case ':':
            return cli_usage_error("store copy", "%s needs a value", argv[optind - 1]);
        default:
            return cli_unknown_option("store copy", argv, long_opts);
        }
    }
    if (optind < argc)
        return cli_usage_error("store copy", "unexpected argument '%s'", argv[optind]);
    if (!a->to || !*a->to)
        return cli_usage_error("store copy", "where to? (--to STORE)");
    return -1;
}

/* Copies one experiment (0: the single runs) and says what happened. */
static int copy_one(struct store *from, struct store *to, int64_t id)
{
    struct store_copy_result r;
    char err[NB_ERRLEN * 2];
    if (store_copy_experiment(from, to, id, &r, err, sizeof(err))) {
        fprintf(stderr, "netab store copy: %s\n", err);
        return EXIT_ERROR;
    }
    if (id)
        printf("experiment %lld -> %lld%s: %ld runs copied, %ld already there", (long long)id,
               (long long)r.to_id, r.created ? " (new)" : "", r.runs_copied, r.runs_present);
    else
        printf("single runs: %ld copied, %ld already there", r.runs_copied, r.runs_present);
    if (r.runs_left_running)
        printf(", %ld still running (not copied)", r.runs_left_running);
    printf("\n");
    return EXIT_OK;
}

static int copy_all(struct store *from, struct store *to, const struct copy_args *a)
{
    char err[NB_ERRLEN * 2];
    if (a->nids) {
        int ex = EXIT_OK;
        for (size_t i = 0; i < a->nids && ex == EXIT_OK; i++)
            ex = copy_one(from, to, a->ids[i]);
        return ex;
    }
    struct store_experiment *x;
    size_t n;
    if (store_experiment_list(from, &x, &n, err, sizeof(err))) {
        fprintf(stderr, "netab store copy: %s\n", err);
        return EXIT_ERROR;
    }
    int ex = EXIT_OK;
    for (size_t i = 0; i < n && ex == EXIT_OK; i++)
        ex = copy_one(from, to, x[i].id);
    store_experiment_list_free(x, n);
    return ex == EXIT_OK ? copy_one(from, to, 0) : ex;
}

static int store_copy_cmd(int argc, char **argv)
{
    struct copy_args a;
    int ex = parse_args(argc, argv, &a);
    if (ex >= 0)
        return ex;
    char from_path[4096], err[NB_ERRLEN * 2];
    if (store_default_path(a.from, from_path, sizeof(from_path), err, sizeof(err)) ||
        store_check_path(a.to, err, sizeof(err))) {
        fprintf(stderr, "netab store copy: %s\n", err);
        return EXIT_USAGE;
    }
    if (!strcmp(from_path, a.to))
        return cli_usage_error("store copy", "--from and --to are the same store");
    struct store *from = NULL, *to = NULL;
    if (store_open(from_path, STORE_OPEN_READONLY, &from, err, sizeof(err)) ||
        store_open(a.to, STORE_OPEN_CREATE, &to, err, sizeof(err))) {
        fprintf(stderr, "netab store copy: %s\n", err);
        store_close(from);
        return EXIT_ERROR;
    }
    ex = copy_all(from, to, &a);
    store_close(from);
    store_close(to);
    return ex;
}

int cli_store(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "copy"))
        return store_copy_cmd(argc - 1, argv + 1);
    if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        fputs(usage_text, stdout);
        return EXIT_OK;
    }
    if (argc < 2)
        return cli_usage_error("store", "which subcommand? (copy)");
    return cli_usage_error("store", "unknown subcommand '%s' (known: copy)", argv[1]);
}
