/*
 * The build identities in `netab report`'s environment section: each
 * variant's first ok run against the baseline's, both ends. The local
 * identity is in the run's environment snapshot (envcap), the remote one in
 * its result (host.remote.identity, sent by netab server). Differences in
 * the remote identity join the environment differences under
 * /remote_identity/...; with the same kernel release on both sides, a
 * different build ID, config or module build is said in a sentence
 * (env_identity_notes) so that one `uname -r` is not taken for one kernel.
 */
#ifndef NETAB_REPORT_IDENTITY_H
#define NETAB_REPORT_IDENTITY_H

#include "report/report.h"
#include "report/rundoc.h"

/*
 * For every entry of r->env_diffs (which names run and baseline_run),
 * appends the remote identity's differing leaves to its differences and
 * sets its identity_notes (sentences, possibly none), reading
 * those runs' stored env and result documents among runs[0..nruns).
 * Returns 0 or -ENOMEM.
 */
NB_MUST_CHECK int creport_identity_notes(struct creport *r, const struct creport_rundoc *runs,
                                         size_t nruns);

#endif
