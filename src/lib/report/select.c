/*
 * The formats of `netab report` and the sections each shows: the format's
 * name, which sections the HTML page and the CSV table have, the JSON
 * document cut down to the named sections' members, and the one call that
 * renders a report in a format. The renderers still walk the one model;
 * this only says which renderer and which parts of the model.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "util/err.h"
#include "util/jsonout.h"
#include "util/printable.h"

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
    {"cell_table", CREPORT_SEC_HEADLINE},
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
    enum creport_format format;
    unsigned lacks;
    const char *why;
} refusals[] = {
    {CREPORT_HTML,
     CREPORT_SEC_CPU | CREPORT_SEC_COUNTERS | CREPORT_SEC_LAYOUT | CREPORT_SEC_DETAILS,
     "the HTML page has no such section (the headline holds the CPU cost, the profile the "
     "placement, the changes every comparison); text, markdown and json have it"},
    {CREPORT_CSV,
     CREPORT_SEC_ALL & ~(CREPORT_SEC_HEADLINE | CREPORT_SEC_TABLES | CREPORT_SEC_DETAILS |
                         CREPORT_SEC_VALUES | CREPORT_SEC_CHANGES),
     "the CSV is one table of (variant, cell, metric) rows: it holds headline (the deciding "
     "metric's rows), tables, changes, details and values; text, markdown and json have the "
     "others"},
    {CREPORT_KTAP, CREPORT_SEC_ALL,
     "KTAP has only the tests (the deciding metrics' verdicts); text, markdown and json have "
     "the sections"},
};

int creport_sections_check(enum creport_format fmt, unsigned mask, char *err, size_t errlen)
{
    if (!mask || mask == CREPORT_SEC_ALL)
        return 0;
    for (size_t i = 0; i < sizeof(refusals) / sizeof(*refusals); i++) {
        if (refusals[i].format != fmt || !(mask & refusals[i].lacks))
            continue;
        unsigned bad = mask & refusals[i].lacks;
        return err_set(err, errlen, EINVAL, "--sections %s: %s", creport_section_name(bad),
                       refusals[i].why);
    }
    return 0;
}

int creport_format_parse(const char *name, enum creport_format *fmt, char *err, size_t errlen)
{
    static const char *const names[] = {"text", "markdown", "csv", "json", "html", "ktap", "md"};
    for (int i = 0; i < 7; i++)
        if (!strcmp(name, names[i])) {
            *fmt = i == 6 ? CREPORT_MARKDOWN : (enum creport_format)i;
            return 0;
        }
    return err_set(err, errlen, EINVAL,
                   "--format: '%s' is not text, markdown, csv, json, html or ktap", name);
}

/*
 * Text and Markdown go to terminals and mails, and names in them come from
 * outside (imported files, kernel words, hook output): rendered into memory
 * first, then written with every control byte but the report's own
 * newlines as \xNN (util/printable), so no name can move the cursor, set a
 * title or forge a line. The one place both formats pass; 0, -ENOMEM, -EIO.
 */
static int render_printable(const struct creport *r, enum creport_format fmt, FILE *f)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (!m)
        return -ENOMEM;
    int e = fmt == CREPORT_TEXT ? creport_print_text(r, m) : creport_print_markdown(r, m);
    if (fclose(m) && !e)
        e = -ENOMEM;
    if (!e)
        e = printable_write(f, buf, len, true);
    free(buf);
    return e;
}

int creport_render(const struct creport *r, enum creport_format fmt, const char *const *cmd,
                   FILE *f)
{
    switch (fmt) {
    case CREPORT_TEXT:
    case CREPORT_MARKDOWN:
        return render_printable(r, fmt, f);
    case CREPORT_CSV:
        return creport_print_csv(r, f);
    case CREPORT_HTML:
        return creport_print_html(r, cmd, f);
    case CREPORT_KTAP:
        return creport_print_ktap(r, f);
    case CREPORT_JSON:
        break;
    }
    json_t *j = creport_to_json(r);
    int e = j ? jsonout_write(f, j) : -ENOMEM;
    json_decref(j);
    return e;
}
