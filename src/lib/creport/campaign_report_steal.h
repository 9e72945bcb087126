/*
 * The hypervisor's share in `netab report`'s warnings. On a virtual machine
 * the host may run other guests on the CPUs this one was given; /proc/stat
 * counts the time a vCPU was ready but not running as "steal". During it
 * neither end sends nor answers, so a link-bound run falls below the link's
 * rate and a latency run grows a tail, by chance and unevenly across runs:
 * noise the report must name, as it names other work competing for the CPUs.
 */
#ifndef NETAB_CREPORT_CAMPAIGN_REPORT_STEAL_H
#define NETAB_CREPORT_CAMPAIGN_REPORT_STEAL_H

#include "creport/campaign_report.h"

/* Steal time (% of all online CPUs, either end) above which a run is counted. */
#define CREPORT_STEAL_WARN_PCT 1.0

/*
 * Reads end.cpu.local.steal_pct and end.cpu.remote.steal_pct of every run
 * with a stored result among runs[0..nruns) and, when some run's larger one
 * is above CREPORT_STEAL_WARN_PCT, appends to r->env_warnings one sentence:
 * in how many of those runs, and the most. Returns 0 or -ENOMEM.
 */
NB_MUST_CHECK int creport_steal_warning(struct creport *r, const struct store_run *runs,
                                        size_t nruns);

#endif
