/* Runs made outside a netab experiment, recorded in the store (import.h). */
#include "import/import.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "runout/run_doc.h"
#include "util/names.h"
#include "util/textfile.h"

/*
 * The names the command line gave, by the experiment file's rules
 * (util/names): they become store keys and report columns, so a name
 * holding a control byte or a formula never gets in. 0 or -EINVAL.
 */
static int check_target(const struct store_import_target *t, char *err, size_t errlen)
{
    int e = name_check("--variant", t->variant, false, err, errlen);
    if (!e && t->experiment && *t->experiment)
        e = name_check("--experiment", t->experiment, false, err, errlen);
    if (!e && t->cell)
        e = name_check("--cell", t->cell, true, err, errlen);
    return e;
}

int import_docs(struct store *db, const struct store_import_target *t, const struct input_docs *d,
                int64_t *experiment_id, int *first_seq, char *err, size_t errlen)
{
    int e = check_target(t, err, errlen);
    if (e)
        return e;
    struct store_import_run *runs = calloc(d->n ? d->n : 1, sizeof(*runs));
    if (!runs)
        return err_set(err, errlen, ENOMEM, "out of memory");
    for (size_t i = 0; i < d->n; i++)
        runs[i] = (struct store_import_run){d->docs[i].result_json, d->docs[i].params_json,
                                            d->docs[i].argv_text, d->docs[i].error};
    int rc = store_import(db, t, runs, d->n, experiment_id, first_seq, err, errlen);
    free(runs);
    return rc;
}

int import_run_doc(struct store *db, const char *path, const char *argv_text, int64_t *run_id,
                   char *err, size_t errlen)
{
    size_t len;
    char *text = NULL, why[NB_ERRLEN * 2];
    int rc = textfile_load(path, TEXTFILE_MAX, "a JSON document", &text, &len, why, sizeof(why));
    if (rc)
        return err_set(err, errlen, rc, "%s", why);
    int exit_code;
    if ((rc = run_doc_exit_status(text, &exit_code, why, sizeof(why)))) {
        free(text);
        return err_set(err, errlen, rc, "%s:%s", path, why);
    }
    char given[4200];
    snprintf(given, sizeof(given), "imported from %s", path);
    rc = store_record_result(db, argv_text ? argv_text : given, text, exit_code, run_id, why,
                             sizeof(why));
    free(text);
    return rc ? err_set(err, errlen, rc, "%s", why) : 0;
}
