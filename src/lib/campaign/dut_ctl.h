/*
 * The directory of a campaign's shared ssh connection to its DUT (OpenSSH's
 * ControlPath), named after the experiment so that a runner killed with
 * SIGKILL leaves its connection where the next one (resume) finds it: that
 * one ends the leftover master before starting its own, and dut_close()
 * ends its own and removes the directory. A random name per runner left
 * each killed runner's master behind, unseen.
 */
#ifndef NETAB_CAMPAIGN_DUT_CTL_H
#define NETAB_CAMPAIGN_DUT_CTL_H

#include <stddef.h>
#include <stdint.h>

#include "campaign/dut.h"

/*
 * Sets d->ctl_dir to $TMPDIR/netab-ssh-ID-PORT[TAG] (d->tag; /tmp when TMPDIR is not an
 * absolute path short enough for ssh's socket names) and creates it (0700).
 * An existing one must be this user's private directory (not a link), else
 * -EPERM with the reason; *existed then says a killed runner left it.
 * Returns 0 or a negative errno with err filled.
 */
NB_MUST_CHECK int dut_ctl_open(struct dut *d, int64_t experiment_id, bool *existed, char *err,
                               size_t errlen);

/*
 * Ends the master listening in d->ctl_dir for d's destination, if any
 * ("ssh -O exit", at most DUT_SSH_CALL_S); needs d->cfg. Errors are ignored:
 * there may be no master.
 */
void dut_ctl_exit(struct dut *d);

/*
 * dut_ctl_exit(), then removes d->ctl_dir: waits (a few seconds at most) for
 * the exiting master to remove its socket, then removes any socket left.
 */
void dut_ctl_close(struct dut *d);

#endif
