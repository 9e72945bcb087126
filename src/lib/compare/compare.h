/*
 * A `netab compare` campaign: the variants, the schedule options and the
 * record of every run. The CLI fills struct compare_config from the command
 * line; runner.c executes one scheduled run at a time.
 */
#ifndef NETAB_COMPARE_COMPARE_H
#define NETAB_COMPARE_COMPARE_H

#include <jansson.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "campaign/campaign.h"
#include "compare/metrics.h"
#include "compare/schedule.h"
#include "runspec/run_spec.h"
#include "util/words.h"
#include "util/err.h"

struct compare_variant {
    const char *name;     /* borrowed from argv */
    const char *opts;     /* --opts text as given, or NULL */
    struct words words;   /* opts split into words; owned */
    const char *cmd;      /* --cmd: external command (NULL: netab run) */
    const char *setup;    /* shell command before each of its runs, or NULL */
    const char *teardown; /* shell command after each of its runs, or NULL */
    const char *boot;     /* with cfg->dut: the DUT's boot into this variant, or NULL */
    const char *expect;   /* with cfg->dut: the identity pattern it must show, or NULL */
    struct run_spec spec; /* netab run variants: the words after -- and opts, parsed */
};

struct compare_config {
    struct compare_variant variants[COMPARE_MAX_VARIANTS];
    size_t nvariants;
    char **common; /* the words after "--" (borrowed from argv) */
    size_t ncommon;
    unsigned runs, warmup; /* measured and warm-up rounds */
    double until_ci;   /* adaptive target: half-width of the relative change (fraction), 0 off */
    unsigned max_runs; /* adaptive: at most this many measured rounds */
    uint64_t seed;
    bool seed_given;
    const char *prepare; /* shell command before every run, or NULL */
    double cooldown;     /* seconds to sleep after every run */
    double timeout;      /* per run, seconds; 0: derived from -t (see compare_run_timeout) */
    const char *metric;  /* deciding metric: a name or a dotted path */
    bool lower_is_better, direction_given;
    const char *metric_json;   /* --cmd: dotted path into the command's JSON output */
    const char *metric_regex;  /* --cmd: regular expression with one capture group */
    double noise, confidence;  /* fractions */
    bool pairs_all;            /* --pairs all: every pair too, Bonferroni-corrected */
    bool json, plot;           /* plot: the ASCII distribution plot in the text report */
    const char *format;        /* --format text|json|ktap as given, or NULL; check: json, ktap */
    bool ktap;                 /* KTAP for kernel CI (compare/ktap.h) */
    const char *figure;        /* --plot FILE: the figure of the deciding metric, or NULL */
    double figure_w, figure_h; /* --plot-width, --plot-height; 0 = the default */
    bool figure_log;           /* --plot-log */
    const char *figure_axis;   /* --plot-axis: the value axis' label, or NULL */
    const char *db;   /* --db: results store every netab run child records itself in, or NULL */
    const char *self; /* the netab executable to run ("/proc/self/exe") */
    const char *name; /* the experiment's name in the store; NULL: "compare" (netab bisect) */
    /* Adaptive: the fewest measured rounds before the first look; 0: 5 (netab bisect: 2). */
    unsigned first_look;
    /*
     * A device under test (netab bisect --experiment), borrowed: every run
     * targets its server after the campaign engine has booted it into the
     * run's variant (boot, expect) and checked its identity; NULL without.
     */
    const struct exp_dut *dut;
    bool reboot; /* with dut: boot before every run (reset: reboot) */
};

/*
 * Parses variant v's `netab run` options (cfg's common words, then v's opts,
 * which must be split into v->words already) into v->spec, so that a variant
 * that cannot run is refused before anything runs. Nothing to do for --cmd
 * variants. Returns 0 or -EINVAL with "variant 'NAME': <option>: <why>".
 */
NB_MUST_CHECK int compare_variant_prepare(const struct compare_config *cfg,
                                          struct compare_variant *v, char *err, size_t errlen);

/* Frees the variants' split options. */
void compare_config_free(struct compare_config *c);

/* True when the variants are measured by external commands (--cmd). */
bool compare_uses_cmd(const struct compare_config *c);

enum compare_run_status { COMPARE_RUN_OK, COMPARE_RUN_FAILED };

struct compare_run {
    struct campaign_slot slot;
    enum compare_run_status status;
    char error[320];   /* why the run failed; empty when it did not */
    double seconds;    /* wall time of the measured command */
    double *values;    /* one per campaign metric; NaN where absent; owned */
    json_t *profile;   /* end.profile.local of a --profile run (owned), or NULL */
    double others_pct; /* other processes' share of local busy CPU (METRIC_POLLUTION); NaN */
    double steal_pct;  /* hypervisor steal, the larger end's (metric_steal_pct()); NaN */
};

struct compare_campaign {
    const struct compare_config *cfg;
    struct compare_metric *metrics; /* owned array */
    size_t nmetrics;
    size_t decide;  /* index of the metric that decides the exit status */
    unsigned kind;  /* the variants' test kind (enum metric_kind); METRIC_UNKNOWN for --cmd */
    double timeout; /* the longest run's deadline, for the banner (compare_run_timeout()) */
};

/*
 * Sets up c's metric list from cfg: the named netab metrics (plus the custom
 * path of --metric if it is not one of them), or the single metric of --cmd.
 * Returns 0, -EINVAL (bad --metric for --cmd, explained in err) or -ENOMEM.
 */
NB_MUST_CHECK int compare_campaign_init(struct compare_campaign *c,
                                        const struct compare_config *cfg, char *err, size_t errlen);
void compare_campaign_free(struct compare_campaign *c);

/*
 * The per-run timeout when --timeout is not given: the longest
 * run_spec_deadline() of the variants (2 x (-t + -O) + 60 s, 900 s for -n),
 * the formula every campaign uses; 600 s for external commands. Call after
 * compare_variant_prepare().
 */
double compare_run_timeout(const struct compare_config *cfg);

struct experiment;

/*
 * The experiment the campaign engine runs for cfg (after
 * compare_variant_prepare() of every variant): named cfg->name or "compare", one cell,
 * cfg's runs, warm-ups, seed, cooldown, prepare and timeout, each
 * variant's boot and expect (its dut is left NULL: the caller lends
 * cfg->dut, compare/session.h); each variant's opts are the words after -- followed by its own
 * --opts (quoted so that they split back into the same words), or its --cmd line with them
 * appended. Caller has ownership (experiment_free()). Returns 0 or -ENOMEM.
 */
NB_MUST_CHECK int compare_experiment(const struct compare_config *cfg, struct experiment **out,
                                     char *err, size_t errlen);

/*
 * The compare record of the run ev reports: its slot, and the metrics from
 * its output when it succeeded (a run without the deciding metric has
 * failed). out->values is allocated here (compare_run_free()). Returns 0 or
 * -ENOMEM.
 */
NB_MUST_CHECK int compare_run_from_event(const struct compare_campaign *c,
                                         const struct campaign_event *ev, struct compare_run *out);

void compare_run_free(struct compare_run *r);

#endif
