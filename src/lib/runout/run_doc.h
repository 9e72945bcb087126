/*
 * A `netab run --json` document read back (netab runs import): whether it is
 * one, and the exit status the run had, which its "error" member records.
 */
#ifndef NETAB_RUNOUT_RUN_DOC_H
#define NETAB_RUNOUT_RUN_DOC_H

#include <stddef.h>

#include "util/err.h"

/*
 * Checks that text is a JSON object and sets *exit_status to what `netab
 * run` exited with when it wrote it: 0 when "error" is absent or null, 1
 * (the test failed) otherwise. Returns 0, or -EINVAL with "LINE: not a
 * netab run --json document: WHY" in err.
 */
NB_MUST_CHECK int run_doc_exit_status(const char *text, int *exit_status, char *err, size_t errlen);

#endif
