/*
 * The report's code layout section: each variant's `layout:` file (a symbol
 * table, docs/layout.md) compared with the baseline's by layout/, the
 * result kept in the model for every renderer.
 */
#ifndef NETAB_REPORT_CODELAYOUT_H
#define NETAB_REPORT_CODELAYOUT_H

#include "report/report.h"
#include "layout/layout_report.h"

/* One variant's code layout against the baseline's, a row of r->layout. */
struct creport_codelayout {
    char *variant, *against; /* the variant and the baseline */
    char *file;              /* the variant's layout file */
    char *baseline_file;     /* the baseline's, NULL when it names none */
    bool compared;           /* sum holds the comparison; else error says why not */
    struct layout_summary sum;
    char *error;
};

/*
 * Copies the spec's `layout: {hot: [...]}` patterns (strings; spec may be
 * NULL) into r->layout_hot, for creport_code_layout(). Returns 0 or -ENOMEM.
 */
NB_MUST_CHECK int creport_layout_hot_read(struct creport *r, const json_t *spec);

/* Releases r->layout_hot. */
void creport_layout_hot_free(struct creport *r);

/*
 * Fills r->layout (r->nlayout rows, one per variant after the baseline that
 * names a layout file: variant, against, file, baseline_file, the summary
 * of `netab layout --json` or the error) when any variant names one. The hot
 * set is --hot's (r->opts.hot) when given, else the experiment's `layout:
 * {hot: [...]}`, else the built-in one; the summary names the patterns
 * that match no function of either build. A file
 * that does not load is an error sentence in its entry, not a failed
 * report: the performance verdicts stand on their own. Returns 0 or
 * -ENOMEM.
 */
NB_MUST_CHECK int creport_code_layout(struct creport *r);

/* Releases r->layout. */
void creport_code_layout_free(struct creport *r);

/*
 * The JSON "layout" member: [{"variant", "against", "file", "baseline_file",
 * "summary": the summary object or null, "error": a sentence or null}];
 * NULL when out of memory.
 */
json_t *creport_code_layout_json(const struct creport *r);

#endif
