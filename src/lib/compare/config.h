/*
 * The rules of a `netab compare` configuration: its defaults and what makes
 * one usable, whoever fills it (the command line, netab bisect). The CLI
 * only turns options into fields; every rule across fields is here.
 */
#ifndef NETAB_COMPARE_CONFIG_H
#define NETAB_COMPARE_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "compare/compare.h"
#include "util/err.h"

/*
 * Zeroes cfg and sets the defaults: 5 runs, noise 1 %, confidence 95 %, the
 * text report's plot, /proc/self/exe as the netab to run.
 */
void compare_config_init(struct compare_config *cfg);

/*
 * Appends the variant name (borrowed). Returns 0, or -EINVAL with why in
 * err: an empty or blank name, more than COMPARE_MAX_VARIANTS, a name
 * given twice.
 */
NB_MUST_CHECK int compare_config_add_variant(struct compare_config *cfg, const char *name,
                                             char *err, size_t errlen);

/*
 * A variant's option NAME ("opts", "setup", "teardown", "cmd") with value,
 * for the variant added last; each at most once per variant. "cmd" before
 * the first variant is every variant's command: stored in *global_cmd,
 * once. Returns 0, or -EINVAL with why in err (the option as --NAME): an
 * empty --cmd, one given twice, an option before any --variant.
 */
NB_MUST_CHECK int compare_config_variant_option(struct compare_config *cfg, const char **global_cmd,
                                                const char *name, const char *value, char *err,
                                                size_t errlen);

/*
 * Completes and checks cfg once every option is in: --max-runs only with
 * --until-ci (its default max(runs, 50)); baseline (NULL: the first
 * variant) moved first; at least two variants; global_cmd (a --cmd before
 * the first --variant, or NULL) for variants without their own; each
 * variant's opts split and parsed as `netab run` options
 * (compare_variant_prepare()); --cmd for all variants or none, with exactly
 * one of --metric-json (a dotted path) and --metric-regex; --metric a
 * known name or a dotted path, a direction only where it is not known.
 * Returns 0, or -EINVAL with the first problem in err (option names as
 * the user typed them).
 */
NB_MUST_CHECK int compare_config_check(struct compare_config *cfg, const char *global_cmd,
                                       const char *baseline, bool max_given, char *err,
                                       size_t errlen);

#endif
