/*
 * --sections for the formats other than text and Markdown: which sections
 * the HTML page and the CSV table have, and the JSON document cut down to
 * the named sections' members. The renderers still walk the one model;
 * this only says which parts of it they show.
 */
#include <errno.h>
#include <string.h>

#include "creport/campaign_report.h"
#include "util/err.h"

/*
 * Each JSON member and the sections it belongs to; 0: identifying, always
 * kept (which experiment, its variants, cells and metrics, the options).
 */
static const struct {
    const char *member;
    unsigned sections;
} json_members[] = {
    {"report_version", 0},
    {"experiment", 0},
    {"baseline", 0},
    {"confidence", 0},
    {"noise_pct", 0},
    {"variants", 0},
    {"cells", 0},
    {"metrics", 0},
    {"headline", CREPORT_SEC_HEADLINE},
    {"results",
     CREPORT_SEC_TABLES | CREPORT_SEC_CHANGES | CREPORT_SEC_DETAILS | CREPORT_SEC_VALUES},
    {"runs", CREPORT_SEC_RUNS},
    {"env_differences", CREPORT_SEC_ENVIRONMENT},
    {"env_warnings", CREPORT_SEC_WARNINGS},
    {"stats_warnings", CREPORT_SEC_WARNINGS},
    {"warning_summary", CREPORT_SEC_WARNINGS},
    {"summary", CREPORT_SEC_VERDICT},
    {"exit_status", CREPORT_SEC_VERDICT},
    {"cpu_cost", CREPORT_SEC_CPU},
    {"profile_diffs", CREPORT_SEC_PROFILE},
    {"counter_differences", CREPORT_SEC_COUNTERS},
    {"effects", CREPORT_SEC_EFFECTS},
    {"pairs", CREPORT_SEC_PAIRS},
    {"correction", CREPORT_SEC_PAIRS},
    {"layout", CREPORT_SEC_LAYOUT},
};

int creport_json_select(json_t *root, unsigned mask)
{
    if (!mask || mask == CREPORT_SEC_ALL)
        return 0;
    const char *key;
    void *tmp;
    json_t *v;
    json_object_foreach_safe(root, tmp, key, v)
    {
        size_t i = 0, n = sizeof(json_members) / sizeof(*json_members);
        while (i < n && strcmp(json_members[i].member, key))
            i++;
        /* A member not in the list is new and unclassified: keep it rather than lose data. */
        if (i < n && json_members[i].sections && !(json_members[i].sections & mask) &&
            json_object_del(root, key))
            return -ENOMEM;
    }
    return 0;
}

/* The sections each format cannot show, and where to find them instead. */
static const struct {
    const char *format;
    unsigned lacks;
    const char *why;
} refusals[] = {
    {"html", CREPORT_SEC_CPU | CREPORT_SEC_COUNTERS | CREPORT_SEC_LAYOUT | CREPORT_SEC_DETAILS,
     "the HTML page has no such section (the headline holds the CPU cost, the profile the "
     "placement, the changes every comparison); text, markdown and json have it"},
    {"csv",
     CREPORT_SEC_ALL & ~(CREPORT_SEC_HEADLINE | CREPORT_SEC_TABLES | CREPORT_SEC_DETAILS |
                         CREPORT_SEC_VALUES | CREPORT_SEC_CHANGES),
     "the CSV is one table of (variant, cell, metric) rows: it holds headline (the deciding "
     "metric's rows), tables, changes, details and values; text, markdown and json have the "
     "others"},
};

int creport_sections_check(const char *format, unsigned mask, char *err, size_t errlen)
{
    if (!mask || mask == CREPORT_SEC_ALL)
        return 0;
    for (size_t i = 0; i < sizeof(refusals) / sizeof(*refusals); i++) {
        if (strcmp(refusals[i].format, format) || !(mask & refusals[i].lacks))
            continue;
        unsigned bad = mask & refusals[i].lacks;
        return err_set(err, errlen, EINVAL, "--sections %s: %s", creport_section_name(bad),
                       refusals[i].why);
    }
    return 0;
}
