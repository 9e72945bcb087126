/*
 * `netab layout OLD NEW [--hot FILE|LIST] [--line BYTES] [--json]`: compares
 * the code layout of two builds (docs/layout.md). Argument parsing and
 * printing only; the symbol readers, the comparison and the report are
 * libnetab's layout module.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_common.h"
#include "layout/layout_diff.h"
#include "cli/cli_layout_hot.h"
#include "layout/layout_hot.h"
#include "layout/layout_report.h"
#include "symbols/symtab.h"

static const char usage_text[] =
    "usage: netab layout OLD NEW [--hot FILE|LIST | --hot-from RUN|EXP[:VARIANT]]\n"
    "                    [--line BYTES] [--json]\n"
    "                            [--all] [--top N]\n"
    "       netab layout --show-hot\n"
    "\n"
    "Compares where the functions of two builds lie in memory: for each\n"
    "function in both, its offset within a cache line and the number of\n"
    "lines it spans; functions only in one build as added or removed; size\n"
    "changes as bloat-o-meter shows them; and whether the hot functions\n"
    "moved within their lines, so a throughput change can be told from an\n"
    "alignment accident. OLD and NEW are ELF files (vmlinux, a .ko, a shared\n"
    "object, an executable; .symtab, else .dynsym) or System.map,\n"
    "/proc/kallsyms or `nm -n [-S]` text. See docs/layout.md.\n"
    "\n"
    "  --hot FILE|LIST  the hot functions: a file of names or globs (one a\n"
    "                   line), perf report --stdio or perf script output,\n"
    "                   '-' for stdin, or a comma list (ip_rcv,nf_nat_*);\n"
    "                   default: the built-in network paths (--show-hot)\n"
    "  --line BYTES     cache line size, a power of two 8..4096 (default 64)\n"
    "  --top N          size changes shown in text (default 10, 0 = all)\n"
    "  --all            also list every function in the text report\n"
    "  --json           one JSON document with every function\n"
    "  --hot-from RUN.json|EXPERIMENT[:VARIANT]\n"
    "                   the hot functions from sampled profiles (netab run\n"
    "                   --profile): a run's JSON document, or an experiment's\n"
    "                   stored runs (--db PATH); those with >= 0.5% of samples\n"
    "  --db PATH        the results store for --hot-from EXPERIMENT\n"
    "  --show-hot       print the built-in hot patterns and exit\n"
    "  -h, --help       this text\n"
    "\n"
    "Exit status: 0 when compared, 2 for a bad command line or input file.\n";

struct layout_args {
    const char *old_path, *new_path, *hot, *hot_from, *db;
    long line, top;
    bool json, all, show_hot;
};

/* Parses argv into a; returns EXIT_OK to go on, or the exit status (help, usage error). */
static int parse_args(int argc, char **argv, struct layout_args *a, bool *done)
{
    enum {
        OPT_HOT = 256,
        OPT_LINE,
        OPT_TOP,
        OPT_JSON,
        OPT_ALL,
        OPT_SHOW_HOT,
        OPT_HOT_FROM,
        OPT_DB
    };
    static const struct option opts[] = {{"hot", required_argument, NULL, OPT_HOT},
                                         {"line", required_argument, NULL, OPT_LINE},
                                         {"top", required_argument, NULL, OPT_TOP},
                                         {"json", no_argument, NULL, OPT_JSON},
                                         {"all", no_argument, NULL, OPT_ALL},
                                         {"show-hot", no_argument, NULL, OPT_SHOW_HOT},
                                         {"hot-from", required_argument, NULL, OPT_HOT_FROM},
                                         {"db", required_argument, NULL, OPT_DB},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    char err[NB_ERRLEN];
    int c;
    *a = (struct layout_args){.line = 64, .top = 10};
    *done = false;
    optind = 1;
    while ((c = optmatch_next(argc, argv, ":h", opts)) != -1) {
        switch (c) {
        case OPT_HOT:
            a->hot = optarg;
            break;
        case OPT_HOT_FROM:
            a->hot_from = optarg;
            break;
        case OPT_DB:
            a->db = optarg;
            break;
        case OPT_LINE:
            if (!optval_int("--line", optarg, 8, 4096, &a->line, err, sizeof(err)))
                return cli_usage_error("layout", "%s", err);
            if (a->line & (a->line - 1))
                return cli_usage_error("layout", "--line: %ld is not a power of two", a->line);
            break;
        case OPT_TOP:
            if (!optval_int("--top", optarg, 0, 1000000, &a->top, err, sizeof(err)))
                return cli_usage_error("layout", "%s", err);
            break;
        case OPT_JSON:
            a->json = true;
            break;
        case OPT_ALL:
            a->all = true;
            break;
        case OPT_SHOW_HOT:
            a->show_hot = true;
            break;
        case 'h':
            fputs(usage_text, stdout);
            *done = true;
            return EXIT_OK;
        case ':':
            return cli_usage_error("layout", "%s needs a value", argv[optind - 1]);
        default:
            return cli_unknown_option("layout", argv, opts);
        }
    }
    if (a->show_hot) {
        *done = true;
        for (const char *const *p = layout_hot_builtin_patterns(); *p; p++)
            printf("%s\n", *p);
        return EXIT_OK;
    }
    if (a->hot && a->hot_from)
        return cli_usage_error("layout", "--hot and --hot-from are two sources: give one");
    if (argc - optind != 2)
        return cli_usage_error("layout", "give two files, OLD and NEW (got %d)", argc - optind);
    a->old_path = argv[optind];
    a->new_path = argv[optind + 1];
    return EXIT_OK;
}

/* Reports a bad input: on stderr, and for --json also as the document on stdout. */
static int input_error(const struct layout_args *a, const char *msg)
{
    fprintf(stderr, "netab layout: %s\n", msg);
    if (a->json) {
        json_t *doc = json_pack("{s:s}", "error", msg);
        char *s = doc ? json_dumps(doc, JSON_INDENT(2)) : NULL;
        if (s)
            printf("%s\n", s);
        free(s);
        json_decref(doc);
    }
    return EXIT_USAGE;
}

static int print_json(const struct layout_diff *d, const struct layout_input *in)
{
    json_t *doc = layout_report_json(d, in);
    if (doc && json_object_set_new(doc, "error", json_null())) {
        json_decref(doc);
        doc = NULL;
    }
    char *s = doc ? json_dumps(doc, JSON_INDENT(2)) : NULL;
    json_decref(doc);
    if (!s) {
        fprintf(stderr, "netab layout: out of memory\n");
        return EXIT_ERROR;
    }
    printf("%s\n", s);
    free(s);
    return EXIT_OK;
}

int cli_layout(int argc, char **argv)
{
    struct layout_args a;
    bool done;
    int rc = parse_args(argc, argv, &a, &done);
    if (rc != EXIT_OK || done)
        return rc;
    char err[NB_ERRLEN * 2];
    struct symtab old = {0}, new = {0};
    struct layout_hot hot = {0};
    struct layout_diff d = {0};
    int lrc = a.hot        ? layout_hot_load(a.hot, &hot, err, sizeof(err))
              : a.hot_from ? cli_layout_hot_from(a.hot_from, a.db, &hot, err, sizeof(err))
                           : layout_hot_builtin(&hot);
    if (!a.hot && !a.hot_from && lrc)
        snprintf(err, sizeof(err), "out of memory");
    if (!lrc)
        lrc = symtab_load(a.old_path, &old, err, sizeof(err));
    if (!lrc)
        lrc = symtab_load(a.new_path, &new, err, sizeof(err));
    if (lrc) {
        rc = input_error(&a, err);
        goto out;
    }
    if (layout_diff_build(&old, &new, &hot, (unsigned)a.line, &d)) {
        fprintf(stderr, "netab layout: out of memory\n");
        rc = EXIT_ERROR;
        goto out;
    }
    struct layout_input in = {a.old_path, a.new_path, &old, &new, &hot};
    if (a.json)
        rc = print_json(&d, &in);
    else
        layout_report_text(stdout, &d, &in, (size_t)a.top, a.all);
out:
    layout_diff_free(&d);
    layout_hot_free(&hot);
    symtab_free(&old);
    symtab_free(&new);
    return rc;
}
