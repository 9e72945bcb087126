#include "runout/run_doc.h"

#include <errno.h>
#include <jansson.h>

int run_doc_exit_status(const char *text, int *exit_status, char *err, size_t errlen)
{
    json_error_t jerr;
    json_t *doc = json_loads(text, 0, &jerr);
    int rc = 0;
    if (!json_is_object(doc)) {
        rc = err_set(err, errlen, EINVAL, "%d: not a netab run --json document: %s", jerr.line,
                     doc ? "not an object" : jerr.text);
    } else {
        json_t *error = json_object_get(doc, "error");
        *exit_status = !error || json_is_null(error) ? 0 : 1;
    }
    json_decref(doc);
    return rc;
}
