/*
 * Experiment files: a campaign of `netab run` invocations described in YAML
 * (docs/experiment.md). This module parses and validates a file, expands its
 * matrix into cells and produces the `netab run` arguments of each run. It
 * runs nothing itself.
 *
 * Ownership: every structure returned here belongs to the caller and is
 * released with the matching *_free() function; strings inside a structure
 * belong to that structure. Errors follow libnetab's convention: 0 or a
 * negative errno.
 */
#ifndef NETAB_EXPERIMENT_EXPERIMENT_H
#define NETAB_EXPERIMENT_EXPERIMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "util/err.h"

/* At most this many errors are kept; later ones are only counted in `dropped`. */
#define EXP_ERRORS_MAX 100
/* A matrix may not expand to more cells than this. */
#define EXP_MAX_CELLS 10000

/* One problem found in a file. line and col are 1-based; 0 when there is no position. */
struct exp_error {
    int line, col;
    char msg[NB_ERRLEN];
};

/* A growing list of errors, sorted by position once loading is done. Zero-initialise it. */
struct exp_errors {
    struct exp_error *v;
    size_t n, cap;
    size_t dropped; /* errors beyond EXP_ERRORS_MAX */
};

void exp_errors_free(struct exp_errors *errs);

/* How the machine is reset between runs. */
enum exp_reset { EXP_RESET_NONE, EXP_RESET_REBOOT };

/* The plan's order: randomized and interleaved (the default), or one variant after another. */
enum exp_order { EXP_ORDER_RANDOMIZED, EXP_ORDER_BLOCKED };

/* The DUT's identity unless dut.identity says otherwise: <netab> is dut.netab or "netab". */
#define EXP_DUT_IDENTITY_ARGS "env --identity"
/* How long a DUT may take to answer again after its boot command, unless dut.boot_timeout. */
#define EXP_DUT_BOOT_TIMEOUT_S 600.0

/*
 * A device under test reached with the system's OpenSSH client (dut: in the
 * file, docs/experiment.md): where the measured runs' server lives, and
 * where hooks with `on: dut` and every variant's boot run.
 */
struct exp_dut {
    char *name;          /* duts: the DUT's name ([A-Za-z0-9._-]+, unique); NULL for dut: */
    char *ssh;           /* OpenSSH destination, user@host; never starts with '-' */
    char *ssh_opts;      /* extra ssh arguments, split shell-like (never expanded); NULL if none */
    char *server;        /* the address netab run targets; NULL = the host part of ssh */
    long port;           /* the DUT server's port; 0 = netab's default */
    bool start_server;   /* start `netab server` on the DUT when none answers (default true) */
    char *netab;         /* netab on the DUT; NULL = "netab" from its PATH */
    char *identity;      /* the command printing the DUT's identity; NULL = the default */
    double boot_timeout; /* seconds a boot may take until the DUT answers again */
};

/* The value kinds of `netab run` options (see experiment_keys). */
enum exp_kind {
    EXP_STR,
    EXP_TESTNAME,
    EXP_INT,
    EXP_SIZE,
    EXP_SECONDS,
    EXP_RATE,
    EXP_BOOL,
    EXP_PROTOCOL, /* "netab" or "iperf3" (--iperf3, docs/iperf3.md) */
    EXP_DUT,      /* a DUT's name (matrix axis dut:, experiment_dut_key); no netab run option */
};

/* One key of the test: mapping and the matrix, and the `netab run` option it becomes. */
struct exp_key {
    const char *name; /* YAML key, e.g. "streams" */
    const char *opt;  /* netab run option, e.g. "-P" */
    enum exp_kind kind;
    long min, max; /* for EXP_INT */
};

/* The table of keys, in documentation order; *n receives its length. */
const struct exp_key *experiment_keys(size_t *n);
/* The key called `name`, or NULL. */
const struct exp_key *experiment_key_find(const char *name);
/*
 * The matrix axis `dut` (kind EXP_DUT, opt NULL): which of the experiment's
 * DUTs a cell runs on. Not a key of test: and not in experiment_keys().
 */
extern const struct exp_key experiment_dut_key;

/*
 * A key and its value as netab run will see it: integers in canonical
 * decimal, booleans as "true" / "false", everything else as written.
 */
struct exp_kv {
    const struct exp_key *key; /* points into the static table */
    char *value;
};

/* One of a variant's factors: (NAME: LEVEL), docs/experiment.md "Factors". */
struct exp_factor {
    char *name, *level;
};

struct exp_variant {
    char *name;       /* [A-Za-z0-9._-]+, unique in the experiment */
    char *opts;       /* extra netab run options, split shell-like; NULL if none */
    char *cmd;        /* netab compare --cmd: a shell command measured instead of netab run */
    char *setup;      /* shell command entering the variant; NULL if none */
    char *teardown;   /* shell command leaving it; NULL if none */
    int cpus;         /* CPU-constrained mode: online CPUs, 0 = unconstrained */
    int max_freq_mhz; /* CPU frequency cap, 0 = unconstrained */
    char *layout;     /* code layout file of the variant's build (netab layout); NULL if none */
    bool setup_on_dut, teardown_on_dut; /* `on: dut`: the hook runs on the DUT over ssh */
    char *boot;    /* command run on the DUT that boots it into this variant; NULL if none */
    char *expect;  /* PCRE2 pattern the DUT's identity must match; NULL if none */
    bool iperf3;   /* protocol: iperf3 (the server is an iperf3 server, --iperf3) */
    int dut;       /* dut: NAME: 1 + its index in the experiment's duts; 0 if none */
    int line, col; /* where the variant starts in the file */
    /*
     * factors: its level of each factor of a 2 x 2 design over the variants,
     * in file order; NULL/0 without. Loading ensures that either no variant
     * has factors or every one names the same two, each with two levels, and
     * the four variants cover each combination once.
     */
    struct exp_factor *factors;
    size_t nfactors;
    int factors_line, factors_col; /* where factors: is, for the checks across variants */
};

struct exp_axis {
    const struct exp_key *key;
    char **values; /* nvalues >= 1, no duplicates */
    size_t nvalues;
};

struct experiment {
    char *name;
    long runs;     /* measured runs per variant and cell, >= 1 */
    long warmup;   /* discarded runs per variant and cell, >= 0 */
    bool has_seed; /* without a seed the runner picks one and records it */
    uint64_t seed;
    double cooldown;     /* seconds between runs, >= 0 */
    double timeout;      /* seconds a run may take; 0 = run_spec_deadline() of each run */
    char *prepare;       /* shell command before every run; NULL if none */
    bool prepare_on_dut; /* `on: dut`: prepare runs on the DUT */
    enum exp_reset reset;
    enum exp_order order;
    struct exp_dut *duts; /* every DUT: one for dut:, each of duts: in file order; NULL if none */
    size_t nduts;
    bool named_duts;    /* the DUTs come from duts: (each has a name) */
    bool parallel_duts; /* parallel: duts: independent DUTs' runs at the same time */
    /*
     * The DUT of every run when there is exactly one (dut:, or duts: with one
     * entry); NULL otherwise. Points into duts (not owned).
     */
    struct exp_dut *dut;
    struct exp_kv *test; /* options shared by every run, in file order */
    size_t ntest;
    struct exp_variant *variants;
    size_t nvariants;      /* >= 1 */
    struct exp_axis *axes; /* matrix axes in file order; none without a matrix */
    size_t naxes;
    /* `layout: {hot: [...]}`: the code layout report's hot patterns (globs); NULL/0 without. */
    char **layout_hot;
    size_t nlayout_hot;
    /* `report: {cell: T, columns: AXIS}`: the report's cell table; NULL without. */
    char *report_cell, *report_columns;
};

/*
 * Reads and validates the experiment file at `path`. A variant's relative
 * `layout:` path is taken relative to the file's directory and made
 * absolute, and must name a readable file. On success returns 0
 * and *out owns a new experiment (caller has ownership; experiment_free()).
 * Otherwise *out is NULL, every problem found is appended to errs (sorted by
 * position) and the result is -EINVAL for a bad file, the negative errno of
 * a file that cannot be read, or -ENOMEM. errs must be zero-initialised or
 * previously used; the caller frees it with exp_errors_free().
 */
NB_MUST_CHECK int experiment_load(const char *path, struct experiment **out,
                                  struct exp_errors *errs);
/* The same for a file already in memory; `len` bytes, need not be NUL-terminated. */
NB_MUST_CHECK int experiment_load_buffer(const char *buf, size_t len, struct experiment **out,
                                         struct exp_errors *errs);
void experiment_free(struct experiment *e);

/* One matrix cell: a combination of one value per axis. */
struct exp_cell {
    char *name;        /* "streams=4,test=udp_stream", or "default" without a matrix */
    struct exp_kv *kv; /* one per axis, in axis order; values are borrowed from the experiment */
    size_t nkv;
};

/*
 * Expands the matrix into its cross product. The order is stable: the first
 * axis varies slowest and the last fastest, each axis's values in file order
 * (like nested loops over the axes as written). Without a matrix there is
 * one cell named "default" with no values. Caller has ownership of *cells
 * (exp_cells_free()). Returns 0 or -ENOMEM.
 */
NB_MUST_CHECK int experiment_cells(const struct experiment *e, struct exp_cell **cells, size_t *n);
void exp_cells_free(struct exp_cell *cells, size_t n);

/*
 * The arguments of one run of variant v in cell c, as a NULL-terminated
 * vector whose argv[0] is "run": it can be passed to cli_run() as is or
 * appended to the path of the netab executable. Order: the test: options,
 * with the cell's values replacing those of the same key (new keys appended),
 * then the variant's opts split shell-like (so a variant can override
 * either), then "--json". Caller has ownership (exp_argv_free()). c may be
 * NULL for no matrix values. Returns 0, -EINVAL if the variant's opts do not
 * split (err explains), or -ENOMEM.
 */
NB_MUST_CHECK int experiment_run_args(const struct experiment *e, const struct exp_variant *v,
                                      const struct exp_cell *c, char ***argv, int *argc);
void exp_argv_free(char **argv);

/*
 * Splits s into words the way a POSIX shell would without expansions:
 * blanks separate words, '...' is literal, "..." honours \" \\ \$ \` and a
 * backslash outside quotes escapes the next character. Nothing is expanded.
 * Caller has ownership of *words (exp_argv_free()); *n excludes the final
 * NULL. Returns 0, -EINVAL for an unterminated quote or trailing backslash
 * (err explains), or -ENOMEM.
 */
NB_MUST_CHECK int exp_split_words(const char *s, char ***words, size_t *n, char *err,
                                  size_t errlen);

struct run_spec;

/*
 * The run of variant v in cell c (c may be NULL) as a parsed `netab run`
 * specification. *argv receives the argument vector the spec's strings
 * point into (caller has ownership: exp_argv_free() after the spec's last
 * use; NULL on failure). Returns 0, or -EINVAL with "variant 'NAME'[ in
 * cell CELL]: <the option and what is wrong with it>", or -ENOMEM.
 */
NB_MUST_CHECK int experiment_run_spec(const struct experiment *e, const struct exp_variant *v,
                                      const struct exp_cell *c, struct run_spec *spec, char ***argv,
                                      char *err, size_t errlen);

/*
 * The index into e->duts of the DUT the runs of variant v in cell c (may be
 * NULL) run on: the variant's dut:, else the cell's value of the matrix axis
 * dut, else the only DUT; -1 without any (loading ensured that every run of
 * an experiment with several DUTs has one).
 */
int experiment_run_dut(const struct experiment *e, const struct exp_variant *v,
                       const struct exp_cell *c);

/* The size of a campaign. */
struct exp_plan {
    size_t cells;
    size_t runs;      /* (runs + warmup) * variants * cells */
    double seconds;   /* sum of time + omit + cooldown over all runs */
    bool lower_bound; /* some runs are byte-bounded, or reboots and set-up add unknown time */
};

/*
 * Computes the plan from every run's parsed specification (-t and -O of the
 * test mapping, the cell and the variant's opts, netab run's 10 s where none
 * is set); byte-bounded runs add no time and make the figure a lower bound.
 * With parallel: duts the DUTs' runs overlap: the figure is the longest
 * DUT's sum.
 */
void experiment_plan(const struct experiment *e, struct exp_plan *plan);

/* The parsed experiment as a JSON object (docs/experiment.md); caller owns the reference. NULL on
 * ENOMEM. */
json_t *experiment_to_json(const struct experiment *e);

#endif
