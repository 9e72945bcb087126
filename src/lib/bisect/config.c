/* The defaults and the rules of a bisection's options (bisect/bisect.h). */
#include <errno.h>
#include <string.h>

#include "judge/judge.h"
#include "bisect/bisect.h"

void bisect_config_init(struct bisect_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->runs = 5;
    cfg->max_runs = 20;
    cfg->noise = JUDGE_NOISE_DEFAULT;
    cfg->confidence = JUDGE_CONFIDENCE_DEFAULT;
    cfg->self = "/proc/self/exe";
}

int bisect_config_check(struct bisect_config *cfg, bool max_given, char *err, size_t errlen)
{
    if (!max_given && cfg->max_runs < cfg->runs)
        cfg->max_runs = cfg->runs;
    if (cfg->max_runs < cfg->runs)
        return err_set(err, errlen, EINVAL, "--max-runs %u is below --runs %u", cfg->max_runs,
                       cfg->runs);
    return 0;
}
